#include "swigflow/image/png.h"

#include <png.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace swigflow {
namespace image {

namespace {

// libpng reports fatal errors through png_error, which longjmps to png_jmpbuf; everything that
// must be freed lives in this struct (heap-allocated by the caller), never in the skipped frames.
struct Reader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  char message[256] = {0};
  std::vector<png_bytep> rows;

  ~Reader() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

void OnError(png_structp png, png_const_charp message) {
  auto* r = static_cast<Reader*>(png_get_error_ptr(png));
  std::snprintf(r->message, sizeof(r->message), "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

void ReadData(png_structp png, png_bytep out, png_size_t length) {
  auto* r = static_cast<Reader*>(png_get_io_ptr(png));
  if (length > r->size - r->offset) png_error(png, "PNG data is truncated");
  std::memcpy(out, r->data + r->offset, length);
  r->offset += length;
}

bool Create(Reader* r, const void* data, size_t size) {
  r->data = static_cast<const uint8_t*>(data);
  r->size = size;
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, OnError, OnWarning);
  if (r->png == nullptr) return false;
  r->info = png_create_info_struct(r->png);
  if (r->info == nullptr) return false;
  png_set_read_fn(r->png, r, ReadData);
  // Corrupt ancillary chunks are skipped rather than fatal, as in TensorFlow; critical ones are
  // errors.
  png_set_crc_action(r->png, PNG_CRC_WARN_DISCARD, PNG_CRC_ERROR_QUIT);
  return true;
}

Status PngError(const Reader& r) {
  return errors::InvalidArgument("Invalid PNG data: ", r.message);
}

constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

Status CheckSignature(const void* data, size_t size) {
  if (size < 8 || std::memcmp(data, kSignature, 8) != 0) {
    return errors::InvalidArgument("Invalid PNG data: no PNG signature");
  }
  return Status::OK();
}

int StoredChannels(png_structp png, png_infop info) {
  const int color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) return png_get_valid(png, info, PNG_INFO_tRNS) ? 4 : 3;
  int channels = png_get_channels(png, info);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) ++channels;
  return channels;
}

}  // namespace

Status ReadPngShape(const void* data, size_t size, Shape* shape) {
  SWIGFLOW_RETURN_IF_ERROR(CheckSignature(data, size));
  auto r = std::make_unique<Reader>();
  if (!Create(r.get(), data, size)) return errors::ResourceExhausted("no memory for libpng");
  if (setjmp(png_jmpbuf(r->png))) return PngError(*r);
  png_read_info(r->png, r->info);
  shape->height = png_get_image_height(r->png, r->info);
  shape->width = png_get_image_width(r->png, r->info);
  shape->channels = StoredChannels(r->png, r->info);
  return Status::OK();
}

Status DecodePng(const void* data, size_t size, const PngDecodeOptions& o,
                 const Allocator& allocate, Shape* shape) {
  if (o.channels < 0 || o.channels > 4 || o.channels == 2) {
    // As TensorFlow's decode_png: gray+alpha comes only as the file's own (channels=0).
    return errors::InvalidArgument("channels must be 0, 1, 3 or 4, got ", o.channels);
  }
  if (o.bit_depth != 8 && o.bit_depth != 16) {
    return errors::InvalidArgument("PNG output is 8 or 16 bits, got ", o.bit_depth);
  }
  SWIGFLOW_RETURN_IF_ERROR(CheckSignature(data, size));
  auto r = std::make_unique<Reader>();
  if (!Create(r.get(), data, size)) return errors::ResourceExhausted("no memory for libpng");
  png_structp png = r->png;
  png_infop info = r->info;
  if (setjmp(png_jmpbuf(png))) return PngError(*r);
  png_read_info(png, info);
  const uint32_t width = png_get_image_width(png, info);
  const uint32_t height = png_get_image_height(png, info);
  {
    const Status limit = CheckPixelLimit("PNG", height, width);  // nothing here longjmps
    if (!limit.ok()) return limit;
  }
  const int color = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  const int stored = StoredChannels(png, info);
  const int channels = o.channels == 0 ? stored : o.channels;
  const bool has_alpha = stored == 2 || stored == 4;
  const bool want_alpha = channels == 2 || channels == 4;
  const bool want_color = channels >= 3;

  // Every stored form to 8- or 16-bit gray or RGB, with or without alpha.
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) {
    if (want_alpha) {
      png_set_tRNS_to_alpha(png);
    } else {
      png_set_strip_alpha(png);  // drops the transparency without applying it
    }
  }
  if (has_alpha && !want_alpha) png_set_strip_alpha(png);
  if (o.bit_depth == 8 && depth == 16) png_set_strip_16(png);
  if (o.bit_depth == 16 && depth < 16) png_set_expand_16(png);
  const bool stored_color = stored >= 3;
  if (stored_color && !want_color) {
    // TensorFlow's weights, ITU-R BT.601 (libpng's default would be BT.709's).
    png_set_rgb_to_gray_fixed(png, PNG_ERROR_ACTION_NONE, 29900, 58700);
  }
  if (!stored_color && want_color) png_set_gray_to_rgb(png);
  if (!has_alpha && want_alpha) {
    // TensorFlow's filler is the largest value of the stored depth: 1 for a 1-bit gray image
    // (then expanded like a sample: 257 in 16-bit output).
    const int stored_max = (1 << depth) - 1;
    const int filler = o.bit_depth == 16 ? (depth == 16 ? 0xffff : stored_max * 257) : stored_max;
    png_set_add_alpha(png, static_cast<png_uint_32>(std::min(filler, 0xffff)), PNG_FILLER_AFTER);
  }
  if (o.bit_depth == 16) {
    const uint16_t one = 1;
    if (*reinterpret_cast<const uint8_t*>(&one) == 1) png_set_swap(png);  // PNG is big-endian
  }
  png_set_interlace_handling(png);  // png_read_image then runs every pass
  png_read_update_info(png, info);
  if (png_get_channels(png, info) != channels) {
    std::snprintf(r->message, sizeof(r->message), "cannot convert %d channels to %d", stored,
                  channels);
    return PngError(*r);
  }
  *shape = Shape{height, width, channels};
  size_t stride = 0;
  auto* out = static_cast<uint8_t*>(allocate(*shape, &stride));
  if (out == nullptr) {
    return errors::ResourceExhausted("no memory for a ", width, "x", height, " image");
  }
  const size_t row_bytes = stride * (o.bit_depth / 8);
  r->rows.resize(height);
  for (uint32_t y = 0; y < height; ++y) r->rows[y] = out + y * row_bytes;
  png_read_image(png, r->rows.data());
  return Status::OK();
}

namespace {

struct Writer {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string* out = nullptr;
  char message[256] = {0};
  std::vector<png_bytep> rows;

  ~Writer() {
    if (png != nullptr) png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
  }
};

void OnWriteError(png_structp png, png_const_charp message) {
  auto* w = static_cast<Writer*>(png_get_error_ptr(png));
  std::snprintf(w->message, sizeof(w->message), "%s", message);
  png_longjmp(png, 1);
}

void WriteData(png_structp png, png_bytep data, png_size_t length) {
  static_cast<Writer*>(png_get_io_ptr(png))
      ->out->append(reinterpret_cast<const char*>(data), length);
}

void Flush(png_structp) {}

}  // namespace

Status EncodePng(const void* pixels, const Shape& shape, size_t row_stride, int bit_depth,
                 int level, std::string* out) {
  if (shape.channels < 1 || shape.channels > 4) {
    return errors::InvalidArgument("PNG images have 1 to 4 channels, got ", shape.channels);
  }
  if (bit_depth != 8 && bit_depth != 16) {
    return errors::InvalidArgument("PNG samples are 8 or 16 bits, got ", bit_depth);
  }
  if (level < -1 || level > 9) {
    return errors::InvalidArgument("compression must be in [-1,9], got ", level);
  }
  if (shape.height <= 0 || shape.width <= 0 || shape.height > PNG_UINT_31_MAX ||
      shape.width > PNG_UINT_31_MAX) {
    return errors::InvalidArgument("cannot encode a ", shape.width, "x", shape.height,
                                   " image as PNG");
  }
  auto w = std::make_unique<Writer>();
  out->clear();
  w->out = out;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w.get(), OnWriteError, OnWarning);
  if (w->png == nullptr) return errors::ResourceExhausted("no memory for libpng");
  w->info = png_create_info_struct(w->png);
  if (w->info == nullptr) return errors::ResourceExhausted("no memory for libpng");
  const size_t row_bytes = row_stride * (bit_depth / 8);
  w->rows.resize(static_cast<size_t>(shape.height));
  for (int64_t y = 0; y < shape.height; ++y) {
    w->rows[y] = const_cast<png_bytep>(static_cast<const uint8_t*>(pixels) + y * row_bytes);
  }
  static const int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  if (setjmp(png_jmpbuf(w->png))) {
    return errors::Internal("PNG encoding failed: ", w->message);
  }
  png_set_write_fn(w->png, w.get(), WriteData, Flush);
  png_set_compression_level(w->png, level == -1 ? 6 : level);  // zlib's default level is 6
  png_set_IHDR(w->png, w->info, static_cast<png_uint_32>(shape.width),
               static_cast<png_uint_32>(shape.height), bit_depth, kColorTypes[shape.channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(w->png, w->info);
  if (bit_depth == 16) {
    const uint16_t one = 1;
    if (*reinterpret_cast<const uint8_t*>(&one) == 1) png_set_swap(w->png);
  }
  png_write_image(w->png, w->rows.data());
  png_write_end(w->png, nullptr);
  return Status::OK();
}

}  // namespace image
}  // namespace swigflow
