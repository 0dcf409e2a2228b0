// PNG decoding and encoding on libpng, with tf.io.decode_png / encode_png's semantics: any
// colour type and bit depth in, 1-4 channels of uint8 or uint16 out. Bad input is
// INVALID_ARGUMENT (libpng's own message), never a crash; the pixel limit (image.h) is checked
// before any allocation, and ancillary chunks are bounded by libpng's chunk limits.
#ifndef SWIGFLOW_IMAGE_PNG_H_
#define SWIGFLOW_IMAGE_PNG_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "swigflow/framework/status.h"
#include "swigflow/image/image.h"

namespace swigflow {
namespace image {

struct PngDecodeOptions {
  int channels = 0;   // 0: the file's (palette images: 3, or 4 with transparency); 1..4
  int bit_depth = 8;  // 8 (uint8) or 16 (uint16, native byte order)
};

// Decodes into memory from `allocate` (row_stride in elements of the output type).
Status DecodePng(const void* data, size_t size, const PngDecodeOptions& options,
                 const Allocator& allocate, Shape* shape);
// The stored size and channels (without decoding).
Status ReadPngShape(const void* data, size_t size, Shape* shape);

// Encodes 1-4 channels of 8-bit (pixels are uint8) or 16-bit (uint16) samples; `level` is zlib's
// compression level, -1 for its default. row_stride is in samples.
Status EncodePng(const void* pixels, const Shape& shape, size_t row_stride, int bit_depth,
                 int level, std::string* out);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_PNG_H_
