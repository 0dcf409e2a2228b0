// Compiled with -msse4.2 (see BUILD); nothing here runs unless GetCpuFeatures().sse42 said yes.
//
// The crc32 instruction has a latency of three cycles but can start one per cycle, so long inputs
// are cut into three consecutive blocks of L bytes whose CRCs are computed at once and then
// combined: CRC-ing a register r over L further bytes b equals shift_L(r) ^ crc_from_zero(b),
// where shift_L multiplies by x^(8L) modulo the polynomial. shift_L is linear, so it is four
// table lookups (one per byte of r), tables built at compile time.
#include <nmmintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "swigflow/io/crc32c_internal.h"

namespace swigflow {
namespace crc32c {
namespace internal {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78u;  // reflected: bit 31 is x^0

// a * b modulo the polynomial, in the reflected representation.
constexpr uint32_t MultModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
    if (a & bit) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kPolynomial : b >> 1;
  }
  return product;
}

// x^(8 * bytes) modulo the polynomial: the effect of `bytes` zero bytes on a CRC register.
constexpr uint32_t ZerosOperator(uint64_t bytes) {
  uint32_t result = 1u << 31;  // x^0
  uint32_t power = 1u << 23;   // x^8, one zero byte
  for (; bytes != 0; bytes >>= 1) {
    if (bytes & 1) result = MultModP(result, power);
    power = MultModP(power, power);
  }
  return result;
}

using ShiftTable = std::array<std::array<uint32_t, 256>, 4>;

constexpr ShiftTable MakeShiftTable(uint64_t bytes) {
  const uint32_t op = ZerosOperator(bytes);
  ShiftTable table{};
  for (int j = 0; j < 4; ++j) {
    for (uint32_t b = 0; b < 256; ++b) table[j][b] = MultModP(op, b << (8 * j));
  }
  return table;
}

// Three sizes, so that a typical record of a few hundred bytes is mostly CRC-ed three ways too.
constexpr size_t kLongBlock = 4096;
constexpr size_t kShortBlock = 256;
constexpr size_t kTinyBlock = 64;
constexpr ShiftTable kShiftLong = MakeShiftTable(kLongBlock);
constexpr ShiftTable kShiftShort = MakeShiftTable(kShortBlock);
constexpr ShiftTable kShiftTiny = MakeShiftTable(kTinyBlock);

inline uint32_t Shift(const ShiftTable& table, uint32_t crc) {
  return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^ table[2][(crc >> 16) & 0xff] ^
         table[3][crc >> 24];
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

// Consumes 3 * kBlock bytes at *p into `crc` (a register value, not inverted).
template <size_t kBlock>
inline uint32_t ThreeStreams(uint32_t crc, const uint8_t* p, const ShiftTable& shift) {
  uint64_t a = crc, b = 0, c = 0;
  for (size_t i = 0; i < kBlock; i += 8) {
    a = _mm_crc32_u64(a, Load64(p + i));
    b = _mm_crc32_u64(b, Load64(p + kBlock + i));
    c = _mm_crc32_u64(c, Load64(p + 2 * kBlock + i));
  }
  return Shift(shift, Shift(shift, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
         static_cast<uint32_t>(c);
}

}  // namespace

uint32_t ExtendSse42(uint32_t init_crc, const char* data, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  uint32_t crc = ~init_crc;
  for (; n >= 3 * kLongBlock; n -= 3 * kLongBlock, p += 3 * kLongBlock) {
    crc = ThreeStreams<kLongBlock>(crc, p, kShiftLong);
  }
  for (; n >= 3 * kShortBlock; n -= 3 * kShortBlock, p += 3 * kShortBlock) {
    crc = ThreeStreams<kShortBlock>(crc, p, kShiftShort);
  }
  for (; n >= 3 * kTinyBlock; n -= 3 * kTinyBlock, p += 3 * kTinyBlock) {
    crc = ThreeStreams<kTinyBlock>(crc, p, kShiftTiny);
  }
  uint64_t tail = crc;
  for (; n >= 8; n -= 8, p += 8) tail = _mm_crc32_u64(tail, Load64(p));
  crc = static_cast<uint32_t>(tail);
  for (; n > 0; --n, ++p) crc = _mm_crc32_u8(crc, *p);
  return ~crc;
}

}  // namespace internal
}  // namespace crc32c
}  // namespace swigflow
