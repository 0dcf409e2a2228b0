// The shape of a 2-D convolution (NHWC activations, HWIO filters) and the map from the pixels a
// GEMM operand's rows walk to the pixels its taps read. Conv2D and both backprops are GEMMs over
// this map: forward, an output pixel reads the input at its window; the input gradient, an
// input pixel reads dy at the output pixels whose windows covered it.
#ifndef SWIGFLOW_KERNELS_NN_CONV_GEOMETRY_H_
#define SWIGFLOW_KERNELS_NN_CONV_GEOMETRY_H_

#include <cstdint>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {
namespace kernels {

// One group's convolution: in_c and out_c count the channels of one group, so the tensors hold
// in_c * groups and out_c * groups channels (groups is 1 unless the convolution is grouped).
struct ConvGeometry {
  int64_t batch, in_h, in_w, in_c;
  int64_t k_h, k_w, out_c;
  int64_t out_h, out_w;
  int64_t stride_h, stride_w, dil_h, dil_w;
  int64_t pad_top, pad_left;
  int64_t groups;
};

// Checks ctx's Conv2D attributes (strides, dilations, padding, explicit_paddings, data_format)
// and the shapes of input [N,H,W,C * groups] and filter [KH,KW,C,OC], with TensorFlow's messages. A
// filter dimension may be 0 only when `empty_filter` (the backprops: their results are then
// empty or zero, as in TensorFlow).
Status MakeConvGeometry(const OpKernelContext& ctx, const std::vector<int64_t>& input,
                        const std::vector<int64_t>& filter, bool empty_filter, ConvGeometry* g);

// Whether the input already is the im2col matrix: a 1x1 filter, stride 1, no padding.
bool Is1x1Gemm(const ConvGeometry& g);

// One axis of a tap map. Row coordinate y at tap k reads source coordinate
// (y * scale + k * tap_step + offset) / divisor, and nothing when that division is inexact or the
// result falls outside [0, size): padding, or a stride's gaps seen from the gradient's side.
struct TapAxis {
  int64_t scale, tap_step, offset, divisor, size;

  // The source coordinate, or -1 when there is none.
  int64_t At(int64_t y, int64_t k) const { return Resolve(y * scale + offset + k * tap_step); }

  // The same from the numerator y * scale + offset + k * tap_step, for loops that hoist its parts.
  int64_t Resolve(int64_t s) const {
    if (divisor != 1) {
      if (s < 0 || s % divisor != 0) return -1;
      s /= divisor;
    }
    // One unsigned compare tests both bounds (s < 0 wraps above any size).
    return static_cast<uint64_t>(s) < static_cast<uint64_t>(size) ? s : -1;
  }
};

// The taps of a convolution seen from one pixel grid: rows are the pixels of `batch` images of
// rows_h x rows_w, columns are (ky, kx, c) over k_h x k_w taps and the source's `channels`.
struct TapMap {
  int64_t batch, rows_h, rows_w;
  int64_t k_h, k_w, channels;
  TapAxis y, x;

  // Rows are output pixels, the source is the input: the forward windows.
  static TapMap Window(const ConvGeometry& g);
  // Rows are input pixels, the source is dy: output pixel (oy, ox) covered input pixel
  // (oy * stride - pad + ky * dil, ...) at tap (ky, kx), so the input pixel reads
  // oy = (iy + pad - ky * dil) / stride where that is exact.
  static TapMap Gradient(const ConvGeometry& g);

  int64_t taps() const { return k_h * k_w; }
  int64_t source_pixels() const { return y.size * x.size; }
};

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_CONV_GEOMETRY_H_
