// Index files for TFRecord files, in the format DALI and the `tfrecord` Python package use:
// one text line "<offset> <length>\n" per record, where length counts the whole framed record
// (payload + 16 bytes of framing). Indexes address bytes of uncompressed files only.
#ifndef SWIGFLOW_IO_RECORD_INDEX_H_
#define SWIGFLOW_IO_RECORD_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace io {

struct RecordIndex {
  std::vector<int64_t> offsets;
  std::vector<int64_t> lengths;  // framed lengths
};

// Walks the framing of an uncompressed TFRecord file (headers and lengths are checked, payload
// CRCs are not: that is the readers' job). Damage is DATA_LOSS as in RecordReader.
Status ScanRecords(const std::string& path, RecordIndex* index);

Status WriteIndexFile(const std::string& index_path, const RecordIndex& index);

// Parses an index file. A malformed line is INVALID_ARGUMENT naming the file and line; records
// that overlap or run backwards are INVALID_ARGUMENT too.
Status ReadIndexFile(const std::string& index_path, RecordIndex* index);

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_INDEX_H_
