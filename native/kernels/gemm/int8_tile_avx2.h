// The 6 x 16 tile shared by the AVX2 and AVX-VNNI 8-bit kernels: twelve ymm accumulators, two ymm
// of B (16 columns x one group) a group and one 32-bit broadcast of A's group (15 of the 16
// registers). `Dot` multiplies a group and adds it to an accumulator:
//   static __m256i Dot(__m256i acc, __m256i a, __m256i b);  static constexpr int kGroup;
// Included only by kernels compiled with at least -mavx2.
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_TILE_AVX2_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_TILE_AVX2_H_

#include <immintrin.h>

#include <cstdint>

#include "swigflow/kernels/gemm/int8_micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {

constexpr int kAvx2Int8Mr = 6, kAvx2Int8Nr = 16;

template <typename Dot, typename Element>
void Avx2Int8Tile(int64_t groups, const void* a_data, const void* b_data, int32_t* c, int64_t ldc,
                  int rows, int cols, bool accumulate, const int32_t* row_offset,
                  const int32_t* col_offset) {
  constexpr int kMr = kAvx2Int8Mr, kNr = kAvx2Int8Nr;
  constexpr int64_t kGroupBytes = Dot::kGroup * sizeof(Element);  // 4: one broadcast
  const auto* a = static_cast<const uint8_t*>(a_data);
  const auto* b = static_cast<const uint8_t*>(b_data);
  __m256i acc[kMr][2];
#pragma GCC unroll 8
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g, a += kMr * kGroupBytes, b += kNr * kGroupBytes) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 8 * kGroupBytes));
#pragma GCC unroll 8
    for (int i = 0; i < kMr; ++i) {
      const __m256i ai = _mm256_set1_epi32(LoadGroup(a + i * kGroupBytes));
      acc[i][0] = Dot::Dot(acc[i][0], ai, b0);
      acc[i][1] = Dot::Dot(acc[i][1], ai, b1);
    }
  }
  const bool full = cols == kNr;
  __m256i col0 = _mm256_setzero_si256(), col1 = _mm256_setzero_si256();
  if (full && col_offset != nullptr) {
    col0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_offset));
    col1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_offset + 8));
  }
  // Unrolled with constant indexes, as every loop over acc: a runtime index makes GCC keep the
  // tile in memory, and spill it in the loop above.
#pragma GCC unroll 8
  for (int i = 0; i < kMr; ++i) {
    if (i >= rows) break;
    int32_t* ci = c + i * ldc;
    if (!full) {  // an edge tile: the shared scalar epilogue
      alignas(32) int32_t sums[kNr];
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums), acc[i][0]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums + 8), acc[i][1]);
      StoreInt8Row(sums, ci, cols, accumulate, row_offset ? row_offset[i] : 0, col_offset);
      continue;
    }
    __m256i r0 = acc[i][0], r1 = acc[i][1];
    if (accumulate) {
      r0 = _mm256_add_epi32(r0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ci)));
      r1 = _mm256_add_epi32(r1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ci + 8)));
    }
    if (col_offset != nullptr) {
      const __m256i row = _mm256_set1_epi32(row_offset[i]);
      r0 = _mm256_add_epi32(r0, _mm256_add_epi32(row, col0));
      r1 = _mm256_add_epi32(r1, _mm256_add_epi32(row, col1));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ci), r0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ci + 8), r1);
  }
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_TILE_AVX2_H_
