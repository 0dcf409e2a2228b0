#include "swigflow/io/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/io/crc32c_internal.h"

namespace swigflow {
namespace crc32c {
namespace {

uint32_t Of(const std::string& s) { return Value(s.data(), s.size()); }

// Bit-at-a-time reference straight from the definition (reflected polynomial 0x82F63B78).
uint32_t Reference(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(Of(""), 0u);
  EXPECT_EQ(Of("123456789"), 0xe3069283u);  // the CRC catalogue's check value
  EXPECT_EQ(Of("a"), 0xc1d04330u);
  // RFC 3720 (iSCSI) B.4 test vectors.
  EXPECT_EQ(Of(std::string(32, '\0')), 0x8a9136aau);
  EXPECT_EQ(Of(std::string(32, '\xff')), 0x62a8ab43u);
  std::string ascending(32, '\0'), descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  EXPECT_EQ(Of(ascending), 0x46dd794eu);
  EXPECT_EQ(Of(descending), 0x113fdb5cu);
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::string a = "hello ", b = "world";
  EXPECT_EQ(Extend(Of(a), b.data(), b.size()), Of(a + b));
}

TEST(Crc32cTest, MaskIsInvertibleAndChangesValue) {
  for (uint32_t crc : {0u, 1u, 0xe3069283u, 0xffffffffu, 0x80000000u}) {
    EXPECT_EQ(Unmask(Mask(crc)), crc);
    EXPECT_NE(Mask(crc), crc);
    EXPECT_NE(Mask(Mask(crc)), Mask(crc));
  }
  // TFRecord stores masked_crc32c(""): mask(0) is the delta itself.
  EXPECT_EQ(Mask(0), kMaskDelta);
}

TEST(Crc32cTest, MaskedLengthHeaderOfTFRecord) {
  // A TFRecord header for an empty payload: 8 zero bytes of length, then this masked CRC.
  const char zero_length[8] = {};
  EXPECT_EQ(Mask(Value(zero_length, 8)),
            Mask(Reference(reinterpret_cast<const uint8_t*>(zero_length), 8)));
}

TEST(Crc32cTest, DispatchReportsItsChoice) {
  const std::string impl = Implementation();
  const CpuFeatures& cpu = GetCpuFeatures();
  EXPECT_EQ(impl, cpu.sse42 && cpu.vpclmulqdq ? "avx512-vpclmulqdq"
                  : cpu.sse42                 ? "sse4.2"
                                              : "portable");
}

// Every length 0..800 (each block size's loop, 3 x 64 and 3 x 256 bytes) at every alignment 0..7:
// both implementations agree with the reference.
TEST(Crc32cTest, ImplementationsMatchReferenceOnRandomBuffers) {
  std::mt19937 rng(20261121);
  std::vector<uint8_t> storage(800 + 8 + 8);
  for (auto& byte : storage) byte = static_cast<uint8_t>(rng());
  for (size_t align = 0; align < 8; ++align) {
    for (size_t n = 0; n <= 800; ++n) {
      const uint8_t* p = storage.data() + align;
      const char* data = reinterpret_cast<const char*>(p);
      const uint32_t expected = Reference(p, n);
      ASSERT_EQ(internal::ExtendPortable(0, data, n), expected) << "n=" << n << " align=" << align;
      if (GetCpuFeatures().sse42) {
        ASSERT_EQ(internal::ExtendSse42(0, data, n), expected) << "n=" << n << " align=" << align;
      }
      ASSERT_EQ(Value(data, n), expected);
    }
  }
}

// Lengths around the three-stream block sizes (3 x 64, 3 x 256 and 3 x 4096 bytes) and far
// beyond.
TEST(Crc32cTest, LongInputsMatchReference) {
  std::mt19937 rng(11);
  std::vector<uint8_t> storage(3 * 3 * 4096 + 64 + 8);  // + 8: room for the largest alignment
  for (auto& byte : storage) byte = static_cast<uint8_t>(rng());
  std::vector<size_t> lengths = {767,
                                 768,
                                 769,
                                 1024,
                                 1535,
                                 1536,
                                 12287,
                                 12288,
                                 12289,
                                 12288 + 768,
                                 2 * 12288 + 767,
                                 3 * 12288 + 63,
                                 511,
                                 512,
                                 513,
                                 767 + 256,
                                 4 * 256,
                                 4 * 256 + 255};
  for (int i = 0; i < 40; ++i) lengths.push_back(rng() % (storage.size() - 8));
  for (size_t n : lengths) {
    for (size_t align : {0, 3}) {
      const uint8_t* p = storage.data() + align;
      const char* data = reinterpret_cast<const char*>(p);
      const uint32_t expected = Reference(p, n);
      ASSERT_EQ(internal::ExtendPortable(0, data, n), expected) << "n=" << n;
      if (GetCpuFeatures().sse42) {
        ASSERT_EQ(internal::ExtendSse42(0, data, n), expected) << "n=" << n;
        ASSERT_EQ(internal::ExtendSse42(0x12345678u, data, n),
                  internal::ExtendPortable(0x12345678u, data, n))
            << "n=" << n;
      }
      if (GetCpuFeatures().sse42 && GetCpuFeatures().vpclmulqdq) {
        ASSERT_EQ(internal::ExtendAvx512(0, data, n), expected) << "n=" << n;
        ASSERT_EQ(internal::ExtendAvx512(0x12345678u, data, n),
                  internal::ExtendPortable(0x12345678u, data, n))
            << "n=" << n;
      }
    }
  }
}

TEST(Crc32cTest, ImplementationsAgreeWhenExtendingInPieces) {
  std::mt19937 rng(7);
  std::string data(4096, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t whole = Of(data);
  for (size_t cut : {0, 1, 7, 8, 9, 1000, 4095, 4096}) {
    EXPECT_EQ(internal::ExtendPortable(internal::ExtendPortable(0, data.data(), cut),
                                       data.data() + cut, data.size() - cut),
              whole);
    if (GetCpuFeatures().sse42) {
      EXPECT_EQ(internal::ExtendSse42(internal::ExtendPortable(0, data.data(), cut),
                                      data.data() + cut, data.size() - cut),
                whole);
    }
    if (GetCpuFeatures().sse42 && GetCpuFeatures().vpclmulqdq) {
      EXPECT_EQ(internal::ExtendAvx512(internal::ExtendPortable(0, data.data(), cut),
                                       data.data() + cut, data.size() - cut),
                whole);
    }
  }
}

}  // namespace
}  // namespace crc32c
}  // namespace swigflow
