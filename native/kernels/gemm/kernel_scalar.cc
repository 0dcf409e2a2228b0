// Portable micro-kernel: 4 x 8 accumulators the compiler keeps in registers.
#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 4, kNr = 8;

// One body for packed A (row i at a[i], kMr values a step) and A in place (row i at
// row[i][p]; rows past `rows` repeat the last valid one, whose results are not stored).
template <bool kStrided>
void Tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int rows,
          int cols, bool accumulate) {
  float acc[kMr][kNr] = {};
  const float* row[kMr];
  for (int i = 0; i < kMr; ++i) row[i] = a + (i < rows ? i : rows - 1) * lda;
  for (int64_t p = 0; p < kc; ++p, b += kNr) {
    for (int i = 0; i < kMr; ++i) {
      const float ai = kStrided ? row[i][p] : a[p * kMr + i];
      for (int j = 0; j < kNr; ++j) acc[i][j] += ai * b[j];
    }
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + acc[i][j];
  }
}

void Kernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int rows, int cols,
            bool accumulate) {
  Tile<false>(kc, a, 0, b, c, ldc, rows, cols, accumulate);
}

void StridedKernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                   int rows, int cols, bool accumulate) {
  Tile<true>(kc, a, lda, b, c, ldc, rows, cols, accumulate);
}

int64_t FmaLoop(int64_t iterations) {
  float acc[kMr * kNr];
  for (int i = 0; i < kMr * kNr; ++i) acc[i] = static_cast<float>(i);
  for (int64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < kMr * kNr; ++i) acc[i] = acc[i] * 0.9999999f + 1e-7f;
  }
  volatile float sink = 0;
  for (int i = 0; i < kMr * kNr; ++i) sink = sink + acc[i];
  return iterations * kMr * kNr * 2;
}

void Axpy(int64_t n, float alpha, const float* b, float* c) { AxpyLoop(n, alpha, b, c); }

}  // namespace

KernelInfo ScalarKernel() {
  return {kMr, kNr, 64, 256, 1024, Kernel, FmaLoop, Axpy, StridedKernel};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
