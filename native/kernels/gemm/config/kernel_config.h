// Per-microarchitecture configuration of the FP32 kernels, in the manner of BLIS: the micro-kernel
// (mr x nr, the only ISA-specific code) comes from the instruction set; cache blocking, prefetch
// distances and the convolution strategy thresholds come from a config named after the
// microarchitecture it was tuned on, chosen at run time from CPUID.
//
// Choice, in order:
//   1. SWIGFLOW_GEMM_BLOCKING=mc,kc,nc (bench/gemm_sweep.py sets it to try blockings;
//      SWIGFLOW_INT8_BLOCKING for the 8-bit GEMM);
//   2. the named config matching the CPU's vendor/family/model, if it was tuned for the selected
//      ISA's micro-kernel;
//   3. "generic": blocking derived from the cache sizes CPUID reports (DeriveConfig).
#ifndef SWIGFLOW_KERNELS_GEMM_CONFIG_KERNEL_CONFIG_H_
#define SWIGFLOW_KERNELS_GEMM_CONFIG_KERNEL_CONFIG_H_

#include <cstdint>
#include <string>

#include "swigflow/framework/cpu_info.h"

namespace swigflow {
namespace kernels {

struct KernelConfig {
  std::string name;        // "zen4", ..., "generic"
  std::string source;      // "cpuid" (a named config), "caches" (derived) or "environment"
  Isa isa = Isa::kScalar;  // the micro-kernel the numbers below are for
  // Cache blocking (BLIS's names): a kc x nr sliver of packed B stays in L1 while mr-row
  // slivers of the mc x kc block of packed A stream from L2; the kc x nc panel of packed B,
  // shared by the threads, lives in L2/L3. mc and nc are multiples of mr and nr.
  int64_t mc = 0, kc = 0, nc = 0;
  // The 8-bit GEMM's blocking on the same vector ISA, in elements; 0 derives it from the FP32
  // blocking above (blocks of the same bytes).
  int64_t int8_mc = 0, int8_kc = 0, int8_nc = 0;
  // Convolutions: below `few_channels` channels a tap's run of K is too short to fill register
  // tiles (the RGB stem), so the direct paths are not used; the direct forward path also wants
  // output rows to fill at least `min_row_fill_pct` percent of their mr-pixel tiles.
  int64_t few_channels = 16;
  int min_row_fill_pct = 90;
};

// The element types the GEMMs are blocked for, each with its own environment variable.
enum class GemmType { kFp32 = 0, kInt8 = 1 };

// A blocking in elements: at most mc rows of A, kc K steps, nc columns of B per block.
struct Blocking {
  int64_t mc = 0, kc = 0, nc = 0;
};

// The environment's blocking for `type`'s GEMM (SWIGFLOW_GEMM_BLOCKING, SWIGFLOW_INT8_BLOCKING):
// its value, null when unset. The only place the kernels read the environment for blocking.
const char* BlockingEnvironment(GemmType type);

// "mc,kc,nc" with each in [1, type's limit] into *blocking; false (untouched) otherwise. The one
// parser of every GEMM's variable.
bool ParseBlocking(GemmType type, const char* text, Blocking* blocking);

// The config for `isa`'s micro-kernel (mr x nr) on `cpu`: the named config, else one derived
// from cpu.caches; `environment` is SWIGFLOW_GEMM_BLOCKING's value (null or empty when unset;
// malformed or out-of-range values are ignored). kernels::ConfigFor(isa) (gemm.h) is this for
// the running machine, read once.
KernelConfig ChooseConfig(const CpuModel& cpu, Isa isa, int mr, int nr, const char* environment);

// Blocking derived from cache sizes (missing sizes are taken as 32 KiB, 1 MiB and 8 MiB).
KernelConfig DeriveConfig(const CpuCaches& caches, Isa isa, int mr, int nr);

// What the 8-bit blocking needs of a micro-kernel (gemm::Int8KernelInfo).
struct Int8Tile {
  int mr = 1, nr = 1;
  int k_group = 1;        // K steps packed together
  int element_bytes = 1;  // 1 (bytes) or 2 (widened to int16)
};

// The 8-bit GEMM's blocking for `tile` on the vector ISA whose FP32 config is `fp32` (its
// micro-kernel fp32_nr columns wide): `environment` (SWIGFLOW_INT8_BLOCKING's value) when well
// formed, else the named config's int8_*, else the FP32 blocking's bytes (an 8-bit sliver of the
// same bytes holds 4x the steps). Rounded to whole groups of K and whole slivers.
Blocking Int8BlockingOf(const KernelConfig& fp32, int fp32_nr, const Int8Tile& tile,
                        const char* environment);

// Named configs (one file each).
KernelConfig Zen4Config();
KernelConfig Zen5Config();

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_CONFIG_KERNEL_CONFIG_H_
