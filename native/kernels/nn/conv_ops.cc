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
// The paths, by shape: 1x1 convolutions are plain GEMMs; unless the channels are few
// (kernels::FewChannels) the direct paths read windows in place (conv_direct.h); otherwise a
// packer forms the operand from a tap map (TapRows, TapColumns in conv_packers.h), except the
// input gradient of few channels, which is col2im (AddWindowGradients). This file checks the
// operands and picks the path; the shapes and attributes are checked once, in MakeConvGeometry
// (conv_geometry.h). double and int32 take the plain loops of conv_loops.h over the same maps.
// Grouped convolutions (a filter with fewer input channels than the input) run group by group
// on contiguous copies of each group's channels; depthwise ones (one input channel a group)
// run as loops over the channels.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/nn/conv_direct.h"
#include "swigflow/kernels/nn/conv_geometry.h"
#include "swigflow/kernels/nn/conv_loops.h"
#include "swigflow/kernels/nn/conv_packers.h"

namespace swigflow {
namespace {

// A 1-D int32/int64 tensor of sizes (input_sizes, filter_sizes): 4 of them, or, where
// `spatial_ok`, only the 2 spatial ones (TensorFlow's Conv2DBackpropInput takes [h, w] and the
// batch and depth of out_backprop and the filter).
Status SizesFrom(const Tensor& t, const char* what, bool spatial_ok, std::vector<int64_t>* sizes) {
  const bool spatial = spatial_ok && t.dims() == 1 && t.dim(0) == 2;
  if (t.dims() != 1 || (t.dim(0) != 4 && !spatial)) {
    return errors::InvalidArgument(what, " must be a 1-D tensor of ", spatial_ok ? "2 or " : "",
                                   "4 elements, got shape ", t.ShapeString());
  }
  sizes->resize(static_cast<size_t>(t.dim(0)));
  for (int64_t i = 0; i < t.dim(0); ++i) {
    (*sizes)[static_cast<size_t>(i)] =
        t.dtype() == DataType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return Status::OK();
}

// dst[t, b, a] = src[t, a, b] for t < taps, a < rows, b < cols: the filter [KH, KW, C, OC] as
// the input gradient's right operand [(KH, KW, OC), C].
template <typename T>
void SwapLastAxes(const T* src, int64_t taps, int64_t rows, int64_t cols, T* dst) {
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t a = 0; a < rows; ++a) {
      for (int64_t b = 0; b < cols; ++b)
        dst[(t * cols + b) * rows + a] = src[(t * rows + a) * cols + b];
    }
  }
}

// One operand of a grouped convolution: `rows` rows of `channels * groups` channels, of which
// each group owns a run of `channels`.
template <typename T>
struct GroupedOperand {
  T* data;
  int64_t rows, channels;
};

// Runs one_group(a, b, out) on contiguous [rows, channels] arrays for each of `groups` groups:
// on the tensors themselves when there is one group, otherwise on copies of each group's
// channels, its output copied back into place. `out` is zeroed before each group.
template <typename T, typename Fn>
void ForEachGroup(int64_t groups, GroupedOperand<const T> a, GroupedOperand<const T> b,
                  GroupedOperand<T> out, Fn one_group) {
  if (groups == 1) return one_group(a.data, b.data, out.data);
  // dst[r, dst_first + j] = src[r, src_first + j] for r < rows, j < n.
  const auto copy = [](const T* src, int64_t src_width, int64_t src_first, int64_t rows, int64_t n,
                       T* dst, int64_t dst_width, int64_t dst_first) {
    for (int64_t r = 0; r < rows; ++r) {
      std::copy_n(src + r * src_width + src_first, n, dst + r * dst_width + dst_first);
    }
  };
  std::vector<T> ga(static_cast<size_t>(a.rows * a.channels));
  std::vector<T> gb(static_cast<size_t>(b.rows * b.channels));
  std::vector<T> gout(static_cast<size_t>(out.rows * out.channels));
  for (int64_t k = 0; k < groups; ++k) {
    copy(a.data, a.channels * groups, k * a.channels, a.rows, a.channels, ga.data(), a.channels, 0);
    copy(b.data, b.channels * groups, k * b.channels, b.rows, b.channels, gb.data(), b.channels, 0);
    std::fill(gout.begin(), gout.end(), T(0));
    one_group(ga.data(), gb.data(), gout.data());
    copy(gout.data(), out.channels, 0, out.rows, out.channels, out.data, out.channels * groups,
         k * out.channels);
  }
}

// Groups of one input channel: the depthwise loops of conv_loops.h, on the tensors in place.
bool IsDepthwise(const kernels::ConvGeometry& g) { return g.groups > 1 && g.in_c == 1; }

// One group's convolution, contiguous operands: out [N,OH,OW,OC] from x [N,H,W,C] and
// w [KH,KW,C,OC]. Every element of out is written.
void Forward(OpKernelContext* ctx, const kernels::ConvGeometry& g, const float* x, const float* w,
             float* out) {
  const int64_t m = g.batch * g.out_h * g.out_w, k = g.k_h * g.k_w * g.in_c;
  if (kernels::Is1x1Gemm(g)) {  // the input already is the im2col matrix
    return kernels::Sgemm(false, false, m, g.out_c, k, x, k, w, g.out_c, out, g.out_c, ctx->isa(),
                          ctx->pool());
  }
  const kernels::TapMap windows = kernels::TapMap::Window(g);
  if (kernels::UseDirect(windows, ctx->isa())) {
    return kernels::DirectConv(windows, x, {w, false}, g.out_c, out, ctx->isa(), ctx->pool());
  }
  kernels::SgemmPackedA(kernels::TapRows(windows, x), false, m, g.out_c, k, w, g.out_c, out,
                        g.out_c, false, ctx->isa(), ctx->pool());
}

template <typename T>
void Forward(OpKernelContext* ctx, const kernels::ConvGeometry& g, const T* x, const T* w, T* out) {
  kernels::ConvByTaps(kernels::TapMap::Window(g), x, w, g.out_c, out, ctx->pool());
}

// One group's input gradient: dx [N,H,W,C] from dy [N,OH,OW,OC] and w [KH,KW,C,OC]; dx starts
// zeroed.
void InputGradient(OpKernelContext* ctx, const kernels::ConvGeometry& g, const float* dy,
                   const float* w, float* dx) {
  if (kernels::FewChannels(g.in_c, ctx->isa())) {  // col2im: window gradients add up
    return kernels::AddWindowGradients(g, w, dy, dx, ctx->isa(), ctx->pool());
  }
  const int64_t m = g.batch * g.in_h * g.in_w, k = g.k_h * g.k_w * g.out_c;
  const kernels::TapMap gradients = kernels::TapMap::Gradient(g);
  // At stride 1 the map's divisors are 1: input pixel (iy, ix) reads dy at
  // (iy + pad - ky * dil, ix + pad - kx * dil), windows DirectConv reads in place. B is the
  // filter read with its last two axes swapped.
  if (g.stride_h == 1 && g.stride_w == 1 && kernels::UseDirect(gradients, ctx->isa())) {
    return kernels::DirectConv(gradients, dy, {w, true}, g.in_c, dx, ctx->isa(), ctx->pool());
  }
  // B[(ky, kx, oc), c] = w[ky, kx, c, oc]: the filter with its last two axes swapped.
  std::vector<float> wt(static_cast<size_t>(k * g.in_c));
  SwapLastAxes(w, g.k_h * g.k_w, g.in_c, g.out_c, wt.data());
  kernels::SgemmPackedA(kernels::TapRows(gradients, dy), false, m, g.in_c, k, wt.data(), g.in_c, dx,
                        g.in_c, false, ctx->isa(), ctx->pool());
}

template <typename T>
void InputGradient(OpKernelContext* ctx, const kernels::ConvGeometry& g, const T* dy, const T* w,
                   T* dx) {
  std::vector<T> wt(static_cast<size_t>(g.k_h * g.k_w * g.out_c * g.in_c));
  SwapLastAxes(w, g.k_h * g.k_w, g.in_c, g.out_c, wt.data());
  kernels::ConvByTaps(kernels::TapMap::Gradient(g), dy, wt.data(), g.in_c, dx, ctx->pool());
}

// One group's filter gradient: dw [KH,KW,C,OC] from x [N,H,W,C] and dy [N,OH,OW,OC]; dw starts
// zeroed.
void FilterGradient(OpKernelContext* ctx, const kernels::ConvGeometry& g, const float* x,
                    const float* dy, float* dw) {
  const int64_t m = g.k_h * g.k_w * g.in_c, k = g.batch * g.out_h * g.out_w;
  if (kernels::Is1x1Gemm(g)) {
    return kernels::Sgemm(true, false, m, g.out_c, k, x, m, dy, g.out_c, dw, g.out_c, ctx->isa(),
                          ctx->pool());
  }
  // Blocks of MR channels well filled, or few channels read as spans of filter rows.
  if (!kernels::FewChannels(g.in_c, ctx->isa()) || kernels::FilterGradientBySpans(g, ctx->isa())) {
    return kernels::DirectFilterGradient(g, x, dy, dw, ctx->isa(), ctx->pool());
  }
  kernels::SgemmPackedA(kernels::TapColumns(kernels::TapMap::Window(g), x), false, m, g.out_c, k,
                        dy, g.out_c, dw, g.out_c, false, ctx->isa(), ctx->pool());
}

template <typename T>
void FilterGradient(OpKernelContext* ctx, const kernels::ConvGeometry& g, const T* x, const T* dy,
                    T* dw) {
  kernels::FilterGradientByTaps(kernels::TapMap::Window(g), x, dy, g.out_c, dw, ctx->pool());
}

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& w = ctx->input(1);
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, x.shape(), w.shape(), false, &g));
    // Every element is written (zeros when the sum is empty), each group its own channels.
    Tensor* out = ctx->allocate_output(0, {g.batch, g.out_h, g.out_w, g.out_c * g.groups}, true);
    const int64_t pixels = g.batch * g.out_h * g.out_w;
    if (pixels == 0) return;
    if (IsDepthwise(g)) {
      return kernels::DepthwiseForward(g, x.data<T>(), w.data<T>(), out->data<T>(), ctx->pool());
    }
    ForEachGroup<T>(g.groups, {x.data<T>(), g.batch * g.in_h * g.in_w, g.in_c},
                    {w.data<T>(), g.k_h * g.k_w * g.in_c, g.out_c},
                    {out->data<T>(), pixels, g.out_c},
                    [&](const T* xg, const T* wg, T* outg) { Forward(ctx, g, xg, wg, outg); });
  }
};

template <typename T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& w = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    std::vector<int64_t> input_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(0), "input_sizes", true, &input_sizes));
    if (input_sizes.size() == 2) {  // [h, w]: batch from out_backprop, depth from the filter
      OP_REQUIRES(ctx, dy.dims() == 4 && w.dims() == 4,
                  errors::InvalidArgument("input_sizes must be 4-dimensional, got: ", dy.dims()));
      input_sizes = {dy.dim(0), input_sizes[0], input_sizes[1], w.dim(2)};
    }
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, input_sizes, w.shape(), true, &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c * g.groups};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropInput: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    // Zeroed only for col2im, whose window gradients add up; the other paths write every
    // element, and so do the groups, each its own channels.
    const bool adds_up = std::is_same_v<T, float> && kernels::FewChannels(g.in_c, ctx->isa());
    Tensor* dx = ctx->allocate_output(0, input_sizes, g.groups > 1 || !adds_up);
    if (g.batch * g.in_h * g.in_w == 0) return;
    if (IsDepthwise(g)) {
      return kernels::DepthwiseInputGradient(g, dy.data<T>(), w.data<T>(), dx->data<T>(),
                                             ctx->pool());
    }
    ForEachGroup<T>(
        g.groups, {dy.data<T>(), g.batch * g.out_h * g.out_w, g.out_c},
        {w.data<T>(), g.k_h * g.k_w * g.in_c, g.out_c},
        {dx->data<T>(), g.batch * g.in_h * g.in_w, g.in_c},
        [&](const T* dyg, const T* wg, T* dxg) { InputGradient(ctx, g, dyg, wg, dxg); });
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> filter_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(1), "filter_sizes", false, &filter_sizes));
    const Tensor& dy = ctx->input(2);
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, x.shape(), filter_sizes, true, &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c * g.groups};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropFilter: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    Tensor* dw = ctx->allocate_output(0, filter_sizes);  // zeroed
    const int64_t taps = g.k_h * g.k_w * g.in_c, pixels = g.batch * g.out_h * g.out_w;
    if (taps == 0 || pixels == 0 || g.out_c == 0) return;  // stays zero, or is empty
    if (IsDepthwise(g)) {
      return kernels::DepthwiseFilterGradient(g, x.data<T>(), dy.data<T>(), dw->data<T>(),
                                              ctx->pool());
    }
    ForEachGroup<T>(
        g.groups, {x.data<T>(), g.batch * g.in_h * g.in_w, g.in_c}, {dy.data<T>(), pixels, g.out_c},
        {dw->data<T>(), taps, g.out_c},
        [&](const T* xg, const T* dyg, T* dwg) { FilterGradient(ctx, g, xg, dyg, dwg); });
  }
};

#define SWIGFLOW_CONV_ATTRS(types)                    \
  Attr("T: {" types "}")                              \
      .Attr("strides: list(int)")                     \
      .Attr("use_cudnn_on_gpu: bool = true")          \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
      .Attr("explicit_paddings: list(int) = []")      \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

// TensorFlow's types, less half and bfloat16 (swigflow.ops computes float16 in float32).
REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS("float, double, int32")
    .Doc("2-D convolution of NHWC input with an HWIO filter.");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS("float, double, int32")
    .Doc("The gradient of Conv2D with respect to its input.");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .SWIGFLOW_CONV_ATTRS("float, double")
    .Doc("The gradient of Conv2D with respect to its filter.");

REGISTER_KERNEL("Conv2D", DataType::kFloat, Conv2DOp<float>);
REGISTER_KERNEL("Conv2D", DataType::kDouble, Conv2DOp<double>);
REGISTER_KERNEL("Conv2D", DataType::kInt32, Conv2DOp<int32_t>);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kFloat, Conv2DBackpropInputOp<float>);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kDouble, Conv2DBackpropInputOp<double>);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kInt32, Conv2DBackpropInputOp<int32_t>);
REGISTER_KERNEL("Conv2DBackpropFilter", DataType::kFloat, Conv2DBackpropFilterOp<float>);
REGISTER_KERNEL("Conv2DBackpropFilter", DataType::kDouble, Conv2DBackpropFilterOp<double>);

}  // namespace
}  // namespace swigflow
