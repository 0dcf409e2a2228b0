// POSIX files with Status errors that name the path.
//
// RandomAccessFile reads with pread, so one open file serves concurrent readers. WritableFile
// buffers appends and writes large ones straight through.
#ifndef SWIGFLOW_IO_FILE_H_
#define SWIGFLOW_IO_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace io {

// The Status for a failed system call on `path`: ENOENT -> NOT_FOUND, EACCES -> PERMISSION_DENIED,
// ENOSPC -> RESOURCE_EXHAUSTED, EISDIR -> FAILED_PRECONDITION, ... Message: "<path>: <strerror>".
Status IOError(const std::string& path, int errno_value);

class RandomAccessFile {
 public:
  // *size (when not null): the file's size at the open.
  static Status Open(const std::string& path, std::unique_ptr<RandomAccessFile>* file,
                     uint64_t* size = nullptr);
  ~RandomAccessFile();

  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads up to n bytes at `offset` into dst. *bytes_read < n only at end of file. Thread-safe.
  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const;

  // The file's size now.
  Status Size(uint64_t* size) const;

  // Tells the kernel the file will be read from start to end (a larger readahead window).
  void AdviseSequential() const;

  const std::string& path() const { return path_; }
  // A regular file (not a device, pipe or /proc entry, whose size says nothing of its data).
  bool regular() const { return regular_; }

 private:
  RandomAccessFile(std::string path, int fd, bool regular)
      : path_(std::move(path)), fd_(fd), regular_(regular) {}

  const std::string path_;
  const int fd_;
  const bool regular_;
};

// Where RecordWriter puts bytes: a file, or a compressor in front of one.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Append(const char* data, size_t n) = 0;
  // Hands everything appended so far to the operating system, decodable by a reader.
  virtual Status Flush() = 0;
  // Flushes and releases the underlying file; later calls fail with FAILED_PRECONDITION.
  virtual Status Close() = 0;
  // Called by RecordWriter after each whole record.
  virtual Status EndRecord() { return Status::OK(); }
};

class WritableFile : public OutputStream {
 public:
  static constexpr size_t kDefaultBufferSize = 1 << 20;

  // Creates or truncates `path`.
  static Status Create(const std::string& path, size_t buffer_size,
                       std::unique_ptr<WritableFile>* file);
  // Closes the file if Close() was not called; errors are then lost, so call Close().
  ~WritableFile() override;

  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  Status Append(const char* data, size_t n) override;
  Status Flush() override;
  // Flush() and fdatasync().
  Status Sync();
  Status Close() override;

  const std::string& path() const { return path_; }

 private:
  WritableFile(std::string path, int fd, size_t buffer_size);
  Status WriteAll(const char* data, size_t n);

  const std::string path_;
  int fd_;  // -1 once closed
  std::unique_ptr<char[]> buffer_;
  const size_t capacity_;
  size_t used_ = 0;
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_FILE_H_
