#include "swigflow/kernels/nn/conv_double.h"

#include <algorithm>

namespace swigflow {
namespace kernels {
namespace {

// Runs fn(i) for i < n on the pool, or inline when there is none.
template <typename Fn>
void ForEach(int64_t n, ThreadPool* pool, Fn fn) {
  if (pool == nullptr || n <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  pool->ParallelFor(n, [&](int64_t i) { fn(i); });
}

constexpr int64_t kRowsPerTask = 64;

}  // namespace

void ConvByTaps(const TapMap& map, const double* src, const double* b, int64_t n, double* out,
                ThreadPool* pool) {
  const int64_t rows = map.batch * map.rows_h * map.rows_w;
  const int64_t c = map.channels;
  ForEach((rows + kRowsPerTask - 1) / kRowsPerTask, pool, [&](int64_t task) {
    const int64_t end = std::min(rows, (task + 1) * kRowsPerTask);
    for (int64_t row = task * kRowsPerTask; row < end; ++row) {
      const int64_t image = row / (map.rows_h * map.rows_w);
      const int64_t ry = row / map.rows_w % map.rows_h, rx = row % map.rows_w;
      double* o = out + row * n;
      std::fill(o, o + n, 0.0);
      for (int64_t ky = 0; ky < map.k_h; ++ky) {
        const int64_t sy = map.y.At(ry, ky);
        if (sy < 0) continue;
        for (int64_t kx = 0; kx < map.k_w; ++kx) {
          const int64_t sx = map.x.At(rx, kx);
          if (sx < 0) continue;
          const double* s = src + ((image * map.y.size + sy) * map.x.size + sx) * c;
          const double* bt = b + (ky * map.k_w + kx) * c * n;
          for (int64_t ch = 0; ch < c; ++ch) {
            const double v = s[ch];
            const double* bc = bt + ch * n;
            for (int64_t j = 0; j < n; ++j) o[j] += v * bc[j];
          }
        }
      }
    }
  });
}

void FilterGradientByTaps(const TapMap& windows, const double* x, const double* dy, int64_t out_c,
                          double* dw, ThreadPool* pool) {
  const int64_t c = windows.channels;
  ForEach(windows.taps(), pool, [&](int64_t t) {
    const int64_t ky = t / windows.k_w, kx = t % windows.k_w;
    double* d = dw + t * c * out_c;
    std::fill(d, d + c * out_c, 0.0);
    for (int64_t image = 0; image < windows.batch; ++image) {
      for (int64_t ry = 0; ry < windows.rows_h; ++ry) {
        const int64_t sy = windows.y.At(ry, ky);
        if (sy < 0) continue;
        for (int64_t rx = 0; rx < windows.rows_w; ++rx) {
          const int64_t sx = windows.x.At(rx, kx);
          if (sx < 0) continue;
          const double* s = x + ((image * windows.y.size + sy) * windows.x.size + sx) * c;
          const double* g = dy + ((image * windows.rows_h + ry) * windows.rows_w + rx) * out_c;
          for (int64_t ch = 0; ch < c; ++ch) {
            const double v = s[ch];
            double* dc = d + ch * out_c;
            for (int64_t j = 0; j < out_c; ++j) dc[j] += v * g[j];
          }
        }
      }
    }
  });
}

}  // namespace kernels
}  // namespace swigflow
