#include "swigflow/kernels/nn/conv_loops.h"

#include <algorithm>
#include <cstdint>
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

// Calls fn(tap, pixel) for each tap of `map`'s row that reads a source pixel: tap = ky * k_w +
// kx, pixel = the source pixel's index in the batch (image, y, x).
template <typename Fn>
void ForEachTap(const TapMap& map, int64_t row, Fn fn) {
  const int64_t image = row / (map.rows_h * map.rows_w);
  const int64_t ry = row / map.rows_w % map.rows_h, rx = row % map.rows_w;
  for (int64_t ky = 0; ky < map.k_h; ++ky) {
    const int64_t sy = map.y.At(ry, ky);
    if (sy < 0) continue;
    for (int64_t kx = 0; kx < map.k_w; ++kx) {
      const int64_t sx = map.x.At(rx, kx);
      if (sx >= 0) fn(ky * map.k_w + kx, (image * map.y.size + sy) * map.x.size + sx);
    }
  }
}

// Runs row_fn(row, acc) for every row of `map` in blocks of kRowsPerTask, acc holding `width`
// zeroed sums, then stores acc into out's row: one block of rows per task.
template <typename T, typename RowFn>
void ForEachRow(const TapMap& map, int64_t width, T* out, ThreadPool* pool, RowFn row_fn) {
  const int64_t rows = map.batch * map.rows_h * map.rows_w;
  ForEach((rows + kRowsPerTask - 1) / kRowsPerTask, pool, [&](int64_t task) {
    const int64_t end = std::min(rows, (task + 1) * kRowsPerTask);
    std::vector<Acc<T>> acc(static_cast<size_t>(width));
    for (int64_t row = task * kRowsPerTask; row < end; ++row) {
      std::fill(acc.begin(), acc.end(), Acc<T>(0));
      row_fn(row, acc.data());
      std::transform(acc.begin(), acc.end(), out + row * width,
                     [](Acc<T> v) { return static_cast<T>(v); });
    }
  });
}

// acc[i] += a[i] * b[i] for i < n.
template <typename T>
void MulAdd(const T* __restrict a, const T* __restrict b, int64_t n, Acc<T>* __restrict acc) {
  for (int64_t i = 0; i < n; ++i) acc[i] += static_cast<Acc<T>>(a[i]) * static_cast<Acc<T>>(b[i]);
}

// acc[c * m + j] += a[c] * b[c * m + j] for c < channels, j < m: one tap of a depthwise sum
// (a: the input's channels, b: the tap's filter row or dy's).
template <typename T>
void AddTap(const T* __restrict a, const T* __restrict b, int64_t channels, int64_t m,
            Acc<T>* __restrict acc) {
  if (m == 1) return MulAdd(a, b, channels, acc);
  for (int64_t c = 0; c < channels; ++c) {
    const Acc<T> v = static_cast<Acc<T>>(a[c]);
    for (int64_t j = 0; j < m; ++j) acc[c * m + j] += v * static_cast<Acc<T>>(b[c * m + j]);
  }
}

// acc[c] += sum over j < m of a[c * m + j] * b[c * m + j]: one tap of a depthwise input gradient.
template <typename T>
void AddTapReduced(const T* __restrict a, const T* __restrict b, int64_t channels, int64_t m,
                   Acc<T>* __restrict acc) {
  if (m == 1) return MulAdd(a, b, channels, acc);
  for (int64_t c = 0; c < channels; ++c) {
    Acc<T> sum = 0;
    for (int64_t j = 0; j < m; ++j) {
      sum += static_cast<Acc<T>>(a[c * m + j]) * static_cast<Acc<T>>(b[c * m + j]);
    }
    acc[c] += sum;
  }
}

}  // namespace

template <typename T>
void ConvByTaps(const TapMap& map, const T* src, const T* b, int64_t n, T* out, ThreadPool* pool) {
  const int64_t c = map.channels;
  ForEachRow(map, n, out, pool, [&](int64_t row, Acc<T>* acc) {
    ForEachTap(map, row, [&](int64_t tap, int64_t pixel) {
      const T* s = src + pixel * c;
      for (int64_t ch = 0; ch < c; ++ch) {
        const Acc<T> v = static_cast<Acc<T>>(s[ch]);
        const T* bc = b + (tap * c + ch) * n;
        for (int64_t j = 0; j < n; ++j) acc[j] += v * static_cast<Acc<T>>(bc[j]);
      }
    });
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

template <typename T>
void DepthwiseForward(const ConvGeometry& g, const T* x, const T* w, T* out, ThreadPool* pool) {
  const TapMap map = TapMap::Window(g);
  const int64_t channels = g.groups, m = g.out_c;
  ForEachRow(map, channels * m, out, pool, [&](int64_t row, Acc<T>* acc) {
    ForEachTap(map, row, [&](int64_t tap, int64_t pixel) {
      AddTap(x + pixel * channels, w + tap * channels * m, channels, m, acc);
    });
  });
}

template <typename T>
void DepthwiseInputGradient(const ConvGeometry& g, const T* dy, const T* w, T* dx,
                            ThreadPool* pool) {
  const TapMap map = TapMap::Gradient(g);
  const int64_t channels = g.groups, m = g.out_c;
  ForEachRow(map, channels, dx, pool, [&](int64_t row, Acc<T>* acc) {
    ForEachTap(map, row, [&](int64_t tap, int64_t pixel) {
      AddTapReduced(dy + pixel * channels * m, w + tap * channels * m, channels, m, acc);
    });
  });
}

template <typename T>
void DepthwiseFilterGradient(const ConvGeometry& g, const T* x, const T* dy, T* dw,
                             ThreadPool* pool) {
  const TapMap windows = TapMap::Window(g);
  const int64_t channels = g.groups, m = g.out_c, width = channels * m;
  const int64_t taps = windows.taps(), rows = windows.batch * windows.rows_h * windows.rows_w;
  // Each block of output pixels sums into its own partial filter (all taps: small, and every
  // pixel's x and dy are read once), then the partials are added in block order. Block sizes
  // depend on the shape only, so the sums do not depend on the thread count.
  const int64_t block = std::max<int64_t>(512, (rows + 255) / 256);
  const int64_t blocks = (rows + block - 1) / block;
  std::vector<Acc<T>> partial(static_cast<size_t>(blocks * taps * width));
  ForEach(blocks, pool, [&](int64_t b) {
    Acc<T>* sums = partial.data() + b * taps * width;
    for (int64_t row = b * block; row < std::min(rows, (b + 1) * block); ++row) {
      ForEachTap(windows, row, [&](int64_t tap, int64_t pixel) {
        AddTap(x + pixel * channels, dy + row * width, channels, m, sums + tap * width);
      });
    }
  });
  for (int64_t i = 0; i < taps * width; ++i) {
    Acc<T> sum = 0;
    for (int64_t b = 0; b < blocks; ++b) sum += partial[static_cast<size_t>(b * taps * width + i)];
    dw[i] = static_cast<T>(sum);
  }
}

template void DepthwiseForward(const ConvGeometry&, const float*, const float*, float*,
                               ThreadPool*);
template void DepthwiseForward(const ConvGeometry&, const double*, const double*, double*,
                               ThreadPool*);
template void DepthwiseForward(const ConvGeometry&, const int32_t*, const int32_t*, int32_t*,
                               ThreadPool*);
template void DepthwiseInputGradient(const ConvGeometry&, const float*, const float*, float*,
                                     ThreadPool*);
template void DepthwiseInputGradient(const ConvGeometry&, const double*, const double*, double*,
                                     ThreadPool*);
template void DepthwiseInputGradient(const ConvGeometry&, const int32_t*, const int32_t*, int32_t*,
                                     ThreadPool*);
template void DepthwiseFilterGradient(const ConvGeometry&, const float*, const float*, float*,
                                      ThreadPool*);
template void DepthwiseFilterGradient(const ConvGeometry&, const double*, const double*, double*,
                                      ThreadPool*);

template void ConvByTaps(const TapMap&, const double*, const double*, int64_t, double*,
                         ThreadPool*);
template void ConvByTaps(const TapMap&, const int32_t*, const int32_t*, int64_t, int32_t*,
                         ThreadPool*);
template void FilterGradientByTaps(const TapMap&, const double*, const double*, int64_t, double*,
                                   ThreadPool*);

}  // namespace kernels
}  // namespace swigflow
