// The shape of an 8-bit NHWC x HWIO convolution and its implicit im2col rows, shared by
// QuantizedConv2D (TensorFlow's reference window placement) and the fused oneDNN-defined
// convolution (TensorFlow's usual SAME/VALID/explicit padding).
#ifndef SWIGFLOW_KERNELS_QUANTIZATION_CONV_GEOMETRY_H_
#define SWIGFLOW_KERNELS_QUANTIZATION_CONV_GEOMETRY_H_

#include <cstdint>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/framework/tensor.h"
#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/quantization/gemm_operands.h"

namespace swigflow {
namespace quantization {

// Output pixel (y, x), filter tap (ky, kx) reads input (InY(y, ky), InX(x, kx)); a tap outside
// the input reads the padding value. Named apart from nn's ConvGeometry (the FP32 kernels',
// with grouped convolutions): this one is the int8 im2col GEMM's view, with its rows and steps.
struct Int8ConvGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t kh = 0, kw = 0, out_depth = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t out_h = 0, out_w = 0, top = 0, left = 0;

  int64_t InY(int64_t y, int64_t ky) const { return y * stride_h - top + ky * dilation_h; }
  int64_t InX(int64_t x, int64_t kx) const { return x * stride_w - left + kx * dilation_w; }
  bool Inside(int64_t iy, int64_t ix) const { return iy >= 0 && iy < in_h && ix >= 0 && ix < in_w; }
  int64_t Rows() const { return batch * out_h * out_w; }  // of the GEMM: one per output pixel
  int64_t Steps() const { return kh * kw * depth; }       // the GEMM's K
};

// The sizes of a 4-D NHWC input and HWIO filter of equal depth into `g` (batch through
// out_depth); the strides, dilations and output placement are the op's.
Status ConvShapes(const Tensor& input, const Tensor& filter, Int8ConvGeometry* g);
// The same with the filter's shape alone ([kh, kw, depth, out_depth]: a filter packed once).
Status ConvShapes(const Tensor& input, const std::vector<int64_t>& filter_shape,
                  Int8ConvGeometry* g);

// The im2col rows of the input, produced block by block for the GEMM: row (b, y, x), step
// (ky, kx, c); taps outside the input read `pad`.
class Im2ColRows : public kernels::Int8RowSource {
 public:
  Im2ColRows(const Int8ConvGeometry& g, const uint8_t* input, uint8_t pad);

  void Rows(int64_t i0, int64_t rows, int64_t p0, int64_t kc, uint8_t* dst,
            int64_t ld) const override;
  // Straight from the windows when a group of 4 steps never spans two taps (depth % 4 == 0).
  bool PackGroupsOf4(int64_t i0, int64_t rows, int64_t p0, int64_t kc, int mr,
                     uint8_t* dst) const override;
  // One run per tap: the window's pixels in place (a pixel of pad values outside the input),
  // when K blocks are whole taps of whole groups (depth % 4 == 0). Windows inside the input
  // share tap_offsets_; only the others get tables of their own.
  bool RowRuns(int64_t i0, int rows, int64_t p0, int64_t kc, int mr,
               const kernels::Int8RunsSlot& slot, kernels::gemm::Int8RowRuns* runs) const override;
  int64_t StepAlignment() const override { return g_.depth; }

  // Sum of each row (pads included): the left operand's row sums.
  std::vector<int32_t> RowSums() const;

 private:
  const Int8ConvGeometry& g_;
  const uint8_t* input_;
  const uint8_t pad_;
  const std::vector<uint8_t> pad_pixel_;  // a pixel of pad values: taps outside the input
  // Tap (ky, kx)'s bytes from tap (0, 0) when the window is inside the input, at ky * kw + kx.
  std::vector<int64_t> tap_offsets_;
};

// For each output pixel whose window leaves the input: + za * sum over the outside taps of
// (w - zw), turning those taps' (0 - za)(w - zw) into 0 (when the input was padded with 0
// rather than its zero point za).
void AddBackOutsideTaps(const Int8ConvGeometry& g, int32_t za, const Operand8& w, int32_t* c);

}  // namespace quantization
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_QUANTIZATION_CONV_GEOMETRY_H_
