// AVX-VNNI 8-bit micro-kernel (the VEX-encoded vpdpbusd of Alder Lake, Sapphire Rapids and Zen 5):
// the AVX2 tile with 32 multiply-adds an instruction on the bytes. Compiled with -mavx2
// -mavxvnni (see BUILD).
#include <cstdint>

#include "swigflow/kernels/gemm/int8_tile_avx2.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

struct VnniDot {
  static constexpr int kGroup = 4;
  static __m256i Dot(__m256i acc, __m256i a, __m256i b) {
    return _mm256_dpbusd_avx_epi32(acc, a, b);
  }
};

}  // namespace

Int8KernelInfo AvxVnniInt8Kernel() {
  return {"avx_vnni",      kAvx2Int8Mr,         kAvx2Int8Nr,
          VnniDot::kGroup, Int8Element::kBytes, (Avx2Int8Tile<VnniDot, int8_t>)};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
