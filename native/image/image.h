// Shared definitions of swigflow's image codecs (jpeg.h, png.h) and transforms (resize.h).
//
// Images are row-major HWC: pixel (y, x) channel c of an image with row stride `stride` (in
// elements) is at data[y * stride + x * channels + c]. Decoders write into memory the caller
// provides once the header has been read (see Allocator), so a batch can be decoded straight into
// its own buffer.
#ifndef SWIGFLOW_IMAGE_IMAGE_H_
#define SWIGFLOW_IMAGE_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace image {

struct Shape {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  int64_t pixels() const { return height * width; }
};

// Where a decoder writes: called once with the output's shape, returns the first row and sets
// *row_stride (in elements; at least width * channels). Returning nullptr aborts the decode with
// RESOURCE_EXHAUSTED.
using Allocator = std::function<void*(const Shape& shape, size_t* row_stride)>;

// A rectangle of an image's pixels.
struct Window {
  int64_t y = 0, x = 0, height = 0, width = 0;
};

// One component of an image as JPEG stores it (Y, Cb or Cr, or gray), at its own sampling:
// sample (i, j) stands for the full-resolution pixels [i * y_factor, (i + 1) * y_factor) x
// [j * x_factor, (j + 1) * x_factor), centred on them (JFIF's siting).
struct Plane {
  const uint8_t* data = nullptr;
  int64_t height = 0, width = 0, row_stride = 0;
  int y_factor = 1, x_factor = 1;
};

// The most pixels (height * width) a decoder accepts. A header claiming more is rejected before
// anything is allocated: a decompression bomb costs nothing. Process-wide; default
// kDefaultMaxPixels (178,956,970, as Pillow's, about 0.5 GiB of RGB).
constexpr int64_t kDefaultMaxPixels = 178956970;
int64_t MaxPixels();
void SetMaxPixels(int64_t max_pixels);  // <= 0 restores the default

// INVALID_ARGUMENT when `shape` has more pixels than MaxPixels() (`what` names the format).
Status CheckPixelLimit(const char* what, int64_t height, int64_t width);

// The format of encoded bytes, from their signature: the one sniffer (swigflow.image and the
// CLI ask it too). Only JPEG and PNG have native decoders.
enum class Format : int {
  kUnknown = 0,
  kJpeg = 1,
  kPng = 2,
  kGif = 3,
  kBmp = 4,
  kWebp = 5,
  kTiff = 6,
};
Format DetectFormat(const void* data, size_t size);
const char* FormatName(Format format);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_IMAGE_H_
