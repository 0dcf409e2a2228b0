// Sixteen int32 sums requantized to quint8 with AVX-512F: the vector form of RequantizeRow
// (quantization/requantize_row.h defines the values). Shared by that row's AVX-512 build and the
// AVX-512 VNNI micro-kernel, which requantizes a finished tile in its registers. Included only
// by code compiled with -mavx512f and -ffp-contract=off: every build rounds the same float
// operations.
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_REQUANTIZE_AVX512_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_REQUANTIZE_AVX512_H_

#include <immintrin.h>

#include <cstdint>

namespace swigflow {
namespace kernels {
namespace gemm {

// The lanes in `mask` of quint8(round_half_even(min(Relu(sums * scale + bias) * inverse, 255)))
// stored at out (a NaN gives 0). The zero-masking forms throughout: the unmasked ones start from
// _mm512_undefined, which GCC 12 reports as maybe-uninitialized.
inline void RequantizeSixteen(__m512i sums, const float* scale, const float* bias, __m512 inverse,
                              __mmask16 mask, uint8_t* out) {
  const __m512 v = _mm512_add_ps(
      _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(mask, sums), _mm512_maskz_loadu_ps(mask, scale)),
      _mm512_maskz_loadu_ps(mask, bias));
  // v > 0 is false for a NaN; min returns its second operand, 255, for a NaN q.
  const __mmask16 positive = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
  __m512 q = _mm512_maskz_mul_ps(positive, v, inverse);
  q = _mm512_maskz_min_ps(mask, q, _mm512_set1_ps(255.0f));
  const __m512i r =
      _mm512_maskz_cvt_roundps_epi32(mask, q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  _mm512_mask_cvtusepi32_storeu_epi8(out, mask, r);
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_REQUANTIZE_AVX512_H_
