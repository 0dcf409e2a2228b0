#include "swigflow/kernels/nn/conv_direct.h"

#include <algorithm>
#include <cstdint>
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
