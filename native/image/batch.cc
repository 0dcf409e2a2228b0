#include "swigflow/image/batch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "swigflow/framework/random.h"
#include "swigflow/image/jpeg.h"
#include "swigflow/image/png.h"

namespace swigflow {
namespace image {

namespace {

// Per-thread scratch: the decoded crop before resizing, and a reusable JPEG decoder.
struct Scratch {
  JpegDecoder jpeg;
  std::vector<Plane> planes;
  std::vector<uint8_t> pixels;
  Allocator Allocate() {
    return [this](const Shape& shape, size_t* stride) -> void* {
      pixels.resize(static_cast<size_t>(shape.height * shape.width * shape.channels));
      *stride = static_cast<size_t>(shape.width * shape.channels);
      return pixels.data();
    };
  }
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The crop window in the stored image's pixels.
Window ChooseWindow(int64_t height, int64_t width, const BatchDecodeOptions& o, Rng* rng) {
  switch (o.crop) {
    case BatchDecodeOptions::Crop::kCenter:
      return CentralCrop(height, width, o.central_fraction);
    case BatchDecodeOptions::Crop::kRandom:
      return SampleDistortedBoundingBox(height, width, {}, o.distort, rng->Next());
    case BatchDecodeOptions::Crop::kNone:
      break;
  }
  return Window{0, 0, height, width};
}

// The smallest M/8 at which the window is still at least the target size on both sides, among
// 1/8, 2/8 and 4/8: libjpeg-turbo has SIMD IDCTs only for those (and 8/8); its other scaled
// IDCTs (3/8, 5/8, ...) are scalar and cost more than a full-size SIMD decode plus the resize
// (measured on Zen 4: 5/8 was 15% slower than 8/8 for 500x375 -> 224x224).
int FastScale(const Window& w, const BatchDecodeOptions& o) {
  for (int m : {1, 2, 4}) {
    if (w.height * m >= o.height * 8 && w.width * m >= o.width * 8) return m;
  }
  return 8;
}

// `w` in the coordinates of the image scaled by m/8 (libjpeg rounds scaled sizes up).
Window ScaleWindow(const Window& w, int m, int64_t scaled_height, int64_t scaled_width) {
  Window s;
  s.y = w.y * m / 8;
  s.x = w.x * m / 8;
  s.height = std::min(scaled_height - s.y, std::max<int64_t>(1, (w.y + w.height) * m / 8 - s.y));
  s.width = std::min(scaled_width - s.x, std::max<int64_t>(1, (w.x + w.width) * m / 8 - s.x));
  return s;
}

// Where image `out` goes, as the options lay it out (flipped: columns right to left).
OutputRef OutputFor(const BatchDecodeOptions& o, bool flip, void* out) {
  OutputRef r;
  r.type = o.type;
  r.height = o.height;
  r.width = o.width;
  if (o.nchw) {
    r.c_stride = o.height * o.width;
    r.y_stride = o.width;
    r.x_stride = 1;
  } else {
    r.c_stride = 1;
    r.y_stride = o.width * o.channels;
    r.x_stride = o.channels;
  }
  r.data = out;
  if (flip) {
    const size_t element = o.type == SampleType::kFloat32 ? 4 : 1;
    r.data = static_cast<char*>(out) + (o.width - 1) * r.x_stride * element;
    r.x_stride = -r.x_stride;
  }
  if (o.type == SampleType::kFloat32) {
    r.scale.resize(o.channels);
    r.bias.resize(o.channels);
    for (int c = 0; c < o.channels; ++c) {
      const float mean = o.mean.empty() ? 0.0f : o.mean[c];
      const float std = o.std.empty() ? 1.0f : o.std[c];
      r.scale[c] = 1.0f / (255.0f * std);
      r.bias[c] = -mean / std;
    }
  }
  return r;
}

Status Store(const Scratch& scratch, const Shape& decoded, const Window& window, bool flip,
             const BatchDecodeOptions& o, void* out) {
  ImageRef in;
  in.type = SampleType::kUint8;
  in.channels = decoded.channels;
  in.row_stride = decoded.width * decoded.channels;
  in.data = scratch.pixels.data() + window.y * in.row_stride + window.x * decoded.channels;
  in.height = window.height;
  in.width = window.width;
  return Resize(in, o.method, o.antialias, OutputFor(o, flip, out));
}

// Whether fast mode resamples JPEG planes (DecodePlanes + ResizePlanes) instead of decoding to
// RGB: it skips libjpeg's upsampling and colour conversion at full size (bilinear resizes only).
// It pays for random crops too, although the RGB decode would skip the columns outside the
// window (Zen 4, 500x375 -> 224x224: 780 against 910 us whole, 700 against 750 cropped).
bool PlanesFit(const BatchDecodeOptions& o) {
  return o.fast && o.method == ResizeMethod::kBilinear && !o.antialias && ResizePlanesVectorized();
}

}  // namespace

Status CheckBatchDecodeOptions(const BatchDecodeOptions& o) {
  if (o.height <= 0 || o.width <= 0 || o.height > 65535 || o.width > 65535) {
    return errors::InvalidArgument("image size must be positive, got ", o.height, "x", o.width);
  }
  if (o.channels != 1 && o.channels != 3) {
    return errors::InvalidArgument("channels must be 1 or 3, got ", o.channels);
  }
  if (o.type != SampleType::kUint8 && o.type != SampleType::kFloat32) {
    return errors::InvalidArgument("decoded images are uint8 or float32");
  }
  for (const auto* v : {&o.mean, &o.std}) {
    if (!v->empty() && v->size() != static_cast<size_t>(o.channels)) {
      return errors::InvalidArgument("mean and std need one value per channel");
    }
  }
  for (float s : o.std) {
    if (!(s > 0)) return errors::InvalidArgument("std must be positive");
  }
  if (!(o.central_fraction > 0 && o.central_fraction <= 1)) {
    return errors::InvalidArgument("central_fraction must be in (0, 1]");
  }
  return CheckDistortOptions(o.distort);
}

uint64_t ImageSeed(uint64_t seed, int64_t epoch, int64_t position) {
  constexpr uint64_t kStream = 3;  // the pipeline's streams: 1 and 2 shuffle, 3 images
  return MixSeed(MixSeed(seed, kStream) + static_cast<uint64_t>(epoch),
                 static_cast<uint64_t>(position));
}

size_t DecodedImageBytes(const BatchDecodeOptions& o) {
  return static_cast<size_t>(o.height * o.width * o.channels) *
         (o.type == SampleType::kFloat32 ? 4 : 1);
}

std::array<int64_t, 4> DecodedBatchShape(const BatchDecodeOptions& o, int64_t n) {
  if (o.nchw) return {n, o.channels, o.height, o.width};
  return {n, o.height, o.width, o.channels};
}

Status DecodeImageInto(std::string_view data, uint64_t seed, const BatchDecodeOptions& o,
                       void* out) {
  Scratch& scratch = ThreadScratch();
  Rng rng(seed);
  const Format format = DetectFormat(data.data(), data.size());
  Shape decoded;
  Window window;
  if (format == Format::kJpeg) {
    Shape stored;
    SWIGFLOW_RETURN_IF_ERROR(scratch.jpeg.Start(data.data(), data.size(), &stored));
    window = ChooseWindow(stored.height, stored.width, o, &rng);
    JpegDecodeOptions jo;
    jo.channels = o.channels;
    if (o.fast) {
      jo.scale_num = FastScale(window, o);
      jo.scale_denom = 8;
      jo.fancy_upscaling = false;  // libjpeg-turbo then merges upsampling into colour conversion
    }
    Shape scaled;
    SWIGFLOW_RETURN_IF_ERROR(scratch.jpeg.OutputShape(jo, &scaled));
    if (jo.scale_num != jo.scale_denom) {
      window = ScaleWindow(window, jo.scale_num, scaled.height, scaled.width);
    }
    jo.crop = window.height < scaled.height || window.width < scaled.width;
    jo.window = window;
    if (PlanesFit(o)) {
      const Status planar = scratch.jpeg.DecodePlanes(jo, &scratch.planes);
      if (!errors::IsUnimplemented(planar)) {
        SWIGFLOW_RETURN_IF_ERROR(planar);
        const bool flip = o.flip && (rng.Next() >> 63) != 0;
        return ResizePlanes(scratch.planes.data(), static_cast<int>(scratch.planes.size()), window,
                            o.channels, OutputFor(o, flip, out));
      }
    }
    SWIGFLOW_RETURN_IF_ERROR(scratch.jpeg.Decode(jo, scratch.Allocate(), &decoded));
    window = Window{0, 0, decoded.height, decoded.width};  // the decode was the crop
  } else if (format == Format::kPng) {
    PngDecodeOptions po;
    po.channels = o.channels;
    SWIGFLOW_RETURN_IF_ERROR(DecodePng(data.data(), data.size(), po, scratch.Allocate(), &decoded));
    window = ChooseWindow(decoded.height, decoded.width, o, &rng);
  } else {
    return errors::InvalidArgument("not a JPEG or PNG image (", data.size(), " bytes, ",
                                   FormatName(format), " format)");
  }
  const bool flip = o.flip && (rng.Next() >> 63) != 0;
  return Store(scratch, decoded, window, flip, o, out);
}

void DecodeImageBatch(const std::vector<std::string_view>& images,
                      const std::vector<uint64_t>& seeds, const BatchDecodeOptions& o,
                      ThreadPool* pool, void* out, std::vector<Status>* statuses) {
  statuses->assign(images.size(), Status::OK());
  const size_t bytes = DecodedImageBytes(o);
  pool->ParallelFor(static_cast<int64_t>(images.size()), [&](int64_t i) {
    (*statuses)[i] = CatchExceptions([&] {
      return DecodeImageInto(images[i], seeds[i], o, static_cast<char*>(out) + i * bytes);
    });
  });
}

}  // namespace image
}  // namespace swigflow
