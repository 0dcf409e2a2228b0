// Microseconds per image for each stage of the native decode step, one thread: JPEG decoding at
// each scale and upsampling choice, resizing into each output layout, and the whole
// DecodeImageInto of decode_images. image_bench.py measures the pipelines end to end; this says
// where an image's time goes.
//
//   bazel run -c opt //bench:image_stage_bench [-- --width 500 --height 375 --quality 90]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/image/batch.h"
#include "swigflow/image/jpeg.h"
#include "swigflow/image/resize.h"

namespace {

using swigflow::image::BatchDecodeOptions;
using swigflow::image::SampleType;

std::string CpuName() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "?";
}

// A photo-like image: smooth gradients plus noise, so the q90 file has a typical size.
std::vector<uint8_t> Photo(int width, int height) {
  std::vector<uint8_t> px(static_cast<size_t>(width) * height * 3);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0, 12);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const float v[3] = {
          128 + 100 * std::sin(x / 9.0f) * std::cos(y / 13.0f),
          128 + 90 * std::cos((x + y) / 17.0f) * std::sin(y / 5.0f),
          128 + 80 * std::sin(std::hypot(x - width / 2.0f, y - height / 2.0f) / 11.0f)};
      for (int c = 0; c < 3; ++c) {
        px[(static_cast<size_t>(y) * width + x) * 3 + c] =
            static_cast<uint8_t>(std::clamp(v[c] + noise(rng), 0.0f, 255.0f));
      }
    }
  }
  return px;
}

// Best of 5 rounds of `reps` calls, in microseconds per call.
double Micros(int reps, const std::function<void()>& fn) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) fn();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, s / reps * 1e6);
  }
  return best;
}

void Check(const swigflow::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int width = 500, height = 375, quality = 90, reps = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--width")) width = v;
    if (!std::strcmp(argv[i], "--height")) height = v;
    if (!std::strcmp(argv[i], "--quality")) quality = v;
    if (!std::strcmp(argv[i], "--reps")) reps = v;
  }
  namespace img = swigflow::image;
  const std::vector<uint8_t> pixels = Photo(width, height);
  img::Shape shape{height, width, 3};
  img::JpegEncodeOptions eo;
  eo.quality = quality;
  std::string jpeg;
  Check(img::EncodeJpeg(pixels.data(), shape, width * 3, eo, &jpeg));
  std::printf("CPU: %s (kernels: %s); one thread; a %dx%d q%d JPEG of %zu bytes -> 224x224\n\n",
              CpuName().c_str(), swigflow::IsaName(swigflow::SelectedIsa()), width, height, quality,
              jpeg.size());

  std::vector<uint8_t> decoded;
  const img::Allocator allocate = [&](const img::Shape& s, size_t* stride) -> void* {
    decoded.resize(static_cast<size_t>(s.height * s.width * s.channels));
    *stride = static_cast<size_t>(s.width * s.channels);
    return decoded.data();
  };
  img::JpegDecoder decoder;
  std::printf("| stage | us/image |\n|---|---:|\n");
  struct Decode {
    const char* name;
    int scale;
    bool fancy;
  };
  for (const Decode& d : {Decode{"decode 8/8, fancy upsampling (TF default)", 8, true},
                          Decode{"decode 8/8, no fancy upsampling", 8, false},
                          Decode{"decode 5/8, no fancy upsampling", 5, false},
                          Decode{"decode 4/8, no fancy upsampling", 4, false},
                          Decode{"decode 1/8 (entropy decoding, DC only)", 1, false}}) {
    img::JpegDecodeOptions o;
    o.scale_num = d.scale;
    o.scale_denom = 8;
    o.fancy_upscaling = d.fancy;
    const double us = Micros(reps, [&] {
      img::Shape s, out;
      Check(decoder.Start(jpeg.data(), jpeg.size(), &s));
      Check(decoder.Decode(o, allocate, &out));
    });
    std::printf("| %s | %.0f |\n", d.name, us);
  }

  {
    img::JpegDecodeOptions o;
    std::vector<img::Plane> planes;
    const double us = Micros(reps, [&] {
      img::Shape s;
      Check(decoder.Start(jpeg.data(), jpeg.size(), &s));
      Check(decoder.DecodePlanes(o, &planes));
    });
    std::printf("| decode 8/8 to Y, Cb, Cr planes (no upsampling or colour conversion) | %.0f |\n",
                us);
    std::vector<uint8_t> out(224 * 224 * 3);
    img::OutputRef r;
    r.type = SampleType::kUint8;
    r.height = r.width = 224;
    r.data = out.data();
    r.c_stride = 1;
    r.y_stride = 224 * 3;
    r.x_stride = 3;
    const double resize_us = Micros(reps, [&] {
      Check(img::ResizePlanes(planes.data(), 3, img::Window{0, 0, height, width}, 3, r));
    });
    std::printf("| resize the planes -> RGB uint8 NHWC | %.0f |\n", resize_us);
  }

  img::ImageRef in;
  in.data = pixels.data();
  in.type = SampleType::kUint8;
  in.height = height;
  in.width = width;
  in.row_stride = width * 3;
  in.channels = 3;
  std::vector<float> out_f(224 * 224 * 3);
  std::vector<uint8_t> out_u8(224 * 224 * 3);
  struct Layout {
    const char* name;
    bool nchw, flip, f32;
  };
  for (const Layout& l : {Layout{"resize bilinear -> uint8 NHWC", false, false, false},
                          Layout{"resize bilinear -> uint8 NHWC, flipped", false, true, false},
                          Layout{"resize bilinear -> float32 NCHW, mean/std", true, false, true}}) {
    img::OutputRef r;
    r.type = l.f32 ? SampleType::kFloat32 : SampleType::kUint8;
    r.height = r.width = 224;
    r.data = l.f32 ? static_cast<void*>(out_f.data()) : static_cast<void*>(out_u8.data());
    r.c_stride = l.nchw ? 224 * 224 : 1;
    r.y_stride = l.nchw ? 224 : 224 * 3;
    r.x_stride = l.nchw ? 1 : 3;
    if (l.flip) {
      r.data = out_u8.data() + 223 * 3;
      r.x_stride = -3;
    }
    if (l.f32) {
      r.scale = {1 / (255 * 0.229f), 1 / (255 * 0.224f), 1 / (255 * 0.225f)};
      r.bias = {-0.485f / 0.229f, -0.456f / 0.224f, -0.406f / 0.225f};
    }
    const double us =
        Micros(reps, [&] { Check(img::Resize(in, img::ResizeMethod::kBilinear, false, r)); });
    std::printf("| %s | %.0f |\n", l.name, us);
  }

  for (bool train : {false, true}) {
    for (bool fast : {false, true}) {
      BatchDecodeOptions o;
      o.fast = fast;
      o.flip = train;
      o.crop = train ? BatchDecodeOptions::Crop::kRandom : BatchDecodeOptions::Crop::kNone;
      uint64_t seed = 0;
      const double us =
          Micros(reps, [&] { Check(img::DecodeImageInto(jpeg, ++seed, o, out_u8.data())); });
      std::printf("| DecodeImageInto(%sfast=%s) | %.0f |\n", train ? "crop=random, flip, " : "",
                  fast ? "True" : "False", us);
    }
  }
  return 0;
}
