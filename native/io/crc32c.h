// CRC-32C (Castagnoli), the checksum of TFRecord framing.
//
// Extend() picks, once per process, the SSE4.2 crc32 instruction when the CPU has it and a
// portable table-driven loop otherwise; both give identical results.
#ifndef SWIGFLOW_IO_CRC32C_H_
#define SWIGFLOW_IO_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace swigflow {
namespace crc32c {

// The CRC-32C of A + data[0, n) where `init_crc` is the CRC-32C of A (0 for empty A).
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// The CRC-32C of data[0, n).
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// TFRecord stores masked CRCs: a CRC computed over data that itself embeds CRCs is weak, so the
// stored value is rotated right by 15 bits and offset by a constant.
constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

inline uint32_t Unmask(uint32_t masked_crc) {
  const uint32_t rotated = masked_crc - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

// "sse4.2" or "portable": the implementation Extend() uses in this process.
const char* Implementation();

}  // namespace crc32c
}  // namespace swigflow

#endif  // SWIGFLOW_IO_CRC32C_H_
