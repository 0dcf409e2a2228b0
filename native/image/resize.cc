#include "swigflow/image/resize.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

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
  switch (isa) {
    case Isa::kScalar:
      return sse2::kResizeKernels;
    case Isa::kAvx2:
      return avx2::kResizeKernels;
    case Isa::kAvx512:
      return avx512::kResizeKernels;
  }
  return sse2::kResizeKernels;
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

namespace {

// Writes output rows from a line of floats, as OutputRef describes: HWC rows from an
// interleaved line (x * channels + c), CHW rows from a planar one (c * width + x), any other
// strides element by element. Mirrored output (negative x_stride) is written left to right, so
// the line must hold its outputs reversed (ReverseOutputs on the x taps).
class RowWriter {
 public:
  RowWriter(const OutputRef& out, int channels, const ResizeKernels& k)
      : out_(out), k_(k), channels_(channels), element_(ElementSize(out.type)) {
    base_ = static_cast<char*>(out.data);
    x_stride_ = out.x_stride;
    if (x_stride_ < 0) {
      base_ += (out.width - 1) * x_stride_ * static_cast<int64_t>(element_);
      x_stride_ = -x_stride_;
    }
    affine_ = !out.scale.empty();
    interleaved_ = x_stride_ == channels && out.c_stride == 1;
    planar_ = !interleaved_ && x_stride_ == 1;
    if (interleaved_ && affine_) {  // per element, so the store loop runs straight along the row
      const int64_t length = out.width * channels;
      scale_row_.resize(static_cast<size_t>(length));
      bias_row_.resize(static_cast<size_t>(length));
      for (int64_t i = 0; i < length; ++i) {
        scale_row_[i] = out.scale[i % channels];
        bias_row_[i] = out.bias[i % channels];
      }
    }
  }

  bool planar() const { return planar_; }
  bool mirrored() const { return out_.x_stride < 0; }
  // Row y when it takes interleaved bytes as they are (uint8, no scale), else null.
  uint8_t* BytesRow(int64_t y) const {
    if (!interleaved_ || affine_ || out_.type != SampleType::kUint8) return nullptr;
    return reinterpret_cast<uint8_t*>(base_) + y * out_.y_stride;
  }

  void Write(int64_t y, const float* line) const {
    char* row = base_ + y * out_.y_stride * static_cast<int64_t>(element_);
    const float* scale = out_.scale.data();
    const float* bias = out_.bias.data();
    if (interleaved_) {
      StoreRun(k_, out_.type, line, 1, out_.width * channels_,
               affine_ ? scale_row_.data() : nullptr, bias_row_.data(), 1, row);
    } else if (planar_) {
      for (int c = 0; c < channels_; ++c) {
        StoreRun(k_, out_.type, line + c * out_.width, 1, out_.width, affine_ ? scale + c : nullptr,
                 affine_ ? bias + c : nullptr, 0,
                 row + c * out_.c_stride * static_cast<int64_t>(element_));
      }
    } else {
      for (int64_t x = 0; x < out_.width; ++x) {
        for (int c = 0; c < channels_; ++c) {
          StoreRun(k_, out_.type, line + x * channels_ + c, 1, 1, affine_ ? scale + c : nullptr,
                   affine_ ? bias + c : nullptr, 0,
                   row + (x * x_stride_ + c * out_.c_stride) * static_cast<int64_t>(element_));
        }
      }
    }
  }

 private:
  const OutputRef& out_;
  const ResizeKernels& k_;
  const int channels_;
  const size_t element_;
  char* base_;
  int64_t x_stride_;
  bool affine_, interleaved_, planar_;
  // Reused between calls on a thread: the per-element scale and bias of an interleaved row.
  static thread_local std::vector<float> scale_row_, bias_row_;
};

thread_local std::vector<float> RowWriter::scale_row_, RowWriter::bias_row_;

Status CheckOutput(const OutputRef& out, int channels) {
  if (out.height <= 0 || out.width <= 0) {
    return errors::InvalidArgument("cannot resize to ", out.width, "x", out.height);
  }
  if (!out.scale.empty() &&
      (out.scale.size() != static_cast<size_t>(channels) || out.bias.size() != out.scale.size())) {
    return errors::InvalidArgument("scale and bias need one value per channel");
  }
  return Status::OK();
}

// Bilinear taps (TF2's half-pixel centres) of output samples [0, out_size) over `first` +
// [0, size) of the full-resolution axis, on a plane whose samples stand for `factor` pixels
// each, centred on them. Taps stay inside the plane samples the range touches (so a crop's edge
// does not read past it) and are relative to the first of those, *lo.
void PlaneTaps(int64_t first, int64_t size, int64_t out_size, int factor, int64_t plane_size,
               int64_t* lo, int64_t* count, UniformTaps* taps) {
  *lo = std::min(first / factor, plane_size - 1);
  const int64_t hi = std::clamp((first + size - 1) / factor, *lo, plane_size - 1);
  *count = hi - *lo + 1;
  const double scale = static_cast<double>(size) / static_cast<double>(out_size);
  Taps t;
  for (int64_t o = 0; o < out_size; ++o) {
    const double pixel = (static_cast<double>(o) + 0.5) * scale - 0.5 + static_cast<double>(first);
    const double pos = (pixel + 0.5) / factor - 0.5 - static_cast<double>(*lo);
    const double floor = std::floor(pos);
    const int64_t a = std::clamp<int64_t>(static_cast<int64_t>(floor), 0, *count - 1);
    const int64_t b = std::clamp<int64_t>(static_cast<int64_t>(floor) + 1, 0, *count - 1);
    const float lerp = static_cast<float>(pos - floor);
    if (b <= a) {
      const float w[1] = {1};
      Add(&t, a, w, 1);
    } else {
      const float w[2] = {1 - lerp, lerp};
      Add(&t, a, w, 2);
    }
  }
  *taps = Uniform(t, *count);
}

}  // namespace

Status Resize(const ImageRef& in, ResizeMethod method, bool antialias, const OutputRef& out) {
  if (in.channels <= 0 || in.height <= 0 || in.width <= 0 || out.height <= 0 || out.width <= 0) {
    return errors::InvalidArgument("cannot resize a ", in.width, "x", in.height, "x", in.channels,
                                   " image to ", out.width, "x", out.height);
  }
  SWIGFLOW_RETURN_IF_ERROR(CheckOutput(out, in.channels));
  Taps tx, ty;
  SWIGFLOW_RETURN_IF_ERROR(ComputeTaps(method, antialias, in.width, out.width, &tx));
  SWIGFLOW_RETURN_IF_ERROR(ComputeTaps(method, antialias, in.height, out.height, &ty));
  UniformTaps ux = Uniform(tx, in.width);
  const UniformTaps uy = Uniform(ty, in.height);
  const int channels = in.channels;
  const ResizeKernels& k = ResizeKernelsFor(SelectedIsa());
  const RowWriter writer(out, channels, k);
  if (writer.mirrored()) ReverseOutputs(&ux);
  // Vertically first (whole contiguous rows), then horizontally over output rows only.
  const int64_t row_length = in.width * channels;
  thread_local std::vector<float> combined, line;
  combined.resize(static_cast<size_t>(row_length + kResizeRowPadding));
  line.resize(static_cast<size_t>(out.width * channels + kResizeRowPadding));
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
    (writer.planar() ? k.columns_planar : k.columns)(combined.data(), channels, ux.start.data(),
                                                     ux.weights.data(), ux.n, out.width,
                                                     line.data());
    writer.Write(y, line.data());
  }
  return Status::OK();
}

namespace {

// UniformTaps with two taps per output, laid out for ResizeKernels::columns_grouped.
struct GroupedTaps {
  int per_group = 0;  // 0: the taps do not fit; use columns
  int64_t groups = 0;
  std::vector<int32_t> base, rel;
  std::vector<float> w0, w1;
};

// Groups `t` for kernels with `lanes` group lanes: the largest group size whose every group's
// taps lie within 2 * lanes samples of its first. Outputs past the last are padded with copies
// of it (the line written must have room for a whole last group).
GroupedTaps Group(const UniformTaps& t, int lanes) {
  GroupedTaps g;
  const int64_t outs = static_cast<int64_t>(t.start.size());
  if (lanes == 0 || t.n != 2 || outs == 0) return g;
  for (int per_group : {lanes, lanes / 2}) {
    if (per_group < 8) break;
    const int64_t groups = (outs + per_group - 1) / per_group;
    bool fits = true;
    g.base.assign(static_cast<size_t>(groups), 0);
    for (int64_t k = 0; k < groups && fits; ++k) {
      int64_t lo = INT64_MAX, hi = 0;
      for (int64_t o = k * per_group; o < (k + 1) * per_group; ++o) {
        const int64_t start = t.start[std::min(o, outs - 1)];
        lo = std::min(lo, start);
        hi = std::max(hi, start);
      }
      fits = hi + 1 - lo < 2 * lanes;
      g.base[k] = static_cast<int32_t>(lo);
    }
    if (!fits) continue;
    g.per_group = per_group;
    g.groups = groups;
    const int64_t padded = groups * per_group;
    g.rel.resize(static_cast<size_t>(padded));
    g.w0.resize(static_cast<size_t>(padded));
    g.w1.resize(static_cast<size_t>(padded));
    for (int64_t o = 0; o < padded; ++o) {
      const int64_t from = std::min(o, outs - 1);
      g.rel[o] = static_cast<int32_t>(t.start[from] - g.base[o / per_group]);
      g.w0[o] = t.weights[from * 2];
      g.w1[o] = t.weights[from * 2 + 1];
    }
    return g;
  }
  return GroupedTaps();
}

// ResizePlanes' taps for one geometry: every image of a batch has the same, so a thread keeps
// the last one.
struct PlanePlan {
  struct Key {
    int64_t wy, wx, wh, ww, oh, ow;
    int64_t plane[3][4];  // height, width, y_factor, x_factor
    int count;
    bool mirrored;
    int lanes;
    bool operator==(const Key& o) const { return std::memcmp(this, &o, sizeof(Key)) == 0; }
  };
  struct Pass {
    int64_t x0 = 0, columns = 0, y0 = 0;
    UniformTaps ux, uy;
    GroupedTaps grouped;
  };
  Key key;
  bool valid = false;
  Pass pass[3];
};

}  // namespace

Status ResizePlanes(const Plane* planes, int count, const Window& window, int channels,
                    const OutputRef& out) {
  if ((count != 1 && count != 3) || (channels != 1 && channels != 3)) {
    return errors::InvalidArgument("cannot convert ", count, " planes to ", channels, " channels");
  }
  if (window.height <= 0 || window.width <= 0 || window.y < 0 || window.x < 0) {
    return errors::InvalidArgument("empty or negative window");
  }
  SWIGFLOW_RETURN_IF_ERROR(CheckOutput(out, channels));
  if (channels == 1) count = 1;  // gray: Y alone
  for (int p = 0; p < count; ++p) {
    const Plane& plane = planes[p];
    if (plane.height <= 0 || plane.width <= 0 || plane.x_factor <= 0 || plane.y_factor <= 0 ||
        window.y / plane.y_factor >= plane.height || window.x / plane.x_factor >= plane.width) {
      return errors::InvalidArgument("the window is not inside plane ", p);
    }
  }
  const ResizeKernels& k = ResizeKernelsFor(SelectedIsa());
  const RowWriter writer(out, channels, k);
  PlanePlan::Key key;
  std::memset(&key, 0, sizeof(key));  // the padding too: keys compare as bytes
  key.wy = window.y;
  key.wx = window.x;
  key.wh = window.height;
  key.ww = window.width;
  key.oh = out.height;
  key.ow = out.width;
  for (int p = 0; p < count; ++p) {
    key.plane[p][0] = planes[p].height;
    key.plane[p][1] = planes[p].width;
    key.plane[p][2] = planes[p].y_factor;
    key.plane[p][3] = planes[p].x_factor;
  }
  key.count = count;
  key.mirrored = writer.mirrored();
  key.lanes = k.group_lanes;
  thread_local PlanePlan plan;
  if (!plan.valid || !(plan.key == key)) {
    plan.valid = false;
    for (int p = 0; p < count; ++p) {
      PlanePlan::Pass& s = plan.pass[p];
      int64_t rows;
      PlaneTaps(window.x, window.width, out.width, planes[p].x_factor, planes[p].width, &s.x0,
                &s.columns, &s.ux);
      PlaneTaps(window.y, window.height, out.height, planes[p].y_factor, planes[p].height, &s.y0,
                &rows, &s.uy);
      if (key.mirrored) ReverseOutputs(&s.ux);
      s.grouped = Group(s.ux, k.group_lanes);
    }
    plan.key = key;
    plan.valid = true;
  }
  // Room past each row for a grouped pass's whole last window and group.
  const int64_t slack = std::max<int64_t>(kResizeRowPadding, 2 * k.group_lanes);
  thread_local std::vector<float> combined, values, line;
  int64_t widest = 0;
  for (int p = 0; p < count; ++p) widest = std::max(widest, plan.pass[p].columns);
  combined.resize(static_cast<size_t>(widest + slack));
  const int64_t value_stride = out.width + slack;
  values.resize(static_cast<size_t>(3 * value_stride));
  line.resize(static_cast<size_t>(3 * out.width + kResizeRowPadding));
  for (int64_t y = 0; y < out.height; ++y) {
    for (int p = 0; p < count; ++p) {
      const Plane& plane = planes[p];
      const PlanePlan::Pass& s = plan.pass[p];
      const uint8_t* first = plane.data + (s.y0 + s.uy.start[y]) * plane.row_stride + s.x0;
      float* v = values.data() + p * value_stride;
      k.rows_u8(first, plane.row_stride, s.columns, s.uy.weights.data() + y * s.uy.n, s.uy.n,
                combined.data());
      const GroupedTaps& g = s.grouped;
      if (g.per_group > 0) {
        k.columns_grouped(combined.data(), g.per_group, g.base.data(), g.rel.data(), g.w0.data(),
                          g.w1.data(), g.groups, v);
      } else {
        k.columns(combined.data(), 1, s.ux.start.data(), s.ux.weights.data(), s.ux.n, out.width, v);
      }
    }
    const float* y_values = values.data();
    if (channels == 1) {
      writer.Write(y, y_values);
    } else if (uint8_t* bytes = count == 3 && k.to_rgb_u8 ? writer.BytesRow(y) : nullptr) {
      k.to_rgb_u8(y_values, y_values + value_stride, y_values + 2 * value_stride, out.width, bytes);
    } else {
      const bool ycc = count == 3;
      k.to_rgb(y_values, ycc ? y_values + value_stride : nullptr,
               ycc ? y_values + 2 * value_stride : nullptr, out.width, writer.planar(),
               line.data());
      writer.Write(y, line.data());
    }
  }
  return Status::OK();
}

bool ResizePlanesVectorized() { return ResizeKernelsFor(SelectedIsa()).group_lanes > 0; }

}  // namespace image
}  // namespace swigflow
