// Portable micro-kernel: 4 x 8 accumulators the compiler keeps in registers.
#include <cstdint>

#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 4, kNr = 8;

// One body for the three layouts of A and for batches of items (see micro_kernel.h). Rows past
// `rows` repeat the last valid one, whose results are not stored, so A is never read past its
// end.
template <Layout kLayout>
void Tile(const BatchItem* items, int count, float* c, int64_t ldc, int rows, int cols,
          bool accumulate) {
  float acc[kMr][kNr] = {};
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
      for (int i = 0; i < kMr; ++i) {
        const float ai = kLayout == kRows    ? row[i][p]
                         : kLayout == kSteps ? row[i][p * lda]
                                             : a[p * kMr + i];
        for (int j = 0; j < kNr; ++j) acc[i][j] += ai * b[j];
      }
    }
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + acc[i][j];
  }
}

struct FmaOps {
  using Vector = float;
  static constexpr int kLanes = 1;
  static float Set1(float x) { return x; }
  static float Fma(float x, float y, float z) { return x * y + z; }
};

SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS

}  // namespace

KernelInfo ScalarKernel() { return Describe(); }

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
