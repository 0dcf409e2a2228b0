// Compiled with -msse4.2 (see BUILD); nothing here runs unless Sse42Supported() said yes.
#include <nmmintrin.h>

#include <cstdint>
#include <cstring>

#include "swigflow/io/crc32c_internal.h"

namespace swigflow {
namespace crc32c {
namespace internal {

uint32_t ExtendSse42(uint32_t init_crc, const char* data, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  uint64_t crc = ~init_crc;
  // Bytes until p is 8-aligned, so the main loop's loads never straddle a cache line.
  for (; n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0; --n, ++p) {
    crc = _mm_crc32_u8(static_cast<uint32_t>(crc), *p);
  }
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    crc = _mm_crc32_u64(crc, word);
  }
  for (; n > 0; --n, ++p) crc = _mm_crc32_u8(static_cast<uint32_t>(crc), *p);
  return ~static_cast<uint32_t>(crc);
}

bool Sse42Supported() { return __builtin_cpu_supports("sse4.2"); }

}  // namespace internal
}  // namespace crc32c
}  // namespace swigflow
