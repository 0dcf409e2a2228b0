#include "swigflow/kernels/nn/conv_loops.h"

#include <algorithm>
#include <vector>

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

// The type sums are formed in: int32 wraps through uint32, where overflow is defined.
template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<int32_t> {
  using type = uint32_t;
};
template <typename T>
using Acc = typename AccOf<T>::type;

}  // namespace

template <typename T>
void ConvByTaps(const TapMap& map, const T* src, const T* b, int64_t n, T* out, ThreadPool* pool) {
  const int64_t rows = map.batch * map.rows_h * map.rows_w;
  const int64_t c = map.channels;
  ForEach((rows + kRowsPerTask - 1) / kRowsPerTask, pool, [&](int64_t task) {
    const int64_t end = std::min(rows, (task + 1) * kRowsPerTask);
    std::vector<Acc<T>> o(static_cast<size_t>(n));
    for (int64_t row = task * kRowsPerTask; row < end; ++row) {
      const int64_t image = row / (map.rows_h * map.rows_w);
      const int64_t ry = row / map.rows_w % map.rows_h, rx = row % map.rows_w;
      std::fill(o.begin(), o.end(), Acc<T>(0));
      for (int64_t ky = 0; ky < map.k_h; ++ky) {
        const int64_t sy = map.y.At(ry, ky);
        if (sy < 0) continue;
        for (int64_t kx = 0; kx < map.k_w; ++kx) {
          const int64_t sx = map.x.At(rx, kx);
          if (sx < 0) continue;
          const T* s = src + ((image * map.y.size + sy) * map.x.size + sx) * c;
          const T* bt = b + (ky * map.k_w + kx) * c * n;
          for (int64_t ch = 0; ch < c; ++ch) {
            const Acc<T> v = static_cast<Acc<T>>(s[ch]);
            const T* bc = bt + ch * n;
            for (int64_t j = 0; j < n; ++j) o[j] += v * static_cast<Acc<T>>(bc[j]);
          }
        }
      }
      std::transform(o.begin(), o.end(), out + row * n, [](Acc<T> v) { return static_cast<T>(v); });
    }
  });
}

template <typename T>
void FilterGradientByTaps(const TapMap& windows, const T* x, const T* dy, int64_t out_c, T* dw,
                          ThreadPool* pool) {
  const int64_t c = windows.channels;
  ForEach(windows.taps(), pool, [&](int64_t t) {
    const int64_t ky = t / windows.k_w, kx = t % windows.k_w;
    T* d = dw + t * c * out_c;
    std::fill(d, d + c * out_c, T(0));
    for (int64_t image = 0; image < windows.batch; ++image) {
      for (int64_t ry = 0; ry < windows.rows_h; ++ry) {
        const int64_t sy = windows.y.At(ry, ky);
        if (sy < 0) continue;
        for (int64_t rx = 0; rx < windows.rows_w; ++rx) {
          const int64_t sx = windows.x.At(rx, kx);
          if (sx < 0) continue;
          const T* s = x + ((image * windows.y.size + sy) * windows.x.size + sx) * c;
          const T* g = dy + ((image * windows.rows_h + ry) * windows.rows_w + rx) * out_c;
          for (int64_t ch = 0; ch < c; ++ch) {
            const T v = s[ch];
            T* dc = d + ch * out_c;
            for (int64_t j = 0; j < out_c; ++j) dc[j] += v * g[j];
          }
        }
      }
    }
  });
}

template void ConvByTaps(const TapMap&, const double*, const double*, int64_t, double*,
                         ThreadPool*);
template void ConvByTaps(const TapMap&, const int32_t*, const int32_t*, int64_t, int32_t*,
                         ThreadPool*);
template void FilterGradientByTaps(const TapMap&, const double*, const double*, int64_t, double*,
                                   ThreadPool*);

}  // namespace kernels
}  // namespace swigflow
