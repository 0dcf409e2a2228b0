#include "swigflow/kernels/nn/conv_direct.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "swigflow/kernels/gemm/gemm.h"

namespace swigflow {
namespace kernels {

bool FewChannels(int64_t channels, Isa isa) { return channels < ConfigFor(isa).few_channels; }

namespace {

// A window row's taps read consecutive source pixels when the x taps are one pixel apart:
// forward windows, undilated, and the input gradient at stride 1, whose taps walk dy's pixels
// right to left (tap_step -1). Their values, from the leftmost pixel on, are then one
// contiguous run of k_w * channels, and B's rows are packed in that pixel order. One item per
// window row instead of one per tap: the RGB stem's 3-channel taps become runs of 21 values.
bool MergesRowTaps(const TapMap& map) {
  return (map.x.tap_step == 1 || map.x.tap_step == -1) && map.x.divisor == 1;
}

}  // namespace

bool UseDirect(const TapMap& map, Isa isa) {
  const int64_t mr = KernelFor(isa).mr;
  const int64_t row_w = map.rows_w;
  const int64_t tiles = (row_w + mr - 1) / mr;
  const int64_t run = MergesRowTaps(map) ? map.k_w * map.channels : map.channels;
  return !FewChannels(run, isa) && row_w > 0 &&
         row_w * 100 >= tiles * mr * ConfigFor(isa).min_row_fill_pct;
}

namespace {

// Pixels [first, first + count) of a line of `width` pixels of `channels` values into dst, zeros
// for those outside the line.
void CopyWithPadding(const float* line, int64_t width, int64_t channels, int64_t first,
                     int64_t count, float* dst) {
  const int64_t lo = std::clamp<int64_t>(first, 0, width);
  const int64_t hi = std::clamp<int64_t>(first + count, 0, width);
  if (lo >= hi) {
    std::fill(dst, dst + count * channels, 0.0f);
    return;
  }
  std::fill(dst, dst + (lo - first) * channels, 0.0f);
  std::copy(line + lo * channels, line + hi * channels, dst + (lo - first) * channels);
  std::fill(dst + (hi - first) * channels, dst + count * channels, 0.0f);
}

// Padded copies of line spans, kept while later output rows read them again: a source row
// serves k_h output rows (one per window row), so its spans are copied once, not k_h times.
// The least recently used slot is replaced, so a tile's own spans (the most recent gets) are
// never overwritten while the tile still reads them, whatever the order in which rows come
// back (dilated windows reread a row dilation rows later); there are more slots than a tile
// gets spans.
class SpanCache {
 public:
  SpanCache(size_t slots, size_t slot_floats)
      : keys_(slots, Key{-1, 0, 0, 0}), data_(slots * slot_floats), slot_floats_(slot_floats) {}

  // Pixels [first, first + count) of `line` (source row `row` of the batch), zeros outside it.
  const float* Get(int64_t row, int64_t first, int64_t count, const float* line, int64_t width,
                   int64_t channels) {
    ++clock_;
    size_t oldest = 0;
    for (size_t i = 0; i < keys_.size(); ++i) {
      Key& k = keys_[i];
      if (k.row == row && k.first == first && k.count == count) {
        k.used = clock_;
        return data_.data() + i * slot_floats_;
      }
      if (k.used < keys_[oldest].used) oldest = i;
    }
    keys_[oldest] = Key{row, first, count, clock_};
    float* dst = data_.data() + oldest * slot_floats_;
    CopyWithPadding(line, width, channels, first, count, dst);
    return dst;
  }

 private:
  struct Key {
    int64_t row, first, count;
    uint64_t used;  // clock_ at the last get
  };
  std::vector<Key> keys_;
  std::vector<float> data_;
  size_t slot_floats_;
  uint64_t clock_ = 0;
};

}  // namespace

void DirectConv(const TapMap& map, const float* src, const TapMatrix& b, int64_t out_c, float* out,
                Isa isa, ThreadPool* pool) {
  const int64_t src_c = map.channels;
  // A run: `run_px` source pixels from (oy * step_y + ty, ox * step_x + tx) on, whose values
  // multiply B's rows from `b_row` on.
  struct Run {
    int64_t ty, tx, b_row;
  };
  const bool merged = MergesRowTaps(map);
  const int64_t run_px = merged ? map.k_w : 1;
  const int64_t run_c = run_px * src_c;
  // Merged runs start at the leftmost pixel: the last tap when the taps walk right to left, and
  // B's rows of a window row are packed in pixel order (`position` of tap (ky, kx)).
  const bool reversed = merged && map.x.tap_step < 0;
  const auto position = [&](int64_t ky, int64_t kx) {
    return ky * map.k_w + (reversed ? map.k_w - 1 - kx : kx);
  };
  std::vector<Run> runs;
  for (int64_t ky = 0; ky < map.k_h; ++ky) {
    for (int64_t kx = 0; kx < map.k_w; kx += run_px) {
      const int64_t first = reversed ? map.k_w - 1 : kx;  // the run's leftmost pixel's tap
      runs.push_back({ky * map.y.tap_step + map.y.offset, first * map.x.tap_step + map.x.offset,
                      position(ky, first) * src_c});
    }
  }
  const int64_t step_y = map.y.scale, step_x = map.x.scale;
  const int64_t src_h = map.y.size, src_w = map.x.size;
  const int64_t out_h = map.rows_h, out_w = map.rows_w;
  const gemm::KernelInfo& k = KernelFor(isa);
  const int mr = k.mr, nr = k.nr;
  const int64_t kdim = map.taps() * src_c;
  const int64_t slivers = (out_c + nr - 1) / nr;
  // B's slivers, each kdim steps of nr values: a tap's rows of B are its steps, or its lines
  // when B is stored with the last two axes swapped.
  std::vector<float> packed_b(static_cast<size_t>(slivers * kdim * nr));
  for (int64_t j = 0; j < slivers; ++j) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, out_c - j * nr));
    for (int64_t t = 0; t < map.taps(); ++t) {
      float* dst = packed_b.data() + (j * kdim + position(t / map.k_w, t % map.k_w) * src_c) * nr;
      if (b.swapped) {
        k.pack_b_lines(b.data + (t * out_c + j * nr) * src_c, src_c, cols, src_c, dst);
      } else {
        k.pack_b_steps(b.data + t * src_c * out_c + j * nr, out_c, cols, src_c, dst);
      }
    }
  }
  const int64_t kc_max = k.kc;
  const int64_t rows_total = map.batch * out_h;
  auto work = [&](int64_t r0, int64_t r1) {
    // One batch-reduce item per (run, block of its values): the tile stays in registers across
    // all of them. Runs whose window reaches into the padding read a copy with zeros outside
    // the line. A tile's items are made once and serve every sliver of B (their b moves from
    // one sliver to the next).
    std::vector<gemm::BatchItem> items;
    items.reserve(runs.size() * static_cast<size_t>((run_c + kc_max - 1) / kc_max));
    // A run's copy: one span of the line's pixels when the rows' runs overlap or touch (kept
    // for the next output rows), else mr runs of run_c values.
    const bool spans = step_x <= run_px;
    const int64_t tiles = (out_w + mr - 1) / mr;
    const int64_t offsets = merged ? 1 : map.k_w;  // x offsets of runs[]
    SpanCache cache(spans ? static_cast<size_t>((map.k_h + 1) * tiles * offsets) : 0,
                    static_cast<size_t>(((mr - 1) * step_x + run_px) * src_c));
    std::vector<float> padded(spans ? 0 : runs.size() * static_cast<size_t>(mr * run_c));
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t n = row / out_h, oy = row % out_h;
      float* out_row = out + row * out_w * out_c;
      for (int64_t ox0 = 0; ox0 < out_w; ox0 += mr) {
        const int rows = static_cast<int>(std::min<int64_t>(mr, out_w - ox0));
        items.clear();
        for (size_t t = 0; t < runs.size(); ++t) {
          const int64_t sy = oy * step_y + runs[t].ty;
          if (sy < 0 || sy >= src_h) continue;  // a row of padding adds nothing
          const int64_t sx0 = ox0 * step_x + runs[t].tx;
          const int64_t sx_last = sx0 + (rows - 1) * step_x + run_px - 1;
          const float* line = src + (n * src_h + sy) * src_w * src_c;
          const float* a = line + sx0 * src_c;
          int64_t lda = step_x * src_c;
          if ((sx0 < 0 || sx_last >= src_w) && spans) {
            a = cache.Get(n * src_h + sy, sx0, sx_last + 1 - sx0, line, src_w, src_c);
          } else if (sx0 < 0 || sx_last >= src_w) {
            float* block = padded.data() + t * static_cast<size_t>(mr * run_c);
            for (int i = 0; i < rows; ++i) {
              CopyWithPadding(line, src_w, src_c, sx0 + i * step_x, run_px, block + i * run_c);
            }
            a = block;
            lda = run_c;
          }
          for (int64_t c0 = 0; c0 < run_c; c0 += kc_max) {
            items.push_back({a + c0, lda, packed_b.data() + (runs[t].b_row + c0) * nr,
                             std::min(kc_max, run_c - c0)});
          }
        }
        for (int64_t j = 0; j < slivers; ++j) {
          const int cols = static_cast<int>(std::min<int64_t>(nr, out_c - j * nr));
          float* tile = out_row + ox0 * out_c + j * nr;
          if (items.empty()) {  // every tap fell in the padding
            for (int i = 0; i < rows; ++i)
              std::fill(tile + i * out_c, tile + i * out_c + cols, 0.0f);
            continue;
          }
          k.batch_reduce(items.data(), static_cast<int>(items.size()), tile, out_c, rows, cols,
                         false);
          for (gemm::BatchItem& item : items) item.b += kdim * nr;
        }
      }
    }
  };
  const int64_t parts = pool == nullptr ? 1 : std::min<int64_t>(pool->num_threads(), rows_total);
  if (parts <= 1) return work(0, rows_total);
  pool->ParallelFor(parts, [&](int64_t part) {
    work(rows_total * part / parts, rows_total * (part + 1) / parts);
  });
}

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

}  // namespace

bool FilterGradientBySpans(const ConvGeometry& g, Isa isa) {
  return FewChannels(g.in_c, isa) && g.dil_w == 1 && g.k_w * g.in_c >= KernelFor(isa).mr;
}

void DirectFilterGradient(const ConvGeometry& g, const float* x, const float* dy, float* dw,
                          Isa isa, ThreadPool* pool) {
  const gemm::KernelInfo& k = KernelFor(isa);
  const int mr = k.mr, nr = k.nr;
  const int64_t slivers = (g.out_c + nr - 1) / nr;
  const int64_t blocks = (g.in_c + mr - 1) / mr;  // of channels
  const int64_t taps = g.k_h * g.k_w;
  const int64_t total_rows = g.batch * g.out_h;
  // dy's rows are packed a group at a time, and each tile sums the whole group in registers (a
  // batch-reduce item per row) before it is stored.
  const int64_t group_rows = std::max<int64_t>(kFilterGradientGroupBytes / (g.out_w * nr * 4), 1);
  // Rows [r0, r1) of dy's sliver j (cols columns), packed: a row's out_w steps of nr values.
  auto pack_dy = [&](int64_t j, int cols, int64_t r0, int64_t r1, float* packed) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* dy_row = dy + r * g.out_w * g.out_c + j * nr;
      float* dst = packed + (r - r0) * g.out_w * nr;
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        std::copy(dy_row + ox * g.out_c, dy_row + ox * g.out_c + cols, dst + ox * nr);
      }
    }
  };
  // Sliver j's tiles for channel blocks [b0, b1), summed over dy's rows [r_begin, r_end), into
  // out (laid out as dw; every element of those tiles is written).
  auto sum_rows = [&](int64_t j, int64_t b0, int64_t b1, int64_t r_begin, int64_t r_end,
                      float* out) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, g.out_c - j * nr));
    const int64_t rows_per_group = std::min(group_rows, std::max<int64_t>(r_end - r_begin, 1));
    SliverSums sums(k, cols, rows_per_group, g.out_w, g.out_c, taps * (b1 - b0));
    auto& batch = sums.batch();
    // Tile (tap t, channel block b) is index t * (b1 - b0) + (b - b0).
    auto tile_of = [&](int64_t index) {
      const int64_t t = index / (b1 - b0), b = b0 + index % (b1 - b0);
      return std::pair<float*, int>(out + (t * g.in_c + b * mr) * g.out_c + j * nr,
                                    static_cast<int>(std::min<int64_t>(mr, g.in_c - b * mr)));
    };
    for (int64_t r0 = r_begin; r0 < r_end; r0 += rows_per_group) {
      const int64_t r1 = std::min(r_end, r0 + rows_per_group);
      pack_dy(j, cols, r0, r1, sums.packed());
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          // Output pixels whose tap (ky, kx) lands inside the row: [lo, hi).
          const int64_t shift = kx * g.dil_w - g.pad_left;
          const int64_t lo = shift >= 0 ? 0 : (-shift + g.stride_w - 1) / g.stride_w;
          const int64_t hi =
              std::min(g.out_w, g.in_w - 1 - shift < 0 ? 0 : (g.in_w - 1 - shift) / g.stride_w + 1);
          if (lo >= hi) continue;
          const int64_t t = ky * g.k_w + kx;
          for (int64_t b = b0; b < b1; ++b) {
            batch.clear();
            for (int64_t r = r0; r < r1; ++r) {
              const int64_t n = r / g.out_h, oy = r % g.out_h;
              const int64_t iy = oy * g.stride_h + ky * g.dil_h - g.pad_top;
              if (iy < 0 || iy >= g.in_h) continue;
              const float* x_row = x + (n * g.in_h + iy) * g.in_w * g.in_c;
              batch.push_back({x_row + (lo * g.stride_w + shift) * g.in_c + b * mr,
                               g.stride_w * g.in_c, sums.packed() + ((r - r0) * g.out_w + lo) * nr,
                               hi - lo});
            }
            const int64_t index = t * (b1 - b0) + (b - b0);
            const auto [tile, rows] = tile_of(index);
            sums.Reduce(index, tile, rows);
          }
        }
      }
    }
    sums.ZeroUntouched(tile_of);  // taps that only ever see padding
  };
  // Few channels, undilated: a filter row's k_w taps of C channels are k_w * C consecutive
  // values of x (21 for the RGB stem), so tiles take MR of those at a time (a span's sliver)
  // rather than a block of C channels that fills a fifth of the tile, and the windows are read
  // in place, not gathered into a packed A. x's rows are read from a copy of the image padded
  // with zeros left and right, so every output pixel's span lies inside a row: one item per
  // output row and filter row, of all out_w pixels. Tiles for filter rows [ky0, ky1).
  const int64_t span = g.k_w * g.in_c;
  const int64_t span_slivers = (span + mr - 1) / mr;
  const int64_t padded_w = (g.out_w - 1) * g.stride_w + g.k_w;  // from input column -pad_left
  auto sum_spans = [&](int64_t j, int64_t ky0, int64_t ky1, int64_t r_begin, int64_t r_end,
                       float* out) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, g.out_c - j * nr));
    const int64_t rows_per_group = std::min(group_rows, std::max<int64_t>(r_end - r_begin, 1));
    SliverSums sums(k, cols, rows_per_group, g.out_w, g.out_c, (ky1 - ky0) * span_slivers);
    auto& batch = sums.batch();
    // Tile (filter row ky, span sliver s) is index (ky - ky0) * span_slivers + s.
    auto tile_of = [&](int64_t index) {
      const int64_t ky = ky0 + index / span_slivers, s = index % span_slivers;
      return std::pair<float*, int>(out + (ky * span + s * mr) * g.out_c + j * nr,
                                    static_cast<int>(std::min<int64_t>(mr, span - s * mr)));
    };
    const int64_t padded_row = padded_w * g.in_c;
    std::vector<float> padded(static_cast<size_t>(g.in_h * padded_row));
    int64_t padded_image = -1;
    for (int64_t r0 = r_begin; r0 < r_end;) {
      // A group stays within one image, whose padded copy it reads.
      const int64_t n = r0 / g.out_h;
      const int64_t r1 = std::min({r_end, r0 + rows_per_group, (n + 1) * g.out_h});
      if (n != padded_image) {
        const int64_t left = std::min(g.pad_left, padded_w);
        const int64_t width = std::clamp<int64_t>(padded_w - left, 0, g.in_w);
        for (int64_t iy = 0; iy < g.in_h; ++iy) {
          float* row = padded.data() + iy * padded_row;
          const float* from = x + ((n * g.in_h + iy) * g.in_w) * g.in_c;
          std::fill(row, row + left * g.in_c, 0.0f);
          std::copy(from, from + width * g.in_c, row + left * g.in_c);
          std::fill(row + (left + width) * g.in_c, row + padded_row, 0.0f);
        }
        padded_image = n;
      }
      pack_dy(j, cols, r0, r1, sums.packed());
      for (int64_t ky = ky0; ky < ky1; ++ky) {
        for (int64_t s = 0; s < span_slivers; ++s) {
          batch.clear();
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t iy = r % g.out_h * g.stride_h + ky * g.dil_h - g.pad_top;
            if (iy < 0 || iy >= g.in_h) continue;
            batch.push_back({padded.data() + iy * padded_row + s * mr, g.stride_w * g.in_c,
                             sums.packed() + (r - r0) * g.out_w * nr, g.out_w});
          }
          const int64_t index = (ky - ky0) * span_slivers + s;
          const auto [tile, rows] = tile_of(index);
          sums.Reduce(index, tile, rows);
        }
      }
      r0 = r1;
    }
    sums.ZeroUntouched(tile_of);  // filter rows that only ever see padding
  };
  const bool spans = FilterGradientBySpans(g, isa);
  // The units a sliver's tiles are split into: filter rows (spans) or channel blocks.
  const int64_t units = spans ? g.k_h : blocks;
  auto sum_tiles = [&](int64_t j, int64_t u0, int64_t u1, int64_t r_begin, int64_t r_end,
                       float* out) {
    if (spans) return sum_spans(j, u0, u1, r_begin, r_end, out);
    sum_rows(j, u0, u1, r_begin, r_end, out);
  };
  auto run = [&](int64_t tasks, const std::function<void(int64_t)>& task) {
    if (tasks <= 1 || pool == nullptr) {
      for (int64_t i = 0; i < tasks; ++i) task(i);
    } else {
      pool->ParallelFor(tasks, task);
    }
  };

  const int64_t parts = FilterGradientParts(g, slivers);
  if (parts == 1) {
    // Slivers, and when they are fewer than the threads, groups of units too: the split
    // changes which thread sums a tile, never the order of its sum.
    const int64_t threads = pool == nullptr ? 1 : pool->num_threads();
    const int64_t groups = slivers >= threads ? 1 : std::min(units, threads);
    return run(slivers * groups, [&](int64_t item) {
      const int64_t j = item / groups, group = item % groups;
      sum_tiles(j, units * group / groups, units * (group + 1) / groups, 0, total_rows, dw);
    });
  }
  // Every tile of every part, then each element's parts added in part order.
  const int64_t size = taps * g.in_c * g.out_c;
  std::vector<float> partial(static_cast<size_t>(parts * size));
  run(slivers * parts, [&](int64_t item) {
    const int64_t part = item / slivers, j = item % slivers;
    sum_tiles(j, 0, units, total_rows * part / parts, total_rows * (part + 1) / parts,
              partial.data() + part * size);
  });
  constexpr int64_t kSumChunk = 4096;
  run((size + kSumChunk - 1) / kSumChunk, [&](int64_t chunk) {
    const int64_t end = std::min(size, (chunk + 1) * kSumChunk);
    for (int64_t i = chunk * kSumChunk; i < end; ++i) {
      float sum = partial[static_cast<size_t>(i)];
      for (int64_t p = 1; p < parts; ++p) sum += partial[static_cast<size_t>(p * size + i)];
      dw[i] = sum;
    }
  });
}

void AddWindowGradients(const ConvGeometry& g, const float* w, const float* dy, float* dx, Isa isa,
                        ThreadPool* pool) {
  const TapMap map = TapMap::Window(g);
  const int64_t rows = g.out_h * g.out_w, k = g.k_h * g.k_w * g.in_c;
  if (rows == 0) return;
  std::vector<float> columns(static_cast<size_t>(rows * k));
  for (int64_t n = 0; n < g.batch; ++n) {
    // columns[pixel, (ky, kx, c)] = dy[pixel, :] . w[(ky, kx, c), :]
    Sgemm(false, true, rows, k, g.out_c, dy + n * rows * g.out_c, g.out_c, w, g.out_c,
          columns.data(), k, isa, pool);
    float* image = dx + n * g.in_h * g.in_w * g.in_c;
    for (int64_t pixel = 0; pixel < rows; ++pixel) {  // in order: deterministic sums
      const int64_t oy = pixel / g.out_w, ox = pixel % g.out_w;
      const float* col = columns.data() + pixel * k;
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        const int64_t iy = map.y.At(oy, ky);
        if (iy < 0) continue;
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          const int64_t ix = map.x.At(ox, kx);
          if (ix < 0) continue;
          float* d = image + (iy * g.in_w + ix) * g.in_c;
          const float* src = col + (ky * g.k_w + kx) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) d[c] += src[c];
        }
      }
    }
  }
}

}  // namespace kernels
}  // namespace swigflow
