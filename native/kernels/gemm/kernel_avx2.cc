// AVX2 + FMA micro-kernel, 6 x 16: twelve ymm accumulators, two ymm of B per step and one
// broadcast of A (15 of the 16 registers). Compiled with -mavx2 -mfma (see BUILD).
#include <immintrin.h>

#include <cstdint>

#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 6, kNr = 16;

// One body for the three layouts of A and for batches of items (see micro_kernel.h). Rows past
// `rows` repeat the last valid one, whose results are not stored, so A is never read past its
// end.
template <Layout kLayout>
inline void Tile(const BatchItem* items, int count, float* c, int64_t ldc, int rows, int cols,
                 bool accumulate) {
  __m256 acc[kMr][2];
  // Fully unrolled row loops keep every accumulator in a register (GCC does not unroll them
  // on its own and would keep the tile in memory).
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int t = 0; t < count; ++t) {
    const float* a = items[t].a;
    const float* b = items[t].b;
    const int64_t lda = items[t].lda, kc = items[t].kc;
    const int64_t ldb = items[t].ldb > 0 ? items[t].ldb : kNr;
    const float* row[kMr];
    for (int i = 0; i < kMr; ++i) {
      const int last = i < rows ? i : rows - 1;
      row[i] = kLayout == kRows ? a + last * lda : a + last;
    }
    for (int64_t p = 0; p < kc; ++p, b += ldb) {
      const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 16
      for (int i = 0; i < kMr; ++i) {
        const __m256 ai = _mm256_broadcast_ss(kLayout == kRows    ? row[i] + p
                                              : kLayout == kSteps ? row[i] + p * lda
                                                                  : a + p * kMr + i);
        acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
      }
    }
  }
  if (rows == kMr && cols == kNr) {
    for (int i = 0; i < kMr; ++i) {
      float* ci = c + i * ldc;
      if (accumulate) {
        acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(ci));
        acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, acc[i][0]);
      _mm256_storeu_ps(ci + 8, acc[i][1]);
    }
    return;
  }
  alignas(32) float tile[kMr][kNr];  // edge tile: write only the valid part
  for (int i = 0; i < kMr; ++i) {
    _mm256_store_ps(tile[i], acc[i][0]);
    _mm256_store_ps(tile[i] + 8, acc[i][1]);
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + tile[i][j];
  }
}

struct FmaOps {
  using Vector = __m256;
  static constexpr int kLanes = 8;
  static __m256 Set1(float x) { return _mm256_set1_ps(x); }
  static __m256 Fma(__m256 x, __m256 y, __m256 z) { return _mm256_fmadd_ps(x, y, z); }
};

SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS

}  // namespace

KernelInfo Avx2Kernel() { return Describe(); }

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
