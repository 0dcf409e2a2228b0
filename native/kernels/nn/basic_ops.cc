// MatMul, Softmax and LogSoftmax with TensorFlow's attributes (the elementwise ops are in
// elementwise_ops.cc).
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
REGISTER_FLOATING_KERNELS("Softmax", SoftmaxOp);
REGISTER_FLOATING_KERNELS("LogSoftmax", LogSoftmaxOp);

}  // namespace
}  // namespace swigflow
