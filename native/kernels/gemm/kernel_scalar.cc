// Portable micro-kernel: 4 x 8 accumulators the compiler keeps in registers.
#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 4, kNr = 8;

// One body for the three layouts of A (see micro_kernel.h). Rows past `rows` repeat the last
// valid one, whose results are not stored, so A is never read past its end.
template <Layout kLayout>
void Tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int rows,
          int cols, bool accumulate) {
  float acc[kMr][kNr] = {};
  const float* row[kMr];
  for (int i = 0; i < kMr; ++i) {
    const int last = i < rows ? i : rows - 1;
    row[i] = kLayout == kRows ? a + last * lda : a + last;
  }
  for (int64_t p = 0; p < kc; ++p, b += kNr) {
    for (int i = 0; i < kMr; ++i) {
      const float ai = kLayout == kRows    ? row[i][p]
                       : kLayout == kSteps ? row[i][p * lda]
                                           : a[p * kMr + i];
      for (int j = 0; j < kNr; ++j) acc[i][j] += ai * b[j];
    }
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + acc[i][j];
  }
}

SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS

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
  return {kMr, kNr, 64, 256, 1024, Kernel, FmaLoop, Axpy, StridedKernel, SteppedKernel};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
