// Which 8-bit micro-kernel runs for an ISA on this machine, and its cache blocking.
#include <mutex>  // NOLINT(build/c++11): call_once
#include <vector>

#include "swigflow/kernels/gemm/config/kernel_config.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/gemm/int8_pack.h"

namespace swigflow {
namespace kernels {
namespace {

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
    const Int8KernelInfo kernel = KernelOf(isa);
    const Int8Tile tile{kernel.mr, kernel.nr, kernel.k_group, int8::ElementBytes(kernel)};
    const Blocking b = Int8BlockingOf(ConfigFor(VectorIsaOf(isa)), KernelFor(VectorIsaOf(isa)).nr,
                                      tile, BlockingEnvironment(GemmType::kInt8));
    blockings[i] = new Int8Blocking{kernel, b.mc, b.kc, b.nc};
  });
  return *blockings[i];
}

}  // namespace kernels
}  // namespace swigflow
