// The filter gradient of a convolution, read in place (DirectFilterGradient, conv_direct.h).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>  // NOLINT(build/c++11): hardware_concurrency
#include <utility>
#include <vector>

#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/nn/conv_direct.h"

namespace swigflow {
namespace kernels {
namespace {

// How much of dy the filter gradient packs at a time: a group of rows that stays in L2 while
// every tap and channel block reads it.
constexpr int64_t kFilterGradientGroupBytes = 256 << 10;

// The filter gradient is split over output-channel slivers, each summing every row of dy in
// order. Fewer slivers than the machine has cores would leave cores idle: the rows are then split
// into parts too, each summed into a gradient of its own, and the parts are added in part order.
// The split depends on the shape and the machine, never on the threads a call runs on, so the
// result is the same for any SWIGFLOW_NUM_THREADS.
constexpr int64_t kFilterGradientPartRows = 16;         // the fewest rows of dy a part sums
constexpr int64_t kFilterGradientPartBytes = 32 << 20;  // the most the parts' gradients take

// How many parts the filter gradient's rows are split into (above).
int64_t FilterGradientParts(const ConvGeometry& g, int64_t slivers) {
  static const int64_t cores = std::max<int64_t>(std::thread::hardware_concurrency(), 1);
  if (slivers >= cores) return 1;
  const int64_t rows = g.batch * g.out_h;
  const int64_t dw_bytes = g.k_h * g.k_w * g.in_c * g.out_c * 4;
  const int64_t parts = std::min({(cores + slivers - 1) / slivers, rows / kFilterGradientPartRows,
                                  kFilterGradientPartBytes / std::max<int64_t>(dw_bytes, 1)});
  return std::max<int64_t>(parts, 1);
}

// One output-channel sliver's filter-gradient tiles, summed over groups of dy's rows: the
// group's packed rows, the batch of items (one per row) being reduced into a tile, and which
// tiles hold a first sum; the others (only ever padding) are zeroed by ZeroUntouched.
class SliverSums {
 public:
  SliverSums(const gemm::KernelInfo& kernel, int cols, int64_t group_rows, int64_t out_w,
             int64_t ldc, int64_t tiles)
      : kernel_(kernel),
        cols_(cols),
        ldc_(ldc),
        packed_(static_cast<size_t>(group_rows * out_w * kernel.nr), 0.0f),
        touched_(static_cast<size_t>(tiles), false) {
    batch_.reserve(static_cast<size_t>(group_rows));
  }

  float* packed() { return packed_.data(); }
  std::vector<gemm::BatchItem>& batch() { return batch_; }

  // Adds the batch's products into tile `index` (rows x cols at `tile`), storing the first time.
  void Reduce(int64_t index, float* tile, int rows) {
    if (batch_.empty()) return;
    const size_t i = static_cast<size_t>(index);
    kernel_.batch_reduce_steps(batch_.data(), static_cast<int>(batch_.size()), tile, ldc_, rows,
                               cols_, touched_[i]);
    touched_[i] = true;
  }

  // Zeroes every tile Reduce never reached; tile_of(index) gives its (pointer, rows).
  template <typename TileOf>
  void ZeroUntouched(TileOf tile_of) const {
    for (size_t i = 0; i < touched_.size(); ++i) {
      if (touched_[i]) continue;
      const auto [tile, rows] = tile_of(static_cast<int64_t>(i));
      for (int r = 0; r < rows; ++r) std::fill(tile + r * ldc_, tile + r * ldc_ + cols_, 0.0f);
    }
  }

 private:
  const gemm::KernelInfo& kernel_;
  const int cols_;
  const int64_t ldc_;
  std::vector<float> packed_;
  std::vector<bool> touched_;
  std::vector<gemm::BatchItem> batch_;
};

// DirectFilterGradient's work, one named step each: the split over slivers, units and parts of
// dy's rows (Run), a sliver's tiles over a range of rows (SumTiles: by channel blocks, SumRows,
// or by filter-row spans, SumSpans), and the packing both share (PackDy).
class FilterGradient {
 public:
  FilterGradient(const ConvGeometry& g, const float* x, const float* dy, Isa isa)
      : g_(g),
        x_(x),
        dy_(dy),
        kernel_(KernelFor(isa)),
        mr_(kernel_.mr),
        nr_(kernel_.nr),
        slivers_((g.out_c + nr_ - 1) / nr_),
        taps_(g.k_h * g.k_w),
        total_rows_(g.batch * g.out_h),
        group_rows_(std::max<int64_t>(kFilterGradientGroupBytes / (g.out_w * nr_ * 4), 1)),
        spans_(FilterGradientBySpans(g, isa)),
        span_(g.k_w * g.in_c),
        span_slivers_((span_ + mr_ - 1) / mr_),
        padded_w_((g.out_w - 1) * g.stride_w + g.k_w),
        units_(spans_ ? g.k_h : (g.in_c + mr_ - 1) / mr_) {}

  // Every element of dw.
  void Run(float* dw, ThreadPool* pool) const {
    const int64_t parts = FilterGradientParts(g_, slivers_);
    if (parts == 1) {
      // Slivers, and when they are fewer than the threads, groups of units too: the split
      // changes which thread sums a tile, never the order of its sum.
      const int64_t threads = pool == nullptr ? 1 : pool->num_threads();
      const int64_t groups = slivers_ >= threads ? 1 : std::min(units_, threads);
      return Parallel(pool, slivers_ * groups, [&](int64_t item) {
        const int64_t j = item / groups, group = item % groups;
        SumTiles(j, units_ * group / groups, units_ * (group + 1) / groups, 0, total_rows_, dw);
      });
    }
    // Every tile of every part, then each element's parts added in part order.
    const int64_t size = taps_ * g_.in_c * g_.out_c;
    std::vector<float> partial(static_cast<size_t>(parts * size));
    Parallel(pool, slivers_ * parts, [&](int64_t item) {
      const int64_t part = item / slivers_, j = item % slivers_;
      SumTiles(j, 0, units_, total_rows_ * part / parts, total_rows_ * (part + 1) / parts,
               partial.data() + part * size);
    });
    constexpr int64_t kSumChunk = 4096;
    Parallel(pool, (size + kSumChunk - 1) / kSumChunk, [&](int64_t chunk) {
      const int64_t end = std::min(size, (chunk + 1) * kSumChunk);
      for (int64_t i = chunk * kSumChunk; i < end; ++i) {
        float sum = partial[static_cast<size_t>(i)];
        for (int64_t p = 1; p < parts; ++p) sum += partial[static_cast<size_t>(p * size + i)];
        dw[i] = sum;
      }
    });
  }

 private:
  static void Parallel(ThreadPool* pool, int64_t tasks, const std::function<void(int64_t)>& task) {
    if (tasks <= 1 || pool == nullptr) {
      for (int64_t i = 0; i < tasks; ++i) task(i);
    } else {
      pool->ParallelFor(tasks, task);
    }
  }

  int Cols(int64_t j) const { return static_cast<int>(std::min<int64_t>(nr_, g_.out_c - j * nr_)); }

  // dy's rows are packed a group at a time, and each tile sums the whole group in registers (a
  // batch-reduce item per row) before it is stored.
  int64_t RowsPerGroup(int64_t r_begin, int64_t r_end) const {
    return std::min(group_rows_, std::max<int64_t>(r_end - r_begin, 1));
  }

  // Sliver j's tiles for units [u0, u1) (channel blocks or filter rows), summed over dy's rows
  // [r_begin, r_end), into out (laid out as dw; every element of those tiles is written).
  void SumTiles(int64_t j, int64_t u0, int64_t u1, int64_t r_begin, int64_t r_end,
                float* out) const {
    if (spans_) return SumSpans(j, u0, u1, r_begin, r_end, out);
    SumRows(j, u0, u1, r_begin, r_end, out);
  }

  // Rows [r0, r1) of dy's sliver j (cols columns), packed: a row's out_w steps of nr values.
  void PackDy(int64_t j, int cols, int64_t r0, int64_t r1, float* packed) const {
    for (int64_t r = r0; r < r1; ++r) {
      const float* dy_row = dy_ + r * g_.out_w * g_.out_c + j * nr_;
      float* dst = packed + (r - r0) * g_.out_w * nr_;
      for (int64_t ox = 0; ox < g_.out_w; ++ox) {
        std::copy(dy_row + ox * g_.out_c, dy_row + ox * g_.out_c + cols, dst + ox * nr_);
      }
    }
  }

  // SumTiles by channel blocks [b0, b1): tile (tap t, block b) is index t * (b1 - b0) + b - b0.
  void SumRows(int64_t j, int64_t b0, int64_t b1, int64_t r_begin, int64_t r_end,
               float* out) const {
    const ConvGeometry& g = g_;
    const int cols = Cols(j);
    const int64_t rows_per_group = RowsPerGroup(r_begin, r_end);
    SliverSums sums(kernel_, cols, rows_per_group, g.out_w, g.out_c, taps_ * (b1 - b0));
    auto& batch = sums.batch();
    auto tile_of = [&](int64_t index) {
      const int64_t t = index / (b1 - b0), b = b0 + index % (b1 - b0);
      return std::pair<float*, int>(out + (t * g.in_c + b * mr_) * g.out_c + j * nr_,
                                    static_cast<int>(std::min<int64_t>(mr_, g.in_c - b * mr_)));
    };
    for (int64_t r0 = r_begin; r0 < r_end; r0 += rows_per_group) {
      const int64_t r1 = std::min(r_end, r0 + rows_per_group);
      PackDy(j, cols, r0, r1, sums.packed());
      for (int64_t t = 0; t < taps_; ++t) {
        const int64_t ky = t / g.k_w, kx = t % g.k_w;
        // Output pixels whose tap (ky, kx) lands inside the row: [lo, hi).
        const int64_t shift = kx * g.dil_w - g.pad_left;
        const int64_t lo = shift >= 0 ? 0 : (-shift + g.stride_w - 1) / g.stride_w;
        const int64_t hi =
            std::min(g.out_w, g.in_w - 1 - shift < 0 ? 0 : (g.in_w - 1 - shift) / g.stride_w + 1);
        if (lo >= hi) continue;
        for (int64_t b = b0; b < b1; ++b) {
          batch.clear();
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t n = r / g.out_h, oy = r % g.out_h;
            const int64_t iy = oy * g.stride_h + ky * g.dil_h - g.pad_top;
            if (iy < 0 || iy >= g.in_h) continue;
            const float* x_row = x_ + (n * g.in_h + iy) * g.in_w * g.in_c;
            batch.push_back({x_row + (lo * g.stride_w + shift) * g.in_c + b * mr_,
                             g.stride_w * g.in_c, sums.packed() + ((r - r0) * g.out_w + lo) * nr_,
                             hi - lo});
          }
          const int64_t index = t * (b1 - b0) + (b - b0);
          const auto [tile, rows] = tile_of(index);
          sums.Reduce(index, tile, rows);
        }
      }
    }
    sums.ZeroUntouched(tile_of);  // taps that only ever see padding
  }

  // Image n's rows, zero-padded left and right from input column -pad_left to padded_w_ pixels,
  // into `padded`.
  void PadImage(int64_t n, float* padded) const {
    const ConvGeometry& g = g_;
    const int64_t padded_row = padded_w_ * g.in_c;
    const int64_t left = std::min(g.pad_left, padded_w_);
    const int64_t width = std::clamp<int64_t>(padded_w_ - left, 0, g.in_w);
    for (int64_t iy = 0; iy < g.in_h; ++iy) {
      float* row = padded + iy * padded_row;
      const float* from = x_ + ((n * g.in_h + iy) * g.in_w) * g.in_c;
      std::fill(row, row + left * g.in_c, 0.0f);
      std::copy(from, from + width * g.in_c, row + left * g.in_c);
      std::fill(row + (left + width) * g.in_c, row + padded_row, 0.0f);
    }
  }

  // SumTiles by filter rows [ky0, ky1) for few channels, undilated: a filter row's k_w taps of C
  // channels are k_w * C consecutive values of x (21 for the RGB stem), so tiles take MR of those
  // at a time (a span's sliver) rather than a block of C channels that fills a fifth of the tile,
  // and the windows are read in place from the image padded with zeros left and right (PadImage):
  // one item per output row and filter row, of all out_w pixels. Tile (filter row ky, span
  // sliver s) is index (ky - ky0) * span_slivers_ + s.
  void SumSpans(int64_t j, int64_t ky0, int64_t ky1, int64_t r_begin, int64_t r_end,
                float* out) const {
    const ConvGeometry& g = g_;
    const int cols = Cols(j);
    const int64_t rows_per_group = RowsPerGroup(r_begin, r_end);
    SliverSums sums(kernel_, cols, rows_per_group, g.out_w, g.out_c, (ky1 - ky0) * span_slivers_);
    auto& batch = sums.batch();
    auto tile_of = [&](int64_t index) {
      const int64_t ky = ky0 + index / span_slivers_, s = index % span_slivers_;
      return std::pair<float*, int>(out + (ky * span_ + s * mr_) * g.out_c + j * nr_,
                                    static_cast<int>(std::min<int64_t>(mr_, span_ - s * mr_)));
    };
    const int64_t padded_row = padded_w_ * g.in_c;
    std::vector<float> padded(static_cast<size_t>(g.in_h * padded_row));
    int64_t padded_image = -1;
    for (int64_t r0 = r_begin; r0 < r_end;) {
      // A group stays within one image, whose padded copy it reads.
      const int64_t n = r0 / g.out_h;
      const int64_t r1 = std::min({r_end, r0 + rows_per_group, (n + 1) * g.out_h});
      if (n != padded_image) {
        PadImage(n, padded.data());
        padded_image = n;
      }
      PackDy(j, cols, r0, r1, sums.packed());
      for (int64_t ky = ky0; ky < ky1; ++ky) {
        for (int64_t s = 0; s < span_slivers_; ++s) {
          batch.clear();
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t iy = r % g.out_h * g.stride_h + ky * g.dil_h - g.pad_top;
            if (iy < 0 || iy >= g.in_h) continue;
            batch.push_back({padded.data() + iy * padded_row + s * mr_, g.stride_w * g.in_c,
                             sums.packed() + (r - r0) * g.out_w * nr_, g.out_w});
          }
          const int64_t index = (ky - ky0) * span_slivers_ + s;
          const auto [tile, rows] = tile_of(index);
          sums.Reduce(index, tile, rows);
        }
      }
      r0 = r1;
    }
    sums.ZeroUntouched(tile_of);  // filter rows that only ever see padding
  }

  const ConvGeometry& g_;
  const float* const x_;
  const float* const dy_;
  const gemm::KernelInfo& kernel_;
  const int mr_, nr_;
  const int64_t slivers_;     // of output channels
  const int64_t taps_;        // k_h * k_w
  const int64_t total_rows_;  // of dy: batch * out_h
  const int64_t group_rows_;  // the most rows of dy packed at a time
  const bool spans_;          // FilterGradientBySpans
  const int64_t span_;        // a filter row's values: k_w * in_c
  const int64_t span_slivers_;
  const int64_t padded_w_;  // PadImage's width in pixels
  const int64_t units_;     // a sliver's tiles are split into: filter rows or channel blocks
};

}  // namespace

bool FilterGradientBySpans(const ConvGeometry& g, Isa isa) {
  return FewChannels(g.in_c, isa) && g.dil_w == 1 && g.k_w * g.in_c >= KernelFor(isa).mr;
}

void DirectFilterGradient(const ConvGeometry& g, const float* x, const float* dy, float* dw,
                          Isa isa, ThreadPool* pool) {
  FilterGradient(g, x, dy, isa).Run(dw, pool);
}

}  // namespace kernels
}  // namespace swigflow
