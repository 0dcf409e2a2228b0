// AVX-512 micro-kernel, 12 x 32: twenty-four zmm accumulators, two zmm of B per step and one
// broadcast of A (27 of the 32 registers). Edge tiles use masked loads and stores. Compiled
// with -mavx512f (see BUILD).
#include <immintrin.h>

#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 12, kNr = 32;

// One body for the three layouts of A (see micro_kernel.h). Rows past `rows` repeat the last
// valid one, whose results are not stored, so A is never read past its end.
template <Layout kLayout>
inline void Tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                 int rows, int cols, bool accumulate) {
  __m512 acc[kMr][2];
  const float* row[kMr];
  for (int i = 0; i < kMr; ++i) {
    const int last = i < rows ? i : rows - 1;
    row[i] = kLayout == kRows ? a + last * lda : a + last;
  }
  // Fully unrolled row loops keep every accumulator in a register (GCC does not unroll them
  // on its own and would keep the tile in memory).
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p, b += kNr) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const __m512 ai = _mm512_set1_ps(kLayout == kRows    ? row[i][p]
                                       : kLayout == kSteps ? row[i][p * lda]
                                                           : a[p * kMr + i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  // Columns [0, 16) and [16, 32) of the tile, masked to the valid ones.
  const __mmask16 m0 = static_cast<__mmask16>(cols >= 16 ? 0xffff : (1u << cols) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(cols >= 32  ? 0xffff
                                              : cols > 16 ? (1u << (cols - 16)) - 1
                                                          : 0);
  for (int i = 0; i < rows; ++i) {
    float* ci = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_maskz_loadu_ps(m0, ci));
      acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_maskz_loadu_ps(m1, ci + 16));
    }
    _mm512_mask_storeu_ps(ci, m0, acc[i][0]);
    _mm512_mask_storeu_ps(ci + 16, m1, acc[i][1]);
  }
}

SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS

int64_t FmaLoop(int64_t iterations) {
  constexpr int kAcc = 24;  // as many chains as the micro-kernel's accumulators
  __m512 acc[kAcc];
  const __m512 x = _mm512_set1_ps(0.9999999f), y = _mm512_set1_ps(1e-7f);
#pragma GCC unroll 32
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];  // not _mm512_reduce_add_ps: GCC 12 warns inside its header
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0] + lanes[15];
  (void)sink;
  return iterations * kAcc * 16 * 2;
}

void Axpy(int64_t n, float alpha, const float* b, float* c) { AxpyLoop(n, alpha, b, c); }

}  // namespace

KernelInfo Avx512Kernel() {
  return {kMr, kNr, 144, 384, 3072, Kernel, FmaLoop, Axpy, StridedKernel, SteppedKernel};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
