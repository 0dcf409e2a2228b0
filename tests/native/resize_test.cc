#include "swigflow/image/resize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/image/resize_kernels.h"

namespace swigflow {
namespace image {
namespace {

// The separable definition in float64: out(y, x, c) = sum_i sum_j wy[y][i] wx[x][j] in(i, j, c)
// with the taps ComputeTaps gives (TF's, checked against TensorFlow by test_image_golden.py).
std::vector<double> Reference(const std::vector<double>& in, int64_t h, int64_t w, int channels,
                              int64_t oh, int64_t ow, ResizeMethod method, bool antialias) {
  Taps ty, tx;
  EXPECT_TRUE(ComputeTaps(method, antialias, h, oh, &ty).ok());
  EXPECT_TRUE(ComputeTaps(method, antialias, w, ow, &tx).ok());
  std::vector<double> out(static_cast<size_t>(oh * ow * channels), 0.0);
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      for (int c = 0; c < channels; ++c) {
        double acc = 0;
        for (int i = 0; i < ty.count[y]; ++i) {
          for (int j = 0; j < tx.count[x]; ++j) {
            acc += static_cast<double>(ty.weights[ty.offset[y] + i]) *
                   tx.weights[tx.offset[x] + j] *
                   in[((ty.start[y] + i) * w + tx.start[x] + j) * channels + c];
          }
        }
        out[(y * ow + x) * channels + c] = acc;
      }
    }
  }
  return out;
}

enum class Layout { kHwc, kChw, kHwcFlipped, kStrided };

struct Case {
  int64_t h, w, oh, ow;
  int channels;
  ResizeMethod method;
  bool antialias;
  SampleType in_type, out_type;
  Layout layout;
  bool affine;
};

void RunCase(const Case& k, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << k.h << "x" << k.w << "x" << k.channels << " -> " << k.oh << "x"
                                  << k.ow << " method " << static_cast<int>(k.method)
                                  << " antialias " << k.antialias << " in "
                                  << static_cast<int>(k.in_type) << " out "
                                  << static_cast<int>(k.out_type) << " layout "
                                  << static_cast<int>(k.layout) << " affine " << k.affine);
  std::mt19937 rng(seed);
  const int64_t pad = 5;  // row stride beyond the width
  const int64_t stride = k.w * k.channels + pad;
  std::vector<double> values(static_cast<size_t>(k.h * k.w * k.channels));
  std::vector<uint8_t> u8(static_cast<size_t>(k.h * stride));
  std::vector<uint16_t> u16(u8.size());
  std::vector<float> f32(u8.size());
  for (int64_t y = 0; y < k.h; ++y) {
    for (int64_t i = 0; i < k.w * k.channels; ++i) {
      double v;
      if (k.in_type == SampleType::kFloat32) {
        v = std::uniform_real_distribution<float>(-2.0f, 300.0f)(rng);
      } else {
        v = static_cast<double>(rng() % (k.in_type == SampleType::kUint8 ? 256 : 65536));
      }
      values[y * k.w * k.channels + i] = v;
      u8[y * stride + i] = static_cast<uint8_t>(v);
      u16[y * stride + i] = static_cast<uint16_t>(v);
      f32[y * stride + i] = static_cast<float>(v);
    }
  }
  ImageRef in;
  in.type = k.in_type;
  in.data = k.in_type == SampleType::kUint8    ? static_cast<const void*>(u8.data())
            : k.in_type == SampleType::kUint16 ? static_cast<const void*>(u16.data())
                                               : static_cast<const void*>(f32.data());
  in.height = k.h;
  in.width = k.w;
  in.row_stride = stride;
  in.channels = k.channels;

  const int64_t n = k.oh * k.ow * k.channels;
  const int64_t x_step = k.layout == Layout::kStrided ? k.channels + 2 : k.channels;
  const int64_t size = k.layout == Layout::kStrided ? k.oh * k.ow * x_step + 8 : n;
  std::vector<float> out_f(static_cast<size_t>(size), -7.0f);
  std::vector<uint8_t> out_u8(out_f.size(), 7);
  std::vector<uint16_t> out_u16(out_f.size(), 7);
  OutputRef out;
  out.type = k.out_type;
  out.height = k.oh;
  out.width = k.ow;
  const size_t element = k.out_type == SampleType::kUint8    ? 1
                         : k.out_type == SampleType::kUint16 ? 2
                                                             : 4;
  char* data = k.out_type == SampleType::kUint8    ? reinterpret_cast<char*>(out_u8.data())
               : k.out_type == SampleType::kUint16 ? reinterpret_cast<char*>(out_u16.data())
                                                   : reinterpret_cast<char*>(out_f.data());
  // Where (y, x, c) lands, as an element index.
  auto index = [&](int64_t y, int64_t x, int c) -> int64_t {
    switch (k.layout) {
      case Layout::kHwc:
        return (y * k.ow + x) * k.channels + c;
      case Layout::kChw:
        return (c * k.oh + y) * k.ow + x;
      case Layout::kHwcFlipped:
        return (y * k.ow + (k.ow - 1 - x)) * k.channels + c;
      case Layout::kStrided:
        return (y * k.ow + x) * x_step + c;
    }
    return 0;
  };
  switch (k.layout) {
    case Layout::kHwc:
      out.y_stride = k.ow * k.channels, out.x_stride = k.channels, out.c_stride = 1;
      break;
    case Layout::kChw:
      out.y_stride = k.ow, out.x_stride = 1, out.c_stride = k.oh * k.ow;
      break;
    case Layout::kHwcFlipped:
      out.y_stride = k.ow * k.channels, out.x_stride = -k.channels, out.c_stride = 1;
      break;
    case Layout::kStrided:
      out.y_stride = k.ow * x_step, out.x_stride = x_step, out.c_stride = 1;
      break;
  }
  out.data = data + index(0, 0, 0) * static_cast<int64_t>(element);
  std::vector<double> scale(k.channels, 1.0), bias(k.channels, 0.0);
  if (k.affine) {
    for (int c = 0; c < k.channels; ++c) {
      scale[c] = 0.5 + 0.25 * c;
      bias[c] = -3.0 + c;
      out.scale.push_back(static_cast<float>(scale[c]));
      out.bias.push_back(static_cast<float>(bias[c]));
    }
  }
  ASSERT_TRUE(Resize(in, k.method, k.antialias, out).ok());

  const std::vector<double> ref =
      Reference(values, k.h, k.w, k.channels, k.oh, k.ow, k.method, k.antialias);
  const double max = k.out_type == SampleType::kUint8 ? 255 : 65535;
  for (int64_t y = 0; y < k.oh; ++y) {
    for (int64_t x = 0; x < k.ow; ++x) {
      for (int c = 0; c < k.channels; ++c) {
        const double r = ref[(y * k.ow + x) * k.channels + c] * scale[c] + bias[c];
        const int64_t i = index(y, x, c);
        if (k.out_type == SampleType::kFloat32) {
          ASSERT_NEAR(out_f[i], r, 1e-4 * (1 + std::fabs(r))) << y << "," << x << "," << c;
        } else {
          const double got = k.out_type == SampleType::kUint8 ? out_u8[i] : out_u16[i];
          const double want = std::floor(std::min(std::max(r, 0.0), max) + 0.5);
          // Float32 rounding may move a value within 1e-3 of a half to the other side.
          const bool near_half = std::fabs(r - std::floor(r) - 0.5) < 1e-3 * (1 + std::fabs(r));
          ASSERT_LE(std::fabs(got - want), near_half ? 1 : 0) << y << "," << x << "," << c;
        }
      }
    }
  }
  if (k.layout == Layout::kStrided) {  // the gaps between pixels are untouched
    for (int64_t p = 0; p < k.oh * k.ow; ++p) {
      for (int64_t g = k.channels; g < x_step; ++g) {
        const int64_t i = p * x_step + g;
        ASSERT_TRUE(k.out_type == SampleType::kFloat32 ? out_f[i] == -7.0f
                    : k.out_type == SampleType::kUint8 ? out_u8[i] == 7
                                                       : out_u16[i] == 7);
      }
    }
  }
}

TEST(Resize, MatchesTheFloat64DefinitionInEveryLayoutAndType) {
  const ResizeMethod methods[] = {ResizeMethod::kBilinear,     ResizeMethod::kBicubic,
                                  ResizeMethod::kArea,         ResizeMethod::kLanczos3,
                                  ResizeMethod::kLanczos5,     ResizeMethod::kGaussian,
                                  ResizeMethod::kMitchellCubic};
  const int64_t sizes[][4] = {{37, 50, 17, 23}, {13, 9, 31, 40}, {1, 19, 3, 5}, {24, 24, 24, 24}};
  uint32_t seed = 1;
  for (const auto& s : sizes) {
    for (ResizeMethod method : methods) {
      for (bool antialias : {false, true}) {
        for (int channels : {1, 3, 4}) {
          for (Layout layout :
               {Layout::kHwc, Layout::kChw, Layout::kHwcFlipped, Layout::kStrided}) {
            for (SampleType out_type :
                 {SampleType::kUint8, SampleType::kUint16, SampleType::kFloat32}) {
              const SampleType in_type = static_cast<SampleType>(seed % 3);
              const bool affine = out_type == SampleType::kFloat32 ? (seed % 2) == 0 : false;
              RunCase(Case{s[0], s[1], s[2], s[3], channels, method, antialias, in_type, out_type,
                           layout, affine},
                      seed++);
              if (HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

TEST(Resize, SaturatesAndRoundsHalfUp) {
  // 1x2 -> 1x1 bilinear averages the two pixels: halves round up, the range saturates.
  const float pixels[][2] = {{0, 1}, {2, 3}, {254, 255}, {-50, -10}, {300, 900}, {10.25f, 10.25f}};
  const int expected[] = {1, 3, 255, 0, 255, 10};
  for (int i = 0; i < 6; ++i) {
    ImageRef in;
    in.type = SampleType::kFloat32;
    in.data = pixels[i];
    in.height = 1;
    in.width = 2;
    in.row_stride = 2;
    in.channels = 1;
    uint8_t got = 0;
    OutputRef out;
    out.type = SampleType::kUint8;
    out.data = &got;
    out.height = out.width = 1;
    out.y_stride = out.x_stride = 1;
    ASSERT_TRUE(Resize(in, ResizeMethod::kArea, false, out).ok());
    EXPECT_EQ(got, expected[i]) << pixels[i][0] << ", " << pixels[i][1];
  }
}

// The builds of the loops give the same bits (no FMA contraction, the same order of additions),
// so results never depend on the machine.
void ExpectSameBits(const ResizeKernels& a, const ResizeKernels& b) {
  std::mt19937 rng(3);
  for (int64_t length : {1, 7, 16, 33, 100, 1500}) {
    for (int n = 1; n <= 6; ++n) {
      std::vector<uint8_t> u8(length * n);
      std::vector<uint16_t> u16(length * n);
      std::vector<float> f32(length * n), w(n);
      for (auto& v : u8) v = static_cast<uint8_t>(rng());
      for (auto& v : u16) v = static_cast<uint16_t>(rng());
      for (auto& v : f32) v = std::uniform_real_distribution<float>(-10, 300)(rng);
      for (auto& v : w) v = std::uniform_real_distribution<float>(-0.3f, 1)(rng);
      std::vector<float> ra(length), rb(length);
      a.rows_u8(u8.data(), length, length, w.data(), n, ra.data());
      b.rows_u8(u8.data(), length, length, w.data(), n, rb.data());
      ASSERT_EQ(0, std::memcmp(ra.data(), rb.data(), length * 4)) << length << " " << n;
      a.rows_u16(u16.data(), length, length, w.data(), n, ra.data());
      b.rows_u16(u16.data(), length, length, w.data(), n, rb.data());
      ASSERT_EQ(0, std::memcmp(ra.data(), rb.data(), length * 4)) << length << " " << n;
      a.rows_f32(f32.data(), length, length, w.data(), n, ra.data());
      b.rows_f32(f32.data(), length, length, w.data(), n, rb.data());
      ASSERT_EQ(0, std::memcmp(ra.data(), rb.data(), length * 4)) << length << " " << n;

      for (int channels : {1, 3, 4}) {
        const int64_t in_w = length + n, out_w = length;
        std::vector<float> row(in_w * channels + kResizeRowPadding);
        for (auto& v : row) v = std::uniform_real_distribution<float>(-10, 300)(rng);
        std::vector<int64_t> start(out_w);
        std::vector<float> weights(out_w * n);
        for (int64_t o = 0; o < out_w; ++o) start[o] = static_cast<int64_t>(rng() % (length + 1));
        for (auto& v : weights) v = std::uniform_real_distribution<float>(-0.3f, 1)(rng);
        for (auto columns : {&ResizeKernels::columns, &ResizeKernels::columns_planar}) {
          std::vector<float> ca(out_w * channels + kResizeRowPadding),
              cb(out_w * channels + kResizeRowPadding);
          (a.*columns)(row.data(), channels, start.data(), weights.data(), n, out_w, ca.data());
          (b.*columns)(row.data(), channels, start.data(), weights.data(), n, out_w, cb.data());
          ASSERT_EQ(0, std::memcmp(ca.data(), cb.data(), out_w * channels * 4));
        }
      }
      std::vector<float> v(length), scale(length), bias(length);
      for (auto& x : v) x = std::uniform_real_distribution<float>(-20, 280)(rng);
      for (auto& x : scale) x = std::uniform_real_distribution<float>(0.1f, 2)(rng);
      for (auto& x : bias) x = std::uniform_real_distribution<float>(-5, 5)(rng);
      for (int64_t sb : {0, 1}) {
        for (const float* s :
             {static_cast<const float*>(nullptr), static_cast<const float*>(scale.data())}) {
          std::vector<uint8_t> ua(length), ub(length);
          a.store_u8(v.data(), 1, length, s, bias.data(), sb, ua.data());
          b.store_u8(v.data(), 1, length, s, bias.data(), sb, ub.data());
          ASSERT_EQ(ua, ub);
          std::vector<float> fa(length), fb(length);
          a.store_f32(v.data(), 1, length, s, bias.data(), sb, fa.data());
          b.store_f32(v.data(), 1, length, s, bias.data(), sb, fb.data());
          ASSERT_EQ(0, std::memcmp(fa.data(), fb.data(), length * 4));
        }
      }
      std::vector<float> y(length), cb(length), cr(length);
      for (auto* p : {&y, &cb, &cr}) {
        for (auto& x : *p) x = std::uniform_real_distribution<float>(0, 255)(rng);
      }
      const float* chromas[] = {nullptr, cb.data()};
      for (bool planar : {false, true}) {
        for (const float* chroma : chromas) {
          std::vector<float> ra(3 * length), rb(3 * length);
          a.to_rgb(y.data(), chroma, chroma ? cr.data() : nullptr, length, planar, ra.data());
          b.to_rgb(y.data(), chroma, chroma ? cr.data() : nullptr, length, planar, rb.data());
          ASSERT_EQ(0, std::memcmp(ra.data(), rb.data(), length * 12));
        }
      }
    }
  }
}

// to_rgb_u8 is to_rgb then store_u8, and columns_grouped is columns, in the build that has them.
void ExpectFusedLoopsAgree(const ResizeKernels& k) {
  std::mt19937 rng(5);
  for (int64_t n : {1, 2, 9, 10, 11, 16, 17, 224, 225}) {
    std::vector<float> y(n), cb(n), cr(n);
    for (auto* p : {&y, &cb, &cr}) {
      // Past [0, 255] after conversion too, where the stores saturate.
      for (auto& x : *p) x = std::uniform_real_distribution<float>(-20, 275)(rng);
    }
    std::vector<float> rgb(3 * n);
    k.to_rgb(y.data(), cb.data(), cr.data(), n, false, rgb.data());
    std::vector<uint8_t> want(3 * n), got(3 * n + 1, 0xAB);
    k.store_u8(rgb.data(), 1, 3 * n, nullptr, nullptr, 0, want.data());
    if (k.to_rgb_u8 != nullptr) {
      k.to_rgb_u8(y.data(), cb.data(), cr.data(), n, got.data());
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), 3 * n)) << n;
      ASSERT_EQ(got[3 * n], 0xAB) << "wrote past the row, n " << n;
    }
  }
  if (k.group_lanes == 0) return;
  for (int per_group : {k.group_lanes, k.group_lanes / 2}) {
    if (per_group < 8) continue;
    for (int64_t groups : {1, 3, 14}) {
      const int64_t outs = groups * per_group, in = groups * 2 * k.group_lanes + 2;
      std::vector<float> row(in + 2 * k.group_lanes), w0(outs), w1(outs), weights(2 * outs);
      for (auto& v : row) v = std::uniform_real_distribution<float>(-10, 300)(rng);
      std::vector<int32_t> base(groups), rel(outs);
      std::vector<int64_t> start(outs);
      for (int64_t g = 0; g < groups; ++g) {
        base[g] = static_cast<int32_t>(rng() % (in - 2 * k.group_lanes));
        for (int64_t o = g * per_group; o < (g + 1) * per_group; ++o) {
          rel[o] = static_cast<int32_t>(rng() % (2 * k.group_lanes - 1));
          start[o] = base[g] + rel[o];
          w0[o] = weights[2 * o] = std::uniform_real_distribution<float>(0, 1)(rng);
          w1[o] = weights[2 * o + 1] = 1 - w0[o];
        }
      }
      std::vector<float> a(outs), b(outs);
      k.columns(row.data(), 1, start.data(), weights.data(), 2, outs, a.data());
      k.columns_grouped(row.data(), per_group, base.data(), rel.data(), w0.data(), w1.data(),
                        groups, b.data());
      ASSERT_EQ(0, std::memcmp(a.data(), b.data(), outs * 4)) << per_group << " " << groups;
    }
  }
}

TEST(ResizeKernels, SameBitsOnEveryInstructionSet) {
  ExpectFusedLoopsAgree(sse2::kResizeKernels);
  if (!GetCpuFeatures().avx2) GTEST_SKIP() << "no AVX2 on this machine";
  ExpectSameBits(sse2::kResizeKernels, avx2::kResizeKernels);
  ExpectFusedLoopsAgree(avx2::kResizeKernels);
  if (!GetCpuFeatures().avx512) GTEST_SKIP() << "no AVX-512 on this machine";
  ExpectSameBits(sse2::kResizeKernels, avx512::kResizeKernels);
  ExpectFusedLoopsAgree(avx512::kResizeKernels);
}

}  // namespace
}  // namespace image
}  // namespace swigflow
