#include "swigflow/kernels/gemm/int8_gemm.h"

#include <emmintrin.h>  // SSE2, part of x86-64 itself: packing needs no run-time dispatch

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/gemm/loops.h"

namespace swigflow {
namespace kernels {
namespace {

using gemm::Int8Element;
using gemm::Int8KernelInfo;

constexpr int kInt8Isas = 4;

Int8KernelInfo KernelOf(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kAvx512Vnni:
      return gemm::Avx512VnniInt8Kernel();
    case Int8Isa::kAvxVnni:
      return gemm::AvxVnniInt8Kernel();
    case Int8Isa::kAvx2:
      return gemm::Avx2Int8Kernel();
    case Int8Isa::kScalar:
      break;
  }
  return gemm::ScalarInt8Kernel();
}

// The FP32 ISA whose config (cache blocking) the 8-bit kernel shares: same registers.
Isa VectorIsaOf(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kAvx512Vnni:
      return Isa::kAvx512;
    case Int8Isa::kAvxVnni:
    case Int8Isa::kAvx2:
      return Isa::kAvx2;
    case Int8Isa::kScalar:
      break;
  }
  return Isa::kScalar;
}

int ElementBytes(const Int8KernelInfo& kernel) {
  return kernel.element == Int8Element::kBytes ? 1 : 2;
}

// "mc,kc,nc" from SWIGFLOW_INT8_BLOCKING, if well formed.
bool BlockingFromEnvironment(int64_t* mc, int64_t* kc, int64_t* nc) {
  const char* value = std::getenv("SWIGFLOW_INT8_BLOCKING");
  long long m = 0, k = 0, n = 0;  // NOLINT(runtime/int): sscanf's type
  if (value == nullptr || std::sscanf(value, "%lld,%lld,%lld", &m, &k, &n) != 3) return false;
  if (m < 1 || k < 1 || n < 1 || m > (1 << 16) || k > (1 << 20) || n > (1 << 20)) return false;
  *mc = m;
  *kc = k;
  *nc = n;
  return true;
}

}  // namespace

const char* Int8IsaName(Int8Isa isa) { return KernelOf(isa).name; }

Int8Isa Int8IsaFor(Isa isa) {
  const CpuFeatures& f = GetCpuFeatures();
  if (isa == Isa::kAvx512 && f.avx512_vnni) return Int8Isa::kAvx512Vnni;
  if (isa != Isa::kScalar && f.avx_vnni) return Int8Isa::kAvxVnni;
  if (isa != Isa::kScalar && f.avx2) return Int8Isa::kAvx2;
  return Int8Isa::kScalar;
}

std::vector<Int8Isa> SupportedInt8Isas() {
  const CpuFeatures& f = GetCpuFeatures();
  std::vector<Int8Isa> isas = {Int8Isa::kScalar};
  if (f.avx2) isas.push_back(Int8Isa::kAvx2);
  if (f.avx_vnni) isas.push_back(Int8Isa::kAvxVnni);
  if (f.avx512_vnni) isas.push_back(Int8Isa::kAvx512Vnni);
  return isas;
}

const Int8Blocking& Int8BlockingFor(Int8Isa isa) {
  static const Int8Blocking* blockings[kInt8Isas] = {};
  static std::once_flag once[kInt8Isas];
  const int i = static_cast<int>(isa);
  std::call_once(once[i], [&] {
    Int8Blocking b;
    b.kernel = KernelOf(isa);
    const KernelConfig& config = ConfigFor(VectorIsaOf(isa));
    if (BlockingFromEnvironment(&b.mc, &b.kc, &b.nc)) {
      // as given
    } else if (config.int8_kc > 0) {  // the named config's own
      b.mc = config.int8_mc;
      b.kc = config.int8_kc;
      b.nc = config.int8_nc;
    } else {
      // The FP32 config's bytes: its B sliver (kc x nr floats) stays in L1/L2 and its A block
      // (mc x kc floats) in L2; 8-bit slivers of the same size hold 4x the steps.
      const gemm::KernelInfo& fp32 = KernelFor(VectorIsaOf(isa));
      const int64_t sliver_bytes = config.kc * fp32.nr * int64_t{sizeof(float)};
      b.kc = std::max<int64_t>(64, sliver_bytes / (b.kernel.nr * ElementBytes(b.kernel)));
      b.mc = config.mc * config.kc * int64_t{sizeof(float)} / (b.kc * ElementBytes(b.kernel));
      b.nc = config.nc;
    }
    const int64_t group = b.kernel.k_group;
    b.kc = std::max<int64_t>(group, b.kc / group * group);
    b.mc = std::max<int64_t>(1, (b.mc + b.kernel.mr - 1) / b.kernel.mr) * b.kernel.mr;
    b.nc = std::max<int64_t>(1, (b.nc + b.kernel.nr - 1) / b.kernel.nr) * b.kernel.nr;
    blockings[i] = new Int8Blocking(b);
  });
  return *blockings[i];
}

namespace {

// Scratch buffer `which` of the calling thread, at least n bytes, contents undefined. Grown,
// never shrunk.
uint8_t* ScratchBytes(int which, size_t n) {
  struct Buffer {
    std::unique_ptr<uint8_t[]> data;
    size_t size = 0;
  };
  thread_local Buffer buffers[3];
  Buffer& b = buffers[which];
  if (b.size < n) {
    b.data.reset(new uint8_t[n + 64]);
    b.size = n;
  }
  return b.data.get();
}

// Writes `count` values of one packed group: bytes as they are, or widened to int16.
template <typename Value>
inline void PutGroup(const Int8KernelInfo& kernel, const Value* values, void* dst) {
  if (kernel.element == Int8Element::kBytes) {
    auto* d = static_cast<int8_t*>(dst);
    for (int t = 0; t < kernel.k_group; ++t) d[t] = static_cast<int8_t>(values[t]);
  } else {
    auto* d = static_cast<int16_t*>(dst);
    for (int t = 0; t < kernel.k_group; ++t) d[t] = static_cast<int16_t>(values[t]);
  }
}

// Rows [i0, i0 + mc) x steps [p0, p0 + kc) of A (row i, step p at at(i, p)) as the kernel's
// slivers of mr rows, zero past the last row and step.
template <typename At>
void PackA(const Int8KernelInfo& kernel, const At& at, int64_t mc, int64_t kc, uint8_t* dst) {
  const int mr = kernel.mr, group = kernel.k_group;
  const int64_t groups = (kc + group - 1) / group;
  const int64_t group_bytes = group * ElementBytes(kernel);
  for (int64_t ir = 0; ir < mc; ir += mr) {
    for (int r = 0; r < mr; ++r) {
      const bool valid = ir + r < mc;
      for (int64_t g = 0; g < groups; ++g) {
        int values[4] = {0, 0, 0, 0};
        for (int t = 0; t < group; ++t) {
          const int64_t p = g * group + t;
          if (valid && p < kc) values[t] = at(ir + r, p);
        }
        // Unsigned bytes: PutGroup's int8 store keeps the bit pattern.
        PutGroup(kernel, values, dst + (g * mr + r) * group_bytes);
      }
    }
    dst += groups * mr * group_bytes;
  }
}

// PackA for byte groups from rows in memory (row i at a[i * lda]): whole groups copied as words.
void PackRowBytes(const Int8KernelInfo& kernel, const uint8_t* a, int64_t lda, int64_t mc,
                  int64_t kc, uint8_t* dst) {
  const int mr = kernel.mr, group = kernel.k_group;
  const int64_t groups = (kc + group - 1) / group, full = kc / group;
  for (int64_t ir = 0; ir < mc; ir += mr, dst += groups * mr * group) {
    for (int r = 0; r < mr; ++r) {
      uint8_t* d = dst + r * group;
      if (ir + r >= mc) {
        for (int64_t g = 0; g < groups; ++g) std::memset(d + g * mr * group, 0, group);
        continue;
      }
      const uint8_t* src = a + (ir + r) * lda;
      if (group == 4 && r + 4 <= mr && ir + r + 4 <= mc) {
        // Four rows at once, four groups at a time: a 4 x 4 transpose of 32-bit words turns
        // 16 bytes of each row into each group's 16 bytes of the four rows (a quarter of the
        // stores of one word at a time).
        int64_t g = 0;
        for (; g + 4 <= full; g += 4) {
          const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + g * 4));
          const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + lda + g * 4));
          const __m128i r2 =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * lda + g * 4));
          const __m128i r3 =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * lda + g * 4));
          const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
          const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
          uint8_t* out = d + g * mr * 4;
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(t0, t2));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + mr * 4), _mm_unpackhi_epi64(t0, t2));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * mr * 4),
                           _mm_unpacklo_epi64(t1, t3));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * mr * 4),
                           _mm_unpackhi_epi64(t1, t3));
        }
        for (; g < full; ++g) {
          for (int q = 0; q < 4; ++q) std::memcpy(d + g * mr * 4 + q * 4, src + q * lda + g * 4, 4);
        }
        if (full < groups) {
          for (int q = 0; q < 4; ++q) {
            uint8_t* last = d + full * mr * 4 + q * 4;
            std::memset(last, 0, 4);
            std::memcpy(last, src + q * lda + full * 4, static_cast<size_t>(kc - full * 4));
          }
        }
        r += 3;  // the loop's ++r moves past the four
        continue;
      }
      if (group == 4) {  // a constant size: one 32-bit move a group, not a call to memcpy
        for (int64_t g = 0; g < full; ++g) std::memcpy(d + g * mr * 4, src + g * 4, 4);
      } else {
        for (int64_t g = 0; g < full; ++g) std::memcpy(d + g * mr * group, src + g * group, group);
      }
      if (full < groups) {
        uint8_t* last = d + full * mr * group;
        std::memset(last, 0, group);
        std::memcpy(last, src + full * group, static_cast<size_t>(kc - full * group));
      }
    }
  }
}

// Steps [p0, p0 + kc) x columns [j0, j0 + nc) of B' as slivers of nr columns, zero past the
// last column and step.
void PackB(const Int8KernelInfo& kernel, const Int8Right& b, int64_t p0, int64_t j0, int64_t kc,
           int64_t nc, uint8_t* dst) {
  const int nr = kernel.nr, group = kernel.k_group;
  const int64_t groups = (kc + group - 1) / group;
  const int64_t group_bytes = group * ElementBytes(kernel);
  const auto* data = static_cast<const uint8_t*>(b.data);
  const int flip = b.unsigned_ ? 128 : 0;
  if (kernel.element == Int8Element::kBytes && group == 4) {
    // Whole groups as 32-bit words (flipping uint8 to int8 is xor 0x80 on every byte).
    const uint32_t flip_bits = b.unsigned_ ? 0x80808080u : 0;
    const int64_t full = kc / 4;
    for (int64_t jr = 0; jr < nc; jr += nr, dst += groups * nr * 4) {
      const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
      for (int64_t g = 0; g < groups; ++g) {
        uint8_t* d = dst + g * nr * 4;
        const int64_t p = p0 + g * 4;
        int j = 0;
        if (g < full && !b.trans) {  // 16 columns at a time: 4 rows' bytes interleaved (SSE2)
          const __m128i flip_vector = _mm_set1_epi32(static_cast<int32_t>(flip_bits));
          for (; j + 16 <= cols; j += 16) {
            const uint8_t* src = data + p * b.ld + j0 + jr + j;
            const auto row = [&](int t) {
              return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + t * b.ld));
            };
            const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
            const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), lo23 = _mm_unpacklo_epi8(r2, r3);
            const __m128i hi01 = _mm_unpackhi_epi8(r0, r1), hi23 = _mm_unpackhi_epi8(r2, r3);
            const __m128i words[4] = {
                _mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
            for (int q = 0; q < 4; ++q) {
              _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (j + 4 * q) * 4),
                               _mm_xor_si128(words[q], flip_vector));
            }
          }
        }
        for (; j < cols; ++j) {
          const int64_t col = j0 + jr + j;
          uint32_t word = 0;
          if (g < full && b.trans) {
            std::memcpy(&word, data + col * b.ld + p, 4);
          } else if (g < full) {
            const uint8_t* src = data + p * b.ld + col;
            word = src[0] | uint32_t{src[b.ld]} << 8 | uint32_t{src[2 * b.ld]} << 16 |
                   uint32_t{src[3 * b.ld]} << 24;
          } else {
            for (int64_t t = 0; p + t < p0 + kc; ++t) {
              const uint8_t v = b.trans ? data[col * b.ld + p + t] : data[(p + t) * b.ld + col];
              word |= uint32_t{v} << (8 * t);
            }
          }
          // Steps past K stay zero after the flip too.
          const int64_t valid = std::min<int64_t>(4, p0 + kc - p);
          const uint32_t mask = valid >= 4 ? 0xffffffffu : (1u << (8 * valid)) - 1;
          word = (word ^ flip_bits) & mask;
          std::memcpy(d + j * 4, &word, 4);
        }
        if (cols < nr) std::memset(d + cols * 4, 0, static_cast<size_t>(nr - cols) * 4);
      }
    }
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += nr) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int j = 0; j < nr; ++j) {
        int values[4] = {0, 0, 0, 0};
        if (jr + j < nc) {
          const int64_t col = j0 + jr + j;
          for (int t = 0; t < group; ++t) {
            const int64_t p = p0 + g * group + t;
            if (p >= p0 + kc) break;
            const uint8_t raw = b.trans ? data[col * b.ld + p] : data[p * b.ld + col];
            values[t] = b.unsigned_ ? raw - flip : static_cast<int8_t>(raw);
          }
        }
        PutGroup(kernel, values, dst + (g * nr + j) * group_bytes);
      }
    }
    dst += groups * nr * group_bytes;
  }
}

// K steps per block: the blocking's, rounded to whole runs of a row source read in place (its
// StepAlignment, when that is whole groups and the kernel reads rows in place).
int64_t BlockK(const Int8Blocking& blocking, int64_t align) {
  const int group = blocking.kernel.k_group;
  if (blocking.kernel.rows_kernel == nullptr || align <= 1 || align % group != 0) {
    return blocking.kc;
  }
  return std::max(align, blocking.kc / align * align);
}

// The header of PackInt8Right's bytes; the panels follow at kPackedHeaderBytes, column block by
// column block and, within one, K block by K block: the order Gemm uses them.
struct PackedHeader {
  char magic[8];
  int32_t isa, nr, k_group, element;
  int64_t k, n, block_k, nc;
};
constexpr char kPackedMagic[8] = {'S', 'F', 'I', 'N', 'T', '8', 'P', '1'};
constexpr size_t kPackedHeaderBytes = 64;  // keeps the panels 64-byte aligned
static_assert(sizeof(PackedHeader) <= kPackedHeaderBytes, "header too large");

// Bytes of the panels of every block of a k x n operand.
size_t PanelBytes(const Int8KernelInfo& kernel, int64_t k, int64_t n, int64_t block_k, int64_t nc) {
  size_t total = 0;
  const int64_t group_bytes = kernel.k_group * ElementBytes(kernel);
  for (int64_t jc = 0; jc < n; jc += nc) {
    const int64_t slivers = (std::min(nc, n - jc) + kernel.nr - 1) / kernel.nr;
    for (int64_t pc = 0; pc < k; pc += block_k) {
      const int64_t groups = (std::min(block_k, k - pc) + kernel.k_group - 1) / kernel.k_group;
      total += static_cast<size_t>(slivers * groups * kernel.nr * group_bytes);
    }
  }
  return total;
}

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
        epilogue_(epilogue),
        group_bytes_(kernel.k_group * ElementBytes(kernel)) {}

  void Panel(const gemm::LoopPanel& panel) {
    panel_ = panel;
    groups_ = (panel.kc + kernel_.k_group - 1) / kernel_.k_group;
    sliver_b_ = groups_ * kernel_.nr * group_bytes_;
    sliver_a_ = groups_ * kernel_.mr * group_bytes_;
    block_b_ = packed_b_;
    if (next_panel_ != nullptr) {
      block_b_ = next_panel_;
      next_panel_ += (panel.nc + kernel_.nr - 1) / kernel_.nr * sliver_b_;
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
    kernels::PackB(kernel_, b_, p.pc, p.jc + s0 * nr, p.kc, std::min(p.nc, s1 * nr) - s0 * nr,
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
  const int64_t group_bytes_;
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
  PackedHeader header{};
  if (b.packed != nullptr) std::memcpy(&header, b.packed, sizeof(header));
  const int64_t block_k = b.packed != nullptr ? header.block_k : BlockK(blocking, align);
  const int64_t kc_max = std::min(block_k, (k + group - 1) / group * group);
  const int64_t nc_max = std::min(blocking.nc, (n + nr - 1) / nr * nr);
  uint8_t* packed_b = b.packed != nullptr
                          ? nullptr
                          : ScratchBytes(1, static_cast<size_t>(kc_max / group * nc_max * group *
                                                                ElementBytes(kernel)));
  const uint8_t* prepacked = b.packed != nullptr ? b.packed + kPackedHeaderBytes : nullptr;
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
      return PackRowBytes(blocking.kernel, a + i0 * lda + p0, lda, mc, kc, dst);
    }
    if (trans_a) {
      PackA(
          blocking.kernel, [&](int64_t i, int64_t p) { return a[(p0 + p) * lda + i0 + i]; }, mc, kc,
          dst);
    } else {
      PackA(
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
      return PackRowBytes(blocking.kernel, rows, kc, mc, kc, dst);
    }
    PackA(blocking.kernel, [&](int64_t i, int64_t p) { return rows[i * kc + p]; }, mc, kc, dst);
  };
  Gemm(blocking, pack_a, &source, b, m, n, k, c, ldc, row_offset, col_offset, pool, epilogue);
}

size_t Int8PackedBytes(int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment) {
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  return kPackedHeaderBytes +
         PanelBytes(blocking.kernel, k, n, BlockK(blocking, step_alignment), blocking.nc);
}

void PackInt8Right(const Int8Right& b, int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment,
                   uint8_t* dst) {
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const Int8KernelInfo& kernel = blocking.kernel;
  PackedHeader header{};
  std::memcpy(header.magic, kPackedMagic, sizeof(kPackedMagic));
  header.isa = static_cast<int32_t>(isa);
  header.nr = kernel.nr;
  header.k_group = kernel.k_group;
  header.element = static_cast<int32_t>(kernel.element);
  header.k = k;
  header.n = n;
  header.block_k = BlockK(blocking, step_alignment);
  header.nc = blocking.nc;
  std::memset(dst, 0, kPackedHeaderBytes);
  std::memcpy(dst, &header, sizeof(header));
  uint8_t* panel = dst + kPackedHeaderBytes;
  const int64_t group_bytes = kernel.k_group * ElementBytes(kernel);
  for (int64_t jc = 0; jc < n; jc += header.nc) {
    const int64_t nc = std::min(header.nc, n - jc);
    const int64_t slivers = (nc + kernel.nr - 1) / kernel.nr;
    for (int64_t pc = 0; pc < k; pc += header.block_k) {
      const int64_t kc = std::min(header.block_k, k - pc);
      PackB(kernel, b, pc, jc, kc, nc, panel);
      panel += slivers * ((kc + kernel.k_group - 1) / kernel.k_group) * kernel.nr * group_bytes;
    }
  }
}

Status CheckInt8Packed(const uint8_t* packed, size_t size, Int8Isa isa, int64_t* k, int64_t* n) {
  PackedHeader header{};
  if (size < kPackedHeaderBytes || std::memcmp(packed, kPackedMagic, sizeof(kPackedMagic)) != 0) {
    return errors::InvalidArgument("not packed 8-bit weights (", size, " bytes)");
  }
  std::memcpy(&header, packed, sizeof(header));
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const Int8KernelInfo& kernel = blocking.kernel;
  if (header.isa != static_cast<int32_t>(isa) || header.nr != kernel.nr ||
      header.k_group != kernel.k_group || header.element != static_cast<int32_t>(kernel.element)) {
    const bool known = header.isa >= 0 && header.isa < kInt8Isas;
    return errors::InvalidArgument(
        "the weights were packed for the ",
        known ? Int8IsaName(static_cast<Int8Isa>(header.isa)) : "unknown",
        " 8-bit kernel, and "
        "this product runs the ",
        Int8IsaName(isa), " one: pack them again");
  }
  if (header.nc != blocking.nc) {
    return errors::InvalidArgument("the weights were packed with column blocks of ", header.nc,
                                   ", this process uses ", blocking.nc,
                                   " (SWIGFLOW_INT8_BLOCKING): pack them again");
  }
  if (header.k < 1 || header.n < 1 || header.k > (int64_t{1} << 40) ||
      header.n > (int64_t{1} << 40) || header.block_k < header.k_group ||
      header.block_k % header.k_group != 0 ||
      size !=
          kPackedHeaderBytes + PanelBytes(kernel, header.k, header.n, header.block_k, header.nc)) {
    return errors::InvalidArgument("packed 8-bit weights are damaged or truncated (", size,
                                   " bytes)");
  }
  *k = header.k;
  *n = header.n;
  return Status::OK();
}

}  // namespace kernels
}  // namespace swigflow
