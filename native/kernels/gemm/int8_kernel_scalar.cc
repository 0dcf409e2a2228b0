// Portable 8-bit micro-kernel, 4 x 8: the reference the vector kernels must match exactly.
#include <cstdint>

#include "swigflow/kernels/gemm/int8_micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 4, kNr = 8, kGroup = 4;

void Kernel(int64_t groups, const void* a_data, const void* b_data, int32_t* c, int64_t ldc,
            int rows, int cols, bool accumulate, const int32_t* row_offset,
            const int32_t* col_offset) {
  const auto* a = static_cast<const uint8_t*>(a_data);
  const auto* b = static_cast<const int8_t*>(b_data);
  // Unsigned sums wrap like the vector kernels' (signed overflow would be undefined).
  uint32_t acc[kMr][kNr] = {};
  for (int64_t g = 0; g < groups; ++g, a += kMr * kGroup, b += kNr * kGroup) {
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kNr; ++j) {
        int32_t dot = 0;  // at most 4 * 255 * 128 in magnitude
        for (int t = 0; t < kGroup; ++t) dot += a[i * kGroup + t] * b[j * kGroup + t];
        acc[i][j] += static_cast<uint32_t>(dot);
      }
    }
  }
  for (int i = 0; i < rows; ++i) {
    int32_t sums[kNr];
    for (int j = 0; j < kNr; ++j) sums[j] = static_cast<int32_t>(acc[i][j]);
    StoreInt8Row(sums, c + i * ldc, cols, accumulate, row_offset ? row_offset[i] : 0, col_offset);
  }
}

}  // namespace

Int8KernelInfo ScalarInt8Kernel() {
  return {"scalar", kMr, kNr, kGroup, Int8Element::kBytes, Kernel};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
