#include "swigflow/kernels/gemm/int8_packed.h"

#include <cstdint>
#include <cstring>

#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/gemm/int8_pack.h"
#include "swigflow/kernels/gemm/loops.h"

namespace swigflow {
namespace kernels {
namespace int8 {
namespace {

struct PackedHeader {
  char magic[8];
  int32_t isa, nr, k_group, element;
  int64_t k, n, block_k, nc;
};
constexpr char kPackedMagic[8] = {'S', 'F', 'I', 'N', 'T', '8', 'P', '1'};
static_assert(sizeof(PackedHeader) <= kPackedHeaderBytes, "header too large");

// The loops' sizes over a packing's panels.
gemm::LoopSizes PanelSizes(int64_t block_k, int64_t nc) {
  gemm::LoopSizes sizes;
  sizes.kc = block_k;
  sizes.nc = nc;
  return sizes;
}

// Bytes of the panels of every block of a k x n operand.
size_t PanelsBytes(const Int8KernelInfo& kernel, int64_t k, int64_t n, int64_t block_k,
                   int64_t nc) {
  size_t total = 0;
  gemm::ForEachPanel(PanelSizes(block_k, nc), n, 0, k, [&](const gemm::LoopPanel& panel) {
    total += static_cast<size_t>(PanelBytes(kernel, panel.kc, panel.nc));
  });
  return total;
}

}  // namespace

int64_t PackedBlockK(const uint8_t* packed) {
  PackedHeader header;
  std::memcpy(&header, packed, sizeof(header));
  return header.block_k;
}

}  // namespace int8

size_t Int8PackedBytes(int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment) {
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  return int8::kPackedHeaderBytes + int8::PanelsBytes(blocking.kernel, k, n,
                                                      int8::BlockK(blocking, step_alignment),
                                                      blocking.nc);
}

void PackInt8Right(const Int8Right& b, int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment,
                   uint8_t* dst) {
  using int8::kPackedHeaderBytes;
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const gemm::Int8KernelInfo& kernel = blocking.kernel;
  int8::PackedHeader header{};
  std::memcpy(header.magic, int8::kPackedMagic, sizeof(int8::kPackedMagic));
  header.isa = static_cast<int32_t>(isa);
  header.nr = kernel.nr;
  header.k_group = kernel.k_group;
  header.element = static_cast<int32_t>(kernel.element);
  header.k = k;
  header.n = n;
  header.block_k = int8::BlockK(blocking, step_alignment);
  header.nc = blocking.nc;
  std::memset(dst, 0, kPackedHeaderBytes);
  std::memcpy(dst, &header, sizeof(header));
  uint8_t* panel = dst + kPackedHeaderBytes;
  gemm::ForEachPanel(int8::PanelSizes(header.block_k, header.nc), n, 0, k,
                     [&](const gemm::LoopPanel& p) {
                       int8::PackB(kernel, b, p.pc, p.jc, p.kc, p.nc, panel);
                       panel += int8::PanelBytes(kernel, p.kc, p.nc);
                     });
}

Status CheckInt8Packed(const uint8_t* packed, size_t size, Int8Isa isa, int64_t* k, int64_t* n) {
  int8::PackedHeader header{};
  if (size < int8::kPackedHeaderBytes ||
      std::memcmp(packed, int8::kPackedMagic, sizeof(int8::kPackedMagic)) != 0) {
    return errors::InvalidArgument("not packed 8-bit weights (", size, " bytes)");
  }
  std::memcpy(&header, packed, sizeof(header));
  const Int8Blocking& blocking = Int8BlockingFor(isa);
  const gemm::Int8KernelInfo& kernel = blocking.kernel;
  if (header.isa != static_cast<int32_t>(isa) || header.nr != kernel.nr ||
      header.k_group != kernel.k_group || header.element != static_cast<int32_t>(kernel.element)) {
    const bool known = header.isa >= 0 && header.isa <= static_cast<int32_t>(Int8Isa::kAvx512Vnni);
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
      size != int8::kPackedHeaderBytes +
                  int8::PanelsBytes(kernel, header.k, header.n, header.block_k, header.nc)) {
    return errors::InvalidArgument("packed 8-bit weights are damaged or truncated (", size,
                                   " bytes)");
  }
  *k = header.k;
  *n = header.n;
  return Status::OK();
}

}  // namespace kernels
}  // namespace swigflow
