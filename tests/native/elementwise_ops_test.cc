// The elementwise ops (elementwise_ops.cc), the cross-entropy ops (xent_ops.cc) and MaxPoolGrad's
// channel-vectorized path against plain double-precision references, on tensors large enough to
// be split over the pool: CI runs this under ASan/UBSan and TSan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {
namespace {

Tensor Random(std::vector<int64_t> shape, uint64_t seed, float scale = 3.0f) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

Tensor Compute(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {},
               ThreadPool* pool = ThreadPool::Default(), int output = 0) {
  std::vector<Tensor> out;
  const Status s = RunOp(op, inputs, std::move(attrs), &out, SelectedIsa(), pool);
  EXPECT_TRUE(s.ok()) << op << ": " << s.ToString();
  return s.ok() ? out[static_cast<size_t>(output)] : Tensor();
}

// 3 * 2^16 elements: several blocks of the pool's fixed size, and a partial last one.
const std::vector<int64_t> kLarge = {3, 256, 256};

TEST(ElementwiseOpsTest, UnaryOpsMatchDoubleReferences) {
  const Tensor x = Random(kLarge, 1);
  const std::vector<std::pair<std::string, std::function<double(double)>>> cases = {
      {"Relu", [](double v) { return v < 0 ? 0.0 : v; }},
      {"Relu6", [](double v) { return v < 0 ? 0.0 : (v > 6 ? 6.0 : v); }},
      {"Elu", [](double v) { return v < 0 ? std::exp(v) - 1 : v; }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Erfc", [](double v) { return std::erfc(v); }},
  };
  for (const auto& [op, reference] : cases) {
    const Tensor y = Compute(op, {x});
    ASSERT_EQ(y.shape(), x.shape()) << op;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const double want = reference(x.data<float>()[i]);
      ASSERT_NEAR(y.data<float>()[i], want, 4e-7 * (1 + std::fabs(want))) << op << " at " << i;
    }
  }
  AttrMap alpha{{"alpha", 0.3f}};
  const Tensor leaky = Compute("LeakyRelu", {x}, alpha);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const float v = x.data<float>()[i];
    ASSERT_EQ(leaky.data<float>()[i], v > 0 ? v : v * 0.3f);
  }
}

TEST(ElementwiseOpsTest, GradientOpsMatchTheirFormulas) {
  const Tensor g = Random(kLarge, 2), x = Random(kLarge, 3);
  const Tensor relu = Compute("ReluGrad", {g, x});
  const Tensor relu6 = Compute("Relu6Grad", {g, Random(kLarge, 4, 8.0f)});
  const Tensor sigmoid = Compute("SigmoidGrad", {x, g});
  const Tensor tanh = Compute("TanhGrad", {x, g});
  const Tensor elu = Compute("EluGrad", {g, x});
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const float gi = g.data<float>()[i], xi = x.data<float>()[i];
    ASSERT_EQ(relu.data<float>()[i], xi > 0 ? gi : 0.0f);
    ASSERT_EQ(sigmoid.data<float>()[i], gi * xi * (1 - xi));
    ASSERT_EQ(tanh.data<float>()[i], gi * (1 - xi * xi));
    ASSERT_EQ(elu.data<float>()[i], xi < 0 ? gi * (xi + 1) : gi);
  }
  std::vector<Tensor> out;
  EXPECT_TRUE(errors::IsInvalidArgument(RunOp("ReluGrad", {g, Random({3}, 5)}, {}, &out)));
}

TEST(ElementwiseOpsTest, NanStaysNan) {
  Tensor x(DataType::kFloat, {3});
  x.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[1] = -1;
  x.data<float>()[2] = 7;
  const Tensor relu = Compute("Relu", {x}), relu6 = Compute("Relu6", {x});
  EXPECT_TRUE(std::isnan(relu.data<float>()[0]));
  EXPECT_TRUE(std::isnan(relu6.data<float>()[0]));
  EXPECT_EQ(relu6.data<float>()[2], 6.0f);
}

TEST(ElementwiseOpsTest, BiasAddAndItsGradientInBothLayouts) {
  const Tensor value = Random({5, 7, 9, 64}, 6), bias = Random({64}, 7);
  const Tensor nhwc = Compute("BiasAdd", {value, bias});
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    ASSERT_EQ(nhwc.data<float>()[i], value.data<float>()[i] + bias.data<float>()[i % 64]);
  }
  const Tensor nchw_value = Random({5, 64, 7, 9}, 8);
  AttrMap nchw{{"data_format", std::string("NCHW")}};
  const Tensor nchw_out = Compute("BiasAdd", {nchw_value, bias}, nchw);
  for (int64_t i = 0; i < nchw_value.num_elements(); ++i) {
    ASSERT_EQ(nchw_out.data<float>()[i],
              nchw_value.data<float>()[i] + bias.data<float>()[(i / 63) % 64]);
  }
  // The gradient sums in a fixed order of fixed blocks: one thread or the pool, same bits.
  ThreadPool one(1);
  for (const AttrMap& attrs : {AttrMap{}, nchw}) {
    const Tensor& dy = attrs.empty() ? value : nchw_value;
    const Tensor pooled = Compute("BiasAddGrad", {dy}, attrs);
    const Tensor single = Compute("BiasAddGrad", {dy}, attrs, &one);
    ASSERT_EQ(pooled.num_elements(), 64);
    std::vector<double> want(64, 0.0);
    for (int64_t i = 0; i < dy.num_elements(); ++i) {
      want[static_cast<size_t>(attrs.empty() ? i % 64 : (i / 63) % 64)] += dy.data<float>()[i];
    }
    for (int c = 0; c < 64; ++c) {
      EXPECT_EQ(pooled.data<float>()[c], single.data<float>()[c]);
      EXPECT_NEAR(pooled.data<float>()[c], want[static_cast<size_t>(c)], 1e-3);
    }
  }
}

TEST(ElementwiseOpsTest, IntegerBiasAddWrapsAndReluKeepsTheType) {
  Tensor value(DataType::kInt8, {1, 2});
  value.data<int8_t>()[0] = 120;
  value.data<int8_t>()[1] = -120;
  Tensor bias(DataType::kInt8, {2});
  bias.data<int8_t>()[0] = 10;
  bias.data<int8_t>()[1] = -10;
  const Tensor sum = Compute("BiasAdd", {value, bias});
  EXPECT_EQ(sum.data<int8_t>()[0], -126);  // wraps, as TensorFlow's
  EXPECT_EQ(sum.data<int8_t>()[1], 126);
  Tensor big(DataType::kInt32, {2, 1});
  big.data<int32_t>()[0] = std::numeric_limits<int32_t>::max();
  big.data<int32_t>()[1] = 1;
  const Tensor total = Compute("BiasAddGrad", {big});
  EXPECT_EQ(total.data<int32_t>()[0], std::numeric_limits<int32_t>::min());  // no UB: wraps
  Tensor u(DataType::kUInt8, {3});
  u.data<uint8_t>()[0] = 0;
  u.data<uint8_t>()[1] = 200;
  u.data<uint8_t>()[2] = 5;
  const Tensor relu6 = Compute("Relu6", {u});
  EXPECT_EQ(relu6.dtype(), DataType::kUInt8);
  EXPECT_EQ(relu6.data<uint8_t>()[1], 6);
}

TEST(XentOpsTest, SparseAndDenseAgreeWithReferences) {
  const int64_t rows = 300, classes = 37;
  const Tensor logits = Random({rows, classes}, 9, 20.0f);
  Tensor labels(DataType::kInt64, {rows});
  Tensor onehot(DataType::kFloat, {rows, classes});
  for (int64_t r = 0; r < rows; ++r) {
    labels.data<int64_t>()[r] = (r * 7) % classes;
    onehot.data<float>()[r * classes + (r * 7) % classes] = 1;
  }
  const Tensor sparse_loss = Compute("SparseSoftmaxCrossEntropyWithLogits", {logits, labels});
  const Tensor sparse_grad = Compute("SparseSoftmaxCrossEntropyWithLogits", {logits, labels}, {},
                                     ThreadPool::Default(), 1);
  const Tensor dense_loss = Compute("SoftmaxCrossEntropyWithLogits", {logits, onehot});
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits.data<float>() + r * classes;
    double top = row[0], sum = 0;
    for (int64_t j = 0; j < classes; ++j) top = std::max<double>(top, row[j]);
    for (int64_t j = 0; j < classes; ++j) sum += std::exp(row[j] - top);
    const int64_t label = labels.data<int64_t>()[r];
    const double loss = std::log(sum) - (row[label] - top);
    ASSERT_NEAR(sparse_loss.data<float>()[r], loss, 1e-5 * (1 + loss));
    ASSERT_NEAR(dense_loss.data<float>()[r], loss, 1e-5 * (1 + loss));
    for (int64_t j = 0; j < classes; ++j) {
      const double want = std::exp(row[j] - top) / sum - (j == label ? 1.0 : 0.0);
      ASSERT_NEAR(sparse_grad.data<float>()[r * classes + j], want, 1e-6);
    }
  }
}

TEST(XentOpsTest, ErrorsAreTensorFlows) {
  std::vector<Tensor> out;
  Tensor labels(DataType::kInt32, {4});
  const int32_t values[] = {4, 3, 0, -1};
  for (int i = 0; i < 4; ++i) labels.data<int32_t>()[i] = values[i];
  Status s = RunOp("SparseSoftmaxCrossEntropyWithLogits", {Random({4, 4}, 10), labels}, {}, &out);
  ASSERT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_NE(s.ToString().find("Received a label value of -1 which is outside the valid range of "
                              "[0, 4).  Label values: 4 3 0 -1"),
            std::string::npos)
      << s.ToString();
  s = RunOp("SoftmaxCrossEntropyWithLogits", {Random({2, 2}, 11), Random({2, 3}, 12)}, {}, &out);
  EXPECT_NE(s.ToString().find("logits and labels must be broadcastable: logits_size=[2,2] "
                              "labels_size=[2,3]"),
            std::string::npos)
      << s.ToString();
  s = RunOp("SparseSoftmaxCrossEntropyWithLogits",
            {Random({2, 0}, 13), Tensor(DataType::kInt64, {2})}, {}, &out);
  EXPECT_NE(s.ToString().find("Must have at least one class"), std::string::npos);
}

TEST(MaxPoolGradTest, RoutesToTheFirstMaximumOfEachChannel) {
  // Values from a small set: many ties, so "first" matters; NaNs too.
  Tensor x(DataType::kFloat, {3, 9, 8, 19});
  std::mt19937_64 rng(14);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.data<float>()[i] = static_cast<float>(rng() % 4);
    if (rng() % 97 == 0) x.data<float>()[i] = std::numeric_limits<float>::quiet_NaN();
  }
  AttrMap attrs{{"ksize", std::vector<int64_t>{1, 3, 2, 1}},
                {"strides", std::vector<int64_t>{1, 2, 2, 1}},
                {"padding", std::string("SAME")}};
  const Tensor y = Compute("MaxPool", {x}, attrs);
  const Tensor g = Random(y.shape(), 15);
  const Tensor dx = Compute("MaxPoolGrad", {x, y, g}, attrs);
  // The reference: scan each window in row-major order, keeping the first value that no later
  // one exceeds (a NaN first cell stays, as NaN > v is false).
  std::vector<double> want(static_cast<size_t>(x.num_elements()), 0.0);
  const int64_t h = 9, w = 8, c = 19, oh = y.dim(1), ow = y.dim(2);
  const int64_t pad_top = ((oh - 1) * 2 + 3 - h) / 2, pad_left = ((ow - 1) * 2 + 2 - w) / 2;
  for (int64_t n = 0; n < 3; ++n) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        for (int64_t d = 0; d < c; ++d) {
          int64_t best = -1;
          for (int64_t yy = oy * 2 - pad_top; yy < oy * 2 - pad_top + 3; ++yy) {
            for (int64_t xx = ox * 2 - pad_left; xx < ox * 2 - pad_left + 2; ++xx) {
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              const int64_t at = ((n * h + yy) * w + xx) * c + d;
              if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
            }
          }
          want[static_cast<size_t>(best)] += g.data<float>()[((n * oh + oy) * ow + ox) * c + d];
        }
      }
    }
  }
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    ASSERT_FLOAT_EQ(dx.data<float>()[i], static_cast<float>(want[static_cast<size_t>(i)]))
        << "at " << i;
  }
}

}  // namespace
}  // namespace swigflow
