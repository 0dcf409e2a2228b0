#include "swigflow/kernels/gemm/gemm.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "swigflow/kernels/gemm/loops.h"
#include "swigflow/kernels/gemm/micro_kernel.h"
#include "swigflow/kernels/gemm/partition.h"
#include "swigflow/kernels/gemm/scratch.h"

namespace swigflow {
namespace kernels {
namespace {

using gemm::ChooseGrid;
using gemm::Grid;
using gemm::KernelInfo;
using gemm::RunParts;

KernelInfo TileOf(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return gemm::Avx512Kernel();
    case Isa::kAvx2:
      return gemm::Avx2Kernel();
    case Isa::kScalar:
      break;
  }
  return gemm::ScalarKernel();
}

}  // namespace

const KernelConfig& ConfigFor(Isa isa) {
  static const KernelConfig* configs[3] = {};
  static std::once_flag once[3];
  const int i = static_cast<int>(isa);
  std::call_once(once[i], [&] {
    const KernelInfo tile = TileOf(isa);
    configs[i] = new KernelConfig(
        ChooseConfig(GetCpuModel(), isa, tile.mr, tile.nr, BlockingEnvironment(GemmType::kFp32)));
  });
  return *configs[i];
}

const KernelInfo& KernelFor(Isa isa) {
  static const KernelInfo* infos[3] = {};
  static std::once_flag once[3];
  const int i = static_cast<int>(isa);
  std::call_once(once[i], [&] {
    KernelInfo info = TileOf(isa);
    const KernelConfig& config = ConfigFor(isa);
    // Whole slivers per block, whatever the config says.
    info.mc = (config.mc + info.mr - 1) / info.mr * info.mr;
    info.kc = config.kc;
    info.nc = (config.nc + info.nr - 1) / info.nr * info.nr;
    infos[i] = new KernelInfo(info);
  });
  return *infos[i];
}

namespace {

// A matrix operand and whether it is used transposed: op(X)(r, s).
struct Operand {
  const float* data;
  int64_t ld;
  bool trans;
  float at(int64_t r, int64_t s) const { return trans ? data[s * ld + r] : data[r * ld + s]; }
};

// Rows [i0, i0 + mc) x columns [p0, p0 + kc) of op(A), as slivers of MR rows: each sliver is kc
// steps of MR values, zero past the last row. A row of A is a sliver's line; a row of a
// transposed A is one of its steps.
void PackA(const KernelInfo& kernel, const Operand& a, int64_t i0, int64_t p0, int64_t mc,
           int64_t kc, float* dst) {
  const int mr = kernel.mr;
  for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - ir));
    if (a.trans) {
      kernel.pack_a_steps(a.data + p0 * a.ld + i0 + ir, a.ld, rows, kc, dst);
    } else {
      kernel.pack_a_lines(a.data + (i0 + ir) * a.ld + p0, a.ld, rows, kc, dst);
    }
  }
}

// Rows [p0, p0 + kc) x columns [j0, j0 + nc) of op(B), as slivers of NR columns: each sliver is
// kc steps of NR values, zero past the last column. A row of B is a step of a sliver; a row of a
// transposed B one of its lines.
void PackB(const KernelInfo& kernel, const Operand& b, int64_t p0, int64_t j0, int64_t kc,
           int64_t nc, float* dst) {
  const int nr = kernel.nr;
  if (b.trans) {
    for (int64_t jr = 0; jr < nc; jr += nr, dst += kc * nr) {
      const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
      kernel.pack_b_lines(b.data + (j0 + jr) * b.ld + p0, b.ld, cols, kc, dst);
    }
    return;
  }
  // Rows of B are read a few at a time across the whole panel, not sliver by sliver down the
  // panel: a few sequential streams instead of kc short, page-strided ones.
  constexpr int64_t kSteps = 16;
  for (int64_t p = 0; p < kc; p += kSteps) {
    const int64_t steps = std::min(kSteps, kc - p);
    for (int64_t jr = 0; jr < nc; jr += nr) {
      const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
      kernel.pack_b_steps(b.data + (p0 + p) * b.ld + j0 + jr, b.ld, cols, steps,
                          dst + jr * kc + p * nr);
    }
  }
}

// Scratch buffer `which` (< 4) of the calling thread, at least n floats (scratch.h).
float* ThreadBuffer(int which, size_t n) { return gemm::ThreadScratch<float, 4>(which, n); }

// Below this many multiply-adds a product stays on one thread: waking a worker and sharing
// the packed panels costs more than it saves.
constexpr int64_t kSmallProduct = int64_t{1} << 18;

// Below this many rows of C, B is not packed: the micro-kernel reads its rows in place, since
// a product this short does too few multiply-adds per element of B to repay copying it (M = 32:
// packing B took a third of the time). B's last, partial sliver is still packed, by the thread
// that uses it.
constexpr int64_t kInPlaceBRows = 64;

// The FP32 product of RunLoops: C (+)= A * op(B), A's blocks from pack_a(i0, p0, mc, kc, dst),
// or read where they lie when `rows_of_a` is given (an untransposed A); B's panels packed by
// the threads together into `packed_b` (one copy, shared), or, when `packed_b` is null, read in
// place (rows [pc, pc + kc) of B from column jc on).
template <typename PackAFn>
class Fp32Product {
 public:
  Fp32Product(const KernelInfo& kernel, const PackAFn& pack_a, const Operand* rows_of_a,
              const Operand& b, float* packed_b, float* c, int64_t ldc, bool accumulate)
      : kernel_(kernel),
        pack_a_(pack_a),
        rows_of_a_(rows_of_a),
        b_(b),
        packed_b_(packed_b),
        c_(c),
        ldc_(ldc),
        accumulate_(accumulate) {}

  void Panel(const gemm::LoopPanel& panel) { panel_ = panel; }
  bool PacksB() const { return packed_b_ != nullptr; }
  void PackB(const gemm::LoopPanel& p, int64_t s0, int64_t s1) const {
    const int nr = kernel_.nr;
    kernels::PackB(kernel_, b_, p.pc, p.jc + s0 * nr, p.kc, std::min(p.nc, s1 * nr) - s0 * nr,
                   packed_b_ + s0 * p.kc * nr);
  }

  class Worker {
   public:
    Worker(const Fp32Product& product, int64_t rows)
        : p_(product),
          panel_(product.panel_),
          packed_a_(ThreadBuffer(0, static_cast<size_t>(rows * panel_.kc))),
          add_(!panel_.first || product.accumulate_) {}

    template <typename Body>
    void Block(int64_t ic, int64_t mc, Body&& body) {
      const KernelInfo& kernel = p_.kernel_;
      float* c = p_.c_ + ic * p_.ldc_ + panel_.jc;
      if (const Operand* a = p_.rows_of_a_) {
        const float* rows_of_a = a->data + ic * a->ld + panel_.pc;
        body([&](gemm::BatchItem item, int64_t ir, int rows, int64_t s, int cols) {
          item.a = rows_of_a + ir * a->ld;
          item.lda = a->ld;
          kernel.batch_reduce(&item, 1, c + ir * p_.ldc_ + s * kernel.nr, p_.ldc_, rows, cols,
                              add_);
        });
        return;
      }
      p_.pack_a_(ic, panel_.pc, mc, panel_.kc, packed_a_);
      body([&](gemm::BatchItem item, int64_t ir, int rows, int64_t s, int cols) {
        item.a = packed_a_ + ir * panel_.kc;
        kernel.batch_reduce_packed(&item, 1, c + ir * p_.ldc_ + s * kernel.nr, p_.ldc_, rows, cols,
                                   add_);
      });
    }

    // Sliver s of the panel: packed, or B's rows in place (a partial last sliver packed here).
    gemm::BatchItem Sliver(int64_t s, int cols) const {
      const int nr = p_.kernel_.nr;
      gemm::BatchItem item{nullptr, 0, nullptr, panel_.kc};
      if (p_.packed_b_ != nullptr) {
        item.b = p_.packed_b_ + s * panel_.kc * nr;
        return item;
      }
      const Operand& b = p_.b_;
      const float* rows_of_b = b.data + panel_.pc * b.ld + panel_.jc + s * nr;
      if (cols == nr) {
        item.b = rows_of_b;
        item.ldb = b.ld;
      } else {
        float* sliver = ThreadBuffer(2, static_cast<size_t>(panel_.kc * nr));
        p_.kernel_.pack_b_steps(rows_of_b, b.ld, cols, panel_.kc, sliver);
        item.b = sliver;
      }
      return item;
    }

    void EndBlock(int64_t, int64_t, int64_t, int64_t) const {}

   private:
    const Fp32Product& p_;
    const gemm::LoopPanel panel_;
    float* const packed_a_;
    const bool add_;
  };

  Worker Work(const gemm::LoopPanel&, int64_t rows) const { return {*this, rows}; }

 private:
  const KernelInfo& kernel_;
  const PackAFn& pack_a_;
  const Operand* const rows_of_a_;
  const Operand& b_;
  float* const packed_b_;
  float* const c_;
  const int64_t ldc_;
  const bool accumulate_;
  gemm::LoopPanel panel_;
};

// C[m x n] = A * op(B) over K's steps [k_begin, k_end) (+ C when `accumulate`), A's blocks from
// pack_a(i0, p0, mc, kc, dst): RunLoops with the FP32 product.
template <typename PackAFn>
void GemmSteps(const KernelInfo& kernel, const PackAFn& pack_a, const Operand& b, int64_t m,
               int64_t n, int64_t k_begin, int64_t k_end, float* c, int64_t ldc, bool accumulate,
               ThreadPool* pool, const Operand* rows_of_a = nullptr) {
  const int nr = kernel.nr;
  const int64_t k = k_end - k_begin;
  const int64_t threads = pool == nullptr || m * n * k < kSmallProduct ? 1 : pool->num_threads();
  if (threads == 1) pool = nullptr;
  const bool b_in_place = !b.trans && m < kInPlaceBRows;
  const int64_t kc_used = std::min(kernel.kc, k);
  const int64_t nc_used = std::min(kernel.nc, (n + nr - 1) / nr * nr);
  // The caller's buffer, read by every thread; tasks only ever take buffers 0 and 2 for
  // themselves.
  float* packed_b = b_in_place ? nullptr : ThreadBuffer(1, static_cast<size_t>(kc_used * nc_used));
  Fp32Product<PackAFn> product(kernel, pack_a, rows_of_a, b, packed_b, c, ldc, accumulate);
  gemm::LoopSizes sizes;
  sizes.mr = kernel.mr;
  sizes.nr = nr;
  sizes.mc = kernel.mc;
  sizes.kc = kernel.kc;
  sizes.nc = kernel.nc;
  gemm::RunLoops(product, sizes, m, n, k_begin, k_end, threads, pool);
}

// Long products with a small C, such as a 7x7x3 -> 64 filter's gradient over a batch's pixels
// (147 x 64 summed over 100k steps), leave the grid above with few tiles to share: threads idle
// or pack A twice, and meet twice per kc block. Such products are cut along K into chunks of
// at least kKChunk steps instead (at most kMaxKChunks of them, bounding the memory for their
// sums); each chunk is a whole one-thread GEMM into a C of its own, and the chunks' Cs are added
// in chunk order. The chunks depend on the shape alone, so the result is the same on any number
// of threads.
constexpr int64_t kKChunk = 1024;
constexpr int64_t kMaxKChunks = 64;
constexpr int64_t kKChunkMaxTiles = 32;  // tiles of C, at most, for the K split

bool SplitsK(const KernelInfo& kernel, int64_t m, int64_t n, int64_t k) {
  const int64_t tiles = (m + kernel.mr - 1) / kernel.mr * ((n + kernel.nr - 1) / kernel.nr);
  return k >= 4 * kKChunk && tiles <= kKChunkMaxTiles;
}

template <typename PackAFn>
void Gemm(const KernelInfo& kernel, const PackAFn& pack_a, const Operand& b, int64_t m, int64_t n,
          int64_t k, float* c, int64_t ldc, bool accumulate, ThreadPool* pool) {
  if (!SplitsK(kernel, m, n, k)) {
    return GemmSteps(kernel, pack_a, b, m, n, 0, k, c, ldc, accumulate, pool);
  }
  const int64_t steps = std::max(kKChunk, (k + kMaxKChunks - 1) / kMaxKChunks);
  const int64_t chunks = (k + steps - 1) / steps;
  // Chunk 0 goes straight into C; the others into partial sums, m x n each. The caller's
  // fourth buffer: no task takes it.
  float* partial = ThreadBuffer(3, static_cast<size_t>((chunks - 1) * m * n));
  const int64_t parts = pool == nullptr ? 1 : std::min<int64_t>(pool->num_threads(), chunks);
  RunParts(parts > 1 ? pool : nullptr, parts, [&](int64_t part) {
    for (int64_t chunk = chunks * part / parts; chunk < chunks * (part + 1) / parts; ++chunk) {
      const int64_t begin = chunk * steps, end = std::min(k, begin + steps);
      if (chunk == 0) {
        GemmSteps(kernel, pack_a, b, m, n, begin, end, c, ldc, accumulate, nullptr);
      } else {
        GemmSteps(kernel, pack_a, b, m, n, begin, end, partial + (chunk - 1) * m * n, n, false,
                  nullptr);
      }
    }
  });
  for (int64_t chunk = 1; chunk < chunks; ++chunk) {
    const float* sums = partial + (chunk - 1) * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += sums[i * n + j];
    }
  }
}

// Columns of C a GEMV pass updates: their sums stay in L1 while B's rows stream past.
constexpr int64_t kGemvColumns = 2048;

// C[0, j_begin:j_end] = op(A)[0, p_begin:p_end] * op(B)[p_begin:p_end, :], each sum in K order.
// Without a transpose, rows of B stream past in blocks (the vectorized axpy_rows); with one, a
// dot product per column.
void GemvRow(const KernelInfo& kernel, const Operand& a, const Operand& b, int64_t p_begin,
             int64_t p_end, float* c, int64_t j_begin, int64_t j_end) {
  if (b.trans) {
    for (int64_t j = j_begin; j < j_end; ++j) {
      const float* column = b.data + j * b.ld;
      float sum = 0.0f;
      for (int64_t p = p_begin; p < p_end; ++p) sum += a.at(0, p) * column[p];
      c[j] = sum;
    }
    return;
  }
  std::fill(c + j_begin, c + j_end, 0.0f);
  constexpr int kRows = 64;
  float alpha[kRows];
  for (int64_t j0 = j_begin; j0 < j_end; j0 += kGemvColumns) {
    const int64_t cols = std::min(kGemvColumns, j_end - j0);
    for (int64_t p = p_begin; p < p_end; p += kRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kRows, p_end - p));
      for (int r = 0; r < rows; ++r) alpha[r] = a.at(0, p + r);
      kernel.axpy_rows(cols, rows, alpha, b.data + p * b.ld + j0, b.ld, c + j0);
    }
  }
}

// A long GEMV's rows of B are split into chunks of at least this many, by K alone: each chunk
// is summed into its own vector and the vectors are added in chunk order, so the result is the
// same on any number of threads, and each thread streams whole rows of B (splitting the columns
// instead gives every thread short pieces of every row, which the prefetchers follow worse:
// 1 x 2048 x 1000 on Zen 4, 2 threads: 70 -> 79 GFLOP/s).
constexpr int64_t kGemvChunkRows = 1024;

// C[0, :] = op(A)[0, :] * op(B): K chunks over the pool when there are several, else columns.
void Gemv(const KernelInfo& kernel, const Operand& a, const Operand& b, int64_t n, int64_t k,
          float* c, ThreadPool* pool) {
  const int64_t chunks = b.trans ? 1 : std::max<int64_t>(1, k / kGemvChunkRows);
  const bool parallel = pool != nullptr && n * k >= (int64_t{1} << 16);
  if (chunks > 1) {
    float* partial = ThreadBuffer(2, static_cast<size_t>((chunks - 1) * n));
    RunParts(parallel ? pool : nullptr, chunks, [&](int64_t chunk) {
      GemvRow(kernel, a, b, k * chunk / chunks, k * (chunk + 1) / chunks,
              chunk == 0 ? c : partial + (chunk - 1) * n, 0, n);
    });
    for (int64_t chunk = 1; chunk < chunks; ++chunk) {
      const float* part = partial + (chunk - 1) * n;
      for (int64_t j = 0; j < n; ++j) c[j] += part[j];
    }
    return;
  }
  // Columns split over the pool (each sum still runs in K order: deterministic).
  const int64_t parts = parallel ? std::min<int64_t>(pool->num_threads(), (n + 63) / 64) : 1;
  RunParts(parts > 1 ? pool : nullptr, parts, [&](int64_t part) {
    // Split on 16-column boundaries so that every part's vector loop is aligned alike.
    const int64_t begin = std::min(n, (n * part / parts + 15) / 16 * 16);
    const int64_t end =
        part + 1 == parts ? n : std::min(n, (n * (part + 1) / parts + 15) / 16 * 16);
    if (begin < end) GemvRow(kernel, a, b, 0, k, c, begin, end);
  });
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
  if (m == 1) return Gemv(kernel, op_a, op_b, n, k, c, pool);
  if (n == 1) return GemvColumn(op_a, op_b, m, k, c, ldc);
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, float* dst) {
    PackA(kernel, op_a, i0, p0, mc, kc, dst);
  };
  // An A no larger than one packed block (sized to stay in L2) and one K block is read where
  // it lies: packing it would cost each thread a copy of all of A for a grid that splits
  // columns (256^3 on Zen 5: 78 -> 73 us). A larger A is packed: in place, its rows' streams
  // are followed worse (1024^3: 4.6 -> 4.4 ms packed).
  const bool a_in_place = !trans_a && k <= kernel.kc && m * k <= kernel.mc * kernel.kc;
  if (a_in_place && !SplitsK(kernel, m, n, k)) {
    return GemmSteps(kernel, pack_a, op_b, m, n, 0, k, c, ldc, false, pool, &op_a);
  }
  Gemm(kernel, pack_a, op_b, m, n, k, c, ldc, false, pool);
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
  const KernelInfo& kernel = KernelFor(isa);
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, float* dst) {
    a.Pack(i0, p0, mc, kc, kernel.mr, dst);
  };
  Gemm(kernel, pack_a, Operand{b, ldb, trans_b}, m, n, k, c, ldc, accumulate, pool);
}

FmaProbe MeasureFma(Isa isa, int threads, double seconds) {
  const KernelInfo& kernel = KernelFor(isa);
  return swigflow::MeasureFma(kernel.fma_throughput, kernel.fma_latency, threads, seconds);
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
