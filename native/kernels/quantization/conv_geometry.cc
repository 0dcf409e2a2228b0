#include "swigflow/kernels/quantization/conv_geometry.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace swigflow {
namespace quantization {

Status ConvShapes(const Tensor& input, const Tensor& filter, Int8ConvGeometry* g) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional: ", input.ShapeString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ", filter.ShapeString());
  }
  return ConvShapes(input, {filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)}, g);
}

Status ConvShapes(const Tensor& input, const std::vector<int64_t>& filter_shape,
                  Int8ConvGeometry* g) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional: ", input.ShapeString());
  }
  if (filter_shape.size() != 4 ||
      std::any_of(filter_shape.begin(), filter_shape.end(), [](int64_t d) { return d < 0; })) {
    return errors::InvalidArgument("the filter shape must be 4 sizes [kh, kw, in, out]");
  }
  if (input.dim(3) != filter_shape[2]) {
    return errors::InvalidArgument("input and filter must have the same depth: ", input.dim(3),
                                   " vs ", filter_shape[2]);
  }
  g->batch = input.dim(0);
  g->in_h = input.dim(1);
  g->in_w = input.dim(2);
  g->depth = input.dim(3);
  g->kh = filter_shape[0];
  g->kw = filter_shape[1];
  g->out_depth = filter_shape[3];
  return Status::OK();
}

void Im2ColRows::Rows(int64_t i0, int64_t rows, int64_t p0, int64_t kc, uint8_t* dst,
                      int64_t ld) const {
  const int64_t c = g_.depth;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    const int64_t x = i % g_.out_w, y = i / g_.out_w % g_.out_h, b = i / (g_.out_w * g_.out_h);
    uint8_t* out = dst + r * ld;
    for (int64_t p = p0; p < p0 + kc;) {
      const int64_t tap = p / c, ch = p % c;
      const int64_t run = std::min(c - ch, p0 + kc - p);  // within one tap
      const int64_t iy = g_.InY(y, tap / g_.kw), ix = g_.InX(x, tap % g_.kw);
      if (!g_.Inside(iy, ix)) {
        std::memset(out + (p - p0), pad_, static_cast<size_t>(run));
      } else {
        std::memcpy(out + (p - p0), input_ + ((b * g_.in_h + iy) * g_.in_w + ix) * c + ch,
                    static_cast<size_t>(run));
      }
      p += run;
    }
  }
}

bool Im2ColRows::PackGroupsOf4(int64_t i0, int64_t rows, int64_t p0, int64_t kc, int mr,
                               uint8_t* dst) const {
  const int64_t c = g_.depth;
  if (c % 4 != 0 || p0 % 4 != 0 || kc % 4 != 0) return false;
  const int64_t groups = kc / 4, stride = int64_t{mr} * 4;  // bytes between a row's groups
  const uint32_t pad_word = uint32_t{pad_} * 0x01010101u, zero = 0;
  // Divisions only here: rows and taps are then walked with counters.
  const int64_t tap0 = p0 / c, ch0 = p0 % c;
  int64_t x = i0 % g_.out_w, y = i0 / g_.out_w % g_.out_h, b = i0 / (g_.out_w * g_.out_h);
  for (int64_t ir = 0; ir < rows; ir += mr, dst += groups * stride) {
    for (int r = 0; r < mr; ++r) {
      uint8_t* d = dst + r * 4;
      if (ir + r >= rows) {
        for (int64_t q = 0; q < groups; ++q) std::memcpy(d + q * stride, &zero, 4);
        continue;
      }
      const uint8_t* image = input_ + b * g_.in_h * g_.in_w * c;
      int64_t ky = tap0 / g_.kw, kx = tap0 % g_.kw, ch = ch0;
      for (int64_t q = 0; q < groups;) {
        const int64_t words = std::min((c - ch) / 4, groups - q);  // within one tap
        const int64_t iy = g_.InY(y, ky), ix = g_.InX(x, kx);
        uint8_t* out = d + q * stride;
        if (!g_.Inside(iy, ix)) {
          for (int64_t w = 0; w < words; ++w) std::memcpy(out + w * stride, &pad_word, 4);
        } else {
          const uint8_t* src = image + (iy * g_.in_w + ix) * c + ch;
          for (int64_t w = 0; w < words; ++w) std::memcpy(out + w * stride, src + w * 4, 4);
        }
        q += words;
        ch = 0;
        if (++kx == g_.kw) {
          kx = 0;
          ++ky;
        }
      }
      if (++x == g_.out_w) {  // the next output pixel
        x = 0;
        if (++y == g_.out_h) {
          y = 0;
          ++b;
        }
      }
    }
  }
  return true;
}

Im2ColRows::Im2ColRows(const Int8ConvGeometry& g, const uint8_t* input, uint8_t pad)
    : g_(g), input_(input), pad_(pad), pad_pixel_(static_cast<size_t>(g.depth), pad) {
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      tap_offsets_.push_back((ky * g.dilation_h * g.in_w + kx * g.dilation_w) * g.depth);
    }
  }
}

bool Im2ColRows::RowRuns(int64_t i0, int rows, int64_t p0, int64_t kc, int mr,
                         const kernels::Int8RunsSlot& slot,
                         kernels::gemm::Int8RowRuns* runs) const {
  // A copy in locals: stores to the int64_t tables could otherwise alias g_'s fields, which
  // would then be read again for every row.
  const Int8ConvGeometry g = g_;
  const int64_t c = g.depth;
  if (c % 4 != 0 || p0 % c != 0 || kc % c != 0 || rows < 1 || rows > mr) return false;
  const int64_t taps = kc / c, tap0 = p0 / c;
  // Row i0's pixel by division; each later row steps x, then y, then the image (this runs once
  // per sliver of every block: divisions per row were an eighth of a 3x3 convolution's time).
  int64_t x = i0 % g.out_w, y = i0 / g.out_w % g.out_h, b = i0 / (g.out_w * g.out_h);
  const int64_t last_y = g.InY(0, g.kh - 1) - g.InY(0, 0);  // the window's extent
  const int64_t last_x = g.InX(0, g.kw - 1) - g.InX(0, 0);
  const int64_t* const shared = tap_offsets_.data() + tap0;
  const uint8_t* const pad = pad_pixel_.data();
  const int64_t ky0 = tap0 / g.kw, kx0 = tap0 % g.kw;
  for (int r = 0; r < rows; ++r) {
    if (r > 0 && ++x == g.out_w) {
      x = 0;
      if (++y == g.out_h) {
        y = 0;
        ++b;
      }
    }
    const uint8_t* image = input_ + b * g.in_h * g.in_w * c;
    const int64_t iy0 = g.InY(y, 0), ix0 = g.InX(x, 0);
    if (g.Inside(iy0, ix0) && g.Inside(iy0 + last_y, ix0 + last_x)) {
      // A window inside the input: its origin and the taps' shared offsets.
      slot.origins[r] = reinterpret_cast<uintptr_t>(image + (iy0 * g.in_w + ix0) * c);
      slot.offsets[r] = shared;
      continue;
    }
    // A window that leaves the input: the address of each tap, in the pixel or the pad pixel.
    int64_t* table = slot.tables + r * taps;
    int64_t ky = ky0, kx = kx0;
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t iy = g.InY(y, ky), ix = g.InX(x, kx);
      const uint8_t* tap = g.Inside(iy, ix) ? image + (iy * g.in_w + ix) * c : pad;
      table[t] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(tap));
      if (++kx == g.kw) {
        kx = 0;
        ++ky;
      }
    }
    slot.origins[r] = 0;
    slot.offsets[r] = table;
  }
  runs->origins = slot.origins;
  runs->offsets = slot.offsets;
  runs->runs = static_cast<int>(taps);
  runs->groups = c / 4;
  return true;
}

std::vector<int32_t> Im2ColRows::RowSums() const {
  const int64_t c = g_.depth;
  std::vector<uint32_t> pixel(static_cast<size_t>(g_.batch * g_.in_h * g_.in_w), 0);
  for (size_t q = 0; q < pixel.size(); ++q) {
    for (int64_t ch = 0; ch < c; ++ch) pixel[q] += input_[static_cast<int64_t>(q) * c + ch];
  }
  const uint32_t pad_sum = static_cast<uint32_t>(pad_) * static_cast<uint32_t>(c);
  std::vector<int32_t> sums(static_cast<size_t>(g_.Rows()));
  for (size_t i = 0; i < sums.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i);
    const int64_t x = n % g_.out_w, y = n / g_.out_w % g_.out_h, b = n / (g_.out_w * g_.out_h);
    uint32_t sum = 0;
    for (int64_t ky = 0; ky < g_.kh; ++ky) {
      for (int64_t kx = 0; kx < g_.kw; ++kx) {
        const int64_t iy = g_.InY(y, ky), ix = g_.InX(x, kx);
        sum += g_.Inside(iy, ix) ? pixel[static_cast<size_t>((b * g_.in_h + iy) * g_.in_w + ix)]
                                 : pad_sum;
      }
    }
    sums[i] = static_cast<int32_t>(sum);
  }
  return sums;
}

void AddBackOutsideTaps(const Int8ConvGeometry& g, int32_t za, const Operand8& w, int32_t* c) {
  const int64_t taps = g.kh * g.kw, n = g.out_depth;
  std::vector<uint32_t> tap_sums(static_cast<size_t>(taps * n), 0);  // sum over c of (w - zw)
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t ch = 0; ch < g.depth; ++ch) {
      for (int64_t j = 0; j < n; ++j) {
        const uint8_t raw = w.data[(t * g.depth + ch) * n + j];
        const int v = w.is_signed ? static_cast<int8_t>(raw) : raw - 128;
        tap_sums[static_cast<size_t>(t * n + j)] +=
            static_cast<uint32_t>(v) - static_cast<uint32_t>(w.zero);
      }
    }
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t y = 0; y < g.out_h; ++y) {
      for (int64_t x = 0; x < g.out_w; ++x) {
        int32_t* out = c + ((b * g.out_h + y) * g.out_w + x) * n;
        for (int64_t t = 0; t < taps; ++t) {
          if (g.Inside(g.InY(y, t / g.kw), g.InX(x, t % g.kw))) continue;
          for (int64_t j = 0; j < n; ++j) {
            out[j] = static_cast<int32_t>(static_cast<uint32_t>(out[j]) +
                                          static_cast<uint32_t>(za) *
                                              tap_sums[static_cast<size_t>(t * n + j)]);
          }
        }
      }
    }
  }
}

}  // namespace quantization
}  // namespace swigflow
