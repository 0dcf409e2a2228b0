// GIF decoding on giflib, with tf.io.decode_gif's semantics (checked against TensorFlow 2.21 by
// tests/testdata/make_tf_gif.py): every frame, [frames, height, width, 3] RGB, the size being
// the first frame's (not the logical screen's). Each frame starts from the previous one (the
// first from black) and draws its rectangle at its offset, clipped to that size, through its
// colour table (its own, else the global one); pixels of the frame's transparent colour keep what
// was there. Disposal methods are not applied, as in TensorFlow. Bad input is INVALID_ARGUMENT
// in TensorFlow's words, never a crash; every frame is checked against the pixel limit (image.h)
// before anything is allocated, and all frames together may hold at most kMaxGifFramePixels
// times that.
#ifndef SWIGFLOW_IMAGE_GIF_H_
#define SWIGFLOW_IMAGE_GIF_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/image/image.h"

namespace swigflow {
namespace image {

// All frames together may hold this many times MaxPixels() pixels: an animation of a few
// hundred small frames is fine, a file of tiny frame records claiming a huge screen is not.
constexpr int64_t kMaxGifFramePixels = 4;

struct GifImage {
  int64_t frames = 0, height = 0, width = 0;  // the pixels are frames x height x width x 3
  std::vector<uint8_t> pixels;
};

// Decodes the frames of `data`; only the first when first_frame_only (decode_image with
// expand_animations=False).
Status DecodeGif(const void* data, size_t size, bool first_frame_only, GifImage* out);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_GIF_H_
