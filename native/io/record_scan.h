// Reads every intact record of a TFRecord file that may be damaged, and describes the damage:
// what `swigflow verify` and `swigflow repair` are built on.
//
// RecordReader stops at the first damage, as TensorFlow does. The scanner instead goes on:
//   - a payload whose CRC does not match is skipped (its header's CRC matched, so its length can
//     be trusted);
//   - after a header whose CRC does not match, the length cannot be trusted, so the scanner looks
//     for the next offset where a whole record checks out (header CRC and payload CRC): random
//     bytes pass both with odds of about 2^-64;
// Memory is bounded by the data, never by what damage claims: the buffer holds a read chunk plus
// one record being checked, and in a compressed stream grows only as decompressed bytes arrive.
//   - a record cut short by the end of the data, or a stray partial header there, ends the scan;
//   - a compressed stream that cannot be decompressed any further ends the scan.
// Offsets are positions in the decompressed data, as everywhere in swigflow. An uncompressed
// regular file is read as it was at Open: up to its size then (a file shorter than a read chunk
// in one read, with no read to find its end).
#ifndef SWIGFLOW_IO_RECORD_SCAN_H_
#define SWIGFLOW_IO_RECORD_SCAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/framework/check.h"
#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/input_stream.h"
#include "swigflow/io/record_options.h"

namespace swigflow {
namespace io {

struct RecordDamage {
  enum class Kind : int {
    kLengthCrc = 0,    // a header's CRC does not match
    kDataCrc = 1,      // a payload's CRC does not match
    kTruncated = 2,    // a record (or header) cut short by the end of the data
    kStream = 3,       // the compressed stream is damaged; nothing after it can be read
    kUndecodable = 4,  // an intact record whose image does not decode (swigflow.data)
    kUnparsable = 5,   // an intact record that does not parse as the spec asks (swigflow.data)
  };
  Kind kind;
  uint64_t offset;          // where the damaged bytes start
  uint64_t resume;          // where intact data starts again (the end of the data if never)
  uint64_t records_before;  // intact records before the damage: its record number
  std::string message;
};

// "length CRC mismatch", "data CRC mismatch", "truncated record", "damaged compressed stream",
// "undecodable image", "unparsable record".
const char* DamageKindName(RecordDamage::Kind kind);

class RecordScanner {
 public:
  // `buffer`: memory to reuse (its capacity; its contents are dropped), such as a finished
  // scanner's TakeBuffer(), so that a reader going from file to file allocates once.
  static Status Open(const std::string& path, const RecordOptions& options,
                     std::unique_ptr<RecordScanner>* scanner, std::string buffer = {});

  RecordScanner(const RecordScanner&) = delete;
  RecordScanner& operator=(const RecordScanner&) = delete;

  // The next intact record: *record views its payload in the scanner's buffer until the next
  // call. OUT_OF_RANGE at the end of the data. Damage met on the way is appended to damages(),
  // not returned; the only errors returned are failures to read the file at all.
  Status Next(uint64_t* offset, std::string_view* record) { return Next(offset, record, nullptr); }
  // The same; *keeper (when not null) is set where the payload lies in memory the file lent (a
  // remote reader's block), to a reference that keeps it valid past the next call, else null.
  Status Next(uint64_t* offset, std::string_view* record, std::shared_ptr<const void>* keeper);
  // The same, copying the payload into *record unless that is null.
  Status Next(uint64_t* offset, std::string* record);

  // Whether the next Next is answered from memory the file holds now (its record lies whole in
  // the block a remote reader lent, or the data ends), rather than wait for the file to fetch
  // more. True where the scanner does not read in place: it cannot tell, and local reads do not
  // wait on a store.
  bool NextInHand() const;

  // Stops at the first damage instead of scanning on: Next records it and returns OUT_OF_RANGE,
  // without resynchronizing or reading the rest of the data (a reader that raises on damage,
  // as TensorFlow's, needs nothing more). A header cut short at the very end is not damage
  // that stops anything: the data ends there anyway.
  void set_stop_at_damage(bool stop) { stop_at_damage_ = stop; }

  const std::vector<RecordDamage>& damages() const { return damages_; }
  std::vector<RecordDamage> TakeDamages() { return std::move(damages_); }
  uint64_t records() const { return records_; }  // intact records returned so far
  const std::string& path() const { return path_; }

  // The read buffer's memory (emptied), for the next scanner: this one is done with it.
  std::string TakeBuffer();

 private:
  static constexpr uint64_t kUnknownSize = UINT64_MAX;  // compressed: the data's size is unknown

  RecordScanner(std::string path, std::unique_ptr<InputStream> stream, const RandomAccessFile* file,
                uint64_t file_size, bool sized, bool in_place, std::string buffer)
      : path_(std::move(path)),
        stream_(std::move(stream)),
        file_(file),
        file_size_(file_size),
        sized_(sized),
        in_place_(in_place),
        buffer_(std::move(buffer)) {
    buffer_.clear();
  }

  // The next record read in place (true: *offset, *record viewing it until the next call),
  // where the file lends the whole record, intact (from the block it lends now, if bytes are
  // buffered). False leaves all as it was: the record is read through the buffer (and any
  // damage told there).
  Status NextInPlace(uint64_t* offset, std::string_view* record,
                     std::shared_ptr<const void>* keeper, bool* found);
  // Makes at least n bytes from the read position available, unless the data ends first.
  // Returns how many are (at most n).
  Status Fill(uint64_t n, uint64_t* available);
  // Looks for the first offset >= position() + 1 where a whole record checks out and moves
  // there (or to the end of the data); returns that offset. Candidates longer than the larger
  // of 64 MiB and the largest intact record so far are not considered.
  Status Resync(uint64_t* resumed);
  // Ends the scan after a damage in stop-at-damage mode.
  Status StopAtDamage();
  // Moves to the end of the data; *skipped: the bytes passed over.
  Status SkipToEnd(uint64_t* skipped);
  // Consumes n buffered bytes.
  void Consume(uint64_t n) {
    SWIGFLOW_DCHECK(n <= buffer_.size() - head_);  // only bytes Fill made available
    head_ += n;
  }
  uint64_t position() const { return base_ + head_; }
  const char* at(uint64_t i) const { return buffer_.data() + head_ + i; }
  // Records damage, its message as file_ reports it.
  void AddDamage(RecordDamage::Kind kind, uint64_t offset, uint64_t resume, std::string message);

  const std::string path_;
  const std::unique_ptr<InputStream> stream_;
  const RandomAccessFile* const file_;  // under stream_: reports damage (Reported)
  const uint64_t file_size_;  // bounds lengths in uncompressed files; kUnknownSize otherwise
  const bool sized_;          // a regular uncompressed file: the data ends at file_size_
  // An uncompressed file that reads from memory (a remote reader's blocks): its records are
  // checked and returned where they lie (NextInPlace), not copied into buffer_ first.
  const bool in_place_;
  // buffer_[head_, end) holds the decompressed bytes [position(), ...); base_ is the position of
  // buffer_[0].
  std::string buffer_;
  size_t head_ = 0;
  uint64_t base_ = 0;
  bool ended_ = false;      // the stream has no more bytes (or failed: see damages_)
  bool resyncing_ = false;  // in Resync: an in-place scanner fills kInPlaceChunk at a time
  bool stop_at_damage_ = false;
  uint64_t records_ = 0;
  uint64_t largest_record_ = 0;  // the longest intact payload returned so far
  std::vector<RecordDamage> damages_;
  // The decompressor's error, and where the data ended, until the scan gets there.
  Status stream_damage_;
  uint64_t stream_damage_at_ = 0;
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_SCAN_H_
