#include "swigflow/image/image.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

// libc's stderr for the static libjpeg and libpng archives, whose references to it are renamed
// to this variable (bazel/debian.bzl): a shared object cannot take them PC-relatively from libc.
extern "C" {
FILE* swigflow_libc_stderr = stderr;
}

namespace swigflow {
namespace image {

namespace {
std::atomic<int64_t> max_pixels{kDefaultMaxPixels};
}  // namespace

int64_t MaxPixels() { return max_pixels.load(std::memory_order_relaxed); }

void SetMaxPixels(int64_t limit) {
  max_pixels.store(limit > 0 ? limit : kDefaultMaxPixels, std::memory_order_relaxed);
}

Status CheckPixelLimit(const char* what, int64_t height, int64_t width) {
  if (height <= 0 || width <= 0) {
    return errors::InvalidArgument("invalid ", what, " image size ", height, "x", width);
  }
  const int64_t limit = MaxPixels();
  // height * width may overflow only past the limit: compare by division first.
  if (height > limit / width) {
    return errors::InvalidArgument(what, " image of ", width, "x", height,
                                   " has too many pixels (more than ", limit,
                                   "; see swigflow.image.set_max_pixels)");
  }
  return Status::OK();
}

Format DetectFormat(const void* data, size_t size) {
  const auto* b = static_cast<const unsigned char*>(data);
  auto starts = [&](const char* magic, size_t n) {
    return size >= n && std::memcmp(b, magic, n) == 0;
  };
  if (starts("\xff\xd8\xff", 3)) return Format::kJpeg;
  if (starts("\x89PNG\r\n\x1a\n", 8)) return Format::kPng;
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return Format::kGif;
  if (starts("BM", 2)) return Format::kBmp;
  if (size >= 12 && std::memcmp(b, "RIFF", 4) == 0 && std::memcmp(b + 8, "WEBP", 4) == 0) {
    return Format::kWebp;
  }
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return Format::kTiff;
  return Format::kUnknown;
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kJpeg:
      return "JPEG";
    case Format::kPng:
      return "PNG";
    case Format::kGif:
      return "GIF";
    case Format::kBmp:
      return "BMP";
    case Format::kWebp:
      return "WebP";
    case Format::kTiff:
      return "TIFF";
    case Format::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace image
}  // namespace swigflow
