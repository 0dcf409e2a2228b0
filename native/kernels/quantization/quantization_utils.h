// How TensorFlow's quantized types map to floats, written once for every quantized op here.
//
// A quantized tensor is integers plus a float range [min, max] (per tensor or per channel).
// TensorFlow has two conventions, and these functions reproduce each to the bit (float vs
// double intermediates included; tests compare with values TensorFlow 2.21 recorded):
//   - the "unclamped" scalar form (FloatToQuantizedUnclamped, QuantizedToFloat), in double,
//     over 2^bits steps stretched by 2^bits / (2^bits - 1): zero points of matmul and conv,
//     RequantizationRange;
//   - the vectorized form (QuantizeParams, DequantizeParams), in float: QuantizeV2 and
//     Dequantize in MIN_FIRST mode and Requantize.
#ifndef SWIGFLOW_KERNELS_QUANTIZATION_QUANTIZATION_UTILS_H_
#define SWIGFLOW_KERNELS_QUANTIZATION_QUANTIZATION_UTILS_H_

#include <cmath>
#include <cstdint>
#include <limits>

namespace swigflow {
namespace quantization {

// The integer range of a quantized type stored as T (quint8 -> uint8_t, qint32 -> int32_t).
template <typename T>
struct Levels {
  static constexpr int64_t kLowest = std::numeric_limits<T>::lowest();
  static constexpr int64_t kHighest = std::numeric_limits<T>::max();
  static constexpr int kBits = sizeof(T) * 8;
  static constexpr int64_t kSteps = int64_t{1} << kBits;
};

// x86's float -> int32 conversion (cvttss2si) without undefined behaviour: truncation, and
// INT32_MIN for NaN and out-of-range values, as TensorFlow's casts produce on these machines.
inline int32_t TruncateToInt32(float x) {
  if (!(x >= -2147483648.0f && x < 2147483648.0f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

// The same for double -> int64 (cvttsd2si): INT64_MIN for NaN and out-of-range values.
inline int64_t TruncateToInt64(double x) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(x);
}

// The quantized value of `input` on T's steps over [range_min, range_max], not clamped. A NaN
// or huge value (infinite or NaN ranges) gives what TensorFlow's compiled casts give: x86's
// conversion, then a wrapping add.
template <typename T>
int64_t FloatToQuantizedUnclamped(float input, float range_min, float range_max) {
  if (range_min == range_max) return Levels<T>::kLowest;
  const double steps = static_cast<double>(Levels<T>::kSteps);
  const double range = static_cast<double>(range_max - range_min) * (steps / (steps - 1.0));
  const double scale = steps / range;
  const double q = std::round(input * scale) - std::round(range_min * scale);
  return static_cast<int64_t>(static_cast<uint64_t>(TruncateToInt64(q)) +
                              static_cast<uint64_t>(Levels<T>::kLowest));
}

template <typename T>
T FloatToQuantized(float input, float range_min, float range_max) {
  int64_t q = FloatToQuantizedUnclamped<T>(input, range_min, range_max);
  q = q < Levels<T>::kLowest ? Levels<T>::kLowest : q;
  q = q > Levels<T>::kHighest ? Levels<T>::kHighest : q;
  return static_cast<T>(q);
}

template <typename T>
float QuantizedToFloat(int64_t input, float range_min, float range_max) {
  if (range_min == range_max) return range_min;
  const double steps = static_cast<double>(Levels<T>::kSteps);
  const double range = static_cast<double>(range_max - range_min) * (steps / (steps - 1.0));
  const double scale = range / steps;
  const float scale_f = static_cast<float>(scale);
  // TensorFlow rounds the range's minimum to a whole number of float steps.
  const double min_rounded =
      std::round(static_cast<double>(range_min / scale_f)) * static_cast<double>(scale_f);
  // TensorFlow's quantized integer types convert to double through float (lossy for qint32).
  const double offset =
      static_cast<double>(static_cast<float>(input)) - static_cast<double>(Levels<T>::kLowest);
  return static_cast<float>(min_rounded + offset * scale);
}

// The float one step of T stands for over [range_min, range_max].
template <typename T>
float FloatForOneQuantizedLevel(float range_min, float range_max) {
  return (range_max - range_min) / static_cast<float>(Levels<T>::kHighest - Levels<T>::kLowest);
}

// The range of a product's accumulator type T3 when T1 values in [min_a, max_a] multiply T2
// values in [min_b, max_b] (QuantizedMatMul and QuantizedConv2D's output range).
template <typename T1, typename T2, typename T3>
void QuantizationRangeForMultiplication(float min_a, float max_a, float min_b, float max_b,
                                        float* min_c, float* max_c) {
  const float level =
      FloatForOneQuantizedLevel<T1>(min_a, max_a) * FloatForOneQuantizedLevel<T2>(min_b, max_b);
  *min_c = level * static_cast<float>(Levels<T3>::kLowest);
  *max_c = level * static_cast<float>(Levels<T3>::kHighest);
}

// Floats to T in float arithmetic: round(x * scale) - (round(min * scale) - lowest), clamped.
template <typename T>
struct QuantizeParams {
  QuantizeParams(float range_min, float range_max)
      : scale(range_max == range_min
                  ? 0.0f
                  : static_cast<float>((Levels<T>::kSteps - 1.0) / (range_max - range_min))),
        offset(std::round(range_min * scale) - static_cast<float>(Levels<T>::kLowest)) {}

  T operator()(float x) const {
    // int32's ends are not floats: its bounds are the nearest floats inside.
    constexpr float kLow =
        Levels<T>::kLowest < -2147483648.0 ? -2147483648.0f : float(Levels<T>::kLowest);
    constexpr float kHigh =
        Levels<T>::kHighest > 2147483520.0 ? 2147483520.0f : float(Levels<T>::kHighest);
    float v = std::round(x * scale) - offset;
    v = v < kLow ? kLow : v;
    v = v > kHigh ? kHigh : v;  // NaN stays NaN: x86's conversion makes it INT32_MIN
    return static_cast<T>(TruncateToInt32(v));
  }

  float scale, offset;
};

// T to floats in float arithmetic: base + x * scale.
template <typename T>
struct DequantizeParams {
  DequantizeParams(float range_min, float range_max)
      : scale(static_cast<float>((range_max - range_min) / (Levels<T>::kSteps - 1.0))),
        base((range_max == range_min ? range_min : std::round(range_min / scale) * scale) -
             static_cast<float>(Levels<T>::kLowest) * scale) {}

  float operator()(int64_t x) const { return base + static_cast<float>(x) * scale; }

  float scale, base;
};

// qint32 -> quint8 in fixed point, TensorFlow's fast path for Requantize: 16 fractional bits.
// Products and sums wrap modulo 2^64 (TensorFlow's int64 arithmetic overflows there when the
// input range is far wider than the output range; wrapping is what its machine code does).
struct RequantizeToUint8 {
  RequantizeToUint8(float min_input, float max_input, float min_output, float max_output);
  uint8_t operator()(int32_t x) const {
    const uint64_t product = static_cast<uint64_t>(int64_t{x}) * static_cast<uint64_t>(range_scale);
    int64_t v = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(product) >> 32) +
                                     static_cast<uint64_t>(bias));
    v >>= 16;
    return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
  }
  int64_t range_scale, bias;
};

}  // namespace quantization
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_QUANTIZATION_QUANTIZATION_UTILS_H_
