// MaxPool, AvgPool and their gradients on NHWC input, with TensorFlow's semantics: padded cells
// never win a max and never count in an average (SAME's divisor is the number of real cells),
// and MaxPoolGrad routes each gradient to the first maximum of its window in scan order.
// Work is split over images, so sums into one input cell happen in one thread, in order.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/nn/window_geometry.h"

namespace swigflow {
namespace {

struct Window {
  int64_t batch, in_h, in_w, depth;
  int64_t k_h, k_w, stride_h, stride_w;
  int64_t out_h, out_w, pad_top, pad_left;

  // The input rows / columns of output cell (oy, ox), clipped to the image.
  int64_t y0(int64_t oy) const { return std::max<int64_t>(oy * stride_h - pad_top, 0); }
  int64_t y1(int64_t oy) const { return std::min(oy * stride_h - pad_top + k_h, in_h); }
  int64_t x0(int64_t ox) const { return std::max<int64_t>(ox * stride_w - pad_left, 0); }
  int64_t x1(int64_t ox) const { return std::min(ox * stride_w - pad_left + k_w, in_w); }
};

Status MakeWindow(const OpKernelContext& ctx, const std::vector<int64_t>& input, Window* w) {
  if (ctx.GetString("data_format") != "NHWC") {
    return errors::InvalidArgument("pooling on the CPU supports data_format NHWC only");
  }
  if (input.size() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional", ShapeString(input));
  }
  for (int64_t d : input) {
    if (d < 0) return errors::InvalidArgument("negative dimension in input ", ShapeString(input));
  }
  const auto& ksize = ctx.GetInts("ksize");
  const auto& strides = ctx.GetInts("strides");
  if (ksize.size() != 4) {
    return errors::InvalidArgument("Sliding window ksize field must specify 4 dimensions");
  }
  if (strides.size() != 4) {
    return errors::InvalidArgument("Sliding window stride field must specify 4 dimensions");
  }
  if (ksize[0] != 1 || strides[0] != 1) {
    return errors::Unimplemented("Pooling is not yet supported on the batch dimension.");
  }
  if (ksize[3] != 1 || strides[3] != 1) {
    return errors::Unimplemented("Pooling is not yet supported on the depth dimension.");
  }
  for (int i = 1; i < 3; ++i) {
    if (ksize[static_cast<size_t>(i)] <= 0) {
      return errors::InvalidArgument("Sliding window ksize for dimension ", i,
                                     " was zero or negative.");
    }
    if (strides[static_cast<size_t>(i)] <= 0) {
      return errors::InvalidArgument("Sliding window stride for dimension ", i,
                                     " was zero or negative.");
    }
  }
  *w = Window{input[0],   input[1],   input[2], input[3], ksize[1], ksize[2],
              strides[1], strides[2], 0,        0,        0,        0};
  const std::string& padding = ctx.GetString("padding");
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(w->in_h, w->k_h, 1, w->stride_h, padding, 0,
                                                       0, &w->out_h, &w->pad_top));
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(w->in_w, w->k_w, 1, w->stride_w, padding, 0,
                                                       0, &w->out_w, &w->pad_left));
  return Status::OK();
}

// Runs fn(n) for every image on the pool.
template <typename Fn>
void ForEachImage(OpKernelContext* ctx, int64_t batch, Fn fn) {
  if (batch <= 1 || ctx->pool() == nullptr) {
    for (int64_t n = 0; n < batch; ++n) fn(n);
    return;
  }
  ctx->pool()->ParallelFor(batch, [&](int64_t n) { fn(n); });
}

// MaxPool and AvgPool: each output cell starts at `init`, combines its window's real cells with
// `combine`, then `finish(value, cells)`.
template <typename Combine, typename Finish>
class PoolOp : public OpKernel {
 public:
  PoolOp(float init, Combine combine, Finish finish)
      : init_(init), combine_(combine), finish_(finish) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, x.shape(), &w));
    Tensor* out = ctx->allocate_output(0, {w.batch, w.out_h, w.out_w, w.depth});
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const float* in = x.data<float>() + n * w.in_h * w.in_w * w.depth;
      float* o = out->data<float>() + n * w.out_h * w.out_w * w.depth;
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, o += w.depth) {
          std::fill(o, o + w.depth, init_);
          for (int64_t y = w.y0(oy); y < w.y1(oy); ++y) {
            for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
              const float* v = in + (y * w.in_w + xx) * w.depth;
              for (int64_t c = 0; c < w.depth; ++c) o[c] = combine_(o[c], v[c]);
            }
          }
          const float cells = static_cast<float>((w.y1(oy) - w.y0(oy)) * (w.x1(ox) - w.x0(ox)));
          for (int64_t c = 0; c < w.depth; ++c) o[c] = finish_(o[c], cells);
        }
      }
    });
  }

 private:
  const float init_;
  const Combine combine_;
  const Finish finish_;
};

template <typename Combine, typename Finish>
PoolOp<Combine, Finish>* NewPool(float init, Combine combine, Finish finish) {
  return new PoolOp<Combine, Finish>(init, combine, finish);
}

struct MaxPoolOp {
  static OpKernel* New() {
    return NewPool(
        -std::numeric_limits<float>::infinity(), [](float a, float b) { return std::max(a, b); },
        [](float v, float) { return v; });
  }
};

struct AvgPoolOp {
  static OpKernel* New() {
    return NewPool(
        0.0f, [](float a, float b) { return a + b; },
        [](float v, float cells) { return v / cells; });
  }
};

class MaxPoolGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, x.shape(), &w));
    const std::vector<int64_t> out_shape = {w.batch, w.out_h, w.out_w, w.depth};
    OP_REQUIRES(ctx, y.shape() == out_shape && grad.shape() == out_shape,
                errors::InvalidArgument("MaxPoolGrad: orig_output ", y.ShapeString(), " and grad ",
                                        grad.ShapeString(), " must have the pooled shape ",
                                        ShapeString(out_shape)));
    Tensor* dx = ctx->allocate_output(0, x.shape());
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const float* in = x.data<float>() + n * w.in_h * w.in_w * w.depth;
      const float* g = grad.data<float>() + n * w.out_h * w.out_w * w.depth;
      float* d = dx->data<float>() + n * w.in_h * w.in_w * w.depth;
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, g += w.depth) {
          for (int64_t c = 0; c < w.depth; ++c) {
            // The first maximum in scan order: later equal values do not take over.
            int64_t best = -1;
            float best_value = 0.0f;
            for (int64_t yy = w.y0(oy); yy < w.y1(oy); ++yy) {
              for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
                const int64_t at = (yy * w.in_w + xx) * w.depth + c;
                if (best < 0 || in[at] > best_value) {
                  best = at;
                  best_value = in[at];
                }
              }
            }
            if (best >= 0) d[best] += g[c];
          }
        }
      }
    });
  }
};

class AvgPoolGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.dim(0) == 4,
                errors::InvalidArgument("orig_input_shape must be 1-dimensional and 4 elements"));
    std::vector<int64_t> shape(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, shape, &w));
    const std::vector<int64_t> out_shape = {w.batch, w.out_h, w.out_w, w.depth};
    OP_REQUIRES(ctx, grad.shape() == out_shape,
                errors::InvalidArgument("AvgPoolGrad: grad has shape ", grad.ShapeString(),
                                        " but the pooled shape is ", ShapeString(out_shape)));
    Tensor* dx = ctx->allocate_output(0, shape);
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const float* g = grad.data<float>() + n * w.out_h * w.out_w * w.depth;
      float* d = dx->data<float>() + n * w.in_h * w.in_w * w.depth;
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, g += w.depth) {
          const float count = static_cast<float>((w.y1(oy) - w.y0(oy)) * (w.x1(ox) - w.x0(ox)));
          for (int64_t yy = w.y0(oy); yy < w.y1(oy); ++yy) {
            for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
              float* t = d + (yy * w.in_w + xx) * w.depth;
              for (int64_t c = 0; c < w.depth; ++c) t[c] += g[c] / count;
            }
          }
        }
      }
    });
  }
};

#define SWIGFLOW_POOL_ATTRS               \
  Attr("T: {float}")                      \
      .Attr("ksize: list(int)")           \
      .Attr("strides: list(int)")         \
      .Attr("padding: {'SAME', 'VALID'}") \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")

REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .SWIGFLOW_POOL_ATTRS.Doc("Max over windows; padding never wins.");
REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .SWIGFLOW_POOL_ATTRS.Doc("Mean over windows; padding is not counted.");
REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .SWIGFLOW_POOL_ATTRS.Doc(
        "The gradient of MaxPool: each window's gradient goes to its first maximum.");
REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .SWIGFLOW_POOL_ATTRS.Doc("The gradient of AvgPool.");

static ::swigflow::KernelRegistrar max_pool_kernel("MaxPool", DataType::kFloat, [] {
  return std::unique_ptr<OpKernel>(MaxPoolOp::New());
});
static ::swigflow::KernelRegistrar avg_pool_kernel("AvgPool", DataType::kFloat, [] {
  return std::unique_ptr<OpKernel>(AvgPoolOp::New());
});
REGISTER_KERNEL("MaxPoolGrad", DataType::kFloat, MaxPoolGradOp);
REGISTER_KERNEL("AvgPoolGrad", DataType::kFloat, AvgPoolGradOp);

}  // namespace
}  // namespace swigflow
