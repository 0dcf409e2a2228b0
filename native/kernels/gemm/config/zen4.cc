// AMD Zen 4 (family 19h with AVX-512): 32 KiB L1d and 1 MiB L2 per core, 32 MiB L3 per CCD;
// 512-bit FMAs issue as two 256-bit halves (32 FLOP/cycle per core, as the FMA probe measures).
// Measured by bench/gemm_sweep.py; its output is bench/configs/zen4.txt.
#include "swigflow/kernels/gemm/config/kernel_config.h"

namespace swigflow {
namespace kernels {

KernelConfig Zen4Config() {
  KernelConfig c;
  c.name = "zen4";
  c.source = "cpuid";
  c.isa = Isa::kAvx512;
  c.mc = 238;  // 17 slivers of 14 rows
  c.kc = 1024;
  c.nc = 1536;
  // bench/int8_bench.py's best, found with the bytes of the earlier FP32 blocking (238, 512,
  // 2048): a u8 sliver of 2048 steps is the 64 KiB of a 512-step FP32 one.
  c.int8_mc = 238;
  c.int8_kc = 2048;
  c.int8_nc = 2048;
  return c;
}

}  // namespace kernels
}  // namespace swigflow
