// Relu, ReluGrad, BiasAdd and BiasAddGrad: memory-bound loops, written so that -O3 vectorizes
// them (plain indexed loops over raw pointers, bounds hoisted) and split over the pool in
// blocks of a fixed size, so large activations stream at memory speed on every core.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {
namespace {

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
          for (int64_t c = 0; c < channels; ++c) oi[c] = vi[c] + b[c];
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            const T bc = b[c];
            for (int64_t j = 0; j < inner; ++j) oi[c * inner + j] = vi[c * inner + j] + bc;
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
          for (int64_t c = 0; c < channels; ++c) sum[c] += gi[c];
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            T s = 0;
            for (int64_t j = 0; j < inner; ++j) s += gi[c * inner + j];
            sum[c] += s;
          }
        }
      }
    });
    T* o = out->data<T>();
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t c = 0; c < channels; ++c) o[c] += partial[b * channels + c];
    }
  }
};

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

REGISTER_FLOATING_KERNELS("BiasAdd", BiasAddOp);
REGISTER_FLOATING_KERNELS("BiasAddGrad", BiasAddGradOp);
REGISTER_FLOATING_KERNELS("Relu", ReluOp);
REGISTER_FLOATING_KERNELS("ReluGrad", ReluGradOp);

}  // namespace
}  // namespace swigflow
