// The micro-kernels behind Sgemm, one per instruction set, each compiled with its own flags.
//
// A micro-kernel multiplies a packed sliver of A (kc steps of MR values) by a packed sliver of B
// (kc steps of NR values) and writes the MR x NR product to C (rows of stride ldc): stored, or
// added when `accumulate`. Only the top-left rows x cols of the tile are written (edges).
#ifndef SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_
#define SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_

#include <cstdint>

namespace swigflow {
namespace kernels {
namespace gemm {

using MicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             int rows, int cols, bool accumulate);

// The same product with A read in place instead of packed: row i of the sliver is
// a[i * lda + p] for p < kc. Rows past `rows` are not read. For convolutions, whose windows are
// often plain strided matrices of the input that need no packing at all.
using StridedMicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b,
                                    float* c, int64_t ldc, int rows, int cols, bool accumulate);

// Runs `iterations` rounds of independent FMAs (as many as the kernel's accumulators) and
// returns the floating-point operations done: the throughput probe behind FmaPeakGflops.
using FmaLoopFn = int64_t (*)(int64_t iterations);

// c[0, n) += alpha * b[0, n): the row update of the M=1 (GEMV) path, vectorized per ISA.
using AxpyFn = void (*)(int64_t n, float alpha, const float* b, float* c);

struct KernelInfo {
  int mr, nr;          // register tile
  int64_t mc, kc, nc;  // cache blocking: A block mc x kc, B panel kc x nc
  MicroKernel kernel;
  FmaLoopFn fma_loop;
  AxpyFn axpy;
  StridedMicroKernel strided;
  // Steps in place: row i of the sliver is a[p * lda + i] (MR consecutive values a step, steps
  // lda apart), e.g. channels of successive pixels.
  StridedMicroKernel stepped;
};

// Where a micro-kernel reads A: packed (row i at a[p * MR + i]), rows in place (row i at
// a[i * lda + p]) or steps in place (row i at a[p * lda + i]).
enum Layout { kPacked, kRows, kSteps };

// Each ISA file writes one `template <Layout> void Tile(kc, a, lda, b, c, ldc, rows, cols,
// accumulate)` and gets its three entry points from this.
#define SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS                                                 \
  void Kernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int rows, \
              int cols, bool accumulate) {                                                 \
    Tile<kPacked>(kc, a, 0, b, c, ldc, rows, cols, accumulate);                            \
  }                                                                                        \
  void StridedKernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c,    \
                     int64_t ldc, int rows, int cols, bool accumulate) {                   \
    Tile<kRows>(kc, a, lda, b, c, ldc, rows, cols, accumulate);                            \
  }                                                                                        \
  void SteppedKernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c,    \
                     int64_t ldc, int rows, int cols, bool accumulate) {                   \
    Tile<kSteps>(kc, a, lda, b, c, ldc, rows, cols, accumulate);                           \
  }

// Written once, compiled in each kernel library with that library's ISA flags (and -O3, so the
// loop is vectorized).
inline void AxpyLoop(int64_t n, float alpha, const float* __restrict b, float* __restrict c) {
  for (int64_t j = 0; j < n; ++j) c[j] += alpha * b[j];
}

KernelInfo ScalarKernel();  // portable C++
KernelInfo Avx2Kernel();    // AVX2 + FMA, 6 x 16
KernelInfo Avx512Kernel();  // AVX-512F, 12 x 32

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_
