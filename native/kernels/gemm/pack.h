// Packing of GEMM operands into slivers (BLIS's packm), written once and compiled in each
// micro-kernel library with that library's ISA flags, for its own sliver width.
//
// A sliver of width W holds kc steps of W values (value i of step p at dst[p * W + i]), zero past
// the `count` valid ones. Its values come from memory either as lines (value i at src + i * ld,
// its kc steps contiguous: rows of A, or columns of a transposed B) or as steps (step p at
// src + p * ld, its values contiguous: columns of a transposed A, or rows of B).
#ifndef SWIGFLOW_KERNELS_GEMM_PACK_H_
#define SWIGFLOW_KERNELS_GEMM_PACK_H_

#include <cstdint>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace swigflow {
namespace kernels {
namespace gemm {

// From lines: a transpose. Four steps of four lines are transposed in registers at a time; a
// sliver's last lines (count % 4) go one by one.
template <int kW>
void PackLines(const float* src, int64_t ld, int count, int64_t kc, float* dst) {
  int64_t p = 0;
#if defined(__SSE2__)
  const int quads = count & ~3;
  for (; p + 4 <= kc; p += 4) {
    float* d = dst + p * kW;
    const float* s = src + p;
    int i = 0;
    for (; i < quads; i += 4) {
      __m128 r0 = _mm_loadu_ps(s + i * ld), r1 = _mm_loadu_ps(s + (i + 1) * ld);
      __m128 r2 = _mm_loadu_ps(s + (i + 2) * ld), r3 = _mm_loadu_ps(s + (i + 3) * ld);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(d + i, r0);
      _mm_storeu_ps(d + kW + i, r1);
      _mm_storeu_ps(d + 2 * kW + i, r2);
      _mm_storeu_ps(d + 3 * kW + i, r3);
    }
    for (; i < count; ++i) {
      for (int q = 0; q < 4; ++q) d[q * kW + i] = s[i * ld + q];
    }
    for (; i < kW; ++i) {
      for (int q = 0; q < 4; ++q) d[q * kW + i] = 0.0f;
    }
  }
#endif
  for (; p < kc; ++p) {
    float* d = dst + p * kW;
    int i = 0;
    for (; i < count; ++i) d[i] = src[i * ld + p];
    for (; i < kW; ++i) d[i] = 0.0f;
  }
}

// From steps: a copy per step, of fixed width (vectorized) when the sliver is full.
template <int kW>
void PackSteps(const float* src, int64_t ld, int count, int64_t kc, float* dst) {
  if (count == kW) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* s = src + p * ld;
      float* d = dst + p * kW;
      for (int i = 0; i < kW; ++i) d[i] = s[i];
    }
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    const float* s = src + p * ld;
    float* d = dst + p * kW;
    int i = 0;
    for (; i < count; ++i) d[i] = s[i];
    for (; i < kW; ++i) d[i] = 0.0f;
  }
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_PACK_H_
