// RequantizeRow with AVX-512, 16 sums at a time (RequantizeSixteen, shared with the AVX-512 VNNI
// micro-kernel) and a masked tail (compiled with -mavx512f and no FMA contraction: see BUILD).
#include <immintrin.h>

#include <cstdint>

#include "swigflow/kernels/gemm/int8_requantize_avx512.h"
#include "swigflow/kernels/quantization/requantize_row.h"

namespace swigflow {
namespace quantization {
namespace avx512 {

void RequantizeRow(const int32_t* acc, const float* scale, const float* bias, float inverse_output,
                   int64_t n, uint8_t* out) {
  const __m512 inverse = _mm512_set1_ps(inverse_output);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    kernels::gemm::RequantizeSixteen(_mm512_loadu_si512(acc + j), scale + j, bias + j, inverse,
                                     0xffff, out + j);
  }
  if (j < n) {
    const auto mask = static_cast<__mmask16>((1u << (n - j)) - 1);
    kernels::gemm::RequantizeSixteen(_mm512_maskz_loadu_epi32(mask, acc + j), scale + j, bias + j,
                                     inverse, mask, out + j);
  }
}

}  // namespace avx512
}  // namespace quantization
}  // namespace swigflow
