#include "swigflow/image/gif.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace swigflow {
namespace image {

namespace {

// giflib reads through this callback: bytes of the caller's buffer, never past its end.
struct Source {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
};

int Read(GifFileType* gif, GifByteType* out, int length) {
  auto* source = static_cast<Source*>(gif->UserData);
  const size_t n =
      std::min(static_cast<size_t>(std::max(length, 0)), source->size - source->offset);
  std::memcpy(out, source->data + source->offset, n);
  source->offset += n;
  return static_cast<int>(n);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int error = 0;
    DGifCloseFile(gif, &error);
  }
};

// TensorFlow's words: "Invalid GIF data (size 40), failed to slurp gif file: <giflib's reason>".
Status Invalid(size_t size, const std::string& what) {
  return errors::InvalidArgument("Invalid GIF data (size ", size, "), ", what);
}

std::string GifReason(int code) {
  const char* reason = GifErrorString(code);
  return reason != nullptr ? reason : "unknown error";
}

// Reads the current image's rows (interlaced ones in GIF's four passes) into `indices`; false
// with gif->Error set when the data does not decode.
bool ReadIndices(GifFileType* gif, std::vector<GifPixelType>* indices) {
  const GifImageDesc& desc = gif->Image;
  const int64_t width = desc.Width, height = desc.Height;
  indices->resize(static_cast<size_t>(width * height));
  auto row = [&](int64_t y) {
    return DGifGetLine(gif, indices->data() + y * width, static_cast<int>(width)) == GIF_OK;
  };
  if (desc.Interlace) {
    static constexpr int kStart[4] = {0, 4, 2, 1};
    static constexpr int kStep[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; ++pass) {
      for (int64_t y = kStart[pass]; y < height; y += kStep[pass]) {
        if (!row(y)) return false;
      }
    }
  } else {
    for (int64_t y = 0; y < height; ++y) {
      if (!row(y)) return false;
    }
  }
  return true;
}

}  // namespace

Status DecodeGif(const void* data, size_t size, bool first_frame_only, GifImage* out) {
  Source source{static_cast<const uint8_t*>(data), size, 0};
  int error = 0;
  std::unique_ptr<GifFileType, GifCloser> gif(DGifOpen(&source, Read, &error));
  if (gif == nullptr) return Invalid(size, "failed to open gif file: " + GifReason(error));
  out->frames = out->height = out->width = 0;
  out->pixels.clear();
  // TensorFlow reads the whole file first (DGifSlurp): every frame must decode, even when only
  // the first is wanted; then the output takes the first frame's size, and each frame is drawn
  // at its offset, clipped to it.
  auto slurp_failed = [&] {
    return Invalid(size, "failed to slurp gif file: " + GifReason(gif->Error));
  };
  int64_t height = 0, width = 0, frame_bytes = 0, max_frames = 0, images = 0;
  int transparent = NO_TRANSPARENT_COLOR;  // from the graphics control block before an image
  std::vector<GifPixelType> indices;
  for (;;) {
    GifRecordType record;
    if (DGifGetRecordType(gif.get(), &record) != GIF_OK) return slurp_failed();
    if (record == TERMINATE_RECORD_TYPE) break;
    if (record == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif.get(), &code, &block) != GIF_OK) return slurp_failed();
      if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr && block[0] >= 4) {
        GraphicsControlBlock gcb;
        if (DGifExtensionToGCB(block[0], block + 1, &gcb) == GIF_OK) {
          transparent = gcb.TransparentColor;
        }
      }
      while (block != nullptr) {
        if (DGifGetExtensionNext(gif.get(), &block) != GIF_OK) return slurp_failed();
      }
      continue;
    }
    if (record != IMAGE_DESC_RECORD_TYPE) continue;  // giflib reports others as errors
    if (DGifGetImageDesc(gif.get()) != GIF_OK) return slurp_failed();
    const GifImageDesc& desc = gif->Image;
    SWIGFLOW_RETURN_IF_ERROR(CheckPixelLimit("GIF frame", desc.Height, desc.Width));
    if (images == 0) {
      height = desc.Height;
      width = desc.Width;
      frame_bytes = height * width * 3;
      max_frames = kMaxGifFramePixels * MaxPixels() / (height * width);
      out->height = height;
      out->width = width;
    }
    if (!ReadIndices(gif.get(), &indices)) return slurp_failed();
    const int64_t k = images++;
    const int frame_transparent = transparent;
    transparent = NO_TRANSPARENT_COLOR;       // a control block applies to the image after it
    if (first_frame_only && k > 0) continue;  // read, so that a damaged file fails as in TF
    if (k >= max_frames) {
      return Invalid(size, "more than " + std::to_string(max_frames) + " frames of " +
                               std::to_string(width) + "x" + std::to_string(height) + " (" +
                               std::to_string(kMaxGifFramePixels) +
                               " times the pixel limit in all)");
    }
    const ColorMapObject* colors = desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
    if (colors == nullptr) return Invalid(size, "missing color map for frame " + std::to_string(k));

    // The new frame starts as the previous one (black for the first).
    out->pixels.resize(static_cast<size_t>((k + 1) * frame_bytes), 0);
    uint8_t* canvas = out->pixels.data() + k * frame_bytes;
    if (k > 0) std::memcpy(canvas, canvas - frame_bytes, static_cast<size_t>(frame_bytes));
    const int64_t top = std::max<int64_t>(desc.Top, 0), left = std::max<int64_t>(desc.Left, 0);
    const int64_t bottom = std::min<int64_t>(int64_t{desc.Top} + desc.Height, height);
    const int64_t right = std::min<int64_t>(int64_t{desc.Left} + desc.Width, width);
    for (int64_t y = top; y < bottom; ++y) {
      const GifPixelType* src = indices.data() + (y - desc.Top) * desc.Width;
      uint8_t* dst = canvas + y * width * 3;
      for (int64_t x = left; x < right; ++x) {
        const int index = src[x - desc.Left];
        if (index == frame_transparent) continue;  // keeps the previous frame's pixel
        if (index >= colors->ColorCount) {
          return Invalid(size, "found color index " + std::to_string(index) +
                                   " outside of color map range " +
                                   std::to_string(colors->ColorCount));
        }
        const GifColorType& color = colors->Colors[index];
        dst[x * 3 + 0] = color.Red;
        dst[x * 3 + 1] = color.Green;
        dst[x * 3 + 2] = color.Blue;
      }
    }
    out->frames = k + 1;
  }
  if (images == 0)
    return Invalid(size, "failed to slurp gif file: " + GifReason(D_GIF_ERR_NO_IMAG_DSCR));
  return Status::OK();
}

}  // namespace image
}  // namespace swigflow
