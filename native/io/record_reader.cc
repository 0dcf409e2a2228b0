#include "swigflow/io/record_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "swigflow/io/record_format.h"
#include "swigflow/io/zlib_stream.h"

namespace swigflow {
namespace io {

using record_format::kFooterSize;
using record_format::kHeaderSize;

void RecordBatch::Clear() {
  used_ = 0;
  ends_.clear();
  offsets_.clear();
}

char* RecordBatch::Grow(size_t n) {
  if (capacity_ - used_ < n) {
    const size_t capacity = std::max(used_ + n, std::max<size_t>(2 * capacity_, 64 << 10));
    std::unique_ptr<char[]> data(new char[capacity]);
    if (used_ > 0) std::memcpy(data.get(), data_.get(), used_);
    data_ = std::move(data);
    capacity_ = capacity;
  }
  char* p = data_.get() + used_;
  used_ += n;
  return p;
}

void RecordBatch::Commit(uint64_t offset) {
  ends_.push_back(used_);
  offsets_.push_back(offset);
}

namespace {

// Payloads of compressed files (whose length cannot be checked against the file size) are read
// in slices of this size, so a lying length costs at most this much memory before the data runs
// out.
constexpr uint64_t kSlice = 16 << 20;

// Sink for ReadRecord: the record's own string.
struct StringSink {
  std::string* record;
  char* Grow(size_t n) {
    const size_t old = record->size();
    record->resize(old + n);
    return &(*record)[old];
  }
  const char* data() const { return record->data(); }
};

// Sink for ReadBatch: the record being added to the batch.
struct BatchSink {
  RecordBatch* batch;
  size_t start;
  char* Grow(size_t n) { return batch->Grow(n); }
  const char* data() const { return batch->data() + start; }
};

}  // namespace

Status RecordReader::Open(const std::string& path, const RecordOptions& options,
                          std::unique_ptr<RecordReader>* reader) {
  std::unique_ptr<RecordReader> r(new RecordReader(path, options));
  SWIGFLOW_RETURN_IF_ERROR(r->OpenStream());
  *reader = std::move(r);
  return Status::OK();
}

Status OpenRecordStream(const std::string& path, const RecordOptions& options, uint64_t* file_size,
                        std::unique_ptr<InputStream>* stream, const RandomAccessFile** opened) {
  std::unique_ptr<RandomAccessFile> file;
  SWIGFLOW_RETURN_IF_ERROR(RandomAccessFile::Open(path, &file, file_size));
  if (opened != nullptr) *opened = file.get();
  const size_t buffer_size = options.compression == Compression::kNone
                                 ? options.buffer_size
                                 : options.zlib.input_buffer_size;
  auto file_stream = std::make_unique<FileInputStream>(std::move(file), buffer_size);
  if (options.compression == Compression::kNone) {
    *stream = std::move(file_stream);
    return Status::OK();
  }
  std::unique_ptr<ZlibInputStream> zlib;
  SWIGFLOW_RETURN_IF_ERROR(ZlibInputStream::Create(std::move(file_stream), options.compression,
                                                   options.zlib, path, &zlib));
  *stream = std::move(zlib);
  return Status::OK();
}

Status RecordReader::OpenStream() {
  SWIGFLOW_RETURN_IF_ERROR(OpenRecordStream(path_, options_, &file_size_, &stream_, &file_));
  file_stream_ = options_.compression == Compression::kNone
                     ? static_cast<FileInputStream*>(stream_.get())
                     : nullptr;
  return Status::OK();
}

Status RecordReader::ReadHeader(uint64_t* offset, uint64_t* length) {
  *offset = stream_->Tell();
  char header[kHeaderSize];
  size_t got = 0;
  SWIGFLOW_RETURN_IF_ERROR(stream_->Read(kHeaderSize, header, &got));
  if (got < kHeaderSize) {
    return errors::OutOfRange("end of ", path_, " at ", *offset + got);
  }
  if (!record_format::DecodeHeader(header, length)) {
    return record_format::CorruptedHeader(path_, *offset,
                                          file_stream_ != nullptr ? header : nullptr);
  }
  if (file_stream_ != nullptr) {
    // Uncompressed: the file size bounds the length before anything is allocated. A file still
    // being appended to may have grown since it was opened, so look again before giving up.
    const uint64_t start = *offset + kHeaderSize;
    if (!record_format::Fits(*length, start, file_size_)) {
      SWIGFLOW_RETURN_IF_ERROR(file_stream_->file().Size(&file_size_));
      if (!record_format::Fits(*length, start, file_size_)) {
        return record_format::TruncatedRecord(path_, *offset, *length,
                                              file_size_ > start ? file_size_ - start : 0);
      }
    }
  }
  return Status::OK();
}

Status RecordReader::Fail(Status s) {
  pending_ = file_->Reported(std::move(s));  // file_: set by the open
  return pending_;
}

template <typename Sink>
Status RecordReader::ReadOne(uint64_t* offset, Sink* sink) {
  uint64_t length = 0;
  SWIGFLOW_RETURN_IF_ERROR(ReadHeader(offset, &length));
  return ReadPayload(*offset, length, sink);
}

template <typename Sink>
Status RecordReader::ReadPayload(uint64_t offset, uint64_t length, Sink* sink) {
  uint64_t done = 0;
  while (done < length) {
    const uint64_t want = file_stream_ != nullptr ? length - done : std::min(length - done, kSlice);
    size_t got = 0;
    SWIGFLOW_RETURN_IF_ERROR(stream_->Read(want, sink->Grow(want), &got));
    done += got;
    if (got < want) return record_format::TruncatedRecord(path_, offset, length, done);
  }
  char footer[kFooterSize];
  size_t got = 0;
  SWIGFLOW_RETURN_IF_ERROR(stream_->Read(kFooterSize, footer, &got));
  if (got < kFooterSize) return record_format::TruncatedRecord(path_, offset, length, length + got);
  if (!record_format::PayloadMatches(sink->data(), length, footer)) {
    return record_format::CorruptedPayload(path_, offset);
  }
  return Status::OK();
}

Status RecordReader::ReadRecord(uint64_t* offset, std::string* record) {
  if (!pending_.ok()) return pending_;
  if (large_pending_) {
    record->resize(large_length_);
    const Status s = ReadLarge(&(*record)[0], offset);
    if (!s.ok()) record->clear();
    return s;
  }
  record->clear();
  StringSink sink{record};
  const Status s = ReadOne(offset, &sink);
  if (!s.ok()) {
    record->clear();
    return Fail(s);  // sticky: damage is reported again, and the end stays the end
  }
  next_offset_ = stream_->Tell();
  return s;
}

Status RecordReader::ReadBatch(size_t max_records, size_t max_bytes, RecordBatch* batch,
                               uint64_t direct_length) {
  batch->Clear();
  if (!pending_.ok()) return pending_;
  if (large_pending_) return Status::OK();  // ReadLarge() first
  while (batch->size() < max_records && batch->bytes() < max_bytes) {
    BatchSink sink{batch, batch->bytes()};
    uint64_t offset = 0;
    uint64_t length = 0;
    Status s = ReadHeader(&offset, &length);
    // In a compressed stream nothing bounds a length but the data: a direct read allocates it
    // up front, so only lengths up to kMaxDirectCompressed go that way.
    const bool bounded = file_stream_ != nullptr || length <= kMaxDirectCompressed;
    if (s.ok() && bounded && length >= direct_length) {
      large_pending_ = true;  // the caller reads it with ReadLarge()
      large_offset_ = offset;
      large_length_ = length;
      return Status::OK();
    }
    if (s.ok()) s = ReadPayload(offset, length, &sink);
    if (!s.ok()) {
      batch->Rollback();
      s = Fail(std::move(s));
      return batch->empty() ? s : Status::OK();
    }
    batch->Commit(offset);
    next_offset_ = stream_->Tell();
  }
  return Status::OK();
}

bool RecordReader::LargePending(uint64_t* length) const {
  *length = large_length_;
  return large_pending_;
}

namespace {

// Sink for ReadLarge: memory the caller allocated for exactly the payload.
struct FixedSink {
  char* dst;
  size_t used;
  char* Grow(size_t n) {
    char* p = dst + used;
    used += n;
    return p;
  }
  const char* data() const { return dst; }
};

}  // namespace

Status RecordReader::ReadLarge(char* dst, uint64_t* offset) {
  if (!pending_.ok()) return pending_;
  if (!large_pending_) return errors::FailedPrecondition("no large record is pending");
  large_pending_ = false;
  *offset = large_offset_;
  FixedSink sink{dst, 0};
  const Status s = ReadPayload(large_offset_, large_length_, &sink);
  if (!s.ok()) return Fail(s);
  next_offset_ = stream_->Tell();
  return s;
}

Status RecordReader::SkipRecord(uint64_t* offset, uint64_t* length) {
  if (!pending_.ok()) return pending_;
  Status s;
  if (large_pending_) {
    large_pending_ = false;
    *offset = large_offset_;
    *length = large_length_;
  } else {
    s = ReadHeader(offset, length);
  }
  if (s.ok()) {
    uint64_t skipped = 0;
    s = stream_->Skip(*length + kFooterSize, &skipped);
    if (s.ok() && skipped < *length + kFooterSize) {
      s = record_format::TruncatedRecord(path_, *offset, *length, skipped);
    }
  }
  if (!s.ok()) return Fail(s);
  next_offset_ = stream_->Tell();
  return s;
}

Status RecordReader::Seek(uint64_t offset) {
  pending_ = Status::OK();
  large_pending_ = false;
  next_offset_ = offset;
  if (file_stream_ != nullptr) {
    file_stream_->Seek(offset);
    return Status::OK();
  }
  if (offset < stream_->Tell()) SWIGFLOW_RETURN_IF_ERROR(OpenStream());
  uint64_t skipped = 0;
  const uint64_t want = offset - stream_->Tell();
  SWIGFLOW_RETURN_IF_ERROR(file_->Reported(stream_->Skip(want, &skipped)));
  if (skipped < want) {
    return errors::OutOfRange("cannot seek to ", offset, " in ", path_, ": data ends at ",
                              stream_->Tell());
  }
  return Status::OK();
}

namespace {

Status ReadRecordAtUnreported(const RandomAccessFile& file, uint64_t offset, std::string* record) {
  uint64_t size = 0;
  SWIGFLOW_RETURN_IF_ERROR(file.Size(&size));
  char header[kHeaderSize];
  size_t got = 0;
  SWIGFLOW_RETURN_IF_ERROR(file.Read(offset, kHeaderSize, header, &got));
  if (got < kHeaderSize) {
    // The caller's index says a record starts here: a file this short was cut after.
    return errors::DataLoss("no record at ", offset, " in ", file.path(), ": the file has ", size,
                            " bytes (cut short since its index was made?)");
  }
  uint64_t length = 0;
  if (!record_format::DecodeHeader(header, &length)) {
    return record_format::CorruptedHeader(file.path(), offset, header);
  }
  if (!record_format::Fits(length, offset + kHeaderSize, size)) {
    return record_format::TruncatedRecord(file.path(), offset, length, size - offset - kHeaderSize);
  }
  record->resize(length + kFooterSize);
  SWIGFLOW_RETURN_IF_ERROR(
      file.Read(offset + kHeaderSize, length + kFooterSize, &(*record)[0], &got));
  if (got < length + kFooterSize) {
    return record_format::TruncatedRecord(file.path(), offset, length, got);
  }
  if (!record_format::PayloadMatches(record->data(), length, record->data() + length)) {
    return record_format::CorruptedPayload(file.path(), offset);
  }
  record->resize(length);
  return Status::OK();
}

Status ReadIndexedRecordAtUnreported(const RandomAccessFile& file, uint64_t offset,
                                     uint64_t framed_length, std::string* record) {
  // Up to here one read (and one copy of the payload out of it) costs less than a second
  // system call; past it, two reads with no copy cost less.
  constexpr uint64_t kOneRead = 16 << 10;
  if (framed_length >= record_format::kFramingSize && framed_length <= kOneRead) {
    thread_local char framed[kOneRead];
    size_t got = 0;
    SWIGFLOW_RETURN_IF_ERROR(file.Read(offset, framed_length, framed, &got));
    if (got == framed_length) {
      return record_format::CheckFramedRecord(framed, framed_length, offset, file.path(), record);
    }  // cut short: ReadRecordAtUnreported says how
  }
  SWIGFLOW_RETURN_IF_ERROR(ReadRecordAtUnreported(file, offset, record));
  if (record->size() + record_format::kFramingSize != framed_length) {
    return errors::DataLoss("index says the record at ", offset, " in ", file.path(), " has ",
                            framed_length, " bytes but it has ",
                            record->size() + record_format::kFramingSize,
                            " (was the file rewritten after its index?)");
  }
  return Status::OK();
}

}  // namespace

Status ReadRecordAt(const RandomAccessFile& file, uint64_t offset, std::string* record) {
  return file.Reported(ReadRecordAtUnreported(file, offset, record));
}

Status ReadIndexedRecordAt(const RandomAccessFile& file, uint64_t offset, uint64_t framed_length,
                           std::string* record) {
  return file.Reported(ReadIndexedRecordAtUnreported(file, offset, framed_length, record));
}

}  // namespace io
}  // namespace swigflow
