// RequantizeRow with AVX-512, 16 sums at a time and a masked tail (compiled with -mavx512f and
// no -mfma: see BUILD).
#include <immintrin.h>

#include "swigflow/kernels/quantization/requantize_row.h"

namespace swigflow {
namespace quantization {
namespace avx512 {

namespace {

// The zero-masking forms throughout: the unmasked ones start from _mm512_undefined, which GCC 12
// reports as maybe-uninitialized.
inline void Sixteen(const int32_t* acc, const float* scale, const float* bias, __m512 inverse,
                    __mmask16 mask, uint8_t* out) {
  const __m512 sums = _mm512_maskz_cvtepi32_ps(mask, _mm512_maskz_loadu_epi32(mask, acc));
  const __m512 v = _mm512_add_ps(_mm512_mul_ps(sums, _mm512_maskz_loadu_ps(mask, scale)),
                                 _mm512_maskz_loadu_ps(mask, bias));
  // v > 0 is false for a NaN; min returns its second operand, 255, for a NaN q.
  const __mmask16 positive = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
  __m512 q = _mm512_maskz_mul_ps(positive, v, inverse);
  q = _mm512_maskz_min_ps(mask, q, _mm512_set1_ps(255.0f));
  const __m512i r =
      _mm512_maskz_cvt_roundps_epi32(mask, q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  _mm512_mask_cvtusepi32_storeu_epi8(out, mask, r);
}

}  // namespace

void RequantizeRow(const int32_t* acc, const float* scale, const float* bias, float inverse_output,
                   int64_t n, uint8_t* out) {
  const __m512 inverse = _mm512_set1_ps(inverse_output);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    Sixteen(acc + j, scale + j, bias + j, inverse, 0xffff, out + j);
  }
  if (j < n) {
    const auto mask = static_cast<__mmask16>((1u << (n - j)) - 1);
    Sixteen(acc + j, scale + j, bias + j, inverse, mask, out + j);
  }
}

}  // namespace avx512
}  // namespace quantization
}  // namespace swigflow
