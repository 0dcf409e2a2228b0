// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits: the loss of each row
// and its gradient (softmax - labels) in one pass, with TensorFlow's arithmetic: logits are
// shifted by the row's maximum first, so exp never overflows, and
//   loss = sum_j labels_j * (log(sum_k exp(shifted_k)) - shifted_j).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {
namespace {

// One row: shifted = logits - max, and the sum of exp(shifted), accumulated in order.
template <typename T>
T ShiftAndSumExp(const T* logits, int64_t depth, T* shifted) {
  const T top = *std::max_element(logits, logits + depth);
  T sum = 0;
  for (int64_t j = 0; j < depth; ++j) {
    shifted[j] = logits[j] - top;
    sum += std::exp(shifted[j]);
  }
  return sum;
}

// Dimension d of a rank-2 operand broadcast to [rows, depth]: its stride is 0 where the
// operand has extent 1.
int64_t BroadcastStride(const Tensor& t, int d) {
  if (t.dim(d) == 1) return 0;
  return d == 0 ? t.dim(1) : 1;
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, logits.dims() == 2 && labels.dims() == 2,
                errors::InvalidArgument("logits and labels must be either 2-dimensional, or "
                                        "broadcasted to be 2-dimensional"));
    std::vector<int64_t> shape(2);
    for (int d = 0; d < 2; ++d) {
      const int64_t a = logits.dim(d), b = labels.dim(d);
      OP_REQUIRES(ctx, a == b || a == 1 || b == 1,
                  errors::InvalidArgument(
                      "logits and labels must be broadcastable: logits_size=", logits.ShapeString(),
                      " labels_size=", labels.ShapeString()));
      shape[d] = a == 1 ? b : a;
    }
    const int64_t rows = shape[0], depth = shape[1];
    Tensor* loss = ctx->allocate_output(0, {rows});
    Tensor* backprop = ctx->allocate_output(1, {rows, depth});
    if (depth == 0) return;  // no classes: a loss of 0 per row, as TensorFlow gives
    const int64_t l0 = BroadcastStride(logits, 0), l1 = BroadcastStride(logits, 1);
    const int64_t y0 = BroadcastStride(labels, 0), y1 = BroadcastStride(labels, 1);
    std::vector<T> row(static_cast<size_t>(depth));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < depth; ++j) row[j] = logits.data<T>()[i * l0 + j * l1];
      T* grad = backprop->data<T>() + i * depth;
      const T sum = ShiftAndSumExp(row.data(), depth, grad);
      const T log_sum = std::log(sum);
      const T* y = labels.data<T>() + i * y0;
      T total = 0;
      for (int64_t j = 0; j < depth; ++j) {
        total += y[j * y1] * (log_sum - grad[j]);
        grad[j] = std::exp(grad[j]) / sum - y[j * y1];
      }
      loss->data<T>()[i] = total;
    }
  }
};

// TensorFlow's CPU check, before any row: a label outside [0, depth) is an error naming the
// smallest label when it is negative, else the largest, and listing them all.
template <typename Label>
Status CheckLabels(const Label* labels, int64_t rows, int64_t depth) {
  if (rows == 0) return Status::OK();
  const auto [low, high] = std::minmax_element(labels, labels + rows);
  if (*low >= 0 && *high < depth) return Status::OK();
  std::string all;
  for (int64_t k = 0; k < rows; ++k) {
    if (k) all += ' ';
    all += std::to_string(labels[k]);
  }
  return errors::InvalidArgument("Received a label value of ", *low < 0 ? *low : *high,
                                 " which is outside the valid range of [0, ", depth,
                                 ").  Label values: ", all);
}

template <typename T, typename Label>
void SparseXentRows(OpKernelContext* ctx, const Tensor& logits, const Label* labels) {
  const int64_t rows = logits.dim(0), depth = logits.dim(1);
  OP_REQUIRES_OK(ctx, CheckLabels(labels, rows, depth));
  Tensor* loss = ctx->allocate_output(0, {rows});
  Tensor* backprop = ctx->allocate_output(1, {rows, depth});
  for (int64_t i = 0; i < rows; ++i) {
    T* grad = backprop->data<T>() + i * depth;
    const T sum = ShiftAndSumExp(logits.data<T>() + i * depth, depth, grad);
    loss->data<T>()[i] = std::log(sum) - grad[labels[i]];
    for (int64_t j = 0; j < depth; ++j) {
      grad[j] = std::exp(grad[j]) / sum - (j == labels[i] ? T(1) : T(0));
    }
  }
}

template <typename T>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(
        ctx, logits.dims() == 2,
        errors::InvalidArgument("logits must be 2-D, but got shape ", logits.ShapeString()));
    OP_REQUIRES(
        ctx, labels.dims() == 1,
        errors::InvalidArgument("labels must be 1-D, but got shape ", labels.ShapeString()));
    OP_REQUIRES(ctx, logits.dim(0) == labels.dim(0),
                errors::InvalidArgument(
                    "logits and labels must have the same first dimension, got logits shape ",
                    logits.ShapeString(), " and labels shape ", labels.ShapeString()));
    OP_REQUIRES(ctx, logits.dim(1) > 0,
                errors::InvalidArgument("Must have at least one class, but got logits shape ",
                                        logits.ShapeString()));
    if (labels.dtype() == DataType::kInt32) {
      SparseXentRows<T>(ctx, logits, labels.data<int32_t>());
    } else {
      SparseXentRows<T>(ctx, logits, labels.data<int64_t>());
    }
  }
};

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .Doc(
        "Per row: the cross-entropy of softmax(features) against the label distribution, "
        "and its gradient softmax(features) - labels. Rank-2 operands, broadcasting.");
REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .Attr("Tlabels: {int32, int64} = int64")
    .Doc(
        "Per row: -log(softmax(features)[label]) and its gradient softmax(features) - "
        "one_hot(label). A label outside [0, classes) is an error.");

REGISTER_FLOATING_KERNELS("SoftmaxCrossEntropyWithLogits", SoftmaxXentOp);
REGISTER_FLOATING_KERNELS("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxXentOp);

}  // namespace
}  // namespace swigflow
