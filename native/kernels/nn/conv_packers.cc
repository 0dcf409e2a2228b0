#include "swigflow/kernels/nn/conv_packers.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// dst[0, n) = src[0, n) for the short runs of a sliver (n <= 16 floats, a tile's height), with
// fixed-size copies the compiler inlines (a library memcpy call costs more than the copy):
// two overlapping ones cover every length in their range.
inline void CopyRun(float* dst, const float* src, int n) {
  if (n >= 8 && n <= 16) {
    std::memcpy(dst, src, 8 * sizeof(float));
    std::memcpy(dst + n - 8, src + n - 8, 8 * sizeof(float));
  } else if (n >= 4 && n < 8) {
    std::memcpy(dst, src, 4 * sizeof(float));
    std::memcpy(dst + n - 4, src + n - 4, 4 * sizeof(float));
  } else if (n < 4) {
    for (int t = 0; t < n; ++t) dst[t] = src[t];
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
  }
}

// A sliver's rows are a few runs of (tap, channel) values, the same for every pixel, so they are
// worked out once per sliver; each pixel's window origin once per block. Undilated forward taps
// of one filter row are adjacent source pixels, so a run goes on across them (the RGB stem's
// 14-row slivers are one or two runs, not five of 3 channels); a pixel whose run reaches past the
// source's edge takes it tap by tap.
void TapColumns::Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const {
  const TapMap m = map_;  // a local copy: the compiler keeps its fields in registers
  const int64_t pixels = m.rows_h * m.rows_w, c_n = m.channels;
  const bool taps_contiguous = m.x.tap_step == 1 && m.x.divisor == 1;
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
    int64_t dy, dx, c;  // the first tap's share of the numerators, and its first channel
    int64_t last_dx;    // the last tap's share of x's numerator
  };
  std::vector<Run> runs;
  for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
    const int64_t first = i0 + s * mr;
    runs.clear();
    int64_t c = first % c_n, kx = first / c_n % m.k_w, ky = first / c_n / m.k_w;
    for (int r = 0; r < rows;) {
      Run run{r, 0, ky * m.y.tap_step, kx * m.x.tap_step, c, kx * m.x.tap_step};
      do {  // one tap's channels, then the next tap's while they continue in memory
        const int length = static_cast<int>(std::min<int64_t>(c_n - c, rows - r));
        run.length += length;
        run.last_dx = kx * m.x.tap_step;
        r += length;
        c += length;
        if (c == c_n) {
          c = 0;
          if (++kx == m.k_w) {
            kx = 0;
            ++ky;
          }
        }
      } while (taps_contiguous && r < rows && c == 0 && kx != 0);
      runs.push_back(run);
    }
    for (int64_t q = 0; q < kc; ++q) {
      const Origin& o = origins[static_cast<size_t>(q)];
      float* d = dst + q * mr;
      for (const Run& run : runs) {
        const int64_t sy = m.y.Resolve(o.y + run.dy), sx = m.x.Resolve(o.x + run.dx);
        if (sy < 0) {
          for (int t = 0; t < run.length; ++t) d[run.r + t] = 0.0f;
        } else if (sx >= 0 && (run.last_dx == run.dx || m.x.Resolve(o.x + run.last_dx) >= 0)) {
          const float* from = o.image + (sy * m.x.size + sx) * c_n + run.c;
          CopyRun(d + run.r, from, run.length);
        } else {  // tap by tap: some lie outside the source
          int64_t channel = run.c, dx = run.dx;
          for (int t = 0; t < run.length; dx += m.x.tap_step) {
            const int length = static_cast<int>(std::min<int64_t>(c_n - channel, run.length - t));
            const int64_t tap_x = m.x.Resolve(o.x + dx);
            if (tap_x >= 0) {
              const float* from = o.image + (sy * m.x.size + tap_x) * c_n + channel;
              for (int u = 0; u < length; ++u) d[run.r + t + u] = from[u];
            } else {
              for (int u = 0; u < length; ++u) d[run.r + t + u] = 0.0f;
            }
            t += length;
            channel = 0;
          }
        }
      }
      for (int r = rows; r < mr; ++r) d[r] = 0.0f;
    }
  }
}

}  // namespace kernels
}  // namespace swigflow
