// Fuzz target for the GIF decoder. Invariants: no crash, no wild allocation (the pixel limit is
// lowered, so a frame claiming a huge size, or endless frames, is refused), every failure is
// INVALID_ARGUMENT, and whatever decodes holds frames x height x width x 3 bytes, its first frame
// being what decoding the first frame alone gives.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swigflow/image/gif.h"

namespace {

namespace im = swigflow::image;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  im::SetMaxPixels(1 << 20);  // 1 Mpixel a frame, 4 in all: every run's memory stays small
  im::GifImage all, first;
  const swigflow::Status s = im::DecodeGif(data, size, false, &all);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s), "decode status");
  const swigflow::Status f = im::DecodeGif(data, size, true, &first);
  Require(f.ok() || swigflow::errors::IsInvalidArgument(f), "first-frame status");
  if (s.ok()) {
    Require(all.frames >= 1, "a decoded GIF has a frame");
    Require(all.pixels.size() == static_cast<size_t>(all.frames * all.height * all.width * 3),
            "pixels of every frame");
    Require(all.frames * all.height * all.width <= im::kMaxGifFramePixels * im::MaxPixels(),
            "frames within the limit");
    Require(f.ok(), "the first frame of a decodable GIF decodes");
    Require(first.frames == 1 && first.height == all.height && first.width == all.width,
            "the first frame's shape");
    Require(memcmp(first.pixels.data(), all.pixels.data(), first.pixels.size()) == 0,
            "the first frame alone equals frame 0");
  }
  return 0;
}
