// TFRecord reading for swigflow.io (python/swigflow/io/tf_record.py, scan.py, index.py): the
// reader, random-access file and scanner as Python sees them, returning Python objects built
// from batches read without the GIL. Writing needs no adapter: record_io.i wraps RecordWriter.
#ifndef SWIGFLOW_SWIG_PY_RECORD_IO_H_
#define SWIGFLOW_SWIG_PY_RECORD_IO_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "swig/py_runtime.h"
#include "swigflow/io/file.h"
#include "swigflow/io/record_options.h"
#include "swigflow/io/record_reader.h"
#include "swigflow/io/record_scan.h"
#include "swigflow/io/seek_index.h"

namespace swigflow {
namespace python {

// The sequential reader behind swigflow.io.TFRecordReader: a RecordReader and the batch buffer
// it reuses. Reading happens without the GIL; one mutex keeps threads sharing a reader apart.
class PyRecordReader {
 public:
  static Status Open(const std::string& path, const io::RecordOptions& options,
                     std::unique_ptr<PyRecordReader>* reader);
  ~PyRecordReader();

  // Up to max_records records as a list of bytes, fewer once max_bytes of payload are read;
  // [] at the end of the data. Records before damage come first; the error comes next call.
  //
  // Small records are read into the reused batch buffer and copied into their bytes objects.
  // A record of kDirectLength bytes or more is read (or inflated) straight into a bytes object
  // allocated for it, the GIL taken only for that allocation: one copy from the page cache (or
  // the decompressor's output), the CRC computed over the same hot bytes.
  PyObject* ReadBatch(size_t max_records, size_t max_bytes);

  // The zero-copy read: up to max_records records as (data, ends), a uint8 array holding the
  // payloads back to back (one copy from the page cache, no bytes objects) and an int64 array of
  // n + 1 boundaries, record i being data[ends[i]:ends[i + 1]]; None at the end. The buffer is
  // reused by the next call unless an array still refers to it, so the arrays stay valid for as
  // long as they are held.
  PyObject* ReadBatchView(size_t max_records, size_t max_bytes);

  // Continues at `offset`, which must be where a record starts.
  Status Seek(uint64_t offset);

  // Where the next record starts (in decompressed bytes for ZLIB/GZIP files).
  uint64_t Offset();

 private:
  explicit PyRecordReader(std::unique_ptr<io::RecordReader> reader);

  // mu_, waited for without the GIL: its holder takes the GIL now and then, so a thread that
  // held the GIL while it waited for mu_ would deadlock with it.
  std::unique_lock<std::mutex> LockWithoutGil();

  // Appends the records of batch_ to list as bytes objects; false with a Python error set.
  bool AppendBatch(PyObject* list);

  std::mutex mu_;
  std::unique_ptr<io::RecordReader> reader_;
  io::RecordBatch batch_;
  Ref views_[2];  // capsules owning ReadBatchView's RecordBatches
};

// Seek indexes (swigflow/io/seek_index.h) cross into Python as the bytes of their index file,
// so Python can store, pickle and hand them to each native reader, which parses and checks them.

// Inflates `path` (compression: io::Compression's value) once; its seek index as bytes. A span
// of 0 is the default (io::kDefaultSeekSpan).
PyObject* BuildSeekIndex(const std::string& path, int compression, uint64_t span);

// (compression, offsets, lengths) of the seek index in `index` (bytes) once its checks pass,
// compression being io::Compression's value; `index_path` names it in errors.
PyObject* SeekIndexRecords(PyObject* index, const std::string& index_path);

// Random access to a file for swigflow.io.TFRecordFile; thread-safe (pread). An uncompressed
// file is read at byte offsets; a compressed one through its seek index, at uncompressed ones.
class PyRecordFile {
 public:
  static Status Open(const std::string& path, std::unique_ptr<PyRecordFile>* file);
  // A GZIP or ZLIB file with its seek index (bytes), which must still describe it
  // (FAILED_PRECONDITION otherwise); `index_path` names the index in errors.
  static Status OpenSeekable(const std::string& path, PyObject* index,
                             const std::string& index_path, std::unique_ptr<PyRecordFile>* file);

  // The payload of the record at `offset` as bytes. With framed_length >= 0 (from an index), the
  // record must have exactly that framed length (a seekable file needs it).
  PyObject* Read(uint64_t offset, int64_t framed_length);

 private:
  PyRecordFile(std::unique_ptr<io::RandomAccessFile> file,
               std::shared_ptr<const io::SeekIndex> seek);

  const std::unique_ptr<io::RandomAccessFile> file_;
  const std::shared_ptr<const io::SeekIndex> seek_;  // null: uncompressed
};

// Random reads across many uncompressed files, for swigflow.data.TFRecordDataSource: files are
// added once (the n-th Add is slot n) and read in batches, in parallel on the default thread
// pool without the GIL. Thread-safe.
class PyRecordFiles {
 public:
  Status Add(const std::string& path);
  // A compressed file and its seek index, as PyRecordFile::OpenSeekable takes them.
  Status AddSeekable(const std::string& path, PyObject* index, const std::string& index_path);

  // The payloads of the records at (slots[i], offsets[i]), each of framed_lengths[i] bytes
  // (from an index, checked as PyRecordFile::Read checks it), as a list of bytes. The three
  // arguments are contiguous int64 buffers of one length. The first failing read raises.
  PyObject* ReadMany(PyObject* slots, PyObject* offsets, PyObject* framed_lengths);

 private:
  struct Slot {
    std::unique_ptr<io::RandomAccessFile> file;
    std::shared_ptr<const io::SeekIndex> seek;  // null: uncompressed
  };
  std::mutex mu_;  // guards files_ (the files themselves are read with pread)
  std::vector<Slot> files_;
};

// The damage-tolerant scanner behind swigflow.io.TFRecordScanner (not thread-safe: one
// iterator per object, as Python uses it).
class PyRecordScanner {
 public:
  static Status Open(const std::string& path, const io::RecordOptions& options,
                     std::unique_ptr<PyRecordScanner>* scanner);

  // Up to max_records intact records as [(offset, payload)], payload None unless
  // with_payloads; [] at the end. Read without the GIL.
  PyObject* ReadBatch(size_t max_records, bool with_payloads);

  // Damage found since the last call: [(kind, offset, resume, records_before, message)].
  PyObject* TakeDamages();

 private:
  explicit PyRecordScanner(std::unique_ptr<io::RecordScanner> scanner);

  std::unique_ptr<io::RecordScanner> scanner_;
};

// Record indexes (io/record_index.h) as their two arrays (record_io.i releases the GIL).
// The index of the uncompressed file at `path`.
Status ScanRecordIndex(const std::string& path, std::vector<int64_t>* offsets,
                       std::vector<int64_t>* lengths);
// Scans `path` and writes its index file.
Status CreateIndexFile(const std::string& path, const std::string& index_path,
                       std::vector<int64_t>* offsets, std::vector<int64_t>* lengths);
Status ReadRecordIndex(const std::string& index_path, std::vector<int64_t>* offsets,
                       std::vector<int64_t>* lengths);
// InvalidArgument when offsets and lengths differ in length.
Status WriteRecordIndex(const std::string& index_path, const std::vector<int64_t>& offsets,
                        const std::vector<int64_t>& lengths);

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_RECORD_IO_H_
