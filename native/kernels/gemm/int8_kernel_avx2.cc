// AVX2 8-bit micro-kernel without VNNI: both operands packed widened to int16, two steps a
// group, multiplied and pair-summed exactly by vpmaddwd (16 multiply-adds an instruction).
// vpmaddubsw would do 32 on the bytes but saturates its int16 pair sums (255 * 127 * 2 > 32767),
// so its results would differ from the other kernels'. Compiled with -mavx2 (see BUILD).
#include <cstdint>

#include "swigflow/kernels/gemm/int8_tile_avx2.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

struct MaddDot {
  static constexpr int kGroup = 2;
  static __m256i Dot(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  }
};

}  // namespace

Int8KernelInfo Avx2Int8Kernel() {
  return {"avx2",          kAvx2Int8Mr,         kAvx2Int8Nr,
          MaddDot::kGroup, Int8Element::kInt16, (Avx2Int8Tile<MaddDot, int16_t>)};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
