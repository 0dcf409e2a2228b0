#include "swigflow/io/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

namespace swigflow {
namespace io {
namespace {

error::Code CodeForErrno(int errno_value) {
  switch (errno_value) {
    case ENOENT:
    case ENOTDIR:
      return error::NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
      return error::PERMISSION_DENIED;
    case EEXIST:
      return error::ALREADY_EXISTS;
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case EFBIG:
      return error::RESOURCE_EXHAUSTED;
    case EISDIR:
    case EBADF:
    case ENAMETOOLONG:
    case ELOOP:
      return error::FAILED_PRECONDITION;
    case EINVAL:
      return error::INVALID_ARGUMENT;
    case EAGAIN:
    case EBUSY:
    case ETIMEDOUT:
      return error::UNAVAILABLE;
    default:
      return error::UNKNOWN;
  }
}

}  // namespace

Status IOError(const std::string& path, int errno_value) {
  return Status(CodeForErrno(errno_value), path + ": " + strerror(errno_value));
}

// ---------------------------------------------------------------------------------------------

Status RandomAccessFile::Reported(Status s) const {
  return errors::IsDataLoss(s) ? Damaged(std::move(s)) : s;
}

Status LocalFile::Open(std::string path, std::unique_ptr<RandomAccessFile>* file, uint64_t* size) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IOError(path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return IOError(path, error);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return IOError(path, EISDIR);
  }
  if (size != nullptr) *size = static_cast<uint64_t>(st.st_size);
  file->reset(new LocalFile(std::move(path), fd, S_ISREG(st.st_mode)));
  return Status::OK();
}

LocalFile::~LocalFile() { close(fd_); }

Status LocalFile::Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      *bytes_read = done;
      return IOError(path(), errno);
    }
    if (r == 0) break;  // end of file
    done += static_cast<size_t>(r);
  }
  *bytes_read = done;
  return Status::OK();
}

void LocalFile::AdviseSequential() const {
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // only a hint: its failure changes nothing
}

Status LocalFile::Size(uint64_t* size) const {
  struct stat st;
  if (fstat(fd_, &st) != 0) return IOError(path(), errno);
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------

Status WritableFile::Create(const std::string& path, size_t buffer_size,
                            std::unique_ptr<WritableFile>* file) {
  int fd;
  do {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IOError(path, errno);
  file->reset(new WritableFile(path, fd, std::max<size_t>(buffer_size, 1)));
  return Status::OK();
}

WritableFile::WritableFile(std::string path, int fd, size_t buffer_size)
    : path_(std::move(path)), fd_(fd), buffer_(new char[buffer_size]), capacity_(buffer_size) {}

WritableFile::~WritableFile() {
  if (fd_ >= 0) Close().ok();  // best effort; callers that care call Close() themselves
}

Status WritableFile::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IOError(path_, errno);
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

Status WritableFile::Append(const char* data, size_t n) {
  if (fd_ < 0) return errors::FailedPrecondition(path_, ": file is closed");
  // Fill the buffer first, so small appends coalesce into large writes.
  const size_t copy = std::min(n, capacity_ - used_);
  std::memcpy(buffer_.get() + used_, data, copy);
  used_ += copy;
  data += copy;
  n -= copy;
  if (n == 0) return Status::OK();
  SWIGFLOW_RETURN_IF_ERROR(Flush());
  if (n >= capacity_) return WriteAll(data, n);  // large: no point copying through the buffer
  std::memcpy(buffer_.get(), data, n);
  used_ = n;
  return Status::OK();
}

Status WritableFile::Flush() {
  if (fd_ < 0) return errors::FailedPrecondition(path_, ": file is closed");
  const size_t n = used_;
  used_ = 0;
  return WriteAll(buffer_.get(), n);
}

Status WritableFile::Sync() {
  SWIGFLOW_RETURN_IF_ERROR(Flush());
  if (fdatasync(fd_) != 0) return IOError(path_, errno);
  return Status::OK();
}

Status WritableFile::Close() {
  if (fd_ < 0) return errors::FailedPrecondition(path_, ": file is closed");
  Status status = Flush();
  if (close(fd_) != 0) status.Update(IOError(path_, errno));
  fd_ = -1;
  return status;
}

}  // namespace io
}  // namespace swigflow
