#include "swigflow/io/crc32c.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/io/crc32c_internal.h"

namespace swigflow {
namespace crc32c {
namespace internal {
namespace {

// Reflected Castagnoli polynomial.
constexpr uint32_t kPolynomial = 0x82f63b78u;

// kTables[0][b] is the CRC of byte b; kTables[k][b] is the CRC of byte b followed by k zero
// bytes, which lets one step fold eight input bytes with eight independent lookups.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1u)));
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = t[k - 1][b];
      t[k][b] = (prev >> 8) ^ t[0][prev & 0xff];
    }
  }
  return t;
}

constexpr Tables kTables = MakeTables();

// Little-endian 32-bit load from bytes, whatever the host's byte order.
inline uint32_t LoadLE32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

}  // namespace

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  uint32_t crc = ~init_crc;
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t lo = LoadLE32(p) ^ crc;
    const uint32_t hi = LoadLE32(p + 4);
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) crc = kTables[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}

}  // namespace internal

namespace {

using ExtendFn = uint32_t (*)(uint32_t, const char*, size_t);

ExtendFn Chosen() {
  static const ExtendFn fn = [] {
    const CpuFeatures& cpu = GetCpuFeatures();
    if (cpu.sse42 && cpu.vpclmulqdq) return internal::ExtendAvx512;
    return cpu.sse42 ? internal::ExtendSse42 : internal::ExtendPortable;
  }();
  return fn;
}

}  // namespace

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  return Chosen()(init_crc, data, n);
}

const char* Implementation() {
  if (Chosen() == internal::ExtendAvx512) return "avx512-vpclmulqdq";
  return Chosen() == internal::ExtendSse42 ? "sse4.2" : "portable";
}

}  // namespace crc32c
}  // namespace swigflow
