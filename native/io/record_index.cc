#include "swigflow/io/record_index.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "swigflow/io/file.h"
#include "swigflow/io/input_stream.h"
#include "swigflow/io/record_format.h"
#include "swigflow/io/record_reader.h"

namespace swigflow {
namespace io {

Status ScanRecords(const std::string& path, RecordIndex* index) {
  index->offsets.clear();
  index->lengths.clear();
  RecordOptions options;
  options.buffer_size = 64 << 10;  // headers only: a small buffer, payloads are skipped
  std::unique_ptr<RecordReader> reader;
  SWIGFLOW_RETURN_IF_ERROR(RecordReader::Open(path, options, &reader));
  for (;;) {
    uint64_t offset = 0, length = 0;
    Status s = reader->SkipRecord(&offset, &length);
    if (errors::IsOutOfRange(s)) return Status::OK();
    SWIGFLOW_RETURN_IF_ERROR(s);
    index->offsets.push_back(static_cast<int64_t>(offset));
    index->lengths.push_back(static_cast<int64_t>(length + record_format::kFramingSize));
  }
}

Status WriteIndexFile(const std::string& index_path, const RecordIndex& index) {
  std::unique_ptr<OutputStream> file;
  SWIGFLOW_RETURN_IF_ERROR(OpenWritable(index_path, WritableFile::kDefaultBufferSize, &file));
  char line[48];
  for (size_t i = 0; i < index.offsets.size(); ++i) {
    const int n = std::snprintf(line, sizeof(line), "%" PRId64 " %" PRId64 "\n", index.offsets[i],
                                index.lengths[i]);
    SWIGFLOW_RETURN_IF_ERROR(file->Append(line, static_cast<size_t>(n)));
  }
  return file->Close();
}

namespace {

// Parses a non-negative decimal integer at *p, advancing it; false if there is none.
bool ParseNumber(const char** p, const char* end, int64_t* value) {
  const char* q = *p;
  uint64_t v = 0;
  while (q < end && *q >= '0' && *q <= '9') {
    if (v > (uint64_t{INT64_MAX} - (*q - '0')) / 10) return false;  // overflow
    v = v * 10 + static_cast<uint64_t>(*q - '0');
    ++q;
  }
  if (q == *p) return false;
  *p = q;
  *value = static_cast<int64_t>(v);
  return true;
}

}  // namespace

Status ReadIndexFile(const std::string& index_path, RecordIndex* index) {
  index->offsets.clear();
  index->lengths.clear();
  std::unique_ptr<RandomAccessFile> file;
  SWIGFLOW_RETURN_IF_ERROR(RandomAccessFile::Open(index_path, &file));
  uint64_t size = 0;
  SWIGFLOW_RETURN_IF_ERROR(file->Size(&size));
  std::string text(size, '\0');
  size_t got = 0;
  SWIGFLOW_RETURN_IF_ERROR(file->Read(0, size, &text[0], &got));
  text.resize(got);

  const char* p = text.data();
  const char* const end = p + text.size();
  for (int64_t line = 1; p < end; ++line) {
    const char* line_start = p;
    const char* line_end = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (line_end == nullptr) line_end = end;
    int64_t offset = 0, length = 0;
    bool ok = ParseNumber(&p, line_end, &offset) && p < line_end && (*p == ' ' || *p == '\t');
    if (ok) {
      ++p;
      ok = ParseNumber(&p, line_end, &length) &&
           (p == line_end || (p + 1 == line_end && *p == '\r'));
    }
    if (!ok) {
      const size_t shown = std::min<size_t>(line_end - line_start, 60);
      return errors::InvalidArgument(index_path, ":", line, ": expected '<offset> <length>', got '",
                                     std::string(line_start, shown), "'");
    }
    if (length < static_cast<int64_t>(record_format::kFramingSize)) {
      return errors::InvalidArgument(index_path, ":", line, ": record length ", length,
                                     " is shorter than the 16 bytes of framing");
    }
    if (!index->offsets.empty() && offset < index->offsets.back() + index->lengths.back()) {
      return errors::InvalidArgument(index_path, ":", line, ": record at ", offset,
                                     " overlaps the previous one");
    }
    index->offsets.push_back(offset);
    index->lengths.push_back(length);
    p = line_end < end ? line_end + 1 : end;
  }
  return Status::OK();
}

}  // namespace io
}  // namespace swigflow
