#include "swigflow/kernels/quantization/quantization_utils.h"

#include <cstdint>

namespace swigflow {
namespace quantization {
RequantizeToUint8::RequantizeToUint8(float min_input, float max_input, float min_output,
                                     float max_output) {
  // TensorFlow's constants, in its mix of float and double: the input range's midpoint maps to
  // a 16.16 fixed-point offset, the ratio of the ranges to a 32.32 multiplier.
  constexpr int kShift = 16;
  const float input_range = max_input - min_input;
  const float output_range = max_output - min_output;
  const float recip_output_range = output_range == 0.0f ? 0.0f : 255.0 / output_range;
  const float input_rezero = (min_input + max_input) / 2.0;
  range_scale = output_range == 0.0f
                    ? 0
                    : TruncateToInt64(255.0 * (1 << kShift) * input_range / output_range);
  const int64_t input_offset = TruncateToInt64(input_rezero * recip_output_range * (1 << kShift));
  const int64_t output_offset =
      output_range == 0.0f ? 0
                           : TruncateToInt64((1 << kShift) * (min_output * 255.0) / output_range);
  bias = static_cast<int64_t>(static_cast<uint64_t>(input_offset) -
                              static_cast<uint64_t>(output_offset) + (uint64_t{1} << (kShift - 1)));
}

}  // namespace quantization
}  // namespace swigflow
