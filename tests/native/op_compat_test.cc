// Op definitions as golden text, TensorFlow's rules for changing them, and the generated
// Python wrappers' names and shapes.
#include "swigflow/framework/op_compat.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "swigflow/framework/op.h"
#include "swigflow/framework/python_op_gen.h"

namespace swigflow {
namespace {

OpDef Parse(const std::string& text) {
  std::vector<OpDef> defs;
  const Status s = ParseOpDefs(text, &defs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(defs.size(), 1u);
  return defs.empty() ? OpDef() : defs[0];
}

const char kPool[] =
    "op: Pool\n"
    "  input: input: T\n"
    "  input: sizes: int32\n"
    "  output: output: T\n"
    "  attr: T: {float, double}\n"
    "  attr: ksize: list(int)\n"
    "  attr: padding: {'SAME', 'VALID'}\n"
    "  attr: scale: float = 0.100000001\n"
    "  attr: data_format: {'NHWC', 'NCHW'} = 'NHWC'\n"
    "  attr: dilations: list(int) = [1, 1, 1, 1]\n";

TEST(OpCompatTest, TextRoundTripsEveryRegisteredOp) {
  for (const OpDef* def : OpRegistry::Global()->ListOps()) {
    const std::string text = OpDefText(*def);
    const OpDef back = Parse(text);
    EXPECT_EQ(OpDefText(back), text);
    EXPECT_TRUE(IncompatibleChanges(*def, back).empty()) << text;
  }
  EXPECT_EQ(OpDefText(Parse(kPool)), kPool);  // floats keep every digit
}

TEST(OpCompatTest, ParseErrorsNameTheLine) {
  std::vector<OpDef> defs;
  Status s = ParseOpDefs("# ops\n\nop: A\n  input: x: T\n  attr: T: {float}\nbogus\n", &defs);
  EXPECT_EQ(s.code(), error::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("line 6"), std::string::npos) << s.message();
  s = ParseOpDefs("op: A\n  attr: k: list(strings)\n", &defs);
  EXPECT_NE(s.message().find("line 1"), std::string::npos) << s.message();
  // An argument or attribute without a name or type is an error, not an untyped argument (the
  // fuzzer's find).
  for (const char* bad : {"op: A\n  input: x:\n", "op: A\n  output: : T\n  attr: T: {float}\n",
                          "op: A\n  attr: : int\n", "op: A\n  attr: k: int\n  attr: k: bool\n",
                          "op: A\n  input: x: int32\n  output: x: int32\n",
                          "op: A\n  input: k: int32\n  attr: k: int\n"}) {
    EXPECT_EQ(ParseOpDefs(bad, &defs).code(), error::INVALID_ARGUMENT) << bad;
  }
}

// `now` is kPool with `from` replaced by `to`.
std::vector<std::string> Changed(const std::string& from, const std::string& to) {
  std::string text = kPool;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return IncompatibleChanges(Parse(kPool), Parse(text));
}

std::string First(const std::vector<std::string>& problems) {
  return problems.empty() ? "" : problems[0];
}

TEST(OpCompatTest, TensorFlowsRules) {
  // Compatible: a new attr with a default, more allowed values, a default for a required attr.
  EXPECT_TRUE(Changed("  attr: T: {float, double}\n",
                      "  attr: T: {float, double}\n  attr: groups: int = 1\n")
                  .empty());
  EXPECT_TRUE(Changed("{'SAME', 'VALID'}", "{'SAME', 'VALID', 'EXPLICIT'}").empty());
  EXPECT_TRUE(Changed("{float, double}", "{float, double, int32}").empty());
  EXPECT_TRUE(Changed("ksize: list(int)", "ksize: list(int) = [1, 1, 1, 1]").empty());
  // Breaking.
  EXPECT_EQ(First(Changed("  input: sizes: int32\n", "")),
            "Pool: inputs changed from (input: T, sizes: int32) to (input: T)");
  EXPECT_EQ(First(Changed("sizes: int32", "sizes: int64")),
            "Pool: inputs changed from (input: T, sizes: int32) to (input: T, sizes: int64)");
  EXPECT_EQ(First(Changed("input: input: T", "input: value: T")),
            "Pool: inputs changed from (input: T, sizes: int32) to (value: T, sizes: int32)");
  EXPECT_EQ(First(Changed("output: output: T", "output: output: int32")),
            "Pool: outputs changed from (output: T) to (output: int32)");
  EXPECT_EQ(First(Changed("  attr: ksize: list(int)\n", "")), "Pool: attr 'ksize' was removed");
  EXPECT_EQ(First(Changed("scale: float = 0.100000001", "scale: int = 0")),
            "Pool: attr 'scale' changed type from float to int");
  EXPECT_EQ(First(Changed("{'SAME', 'VALID'}", "{'SAME'}")),
            "Pool: attr 'padding' no longer allows VALID");
  EXPECT_EQ(First(Changed("{float, double}", "{float}")), "Pool: attr 'T' no longer allows double");
  EXPECT_EQ(First(Changed("ksize: list(int)", "ksize: {'A'}")),
            "Pool: attr 'ksize' changed type from list(int) to string");
  EXPECT_EQ(First(Changed("= 'NHWC'", "= 'NCHW'")),
            "Pool: attr 'data_format' changed its default from 'NHWC' to 'NCHW'");
  EXPECT_EQ(First(Changed("dilations: list(int) = [1, 1, 1, 1]", "dilations: list(int)")),
            "Pool: attr 'dilations' lost its default [1, 1, 1, 1]");
  EXPECT_EQ(First(Changed("  attr: T: {float, double}\n",
                          "  attr: T: {float, double}\n  attr: groups: int\n")),
            "Pool: new attr 'groups' has no default, so existing callers do not set it");
  EXPECT_EQ(First(Changed("  attr: ksize: list(int)\n  attr: padding: {'SAME', 'VALID'}\n",
                          "  attr: padding: {'SAME', 'VALID'}\n  attr: ksize: list(int)\n")),
            "Pool: attrs without a default changed from (T, ksize, padding) to (T, padding, "
            "ksize): they are positional parameters of the Python wrapper");
}

TEST(PythonOpGenTest, NamesAreTensorFlows) {
  EXPECT_EQ(PythonOpName("Conv2DBackpropInput"), "conv2d_backprop_input");
  EXPECT_EQ(PythonOpName("MatMul"), "mat_mul");
  EXPECT_EQ(PythonOpName("ZeroOut"), "zero_out");
  EXPECT_EQ(PythonOpName("LRNGrad"), "lrn_grad");
  EXPECT_EQ(PythonOpName("TFRecordReaderV2"), "tf_record_reader_v2");
  EXPECT_EQ(PythonOpName("FusedBatchNormV3"), "fused_batch_norm_v3");
  EXPECT_EQ(PythonOpName("MaxPool3DGrad"), "max_pool3d_grad");
  EXPECT_EQ(PythonOpName("Relu6"), "relu6");
}

TEST(PythonOpGenTest, SignatureDocstringAndCall) {
  OpDefBuilder builder = OpDefBuilder("Split")
                             .Input("lambda: T")
                             .Input("count: int32")
                             .Output("head: T")
                             .Output("tail: T")
                             .Attr("T: {float, double}")
                             .Attr("out_type: {int32, int64} = int64")
                             .Attr("mode: {'A', 'B'}")
                             .Attr("scale: float = 1")
                             .Doc("Splits \"\"\"x\"\"\" at \\d.");
  OpDef def;
  ASSERT_TRUE(builder.Finish(&def).ok());
  PythonOpGenOptions options;
  options.source = "//test:lib";
  options.hidden = {"Split"};
  const std::string py = PythonOpWrappers({&def}, options);
  // Inputs, attrs without a default, attrs with one, name, each annotated; T is inferred from
  // the inputs, a keyword gets "_" appended; several outputs come back as a namedtuple.
  EXPECT_NE(py.find("def _split(\n    lambda_: _ArrayLike,\n    count: _ArrayLike,\n"
                    "    mode: str,\n    out_type: _Any = \"int64\",\n    scale: float = 1.0,\n"
                    "    name: str | None = None,\n) -> tuple[_np.ndarray, ...]:\n"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("from __future__ import annotations\n"), std::string::npos);
  EXPECT_NE(py.find("_SplitOutput = _collections.namedtuple(\"Split\", [\"head\", \"tail\"])"),
            std::string::npos);
  EXPECT_NE(py.find("    outputs = _run(\"Split\", [lambda_, count], mode=mode, "
                    "out_type=out_type, scale=scale)\n    return _SplitOutput._make(outputs)\n"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("Splits \\\"\\\"\\\"x\\\"\\\"\\\" at \\\\d."), std::string::npos) << py;
  EXPECT_NE(py.find("lambda_: A `Tensor`. Must be one of the following types: `float32`, "
                    "`float64`."),
            std::string::npos);
  EXPECT_NE(py.find("count: A `Tensor` of type `int32`."), std::string::npos);
  EXPECT_NE(py.find("mode: A `string` from: `\"A\", \"B\"`."), std::string::npos);
  EXPECT_NE(py.find("out_type: An optional dtype name from: `int32`, `int64`. Defaults to "
                    "`\"int64\"`."),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("A tuple of `Tensor` objects (head, tail)."), std::string::npos);
  EXPECT_NE(py.find("Python wrappers around swigflow ops from //test:lib."), std::string::npos);
}

}  // namespace
}  // namespace swigflow
