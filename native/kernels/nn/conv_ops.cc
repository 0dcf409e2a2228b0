// Conv2D and its two backprops, NHWC activations and HWIO filters, with TensorFlow's attributes
// and semantics (SAME puts the odd padding cell at the bottom/right). Each is a GEMM whose left
// operand is read from the activations while packing or in place, never from an im2col buffer:
//
//   Conv2D:               out[pixel, oc]    = sum over (ky, kx, c)  x_window[pixel, (ky, kx, c)]
//                                                                   * w[ky, kx, c, oc]
//   Conv2DBackpropInput:  dx[in pixel, c]   = sum over (ky, kx, oc) dy_at[in pixel, (ky, kx, oc)]
//                                                                   * w[ky, kx, c, oc]
//   Conv2DBackpropFilter: dw[ky, kx, c, oc] = sum over pixels       x_window[pixel, (ky, kx, c)]
//                                                                   * dy[pixel, oc]
//
// The paths, by shape: 1x1 convolutions are plain GEMMs; with kFewChannels channels or more the
// direct paths read windows in place (DirectConv, DirectFilterGradient); otherwise the packers
// below form the operand (WindowRows, WindowColumns, GradientRows), except the input gradient of
// few channels, which computes window gradients with one wide GEMM and adds them up (col2im,
// ScatterColumns). Every output element is summed by one thread in a fixed order:
// deterministic for any number of threads.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/nn/window_geometry.h"

namespace swigflow {
namespace {

struct Geometry {
  int64_t batch, in_h, in_w, in_c;
  int64_t k_h, k_w, out_c;
  int64_t out_h, out_w;
  int64_t stride_h, stride_w, dil_h, dil_w;
  int64_t pad_top, pad_left;
};

// Below this many channels a tap's run of K (or an MR block of channels) is too short to fill
// register tiles: the direct paths would load and store the output tile once per few FMAs (the
// RGB stem), and the input gradient's GEMM would have a handful of columns. One threshold for
// all three: each is about filling a tile along the channel dimension.
constexpr int64_t kFewChannels = 16;

// Checks the attributes and the shapes of input [N,H,W,C] and filter [KH,KW,C,OC].
Status MakeGeometry(const OpKernelContext& ctx, const std::vector<int64_t>& input,
                    const std::vector<int64_t>& filter, Geometry* g) {
  if (ctx.GetString("data_format") != "NHWC") {
    return errors::InvalidArgument("Conv2D on the CPU supports data_format NHWC only");
  }
  if (input.size() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional", ShapeString(input));
  }
  if (filter.size() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ", ShapeString(filter));
  }
  const auto& strides = ctx.GetInts("strides");
  if (strides.size() != 4) {
    return errors::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  }
  if (strides[0] != 1 || strides[3] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  if (strides[1] <= 0 || strides[2] <= 0) {
    return errors::InvalidArgument("Row and column strides should be larger than 0.");
  }
  const auto& dilations = ctx.GetInts("dilations");
  if (dilations.size() != 4) {
    return errors::InvalidArgument("Sliding window dilations field must specify 4 dimensions");
  }
  if (dilations[0] != 1 || dilations[3] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  }
  if (dilations[1] <= 0 || dilations[2] <= 0) {
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  }
  const std::string& padding = ctx.GetString("padding");
  const auto& explicit_paddings = ctx.GetInts("explicit_paddings");
  std::vector<int64_t> pads(8, 0);
  if (padding == "EXPLICIT") {
    if (explicit_paddings.size() != 8) {
      return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                     explicit_paddings.size());
    }
    for (int64_t p : explicit_paddings) {
      if (p < 0) {
        return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative");
      }
    }
    if (explicit_paddings[0] || explicit_paddings[1] || explicit_paddings[6] ||
        explicit_paddings[7]) {
      return errors::InvalidArgument(
          "Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
    pads = explicit_paddings;
  } else if (!explicit_paddings.empty()) {
    return errors::InvalidArgument(
        "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  for (int64_t d : input) {
    if (d < 0) return errors::InvalidArgument("negative dimension in input ", ShapeString(input));
  }
  for (int64_t d : filter) {
    if (d <= 0) {
      return errors::InvalidArgument("filter dimensions must be positive: ", ShapeString(filter));
    }
  }
  if (input[3] != filter[2]) {
    return errors::InvalidArgument(
        "input depth must be evenly divisible by filter depth: ", input[3], " vs ", filter[2],
        input[3] % filter[2] == 0 ? " (grouped convolutions are not "
                                    "supported)"
                                  : "");
  }
  *g = Geometry{input[0],     input[1], input[2], input[3],   filter[0],  filter[1],
                filter[3],    0,        0,        strides[1], strides[2], dilations[1],
                dilations[2], 0,        0};
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(
      g->in_h, g->k_h, g->dil_h, g->stride_h, padding, pads[2], pads[3], &g->out_h, &g->pad_top));
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(
      g->in_w, g->k_w, g->dil_w, g->stride_w, padding, pads[4], pads[5], &g->out_w, &g->pad_left));
  // Indexes below are int64; keep every product of dimensions far from overflow.
  const double elements = static_cast<double>(g->batch) * g->out_h * g->out_w * g->k_h * g->k_w *
                          std::max(g->in_c, g->out_c);
  if (elements > 9e15) return errors::InvalidArgument("convolution too large");
  return Status::OK();
}

// The rows of the forward im2col matrix, [pixel, (ky, kx, c)], read from x on the fly.
class WindowRows : public kernels::PackedSource {
 public:
  WindowRows(const Geometry& g, const float* x) : g_(g), x_(x) {}

  void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const override {
    const int64_t pixels = g_.out_h * g_.out_w;
    for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
      for (int r = 0; r < rows; ++r) {
        const int64_t row = i0 + s * mr + r;
        const int64_t n = row / pixels, oy = row % pixels / g_.out_w, ox = row % g_.out_w;
        const float* image = x_ + n * g_.in_h * g_.in_w * g_.in_c;
        const int64_t iy0 = oy * g_.stride_h - g_.pad_top, ix0 = ox * g_.stride_w - g_.pad_left;
        int64_t c = p0 % g_.in_c, kx = p0 / g_.in_c % g_.k_w, ky = p0 / g_.in_c / g_.k_w;
        for (int64_t q = 0; q < kc;) {
          const int64_t iy = iy0 + ky * g_.dil_h, ix = ix0 + kx * g_.dil_w;
          // Undilated taps of one filter row that all lie inside the image are one contiguous
          // run of input (k_w * C values): few channels (the RGB stem) would give runs of 3.
          const int64_t last_ix = ix0 + (g_.k_w - 1) * g_.dil_w;
          const bool whole_row = g_.dil_w == 1 && ix0 >= 0 && last_ix < g_.in_w;
          const int64_t span = whole_row ? (g_.k_w - kx) * g_.in_c - c : g_.in_c - c;
          const int64_t run = std::min(span, kc - q);
          float* d = dst + q * mr + r;
          if (iy >= 0 && iy < g_.in_h && ix >= 0 && ix < g_.in_w) {
            const float* src = image + (iy * g_.in_w + ix) * g_.in_c + c;
            for (int64_t t = 0; t < run; ++t) d[t * mr] = src[t];
          } else {
            for (int64_t t = 0; t < run; ++t) d[t * mr] = 0.0f;
          }
          q += run;
          // Advance (ky, kx, c) by `run` values.
          const int64_t pos = (kx * g_.in_c + c) + run;
          kx = pos / g_.in_c;
          c = pos % g_.in_c;
          if (kx >= g_.k_w) {
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

 private:
  const Geometry g_;
  const float* x_;
};

// The transpose of WindowRows, [(ky, kx, c), pixel]: the left operand of the filter gradient.
// A sliver's rows are a few runs of channels of one tap each, the same for every pixel, so they
// are worked out once per sliver; each pixel's window origin once per block.
class WindowColumns : public kernels::PackedSource {
 public:
  WindowColumns(const Geometry& g, const float* x) : g_(g), x_(x) {}

  void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const override {
    struct Origin {
      const float* image;
      int64_t iy0, ix0;
    };
    std::vector<Origin> origins(static_cast<size_t>(kc));
    const int64_t pixels = g_.out_h * g_.out_w;
    for (int64_t q = 0; q < kc; ++q) {
      const int64_t pixel = p0 + q;
      const int64_t n = pixel / pixels, oy = pixel % pixels / g_.out_w, ox = pixel % g_.out_w;
      origins[static_cast<size_t>(q)] = {x_ + n * g_.in_h * g_.in_w * g_.in_c,
                                         oy * g_.stride_h - g_.pad_top,
                                         ox * g_.stride_w - g_.pad_left};
    }
    struct Run {
      int r, length;
      int64_t dy, dx, c;  // tap offsets (dilated) and first channel
    };
    std::vector<Run> runs;
    for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
      const int64_t first = i0 + s * mr;
      runs.clear();
      int64_t c = first % g_.in_c, kx = first / g_.in_c % g_.k_w, ky = first / g_.in_c / g_.k_w;
      for (int r = 0; r < rows;) {
        const int length = static_cast<int>(std::min<int64_t>(g_.in_c - c, rows - r));
        runs.push_back({r, length, ky * g_.dil_h, kx * g_.dil_w, c});
        r += length;
        c = 0;
        if (++kx == g_.k_w) {
          kx = 0;
          ++ky;
        }
      }
      for (int64_t q = 0; q < kc; ++q) {
        const Origin& o = origins[static_cast<size_t>(q)];
        float* d = dst + q * mr;
        for (const Run& run : runs) {
          const int64_t iy = o.iy0 + run.dy, ix = o.ix0 + run.dx;
          if (iy >= 0 && iy < g_.in_h && ix >= 0 && ix < g_.in_w) {
            const float* src = o.image + (iy * g_.in_w + ix) * g_.in_c + run.c;
            for (int t = 0; t < run.length; ++t) d[run.r + t] = src[t];
          } else {
            for (int t = 0; t < run.length; ++t) d[run.r + t] = 0.0f;
          }
        }
        for (int r = rows; r < mr; ++r) d[r] = 0.0f;
      }
    }
  }

 private:
  const Geometry g_;
  const float* x_;
};

// For the input gradient: [input pixel, (ky, kx, oc)] = dy at the output pixel that window
// position (ky, kx) of it came from, zero when none did (stride gaps, borders).
class GradientRows : public kernels::PackedSource {
 public:
  GradientRows(const Geometry& g, const float* dy) : g_(g), dy_(dy) {}

  void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const override {
    const int64_t pixels = g_.in_h * g_.in_w;
    for (int64_t s = 0; s * mr < mc; ++s, dst += kc * mr) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, mc - s * mr));
      for (int r = 0; r < rows; ++r) {
        const int64_t row = i0 + s * mr + r;
        const int64_t n = row / pixels, iy = row % pixels / g_.in_w, ix = row % g_.in_w;
        const float* image = dy_ + n * g_.out_h * g_.out_w * g_.out_c;
        int64_t oc = p0 % g_.out_c, kx = p0 / g_.out_c % g_.k_w, ky = p0 / g_.out_c / g_.k_w;
        for (int64_t q = 0; q < kc;) {
          const int64_t run = std::min(g_.out_c - oc, kc - q);
          const int64_t ty = iy + g_.pad_top - ky * g_.dil_h, tx = ix + g_.pad_left - kx * g_.dil_w;
          const int64_t oy = ty / g_.stride_h, ox = tx / g_.stride_w;
          float* d = dst + q * mr + r;
          if (ty >= 0 && tx >= 0 && ty % g_.stride_h == 0 && tx % g_.stride_w == 0 &&
              oy < g_.out_h && ox < g_.out_w) {
            const float* src = image + (oy * g_.out_w + ox) * g_.out_c + oc;
            for (int64_t t = 0; t < run; ++t) d[t * mr] = src[t];
          } else {
            for (int64_t t = 0; t < run; ++t) d[t * mr] = 0.0f;
          }
          q += run;
          oc = 0;
          if (++kx == g_.k_w) {
            kx = 0;
            ++ky;
          }
        }
      }
      for (int r = rows; r < mr; ++r) {
        for (int64_t q = 0; q < kc; ++q) dst[q * mr + r] = 0.0f;
      }
    }
  }

 private:
  const Geometry g_;
  const float* dy_;
};

// Convolution as micro-kernel tiles that read windows in place. For output pixel ox of a row,
// tap t reads source pixel (oy * step_y + ty_t, ox * step_x + tx_t): MR neighbouring output
// pixels of one tap are MR source pixels step_x apart, a strided matrix with lda = step_x * C,
// which the strided micro-kernel reads directly. Only tiles that reach into the padding are
// packed (one tap at a time). B (the filter, [taps * C, OC]) is packed once per call. Each output
// tile sums its taps in order on one thread: deterministic for any number of threads.
struct DirectPlan {
  const float* src;
  int64_t batch, src_h, src_w, src_c;
  int64_t out_h, out_w, out_c;
  int64_t step_y, step_x;
  std::vector<std::pair<int64_t, int64_t>> taps;  // (ty, tx)
  const float* b;                                 // [taps.size() * src_c, out_c]
};

// Whether DirectConv suits a convolution: with fewer than kFewChannels source channels a tap's K
// is too short to pay for loading and storing the output tile once per tap (e.g. the RGB stem),
// and tiles never span two output rows, so rows must fill them well (56 of 60 places for 56-wide
// rows and 12-row tiles, but 28 of 36 for 28-wide ones). The packed implicit GEMM is used
// otherwise.
bool UseDirect(int64_t src_c, int64_t out_w, Isa isa) {
  const int64_t mr = kernels::KernelFor(isa).mr;
  const int64_t tiles = (out_w + mr - 1) / mr;
  return src_c >= kFewChannels && out_w > 0 && out_w * 10 >= tiles * mr * 9;
}

void DirectConv(const DirectPlan& d, float* out, Isa isa, ThreadPool* pool) {
  const kernels::gemm::KernelInfo& k = kernels::KernelFor(isa);
  const int mr = k.mr, nr = k.nr;
  const int64_t kdim = static_cast<int64_t>(d.taps.size()) * d.src_c;
  const int64_t slivers = (d.out_c + nr - 1) / nr;
  std::vector<float> packed_b(static_cast<size_t>(slivers * kdim * nr), 0.0f);
  for (int64_t j = 0; j < slivers; ++j) {
    const int64_t cols = std::min<int64_t>(nr, d.out_c - j * nr);
    for (int64_t p = 0; p < kdim; ++p) {
      std::copy(d.b + p * d.out_c + j * nr, d.b + p * d.out_c + j * nr + cols,
                packed_b.data() + (j * kdim + p) * nr);
    }
  }
  const int64_t kc_max = k.kc;
  const int64_t rows_total = d.batch * d.out_h;
  auto work = [&](int64_t r0, int64_t r1) {
    std::vector<float> a_tile(static_cast<size_t>(mr * kc_max));
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t n = row / d.out_h, oy = row % d.out_h;
      float* out_row = out + row * d.out_w * d.out_c;
      for (int64_t j = 0; j < slivers; ++j) {
        const int cols = static_cast<int>(std::min<int64_t>(nr, d.out_c - j * nr));
        const float* b_sliver = packed_b.data() + j * kdim * nr;
        for (int64_t ox0 = 0; ox0 < d.out_w; ox0 += mr) {
          const int rows = static_cast<int>(std::min<int64_t>(mr, d.out_w - ox0));
          float* tile = out_row + ox0 * d.out_c + j * nr;
          bool first = true;
          for (size_t t = 0; t < d.taps.size(); ++t) {
            const int64_t sy = oy * d.step_y + d.taps[t].first;
            if (sy < 0 || sy >= d.src_h) continue;  // a row of padding adds nothing
            const int64_t sx0 = ox0 * d.step_x + d.taps[t].second;
            const int64_t sx_last = sx0 + (rows - 1) * d.step_x;
            const float* line = d.src + (n * d.src_h + sy) * d.src_w * d.src_c;
            const bool inside = sx0 >= 0 && sx_last < d.src_w;
            for (int64_t c0 = 0; c0 < d.src_c; c0 += kc_max) {
              const int64_t len = std::min(kc_max, d.src_c - c0);
              const float* b_block = b_sliver + (static_cast<int64_t>(t) * d.src_c + c0) * nr;
              if (inside) {
                k.strided(len, line + sx0 * d.src_c + c0, d.step_x * d.src_c, b_block, tile,
                          d.out_c, rows, cols, !first);
              } else {
                for (int i = 0; i < mr; ++i) {
                  const int64_t sx = sx0 + i * d.step_x;
                  const bool valid = i < rows && sx >= 0 && sx < d.src_w;
                  const float* src = line + sx * d.src_c + c0;
                  for (int64_t p = 0; p < len; ++p) {
                    a_tile[static_cast<size_t>(p * mr + i)] = valid ? src[p] : 0.0f;
                  }
                }
                k.kernel(len, a_tile.data(), b_block, tile, d.out_c, rows, cols, !first);
              }
              first = false;
            }
          }
          if (first) {  // every tap fell in the padding
            for (int i = 0; i < rows; ++i)
              std::fill(tile + i * d.out_c, tile + i * d.out_c + cols, 0.0f);
          }
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

// The filter gradient with windows read in place. dw[(tap, c), oc] sums, over output pixels,
// x at the pixel's tap position times dy there. For one output row and one tap, MR consecutive
// channels of successive pixels are a "stepped" matrix of x (steps stride_w * C apart), which
// the stepped micro-kernel reads directly; dy's row is packed once per row and reused by every
// tap and channel block. Work is split over output-channel slivers (then channel blocks), and
// each dw tile sums the rows in order on one thread: deterministic.
void DirectFilterGradient(const Geometry& g, const float* x, const float* dy, float* dw, Isa isa,
                          ThreadPool* pool) {
  const kernels::gemm::KernelInfo& k = kernels::KernelFor(isa);
  const int mr = k.mr, nr = k.nr;
  const int64_t slivers = (g.out_c + nr - 1) / nr;
  const int64_t blocks = (g.in_c + mr - 1) / mr;  // of channels
  const int64_t threads = pool == nullptr ? 1 : pool->num_threads();
  const int64_t groups = slivers >= threads ? 1 : std::min(blocks, threads);
  const int64_t items = slivers * groups;
  const int64_t taps = g.k_h * g.k_w;
  auto work = [&](int64_t item) {
    const int64_t j = item / groups, group = item % groups;
    const int64_t b0 = blocks * group / groups, b1 = blocks * (group + 1) / groups;
    const int cols = static_cast<int>(std::min<int64_t>(nr, g.out_c - j * nr));
    std::vector<float> packed(static_cast<size_t>(g.out_w * nr), 0.0f);
    std::vector<bool> touched(static_cast<size_t>(taps * (b1 - b0)), false);
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t oy = 0; oy < g.out_h; ++oy) {
        const float* dy_row = dy + ((n * g.out_h + oy) * g.out_w) * g.out_c + j * nr;
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          std::copy(dy_row + ox * g.out_c, dy_row + ox * g.out_c + cols, packed.data() + ox * nr);
        }
        for (int64_t ky = 0; ky < g.k_h; ++ky) {
          const int64_t iy = oy * g.stride_h + ky * g.dil_h - g.pad_top;
          if (iy < 0 || iy >= g.in_h) continue;
          const float* x_row = x + (n * g.in_h + iy) * g.in_w * g.in_c;
          for (int64_t kx = 0; kx < g.k_w; ++kx) {
            // Output pixels whose tap (ky, kx) lands inside the row: [lo, hi).
            const int64_t shift = kx * g.dil_w - g.pad_left;
            const int64_t lo = shift >= 0 ? 0 : (-shift + g.stride_w - 1) / g.stride_w;
            const int64_t hi = std::min(
                g.out_w, g.in_w - 1 - shift < 0 ? 0 : (g.in_w - 1 - shift) / g.stride_w + 1);
            if (lo >= hi) continue;
            const int64_t t = ky * g.k_w + kx;
            for (int64_t b = b0; b < b1; ++b) {
              const int rows = static_cast<int>(std::min<int64_t>(mr, g.in_c - b * mr));
              float* tile = dw + (t * g.in_c + b * mr) * g.out_c + j * nr;
              const size_t flag = static_cast<size_t>(t * (b1 - b0) + (b - b0));
              k.stepped(hi - lo, x_row + (lo * g.stride_w + shift) * g.in_c + b * mr,
                        g.stride_w * g.in_c, packed.data() + lo * nr, tile, g.out_c, rows, cols,
                        touched[flag]);
              touched[flag] = true;
            }
          }
        }
      }
    }
    // Tiles no pixel reached (taps that only ever see padding) are zero.
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t b = b0; b < b1; ++b) {
        if (touched[static_cast<size_t>(t * (b1 - b0) + (b - b0))]) continue;
        const int rows = static_cast<int>(std::min<int64_t>(mr, g.in_c - b * mr));
        float* tile = dw + (t * g.in_c + b * mr) * g.out_c + j * nr;
        for (int i = 0; i < rows; ++i)
          std::fill(tile + i * g.out_c, tile + i * g.out_c + cols, 0.0f);
      }
    }
  };
  if (items <= 1 || pool == nullptr) {
    for (int64_t item = 0; item < items; ++item) work(item);
    return;
  }
  pool->ParallelFor(items, work);
}

// A 1-D int32/int64 tensor of 4 sizes (input_sizes, filter_sizes).
Status SizesFrom(const Tensor& t, const char* what, std::vector<int64_t>* sizes) {
  if (t.dims() != 1 || t.dim(0) != 4) {
    return errors::InvalidArgument(what, " must be a 1-D tensor of 4 elements, got shape ",
                                   t.ShapeString());
  }
  sizes->resize(4);
  for (int i = 0; i < 4; ++i) {
    (*sizes)[static_cast<size_t>(i)] =
        t.dtype() == DataType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return Status::OK();
}

bool Is1x1Gemm(const Geometry& g) {
  return g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
         g.pad_left == 0 && g.out_h == g.in_h && g.out_w == g.in_w;
}

class Conv2DOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& w = ctx->input(1);
    Geometry g;
    OP_REQUIRES_OK(ctx, MakeGeometry(*ctx, x.shape(), w.shape(), &g));
    // The GEMM writes every element (zeros when K is 0).
    Tensor* out = ctx->allocate_output(0, {g.batch, g.out_h, g.out_w, g.out_c}, true);
    const int64_t m = g.batch * g.out_h * g.out_w, k = g.k_h * g.k_w * g.in_c;
    if (m == 0) return;
    if (Is1x1Gemm(g)) {  // the input already is the im2col matrix
      kernels::Sgemm(false, false, m, g.out_c, k, x.data<float>(), k, w.data<float>(), g.out_c,
                     out->data<float>(), g.out_c, ctx->isa(), ctx->pool());
      return;
    }
    if (UseDirect(g.in_c, g.out_w, ctx->isa())) {
      DirectPlan plan{x.data<float>(), g.batch, g.in_h,     g.in_w,     g.in_c, g.out_h,
                      g.out_w,         g.out_c, g.stride_h, g.stride_w, {},     w.data<float>()};
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          plan.taps.emplace_back(ky * g.dil_h - g.pad_top, kx * g.dil_w - g.pad_left);
        }
      }
      return DirectConv(plan, out->data<float>(), ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(WindowRows(g, x.data<float>()), false, m, g.out_c, k, w.data<float>(),
                          g.out_c, out->data<float>(), g.out_c, false, ctx->isa(), ctx->pool());
  }
};

class Conv2DBackpropInputOp : public OpKernel {
 public:
  // With fewer than kFewChannels input channels the GEMM would have a handful of columns (3 for
  // RGB) and waste most of each register tile: form the window gradients with a wide GEMM
  // instead and add them up (col2im), an image at a time.

  static void ScatterColumns(OpKernelContext* ctx, const Geometry& g, const Tensor& w,
                             const Tensor& dy, const std::vector<int64_t>& input_sizes) {
    Tensor* dx = ctx->allocate_output(0, input_sizes);  // zeroed: window gradients add up
    const int64_t rows = g.out_h * g.out_w, k = g.k_h * g.k_w * g.in_c;
    if (rows == 0) return;
    std::vector<float> columns(static_cast<size_t>(rows * k));
    for (int64_t n = 0; n < g.batch; ++n) {
      // columns[pixel, (ky, kx, c)] = dy[pixel, :] . w[(ky, kx, c), :]
      kernels::Sgemm(false, true, rows, k, g.out_c, dy.data<float>() + n * rows * g.out_c, g.out_c,
                     w.data<float>(), g.out_c, columns.data(), k, ctx->isa(), ctx->pool());
      float* image = dx->data<float>() + n * g.in_h * g.in_w * g.in_c;
      for (int64_t pixel = 0; pixel < rows; ++pixel) {  // in order: deterministic sums
        const int64_t oy = pixel / g.out_w, ox = pixel % g.out_w;
        const float* col = columns.data() + pixel * k;
        for (int64_t ky = 0; ky < g.k_h; ++ky) {
          const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dil_h;
          if (iy < 0 || iy >= g.in_h) continue;
          for (int64_t kx = 0; kx < g.k_w; ++kx) {
            const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dil_w;
            if (ix < 0 || ix >= g.in_w) continue;
            float* d = image + (iy * g.in_w + ix) * g.in_c;
            const float* src = col + (ky * g.k_w + kx) * g.in_c;
            for (int64_t c = 0; c < g.in_c; ++c) d[c] += src[c];
          }
        }
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> input_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(0), "input_sizes", &input_sizes));
    const Tensor& w = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    Geometry g;
    OP_REQUIRES_OK(ctx, MakeGeometry(*ctx, input_sizes, w.shape(), &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropInput: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    if (g.in_c < kFewChannels) return ScatterColumns(ctx, g, w, dy, input_sizes);
    Tensor* dx = ctx->allocate_output(0, input_sizes, true);  // every element written
    const int64_t m = g.batch * g.in_h * g.in_w, k = g.k_h * g.k_w * g.out_c;
    if (m == 0) return;
    // B[(ky, kx, oc), c] = w[ky, kx, c, oc]: the filter with its last two axes swapped.
    std::vector<float> wt(static_cast<size_t>(k * g.in_c));
    const float* wd = w.data<float>();
    for (int64_t t = 0; t < g.k_h * g.k_w; ++t) {
      for (int64_t c = 0; c < g.in_c; ++c) {
        for (int64_t oc = 0; oc < g.out_c; ++oc) {
          wt[static_cast<size_t>((t * g.out_c + oc) * g.in_c + c)] =
              wd[(t * g.in_c + c) * g.out_c + oc];
        }
      }
    }
    if (g.stride_h == 1 && g.stride_w == 1 && UseDirect(g.out_c, g.in_w, ctx->isa())) {
      // Stride 1: input pixel (iy, ix) gets dy at (iy + pad - ky * dil, ix + pad - kx * dil).
      DirectPlan plan{dy.data<float>(), g.batch, g.out_h, g.out_w, g.out_c, g.in_h,
                      g.in_w,           g.in_c,  1,       1,       {},      wt.data()};
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          plan.taps.emplace_back(g.pad_top - ky * g.dil_h, g.pad_left - kx * g.dil_w);
        }
      }
      return DirectConv(plan, dx->data<float>(), ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(GradientRows(g, dy.data<float>()), false, m, g.in_c, k, wt.data(), g.in_c,
                          dx->data<float>(), g.in_c, false, ctx->isa(), ctx->pool());
  }
};

class Conv2DBackpropFilterOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> filter_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(1), "filter_sizes", &filter_sizes));
    const Tensor& dy = ctx->input(2);
    Geometry g;
    OP_REQUIRES_OK(ctx, MakeGeometry(*ctx, x.shape(), filter_sizes, &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropFilter: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    Tensor* dw = ctx->allocate_output(0, filter_sizes);
    const int64_t m = g.k_h * g.k_w * g.in_c, k = g.batch * g.out_h * g.out_w;
    if (k == 0) return;  // stays zero
    if (Is1x1Gemm(g)) {
      kernels::Sgemm(true, false, m, g.out_c, k, x.data<float>(), m, dy.data<float>(), g.out_c,
                     dw->data<float>(), g.out_c, ctx->isa(), ctx->pool());
      return;
    }
    if (g.in_c >= kFewChannels) {  // blocks of MR channels well filled
      return DirectFilterGradient(g, x.data<float>(), dy.data<float>(), dw->data<float>(),
                                  ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(WindowColumns(g, x.data<float>()), false, m, g.out_c, k, dy.data<float>(),
                          g.out_c, dw->data<float>(), g.out_c, false, ctx->isa(), ctx->pool());
  }
};

#define SWIGFLOW_CONV_ATTRS                           \
  Attr("T: {float}")                                  \
      .Attr("strides: list(int)")                     \
      .Attr("use_cudnn_on_gpu: bool = true")          \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
      .Attr("explicit_paddings: list(int) = []")      \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS.Doc("2-D convolution of NHWC input with an HWIO filter.");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS.Doc("The gradient of Conv2D with respect to its input.");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS.Doc("The gradient of Conv2D with respect to its filter.");

REGISTER_KERNEL("Conv2D", DataType::kFloat, Conv2DOp);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kFloat, Conv2DBackpropInputOp);
REGISTER_KERNEL("Conv2DBackpropFilter", DataType::kFloat, Conv2DBackpropFilterOp);

}  // namespace
}  // namespace swigflow
