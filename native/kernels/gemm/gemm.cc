#include "swigflow/kernels/gemm/gemm.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {

const gemm::KernelInfo& KernelFor(Isa isa) {
  static const gemm::KernelInfo scalar = gemm::ScalarKernel();
  static const gemm::KernelInfo avx2 = gemm::Avx2Kernel();
  static const gemm::KernelInfo avx512 = gemm::Avx512Kernel();
  switch (isa) {
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx2:
      return avx2;
    case Isa::kScalar:
      break;
  }
  return scalar;
}

namespace {

using gemm::KernelInfo;

// A matrix operand and whether it is used transposed: op(X)(r, s).
struct Operand {
  const float* data;
  int64_t ld;
  bool trans;
  float at(int64_t r, int64_t s) const { return trans ? data[s * ld + r] : data[r * ld + s]; }
};

// Rows [i0, i0 + mc) x columns [p0, p0 + kc) of op(A), as slivers of MR rows: each sliver is kc
// steps of MR values, zero past the last row.
void PackA(const Operand& a, int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) {
  for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - ir));
    for (int64_t p = 0; p < kc; ++p) {
      float* d = dst + p * mr;
      int i = 0;
      for (; i < rows; ++i) d[i] = a.at(i0 + ir + i, p0 + p);
      for (; i < mr; ++i) d[i] = 0.0f;
    }
  }
}

// Rows [p0, p0 + kc) x columns [j0, j0 + nc) of op(B), as slivers of NR columns: each sliver is
// kc steps of NR values, zero past the last column.
void PackB(const Operand& b, int64_t p0, int64_t j0, int64_t kc, int64_t nc, int nr, float* dst) {
  for (int64_t jr = 0; jr < nc; jr += nr, dst += kc * nr) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
    for (int64_t p = 0; p < kc; ++p) {
      float* d = dst + p * nr;
      int j = 0;
      if (!b.trans) {
        const float* src = b.data + (p0 + p) * b.ld + j0 + jr;
        for (; j < cols; ++j) d[j] = src[j];
      } else {
        for (; j < cols; ++j) d[j] = b.at(p0 + p, j0 + jr + j);
      }
      for (; j < nr; ++j) d[j] = 0.0f;
    }
  }
}

// Scratch buffer `which` of the calling thread, at least n floats, contents undefined. Grown,
// never shrunk, so steady calls neither allocate nor touch fresh pages.
float* ThreadBuffer(int which, size_t n) {
  struct Buffer {
    std::unique_ptr<float[]> data;
    size_t size = 0;
  };
  thread_local Buffer buffers[2];
  Buffer& b = buffers[which];
  if (b.size < n) {
    b.data.reset(new float[n]);  // default-initialized: not zeroed
    b.size = n;
  }
  return b.data.get();
}

// C[i_begin:i_end, j_begin:j_end] for the blocked path; A's blocks come from pack_a(i0, p0, mc,
// kc, dst). With `accumulate`, C's old values are added to.
template <typename PackAFn>
void GemmBlock(const KernelInfo& kernel, const PackAFn& pack_a, const Operand& b, int64_t i_begin,
               int64_t i_end, int64_t k, float* c, int64_t ldc, int64_t j_begin, int64_t j_end,
               bool accumulate) {
  const int mr = kernel.mr, nr = kernel.nr;
  const int64_t mc_max = (kernel.mc + mr - 1) / mr * mr;
  const int64_t nc_max = (kernel.nc + nr - 1) / nr * nr;
  // Packing buffers sized for this product, not the largest block, and kept per thread: a fresh
  // zero-filled 5 MB panel per call cost more than a whole 256^3 product.
  const int64_t kc_used = std::min(kernel.kc, k);
  const int64_t mc_used = std::min(mc_max, (i_end - i_begin + mr - 1) / mr * mr);
  const int64_t nc_used = std::min(nc_max, (j_end - j_begin + nr - 1) / nr * nr);
  float* packed_a = ThreadBuffer(0, static_cast<size_t>(mc_used * kc_used));
  float* packed_b = ThreadBuffer(1, static_cast<size_t>(nc_used * kc_used));
  for (int64_t jc = j_begin; jc < j_end; jc += nc_max) {
    const int64_t nc = std::min(nc_max, j_end - jc);
    for (int64_t pc = 0; pc < k; pc += kernel.kc) {
      const int64_t kc = std::min(kernel.kc, k - pc);
      PackB(b, pc, jc, kc, nc, nr, packed_b);
      for (int64_t ic = i_begin; ic < i_end; ic += mc_max) {
        const int64_t mc = std::min(mc_max, i_end - ic);
        pack_a(ic, pc, mc, kc, packed_a);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int rows = static_cast<int>(std::min<int64_t>(mr, mc - ir));
            kernel.kernel(kc, packed_a + ir * kc, packed_b + jr * kc, c + (ic + ir) * ldc + jc + jr,
                          ldc, rows, cols, pc > 0 || accumulate);
          }
        }
      }
    }
  }
}

// C[:, j_begin:j_end] from a stored op(A).
void GemmColumns(const KernelInfo& kernel, const Operand& a, const Operand& b, int64_t m, int64_t k,
                 float* c, int64_t ldc, int64_t j_begin, int64_t j_end) {
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, float* dst) {
    PackA(a, i0, p0, mc, kc, kernel.mr, dst);
  };
  GemmBlock(kernel, pack_a, b, 0, m, k, c, ldc, j_begin, j_end, false);
}

// C[0, j_begin:j_end] = op(A)[0, :] * op(B): rows of B streamed in K order (a contiguous,
// vectorizable inner loop when B is not transposed).
void GemvRow(const KernelInfo& kernel, const Operand& a, const Operand& b, int64_t k, float* c,
             int64_t j_begin, int64_t j_end) {
  std::fill(c + j_begin, c + j_end, 0.0f);
  for (int64_t p = 0; p < k; ++p) {
    const float ap = a.at(0, p);
    if (!b.trans) {
      kernel.axpy(j_end - j_begin, ap, b.data + p * b.ld + j_begin, c + j_begin);
    } else {
      for (int64_t j = j_begin; j < j_end; ++j) c[j] += ap * b.data[j * b.ld + p];
    }
  }
}

// C[:, 0] = op(A) * op(B)[:, 0]: one dot product per row, summed in K order.
void GemvColumn(const Operand& a, const Operand& b, int64_t m, int64_t k, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float sum = 0.0f;
    for (int64_t p = 0; p < k; ++p) sum += a.at(i, p) * b.at(p, 0);
    c[i * ldc] = sum;
  }
}

}  // namespace

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc, Isa isa, ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  const Operand op_a{a, lda, trans_a}, op_b{b, ldb, trans_b};
  const KernelInfo& kernel = KernelFor(isa);
  if (m == 1) {
    // Columns split over the pool (each sum still runs in K order: deterministic).
    const int64_t parts = pool == nullptr || n * k < (int64_t{1} << 16)
                              ? 1
                              : std::min<int64_t>(pool->num_threads(), (n + 63) / 64);
    if (parts <= 1) return GemvRow(kernel, op_a, op_b, k, c, 0, n);
    pool->ParallelFor(parts, [&](int64_t part) {
      GemvRow(kernel, op_a, op_b, k, c, n * part / parts, n * (part + 1) / parts);
    });
    return;
  }
  if (n == 1) return GemvColumn(op_a, op_b, m, k, c, ldc);
  // Small products stay on one thread; otherwise columns are split in multiples of NR.
  const int64_t slivers = (n + kernel.nr - 1) / kernel.nr;
  const bool small = m * n * k < (int64_t{1} << 18);
  const int64_t parts =
      small || pool == nullptr ? 1 : std::min<int64_t>(pool->num_threads(), slivers);
  if (parts <= 1) return GemmColumns(kernel, op_a, op_b, m, k, c, ldc, 0, n);
  pool->ParallelFor(parts, [&](int64_t part) {
    const int64_t begin = slivers * part / parts * kernel.nr;
    const int64_t end = std::min(n, slivers * (part + 1) / parts * kernel.nr);
    if (begin < end) GemmColumns(kernel, op_a, op_b, m, k, c, ldc, begin, end);
  });
}

void SgemmPackedA(const PackedSource& a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate, Isa isa,
                  ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
    return;
  }
  const Operand op_b{b, ldb, trans_b};
  const KernelInfo& kernel = KernelFor(isa);
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, float* dst) {
    a.Pack(i0, p0, mc, kc, kernel.mr, dst);
  };
  // Rows split in multiples of MR; every element is still summed by one thread in K order.
  const int64_t slivers = (m + kernel.mr - 1) / kernel.mr;
  const bool small = m * n * k < (int64_t{1} << 18);
  const int64_t parts =
      small || pool == nullptr ? 1 : std::min<int64_t>(pool->num_threads(), slivers);
  if (parts <= 1) return GemmBlock(kernel, pack_a, op_b, 0, m, k, c, ldc, 0, n, accumulate);
  pool->ParallelFor(parts, [&](int64_t part) {
    const int64_t begin = slivers * part / parts * kernel.mr;
    const int64_t end = std::min(m, slivers * (part + 1) / parts * kernel.mr);
    if (begin < end) GemmBlock(kernel, pack_a, op_b, begin, end, k, c, ldc, 0, n, accumulate);
  });
}

double FmaPeakGflops(Isa isa, int threads, double seconds) {
  const KernelInfo& kernel = KernelFor(isa);
  ThreadPool pool(std::max(threads, 1));
  // Calibrate one thread's iterations for the requested time, then run them on every thread.
  int64_t iterations = 1 << 16;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    kernel.fma_loop(iterations);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > seconds / 4 || iterations > (int64_t{1} << 40)) {
      iterations = static_cast<int64_t>(iterations * seconds / std::max(elapsed, 1e-9));
      break;
    }
    iterations *= 4;
  }
  std::vector<int64_t> flops(static_cast<size_t>(pool.num_threads()));
  const auto start = std::chrono::steady_clock::now();
  pool.ParallelFor(pool.num_threads(), [&](int64_t t) { flops[t] = kernel.fma_loop(iterations); });
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double total = 0;
  for (int64_t f : flops) total += static_cast<double>(f);
  return total / elapsed / 1e9;
}

void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
           int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    double* ci = c + i * ldc;
    std::fill(ci, ci + n, 0.0);
    for (int64_t p = 0; p < k; ++p) {
      const double aip = trans_a ? a[p * lda + i] : a[i * lda + p];
      if (!trans_b) {
        const double* bp = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
      } else {
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * b[j * ldb + p];
      }
    }
  }
}

}  // namespace kernels
}  // namespace swigflow
