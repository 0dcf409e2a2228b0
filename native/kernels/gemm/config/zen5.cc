// AMD Zen 5 (family 1Ah): 48 KiB L1d and 1 MiB L2 per core, 32 MiB L3 per CCD; 512-bit FMAs at
// full width (64 FLOP/cycle per core, as the FMA probe measures on EPYC model 02h).
// Measured by bench/gemm_sweep.py; its output is bench/configs/zen5.txt. The 8-bit GEMM's
// blocking is derived from this one (the same bytes) until int8_bench is swept here.
#include "swigflow/kernels/gemm/config/kernel_config.h"

namespace swigflow {
namespace kernels {

KernelConfig Zen5Config() {
  KernelConfig c;
  c.name = "zen5";
  c.source = "cpuid";
  c.isa = Isa::kAvx512;
  c.mc = 378;  // 27 slivers of 14 rows (the sweep's 384, in whole slivers)
  c.kc = 1024;
  c.nc = 3072;
  return c;
}

}  // namespace kernels
}  // namespace swigflow
