// QuantizeV2, Dequantize, Requantize and RequantizationRange with TensorFlow's definitions and
// results (see quantization_utils.h for the two float conventions they use).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/kernels/quantization/op_inputs.h"
#include "swigflow/kernels/quantization/quantization_utils.h"

namespace swigflow {
namespace {

using quantization::DequantizeParams;
using quantization::Levels;
using quantization::QuantizeParams;
using quantization::ScalarRange;
using quantization::TruncateToInt32;

enum class Mode { kMinCombined, kMinFirst, kScaled };

Mode ModeOf(const std::string& name) {
  return name == "MIN_FIRST" ? Mode::kMinFirst
         : name == "SCALED"  ? Mode::kScaled
                             : Mode::kMinCombined;
}

float FlushDenormal(float x) {
  return std::fabs(x) < std::numeric_limits<float>::min() ? 0.0f * x : x;
}

// The slices of an `axis` (-1: the whole tensor as one slice): element (o, s, i) of the
// pre x slices x post layout is at (o * slices + s) * post + i.
struct Slices {
  int64_t pre = 1, count = 1, post = 1;
};

Status SlicesOf(const Tensor& t, int64_t axis, Slices* s) {
  if (axis < -1 || axis >= t.dims()) {
    return errors::InvalidArgument("Axis must be less than input dimension(", t.dims(), "), got ",
                                   axis);
  }
  if (axis == -1) {
    s->post = t.num_elements();
    return Status::OK();
  }
  for (int i = 0; i < axis; ++i) s->pre *= t.dim(i);
  s->count = t.dim(static_cast<int>(axis));
  for (int i = static_cast<int>(axis) + 1; i < t.dims(); ++i) s->post *= t.dim(i);
  return Status::OK();
}

Status CheckRanges(const Tensor& min, const Tensor& max, int64_t slices, int64_t axis,
                   const char* what) {
  for (const Tensor* t : {&min, &max}) {
    if (t->num_elements() != slices || (axis == -1 && t->dims() > 1)) {
      return errors::InvalidArgument(what, " ranges must have as many elements as the input has ",
                                     "along axis ", axis, " (", slices, "), got shape ",
                                     t->ShapeString());
    }
  }
  return Status::OK();
}

// The slices of input 0 along attr `axis` and their ranges (inputs 1 and 2), checked as
// QuantizeV2 and Dequantize check them; `op` and `verb` name the op in messages.
Status RangedSlices(const OpKernelContext& ctx, Mode mode, const char* op, const char* verb,
                    Slices* s) {
  const int64_t axis = ctx.GetInt("axis");
  SWIGFLOW_RETURN_IF_ERROR(SlicesOf(ctx.input(0), axis, s));
  SWIGFLOW_RETURN_IF_ERROR(CheckRanges(ctx.input(1), ctx.input(2), s->count, axis, op));
  if (axis != -1 && mode == Mode::kMinFirst) {
    return errors::Unimplemented("MIN_FIRST mode is not implemented for ", verb,
                                 " with axis != -1.");
  }
  return Status::OK();
}

// Runs fn(slice, first, n, lead) over every run of a slice's elements (first: the run's first
// element in the tensor, n: its length; lead: true for exactly one run of each slice) on the
// pool: slices, their repeats along `pre`, and runs cut in chunks of kChunk, so that a per-tensor
// range (one slice) uses every thread too. A slice with no elements still gets its calls (n = 0).
constexpr int64_t kChunk = int64_t{1} << 16;

template <typename Fn>
void ForRuns(OpKernelContext* ctx, const Slices& s, const Fn& fn) {
  const int64_t chunks = std::max<int64_t>(1, (s.post + kChunk - 1) / kChunk);
  const int64_t tasks = s.count * s.pre * chunks;
  const auto run = [&](int64_t t) {
    const int64_t chunk = t % chunks, o = t / chunks % s.pre, slice = t / chunks / s.pre;
    const int64_t begin = chunk * kChunk;
    fn(slice, (o * s.count + slice) * s.post + begin, std::min(kChunk, s.post - begin),
       o == 0 && chunk == 0);
  };
  if (ctx->pool() == nullptr || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) run(t);
  } else {
    ctx->pool()->ParallelFor(tasks, run);
  }
}

// A kernel per quantized type: Class<T> with T the type's storage.
#define REGISTER_FOR_QUANTIZED_TYPES(op, Class)             \
  REGISTER_KERNEL(op, DataType::kQUInt8, Class<uint8_t>);   \
  REGISTER_KERNEL(op, DataType::kQInt8, Class<int8_t>);     \
  REGISTER_KERNEL(op, DataType::kQUInt16, Class<uint16_t>); \
  REGISTER_KERNEL(op, DataType::kQInt16, Class<int16_t>);   \
  REGISTER_KERNEL(op, DataType::kQInt32, Class<int32_t>)

// --- QuantizeV2 ------------------------------------------------------------------------------

REGISTER_OP("QuantizeV2")
    .Input("input: float")
    .Input("min_range: float")
    .Input("max_range: float")
    .Output("output: T")
    .Output("output_min: float")
    .Output("output_max: float")
    .Attr("T: quantizedtype")
    .Attr("mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
    .Attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .Attr("ensure_minimum_range: float = 0.01")
    .Doc(
        "Floats to a quantized type over [min_range, max_range] (per slice of `axis` when it "
        "is not -1), as tf.raw_ops.QuantizeV2. quint8/qint8/quint16/qint16/qint32 outputs are "
        "uint8/int8/uint16/int16/int32 arrays.");

template <typename T>
class QuantizeV2Op : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Mode mode = ModeOf(ctx->GetString("mode"));
    const bool half_to_even = ctx->GetString("round_mode") == "HALF_TO_EVEN";
    OP_REQUIRES(ctx, !half_to_even || mode == Mode::kScaled,
                errors::InvalidArgument("Round mode 'HALF_TO_EVEN' only supported for mode "
                                        "'SCALED', but mode is '",
                                        ctx->GetString("mode"), "'."));
    narrow_range_ = ctx->GetBool("narrow_range");
    half_to_even_ = half_to_even;
    ensure_minimum_range_ = ctx->GetFloat("ensure_minimum_range");
    const int64_t axis = ctx->GetInt("axis");
    const Tensor& input = ctx->input(0);
    Slices s;
    OP_REQUIRES_OK(ctx, RangedSlices(*ctx, mode, "QuantizeV2", "Quantize", &s));
    const float* mins = ctx->input(1).data<float>();
    const float* maxs = ctx->input(2).data<float>();
    for (int64_t i = 0; i < s.count; ++i) {
      OP_REQUIRES(ctx, !(maxs[i] < mins[i]),
                  errors::InvalidArgument("input_max_range must be larger than input_min_range."));
    }
    Tensor* out = ctx->allocate_output(0, input.shape(), true);
    const std::vector<int64_t> range_shape =
        axis == -1 ? std::vector<int64_t>{} : std::vector<int64_t>{s.count};
    float* out_min = ctx->allocate_output(1, range_shape)->data<float>();
    float* out_max = ctx->allocate_output(2, range_shape)->data<float>();
    const float* x = input.data<float>();
    T* q = out->data<T>();
    ForRuns(ctx, s, [&](int64_t slice, int64_t first, int64_t n, bool lead) {
      // Every run of a slice computes the same range; its lead run reports it.
      QuantizeRun(mode, x + first, n, mins[slice], maxs[slice], q + first,
                  lead ? &out_min[slice] : nullptr, lead ? &out_max[slice] : nullptr);
    });
  }

 private:
  // Quantizes n values of a slice with input range [input_min, input_max]; when out_min and
  // out_max are given, stores the slice's output range there.
  void QuantizeRun(Mode mode, const float* x, int64_t n, float input_min, float input_max, T* q,
                   float* out_min, float* out_max) const {
    // The range always holds 0 and is at least ensure_minimum_range wide (relative to its
    // magnitude, and at least that much absolute).
    float min_range = std::min(0.0f, input_min);
    const float epsilon = std::max(1.0f, std::max(std::fabs(input_min), std::fabs(input_max))) *
                          ensure_minimum_range_;
    float max_range = std::max(0.0f, std::max(input_max, min_range + epsilon));
    if (mode == Mode::kMinFirst) {
      const QuantizeParams<T> f2q(min_range, max_range);
      for (int64_t i = 0; i < n; ++i) q[i] = f2q(x[i]);
    } else if (mode == Mode::kMinCombined) {
      const float scale = static_cast<float>(
          (static_cast<double>(Levels<T>::kHighest) - static_cast<double>(Levels<T>::kLowest)) /
          (max_range - min_range));
      const bool is_signed = Levels<T>::kLowest < 0;
      const float half_range =
          is_signed ? static_cast<float>((static_cast<double>(Levels<T>::kHighest) -
                                          static_cast<double>(Levels<T>::kLowest) + 1) /
                                         2.0f)
                    : 0.0f;
      for (int64_t i = 0; i < n; ++i) {
        const float v = (std::max(std::min(x[i], max_range), min_range) - min_range) * scale;
        // Signed: round half away from zero after the shift; unsigned: + 0.5 and truncate.
        q[i] = static_cast<T>(is_signed ? TruncateToInt32(std::round(v - half_range))
                                        : TruncateToInt32(v + 0.5f));
      }
    } else {
      const int64_t min_output = Levels<T>::kLowest + (narrow_range_ ? 1 : 0);
      const int64_t max_output = Levels<T>::kHighest;
      const float min_out_f = static_cast<float>(min_output);
      const float max_out_f = static_cast<float>(max_output);
      const float from_min =
          min_out_f * min_range > 0 ? min_out_f / min_range : std::numeric_limits<float>::max();
      const float from_max =
          max_out_f * max_range > 0 ? max_out_f / max_range : std::numeric_limits<float>::max();
      const float scale = std::min(from_min, from_max);
      // TensorFlow's kernels run with denormals flushed to zero: a range of no width (unsigned
      // output of a range <= 0) gives 1 / FLT_MAX here, which is such a denormal.
      min_range = FlushDenormal(min_out_f / scale);
      max_range = FlushDenormal(max_out_f / scale);
      for (int64_t i = 0; i < n; ++i) {
        const float v = std::max(std::min(x[i], max_range), min_range) * scale;
        q[i] = static_cast<T>(TruncateToInt32(half_to_even_ ? std::nearbyint(v) : std::round(v)));
      }
    }
    if (out_min != nullptr) {
      *out_min = min_range;
      *out_max = max_range;
    }
  }

  bool narrow_range_ = false, half_to_even_ = false;
  float ensure_minimum_range_ = 0.01f;
};

REGISTER_FOR_QUANTIZED_TYPES("QuantizeV2", QuantizeV2Op);

// --- Dequantize ------------------------------------------------------------------------------

REGISTER_OP("Dequantize")
    .Input("input: T")
    .Input("min_range: float")
    .Input("max_range: float")
    .Output("output: dtype")
    .Attr("T: quantizedtype")
    .Attr("mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .Attr("dtype: {float} = float")
    .Doc(
        "A quantized tensor to floats over [min_range, max_range] (per slice of `axis` when it "
        "is not -1), as tf.raw_ops.Dequantize. Only float output (TensorFlow also has "
        "bfloat16).");

template <typename T>
class DequantizeOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Mode mode = ModeOf(ctx->GetString("mode"));
    const bool narrow_range = ctx->GetBool("narrow_range");
    const Tensor& input = ctx->input(0);
    Slices s;
    OP_REQUIRES_OK(ctx, RangedSlices(*ctx, mode, "Dequantize", "Dequantize", &s));
    const float* mins = ctx->input(1).data<float>();
    const float* maxs = ctx->input(2).data<float>();
    float* y = ctx->allocate_output(0, input.shape(), true)->data<float>();
    const T* q = input.data<T>();
    const float lowest = static_cast<float>(Levels<T>::kLowest);
    const float highest = static_cast<float>(Levels<T>::kHighest);
    ForRuns(ctx, s, [&](int64_t slice, int64_t base, int64_t n, bool) {
      const float min_range = mins[slice], max_range = maxs[slice];
      if (mode == Mode::kMinFirst) {
        const DequantizeParams<T> q2f(min_range, max_range);
        for (int64_t i = 0; i < n; ++i) y[base + i] = q2f(q[base + i]);
      } else if (mode == Mode::kMinCombined) {
        const float half_range = Levels<T>::kLowest < 0 ? (highest - lowest + 1) / 2.0f : 0.0f;
        const float scale = (max_range - min_range) / (highest - lowest);
        for (int64_t i = 0; i < n; ++i) {
          y[base + i] = (static_cast<float>(q[base + i]) + half_range) * scale + min_range;
        }
      } else {
        const float min_output = lowest + (narrow_range ? 1.0f : 0.0f);
        const float scale = Levels<T>::kLowest == 0
                                ? max_range / highest
                                : std::max(min_range / min_output, max_range / highest);
        for (int64_t i = 0; i < n; ++i) y[base + i] = static_cast<float>(q[base + i]) * scale;
      }
    });
  }
};

REGISTER_FOR_QUANTIZED_TYPES("Dequantize", DequantizeOp);

// --- Requantize and RequantizationRange -------------------------------------------------------

REGISTER_OP("Requantize")
    .Input("input: Tinput")
    .Input("input_min: float")
    .Input("input_max: float")
    .Input("requested_output_min: float")
    .Input("requested_output_max: float")
    .Output("output: out_type")
    .Output("output_min: float")
    .Output("output_max: float")
    .Attr("Tinput: quantizedtype")
    .Attr("out_type: quantizedtype")
    .Doc(
        "qint32 values over [input_min, input_max] to out_type (quint8 or qint8) over the "
        "requested range, as tf.raw_ops.Requantize.");

class RequantizeOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    float in_min = 0, in_max = 0, out_min = 0, out_max = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 1, &in_min, &in_max));
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 3, &out_min, &out_max));
    OP_REQUIRES(ctx, out_min <= 0.0f,
                errors::InvalidArgument("requested_output_min must be <= 0, but got ", out_min));
    OP_REQUIRES(ctx, out_max >= out_min,
                errors::InvalidArgument("requested_output_max must be >= requested_output_min, "
                                        "but got ",
                                        out_max, " and ", out_min));
    const Tensor& input = ctx->input(0);
    const int32_t* x = input.data<int32_t>();
    const int64_t n = input.num_elements();
    Tensor* output = ctx->allocate_output(0, input.shape(), true);
    const DataType out_type = output->dtype();
    void* out = output->raw();
    if (out_type == DataType::kQUInt8) {
      const quantization::RequantizeToUint8 requantize(in_min, in_max, out_min, out_max);
      auto* q = static_cast<uint8_t*>(out);
      for (int64_t i = 0; i < n; ++i) q[i] = requantize(x[i]);
    } else if (out_type == DataType::kQInt8) {
      const DequantizeParams<int32_t> q2f(in_min, in_max);
      const QuantizeParams<int8_t> f2q(out_min, out_max);
      auto* q = static_cast<int8_t*>(out);
      for (int64_t i = 0; i < n; ++i) q[i] = f2q(q2f(x[i]));
    } else {
      ctx->SetStatus(errors::Unimplemented("Requantize to ", DataTypeName(out_type),
                                           ": only quint8 and qint8 outputs are supported"));
      return;
    }
    ctx->allocate_output(1, {})->data<float>()[0] = out_min;
    ctx->allocate_output(2, {})->data<float>()[0] = out_max;
  }
};

REGISTER_KERNEL("Requantize", DataType::kQInt32, RequantizeOp);

REGISTER_OP("RequantizationRange")
    .Input("input: Tinput")
    .Input("input_min: float")
    .Input("input_max: float")
    .Output("output_min: float")
    .Output("output_max: float")
    .Attr("Tinput: quantizedtype")
    .Doc(
        "The float range qint32 values actually use (the minimum no larger than 0), as "
        "tf.raw_ops.RequantizationRange.");

class RequantizationRangeOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    float in_min = 0, in_max = 0;
    OP_REQUIRES_OK(ctx, ScalarRange(*ctx, 1, &in_min, &in_max));
    const Tensor& input = ctx->input(0);
    const int32_t* x = input.data<int32_t>();
    int32_t lo = std::numeric_limits<int32_t>::max(), hi = std::numeric_limits<int32_t>::min();
    for (int64_t i = 0; i < input.num_elements(); ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    using quantization::QuantizedToFloat;
    ctx->allocate_output(0, {})->data<float>()[0] =
        std::min(0.0f, QuantizedToFloat<int32_t>(lo, in_min, in_max));
    ctx->allocate_output(1, {})->data<float>()[0] = QuantizedToFloat<int32_t>(hi, in_min, in_max);
  }
};

REGISTER_KERNEL("RequantizationRange", DataType::kQInt32, RequantizationRangeOp);

}  // namespace
}  // namespace swigflow
