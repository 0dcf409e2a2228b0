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
// (conv_geometry.h). Double precision takes the plain loops of conv_double.h over the same maps.
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/nn/conv_direct.h"
#include "swigflow/kernels/nn/conv_double.h"
#include "swigflow/kernels/nn/conv_geometry.h"
#include "swigflow/kernels/nn/conv_packers.h"

namespace swigflow {
namespace {

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

class Conv2DOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& w = ctx->input(1);
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, x.shape(), w.shape(), false, &g));
    // The GEMM writes every element (zeros when K is 0).
    Tensor* out = ctx->allocate_output(0, {g.batch, g.out_h, g.out_w, g.out_c}, true);
    const int64_t m = g.batch * g.out_h * g.out_w, k = g.k_h * g.k_w * g.in_c;
    if (m == 0) return;
    if (x.dtype() == DataType::kDouble) {
      return kernels::ConvByTaps(kernels::TapMap::Window(g), x.data<double>(), w.data<double>(),
                                 g.out_c, out->data<double>(), ctx->pool());
    }
    if (kernels::Is1x1Gemm(g)) {  // the input already is the im2col matrix
      kernels::Sgemm(false, false, m, g.out_c, k, x.data<float>(), k, w.data<float>(), g.out_c,
                     out->data<float>(), g.out_c, ctx->isa(), ctx->pool());
      return;
    }
    const kernels::TapMap windows = kernels::TapMap::Window(g);
    if (kernels::UseDirect(g.in_c, g.out_w, ctx->isa())) {
      return kernels::DirectConv(windows, x.data<float>(), w.data<float>(), g.out_c,
                                 out->data<float>(), ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(kernels::TapRows(windows, x.data<float>()), false, m, g.out_c, k,
                          w.data<float>(), g.out_c, out->data<float>(), g.out_c, false, ctx->isa(),
                          ctx->pool());
  }
};

class Conv2DBackpropInputOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> input_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(0), "input_sizes", &input_sizes));
    const Tensor& w = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, input_sizes, w.shape(), true, &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropInput: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    if (w.dtype() == DataType::kDouble) {
      Tensor* dx = ctx->allocate_output(0, input_sizes, true);  // every element written
      std::vector<double> wt(static_cast<size_t>(g.k_h * g.k_w * g.out_c * g.in_c));
      SwapLastAxes(w.data<double>(), g.k_h * g.k_w, g.in_c, g.out_c, wt.data());
      return kernels::ConvByTaps(kernels::TapMap::Gradient(g), dy.data<double>(), wt.data(), g.in_c,
                                 dx->data<double>(), ctx->pool());
    }
    if (kernels::FewChannels(g.in_c, ctx->isa())) {
      Tensor* dx = ctx->allocate_output(0, input_sizes);  // zeroed: window gradients add up
      return kernels::AddWindowGradients(g, w.data<float>(), dy.data<float>(), dx->data<float>(),
                                         ctx->isa(), ctx->pool());
    }
    Tensor* dx = ctx->allocate_output(0, input_sizes, true);  // every element written
    const int64_t m = g.batch * g.in_h * g.in_w, k = g.k_h * g.k_w * g.out_c;
    if (m == 0) return;
    // B[(ky, kx, oc), c] = w[ky, kx, c, oc]: the filter with its last two axes swapped.
    std::vector<float> wt(static_cast<size_t>(k * g.in_c));
    SwapLastAxes(w.data<float>(), g.k_h * g.k_w, g.in_c, g.out_c, wt.data());
    const kernels::TapMap gradients = kernels::TapMap::Gradient(g);
    // At stride 1 the map's divisors are 1: input pixel (iy, ix) reads dy at
    // (iy + pad - ky * dil, ix + pad - kx * dil), windows DirectConv reads in place.
    if (g.stride_h == 1 && g.stride_w == 1 && kernels::UseDirect(g.out_c, g.in_w, ctx->isa())) {
      return kernels::DirectConv(gradients, dy.data<float>(), wt.data(), g.in_c, dx->data<float>(),
                                 ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(kernels::TapRows(gradients, dy.data<float>()), false, m, g.in_c, k,
                          wt.data(), g.in_c, dx->data<float>(), g.in_c, false, ctx->isa(),
                          ctx->pool());
  }
};

class Conv2DBackpropFilterOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> filter_sizes;
    OP_REQUIRES_OK(ctx, SizesFrom(ctx->input(1), "filter_sizes", &filter_sizes));
    const Tensor& dy = ctx->input(2);
    kernels::ConvGeometry g;
    OP_REQUIRES_OK(ctx, kernels::MakeConvGeometry(*ctx, x.shape(), filter_sizes, true, &g));
    const std::vector<int64_t> expected = {g.batch, g.out_h, g.out_w, g.out_c};
    OP_REQUIRES(
        ctx, dy.shape() == expected,
        errors::InvalidArgument("Conv2DBackpropFilter: out_backprop has shape ", dy.ShapeString(),
                                " but the convolution's output has ", ShapeString(expected)));
    Tensor* dw = ctx->allocate_output(0, filter_sizes);
    const int64_t m = g.k_h * g.k_w * g.in_c, k = g.batch * g.out_h * g.out_w;
    if (k == 0 || m == 0 || g.out_c == 0) return;  // stays zero, or is empty
    if (x.dtype() == DataType::kDouble) {
      return kernels::FilterGradientByTaps(kernels::TapMap::Window(g), x.data<double>(),
                                           dy.data<double>(), g.out_c, dw->data<double>(),
                                           ctx->pool());
    }
    if (kernels::Is1x1Gemm(g)) {
      kernels::Sgemm(true, false, m, g.out_c, k, x.data<float>(), m, dy.data<float>(), g.out_c,
                     dw->data<float>(), g.out_c, ctx->isa(), ctx->pool());
      return;
    }
    if (!kernels::FewChannels(g.in_c, ctx->isa())) {  // blocks of MR channels well filled
      return kernels::DirectFilterGradient(g, x.data<float>(), dy.data<float>(), dw->data<float>(),
                                           ctx->isa(), ctx->pool());
    }
    kernels::SgemmPackedA(kernels::TapColumns(kernels::TapMap::Window(g), x.data<float>()), false,
                          m, g.out_c, k, dy.data<float>(), g.out_c, dw->data<float>(), g.out_c,
                          false, ctx->isa(), ctx->pool());
  }
};

#define SWIGFLOW_CONV_ATTRS                           \
  Attr("T: {float, double}")                          \
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
REGISTER_KERNEL("Conv2D", DataType::kDouble, Conv2DOp);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kFloat, Conv2DBackpropInputOp);
REGISTER_KERNEL("Conv2DBackpropInput", DataType::kDouble, Conv2DBackpropInputOp);
REGISTER_KERNEL("Conv2DBackpropFilter", DataType::kFloat, Conv2DBackpropFilterOp);
REGISTER_KERNEL("Conv2DBackpropFilter", DataType::kDouble, Conv2DBackpropFilterOp);

}  // namespace
}  // namespace swigflow
