#include "swigflow/io/record_options.h"

#include <string>

namespace swigflow {
namespace io {

Status ParseCompression(const std::string& name, Compression* compression) {
  if (name.empty()) {
    *compression = Compression::kNone;
  } else if (name == "ZLIB") {
    *compression = Compression::kZlib;
  } else if (name == "GZIP") {
    *compression = Compression::kGzip;
  } else {
    return errors::InvalidArgument("unknown compression type '", name,
                                   "': expected '', 'ZLIB' or 'GZIP'");
  }
  return Status::OK();
}

}  // namespace io
}  // namespace swigflow
