// Files with Status errors that name the path: the interfaces records are read from and written
// to, and their local (POSIX) implementations.
//
// LocalFile reads with pread, so one open file serves concurrent readers. WritableFile buffers
// appends and writes large ones straight through.
#ifndef SWIGFLOW_IO_FILE_H_
#define SWIGFLOW_IO_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace io {

// The Status for a failed system call on `path`: ENOENT -> NOT_FOUND, EACCES -> PERMISSION_DENIED,
// ENOSPC -> RESOURCE_EXHAUSTED, EISDIR -> FAILED_PRECONDITION, ... Message: "<path>: <strerror>".
Status IOError(const std::string& path, int errno_value);

// A file read at offsets. Open() takes a local path, a file:// URL, or any other scheme://
// URL (s3://, gs://, http://, memory://...), which goes to the remote file system the Python
// package registers (file_system.h).
class RandomAccessFile {
 public:
  // *size (when not null): the file's size at the open.
  static Status Open(const std::string& path, std::unique_ptr<RandomAccessFile>* file,
                     uint64_t* size = nullptr);
  virtual ~RandomAccessFile() = default;

  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads up to n bytes at `offset` into dst. *bytes_read < n only at end of file. Thread-safe.
  virtual Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const = 0;

  // The file's size now.
  virtual Status Size(uint64_t* size) const = 0;

  // Tells the kernel the file will be read from start to end (a larger readahead window).
  virtual void AdviseSequential() const {}

  // Whether Read() copies from memory the file already holds (a remote reader's block,
  // fetched ahead): a stream then reads straight into its caller's memory, as a buffer in
  // between would only add a copy.
  virtual bool ReadsFromMemory() const { return false; }

  // Bytes [offset, offset + n) in place, in memory the file holds (*view; empty where it holds
  // them in no one piece: Read them). A view stays valid until the next call on this file, or,
  // where *keeper (when not null) is set, as long as that reference to the memory is held (null
  // where the file gives none). One reader at a time: a reader's Lend may give back memory
  // another reader's view is on.
  virtual Status Lend(uint64_t offset, size_t n, std::string_view* view,
                      std::shared_ptr<const void>* keeper) const {
    (void)offset;
    (void)n;
    *view = {};
    if (keeper != nullptr) keeper->reset();
    return Status::OK();
  }

  // Whether Lend(offset, n) would answer from memory the file holds now, with no call that may
  // wait (a remote reader's block in hand, not the next one still to come).
  virtual bool Holds(uint64_t offset, size_t n) const {
    (void)offset;
    (void)n;
    return false;
  }

  const std::string& path() const { return path_; }
  // Whether Size() says how many bytes Read() gives: false for a device, pipe or /proc entry.
  virtual bool regular() const { return true; }

  // The status to report for `s`, found while reading this file's records. Damage (DATA_LOSS)
  // goes to Damaged(): a copy kept of a remote object (a shard cache's) names itself there and
  // is dropped, so that the next open fetches the object again. Readers call this once per error.
  Status Reported(Status s) const;

 protected:
  virtual Status Damaged(Status s) const { return s; }

  explicit RandomAccessFile(std::string path) : path_(std::move(path)) {}

 private:
  const std::string path_;
};

// A local file, read with pread: one open file serves concurrent readers.
class LocalFile : public RandomAccessFile {
 public:
  static Status Open(std::string path, std::unique_ptr<RandomAccessFile>* file,
                     uint64_t* size = nullptr);
  ~LocalFile() override;

  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override;
  Status Size(uint64_t* size) const override;
  void AdviseSequential() const override;
  bool regular() const override { return regular_; }

 private:
  LocalFile(std::string path, int fd, bool regular)
      : RandomAccessFile(std::move(path)), fd_(fd), regular_(regular) {}

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
  // Closes without completing the file, after a failure: a remote file is discarded (nothing
  // appears, an earlier file of the name stays); a local file keeps what reached it.
  virtual Status Abort() { return Close(); }
  // What a writer dropped without Close() does with the file: complete it (true: a local file,
  // as TensorFlow's writers do) or discard it (false: a remote object appears only through an
  // explicit Close(), so a writer garbage-collected part way never publishes a partial object).
  virtual bool CompletesWhenDropped() const { return true; }
};

// Opens `path` for writing through OpenWritable: a local path or file:// URL creates or truncates
// a WritableFile; another scheme goes to the remote file system, whose files appear only when
// closed without error (file_system.h).
Status OpenWritable(const std::string& path, size_t buffer_size,
                    std::unique_ptr<OutputStream>* file);

// A local file written through a buffer.
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
