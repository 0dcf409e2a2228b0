// QuantizedMatMul and QuantizedConv2D with TensorFlow's definitions and results, on the 8-bit
// GEMM. TensorFlow computes sum((a - za) * (b - zb)) in int32 with gemmlowp; gemm_operands.h
// says how the same integers come from u8 x s8 products. TensorFlow registers quint8 x quint8
// only; qint8 on either side is swigflow's extension.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/gemm/matmul_shape.h"
#include "swigflow/kernels/nn/window_geometry.h"
#include "swigflow/kernels/quantization/conv_geometry.h"
#include "swigflow/kernels/quantization/gemm_operands.h"
#include "swigflow/kernels/quantization/op_inputs.h"
#include "swigflow/kernels/quantization/quantization_utils.h"

namespace swigflow {
namespace {

using quantization::Im2ColRows;
using quantization::Int8ConvGeometry;
using quantization::LeftBytes;
using quantization::Operand8;
using quantization::OperandOf;
using quantization::QuantizationRangeForMultiplication;
using quantization::RequireType;
using quantization::RightOf;
using quantization::ScalarRange;

// ---- QuantizedMatMul --------------------------------------------------------------------------

REGISTER_OP("QuantizedMatMul")
    .Input("a: T1")
    .Input("b: T2")
    .Input("min_a: float")
    .Input("max_a: float")
    .Input("min_b: float")
    .Input("max_b: float")
    .Output("out: Toutput")
    .Output("min_out: float")
    .Output("max_out: float")
    .Attr("T1: quantizedtype")
    .Attr("T2: quantizedtype")
    .Attr("Toutput: quantizedtype = qint32")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("Tactivation: quantizedtype = quint8")
    .Doc(
        "op(a) x op(b) of 8-bit matrices as qint32 with its float range, as "
        "tf.raw_ops.QuantizedMatMul. T1 and T2: quint8 (TensorFlow's kernel) or qint8.");

// The 8-bit inputs' type attrs are quint8 or qint8 and the output's qint32: the kernels there
// are (TensorFlow has quint8 x quint8 -> qint32 only).
Status CheckTypes(const OpKernelContext& ctx, std::initializer_list<const char*> inputs,
                  const char* output) {
  for (const char* name : inputs) {
    SWIGFLOW_RETURN_IF_ERROR(RequireType(ctx, name, {DataType::kQUInt8, DataType::kQInt8}));
  }
  return RequireType(ctx, output, {DataType::kQInt32});
}

// TensorFlow's output range of an 8-bit product (the same for quint8 and qint8: 255 steps).
void ProductRange(float min_a, float max_a, float min_b, float max_b, float* min_c, float* max_c) {
  QuantizationRangeForMultiplication<uint8_t, uint8_t, int32_t>(min_a, max_a, min_b, max_b, min_c,
                                                                max_c);
}

class QuantizedMatMulOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckTypes(*ctx, {"T1", "T2"}, "Toutput"));
    float min_a = 0, max_a = 0, min_b = 0, max_b = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 2, &min_a, &max_a));
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 4, &min_b, &max_b));
    OP_REQUIRES(ctx, max_a > min_a, errors::InvalidArgument("max_a must be larger than min_a."));
    OP_REQUIRES(ctx, max_b > min_b, errors::InvalidArgument("max_b must be larger than min_b."));
    const bool ta = ctx->GetBool("transpose_a"), tb = ctx->GetBool("transpose_b");
    int64_t m = 0, k = 0, n = 0;
    OP_REQUIRES_OK(ctx, kernels::MatMulShape(a, b, ta, tb, &m, &k, &n));
    Tensor* c = ctx->allocate_output(0, {m, n}, true);
    const Operand8 left = OperandOf(a, min_a, max_a, true);
    const Operand8 right = OperandOf(b, min_b, max_b, false);
    std::vector<uint8_t> shifted;
    const uint8_t* a_data = LeftBytes(left, a.num_elements(), &shifted);
    std::vector<int32_t> row_sums(static_cast<size_t>(m), 0), col_sums;
    if (right.zero == 0) {
      // The row sums' term is -zb * sum: nothing to compute.
    } else if (ta) {
      for (int64_t p = 0; p < k; ++p) {
        const uint8_t* row = a_data + p * m;
        for (int64_t i = 0; i < m; ++i) row_sums[static_cast<size_t>(i)] += row[i];
      }
    } else {
      for (int64_t i = 0; i < m; ++i)
        row_sums[static_cast<size_t>(i)] = quantization::ByteSum(a_data + i * k, k, false);
    }
    // The column sums' term is -za * sum: with a zero left zero point, nothing to compute.
    const kernels::Int8Right rhs =
        RightOf(right, b.dim(1), tb, k, n, left.zero != 0 ? &col_sums : nullptr);
    col_sums.resize(static_cast<size_t>(n), 0);
    quantization::ZeroPointTerms(left.zero, right.zero, k, &row_sums, &col_sums);
    const bool offsets = left.zero != 0 || right.zero != 0;
    kernels::GemmU8S8(ta, m, n, k, a_data, a.dim(1), rhs, c->data<int32_t>(), n,
                      offsets ? row_sums.data() : nullptr, offsets ? col_sums.data() : nullptr,
                      kernels::Int8IsaFor(ctx->isa()), ctx->pool());
    float min_c, max_c;
    ProductRange(min_a, max_a, min_b, max_b, &min_c, &max_c);
    ctx->allocate_output(1, {})->data<float>()[0] = min_c;
    ctx->allocate_output(2, {})->data<float>()[0] = max_c;
  }
};

REGISTER_KERNEL("QuantizedMatMul", DataType::kQUInt8, QuantizedMatMulOp);
REGISTER_KERNEL("QuantizedMatMul", DataType::kQInt8, QuantizedMatMulOp);

// ---- QuantizedConv2D -------------------------------------------------------------------------

REGISTER_OP("QuantizedConv2D")
    .Input("input: Tinput")
    .Input("filter: Tfilter")
    .Input("min_input: float")
    .Input("max_input: float")
    .Input("min_filter: float")
    .Input("max_filter: float")
    .Output("output: out_type")
    .Output("min_output: float")
    .Output("max_output: float")
    .Attr("Tinput: quantizedtype")
    .Attr("Tfilter: quantizedtype")
    .Attr("out_type: quantizedtype = qint32")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Doc(
        "2-D convolution of 8-bit NHWC input and HWIO filter as qint32 with its float range, as "
        "tf.raw_ops.QuantizedConv2D (equal row and column strides, no dilation). Tinput and "
        "Tfilter: quint8 (TensorFlow's kernel) or qint8.");

// nn's window arithmetic; this op also refuses a VALID window longer than the input.
Status OutputSize(int64_t in, int64_t filter, int64_t stride, bool same, int64_t* out) {
  int64_t before = 0;
  SWIGFLOW_RETURN_IF_ERROR(kernels::WindowedOutputSize(
      in, filter, 1, stride, same ? "SAME" : "VALID", 0, 0, out, &before));
  if (!same && in < filter) {
    return errors::InvalidArgument("Computed output size would be negative: ", *out,
                                   " [input_size: ", in, ", effective_filter_size: ", filter,
                                   ", stride: ", stride, "]");
  }
  return Status::OK();
}

// TensorFlow's geometry for this op: one stride, and the first window placed at
// -((out - 1) * stride + filter - in (+ 1 for VALID)) / 2, rounded toward zero.
Status GeometryOf(const OpKernelContext& ctx, Int8ConvGeometry* g) {
  const std::vector<int64_t>& strides = ctx.GetInts("strides");
  if (strides.size() != 4) {
    return errors::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  }
  if (strides[1] != strides[2]) {
    return errors::InvalidArgument(
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  }
  if (strides[0] != 1 || strides[3] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  if (strides[1] < 1) return errors::InvalidArgument("Stride must be positive, got ", strides[1]);
  const std::vector<int64_t>& dilations = ctx.GetInts("dilations");
  if (dilations.size() != 4 || dilations[1] != 1 || dilations[2] != 1) {
    return errors::InvalidArgument(
        "Current implementation only supports dilated rate as 1 in the row and column "
        "dimensions.");
  }
  SWIGFLOW_RETURN_IF_ERROR(quantization::ConvShapes(ctx.input(0), ctx.input(1), g));
  g->stride_h = g->stride_w = strides[1];
  const bool same = ctx.GetString("padding") == "SAME";
  SWIGFLOW_RETURN_IF_ERROR(OutputSize(g->in_h, g->kh, g->stride_h, same, &g->out_h));
  SWIGFLOW_RETURN_IF_ERROR(OutputSize(g->in_w, g->kw, g->stride_w, same, &g->out_w));
  const int64_t round_valid = same ? 0 : 1;
  g->top = ((g->out_h - 1) * g->stride_h + g->kh - g->in_h + round_valid) / 2;
  g->left = ((g->out_w - 1) * g->stride_w + g->kw - g->in_w + round_valid) / 2;
  return Status::OK();
}

class QuantizedConv2DOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckTypes(*ctx, {"Tinput", "Tfilter"}, "out_type"));
    Int8ConvGeometry g;
    OP_REQUIRES_OK(ctx, GeometryOf(*ctx, &g));
    float min_input = 0, max_input = 0, min_filter = 0, max_filter = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 2, &min_input, &max_input));
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 4, &min_filter, &max_filter));
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Tensor* output = ctx->allocate_output(0, {g.batch, g.out_h, g.out_w, g.out_depth}, true);
    const Operand8 left = OperandOf(input, min_input, max_input, true);
    const Operand8 right = OperandOf(filter, min_filter, max_filter, false);
    std::vector<uint8_t> shifted;
    const uint8_t* x = LeftBytes(left, input.num_elements(), &shifted);
    // Taps outside the input contribute (pad - za)(w - zw): zero when the pad is the input's
    // zero point. TensorFlow pads with the zero point cast to uint8 when it is above 255 (so
    // those taps are not zero, kept), and computes taps outside as exact zeros when it is
    // negative (then pad 0 and add back za * (w - zw) below).
    const int32_t za = left.zero;
    const uint8_t pad = static_cast<uint8_t>(za < 0 ? 0 : za);
    const Im2ColRows rows(g, x, pad);
    const int64_t m = g.Rows(), k = g.Steps(), n = g.out_depth;
    // The row sums' term is -zb * sum: with a zero right zero point, nothing to compute.
    std::vector<int32_t> row_sums =
        right.zero == 0 ? std::vector<int32_t>(static_cast<size_t>(m), 0) : rows.RowSums();
    std::vector<int32_t> col_sums;
    const kernels::Int8Right rhs = RightOf(right, n, false, k, n, za != 0 ? &col_sums : nullptr);
    col_sums.resize(static_cast<size_t>(n), 0);
    quantization::ZeroPointTerms(za, right.zero, k, &row_sums, &col_sums);
    int32_t* c = output->data<int32_t>();
    const bool offsets = za != 0 || right.zero != 0;
    kernels::GemmU8S8(rows, m, n, k, rhs, c, n, offsets ? row_sums.data() : nullptr,
                      offsets ? col_sums.data() : nullptr, kernels::Int8IsaFor(ctx->isa()),
                      ctx->pool());
    if (za < 0) quantization::AddBackOutsideTaps(g, za, right, c);
    float min_c, max_c;
    ProductRange(min_input, max_input, min_filter, max_filter, &min_c, &max_c);
    ctx->allocate_output(1, {})->data<float>()[0] = min_c;
    ctx->allocate_output(2, {})->data<float>()[0] = max_c;
  }
};

REGISTER_KERNEL("QuantizedConv2D", DataType::kQUInt8, QuantizedConv2DOp);
REGISTER_KERNEL("QuantizedConv2D", DataType::kQInt8, QuantizedConv2DOp);

}  // namespace
}  // namespace swigflow
