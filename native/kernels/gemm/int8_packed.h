// The format of 8-bit weights packed once (PackInt8Right, int8_gemm.h): a header of
// kPackedHeaderBytes naming the kernel and blocking they were made for, then B's panels in the
// order the loops use them (gemm::ForEachPanel), each as the driver would pack it.
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_PACKED_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_PACKED_H_

#include <cstddef>
#include <cstdint>

namespace swigflow {
namespace kernels {
namespace int8 {

constexpr size_t kPackedHeaderBytes = 64;  // keeps the panels 64-byte aligned

// The K block the panels of `packed` (checked by CheckInt8Packed) were made with.
int64_t PackedBlockK(const uint8_t* packed);

// Their first panel.
inline const uint8_t* PackedPanels(const uint8_t* packed) { return packed + kPackedHeaderBytes; }

}  // namespace int8
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_PACKED_H_
