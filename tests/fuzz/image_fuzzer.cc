// Fuzz target for the JPEG and PNG decoders and the pipeline's batch decode step.
// Invariants: no crash, no wild allocation (the pixel limit is lowered so that a header claiming
// a huge image is refused), and every failure is INVALID_ARGUMENT (or RESOURCE_EXHAUSTED);
// whatever decodes has the size its header promised.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string_view>
#include <vector>

#include "swigflow/image/batch.h"
#include "swigflow/image/jpeg.h"
#include "swigflow/image/png.h"
#include "swigflow/image/resize.h"

namespace {

namespace im = swigflow::image;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

void RequireTyped(const swigflow::Status& s) {
  Require(
      s.ok() || swigflow::errors::IsInvalidArgument(s) || swigflow::errors::IsResourceExhausted(s),
      "decode status");
}

im::Allocator Into(std::vector<uint8_t>* buffer, size_t element) {
  return [buffer, element](const im::Shape& shape, size_t* stride) -> void* {
    buffer->resize(static_cast<size_t>(shape.height * shape.width * shape.channels) * element);
    *stride = static_cast<size_t>(shape.width * shape.channels);
    return buffer->data();
  };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  im::SetMaxPixels(1 << 22);  // 4 Mpixels: keeps every run's memory small
  std::vector<uint8_t> pixels;
  im::Shape shape, header;
  const uint8_t selector = size > 0 ? data[size - 1] : 0;

  im::JpegDecodeOptions jo;
  jo.channels = (selector & 1) ? 3 : 0;
  jo.fancy_upscaling = (selector & 2) != 0;
  jo.try_recover_truncated = (selector & 4) != 0;
  jo.acceptable_fraction = (selector & 8) ? 0.5f : 1.0f;
  jo.scale_denom = 1 << ((selector >> 4) & 3);
  swigflow::Status s = im::DecodeJpeg(data, size, jo, Into(&pixels, 1), &shape);
  RequireTyped(s);
  if (s.ok()) {
    Require(im::ReadJpegShape(data, size, &header).ok(), "header of a decoded JPEG");
    Require(shape.channels == 1 || shape.channels == 3, "JPEG channels");
  }
  if (s.ok() && shape.height > 2 && shape.width > 2) {
    im::JpegDecodeOptions crop = jo;
    crop.crop = true;
    crop.window = im::Window{1, 1, shape.height - 2, shape.width - 2};
    RequireTyped(im::DecodeJpeg(data, size, crop, Into(&pixels, 1), &shape));
  }

  {  // the fast step's planes, resampled whole
    im::JpegDecoder decoder;
    im::Shape scaled;
    std::vector<im::Plane> planes;
    if (decoder.Start(data, size, &header).ok() && decoder.OutputShape(jo, &scaled).ok()) {
      s = decoder.DecodePlanes(jo, &planes);
      Require(
          s.ok() || swigflow::errors::IsInvalidArgument(s) || swigflow::errors::IsUnimplemented(s),
          "planes status");
      if (s.ok()) {
        Require(planes.size() == 1 || planes.size() == 3, "plane count");
        for (const im::Plane& p : planes) {
          Require(p.height > 0 && (p.height - 1) * p.y_factor < scaled.height &&
                      p.height * p.y_factor >= scaled.height && p.width > 0 &&
                      (p.width - 1) * p.x_factor < scaled.width &&
                      p.width * p.x_factor >= scaled.width,
                  "plane size");
        }
        std::vector<uint8_t> small(7 * 5 * 3);
        im::OutputRef r;
        r.type = im::SampleType::kUint8;
        r.data = small.data();
        r.height = 7;
        r.width = 5;
        r.y_stride = 15;
        r.x_stride = 3;
        Require(im::ResizePlanes(planes.data(), static_cast<int>(planes.size()),
                                 im::Window{0, 0, scaled.height, scaled.width}, 3, r)
                    .ok(),
                "resampling decoded planes");
      }
    }
  }

  im::PngDecodeOptions po;
  po.channels = (selector & 1) ? 4 : 0;
  po.bit_depth = (selector & 2) ? 16 : 8;
  s = im::DecodePng(data, size, po, Into(&pixels, po.bit_depth / 8), &shape);
  RequireTyped(s);
  if (s.ok()) Require(im::ReadPngShape(data, size, &header).ok(), "header of a decoded PNG");

  im::BatchDecodeOptions bo;
  bo.height = 17;
  bo.width = 23;
  bo.crop = static_cast<im::BatchDecodeOptions::Crop>(selector % 3);
  bo.fast = (selector & 8) != 0;
  bo.flip = true;
  std::vector<uint8_t> out(im::DecodedImageBytes(bo));
  RequireTyped(im::DecodeImageInto(std::string_view(reinterpret_cast<const char*>(data), size),
                                   selector, bo, out.data()));
  return 0;
}
