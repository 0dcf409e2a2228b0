// The fused inference ops: convolution or matrix product, + bias, + Relu, requantized to quint8
// in the GEMM's epilogue (one pass: each block of int32 sums becomes bytes while in cache).
//
// TensorFlow defines QuantizedConv2DWithBiasAndReluAndRequantize and
// QuantizedMatMulWithBiasAndReluAndRequantize through its oneDNN kernels only; the arithmetic
// below is theirs, recorded bit for bit (tests/testdata/make_tf_quantization_fused.py):
//   - 8-bit values are SCALED: quint8 q means q * max|range| / 255, qint8 q * max|range| / 127
//     (filters: qint8, per output channel or per tensor);
//   - in float32, without fused multiply-adds: s[j] = (input_scale) * (max|filter_j| / 127),
//     v = float(acc) * s[j] + bias[j] (a qint32 bias: float(bias[j]) * s[j]), Relu, then
//     v * (1 / (max|freezed_output| / 255)) rounded half to even and saturated to [0, 255];
//   - the output range is the freezed range, as given.
// MatMul's input_quant_mode MIN_FIRST reads quint8 a as min_a + q * (max_a - min_a) / 255.
// With min_a < 0, TensorFlow 2.21 adds the resulting compensation, colsum(b) * 255 * min_a /
// (max_a - min_a), in output units instead of accumulator units, so every output saturates;
// swigflow scales it by s (the affine product). With min_a = 0 (Relu activations) the two agree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/gemm/matmul_shape.h"
#include "swigflow/kernels/nn/window_geometry.h"
#include "swigflow/kernels/quantization/conv_geometry.h"
#include "swigflow/kernels/quantization/gemm_operands.h"
#include "swigflow/kernels/quantization/op_inputs.h"
#include "swigflow/kernels/quantization/requantize_row.h"

namespace swigflow {
namespace {

using quantization::Int8ConvGeometry;
using quantization::RequireType;
using quantization::ScalarRange;

// The requantizing epilogue: each finished block's rows through RequantizeRow
// (requantize_row.h), on the thread that computed the block.
class BiasReluRequantize : public kernels::Int8Epilogue {
 public:
  BiasReluRequantize(std::vector<float> scale, std::vector<float> bias, float inverse_output,
                     uint8_t* out, int64_t ldo, Isa isa)
      : scale_(std::move(scale)),
        bias_(std::move(bias)),
        inverse_output_(inverse_output),
        out_(out),
        ldo_(ldo),
        row_(quantization::RequantizeRowFor(isa)),
        tile_{scale_.data(), bias_.data(), inverse_output_, out_, ldo_} {}

  void Finish(int64_t i0, int64_t rows, int64_t j0, int64_t cols, const int32_t* c,
              int64_t ldc) const override {
    for (int64_t r = 0; r < rows; ++r) {
      row_(c + r * ldc, scale_.data() + j0, bias_.data() + j0, inverse_output_, cols,
           out_ + (i0 + r) * ldo_ + j0);
    }
  }

  const kernels::gemm::Int8Requantize* Requantize() const override { return &tile_; }

 private:
  const std::vector<float> scale_, bias_;
  const float inverse_output_;  // positive (Requantization)
  uint8_t* const out_;
  const int64_t ldo_;
  const quantization::RequantizeRowFn row_;
  const kernels::gemm::Int8Requantize tile_;  // the same, for kernels that requantize tiles
};

// Input `index` as `n` floats: a one-element tensor repeated, or exactly n values.
Status PerChannel(const OpKernelContext& ctx, int index, int64_t n, std::vector<float>* values) {
  const Tensor& t = ctx.input(index);
  const char* name = ctx.def().inputs[static_cast<size_t>(index)].name.c_str();
  if (t.num_elements() != 1 && (t.dims() != 1 || t.dim(0) != n)) {
    return errors::InvalidArgument(name, " must be a scalar or have one value per output channel (",
                                   n, "), but got shape ", t.ShapeString());
  }
  const float* data = t.data<float>();
  values->resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    (*values)[static_cast<size_t>(j)] = data[t.num_elements() == 1 ? 0 : j];
  return Status::OK();
}

Status Finite(const char* what, float value) {
  if (!std::isfinite(value)) return errors::InvalidArgument(what, " must be finite, got ", value);
  return Status::OK();
}

// What the epilogue needs from the bias and ranges: per-channel scales and float biases, and
// 1 / (output scale). input_scale: what one step of the left operand is worth.
Status Requantization(const OpKernelContext& ctx, float input_scale, int filter_ranges, int64_t n,
                      std::vector<float>* scale, std::vector<float>* bias, float* inverse_output) {
  std::vector<float> min_f, max_f;
  SWIGFLOW_RETURN_IF_ERROR(PerChannel(ctx, filter_ranges, n, &min_f));
  SWIGFLOW_RETURN_IF_ERROR(PerChannel(ctx, filter_ranges + 1, n, &max_f));
  float min_out = 0, max_out = 0;
  SWIGFLOW_RETURN_IF_ERROR(ScalarRange(ctx, filter_ranges + 2, &min_out, &max_out));
  const float output_scale = std::max(std::fabs(min_out), std::fabs(max_out)) / 255.0f;
  if (!(output_scale > 0.0f) || !std::isfinite(output_scale)) {
    return errors::InvalidArgument(
        "min_freezed_output and max_freezed_output must be finite and not both 0, got [", min_out,
        ", ", max_out, "]");
  }
  *inverse_output = 1.0f / output_scale;
  SWIGFLOW_RETURN_IF_ERROR(Finite("The input range", input_scale));
  const Tensor& b = ctx.input(filter_ranges - 3);  // every fused op: bias, min/max input, ranges
  if (b.dims() != 1 || b.dim(0) != n) {
    return errors::InvalidArgument("bias must be 1-D with one value per output channel (", n,
                                   "), but got shape ", b.ShapeString());
  }
  scale->resize(static_cast<size_t>(n));
  bias->resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const size_t u = static_cast<size_t>(j);
    const float filter_scale = std::max(std::fabs(min_f[u]), std::fabs(max_f[u])) / 127.0f;
    SWIGFLOW_RETURN_IF_ERROR(Finite("The filter range", filter_scale));
    (*scale)[u] = input_scale * filter_scale;
    (*bias)[u] = b.dtype() == DataType::kFloat
                     ? b.data<float>()[j]
                     : static_cast<float>(b.data<int32_t>()[j]) * (*scale)[u];
  }
  return Status::OK();
}

void SetOutputRange(OpKernelContext* ctx, int first_input) {
  ctx->allocate_output(1, {})->data<float>()[0] = ctx->input(first_input).data<float>()[0];
  ctx->allocate_output(2, {})->data<float>()[0] = ctx->input(first_input + 1).data<float>()[0];
}

// ---- QuantizedConv2DWithBiasAndReluAndRequantize ----------------------------------------------

REGISTER_OP("QuantizedConv2DWithBiasAndReluAndRequantize")
    .Input("input: Tinput")
    .Input("filter: Tfilter")
    .Input("bias: Tbias")
    .Input("min_input: float")
    .Input("max_input: float")
    .Input("min_filter: float")
    .Input("max_filter: float")
    .Input("min_freezed_output: float")
    .Input("max_freezed_output: float")
    .Output("output: out_type")
    .Output("min_output: float")
    .Output("max_output: float")
    .Attr("Tinput: quantizedtype")
    .Attr("Tfilter: quantizedtype")
    .Attr("Tbias: {float, qint32}")
    .Attr("out_type: quantizedtype = quint8")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("padding_list: list(int) = []")
    .Doc(
        "Relu(conv2d(input, filter) + bias) requantized to quint8 over [min_freezed_output, "
        "max_freezed_output], in one pass, as TensorFlow's oneDNN kernel: input quint8 or qint8 "
        "(NHWC), filter qint8 (HWIO) with a per-tensor or per-output-channel range, bias float "
        "or qint32. padding_list, when it has a nonzero entry, gives explicit [0, 0, top, "
        "bottom, left, right, 0, 0] padding instead of padding.");

// One spatial dimension: output size and the padding before it (nn's window arithmetic, the
// one rule for SAME/VALID/EXPLICIT), refused when empty.
Status SpatialSize(const char* dim, int64_t in, int64_t filter, int64_t stride, int64_t dilation,
                   const std::string& padding, const std::vector<int64_t>& explicit_pad,
                   int64_t* out, int64_t* before) {
  const bool explicit_given = !explicit_pad.empty();
  const Status s = kernels::WindowedOutputSize(
      in, filter, dilation, stride, explicit_given ? "EXPLICIT" : padding,
      explicit_given ? explicit_pad[0] : 0, explicit_given ? explicit_pad[1] : 0, out, before);
  if (!s.ok() && *out >= 0) return s;  // overflow
  if (*out <= 0) {
    return errors::InvalidArgument("The ", dim, " of the output would be empty: input ", in,
                                   ", effective filter size ", (filter - 1) * dilation + 1,
                                   ", stride ", stride);
  }
  return Status::OK();
}

// The geometry of a fused conv; `packed`: swigflow's form, the filter's shape an attr.
Status FusedGeometry(const OpKernelContext& ctx, bool packed, Int8ConvGeometry* g) {
  const std::vector<int64_t>& strides = ctx.GetInts("strides");
  const std::vector<int64_t>& dilations = ctx.GetInts("dilations");
  const std::vector<int64_t>& padding_list = ctx.GetInts("padding_list");
  if (strides.size() != 4 || strides[0] != 1 || strides[3] != 1 || strides[1] < 1 ||
      strides[2] < 1) {
    return errors::InvalidArgument(
        "strides must be [1, stride_height, stride_width, 1] with positive strides");
  }
  if (dilations.size() != 4 || dilations[0] != 1 || dilations[3] != 1 || dilations[1] < 1 ||
      dilations[2] < 1) {
    return errors::InvalidArgument(
        "dilations must be [1, dilation_height, dilation_width, 1] with positive rates");
  }
  const bool explicit_padding =
      std::any_of(padding_list.begin(), padding_list.end(), [](int64_t p) { return p != 0; });
  if (!padding_list.empty() &&
      (padding_list.size() != 8 || padding_list[0] != 0 || padding_list[1] != 0 ||
       padding_list[6] != 0 || padding_list[7] != 0 ||
       std::any_of(padding_list.begin(), padding_list.end(), [](int64_t p) { return p < 0; }))) {
    return errors::InvalidArgument(
        "padding_list must be [0, 0, top, bottom, left, right, 0, 0] with non-negative values");
  }
  SWIGFLOW_RETURN_IF_ERROR(
      packed ? quantization::ConvShapes(ctx.input(0), ctx.GetInts("filter_shape"), g)
             : quantization::ConvShapes(ctx.input(0), ctx.input(1), g));
  g->stride_h = strides[1];
  g->stride_w = strides[2];
  g->dilation_h = dilations[1];
  g->dilation_w = dilations[2];
  const std::string& padding = ctx.GetString("padding");
  const auto pads = [&](int at) {
    return explicit_padding ? std::vector<int64_t>{padding_list[at], padding_list[at + 1]}
                            : std::vector<int64_t>{};
  };
  SWIGFLOW_RETURN_IF_ERROR(SpatialSize("height", g->in_h, g->kh, g->stride_h, g->dilation_h,
                                       padding, pads(2), &g->out_h, &g->top));
  return SpatialSize("width", g->in_w, g->kw, g->stride_w, g->dilation_w, padding, pads(4),
                     &g->out_w, &g->left);
}

// TensorFlow's op (kPacked false), or swigflow's with the filter packed once by
// SwigflowInt8PackWeights (its inputs after `input` shifted by one: packed_filter,
// filter_column_sums; the filter's shape an attr).
template <bool kPacked>
class QuantizedConv2DWithBiasAndReluAndRequantizeOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    constexpr int kShift = kPacked ? 1 : 0;
    OP_REQUIRES_OK(ctx, RequireType(*ctx, "Tinput", {DataType::kQUInt8, DataType::kQInt8}));
    if (!kPacked) OP_REQUIRES_OK(ctx, RequireType(*ctx, "Tfilter", {DataType::kQInt8}));
    OP_REQUIRES_OK(ctx, RequireType(*ctx, "out_type", {DataType::kQUInt8}));
    Int8ConvGeometry g;
    OP_REQUIRES_OK(ctx, FusedGeometry(*ctx, kPacked, &g));
    const kernels::Int8Isa isa = kernels::Int8IsaFor(ctx->isa());
    const int64_t m = g.Rows(), k = g.Steps(), n = g.out_depth;
    if (kPacked) {
      const Tensor& packed = ctx->input(1);
      int64_t pk = 0, pn = 0;
      OP_REQUIRES_OK(
          ctx, kernels::CheckInt8Packed(static_cast<const uint8_t*>(packed.raw()),
                                        static_cast<size_t>(packed.num_elements()), isa, &pk, &pn));
      OP_REQUIRES(ctx, pk == k && pn == n,
                  errors::InvalidArgument("filter_shape [", g.kh, ", ", g.kw, ", ", g.depth, ", ",
                                          n, "] is a ", k, " x ", n, " product, the packed filter ",
                                          pk, " x ", pn));
      const Tensor& sums = ctx->input(2);
      OP_REQUIRES(ctx, sums.dims() == 1 && sums.dim(0) == n,
                  errors::InvalidArgument("filter_column_sums must have the filter's ", n,
                                          " output channels, got shape ", sums.ShapeString()));
    }
    float min_input = 0, max_input = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 3 + kShift, &min_input, &max_input));
    const Tensor& input = ctx->input(0);
    const bool is_signed = ctx->GetType("Tinput") == DataType::kQInt8;
    const float input_scale =
        std::max(std::fabs(min_input), std::fabs(max_input)) / (is_signed ? 127.0f : 255.0f);
    std::vector<float> scale, bias;
    float inverse_output = 0;
    OP_REQUIRES_OK(
        ctx, Requantization(*ctx, input_scale, 5 + kShift, n, &scale, &bias, &inverse_output));
    Tensor* output = ctx->allocate_output(0, {g.batch, g.out_h, g.out_w, n}, true);
    SetOutputRange(ctx, 7 + kShift);
    // SCALED: 0.0 is the value 0, so the pads are 0 and a quint8 input needs no zero-point
    // terms; a qint8 input shifted to uint8 has zero point 128: C -= 128 * colsum(filter).
    const quantization::Operand8 left = quantization::ScaledOperandOf(input, true);
    std::vector<uint8_t> shifted;
    const uint8_t* x = quantization::LeftBytes(left, input.num_elements(), &shifted);
    const quantization::Im2ColRows rows(g, x, static_cast<uint8_t>(left.zero));
    std::vector<int32_t> row_sums(static_cast<size_t>(m), 0), col_sums;
    kernels::Int8Right rhs{nullptr, 0, false, false,
                           static_cast<const uint8_t*>(ctx->input(1).raw())};
    if (kPacked) {
      const int32_t* sums = ctx->input(2).data<int32_t>();
      if (is_signed) col_sums.assign(sums, sums + n);
    } else {
      const quantization::Operand8 right = quantization::ScaledOperandOf(ctx->input(1), false);
      rhs = quantization::RightOf(right, n, false, k, n, is_signed ? &col_sums : nullptr);
    }
    // The filter's zero point is 0 (SCALED qint8).
    if (is_signed) quantization::ZeroPointTerms(left.zero, 0, k, &row_sums, &col_sums);
    std::unique_ptr<int32_t[]> sums(
        new int32_t[static_cast<size_t>(m * n)]);  // every block written
    const BiasReluRequantize epilogue(std::move(scale), std::move(bias), inverse_output,
                                      output->data<uint8_t>(), n, ctx->isa());
    kernels::GemmU8S8(rows, m, n, k, rhs, sums.get(), n, is_signed ? row_sums.data() : nullptr,
                      is_signed ? col_sums.data() : nullptr, isa, ctx->pool(), &epilogue);
  }
};

REGISTER_KERNEL("QuantizedConv2DWithBiasAndReluAndRequantize", DataType::kQUInt8,
                QuantizedConv2DWithBiasAndReluAndRequantizeOp<false>);
REGISTER_KERNEL("QuantizedConv2DWithBiasAndReluAndRequantize", DataType::kQInt8,
                QuantizedConv2DWithBiasAndReluAndRequantizeOp<false>);

// ---- QuantizedMatMulWithBiasAndReluAndRequantize ----------------------------------------------

REGISTER_OP("QuantizedMatMulWithBiasAndReluAndRequantize")
    .Input("a: T1")
    .Input("b: T2")
    .Input("bias: Tbias")
    .Input("min_a: float")
    .Input("max_a: float")
    .Input("min_b: float")
    .Input("max_b: float")
    .Input("min_freezed_output: float")
    .Input("max_freezed_output: float")
    .Output("out: Toutput")
    .Output("min_out: float")
    .Output("max_out: float")
    .Attr("T1: quantizedtype")
    .Attr("T2: quantizedtype")
    .Attr("Tbias: {float, qint32}")
    .Attr("Toutput: quantizedtype = quint8")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("input_quant_mode: {'MIN_FIRST', 'SCALED'} = 'MIN_FIRST'")
    .Doc(
        "Relu(a x b + bias) requantized to quint8 over [min_freezed_output, "
        "max_freezed_output], in one pass, as TensorFlow's oneDNN kernel: a quint8 (MIN_FIRST "
        "or SCALED), b qint8, bias float or qint32. With min_a < 0 in MIN_FIRST mode swigflow "
        "computes the affine product, where TensorFlow 2.21 saturates. transpose_a and "
        "transpose_b are swigflow's extension (TensorFlow's kernel rejects them).");

// TensorFlow's op (kPacked false), or swigflow's with b packed once by SwigflowInt8PackWeights
// (its inputs after `a` shifted by one: packed_b, b_column_sums).
template <bool kPacked>
class QuantizedMatMulWithBiasAndReluAndRequantizeOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    constexpr int kShift = kPacked ? 1 : 0;
    OP_REQUIRES_OK(ctx, RequireType(*ctx, "T1", {DataType::kQUInt8}));
    if (!kPacked) OP_REQUIRES_OK(ctx, RequireType(*ctx, "T2", {DataType::kQInt8}));
    OP_REQUIRES_OK(ctx, RequireType(*ctx, "Toutput", {DataType::kQUInt8}));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const bool ta = ctx->GetBool("transpose_a");
    const kernels::Int8Isa isa = kernels::Int8IsaFor(ctx->isa());
    int64_t m = 0, k = 0, n = 0;
    if (kPacked) {
      OP_REQUIRES(ctx, a.dims() == 2,
                  errors::InvalidArgument("a must be a matrix, got shape ", a.ShapeString()));
      OP_REQUIRES_OK(ctx,
                     kernels::CheckInt8Packed(static_cast<const uint8_t*>(b.raw()),
                                              static_cast<size_t>(b.num_elements()), isa, &k, &n));
      m = a.dim(ta ? 1 : 0);
      OP_REQUIRES(
          ctx, a.dim(ta ? 0 : 1) == k,
          errors::InvalidArgument("a has ", a.dim(ta ? 0 : 1), " columns",
                                  ta ? " (transposed)" : "", " and the packed b ", k, " rows"));
      const Tensor& sums = ctx->input(2);
      OP_REQUIRES(ctx, sums.dims() == 1 && sums.dim(0) == n,
                  errors::InvalidArgument("b_column_sums must have the packed b's ", n,
                                          " columns, got shape ", sums.ShapeString()));
    } else {
      OP_REQUIRES_OK(ctx, kernels::MatMulShape(a, b, ta, ctx->GetBool("transpose_b"), &m, &k, &n));
    }
    float min_a = 0, max_a = 0, min_b = 0, max_b = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 3 + kShift, &min_a, &max_a));
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 5 + kShift, &min_b, &max_b));  // per tensor, as TF
    const bool min_first = ctx->GetString("input_quant_mode") == "MIN_FIRST";
    OP_REQUIRES(ctx, !min_first || max_a > min_a,
                errors::InvalidArgument("max_a must be larger than min_a in MIN_FIRST mode, got [",
                                        min_a, ", ", max_a, "]"));
    const float input_scale = min_first ? (max_a - min_a) / 255.0f
                                        : std::max(std::fabs(min_a), std::fabs(max_a)) / 255.0f;
    std::vector<float> scale, bias;
    float inverse_output = 0;
    OP_REQUIRES_OK(
        ctx, Requantization(*ctx, input_scale, 5 + kShift, n, &scale, &bias, &inverse_output));
    Tensor* out = ctx->allocate_output(0, {m, n}, true);
    SetOutputRange(ctx, 7 + kShift);
    const bool shifted_input = min_first && min_a != 0.0f;
    std::vector<int32_t> col_sums;
    kernels::Int8Right rhs{nullptr, 0, false, false, static_cast<const uint8_t*>(b.raw())};
    if (kPacked) {
      const int32_t* sums = ctx->input(2).data<int32_t>();
      if (shifted_input) col_sums.assign(sums, sums + n);
    } else {
      rhs = quantization::RightOf(quantization::ScaledOperandOf(b, false), b.dim(1),
                                  ctx->GetBool("transpose_b"), k, n,
                                  shifted_input ? &col_sums : nullptr);
    }
    if (shifted_input) {
      // a = s_a * (q + z) with z = 255 * min_a / (max_a - min_a): + s * z * colsum(b).
      const float z = 255.0f * min_a / (max_a - min_a);
      for (int64_t j = 0; j < n; ++j) {
        const size_t u = static_cast<size_t>(j);
        bias[u] += static_cast<float>(col_sums[u]) * z * scale[u];
      }
    }
    std::unique_ptr<int32_t[]> sums(
        new int32_t[static_cast<size_t>(m * n)]);  // every block written
    const BiasReluRequantize epilogue(std::move(scale), std::move(bias), inverse_output,
                                      out->data<uint8_t>(), n, ctx->isa());
    kernels::GemmU8S8(ta, m, n, k, static_cast<const uint8_t*>(a.raw()), a.dim(1), rhs, sums.get(),
                      n, nullptr, nullptr, isa, ctx->pool(), &epilogue);
  }
};

REGISTER_KERNEL("QuantizedMatMulWithBiasAndReluAndRequantize", DataType::kQUInt8,
                QuantizedMatMulWithBiasAndReluAndRequantizeOp<false>);

// ---- swigflow's: weights packed once (BigDL's layers convert once) --------------------------

REGISTER_OP("SwigflowInt8PackWeights")
    .Input("weights: T")
    .Output("packed: uint8")
    .Output("column_sums: int32")
    .Attr("T: {qint8}")
    .Attr("transpose: bool = false")
    .Doc(
        "swigflow's: qint8 weights packed once for this machine's 8-bit kernel, and their "
        "column sums: a matmul's b ([k, n], or [n, k] with transpose) or a conv's HWIO filter "
        "(as the [kh * kw * in, out] product it is). SwigflowInt8PackedMatMulWithBiasAndReluAnd"
        "Requantize and SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize take both in "
        "place of the weights and skip packing them on every call. The packing is for this "
        "process's kernel and blocking: another ISA or SWIGFLOW_INT8_BLOCKING refuses it.");

class SwigflowInt8PackWeightsOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& w = ctx->input(0);
    OP_REQUIRES_OK(ctx, RequireType(*ctx, "T", {DataType::kQInt8}));
    OP_REQUIRES(ctx, (w.dims() == 2 || w.dims() == 4) && w.num_elements() > 0,
                errors::InvalidArgument("weights must be a non-empty matrix or HWIO filter, got "
                                        "shape ",
                                        w.ShapeString()));
    const bool filter = w.dims() == 4, trans = ctx->GetBool("transpose");
    OP_REQUIRES(ctx, !(filter && trans),
                errors::InvalidArgument("transpose applies to matrices, not filters"));
    const int64_t n = filter ? w.dim(3) : w.dim(trans ? 0 : 1);
    const int64_t k = w.num_elements() / n;
    // A filter's K steps come in runs of its depth (one per tap): K blocks keep them whole.
    const int64_t alignment = filter ? w.dim(2) : 1;
    std::vector<int32_t> col_sums;
    const kernels::Int8Right rhs = quantization::RightOf(quantization::ScaledOperandOf(w, false),
                                                         trans ? k : n, trans, k, n, &col_sums);
    const kernels::Int8Isa isa = kernels::Int8IsaFor(ctx->isa());
    const size_t bytes = kernels::Int8PackedBytes(k, n, isa, alignment);
    Tensor* packed = ctx->allocate_output(0, {static_cast<int64_t>(bytes)}, true);
    kernels::PackInt8Right(rhs, k, n, isa, alignment, packed->data<uint8_t>());
    Tensor* sums = ctx->allocate_output(1, {n}, true);
    std::copy(col_sums.begin(), col_sums.end(), sums->data<int32_t>());
  }
};

REGISTER_KERNEL("SwigflowInt8PackWeights", DataType::kQInt8, SwigflowInt8PackWeightsOp);

REGISTER_OP("SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize")
    .Input("input: Tinput")
    .Input("packed_filter: uint8")
    .Input("filter_column_sums: int32")
    .Input("bias: Tbias")
    .Input("min_input: float")
    .Input("max_input: float")
    .Input("min_filter: float")
    .Input("max_filter: float")
    .Input("min_freezed_output: float")
    .Input("max_freezed_output: float")
    .Output("output: out_type")
    .Output("min_output: float")
    .Output("max_output: float")
    .Attr("Tinput: quantizedtype")
    .Attr("Tbias: {float, qint32}")
    .Attr("out_type: quantizedtype = quint8")
    .Attr("filter_shape: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("padding_list: list(int) = []")
    .Doc(
        "swigflow's: QuantizedConv2DWithBiasAndReluAndRequantize with the filter given as "
        "SwigflowInt8PackWeights' two outputs and its HWIO shape; the same bytes.");

REGISTER_KERNEL("SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize", DataType::kQUInt8,
                QuantizedConv2DWithBiasAndReluAndRequantizeOp<true>);
REGISTER_KERNEL("SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize", DataType::kQInt8,
                QuantizedConv2DWithBiasAndReluAndRequantizeOp<true>);

REGISTER_OP("SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize")
    .Input("a: T1")
    .Input("packed_b: uint8")
    .Input("b_column_sums: int32")
    .Input("bias: Tbias")
    .Input("min_a: float")
    .Input("max_a: float")
    .Input("min_b: float")
    .Input("max_b: float")
    .Input("min_freezed_output: float")
    .Input("max_freezed_output: float")
    .Output("out: Toutput")
    .Output("min_out: float")
    .Output("max_out: float")
    .Attr("T1: quantizedtype")
    .Attr("Tbias: {float, qint32}")
    .Attr("Toutput: quantizedtype = quint8")
    .Attr("transpose_a: bool = false")
    .Attr("input_quant_mode: {'MIN_FIRST', 'SCALED'} = 'MIN_FIRST'")
    .Doc(
        "swigflow's: QuantizedMatMulWithBiasAndReluAndRequantize with b given as "
        "SwigflowInt8PackWeights' two outputs; the same bytes.");

REGISTER_KERNEL("SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize", DataType::kQUInt8,
                QuantizedMatMulWithBiasAndReluAndRequantizeOp<true>);

}  // namespace
}  // namespace swigflow
