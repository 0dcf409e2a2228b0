// The elementwise ops: Relu, Relu6, LeakyRelu, Elu, Sigmoid, Tanh, Erf and Erfc with their gradient
// ops, BiasAdd and BiasAddGrad. Memory-bound loops, written so that -O3 vectorizes them (plain
// indexed loops over raw pointers, bounds hoisted, selects instead of branches) and split over
// the pool in blocks of a fixed size, so large activations stream at memory speed on every
// core. The formulas are TensorFlow's (Elu is exp(x) - 1, its gradients read the op's output).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {
namespace {

// a + b, wrapping modulo 2^bits for integers as TensorFlow's kernels do (through the unsigned
// type: signed overflow is undefined in C++).
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// Elements per task: ~128 KiB of float32 reads and writes, long enough to pay for a dispatch.
constexpr int64_t kBlockElements = int64_t{1} << 15;

// fn(begin, end) over [0, rows) in blocks of whole rows of `row_elements` each, on the pool
// when there is more than one block. Blocks depend on the sizes only, never on the thread
// count, so per-block partial results combine the same way on any machine.
template <typename Fn>
void ForEachRowBlock(ThreadPool* pool, int64_t rows, int64_t row_elements, Fn fn) {
  const int64_t per_block =
      std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, row_elements));
  const int64_t blocks = (rows + per_block - 1) / per_block;
  if (blocks <= 1 || pool == nullptr) {
    for (int64_t b = 0; b < blocks; ++b) fn(b * per_block, std::min(rows, (b + 1) * per_block));
    return;
  }
  pool->ParallelFor(blocks,
                    [&](int64_t b) { fn(b * per_block, std::min(rows, (b + 1) * per_block)); });
}

// out = f(x) elementwise, output 0 shaped like input 0.
template <typename T, typename F>
void Unary(OpKernelContext* ctx, F f) {
  const Tensor& x = ctx->input(0);
  Tensor* out = ctx->allocate_output(0, x.shape(), /*uninitialized=*/true);
  const T* in = x.data<T>();
  T* o = out->data<T>();
  ForEachRowBlock(ctx->pool(), x.num_elements(), 1, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
  });
}

// out = f(a, b) elementwise for two inputs of one shape (a gradient op's gradients and
// features/outputs), with TensorFlow's message when the shapes differ.
template <typename T, typename F>
void Binary(OpKernelContext* ctx, const char* a_name, const char* b_name, F f) {
  const Tensor& a = ctx->input(0);
  const Tensor& b = ctx->input(1);
  OP_REQUIRES(ctx, a.shape() == b.shape(),
              errors::InvalidArgument(a_name, " and ", b_name, " must have the same shape: ",
                                      a.ShapeString(), " vs. ", b.ShapeString()));
  Tensor* out = ctx->allocate_output(0, a.shape(), /*uninitialized=*/true);
  const T* ad = a.data<T>();
  const T* bd = b.data<T>();
  T* o = out->data<T>();
  ForEachRowBlock(ctx->pool(), a.num_elements(), 1, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = f(ad[i], bd[i]);
  });
}

template <typename T>
class Relu6Op : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    // NaN stays NaN, as in Relu.
    Unary<T>(ctx, [](T x) { return x < T(0) ? T(0) : (T(6) < x ? T(6) : x); });
  }
};

template <typename T>
class Relu6GradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Binary<T>(ctx, "gradients", "features",
              [](T g, T x) { return (x > T(0)) & (x < T(6)) ? g : T(0); });
  }
};

template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const T alpha = static_cast<T>(ctx->GetFloat("alpha"));
    Unary<T>(ctx, [alpha](T x) { return x > T(0) ? x : x * alpha; });
  }
};

template <typename T>
class LeakyReluGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const T alpha = static_cast<T>(ctx->GetFloat("alpha"));
    Binary<T>(ctx, "gradients", "features", [alpha](T g, T x) { return x > T(0) ? g : g * alpha; });
  }
};

template <typename T>
class EluOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Unary<T>(ctx, [](T x) { return x < T(0) ? std::exp(x) - T(1) : x; });
  }
};

// Reads the op's output y: dy/dx = y + 1 below 0.
template <typename T>
class EluGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Binary<T>(ctx, "gradients", "outputs", [](T g, T y) { return y < T(0) ? g * (y + T(1)) : g; });
  }
};

template <typename T>
class SigmoidOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Unary<T>(ctx, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
  }
};

// SigmoidGrad(y, dy) = dy * y * (1 - y), the gradient written with the op's output.
template <typename T>
class SigmoidGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Binary<T>(ctx, "y", "dy", [](T y, T dy) { return dy * y * (T(1) - y); });
  }
};

template <typename T>
class TanhOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Unary<T>(ctx, [](T x) { return std::tanh(x); });
  }
};

// TanhGrad(y, dy) = dy * (1 - y * y).
template <typename T>
class TanhGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Binary<T>(ctx, "y", "dy", [](T y, T dy) { return dy * (T(1) - y * y); });
  }
};

template <typename T>
class ErfOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Unary<T>(ctx, [](T x) { return std::erf(x); });
  }
};

template <typename T>
class ErfcOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    Unary<T>(ctx, [](T x) { return std::erfc(x); });
  }
};

template <typename T>
class ReluOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = ctx->allocate_output(0, x.shape(), /*uninitialized=*/true);
    const T* in = x.data<T>();
    T* o = out->data<T>();
    // NaN stays NaN (as in TensorFlow, PyTorch and numpy): only x < 0 becomes 0.
    ForEachRowBlock(ctx->pool(), x.num_elements(), 1, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = in[i] < T(0) ? T(0) : in[i];
    });
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
    Tensor* out = ctx->allocate_output(0, x.shape(), /*uninitialized=*/true);
    const T* gd = g.data<T>();
    const T* xd = x.data<T>();
    T* o = out->data<T>();
    ForEachRowBlock(ctx->pool(), x.num_elements(), 1, [=](int64_t begin, int64_t end) {
      // Both loads unconditional: a select the compiler vectorizes, not a branch per element
      // (random signs would mispredict half the time).
      for (int64_t i = begin; i < end; ++i) {
        const T gi = gd[i];
        o[i] = xd[i] > T(0) ? gi : T(0);
      }
    });
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
    Tensor* out = ctx->allocate_output(0, value.shape(), /*uninitialized=*/true);
    int64_t outer, channels, inner;
    Split(value, axis, &outer, &channels, &inner);
    const T* v = value.data<T>();
    const T* b = bias.data<T>();
    T* o = out->data<T>();
    const int64_t row = channels * inner;  // one outer index: every channel's `inner` run
    ForEachRowBlock(ctx->pool(), outer, row, [=](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        const T* vi = v + i * row;
        T* oi = o + i * row;
        if (inner == 1) {
          for (int64_t c = 0; c < channels; ++c) oi[c] = WrappingAdd(vi[c], b[c]);
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            const T bc = b[c];
            for (int64_t j = 0; j < inner; ++j)
              oi[c * inner + j] = WrappingAdd(vi[c * inner + j], bc);
          }
        }
      }
    });
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
    if (channels == 0 || outer == 0 || inner == 0) return;  // zeros
    const T* g = dy.data<T>();
    const int64_t row = channels * inner;
    // One partial sum per block of rows (fixed by the sizes), added in block order: the
    // result is the same for any thread count.
    const int64_t per_block = std::max<int64_t>(1, kBlockElements / row);
    const int64_t blocks = (outer + per_block - 1) / per_block;
    std::vector<T> partial(static_cast<size_t>(blocks * channels), T(0));
    ForEachRowBlock(ctx->pool(), outer, row, [&](int64_t first, int64_t last) {
      T* sum = partial.data() + (first / per_block) * channels;
      for (int64_t i = first; i < last; ++i) {
        const T* gi = g + i * row;
        if (inner == 1) {
          for (int64_t c = 0; c < channels; ++c) sum[c] = WrappingAdd(sum[c], gi[c]);
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            T s = 0;
            for (int64_t j = 0; j < inner; ++j) s = WrappingAdd(s, gi[c * inner + j]);
            sum[c] = WrappingAdd(sum[c], s);
          }
        }
      }
    });
    T* o = out->data<T>();
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t c = 0; c < channels; ++c) o[c] = WrappingAdd(o[c], partial[b * channels + c]);
    }
  }
};

// The types Relu, Relu6 and BiasAdd (and their gradients) take, as TensorFlow registers them
// (less its half, bfloat16 and 32/64-bit unsigned types: float16 computes in float32).
constexpr char kRealTypes[] = "T: {float, double, int8, int16, int32, int64, uint8, uint16}";

REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr(kRealTypes)
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Doc("value + bias along the channel axis.");
REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(kRealTypes)
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Doc("The gradient of BiasAdd for the bias: sums over all but the channel axis.");
REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr(kRealTypes)
    .Doc("max(features, 0).");
REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr(kRealTypes)
    .Doc("gradients where features > 0, else 0.");

REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr(kRealTypes)
    .Doc("min(max(features, 0), 6).");
REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr(kRealTypes)
    .Doc("gradients where 0 < features < 6, else 0.");
REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float, double}")
    .Doc("features where positive, else features * alpha.");
REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float, double}")
    .Doc("gradients where features > 0, else gradients * alpha.");
REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .Doc("exp(features) - 1 where negative, else features.");
REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .Doc("gradients * (outputs + 1) where outputs < 0, else gradients.");
REGISTER_OP("Sigmoid")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Doc("1 / (1 + exp(-x)).");
REGISTER_OP("SigmoidGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .Doc("dy * y * (1 - y): the gradient of Sigmoid from its output y.");
REGISTER_OP("Tanh")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Doc("The hyperbolic tangent.");
REGISTER_OP("TanhGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .Doc("dy * (1 - y * y): the gradient of Tanh from its output y.");
REGISTER_OP("Erf")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Doc("The error function.");
REGISTER_OP("Erfc")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Doc("The complementary error function, 1 - erf(x), accurate where erf(x) is near 1.");

// Relu, Relu6 and BiasAdd (with their gradients) take the integer types too, as in TensorFlow.
#define REGISTER_REAL_KERNELS(op, kernel)                 \
  REGISTER_FLOATING_KERNELS(op, kernel);                  \
  REGISTER_KERNEL(op, DataType::kInt8, kernel<int8_t>);   \
  REGISTER_KERNEL(op, DataType::kInt16, kernel<int16_t>); \
  REGISTER_KERNEL(op, DataType::kInt32, kernel<int32_t>); \
  REGISTER_KERNEL(op, DataType::kInt64, kernel<int64_t>); \
  REGISTER_KERNEL(op, DataType::kUInt8, kernel<uint8_t>); \
  REGISTER_KERNEL(op, DataType::kUInt16, kernel<uint16_t>)

REGISTER_REAL_KERNELS("BiasAdd", BiasAddOp);
REGISTER_REAL_KERNELS("BiasAddGrad", BiasAddGradOp);
REGISTER_REAL_KERNELS("Relu", ReluOp);
REGISTER_REAL_KERNELS("ReluGrad", ReluGradOp);
REGISTER_REAL_KERNELS("Relu6", Relu6Op);
REGISTER_REAL_KERNELS("Relu6Grad", Relu6GradOp);
REGISTER_FLOATING_KERNELS("LeakyRelu", LeakyReluOp);
REGISTER_FLOATING_KERNELS("LeakyReluGrad", LeakyReluGradOp);
REGISTER_FLOATING_KERNELS("Elu", EluOp);
REGISTER_FLOATING_KERNELS("EluGrad", EluGradOp);
REGISTER_FLOATING_KERNELS("Sigmoid", SigmoidOp);
REGISTER_FLOATING_KERNELS("SigmoidGrad", SigmoidGradOp);
REGISTER_FLOATING_KERNELS("Tanh", TanhOp);
REGISTER_FLOATING_KERNELS("TanhGrad", TanhGradOp);
REGISTER_FLOATING_KERNELS("Erf", ErfOp);
REGISTER_FLOATING_KERNELS("Erfc", ErfcOp);

}  // namespace
}  // namespace swigflow
