// RequantizeRow with AVX2, 8 sums at a time (compiled with -mavx2 and no -mfma: see BUILD).
#include <immintrin.h>

#include <cstdint>

#include "swigflow/kernels/quantization/requantize_row.h"

namespace swigflow {
namespace quantization {
namespace avx2 {

void RequantizeRow(const int32_t* acc, const float* scale, const float* bias, float inverse_output,
                   int64_t n, uint8_t* out) {
  const __m256 inverse = _mm256_set1_ps(inverse_output);
  const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.0f);
  // Bytes 0-3 of each 128-bit lane hold the lane's four results after the packs.
  const __m256i gather = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 sums =
        _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j)));
    const __m256 v =
        _mm256_add_ps(_mm256_mul_ps(sums, _mm256_loadu_ps(scale + j)), _mm256_loadu_ps(bias + j));
    // v > 0 is false for a NaN; min returns its second operand, 255, for a NaN q.
    __m256 q = _mm256_and_ps(_mm256_cmp_ps(v, zero, _CMP_GT_OQ), _mm256_mul_ps(v, inverse));
    q = _mm256_min_ps(q, top);
    const __m256i r =
        _mm256_cvttps_epi32(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    const __m256i words = _mm256_packus_epi32(r, r);
    const __m256i bytes = _mm256_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + j),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, gather)));
  }
  RequantizeRowGeneric(acc + j, scale + j, bias + j, inverse_output, n - j, out + j);
}

}  // namespace avx2
}  // namespace quantization
}  // namespace swigflow
