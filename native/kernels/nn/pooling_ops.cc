// MaxPool, AvgPool and their gradients on NHWC input, float and double, with TensorFlow's
// semantics: padded cells never win a max and never count in an average (SAME's divisor is the
// number of real cells), and the gradients route each window's gradient to the first maximum
// of its window in scan order (a NaN window routes to its first cell, as TF's CPU kernels do).
// MaxPool also takes explicit padding and depthwise windows (across channels only, the depth
// window equal to its stride and dividing the depth). Work is split over images, so sums into
// one input cell happen in one thread, in order.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/nn/window_geometry.h"

namespace swigflow {
namespace {

struct Window {
  int64_t batch, in_h, in_w, depth;
  int64_t k_h, k_w, stride_h, stride_w;
  int64_t k_d;  // > 1: depthwise max pooling, windows of k_d channels (spatial windows 1x1)
  int64_t out_h, out_w, out_d, pad_top, pad_left;
  bool avg_depth;  // AvgPool's ksize or strides pool channels: unsupported, reported by the op

  // The input rows / columns of output cell (oy, ox), clipped to the image.
  int64_t y0(int64_t oy) const { return std::max<int64_t>(oy * stride_h - pad_top, 0); }
  int64_t y1(int64_t oy) const { return std::min(oy * stride_h - pad_top + k_h, in_h); }
  int64_t x0(int64_t ox) const { return std::max<int64_t>(ox * stride_w - pad_left, 0); }
  int64_t x1(int64_t ox) const { return std::min(ox * stride_w - pad_left + k_w, in_w); }
  int64_t in_image() const { return in_h * in_w * depth; }
  int64_t out_image() const { return out_h * out_w * out_d; }
  std::vector<int64_t> out_shape() const { return {batch, out_h, out_w, out_d}; }
};

// The window of a MaxPool (`max`, which also takes explicit padding and depth windows) or an
// AvgPool over `input`, from ctx's attributes, with TensorFlow's checks and messages. An AvgPool
// over channels is left to the op to refuse (avg_depth), after the checks TensorFlow makes first.
Status MakeWindow(const OpKernelContext& ctx, const std::vector<int64_t>& input, bool max,
                  Window* w) {
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
  SWIGFLOW_RETURN_IF_ERROR(kernels::CheckInt32Attr("ksize", ksize));
  SWIGFLOW_RETURN_IF_ERROR(kernels::CheckInt32Attr("strides", strides));
  if (ksize[0] != 1 || strides[0] != 1) {
    return errors::Unimplemented("Pooling is not yet supported on the batch dimension.");
  }
  for (int i = 1; i < 4; ++i) {
    if (ksize[static_cast<size_t>(i)] <= 0) {
      return errors::InvalidArgument("Sliding window ksize for dimension ", i,
                                     " was zero or negative.");
    }
    if (strides[static_cast<size_t>(i)] <= 0) {
      return errors::InvalidArgument("Sliding window stride for dimension ", i,
                                     " was zero or negative.");
    }
  }
  const bool pools_depth = ksize[3] != 1 || strides[3] != 1;
  *w = Window{input[0],   input[1],   input[2],           input[3], ksize[1], ksize[2],
              strides[1], strides[2], max ? ksize[3] : 1, input[1], input[2], input[3],
              0,          0,          !max && pools_depth};
  if (max && pools_depth) {
    if (ksize[1] != 1 || ksize[2] != 1 || strides[1] != 1 || strides[2] != 1) {
      return errors::Unimplemented(
          "MaxPooling supports exactly one of pooling across depth or pooling across "
          "width/height.");
    }
    if (w->depth % ksize[3] != 0) {
      return errors::Unimplemented(
          "Depthwise max pooling requires the depth window to evenly divide the input depth");
    }
    if (ksize[3] != strides[3]) {
      return errors::Unimplemented(
          "Depthwise max pooling requires the depth window to equal the depth stride");
    }
    w->out_d = w->depth / w->k_d;
    return Status::OK();
  }
  const std::string& padding = ctx.GetString("padding");
  std::vector<int64_t> pads(8, 0);
  if (max) {
    SWIGFLOW_RETURN_IF_ERROR(
        kernels::ExplicitPaddings(padding, ctx.GetInts("explicit_paddings"), &pads));
    for (int i = 1; i < 3; ++i) {
      const int64_t k = ksize[static_cast<size_t>(i)];
      const int64_t before = pads[static_cast<size_t>(2 * i)];
      const int64_t after = pads[static_cast<size_t>(2 * i + 1)];
      if (before >= k) {
        return errors::InvalidArgument("Left padding ", before,
                                       " needs to be smaller than the window size ", k);
      }
      if (after >= k) {
        return errors::InvalidArgument("Right padding ", after,
                                       " needs to be smaller than the window size ", k);
      }
    }
  }
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(w->in_h, w->k_h, 1, w->stride_h, padding,
                                                       pads[2], pads[3], &w->out_h, &w->pad_top));
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(w->in_w, w->k_w, 1, w->stride_w, padding,
                                                       pads[4], pads[5], &w->out_w, &w->pad_left));
  if (max && padding == "VALID") {
    // TensorFlow's CPU MaxPool rejects a window larger than the input (an empty output would
    // hide the mistake); AvgPool returns the empty output.
    for (int i = 1; i < 3; ++i) {
      if (ksize[static_cast<size_t>(i)] > input[static_cast<size_t>(i)]) {
        return errors::InvalidArgument("ksize dimension ", i, " (", ksize[static_cast<size_t>(i)],
                                       ") is larger than the input tensor dimension (",
                                       input[static_cast<size_t>(i)], ") with VALID padding");
      }
    }
  }
  return Status::OK();
}

Status DepthUnsupported() {
  return errors::Unimplemented("Pooling is not yet supported on the depth dimension.");
}

Status CheckShape(const char* what, const Tensor& t, const std::vector<int64_t>& expected) {
  if (t.shape() != expected) {
    return errors::InvalidArgument("Expected ", what, " shape to be ", ShapeString(expected),
                                   ", but got ", t.ShapeString());
  }
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

// Calls fn(offset into the image) for each input cell of output cell (oy, ox, od), in scan
// order: rows, columns, then the channels of a depth window.
template <typename Fn>
void ForEachCell(const Window& w, int64_t oy, int64_t ox, int64_t od, Fn fn) {
  for (int64_t y = w.y0(oy); y < w.y1(oy); ++y) {
    for (int64_t x = w.x0(ox); x < w.x1(ox); ++x) {
      const int64_t at = (y * w.in_w + x) * w.depth + od * w.k_d;
      for (int64_t d = 0; d < w.k_d; ++d) fn(at + d);
    }
  }
}

// The offset in its image of the first maximum of output cell (oy, ox, od)'s window, or -1 for
// a window of padding only. A NaN first cell stays the maximum (NaN > x is false).
template <typename T>
int64_t FirstMax(const Window& w, const T* in, int64_t oy, int64_t ox, int64_t od) {
  int64_t best = -1;
  ForEachCell(w, oy, ox, od, [&](int64_t at) {
    if (best < 0 || in[at] > in[best]) best = at;
  });
  return best;
}

template <typename T>
class MaxPoolOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, x.shape(), true, &w));
    Tensor* out = ctx->allocate_output(0, w.out_shape(), false);
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const T* in = x.data<T>() + n * w.in_image();
      T* o = out->data<T>() + n * w.out_image();
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, o += w.out_d) {
          if (w.k_d == 1) {  // channels in the inner loop: it vectorizes
            std::fill(o, o + w.depth, -std::numeric_limits<T>::infinity());
            for (int64_t y = w.y0(oy); y < w.y1(oy); ++y) {
              for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
                const T* v = in + (y * w.in_w + xx) * w.depth;
                for (int64_t c = 0; c < w.depth; ++c) o[c] = std::max(o[c], v[c]);
              }
            }
            continue;
          }
          for (int64_t od = 0; od < w.out_d; ++od) {
            T m = -std::numeric_limits<T>::infinity();
            ForEachCell(w, oy, ox, od, [&](int64_t at) { m = std::max(m, in[at]); });
            o[od] = m;
          }
        }
      }
    });
  }
};

template <typename T>
class AvgPoolOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, x.shape(), false, &w));
    OP_REQUIRES(ctx, !w.avg_depth, DepthUnsupported());
    Tensor* out = ctx->allocate_output(0, w.out_shape(), false);
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const T* in = x.data<T>() + n * w.in_image();
      T* o = out->data<T>() + n * w.out_image();
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, o += w.depth) {
          std::fill(o, o + w.depth, T(0));
          for (int64_t y = w.y0(oy); y < w.y1(oy); ++y) {
            for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
              const T* v = in + (y * w.in_w + xx) * w.depth;
              for (int64_t c = 0; c < w.depth; ++c) o[c] += v[c];
            }
          }
          const T cells = static_cast<T>((w.y1(oy) - w.y0(oy)) * (w.x1(ox) - w.x0(ox)));
          for (int64_t c = 0; c < w.depth; ++c) o[c] /= cells;
        }
      }
    });
  }
};

// MaxPoolGrad and MaxPoolGradGrad: inputs orig_input, orig_output and grad (the pooled shape
// for MaxPoolGrad, the input's for MaxPoolGradGrad). Both pair each output cell with its
// window's first maximum: `Route` moves the value between them.
template <typename T, typename Route>
void ComputeFirstMaxRouting(OpKernelContext* ctx, bool grad_is_pooled, Route route) {
  const Tensor& x = ctx->input(0);
  Window w;
  OP_REQUIRES_OK(ctx, MakeWindow(*ctx, x.shape(), true, &w));
  OP_REQUIRES_OK(ctx, CheckShape("orig_output", ctx->input(1), w.out_shape()));
  const Tensor& grad = ctx->input(2);
  OP_REQUIRES_OK(ctx, CheckShape("grad", grad, grad_is_pooled ? w.out_shape() : x.shape()));
  Tensor* out = ctx->allocate_output(0, grad_is_pooled ? x.shape() : w.out_shape());
  const int64_t grad_image = grad_is_pooled ? w.out_image() : w.in_image();
  const int64_t out_image = grad_is_pooled ? w.in_image() : w.out_image();
  ForEachImage(ctx, w.batch, [&](int64_t n) {
    const T* in = x.data<T>() + n * w.in_image();
    const T* g = grad.data<T>() + n * grad_image;
    T* o = out->data<T>() + n * out_image;
    int64_t cell = 0;  // the output cell's offset in its pooled image
    if (w.k_d == 1) {
      // All channels of a window at once, reading each cell's channels contiguously: the
      // first maximum per channel is a compare and select per cell, not a scan per channel.
      // The winner is kept as the cell's number in the window, an integer as wide as T, so
      // the select vectorizes; cell_at turns it back into an offset.
      using Index = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
      std::vector<T> top(static_cast<size_t>(w.depth));
      std::vector<Index> which(static_cast<size_t>(w.depth));
      std::vector<int64_t> cell_at;
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, cell += w.depth) {
          cell_at.clear();
          for (int64_t y = w.y0(oy); y < w.y1(oy); ++y) {
            for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
              const int64_t at = (y * w.in_w + xx) * w.depth;
              const T* v = in + at;
              const Index k = static_cast<Index>(cell_at.size());
              cell_at.push_back(at);
              if (k == 0) {
                std::copy(v, v + w.depth, top.begin());
                std::fill(which.begin(), which.end(), Index{0});
                continue;
              }
              T* __restrict t = top.data();
              Index* __restrict best = which.data();
              const T* __restrict cell_values = v;
              for (int64_t c = 0; c < w.depth; ++c) {  // NaN > x is false: a NaN first stays
                // Branch-free: a max and a mask, which vectorize (a conditional per channel
                // would mispredict on random data).
                const T old = t[c];
                const T value = cell_values[c];
                const Index wins = -static_cast<Index>(value > old);
                t[c] = std::max(old, value);
                best[c] = (k & wins) | (best[c] & ~wins);
              }
            }
          }
          if (cell_at.empty()) continue;  // a window of padding only
          for (int64_t c = 0; c < w.depth; ++c) route(g, o, cell + c, cell_at[which[c]] + c);
        }
      }
      return;
    }
    for (int64_t oy = 0; oy < w.out_h; ++oy) {
      for (int64_t ox = 0; ox < w.out_w; ++ox) {
        for (int64_t od = 0; od < w.out_d; ++od, ++cell) {
          const int64_t best = FirstMax(w, in, oy, ox, od);
          if (best >= 0) route(g, o, cell, best);
        }
      }
    }
  });
}

// dx routes each window's gradient to its first maximum.
template <typename T>
class MaxPoolGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    ComputeFirstMaxRouting<T>(
        ctx, true, [](const T* g, T* dx, int64_t cell, int64_t best) { dx[best] += g[cell]; });
  }
};

// Reads grad at each window's first maximum: the adjoint of MaxPoolGrad in its grad argument.
template <typename T>
class MaxPoolGradGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    ComputeFirstMaxRouting<T>(
        ctx, false, [](const T* g, T* out, int64_t cell, int64_t best) { out[cell] = g[best]; });
  }
};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.dim(0) == 4,
                errors::InvalidArgument("orig_input_shape must be 1-dimensional and 4 elements"));
    std::vector<int64_t> shape(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
    Window w;
    OP_REQUIRES_OK(ctx, MakeWindow(*ctx, shape, false, &w));
    OP_REQUIRES_OK(ctx, CheckShape("grad", grad, w.out_shape()));
    OP_REQUIRES(ctx, !w.avg_depth, DepthUnsupported());
    Tensor* dx = ctx->allocate_output(0, shape);
    ForEachImage(ctx, w.batch, [&](int64_t n) {
      const T* g = grad.data<T>() + n * w.out_image();
      T* d = dx->data<T>() + n * w.in_image();
      for (int64_t oy = 0; oy < w.out_h; ++oy) {
        for (int64_t ox = 0; ox < w.out_w; ++ox, g += w.depth) {
          const T count = static_cast<T>((w.y1(oy) - w.y0(oy)) * (w.x1(ox) - w.x0(ox)));
          for (int64_t yy = w.y0(oy); yy < w.y1(oy); ++yy) {
            for (int64_t xx = w.x0(ox); xx < w.x1(ox); ++xx) {
              T* t = d + (yy * w.in_w + xx) * w.depth;
              for (int64_t c = 0; c < w.depth; ++c) t[c] += g[c] / count;
            }
          }
        }
      }
    });
  }
};

#define SWIGFLOW_POOL_ATTRS(paddings) \
  Attr("T: {float, double}")          \
      .Attr("ksize: list(int)")       \
      .Attr("strides: list(int)")     \
      .Attr(paddings)                 \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
#define SWIGFLOW_MAX_POOL_ATTRS                                 \
  SWIGFLOW_POOL_ATTRS("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
      .Attr("explicit_paddings: list(int) = []")
#define SWIGFLOW_AVG_POOL_ATTRS SWIGFLOW_POOL_ATTRS("padding: {'SAME', 'VALID'}")

REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .SWIGFLOW_MAX_POOL_ATTRS.Doc(
        "Max over windows; padding never wins. A depth window (ksize [1, 1, 1, k]) pools "
        "channels.");
REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .SWIGFLOW_AVG_POOL_ATTRS.Doc("Mean over windows; padding is not counted.");
REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .SWIGFLOW_MAX_POOL_ATTRS.Doc(
        "The gradient of MaxPool: each window's gradient goes to its first maximum.");
REGISTER_OP("MaxPoolGradGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .SWIGFLOW_MAX_POOL_ATTRS.Doc(
        "The gradient of MaxPoolGrad with respect to its grad: grad read at each window's first "
        "maximum.");
REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .SWIGFLOW_AVG_POOL_ATTRS.Doc("The gradient of AvgPool.");

REGISTER_FLOATING_KERNELS("MaxPool", MaxPoolOp);
REGISTER_FLOATING_KERNELS("AvgPool", AvgPoolOp);
REGISTER_FLOATING_KERNELS("MaxPoolGrad", MaxPoolGradOp);
REGISTER_FLOATING_KERNELS("MaxPoolGradGrad", MaxPoolGradGradOp);
REGISTER_FLOATING_KERNELS("AvgPoolGrad", AvgPoolGradOp);

}  // namespace
}  // namespace swigflow
