// The micro-kernels behind Sgemm, one per instruction set, each compiled with its own flags.
//
// A micro-kernel computes an MR x NR tile of C (rows of stride ldc) as a sum of products of kc
// steps of A (MR values a step) by kc steps of B (NR values a step), and stores it, or adds it
// when `accumulate`. Only the top-left rows x cols of the tile are written (edges).
#ifndef SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_
#define SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_

#include <cstdint>

#include "swigflow/kernels/gemm/pack.h"

namespace swigflow {
namespace kernels {
namespace gemm {

// One term of a batch-reduce product: kc steps of A (packed, or read in place: rows, row i at
// a[i * lda + p], or steps, row i at a[p * lda + i]) times kc steps of NR values of B, step p at
// b + p * ldb: a packed sliver when ldb is 0 (it means NR), else B's rows read in place (whole
// slivers only: all NR values are read).
struct BatchItem {
  const float* a;
  int64_t lda;
  const float* b;
  int64_t kc;
  int64_t ldb = 0;
};

// The C tile = the sum of every item's product (+ C when `accumulate`), kept in registers from
// the first item to the last: oneDNN's batch-reduce GEMM. A convolution's taps are the items,
// each reading its window of the activations in place; the tile is loaded and stored once, not
// once per tap.
using BatchReduceKernel = void (*)(const BatchItem* items, int count, float* c, int64_t ldc,
                                   int rows, int cols, bool accumulate);

// Runs `iterations` rounds of FMAs on the ISA's widest registers and returns the floating-point
// operations done. The throughput loop keeps as many independent chains as the micro-kernel
// has accumulators (more than FMA latency x ports on every core we know); the latency loop
// runs one dependent chain, so its rate is the clock divided by the FMA latency.
using FmaLoopFn = int64_t (*)(int64_t iterations);

// c[j] += alpha[0] * b[j] + alpha[1] * b[ldb + j] + ... over `rows` rows of b, added in row
// order: the row update of the M=1 (GEMV) path, which loads and stores c once per several rows.
using AxpyRowsFn = void (*)(int64_t n, int rows, const float* alpha, const float* b, int64_t ldb,
                            float* c);

// Packs `count` (<= the sliver width) values of kc steps into a sliver; see pack.h for the two
// ways its values can lie in memory.
using PackFn = void (*)(const float* src, int64_t ld, int count, int64_t kc, float* dst);

struct KernelInfo {
  int mr = 0, nr = 0;  // register tile
  // Cache blocking (A block mc x kc, B panel kc x nc): set from the machine's KernelConfig by
  // KernelFor, not by the ISA files.
  int64_t mc = 0, kc = 0, nc = 0;
  FmaLoopFn fma_throughput = nullptr;
  FmaLoopFn fma_latency = nullptr;
  AxpyRowsFn axpy_rows = nullptr;
  // By where each item's A lies: rows in place (row i at a[i * lda + p], e.g. neighbouring
  // output pixels of one tap), steps in place (row i at a[p * lda + i]: MR consecutive values a
  // step, steps lda apart, e.g. channels of successive pixels) or packed (lda unused: the GEMM
  // driver's slivers).
  BatchReduceKernel batch_reduce = nullptr;
  BatchReduceKernel batch_reduce_steps = nullptr;
  BatchReduceKernel batch_reduce_packed = nullptr;
  // Packing into slivers of MR (A) and NR (B) values, from lines or from steps (pack.h).
  PackFn pack_a_lines = nullptr, pack_a_steps = nullptr;
  PackFn pack_b_lines = nullptr, pack_b_steps = nullptr;
};

// Where a micro-kernel reads A: packed (row i at a[p * MR + i]), rows in place (row i at
// a[i * lda + p]) or steps in place (row i at a[p * lda + i]).
enum Layout { kPacked, kRows, kSteps };

// Each ISA file writes kMr, kNr, its FmaOps (see FmaChains) and one `template <Layout> void
// Tile(items, count, c, ldc, rows, cols, accumulate)` that sums the items' products in registers
// (A read in the given layout; lda unused when packed), and gets its entry points and the
// Describe() that lists them in a KernelInfo from this.
#define SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS                                                        \
  void BatchReduce(const BatchItem* items, int count, float* c, int64_t ldc, int rows, int cols,  \
                   bool accumulate) {                                                             \
    Tile<kRows>(items, count, c, ldc, rows, cols, accumulate);                                    \
  }                                                                                               \
  void BatchReduceSteps(const BatchItem* items, int count, float* c, int64_t ldc, int rows,       \
                        int cols, bool accumulate) {                                              \
    Tile<kSteps>(items, count, c, ldc, rows, cols, accumulate);                                   \
  }                                                                                               \
  void BatchReducePacked(const BatchItem* items, int count, float* c, int64_t ldc, int rows,      \
                         int cols, bool accumulate) {                                             \
    Tile<kPacked>(items, count, c, ldc, rows, cols, accumulate);                                  \
  }                                                                                               \
  void AxpyRows(int64_t n, int rows, const float* alpha, const float* b, int64_t ldb, float* c) { \
    AxpyRowsLoop(n, rows, alpha, b, ldb, c);                                                      \
  }                                                                                               \
  /* The throughput probe runs as many chains as the tile has accumulators. */                    \
  KernelInfo Describe() {                                                                         \
    KernelInfo info;                                                                              \
    info.mr = kMr;                                                                                \
    info.nr = kNr;                                                                                \
    info.fma_throughput = FmaChains<FmaOps, kMr * kNr / FmaOps::kLanes>;                          \
    info.fma_latency = FmaChains<FmaOps, 1>;                                                      \
    info.axpy_rows = AxpyRows;                                                                    \
    info.batch_reduce = BatchReduce;                                                              \
    info.batch_reduce_steps = BatchReduceSteps;                                                   \
    info.batch_reduce_packed = BatchReducePacked;                                                 \
    info.pack_a_lines = PackLines<kMr>;                                                           \
    info.pack_a_steps = PackSteps<kMr>;                                                           \
    info.pack_b_lines = PackLines<kNr>;                                                           \
    info.pack_b_steps = PackSteps<kNr>;                                                           \
    return info;                                                                                  \
  }

// c[j] += alpha[0] * b[j] + ... + alpha[kRows - 1] * b[(kRows - 1) * ldb + j], in row order: one
// load and store of c per kRows FMAs.
template <int kRows>
inline void AxpyBlock(int64_t n, const float* alpha, const float* __restrict b, int64_t ldb,
                      float* __restrict c) {
  float a[kRows];
#pragma GCC unroll 16
  for (int q = 0; q < kRows; ++q) a[q] = alpha[q];
  for (int64_t j = 0; j < n; ++j) {
    float s = c[j];
#pragma GCC unroll 16
    for (int q = 0; q < kRows; ++q) s += a[q] * b[q * ldb + j];
    c[j] = s;
  }
}

// Written once, compiled in each kernel library with that library's ISA flags (and -O3, so the
// loops are vectorized). Sixteen rows at a time, then eight, then one.
inline void AxpyRowsLoop(int64_t n, int rows, const float* alpha, const float* b, int64_t ldb,
                         float* c) {
  int r = 0;
  for (; r + 16 <= rows; r += 16) AxpyBlock<16>(n, alpha + r, b + r * ldb, ldb, c);
  for (; r + 8 <= rows; r += 8) AxpyBlock<8>(n, alpha + r, b + r * ldb, ldb, c);
  for (; r < rows; ++r) AxpyBlock<1>(n, alpha + r, b + r * ldb, ldb, c);
}

// kChains independent chains of FMAs on the vector type of `Ops` (Ops::Set1(float),
// Ops::Fma(x, y, z) = x * y + z, Ops::kLanes): the loops behind KernelInfo's fma_throughput
// (many chains) and fma_latency (one).
template <typename Ops, int kChains>
int64_t FmaChains(int64_t iterations) {
  typename Ops::Vector acc[kChains];
  const auto x = Ops::Set1(0.9999999f), y = Ops::Set1(1e-7f);
#pragma GCC unroll 32
  for (int i = 0; i < kChains; ++i) acc[i] = Ops::Set1(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < kChains; ++i) acc[i] = Ops::Fma(acc[i], x, y);
  }
  // The results are "used" without a reduction the compiler could fold into the loop.
  for (int i = 0; i < kChains; ++i) asm volatile("" : : "m"(acc[i]));
  return iterations * kChains * Ops::kLanes * 2;
}

KernelInfo ScalarKernel();  // portable C++
KernelInfo Avx2Kernel();    // AVX2 + FMA, 6 x 16
KernelInfo Avx512Kernel();  // AVX-512F, 14 x 32, every tile height

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_MICRO_KERNEL_H_
