#include "swigflow/framework/op.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace swigflow {
namespace {

// A test-only op: y = x + bias attr (with a default), for the registry mechanics.
class AddAttrOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = ctx->allocate_output(0, x.shape());
    const float bias = ctx->GetFloat("bias");
    for (int64_t i = 0; i < x.num_elements(); ++i) y->data<float>()[i] = x.data<float>()[i] + bias;
  }
};

REGISTER_OP("TestAddAttr")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("bias: float = 1.5")
    .Attr("mode: {'a', 'b'} = 'a'")
    .Doc("x + bias");
REGISTER_KERNEL("TestAddAttr", DataType::kFloat, AddAttrOp);

Tensor Floats(std::vector<int64_t> shape, float value = 1.0f) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = value;
  return t;
}

TEST(OpRegistryTest, DefaultsAndValidation) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("TestAddAttr", {Floats({2})}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[1], 2.5f);
  ASSERT_TRUE(RunOp("TestAddAttr", {Floats({1})}, {{"bias", int64_t{3}}}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 4.0f);  // an int for a float attr is converted

  Status s = RunOp("TestAddAttr", {Floats({1})}, {{"mode", std::string("c")}}, &out);
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("not in the list of allowed values: \"a\", \"b\""), std::string::npos);
  s = RunOp("TestAddAttr", {Floats({1})}, {{"bias", std::string("x")}}, &out);
  EXPECT_NE(s.message().find("attr 'bias' of TestAddAttr must be float, got string"),
            std::string::npos);
  s = RunOp("TestAddAttr", {Tensor(DataType::kInt32, {1})}, {}, &out);
  EXPECT_NE(s.message().find("Value for attr 'T' of int32 is not in the list"), std::string::npos);
  EXPECT_TRUE(errors::IsNotFound(RunOp("Nope", {}, {}, &out)));
}

TEST(OpRegistryTest, DuplicatesAndBadSpecs) {
  EXPECT_TRUE(errors::IsAlreadyExists(
      OpRegistry::Global()->RegisterOp(OpDefBuilder("TestAddAttr").Input("x: float"))));
  EXPECT_TRUE(errors::IsAlreadyExists(OpRegistry::Global()->RegisterKernel(
      "TestAddAttr", DataType::kFloat, [] { return std::unique_ptr<OpKernel>(new AddAttrOp); })));
  OpDef def;
  EXPECT_FALSE(OpDefBuilder("Bad").Input("x: U").Finish(&def).ok());  // U is no type attr
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("n: int = x").Finish(&def).ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("n: matrix").Finish(&def).ok());
  ASSERT_TRUE(OpDefBuilder("Good")
                  .Input("x: T")
                  .Attr("T: {float, double}")
                  .Attr("k: list(int) = [1, 2]")
                  .Finish(&def)
                  .ok());
  EXPECT_EQ(std::get<std::vector<int64_t>>(def.FindAttr("k")->default_value),
            (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(OpRegistry::Global()->TakeDeferredErrors().empty());
}

TEST(OpRegistryTest, AbsurdOutputSizesAreResourceExhausted) {
  std::vector<Tensor> out;
  Tensor sizes(DataType::kInt32, {4});
  const int32_t huge[4] = {1 << 30, 1 << 30, 1 << 30, 1};
  std::copy(huge, huge + 4, sizes.data<int32_t>());
  const Status s = RunOp("AvgPoolGrad", {sizes, Floats({1 << 30 >> 20, 1, 1, 1})},
                         {{"ksize", std::vector<int64_t>{1, 1, 1, 1}},
                          {"strides", std::vector<int64_t>{1, 1 << 20, 1 << 30, 1}},
                          {"padding", std::string("VALID")}},
                         &out);
  EXPECT_FALSE(s.ok());
}

// Random shapes and attributes for every nn op: OK or a clean error, never a crash (CI runs
// this under ASan/UBSan too).
TEST(NnOpsFuzzTest, RandomShapesAndAttributes) {
  std::mt19937_64 rng(1234);
  auto pick = [&](int lo, int hi) {
    return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  auto list = [&](int n, int lo, int hi) {
    std::vector<int64_t> v;
    for (int i = 0; i < n; ++i) v.push_back(pick(lo, hi));
    return v;
  };
  const char* paddings[] = {"SAME", "VALID", "EXPLICIT"};
  int ok = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const int op = static_cast<int>(pick(0, 8));
    std::vector<int64_t> xs = list(static_cast<int>(pick(3, 5)) == 3 ? 3 : 4, 0, 7);
    std::vector<int64_t> ws = list(4, 0, 4);
    if (pick(0, 3) > 0 && xs.size() == 4) ws[2] = xs[3];  // usually a matching depth
    AttrMap attrs;
    attrs["strides"] = pick(0, 5) == 0 ? list(static_cast<int>(pick(0, 5)), -1, 3)
                                       : std::vector<int64_t>{1, pick(1, 3), pick(1, 3), 1};
    attrs["padding"] = std::string(paddings[pick(0, op >= 3 && op <= 6 ? 1 : 2)]);
    if (std::get<std::string>(attrs["padding"]) == "EXPLICIT") {
      attrs["explicit_paddings"] =
          pick(0, 5) == 0
              ? list(static_cast<int>(pick(0, 9)), -1, 3)
              : std::vector<int64_t>{0, 0, pick(0, 3), pick(0, 3), pick(0, 3), pick(0, 3), 0, 0};
    }
    std::vector<Tensor> inputs;
    std::string name;
    Tensor x = Floats(xs, 0.5f);
    auto sizes = [&](const std::vector<int64_t>& v) {
      Tensor t(DataType::kInt32, {static_cast<int64_t>(v.size())});
      for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
      return t;
    };
    std::vector<int64_t> dys = list(4, 0, 5);
    switch (op) {
      case 0:
        name = "Conv2D";
        inputs = {x, Floats(ws)};
        attrs["dilations"] = std::vector<int64_t>{1, pick(1, 3), pick(1, 3), 1};
        break;
      case 1:
        name = "Conv2DBackpropInput";
        inputs = {sizes(xs), Floats(ws), Floats(dys)};
        break;
      case 2:
        name = "Conv2DBackpropFilter";
        inputs = {x, sizes(ws), Floats(dys)};
        break;
      case 3:
      case 4:
        name = op == 3 ? "MaxPool" : "AvgPool";
        attrs.erase("explicit_paddings");
        attrs["ksize"] = std::vector<int64_t>{1, pick(0, 4), pick(0, 4), 1};
        inputs = {x};
        break;
      case 5:
      case 6: {
        name = op == 5 ? "MaxPoolGrad" : "AvgPoolGrad";
        attrs.erase("explicit_paddings");
        attrs["ksize"] = std::vector<int64_t>{1, pick(1, 3), pick(1, 3), 1};
        std::vector<Tensor> pooled;
        AttrMap pool = attrs;
        if (RunOp(op == 5 ? "MaxPool" : "AvgPool", {x}, pool, &pooled).ok()) {
          Tensor grad = pick(0, 4) == 0 ? Floats(dys) : Floats(pooled[0].shape());
          inputs = op == 5 ? std::vector<Tensor>{x, pooled[0], grad}
                           : std::vector<Tensor>{sizes(xs), grad};
        } else {
          inputs = op == 5 ? std::vector<Tensor>{x, x, x} : std::vector<Tensor>{sizes(xs), x};
        }
        break;
      }
      case 7:
        name = "BiasAdd";
        inputs = {x, Floats({pick(0, 6)})};
        attrs.clear();
        break;
      default:
        name = "MatMul";
        inputs = {Floats(list(2, 0, 6)), Floats(list(static_cast<int>(pick(1, 3)), 0, 6))};
        attrs.clear();
        attrs["transpose_a"] = pick(0, 1) == 1;
        break;
    }
    std::vector<Tensor> out;
    const Status s = RunOp(name, inputs, attrs, &out);
    ASSERT_TRUE(s.ok() || errors::IsInvalidArgument(s) || errors::IsUnimplemented(s))
        << name << ": " << s.ToString();
    if (s.ok()) {
      ++ok;
      ASSERT_EQ(out.size(), 1u);
      for (int64_t i = 0; i < out[0].num_elements(); ++i) {
        ASSERT_TRUE(std::isfinite(out[0].data<float>()[i])) << name;
      }
    }
  }
  EXPECT_GT(ok, 300);  // the fuzzer reaches the kernels, not only the checks
}

// Convolutions wide enough for the in-place (direct) tiles, whose border tiles and strided
// reads are where an off-by-one would read outside the input: ASan watches this in CI.
TEST(NnOpsFuzzTest, DirectConvolutionTiles) {
  std::mt19937_64 rng(99);
  auto pick = [&](int lo, int hi) {
    return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  for (int iter = 0; iter < 200; ++iter) {
    const int64_t c = pick(16, 20), oc = pick(16, 40), w = 12 * pick(1, 3) + pick(-1, 2);
    std::vector<int64_t> xs = {pick(1, 2), pick(1, 6), w, c}, ws = {pick(1, 3), pick(1, 4), c, oc};
    AttrMap attrs;
    attrs["strides"] = std::vector<int64_t>{1, pick(1, 2), pick(1, 2), 1};
    attrs["dilations"] = std::vector<int64_t>{1, pick(1, 2), pick(1, 2), 1};
    attrs["padding"] = std::string(pick(0, 1) ? "SAME" : "EXPLICIT");
    if (std::get<std::string>(attrs["padding"]) == "EXPLICIT") {
      attrs["explicit_paddings"] =
          std::vector<int64_t>{0, 0, pick(0, 4), pick(0, 4), pick(0, 4), pick(0, 4), 0, 0};
    }
    std::vector<Tensor> out;
    Status s = RunOp("Conv2D", {Floats(xs, 0.25f), Floats(ws, 0.5f)}, attrs, &out);
    ASSERT_TRUE(s.ok() || errors::IsInvalidArgument(s)) << s.ToString();
    if (!s.ok()) continue;
    Tensor sizes(DataType::kInt32, {4});
    for (int i = 0; i < 4; ++i)
      sizes.data<int32_t>()[i] = static_cast<int32_t>(xs[static_cast<size_t>(i)]);
    std::vector<Tensor> dx;
    s = RunOp("Conv2DBackpropInput", {sizes, Floats(ws, 0.5f), Floats(out[0].shape(), 1.0f)}, attrs,
              &dx);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(dx[0].shape(), xs);
    Tensor filter_sizes(DataType::kInt32, {4});
    for (int i = 0; i < 4; ++i) {
      filter_sizes.data<int32_t>()[i] = static_cast<int32_t>(ws[static_cast<size_t>(i)]);
    }
    std::vector<Tensor> dw;
    s = RunOp("Conv2DBackpropFilter",
              {Floats(xs, 0.25f), filter_sizes, Floats(out[0].shape(), 1.0f)}, attrs, &dw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(dw[0].shape(), ws);
  }
}

// A tensor of `type` (float, double or int32) and `shape` holding small integers from rng, so
// every type computes the same sums exactly.
template <typename Rng>
Tensor SmallInts(DataType type, std::vector<int64_t> shape, Rng& rng) {
  Tensor t(type, std::move(shape));
  std::uniform_int_distribution<int> value(-3, 3);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const int v = value(rng);
    if (type == DataType::kFloat) t.data<float>()[i] = static_cast<float>(v);
    if (type == DataType::kDouble) t.data<double>()[i] = v;
    if (type == DataType::kInt32) t.data<int32_t>()[i] = v;
  }
  return t;
}

// The same tensor of small integers in another type.
Tensor Cast(const Tensor& t, DataType type) {
  Tensor out(type, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = t.dtype() == DataType::kFloat    ? t.data<float>()[i]
                     : t.dtype() == DataType::kDouble ? t.data<double>()[i]
                                                      : t.data<int32_t>()[i];
    if (type == DataType::kFloat) out.data<float>()[i] = static_cast<float>(v);
    if (type == DataType::kDouble) out.data<double>()[i] = v;
    if (type == DataType::kInt32) out.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return out;
}

void ExpectSameValues(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const Tensor da = Cast(a, DataType::kDouble), db = Cast(b, DataType::kDouble);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    ASSERT_EQ(da.data<double>()[i], db.data<double>()[i]) << what << " at " << i;
  }
}

// The direct paths' tiles (rows that fill them, runs long enough for them), dilated and
// strided, with padding on every side: float sums of small integers equal
// double's exactly, forward and both gradients. Dilated windows reread a source row `dilation`
// output rows later; the padded-span cache once overwrote a span a tile still read.
TEST(NnOpsFuzzTest, DirectConvolutionValues) {
  std::mt19937_64 rng(17);
  auto pick = [&](int lo, int hi) {
    return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  // First the shapes that found it (Zen 4's config takes the direct path for them): a source
  // row read again two output rows later, after two other rows' spans.
  const std::vector<std::vector<int64_t>> found = {{1, 6, 6, 9, 2, 3, 9, 5, 2, 1},
                                                   {2, 5, 6, 32, 3, 2, 16, 2, 2, 2}};
  for (int iter = 0; iter < 200 + static_cast<int>(found.size()); ++iter) {
    std::vector<int64_t> xs, ws;
    AttrMap attrs;
    attrs["strides"] = std::vector<int64_t>{1, 1, 1, 1};
    attrs["padding"] = std::string("SAME");
    if (iter < static_cast<int>(found.size())) {
      const std::vector<int64_t>& f = found[static_cast<size_t>(iter)];
      xs.assign(f.begin(), f.begin() + 4);
      ws.assign(f.begin() + 4, f.begin() + 8);
      attrs["dilations"] = std::vector<int64_t>{1, f[8], f[9], 1};
    } else {
      // Rows of one tile or of several; merged window rows of k_w * c values fill tiles from
      // 6 channels on.
      const int64_t c = pick(6, 20), oc = pick(8, 24);
      const int64_t w = pick(0, 1) ? pick(4, 8) : 12 * pick(1, 3) + pick(-1, 2);
      xs = {pick(1, 2), pick(2, 9), w, c};
      ws = {pick(1, 3), pick(1, 4), c, oc};
      attrs["strides"] = std::vector<int64_t>{1, pick(1, 2), pick(1, 2), 1};
      attrs["dilations"] = std::vector<int64_t>{1, pick(1, 3), pick(1, 2), 1};
      attrs["padding"] = std::string(pick(0, 1) ? "SAME" : "EXPLICIT");
      if (std::get<std::string>(attrs["padding"]) == "EXPLICIT") {
        attrs["explicit_paddings"] =
            std::vector<int64_t>{0, 0, pick(0, 4), pick(0, 4), pick(0, 4), pick(0, 4), 0, 0};
      }
    }
    const Tensor x = SmallInts(DataType::kFloat, xs, rng), f = SmallInts(DataType::kFloat, ws, rng);
    std::vector<Tensor> y[2];
    const DataType types[2] = {DataType::kFloat, DataType::kDouble};
    Status s[2];
    for (int t = 0; t < 2; ++t) {
      s[t] = RunOp("Conv2D", {Cast(x, types[t]), Cast(f, types[t])}, attrs, &y[t]);
    }
    ASSERT_EQ(s[0].ToString(), s[1].ToString());
    if (!s[0].ok()) continue;
    ExpectSameValues(y[0][0], y[1][0], "Conv2D float vs double");
    Tensor sizes(DataType::kInt32, {4}), filter_sizes(DataType::kInt32, {4});
    for (size_t i = 0; i < 4; ++i) {
      sizes.data<int32_t>()[i] = static_cast<int32_t>(xs[i]);
      filter_sizes.data<int32_t>()[i] = static_cast<int32_t>(ws[i]);
    }
    const Tensor dy = SmallInts(DataType::kFloat, y[0][0].shape(), rng);
    std::vector<Tensor> dx[2], dw[2];
    for (int t = 0; t < 2; ++t) {
      ASSERT_TRUE(RunOp("Conv2DBackpropInput", {sizes, Cast(f, types[t]), Cast(dy, types[t])},
                        attrs, &dx[t])
                      .ok());
      ASSERT_TRUE(RunOp("Conv2DBackpropFilter",
                        {Cast(x, types[t]), filter_sizes, Cast(dy, types[t])}, attrs, &dw[t])
                      .ok());
    }
    ExpectSameValues(dx[0][0], dx[1][0], "Conv2DBackpropInput float vs double");
    ExpectSameValues(dw[0][0], dw[1][0], "Conv2DBackpropFilter float vs double");
  }
}

// Grouped and depthwise convolutions and the int32 kernels: float (GEMM and direct paths),
// double and int32 (plain loops) give the same exact sums of small integers, group by group;
// ASan and UBSan watch the group copies and the channel loops in CI.
TEST(NnOpsFuzzTest, GroupedAndInt32Convolutions) {
  std::mt19937_64 rng(7);
  auto pick = [&](int lo, int hi) {
    return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  int computed = 0;
  for (int iter = 0; iter < 150; ++iter) {
    // A third of the draws are depthwise (one input channel a group: the channel loops).
    const int64_t groups = pick(1, 4), c = pick(0, 2) == 0 ? 1 : pick(1, 20);
    const int64_t oc = groups * pick(1, 5);
    const std::vector<int64_t> xs = {pick(1, 2), pick(1, 7), pick(1, 9), c * groups};
    const std::vector<int64_t> ws = {pick(1, 3), pick(1, 3), c, oc};
    AttrMap attrs;
    attrs["strides"] = std::vector<int64_t>{1, pick(1, 2), pick(1, 2), 1};
    attrs["dilations"] = std::vector<int64_t>{1, pick(1, 2), pick(1, 2), 1};
    attrs["padding"] = std::string(pick(0, 1) ? "SAME" : "VALID");
    const Tensor x = SmallInts(DataType::kInt32, xs, rng), w = SmallInts(DataType::kInt32, ws, rng);
    std::vector<Tensor> y[3];
    const DataType types[3] = {DataType::kFloat, DataType::kDouble, DataType::kInt32};
    Status s[3];
    for (int t = 0; t < 3; ++t)
      s[t] = RunOp("Conv2D", {Cast(x, types[t]), Cast(w, types[t])}, attrs, &y[t]);
    if (!s[0].ok()) {  // a window larger than a VALID input: every type says so
      ASSERT_TRUE(errors::IsInvalidArgument(s[0])) << s[0].ToString();
      ASSERT_EQ(s[1].ToString(), s[0].ToString());
      ASSERT_EQ(s[2].ToString(), s[0].ToString());
      continue;
    }
    ASSERT_TRUE(s[1].ok() && s[2].ok()) << s[1].ToString() << s[2].ToString();
    ExpectSameValues(y[0][0], y[1][0], "Conv2D float vs double");
    ExpectSameValues(y[0][0], y[2][0], "Conv2D float vs int32");
    Tensor sizes(DataType::kInt32, {4}), filter_sizes(DataType::kInt32, {4});
    for (size_t i = 0; i < 4; ++i) {
      sizes.data<int32_t>()[i] = static_cast<int32_t>(xs[i]);
      filter_sizes.data<int32_t>()[i] = static_cast<int32_t>(ws[i]);
    }
    const Tensor dy = SmallInts(DataType::kInt32, y[0][0].shape(), rng);
    std::vector<Tensor> dx[3], dw[2];
    for (int t = 0; t < 3; ++t) {
      ASSERT_TRUE(RunOp("Conv2DBackpropInput", {sizes, Cast(w, types[t]), Cast(dy, types[t])},
                        attrs, &dx[t])
                      .ok());
    }
    ExpectSameValues(dx[0][0], dx[1][0], "Conv2DBackpropInput float vs double");
    ExpectSameValues(dx[0][0], dx[2][0], "Conv2DBackpropInput float vs int32");
    for (int t = 0; t < 2; ++t) {
      ASSERT_TRUE(RunOp("Conv2DBackpropFilter",
                        {Cast(x, types[t]), filter_sizes, Cast(dy, types[t])}, attrs, &dw[t])
                      .ok());
    }
    ExpectSameValues(dw[0][0], dw[1][0], "Conv2DBackpropFilter float vs double");
    ++computed;
  }
  EXPECT_GT(computed, 75);  // most draws reach the kernels
  // int32 sums wrap modulo 2^32, as TensorFlow's: 2^30 * 2 + 2^30 * 2 = 2^32 = 0.
  Tensor x(DataType::kInt32, {1, 1, 1, 2}), w(DataType::kInt32, {1, 1, 2, 1});
  x.data<int32_t>()[0] = x.data<int32_t>()[1] = 1 << 30;
  w.data<int32_t>()[0] = w.data<int32_t>()[1] = 2;
  AttrMap attrs;
  attrs["strides"] = std::vector<int64_t>{1, 1, 1, 1};
  attrs["padding"] = std::string("VALID");
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("Conv2D", {x, w}, attrs, &out).ok());
  EXPECT_EQ(out[0].data<int32_t>()[0], 0);
  // Groups must divide the input's depth and the filter's output depth (TF's messages).
  const Status s = RunOp("Conv2D", {Floats({1, 2, 2, 4}), Floats({1, 1, 2, 3})}, attrs, &out);
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_NE(s.ToString().find("output depth must be evenly divisible by number of groups: 3 vs 2"),
            std::string::npos)
      << s.ToString();
}

// The filter gradient of few input channels whose filter rows fill a tile (the RGB stem's 7 x 3
// = 21 values, read as spans from zero-padded image rows): float gives double's exact sums of
// small integers for filter widths, strides, paddings wider than the image and output depths
// across several column slivers; ASan and UBSan watch the padded rows' reads in CI.
TEST(NnOpsFuzzTest, FewChannelFilterGradientSpans) {
  std::mt19937_64 rng(21);
  auto pick = [&](int lo, int hi) {
    return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  int computed = 0;
  for (int iter = 0; iter < 60; ++iter) {
    // Mostly k_w * C >= 14 (spans on every ISA's tile), some below (the packed GEMM path).
    const int64_t c = pick(2, 15), kw = pick(2, 7);
    const std::vector<int64_t> xs = {pick(1, 2), pick(1, 12), pick(1, 20), c};
    const std::vector<int64_t> ws = {pick(1, 5), kw, c, pick(1, 70)};
    AttrMap attrs;
    attrs["strides"] = std::vector<int64_t>{1, pick(1, 3), pick(1, 3), 1};
    attrs["dilations"] = std::vector<int64_t>{1, pick(1, 2), 1, 1};
    attrs["padding"] = std::string(pick(0, 2) == 0 ? "VALID" : "EXPLICIT");
    if (std::get<std::string>(attrs["padding"]) == "EXPLICIT") {
      attrs["explicit_paddings"] =
          std::vector<int64_t>{0, 0, pick(0, 6), pick(0, 6), pick(0, 8), pick(0, 8), 0, 0};
    }
    const Tensor x = SmallInts(DataType::kDouble, xs, rng);
    std::vector<Tensor> y;
    const Status s = RunOp("Conv2D", {x, SmallInts(DataType::kDouble, ws, rng)}, attrs, &y);
    if (!s.ok()) continue;  // a window larger than the padded input
    Tensor filter_sizes(DataType::kInt32, {4});
    for (size_t i = 0; i < 4; ++i) filter_sizes.data<int32_t>()[i] = static_cast<int32_t>(ws[i]);
    const Tensor dy = SmallInts(DataType::kDouble, y[0].shape(), rng);
    std::vector<Tensor> dw[2];
    const DataType types[2] = {DataType::kFloat, DataType::kDouble};
    for (int t = 0; t < 2; ++t) {
      ASSERT_TRUE(RunOp("Conv2DBackpropFilter",
                        {Cast(x, types[t]), filter_sizes, Cast(dy, types[t])}, attrs, &dw[t])
                      .ok());
    }
    ExpectSameValues(dw[0][0], dw[1][0], "few-channel Conv2DBackpropFilter float vs double");
    ++computed;
  }
  EXPECT_GT(computed, 30);
}

}  // namespace
}  // namespace swigflow
