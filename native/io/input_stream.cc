#include "swigflow/io/input_stream.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

namespace swigflow {
namespace io {

FileInputStream::FileInputStream(std::unique_ptr<RandomAccessFile> file, size_t buffer_size)
    : file_(std::move(file)),
      unbuffered_(file_->ReadsFromMemory()),
      capacity_(std::max<size_t>(buffer_size, 1)) {}

Status FileInputStream::ReadFile(size_t n, char* dst, size_t* got) {
  if (reads_++ == 1) file_->AdviseSequential();
  return file_->Read(position_, n, dst, got);
}

Status FileInputStream::Read(size_t n, char* dst, size_t* bytes_read) {
  // A file read returns less than asked only at the end of the file: then this call is done
  // (the next one looks again, should the file have grown).
  bool at_end = false;
  size_t done = 0;
  while (done < n) {
    if (begin_ < end_) {
      const size_t copy = std::min(n - done, end_ - begin_);
      std::memcpy(dst + done, buffer_.get() + begin_, copy);
      begin_ += copy;
      done += copy;
      position_ += copy;
      continue;
    }
    if (at_end) break;
    size_t got = 0;
    if (unbuffered_ || n - done >= std::min(kDirectRead, capacity_)) {  // straight in
      Status s = ReadFile(n - done, dst + done, &got);
      at_end = got < n - done;
      done += got;
      position_ += got;
      after_direct_ = true;
      if (!s.ok() || at_end) {
        *bytes_read = done;
        return s;
      }
      continue;
    }
    const size_t refill =
        std::max(after_direct_ ? std::min(kSmallRefill, capacity_) : capacity_, n - done);
    after_direct_ = false;
    if (buffer_ == nullptr) buffer_.reset(new char[capacity_]);
    Status s = ReadFile(refill, buffer_.get(), &got);
    at_end = got < refill;
    begin_ = 0;
    end_ = got;
    SWIGFLOW_DCHECK(refill <= capacity_ && got <= refill);  // Read never gives more than asked
    if (!s.ok()) {
      *bytes_read = done;
      return s;
    }
  }
  *bytes_read = done;
  CheckBuffer();
  return Status::OK();
}

Status FileInputStream::Skip(uint64_t n, uint64_t* skipped) {
  if (n <= end_ - begin_) {
    begin_ += n;
    position_ += n;
    *skipped = n;
    return Status::OK();
  }
  // Past the buffer: move without reading, but never beyond the end of the file.
  uint64_t size;
  SWIGFLOW_RETURN_IF_ERROR(file_->Size(&size));
  const uint64_t target = position_ + std::min<uint64_t>(n, std::max(size, position_) - position_);
  *skipped = target - position_;
  Seek(target);
  return Status::OK();
}

void FileInputStream::Seek(uint64_t offset) {
  if (offset >= position_ && offset - position_ <= end_ - begin_) {
    begin_ += offset - position_;  // still inside the buffer
  } else {
    begin_ = end_ = 0;
  }
  position_ = offset;
  CheckBuffer();
}

}  // namespace io
}  // namespace swigflow
