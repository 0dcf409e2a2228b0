// How a TFRecord file is compressed and buffered (tf.io.TFRecordOptions).
#ifndef SWIGFLOW_IO_RECORD_OPTIONS_H_
#define SWIGFLOW_IO_RECORD_OPTIONS_H_

#include <cstddef>

#include "swigflow/io/zlib_stream.h"

namespace swigflow {
namespace io {

struct RecordOptions {
  Compression compression = Compression::kNone;
  ZlibOptions zlib;
  // The file's own read or write buffer (the zlib buffers are in `zlib`).
  size_t buffer_size = 1 << 20;
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_OPTIONS_H_
