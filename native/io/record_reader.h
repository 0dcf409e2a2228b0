// Reads TFRecord files: sequentially (one record or a batch at a time), or at given offsets.
//
// Damage is reported as TensorFlow reports it (see record_format.h), and the records before the
// damage are delivered first. Every header's CRC is checked before its length is trusted, and a
// length is checked against the bytes really present before memory is committed to it.
#ifndef SWIGFLOW_IO_RECORD_READER_H_
#define SWIGFLOW_IO_RECORD_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/input_stream.h"
#include "swigflow/io/record_options.h"

namespace swigflow {
namespace io {

// Records read in one call, their payloads back to back in one buffer.
class RecordBatch {
 public:
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  // Payload bytes of all records.
  size_t bytes() const { return ends_.empty() ? 0 : ends_.back(); }
  const char* data() const { return data_.get(); }
  // Record i is data()[begin(i), end(i)).
  size_t begin(size_t i) const { return i == 0 ? 0 : ends_[i - 1]; }
  size_t end(size_t i) const { return ends_[i]; }
  // Where record i starts in the (decompressed) file.
  uint64_t offset(size_t i) const { return offsets_[i]; }

  void Clear();
  // Room for n more bytes of the record being read; valid until the next Grow.
  char* Grow(size_t n);
  // Drops the bytes of the record being read.
  void Rollback() { used_ = bytes(); }
  // Ends the record being read, which started at `offset`.
  void Commit(uint64_t offset);

 private:
  std::unique_ptr<char[]> data_;
  size_t used_ = 0;
  size_t capacity_ = 0;
  std::vector<size_t> ends_;
  std::vector<uint64_t> offsets_;
};

class RecordReader {
 public:
  static Status Open(const std::string& path, const RecordOptions& options,
                     std::unique_ptr<RecordReader>* reader);

  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record and where it starts. OUT_OF_RANGE at the end of the data, including a header
  // cut short by the end of the file (TensorFlow ends there quietly too); DATA_LOSS on damage.
  Status ReadRecord(uint64_t* offset, std::string* record);

  // Replaces `batch` with up to max_records records (stopping early once max_bytes of payload
  // are read). When damage follows some good records, those are returned with OK and the error
  // comes from the next call. OUT_OF_RANGE only when not one record is left.
  //
  // With direct_length, the batch also stops before a record whose payload has at least that
  // many bytes (in a compressed file, at most kMaxDirectCompressed): its header is read and
  // checked, and LargePending() then gives its length, so that the caller can allocate the record's
  // final home (a Python bytes object) and ReadLarge() read the payload straight into it: one copy
  // from the page cache, its CRC checked while the bytes are hot.
  Status ReadBatch(size_t max_records, size_t max_bytes, RecordBatch* batch,
                   uint64_t direct_length = UINT64_MAX);
  static constexpr uint64_t kMaxDirectCompressed = uint64_t{64} << 20;

  // Whether a large record's header is pending (then *length is its payload length).
  bool LargePending(uint64_t* length) const;
  // Reads the pending large record's payload into dst (LargePending's length bytes) and checks
  // its CRC. Errors are sticky, as everywhere.
  Status ReadLarge(char* dst, uint64_t* offset);

  // Reads the next record's header and skips its payload without checking the payload's CRC.
  // For building index files: *length is the payload length.
  Status SkipRecord(uint64_t* offset, uint64_t* length);

  // Continues at `offset`, which must be where a record starts. Compressed files are
  // decompressed from the start (or from the current position when moving forward).
  Status Seek(uint64_t offset);

  // Where the next record starts: just after the last record returned, also when damage or
  // the end of the data stopped reading (so that Seek(offset()) tries that record again).
  uint64_t offset() const { return next_offset_; }
  const std::string& path() const { return path_; }

 private:
  RecordReader(std::string path, const RecordOptions& options)
      : path_(std::move(path)), options_(options) {}
  Status OpenStream();
  template <typename Sink>
  Status ReadOne(uint64_t* offset, Sink* sink);
  template <typename Sink>
  Status ReadPayload(uint64_t offset, uint64_t length, Sink* sink);
  Status ReadHeader(uint64_t* offset, uint64_t* length);
  // An error found reading, as reported (RandomAccessFile::Reported), kept: errors are sticky.
  Status Fail(Status s);

  const std::string path_;
  const RecordOptions options_;
  std::unique_ptr<InputStream> stream_;
  FileInputStream* file_stream_ = nullptr;  // stream_ itself when uncompressed, else null
  const RandomAccessFile* file_ = nullptr;  // the file under stream_
  uint64_t file_size_ = 0;                  // for uncompressed files: bounds every length
  Status pending_;                          // an error found after the records of the last batch
  uint64_t next_offset_ = 0;                // just after the last record returned (or skipped)
  bool large_pending_ = false;              // a large record's header is read, its payload not
  uint64_t large_offset_ = 0;
  uint64_t large_length_ = 0;
};

// The stream the records of `path` are read from: the file, or a decompressor over it.
// *file_size is the size of the file itself; *file (when not null) the file, which the stream
// owns.
Status OpenRecordStream(const std::string& path, const RecordOptions& options, uint64_t* file_size,
                        std::unique_ptr<InputStream>* stream,
                        const RandomAccessFile** file = nullptr);

// Reads the record starting at `offset` of an uncompressed file with pread: safe to call from
// many threads on one file. An offset at or past the end is DATA_LOSS: callers take offsets
// from an index or a scan, so a record was there.
Status ReadRecordAt(const RandomAccessFile& file, uint64_t offset, std::string* record);

// Errors of both are reported by `file` (RandomAccessFile::Reported).
//
// ReadRecordAt for a record whose framed length an index gave: it must have that length (else
// DATA_LOSS). A small record is read with one pread instead of two.
Status ReadIndexedRecordAt(const RandomAccessFile& file, uint64_t offset, uint64_t framed_length,
                           std::string* record);

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_READER_H_
