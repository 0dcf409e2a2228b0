// Sequential byte streams that records are read from: a buffered file, or a decompressor over one.
#ifndef SWIGFLOW_IO_INPUT_STREAM_H_
#define SWIGFLOW_IO_INPUT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "swigflow/framework/check.h"
#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"

namespace swigflow {
namespace io {

class InputStream {
 public:
  virtual ~InputStream() = default;

  // Reads n bytes into dst. *bytes_read < n means the stream ended; that is not an error here
  // (the caller decides whether a short read is a clean end or a truncation).
  virtual Status Read(size_t n, char* dst, size_t* bytes_read) = 0;

  // Skips n bytes; *skipped < n means the stream ended.
  virtual Status Skip(uint64_t n, uint64_t* skipped) = 0;

  // Position in the stream (for a decompressor: in the decompressed bytes).
  virtual uint64_t Tell() const = 0;
};

// Reads a file through a buffer of `buffer_size` bytes. Large reads bypass it: once the buffer
// is drained, the rest of a read of at least kDirectRead bytes goes straight into the caller's
// memory (one copy from the page cache). After such a read the buffer refills by only
// kSmallRefill bytes, so the header between two large records does not drag the next payload
// through the buffer. A file that reads from memory (RandomAccessFile::ReadsFromMemory) is
// never buffered.
class FileInputStream : public InputStream {
 public:
  static constexpr size_t kDefaultBufferSize = 1 << 20;
  static constexpr size_t kDirectRead = 64 << 10;
  static constexpr size_t kSmallRefill = 4 << 10;

  FileInputStream(std::unique_ptr<RandomAccessFile> file, size_t buffer_size);

  Status Read(size_t n, char* dst, size_t* bytes_read) override;
  Status Skip(uint64_t n, uint64_t* skipped) override;
  uint64_t Tell() const override { return position_; }

  // Continues reading at `offset`.
  void Seek(uint64_t offset);

  const RandomAccessFile& file() const { return *file_; }

 private:
  // One file read; the sequential read-ahead hint comes with the second (a small file read
  // whole in one call needs none).
  Status ReadFile(size_t n, char* dst, size_t* got);
  // The part of the invariant below that can be checked without the file.
  void CheckBuffer() const {
    SWIGFLOW_DCHECK(begin_ <= end_ && end_ <= (buffer_ != nullptr ? capacity_ : 0));
  }

  const std::unique_ptr<RandomAccessFile> file_;
  const bool unbuffered_;  // file_->ReadsFromMemory()
  // Allocated at the first buffered read: many files never need it.
  std::unique_ptr<char[]> buffer_;
  const size_t capacity_;
  // Invariant: buffer_[begin_, end_) holds the file's bytes [position_, position_ + end_ - begin_).
  size_t begin_ = 0;
  size_t end_ = 0;
  uint64_t position_ = 0;
  bool after_direct_ = false;  // the last file read went straight to the caller
  uint64_t reads_ = 0;         // file reads so far
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_INPUT_STREAM_H_
