#include "swigflow/kernels/quantization/requantize_row.h"

#include <cstdint>

namespace swigflow {
namespace quantization {

namespace {
constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
}  // namespace

void RequantizeRowGeneric(const int32_t* __restrict acc, const float* __restrict scale,
                          const float* __restrict bias, float inverse_output, int64_t n,
                          uint8_t* __restrict out) {
  for (int64_t j = 0; j < n; ++j) {
    const float v = static_cast<float>(acc[j]) * scale[j] + bias[j];
    // Relu, then the output scale (the same for a positive scale; a NaN gives 0). Both sides
    // computed, then selected: a conditional float multiply would not vectorize.
    const float scaled = v * inverse_output;
    float q = v > 0.0f ? scaled : 0.0f;
    q = q < 255.0f ? q : 255.0f;
    // Round half to even without a libm call: adding 1.5 * 2^23 leaves no fraction bits, so
    // the float addition rounds q as nearbyint does, for 0 <= q < 2^22.
    out[j] = static_cast<uint8_t>(static_cast<int32_t>((q + kRound) - kRound));
  }
}

RequantizeRowFn RequantizeRowFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return avx512::RequantizeRow;
    case Isa::kAvx2:
      return avx2::RequantizeRow;
    case Isa::kScalar:
      break;
  }
  return RequantizeRowGeneric;
}

}  // namespace quantization
}  // namespace swigflow
