// Single-precision matrix multiplication in the Goto/BLIS structure: op(A) and op(B) are packed
// into cache-sized panels (transposes are handled while packing) and a register-blocked
// micro-kernel, the only ISA-specific code, computes MR x NR tiles of C.
//
// Blocking comes from the machine's KernelConfig (config/kernel_config.h). The threads pack each
// panel of B together and share it, then split the product over a grid of row and column
// slivers; every element is summed by one thread in the same order, so the result is
// bit-identical for any number of threads.
#ifndef SWIGFLOW_KERNELS_GEMM_GEMM_H_
#define SWIGFLOW_KERNELS_GEMM_GEMM_H_

#include <cstdint>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/fma_probe.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/config/kernel_config.h"
#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {

// C[m x n] = op(A)[m x k] * op(B)[k x n]. Matrices are row-major with row strides lda, ldb, ldc
// (in elements); op(X) is X, or X transposed when trans_x (then X is stored k x m or n x k).
// C may not overlap A or B.
void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc, Isa isa = SelectedIsa(),
           ThreadPool* pool = ThreadPool::Default());

// A left operand produced on the fly instead of read from memory: convolutions form im2col
// rows this way without ever storing them.
class PackedSource {
 public:
  virtual ~PackedSource() = default;
  // Writes rows [i0, i0 + mc) x columns [p0, p0 + kc) of the operand as slivers of `mr` rows:
  // sliver s holds kc steps of mr values (row i0 + s*mr + r at step p is dst[s*kc*mr + p*mr + r]),
  // zero past the last row.
  virtual void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const = 0;
};

// C[m x n] = A[m x k] * op(B)[k x n] (+ C when `accumulate`) with A from `a`. Rows of C are split
// over the pool (convolutions have many rows and few columns); still deterministic.
void SgemmPackedA(const PackedSource& a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate = false,
                  Isa isa = SelectedIsa(), ThreadPool* pool = ThreadPool::Default());

// The config chosen for `isa` on this machine (read once per ISA; thread-safe).
const KernelConfig& ConfigFor(Isa isa);

// The micro-kernel of `isa` with ConfigFor(isa)'s blocking: for kernels built on the same tiles
// (convolutions reading windows in place).
const gemm::KernelInfo& KernelFor(Isa isa);

// Measures `isa`'s FMAs (its micro-kernel's loops) on `threads` threads for about `seconds`.
FmaProbe MeasureFma(Isa isa, int threads, double seconds);

// The same for double precision: straightforward and correct, not tuned.
void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
           int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_GEMM_H_
