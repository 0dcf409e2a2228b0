#include "swigflow/kernels/nn/conv_packers.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace swigflow {
namespace kernels {

void TapRows::Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const {
  const TapMap m = map_;  // a local copy: the compiler keeps its fields in registers
  const int64_t pixels = m.rows_h * m.rows_w, c_n = m.channels;
  // Undilated forward taps of one filter row that all lie inside the source are one contiguous
  // run of k_w * C values: few channels (the RGB stem) would otherwise give runs of 3.
  const bool rows_contiguous = m.x.tap_step == 1 && m.x.divisor == 1;
  for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
    for (int r = 0; r < rows; ++r) {
      const int64_t row = i0 + s * mr + r;
      const int64_t n = row / pixels, y = row % pixels / m.rows_w, x = row % m.rows_w;
      const float* image = src_ + n * m.source_pixels() * c_n;
      const bool whole_row = rows_contiguous && m.x.At(x, 0) >= 0 && m.x.At(x, m.k_w - 1) >= 0;
      int64_t c = p0 % c_n, kx = p0 / c_n % m.k_w, ky = p0 / c_n / m.k_w;
      for (int64_t q = 0; q < kc;) {
        const int64_t span = whole_row ? (m.k_w - kx) * c_n - c : c_n - c;
        const int64_t run = std::min(span, kc - q);
        const int64_t sy = m.y.At(y, ky), sx = m.x.At(x, kx);
        float* d = dst + q * mr + r;
        if (sy >= 0 && sx >= 0) {
          const float* from = image + (sy * m.x.size + sx) * c_n + c;
          for (int64_t t = 0; t < run; ++t) d[t * mr] = from[t];
        } else {
          for (int64_t t = 0; t < run; ++t) d[t * mr] = 0.0f;
        }
        q += run;
        // Advance (ky, kx, c) by `run` values.
        const int64_t pos = kx * c_n + c + run;
        kx = pos / c_n;
        c = pos % c_n;
        if (kx >= m.k_w) {
          kx = 0;
          c = 0;
          ++ky;
        }
      }
    }
    for (int r = rows; r < mr; ++r) {
      for (int64_t q = 0; q < kc; ++q) dst[q * mr + r] = 0.0f;
    }
  }
}

// A sliver's rows are a few runs of channels of one tap each, the same for every pixel, so they
// are worked out once per sliver; each pixel's window origin once per block.
void TapColumns::Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const {
  const TapMap m = map_;  // a local copy: the compiler keeps its fields in registers
  const int64_t pixels = m.rows_h * m.rows_w, c_n = m.channels;
  struct Origin {
    const float* image;
    int64_t y, x;  // the pixel's numerators, y * scale + offset
  };
  std::vector<Origin> origins(static_cast<size_t>(kc));
  for (int64_t q = 0; q < kc; ++q) {
    const int64_t pixel = p0 + q;
    const int64_t n = pixel / pixels, y = pixel % pixels / m.rows_w, x = pixel % m.rows_w;
    origins[static_cast<size_t>(q)] = {src_ + n * m.source_pixels() * c_n,
                                       y * m.y.scale + m.y.offset, x * m.x.scale + m.x.offset};
  }
  struct Run {
    int r, length;
    int64_t dy, dx, c;  // the tap's share of the numerators, and the first channel
  };
  std::vector<Run> runs;
  for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
    const int64_t first = i0 + s * mr;
    runs.clear();
    int64_t c = first % c_n, kx = first / c_n % m.k_w, ky = first / c_n / m.k_w;
    for (int r = 0; r < rows;) {
      const int length = static_cast<int>(std::min<int64_t>(c_n - c, rows - r));
      runs.push_back({r, length, ky * m.y.tap_step, kx * m.x.tap_step, c});
      r += length;
      c = 0;
      if (++kx == m.k_w) {
        kx = 0;
        ++ky;
      }
    }
    for (int64_t q = 0; q < kc; ++q) {
      const Origin& o = origins[static_cast<size_t>(q)];
      float* d = dst + q * mr;
      for (const Run& run : runs) {
        const int64_t sy = m.y.Resolve(o.y + run.dy), sx = m.x.Resolve(o.x + run.dx);
        if (sy >= 0 && sx >= 0) {
          const float* from = o.image + (sy * m.x.size + sx) * c_n + run.c;
          for (int t = 0; t < run.length; ++t) d[run.r + t] = from[t];
        } else {
          for (int t = 0; t < run.length; ++t) d[run.r + t] = 0.0f;
        }
      }
      for (int r = rows; r < mr; ++r) d[r] = 0.0f;
    }
  }
}

}  // namespace kernels
}  // namespace swigflow
