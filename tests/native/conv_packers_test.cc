// The tap maps and the packers built on them, against brute force: the forward and gradient maps
// must be exact inverses, and every packed sliver must match an im2col matrix formed naively.
#include "swigflow/kernels/nn/conv_packers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "swigflow/kernels/nn/conv_geometry.h"
#include "swigflow/kernels/nn/window_geometry.h"

namespace swigflow {
namespace kernels {
namespace {

struct Case {
  int64_t batch, in_h, in_w, in_c, k_h, k_w, out_c, stride_h, stride_w, dil_h, dil_w;
  const char* padding;
};

ConvGeometry GeometryOf(const Case& c) {
  ConvGeometry g{c.batch, c.in_h,     c.in_w,     c.in_c,  c.k_h,   c.k_w, c.out_c, 0,
                 0,       c.stride_h, c.stride_w, c.dil_h, c.dil_w, 0,     0,       1};
  EXPECT_TRUE(
      WindowedOutputSize(g.in_h, g.k_h, g.dil_h, g.stride_h, c.padding, 0, 0, &g.out_h, &g.pad_top)
          .ok());
  EXPECT_TRUE(
      WindowedOutputSize(g.in_w, g.k_w, g.dil_w, g.stride_w, c.padding, 0, 0, &g.out_w, &g.pad_left)
          .ok());
  return g;
}

// RGB stems (whole-row runs), strides with gaps, dilations, SAME and VALID, odd sizes.
const Case kCases[] = {
    {2, 9, 11, 3, 7, 7, 5, 2, 2, 1, 1, "SAME"},  {1, 8, 8, 4, 3, 3, 6, 1, 1, 1, 1, "SAME"},
    {2, 10, 7, 5, 3, 2, 3, 3, 2, 1, 1, "VALID"}, {1, 12, 13, 2, 3, 3, 4, 1, 2, 2, 3, "SAME"},
    {1, 6, 9, 17, 2, 3, 2, 2, 3, 2, 1, "VALID"}, {3, 5, 5, 1, 5, 5, 1, 4, 4, 1, 1, "SAME"},
    {1, 4, 4, 3, 1, 1, 2, 1, 1, 1, 1, "VALID"},  {1, 3, 8, 2, 1, 4, 2, 1, 1, 1, 2, "SAME"},
};

TEST(TapMapTest, WindowAndGradientAreInverse) {
  for (const Case& c : kCases) {
    const ConvGeometry g = GeometryOf(c);
    const TapMap w = TapMap::Window(g), d = TapMap::Gradient(g);
    const struct {
      TapAxis fwd, back;
      int64_t taps;
    } axes[] = {{w.y, d.y, g.k_h}, {w.x, d.x, g.k_w}};
    for (const auto& axis : axes) {
      for (int64_t k = 0; k < axis.taps; ++k) {
        for (int64_t o = 0; o < axis.back.size; ++o) {  // every output coordinate
          const int64_t s = axis.fwd.At(o, k);
          if (s >= 0) {
            EXPECT_EQ(axis.back.At(s, k), o);
          }
        }
        for (int64_t s = 0; s < axis.fwd.size; ++s) {  // every input coordinate
          const int64_t o = axis.back.At(s, k);
          if (o >= 0) {
            EXPECT_EQ(axis.fwd.At(o, k), s);
          }
        }
      }
    }
  }
}

// Calls visit(n, oy, ox, ky, kx, iy, ix) for every tap that lands inside the input: brute force
// over the convolution's sums, with none of the packers' index arithmetic.
template <typename Visit>
void ForEachTap(const ConvGeometry& g, Visit visit) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int64_t ky = 0; ky < g.k_h; ++ky)
          for (int64_t kx = 0; kx < g.k_w; ++kx) {
            const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dil_h;
            const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dil_w;
            if (iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w) visit(n, oy, ox, ky, kx, iy, ix);
          }
}

// The forward operand as a dense [output pixel, (ky, kx, c)] matrix.
std::vector<float> NaiveWindows(const ConvGeometry& g, const std::vector<float>& x) {
  const int64_t cols = g.k_h * g.k_w * g.in_c;
  std::vector<float> a(static_cast<size_t>(g.batch * g.out_h * g.out_w * cols), 0.0f);
  ForEachTap(
      g, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
        const int64_t row = (n * g.out_h + oy) * g.out_w + ox;
        for (int64_t c = 0; c < g.in_c; ++c) {
          a[static_cast<size_t>(row * cols + (ky * g.k_w + kx) * g.in_c + c)] =
              x[static_cast<size_t>(((n * g.in_h + iy) * g.in_w + ix) * g.in_c + c)];
        }
      });
  return a;
}

// [input pixel, (ky, kx, oc)]: dy at the output pixel whose window put tap (ky, kx) there.
std::vector<float> NaiveGradients(const ConvGeometry& g, const std::vector<float>& dy) {
  const int64_t cols = g.k_h * g.k_w * g.out_c;
  std::vector<float> a(static_cast<size_t>(g.batch * g.in_h * g.in_w * cols), 0.0f);
  ForEachTap(
      g, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
        const int64_t row = (n * g.in_h + iy) * g.in_w + ix;
        for (int64_t oc = 0; oc < g.out_c; ++oc) {
          a[static_cast<size_t>(row * cols + (ky * g.k_w + kx) * g.out_c + oc)] =
              dy[static_cast<size_t>(((n * g.out_h + oy) * g.out_w + ox) * g.out_c + oc)];
        }
      });
  return a;
}

// Packs every block of an odd blocking and checks each sliver against `dense` ([rows, cols],
// transposed first when `transposed`), including the zeros past the last row.
void ExpectPacks(const PackedSource& source, const std::vector<float>& dense, int64_t rows,
                 int64_t cols, bool transposed) {
  const int64_t m = transposed ? cols : rows, k = transposed ? rows : cols;
  auto at = [&](int64_t i, int64_t p) {
    return transposed ? dense[static_cast<size_t>(p * cols + i)]
                      : dense[static_cast<size_t>(i * cols + p)];
  };
  for (int mr : {1, 6, 16}) {
    const int64_t mc = 2 * mr + 3, kc = 5;  // blocks that straddle taps and channel runs
    for (int64_t i0 = 0; i0 < m; i0 += mc) {
      for (int64_t p0 = 0; p0 < k; p0 += kc) {
        const int64_t mc_here = std::min(mc, m - i0), kc_here = std::min(kc, k - p0);
        const int64_t slivers = (mc_here + mr - 1) / mr;
        std::vector<float> packed(static_cast<size_t>(slivers * kc_here * mr), -1.0f);
        source.Pack(i0, p0, mc_here, kc_here, mr, packed.data());
        for (int64_t s = 0; s < slivers; ++s)
          for (int64_t p = 0; p < kc_here; ++p)
            for (int r = 0; r < mr; ++r) {
              const int64_t i = i0 + s * mr + r;
              const float want = i < i0 + mc_here ? at(i, p0 + p) : 0.0f;
              ASSERT_EQ(packed[static_cast<size_t>((s * kc_here + p) * mr + r)], want)
                  << "row " << i << " col " << p0 + p << " mr " << mr;
            }
      }
    }
  }
}

std::vector<float> Random(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(size));
  for (float& f : v) f = value(rng);
  return v;
}

TEST(TapRowsTest, WindowsMatchIm2col) {
  for (const Case& c : kCases) {
    const ConvGeometry g = GeometryOf(c);
    const std::vector<float> x = Random(g.batch * g.in_h * g.in_w * g.in_c, 1);
    ExpectPacks(TapRows(TapMap::Window(g), x.data()), NaiveWindows(g, x),
                g.batch * g.out_h * g.out_w, g.k_h * g.k_w * g.in_c, false);
  }
}

TEST(TapRowsTest, GradientsMatchBruteForce) {
  for (const Case& c : kCases) {
    const ConvGeometry g = GeometryOf(c);
    const std::vector<float> dy = Random(g.batch * g.out_h * g.out_w * g.out_c, 2);
    ExpectPacks(TapRows(TapMap::Gradient(g), dy.data()), NaiveGradients(g, dy),
                g.batch * g.in_h * g.in_w, g.k_h * g.k_w * g.out_c, false);
  }
}

TEST(TapColumnsTest, IsTheTransposeOfTheWindows) {
  for (const Case& c : kCases) {
    const ConvGeometry g = GeometryOf(c);
    const std::vector<float> x = Random(g.batch * g.in_h * g.in_w * g.in_c, 3);
    ExpectPacks(TapColumns(TapMap::Window(g), x.data()), NaiveWindows(g, x),
                g.batch * g.out_h * g.out_w, g.k_h * g.k_w * g.in_c, true);
  }
}

}  // namespace
}  // namespace kernels
}  // namespace swigflow
