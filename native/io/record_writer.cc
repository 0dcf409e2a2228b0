#include "swigflow/io/record_writer.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "swigflow/io/record_format.h"
#include "swigflow/io/zlib_stream.h"

namespace swigflow {
namespace io {

Status RecordWriter::Create(const std::string& path, const RecordOptions& options,
                            std::unique_ptr<RecordWriter>* writer) {
  std::unique_ptr<OutputStream> output;
  SWIGFLOW_RETURN_IF_ERROR(OpenWritable(path, options.buffer_size, &output));
  if (options.compression != Compression::kNone) {
    std::unique_ptr<ZlibOutputStream> zlib;
    SWIGFLOW_RETURN_IF_ERROR(ZlibOutputStream::Create(std::move(output), options.compression,
                                                      options.zlib, path, &zlib));
    output = std::move(zlib);
  }
  writer->reset(new RecordWriter(path, std::move(output)));
  return Status::OK();
}

RecordWriter::~RecordWriter() {
  if (output_ == nullptr) return;
  if (output_->CompletesWhenDropped()) {
    Close().ok();
  } else {
    output_->Abort().ok();
  }
}

Status RecordWriter::Closed() const {
  return errors::FailedPrecondition("TFRecordWriter for ", path_, " is closed");
}

Status RecordWriter::Fail(Status s) {
  if (!s.ok() && failure_.ok()) failure_ = s;
  return s;
}

Status RecordWriter::Failed() const {
  return Status(failure_.code(), "TFRecordWriter for " + path_ +
                                     " failed earlier, so the file may end in a partial "
                                     "record: " +
                                     failure_.message());
}

Status RecordWriter::WriteRecord(const char* data, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (output_ == nullptr) return Closed();
  if (!failure_.ok()) return Failed();
  char header[record_format::kHeaderSize];
  record_format::EncodeHeader(n, header);
  char footer[record_format::kFooterSize];
  record_format::EncodeFixed32(crc32c::Mask(crc32c::Value(data, n)), footer);
  SWIGFLOW_RETURN_IF_ERROR(Fail(output_->Append(header, sizeof(header))));
  SWIGFLOW_RETURN_IF_ERROR(Fail(output_->Append(data, n)));
  SWIGFLOW_RETURN_IF_ERROR(Fail(output_->Append(footer, sizeof(footer))));
  return Fail(output_->EndRecord());
}

Status RecordWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (output_ == nullptr) return Closed();
  if (!failure_.ok()) return Failed();
  return Fail(output_->Flush());
}

Status RecordWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (output_ == nullptr) return failure_.ok() ? Closed() : Failed();
  Status status = failure_.ok() ? Fail(output_->Close()) : output_->Abort();
  output_.reset();
  return failure_.ok() ? status : Failed();
}

Status RecordWriter::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  if (output_ == nullptr) return Status::OK();
  Status status = output_->Abort();
  output_.reset();
  return status;
}

}  // namespace io
}  // namespace swigflow
