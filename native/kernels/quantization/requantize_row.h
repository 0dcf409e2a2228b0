// The last step of the fused inference ops (conv or matmul + bias + Relu + requantize), on one
// row of int32 sums:
//   out[j] = quint8(round_half_even(min(Relu(acc[j] * scale[j] + bias[j]) * inverse_output, 255)))
// with a NaN giving 0. TensorFlow's kernels round every float product and sum, so every build
// does the same float operations in the same order (no fused multiply-adds) and all of them give
// the same bytes; only the vector width differs, chosen at run time.
#ifndef SWIGFLOW_KERNELS_QUANTIZATION_REQUANTIZE_ROW_H_
#define SWIGFLOW_KERNELS_QUANTIZATION_REQUANTIZE_ROW_H_

#include <cstdint>

#include "swigflow/framework/cpu_info.h"

namespace swigflow {
namespace quantization {

using RequantizeRowFn = void (*)(const int32_t* acc, const float* scale, const float* bias,
                                 float inverse_output, int64_t n, uint8_t* out);

// The portable loop (baseline SSE2 once vectorized), and the tail of the others.
void RequantizeRowGeneric(const int32_t* acc, const float* scale, const float* bias,
                          float inverse_output, int64_t n, uint8_t* out);

namespace avx2 {
void RequantizeRow(const int32_t* acc, const float* scale, const float* bias, float inverse_output,
                   int64_t n, uint8_t* out);
}  // namespace avx2
namespace avx512 {
void RequantizeRow(const int32_t* acc, const float* scale, const float* bias, float inverse_output,
                   int64_t n, uint8_t* out);
}  // namespace avx512

// The widest build `isa` may run.
RequantizeRowFn RequantizeRowFor(Isa isa);

}  // namespace quantization
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_QUANTIZATION_REQUANTIZE_ROW_H_
