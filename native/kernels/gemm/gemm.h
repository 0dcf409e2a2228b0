// Single-precision matrix multiplication in the Goto/BLIS structure: op(A) and op(B) are packed
// into cache-sized panels (transposes are handled while packing) and a register-blocked
// micro-kernel, the only ISA-specific code, computes MR x NR tiles of C.
//
// Work is split over the columns of C, so every element is summed by one thread in the same
// order: the result is bit-identical for any number of threads.
#ifndef SWIGFLOW_KERNELS_GEMM_GEMM_H_
#define SWIGFLOW_KERNELS_GEMM_GEMM_H_

#include <cstdint>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace kernels {

// C[m x n] = op(A)[m x k] * op(B)[k x n]. Matrices are row-major with row strides lda, ldb, ldc
// (in elements); op(X) is X, or X transposed when trans_x (then X is stored k x m or n x k).
// C may not overlap A or B.
void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc, Isa isa = SelectedIsa(),
           ThreadPool* pool = ThreadPool::Default());

// The FMA throughput of `isa` on `threads` threads, in GFLOP/s, measured for about `seconds`:
// the peak SGEMM is compared with.
double FmaPeakGflops(Isa isa, int threads, double seconds);

// The same for double precision: straightforward and correct, not tuned.
void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
           int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_GEMM_H_
