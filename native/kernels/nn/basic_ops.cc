// MatMul, BiasAdd, BiasAddGrad, Relu, ReluGrad, Softmax and LogSoftmax with TensorFlow's
// attributes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/gemm/matmul_shape.h"

namespace swigflow {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const bool ta = ctx->GetBool("transpose_a"), tb = ctx->GetBool("transpose_b");
    int64_t m = 0, k = 0, n = 0;
    OP_REQUIRES_OK(ctx, kernels::MatMulShape(a, b, ta, tb, &m, &k, &n));
    Tensor* c = ctx->allocate_output(0, {m, n});
    if constexpr (std::is_same_v<T, float>) {
      kernels::Sgemm(ta, tb, m, n, k, a.data<float>(), a.dim(1), b.data<float>(), b.dim(1),
                     c->data<float>(), n, ctx->isa(), ctx->pool());
    } else {
      kernels::Dgemm(ta, tb, m, n, k, a.data<double>(), a.dim(1), b.data<double>(), b.dim(1),
                     c->data<double>(), n);
    }
  }
};

// The channel axis of a BiasAdd: the last one (NHWC) or the second (NCHW).
Status ChannelAxis(const OpKernelContext& ctx, const Tensor& t, int* axis) {
  const bool nchw = ctx.GetString("data_format") == "NCHW";
  const int min_rank = nchw ? 3 : 2;
  if (t.dims() < min_rank) {
    return errors::InvalidArgument("Input tensor must be at least ", min_rank,
                                   "D: ", t.ShapeString());
  }
  *axis = nchw ? 1 : t.dims() - 1;
  return Status::OK();
}

// outer x channels x inner, the layout around the channel axis.
void Split(const Tensor& t, int axis, int64_t* outer, int64_t* channels, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int i = 0; i < axis; ++i) *outer *= t.dim(i);
  *channels = t.dim(axis);
  for (int i = axis + 1; i < t.dims(); ++i) *inner *= t.dim(i);
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    int axis;
    OP_REQUIRES_OK(ctx, ChannelAxis(*ctx, value, &axis));
    OP_REQUIRES(ctx, bias.dims() == 1,
                errors::InvalidArgument("Biases must be 1D: ", bias.ShapeString()));
    OP_REQUIRES(ctx, bias.dim(0) == value.dim(axis),
                errors::InvalidArgument("Must provide as many biases as the last dimension of the "
                                        "input tensor: ",
                                        bias.ShapeString(), " vs. ", value.ShapeString()));
    Tensor* out = ctx->allocate_output(0, value.shape());
    int64_t outer, channels, inner;
    Split(value, axis, &outer, &channels, &inner);
    const T* v = value.data<T>();
    const T* b = bias.data<T>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t j = 0; j < inner; ++j) {
          const int64_t at = (i * channels + c) * inner + j;
          o[at] = v[at] + b[c];
        }
      }
    }
  }
};

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    int axis;
    OP_REQUIRES_OK(ctx, ChannelAxis(*ctx, dy, &axis));
    int64_t outer, channels, inner;
    Split(dy, axis, &outer, &channels, &inner);
    Tensor* out = ctx->allocate_output(0, {channels});
    T* o = out->data<T>();
    const T* g = dy.data<T>();
    for (int64_t i = 0; i < outer; ++i) {  // a fixed order: deterministic sums
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t j = 0; j < inner; ++j) o[c] += g[(i * channels + c) * inner + j];
      }
    }
  }
};

template <typename T>
class ReluOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = ctx->allocate_output(0, x.shape());
    const T* in = x.data<T>();
    T* o = out->data<T>();
    // NaN stays NaN (as in TensorFlow, PyTorch and numpy): only x < 0 becomes 0.
    for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = in[i] < T(0) ? T(0) : in[i];
  }
};

template <typename T>
class ReluGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == x.shape(),
                errors::InvalidArgument("gradients and features must have the same shape: ",
                                        g.ShapeString(), " vs. ", x.ShapeString()));
    Tensor* out = ctx->allocate_output(0, x.shape());
    const T* gd = g.data<T>();
    const T* xd = x.data<T>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = xd[i] > T(0) ? gd[i] : T(0);
  }
};

// Output 0 shaped like input 0 (the logits), and row(in, out, depth) run over each row of the
// last axis; rank 0 is refused with TensorFlow's message.
template <typename T, typename Row>
void ForEachLastAxisRow(OpKernelContext* ctx, Row row) {
  const Tensor& logits = ctx->input(0);
  OP_REQUIRES(
      ctx, logits.dims() >= 1,
      errors::InvalidArgument("logits must have >= 1 dimension, got ", logits.ShapeString()));
  Tensor* out = ctx->allocate_output(0, logits.shape());
  const int64_t depth = logits.dim(logits.dims() - 1);
  if (depth == 0) return;
  const int64_t rows = logits.num_elements() / depth;
  for (int64_t r = 0; r < rows; ++r) {
    row(logits.data<T>() + r * depth, out->data<T>() + r * depth, depth);
  }
}

template <typename T>
class SoftmaxOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    ForEachLastAxisRow<T>(ctx, [](const T* in, T* o, int64_t depth) {
      const T top = *std::max_element(in, in + depth);  // exp never overflows
      T sum = 0;
      for (int64_t i = 0; i < depth; ++i) sum += o[i] = std::exp(in[i] - top);
      for (int64_t i = 0; i < depth; ++i) o[i] /= sum;
    });
  }
};

template <typename T>
class LogSoftmaxOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    ForEachLastAxisRow<T>(ctx, [](const T* in, T* o, int64_t depth) {
      const T top = *std::max_element(in, in + depth);
      T sum = 0;
      for (int64_t i = 0; i < depth; ++i) sum += std::exp(in[i] - top);
      const T log_sum = std::log(sum);
      for (int64_t i = 0; i < depth; ++i) o[i] = in[i] - top - log_sum;
    });
  }
};

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double}")
    .Doc("op(a) x op(b) for matrices, op transposing when asked.");
REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Doc("value + bias along the channel axis.");
REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Doc("The gradient of BiasAdd for the bias: sums over all but the channel axis.");
REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .Doc("max(features, 0).");
REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .Doc("gradients where features > 0, else 0.");
REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {float, double}")
    .Doc("exp(logits) / sum(exp(logits)) along the last axis.");

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {float, double}")
    .Doc("logits - log(sum(exp(logits))) along the last axis.");

REGISTER_FLOATING_KERNELS("MatMul", MatMulOp);
REGISTER_FLOATING_KERNELS("BiasAdd", BiasAddOp);
REGISTER_FLOATING_KERNELS("BiasAddGrad", BiasAddGradOp);
REGISTER_FLOATING_KERNELS("Relu", ReluOp);
REGISTER_FLOATING_KERNELS("ReluGrad", ReluGradOp);
REGISTER_FLOATING_KERNELS("Softmax", SoftmaxOp);
REGISTER_FLOATING_KERNELS("LogSoftmax", LogSoftmaxOp);

}  // namespace
}  // namespace swigflow
