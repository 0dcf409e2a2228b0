#include "swigflow/kernels/gemm/int8_gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/gemm/int8_pack.h"
#include "swigflow/kernels/gemm/int8_packed.h"
#include "swigflow/kernels/gemm/loops.h"

namespace swigflow {
namespace kernels {
namespace {

using gemm::Int8Element;
using gemm::Int8KernelInfo;

using int8::ScratchBytes;

// Below this many multiply-adds a product stays on one thread.
constexpr int64_t kSmallProduct = int64_t{1} << 20;

// The 8-bit product of RunLoops. pack_a(i0, p0, mc, kc, dst) packs A's blocks; see GemmU8S8.
// `in_place`: a source whose rows the kernel's rows_kernel may read in place instead (RowRuns),
// or null. B's panels come prepacked (PackInt8Right's bytes, in the order the loops use them) or
// are packed by the threads together into `packed_b`. Each block of A picks its kernel once:
// packed or in-place rows, int32 sums or requantized 8-bit outputs.
template <typename PackAFn>
class Int8Product {
 public:
  Int8Product(const Int8KernelInfo& kernel, const PackAFn& pack_a, const Int8RowSource* in_place,
              int64_t align, const Int8Right& b, uint8_t* packed_b, const uint8_t* prepacked,
              int32_t* c, int64_t ldc, const int32_t* row_offset, const int32_t* col_offset,
              const Int8Epilogue* epilogue)
      : kernel_(kernel),
        pack_a_(pack_a),
        in_place_(in_place),
        align_(align),
        b_(b),
        packed_b_(packed_b),
        next_panel_(prepacked),
        c_(c),
        ldc_(ldc),
        row_offset_(row_offset),
        col_offset_(col_offset),
        epilogue_(epilogue) {}

  void Panel(const gemm::LoopPanel& panel) {
    panel_ = panel;
    groups_ = int8::GroupsOf(kernel_, panel.kc);
    sliver_b_ = int8::SliverBytes(kernel_, panel.kc, kernel_.nr);
    sliver_a_ = int8::SliverBytes(kernel_, panel.kc, kernel_.mr);
    block_b_ = packed_b_;
    if (next_panel_ != nullptr) {
      block_b_ = next_panel_;
      next_panel_ += int8::PanelBytes(kernel_, panel.kc, panel.nc);
    }
    // Tiles requantized in the kernel's registers: all of K in this block, and a kernel that
    // can (with rows read in place too, when they are).
    requantize_ = epilogue_ != nullptr && panel.first && panel.last &&
                          kernel_.requantizing_kernel != nullptr &&
                          (in_place_ == nullptr || kernel_.requantizing_rows_kernel != nullptr)
                      ? epilogue_->Requantize()
                      : nullptr;
  }
  bool PacksB() const { return next_panel_ == nullptr; }
  void PackB(const gemm::LoopPanel& p, int64_t s0, int64_t s1) const {
    const int nr = kernel_.nr;
    int8::PackB(kernel_, b_, p.pc, p.jc + s0 * nr, p.kc, std::min(p.nc, s1 * nr) - s0 * nr,
                packed_b_ + s0 * sliver_b_);
  }

  class Worker {
   public:
    Worker(const Int8Product& product, int64_t rows)
        : p_(product),
          panel_(product.panel_),
          packed_a_(
              ScratchBytes(0, static_cast<size_t>(rows / product.kernel_.mr * product.sliver_a_))) {
      if (p_.in_place_ != nullptr) {  // one slot per sliver (Int8RunsSlot), for the largest block
        const size_t per_row = static_cast<size_t>(panel_.kc / p_.align_);
        runs_.resize(static_cast<size_t>(rows / p_.kernel_.mr));
        origins_.resize(static_cast<size_t>(rows));
        offsets_.resize(static_cast<size_t>(rows));
        tables_.resize(static_cast<size_t>(rows) * per_row);
      }
    }

    template <typename Body>
    void Block(int64_t ic, int64_t mc, Body&& body) {
      const Int8KernelInfo& kernel = p_.kernel_;
      const int mr = kernel.mr;
      const int64_t kc = panel_.kc, groups = p_.groups_, sliver_a = p_.sliver_a_;
      // Rows read in place when the source gives every sliver's runs: made once per block,
      // used for every column sliver. Otherwise A's block is packed.
      bool in_place = p_.in_place_ != nullptr;
      for (int64_t ir = 0; ir < mc && in_place; ir += mr) {
        const int rows = static_cast<int>(std::min<int64_t>(mr, mc - ir));
        const Int8RunsSlot slot{origins_.data() + ir, offsets_.data() + ir,
                                tables_.data() + ir * (kc / p_.align_)};
        in_place = p_.in_place_->RowRuns(ic + ir, rows, panel_.pc, kc, mr, slot, &runs_[ir / mr]);
      }
      if (!in_place) p_.pack_a_(ic, panel_.pc, mc, kc, packed_a_);
      // The offsets join the sums with the last K block.
      const bool offsets = panel_.last && p_.row_offset_ != nullptr;
      const int32_t* row_offset = offsets ? p_.row_offset_ + ic : nullptr;
      const int32_t* col_offset = offsets ? p_.col_offset_ + panel_.jc : nullptr;
      const int64_t ldc = p_.ldc_;
      int32_t* c = p_.c_ + ic * ldc + panel_.jc;
      const bool accumulate = !panel_.first;
      const uint8_t* a = packed_a_;
      const auto& runs = runs_;
      if (const gemm::Int8Requantize* q = p_.requantize_) {
        // The tile's part of the output, scales and biases.
        const auto at = [q, ic, jc = panel_.jc, nr = kernel.nr](int64_t ir, int64_t s) {
          const int64_t i = ic + ir, j = jc + s * nr;
          return gemm::Int8Requantize{q->scale + j, q->bias + j, q->inverse_output,
                                      q->out + i * q->ldo + j, q->ldo};
        };
        if (in_place) {
          body([&](const uint8_t* b, int64_t ir, int rows, int64_t s, int cols) {
            kernel.requantizing_rows_kernel(runs[static_cast<size_t>(ir / mr)], b, at(ir, s), rows,
                                            cols, Rows(row_offset, ir), Cols(col_offset, s));
          });
        } else {
          body([&](const uint8_t* b, int64_t ir, int rows, int64_t s, int cols) {
            kernel.requantizing_kernel(groups, a + ir / mr * sliver_a, b, at(ir, s), rows, cols,
                                       Rows(row_offset, ir), Cols(col_offset, s));
          });
        }
      } else if (in_place) {
        body([&](const uint8_t* b, int64_t ir, int rows, int64_t s, int cols) {
          kernel.rows_kernel(runs[static_cast<size_t>(ir / mr)], b, c + ir * ldc + s * kernel.nr,
                             ldc, rows, cols, accumulate, Rows(row_offset, ir),
                             Cols(col_offset, s));
        });
      } else {
        body([&](const uint8_t* b, int64_t ir, int rows, int64_t s, int cols) {
          kernel.kernel(groups, a + ir / mr * sliver_a, b, c + ir * ldc + s * kernel.nr, ldc, rows,
                        cols, accumulate, Rows(row_offset, ir), Cols(col_offset, s));
        });
      }
    }

    const uint8_t* Sliver(int64_t s, int) const { return p_.block_b_ + s * p_.sliver_b_; }

    // Without requantizing tiles, the epilogue takes the block's finished sums.
    void EndBlock(int64_t ic, int64_t mc, int64_t s_begin, int64_t s_end) const {
      if (!panel_.last || p_.epilogue_ == nullptr || p_.requantize_ != nullptr) return;
      const int nr = p_.kernel_.nr;
      const int64_t j0 = panel_.jc + s_begin * nr;
      p_.epilogue_->Finish(ic, mc, j0, std::min(panel_.nc, s_end * nr) - s_begin * nr,
                           p_.c_ + ic * p_.ldc_ + j0, p_.ldc_);
    }

   private:
    const int32_t* Rows(const int32_t* row_offset, int64_t ir) const {
      return row_offset != nullptr ? row_offset + ir : nullptr;
    }
    const int32_t* Cols(const int32_t* col_offset, int64_t s) const {
      return col_offset != nullptr ? col_offset + s * p_.kernel_.nr : nullptr;
    }

    const Int8Product& p_;
    const gemm::LoopPanel panel_;
    uint8_t* const packed_a_;
    // Slivers' runs read in place, and the slots they are made in.
    std::vector<gemm::Int8RowRuns> runs_;
    std::vector<uintptr_t> origins_;
    std::vector<const int64_t*> offsets_;
    std::vector<int64_t> tables_;
  };

  Worker Work(const gemm::LoopPanel&, int64_t rows) const { return {*this, rows}; }

 private:
  const Int8KernelInfo& kernel_;
  const PackAFn& pack_a_;
  const Int8RowSource* const in_place_;
  const int64_t align_;
  const Int8Right& b_;
  uint8_t* const packed_b_;
  const uint8_t* next_panel_;  // the prepacked panel the next Panel() takes, or null
  int32_t* const c_;
  const int64_t ldc_;
  const int32_t* const row_offset_;
  const int32_t* const col_offset_;
  const Int8Epilogue* const epilogue_;
  // The current panel's.
  gemm::LoopPanel panel_;
  int64_t groups_ = 0, sliver_a_ = 0, sliver_b_ = 0;
  const uint8_t* block_b_ = nullptr;
  const gemm::Int8Requantize* requantize_ = nullptr;
};

template <typename PackAFn>
void Gemm(const Int8Blocking& blocking, const PackAFn& pack_a, const Int8RowSource* in_place,
          const Int8Right& b, int64_t m, int64_t n, int64_t k, int32_t* c, int64_t ldc,
          const int32_t* row_offset, const int32_t* col_offset, ThreadPool* pool,
          const Int8Epilogue* epilogue) {
  const Int8KernelInfo& kernel = blocking.kernel;
  const int nr = kernel.nr, group = kernel.k_group;
  const int64_t threads = pool == nullptr || m * n * k < kSmallProduct ? 1 : pool->num_threads();
  if (threads == 1) pool = nullptr;
  if (kernel.rows_kernel == nullptr) in_place = nullptr;
  // K blocks: whole runs of the in-place source (its alignment, when that is whole groups), or
  // the packing's (a source whose runs they split is packed instead: RowRuns refuses them).
  const int64_t align = in_place != nullptr ? std::max<int64_t>(1, in_place->StepAlignment()) : 1;
  const int64_t block_k =
      b.packed != nullptr ? int8::PackedBlockK(b.packed) : int8::BlockK(blocking, align);
  const int64_t kc_max = std::min(block_k, (k + group - 1) / group * group);
  const int64_t nc_max = std::min(blocking.nc, (n + nr - 1) / nr * nr);
  uint8_t* packed_b =
      b.packed != nullptr
          ? nullptr
          : ScratchBytes(1, static_cast<size_t>(int8::PanelBytes(kernel, kc_max, nc_max)));
  const uint8_t* prepacked = b.packed != nullptr ? int8::PackedPanels(b.packed) : nullptr;
  Int8Product<PackAFn> product(kernel, pack_a, in_place, align, b, packed_b, prepacked, c, ldc,
                               row_offset, col_offset, epilogue);
  gemm::LoopSizes sizes;
  sizes.mr = kernel.mr;
  sizes.nr = nr;
  sizes.mc = blocking.mc;
  sizes.kc = block_k;
  sizes.nc = blocking.nc;
  gemm::RunLoops(product, sizes, m, n, 0, k, threads, pool);
}

// C = the offsets alone (K = 0) or zero, then the epilogue.
void FillOffsets(int64_t m, int64_t n, int32_t* c, int64_t ldc, const int32_t* row_offset,
                 const int32_t* col_offset, const Int8Epilogue* epilogue) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      c[i * ldc + j] = row_offset == nullptr
                           ? 0
                           : static_cast<int32_t>(static_cast<uint32_t>(row_offset[i]) +
                                                  static_cast<uint32_t>(col_offset[j]));
    }
  }
  if (epilogue != nullptr) epilogue->Finish(0, m, 0, n, c, ldc);
}

}  // namespace

void GemmU8S8(bool trans_a, int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
              const Int8Right& b, int32_t* c, int64_t ldc, const int32_t* row_offset,
              const int32_t* col_offset, Int8Isa isa, ThreadPool* pool,
              const Int8Epilogue* epilogue) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) return FillOffsets(m, n, c, ldc, row_offset, col_offset, epilogue);
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, uint8_t* dst) {
    if (!trans_a && blocking.kernel.element == Int8Element::kBytes) {
      return int8::PackRowBytes(blocking.kernel, a + i0 * lda + p0, lda, mc, kc, dst);
    }
    if (trans_a) {
      int8::PackA(
          blocking.kernel, [&](int64_t i, int64_t p) { return a[(p0 + p) * lda + i0 + i]; }, mc, kc,
          dst);
    } else {
      int8::PackA(
          blocking.kernel, [&](int64_t i, int64_t p) { return a[(i0 + i) * lda + p0 + p]; }, mc, kc,
          dst);
    }
  };
  Gemm(blocking, pack_a, nullptr, b, m, n, k, c, ldc, row_offset, col_offset, pool, epilogue);
}

void GemmU8S8(const Int8RowSource& source, int64_t m, int64_t n, int64_t k, const Int8Right& b,
              int32_t* c, int64_t ldc, const int32_t* row_offset, const int32_t* col_offset,
              Int8Isa isa, ThreadPool* pool, const Int8Epilogue* epilogue) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) return FillOffsets(m, n, c, ldc, row_offset, col_offset, epilogue);
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const auto pack_a = [&](int64_t i0, int64_t p0, int64_t mc, int64_t kc, uint8_t* dst) {
    const Int8KernelInfo& kernel = blocking.kernel;
    if (kernel.element == Int8Element::kBytes && kernel.k_group == 4 && kc % 4 == 0 &&
        source.PackGroupsOf4(i0, mc, p0, kc, kernel.mr, dst)) {
      return;
    }
    uint8_t* rows = ScratchBytes(2, static_cast<size_t>(mc * kc));
    source.Rows(i0, mc, p0, kc, rows, kc);
    if (blocking.kernel.element == Int8Element::kBytes) {
      return int8::PackRowBytes(blocking.kernel, rows, kc, mc, kc, dst);
    }
    int8::PackA(
        blocking.kernel, [&](int64_t i, int64_t p) { return rows[i * kc + p]; }, mc, kc, dst);
  };
  Gemm(blocking, pack_a, &source, b, m, n, k, c, ldc, row_offset, col_offset, pool, epilogue);
}

}  // namespace kernels
}  // namespace swigflow
