#include "swigflow/image/resize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/image/resize_kernels.h"

namespace swigflow {
namespace image {

namespace {

constexpr float kPi = 3.14159265358979323846f;

// Keys' cubic convolution kernel with parameter a.
float Keys(float x, float a) {
  x = std::fabs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

float Sinc(float x) { return x == 0 ? 1 : std::sin(kPi * x) / (kPi * x); }

// scale_and_translate's kernels: value at x (in input samples, before widening) and radius.
float Kernel(ResizeMethod method, float x) {
  const float ax = std::fabs(x);
  switch (method) {
    case ResizeMethod::kBilinear:
      return std::max(0.0f, 1 - ax);
    case ResizeMethod::kBicubic:
      return Keys(x, -0.5f);
    case ResizeMethod::kArea:
      return ax < 0.5f ? 1.0f : ax == 0.5f ? 0.5f : 0.0f;
    case ResizeMethod::kLanczos3:
      return ax < 3 ? Sinc(x) * Sinc(x / 3) : 0;
    case ResizeMethod::kLanczos5:
      return ax < 5 ? Sinc(x) * Sinc(x / 5) : 0;
    case ResizeMethod::kGaussian: {
      constexpr float kSigma = 0.5f;  // cut off at 3 sigma
      return ax < 3 * kSigma ? std::exp(-x * x / (2 * kSigma * kSigma)) : 0;
    }
    case ResizeMethod::kMitchellCubic: {
      // B = C = 1/3.
      if (ax < 1) return (7 * ax * ax * ax - 12 * ax * ax + 16.0f / 3) / 6;
      if (ax < 2) return (-7.0f / 3 * ax * ax * ax + 12 * ax * ax - 20 * ax + 32.0f / 3) / 6;
      return 0;
    }
  }
  return 0;
}

float Radius(ResizeMethod method) {
  switch (method) {
    case ResizeMethod::kBicubic:
    case ResizeMethod::kMitchellCubic:
      return 2;
    case ResizeMethod::kLanczos3:
      return 3;
    case ResizeMethod::kLanczos5:
      return 5;
    case ResizeMethod::kGaussian:
      return 1.5f;
    case ResizeMethod::kArea:
    case ResizeMethod::kBilinear:
      return 1;
  }
  return 1;
}

void Add(Taps* taps, int64_t start, const float* w, int count) {
  taps->start.push_back(start);
  taps->count.push_back(count);
  taps->offset.push_back(taps->weights.size());
  taps->weights.insert(taps->weights.end(), w, w + count);
}

void BilinearTaps(int64_t in, int64_t out, Taps* taps) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int64_t o = 0; o < out; ++o) {
    const float pos = (static_cast<float>(o) + 0.5f) * scale - 0.5f;
    const float floor = std::floor(pos);
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(floor), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(pos)), in - 1);
    const float lerp = pos - floor;
    if (hi <= lo) {
      const float w[1] = {1};
      Add(taps, std::min(lo, in - 1), w, 1);
    } else {
      const float w[2] = {1 - lerp, lerp};
      Add(taps, lo, w, 2);
    }
  }
}

void BicubicTaps(int64_t in, int64_t out, Taps* taps) {
  constexpr int kTable = 1024;  // TensorFlow evaluates the kernel at phases quantized to 1/1024
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int64_t o = 0; o < out; ++o) {
    const float pos = (static_cast<float>(o) + 0.5f) * scale - 0.5f;
    const int64_t base = static_cast<int64_t>(std::floor(pos));
    const float phase = static_cast<float>(std::lrint((pos - std::floor(pos)) * kTable)) / kTable;
    float w[4] = {Keys(1 + phase, -0.5f), Keys(phase, -0.5f), Keys(1 - phase, -0.5f),
                  Keys(2 - phase, -0.5f)};
    // Taps outside the image are dropped and the rest renormalized.
    float total = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = base - 1 + k;
      if (i < 0 || i >= in) w[k] = 0;
      total += w[k];
    }
    const int64_t first = std::clamp<int64_t>(base - 1, 0, in - 1);
    const int64_t last = std::clamp<int64_t>(base + 2, 0, in - 1);
    float packed[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; ++k) {
      const int64_t i = std::clamp<int64_t>(base - 1 + k, 0, in - 1);
      packed[i - first] += total != 0 ? w[k] / total : 0;
    }
    Add(taps, first, packed, static_cast<int>(last - first + 1));
  }
}

void AreaTaps(int64_t in, int64_t out, Taps* taps) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<float> w;
  for (int64_t o = 0; o < out; ++o) {
    const float begin = static_cast<float>(o) * scale;
    const float end = static_cast<float>(o + 1) * scale;
    const int64_t first = static_cast<int64_t>(std::floor(begin));
    const int64_t last = static_cast<int64_t>(std::ceil(end));  // exclusive
    // Coverage of input sample i by [begin, end), divided by the box size; samples past the
    // edge repeat the last one.
    const int64_t lo = std::min(first, in - 1);
    const int64_t hi = std::min(last - 1, in - 1);
    w.assign(static_cast<size_t>(hi - lo + 1), 0.0f);
    for (int64_t i = first; i < last; ++i) {
      const float fi = static_cast<float>(i);
      float cover =
          i < begin ? (fi + 1 > end ? scale : fi + 1 - begin) : (fi + 1 > end ? end - fi : 1.0f);
      w[static_cast<size_t>(std::min(i, in - 1) - lo)] += cover / scale;
    }
    Add(taps, lo, w.data(), static_cast<int>(w.size()));
  }
}

void KernelTaps(ResizeMethod method, bool antialias, int64_t in, int64_t out, Taps* taps) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  const float inv_scale = 1.0f / scale;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = Radius(method) * kernel_scale;
  std::vector<float> w;
  for (int64_t o = 0; o < out; ++o) {
    const float center = (static_cast<float>(o) + 0.5f) * inv_scale;
    int64_t first = static_cast<int64_t>(std::ceil(center - radius - 0.5f));
    int64_t last = static_cast<int64_t>(std::floor(center + radius - 0.5f));
    first = std::clamp<int64_t>(first, 0, in - 1);
    last = std::clamp<int64_t>(last, 0, in - 1);
    w.clear();
    float total = 0;
    for (int64_t i = first; i <= last; ++i) {
      w.push_back(Kernel(method, (static_cast<float>(i) + 0.5f - center) / kernel_scale));
      total += w.back();
    }
    if (std::fabs(total) >= 1000.0f * FLT_MIN) {
      for (float& v : w) v /= total;
    } else {
      std::fill(w.begin(), w.end(), 0.0f);
    }
    Add(taps, first, w.data(), static_cast<int>(w.size()));
  }
}

// Taps with the same count n for every output (zero weights pad the shorter ones), so the
// inner loops have a fixed trip count: start[o] + n <= in_size.
struct UniformTaps {
  int n = 0;
  std::vector<int64_t> start;
  std::vector<float> weights;  // n per output
};

UniformTaps Uniform(const Taps& t, int64_t in_size) {
  UniformTaps u;
  for (int c : t.count) u.n = std::max(u.n, c);
  u.n = static_cast<int>(std::min<int64_t>(u.n, in_size));
  const size_t outs = t.start.size();
  u.start.resize(outs);
  u.weights.assign(outs * u.n, 0.0f);
  for (size_t o = 0; o < outs; ++o) {
    const int64_t start = std::min<int64_t>(t.start[o], in_size - u.n);
    u.start[o] = start;
    for (int k = 0; k < t.count[o]; ++k) {
      u.weights[o * u.n + (t.start[o] - start) + k] += t.weights[t.offset[o] + k];
    }
  }
  return u;
}

// Output index o of `t` becomes out_size - 1 - o: a mirrored row, written left to right.
void ReverseOutputs(UniformTaps* t) {
  const size_t outs = t->start.size();
  if (outs < 2) return;
  for (size_t lo = 0, hi = outs - 1; lo < hi; ++lo, --hi) {
    std::swap(t->start[lo], t->start[hi]);
    std::swap_ranges(t->weights.begin() + lo * t->n, t->weights.begin() + (lo + 1) * t->n,
                     t->weights.begin() + hi * t->n);
  }
}

size_t ElementSize(SampleType type) {
  switch (type) {
    case SampleType::kUint8:
      return 1;
    case SampleType::kUint16:
      return 2;
    case SampleType::kFloat32:
      return 4;
  }
  return 1;
}

// dst[i] = v[i * v_stride] (* scale + bias) as `type`, through the kernels' store loops.
void StoreRun(const ResizeKernels& k, SampleType type, const float* v, int64_t v_stride,
              int64_t count, const float* scale, const float* bias, int64_t sb_stride, void* dst) {
  switch (type) {
    case SampleType::kUint8:
      return k.store_u8(v, v_stride, count, scale, bias, sb_stride, static_cast<uint8_t*>(dst));
    case SampleType::kUint16:
      return k.store_u16(v, v_stride, count, scale, bias, sb_stride, static_cast<uint16_t*>(dst));
    case SampleType::kFloat32:
      return k.store_f32(v, v_stride, count, scale, bias, sb_stride, static_cast<float*>(dst));
  }
}

}  // namespace

const ResizeKernels& ResizeKernelsFor(Isa isa) {
  return isa == Isa::kScalar ? sse2::kResizeKernels : avx2::kResizeKernels;
}

Status ComputeTaps(ResizeMethod method, bool antialias, int64_t in_size, int64_t out_size,
                   Taps* taps) {
  if (in_size <= 0 || out_size <= 0) {
    return errors::InvalidArgument("cannot resize ", in_size, " samples to ", out_size);
  }
  *taps = Taps();
  if (method == ResizeMethod::kBilinear && !antialias) {
    BilinearTaps(in_size, out_size, taps);
  } else if (method == ResizeMethod::kBicubic && !antialias) {
    BicubicTaps(in_size, out_size, taps);
  } else if (method == ResizeMethod::kArea) {
    AreaTaps(in_size, out_size, taps);
  } else {
    KernelTaps(method, antialias, in_size, out_size, taps);
  }
  return Status::OK();
}

Status Resize(const ImageRef& in, ResizeMethod method, bool antialias, const OutputRef& out) {
  if (in.channels <= 0 || in.height <= 0 || in.width <= 0 || out.height <= 0 || out.width <= 0) {
    return errors::InvalidArgument("cannot resize a ", in.width, "x", in.height, "x", in.channels,
                                   " image to ", out.width, "x", out.height);
  }
  if (!out.scale.empty() && (out.scale.size() != static_cast<size_t>(in.channels) ||
                             out.bias.size() != out.scale.size())) {
    return errors::InvalidArgument("scale and bias need one value per channel");
  }
  Taps tx, ty;
  SWIGFLOW_RETURN_IF_ERROR(ComputeTaps(method, antialias, in.width, out.width, &tx));
  SWIGFLOW_RETURN_IF_ERROR(ComputeTaps(method, antialias, in.height, out.height, &ty));
  UniformTaps ux = Uniform(tx, in.width);
  const UniformTaps uy = Uniform(ty, in.height);
  const int channels = in.channels;
  const size_t element = ElementSize(out.type);
  char* base = static_cast<char*>(out.data);
  int64_t x_stride = out.x_stride;
  if (x_stride < 0) {
    base += (out.width - 1) * x_stride * static_cast<int64_t>(element);
    x_stride = -x_stride;
    ReverseOutputs(&ux);
  }
  const bool affine = !out.scale.empty();
  const bool interleaved = x_stride == channels && out.c_stride == 1;  // HWC rows
  const bool planar = x_stride == 1;                                   // CHW rows
  const ResizeKernels& k = ResizeKernelsFor(SelectedIsa());
  // Vertically first (whole contiguous rows), then horizontally over output rows only.
  const int64_t row_length = in.width * channels;
  const int64_t line_length = out.width * channels;
  thread_local std::vector<float> combined, line, scale_row, bias_row;
  combined.resize(static_cast<size_t>(row_length + kResizeRowPadding));
  line.resize(static_cast<size_t>(line_length + kResizeRowPadding));
  if (interleaved && affine) {  // per element, so the store loop runs straight along the row
    scale_row.resize(static_cast<size_t>(line_length));
    bias_row.resize(static_cast<size_t>(line_length));
    for (int64_t i = 0; i < line_length; ++i) {
      scale_row[i] = out.scale[i % channels];
      bias_row[i] = out.bias[i % channels];
    }
  }
  for (int64_t y = 0; y < out.height; ++y) {
    const float* w = uy.weights.data() + y * uy.n;
    const int64_t offset = uy.start[y] * in.row_stride;
    switch (in.type) {
      case SampleType::kUint8:
        k.rows_u8(static_cast<const uint8_t*>(in.data) + offset, in.row_stride, row_length, w, uy.n,
                  combined.data());
        break;
      case SampleType::kUint16:
        k.rows_u16(static_cast<const uint16_t*>(in.data) + offset, in.row_stride, row_length, w,
                   uy.n, combined.data());
        break;
      case SampleType::kFloat32:
        k.rows_f32(static_cast<const float*>(in.data) + offset, in.row_stride, row_length, w, uy.n,
                   combined.data());
        break;
    }
    char* row = base + y * out.y_stride * static_cast<int64_t>(element);
    if (interleaved) {
      k.columns(combined.data(), channels, ux.start.data(), ux.weights.data(), ux.n, out.width,
                line.data());
      StoreRun(k, out.type, line.data(), 1, line_length, affine ? scale_row.data() : nullptr,
               bias_row.data(), 1, row);
    } else if (planar) {
      k.columns_planar(combined.data(), channels, ux.start.data(), ux.weights.data(), ux.n,
                       out.width, line.data());
      for (int c = 0; c < channels; ++c) {
        StoreRun(k, out.type, line.data() + c * out.width, 1, out.width,
                 affine ? &out.scale[c] : nullptr, affine ? &out.bias[c] : nullptr, 0,
                 row + c * out.c_stride * static_cast<int64_t>(element));
      }
    } else {
      k.columns(combined.data(), channels, ux.start.data(), ux.weights.data(), ux.n, out.width,
                line.data());
      for (int64_t x = 0; x < out.width; ++x) {
        for (int c = 0; c < channels; ++c) {
          StoreRun(k, out.type, line.data() + x * channels + c, 1, 1,
                   affine ? &out.scale[c] : nullptr, affine ? &out.bias[c] : nullptr, 0,
                   row + (x * x_stride + c * out.c_stride) * static_cast<int64_t>(element));
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace image
}  // namespace swigflow
