// The 8-bit GEMM against a plain int64 reference reduced modulo 2^32: every kernel this machine
// has, transposes, uint8 and int8 right operands, zero-point terms, blocking edges, and 1 vs 2
// threads, which must all give identical integers.
#include "swigflow/kernels/gemm/int8_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace kernels {
namespace {

struct Case {
  int64_t m, n, k;
  bool trans_a, trans_b, b_unsigned;
};

// sum(a * b') + row[i] + col[j] modulo 2^32, b' = b - 128 for uint8 storage.
std::vector<int32_t> Reference(const Case& c, const std::vector<uint8_t>& a,
                               const std::vector<uint8_t>& b, const std::vector<int32_t>& row,
                               const std::vector<int32_t>& col) {
  std::vector<int32_t> out(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      int64_t sum = int64_t{row[i]} + col[j];
      for (int64_t p = 0; p < c.k; ++p) {
        const int av = c.trans_a ? a[p * c.m + i] : a[i * c.k + p];
        const uint8_t raw = c.trans_b ? b[j * c.k + p] : b[p * c.n + j];
        const int bv = c.b_unsigned ? raw - 128 : static_cast<int8_t>(raw);
        sum += int64_t{av} * bv;
      }
      out[i * c.n + j] = static_cast<int32_t>(static_cast<uint32_t>(sum));
    }
  }
  return out;
}

class Int8GemmTest : public ::testing::TestWithParam<std::tuple<Case, int>> {};

TEST_P(Int8GemmTest, EveryKernelMatchesTheReference) {
  const Case c = std::get<0>(GetParam());
  const int threads = std::get<1>(GetParam());
  std::mt19937 rng(static_cast<uint32_t>(c.m * 131 + c.n * 7 + c.k));
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n));
  for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
  for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
  // Extreme values at the ends stress exactness (255 * -128 products).
  if (c.k > 0) {
    a[0] = 255;
    b[0] = c.b_unsigned ? 0 : 128;
  }
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> row(static_cast<size_t>(c.m)), col(static_cast<size_t>(c.n));
  for (auto& v : row) v = any(rng);
  for (auto& v : col) v = any(rng);
  const std::vector<int32_t> expected = Reference(c, a, b, row, col);
  ThreadPool pool(threads);
  for (Int8Isa isa : SupportedInt8Isas()) {
    SCOPED_TRACE(Int8IsaName(isa));
    std::vector<int32_t> out(static_cast<size_t>(c.m * c.n), 7);
    const Int8Right rhs{b.data(), c.trans_b ? c.k : c.n, c.trans_b, c.b_unsigned};
    GemmU8S8(c.trans_a, c.m, c.n, c.k, a.data(), c.trans_a ? c.m : c.k, rhs, out.data(), c.n,
             row.data(), col.data(), isa, &pool);
    ASSERT_EQ(out, expected);
    // Without zero-point terms.
    std::vector<int32_t> plain(out.size());
    GemmU8S8(c.trans_a, c.m, c.n, c.k, a.data(), c.trans_a ? c.m : c.k, rhs, plain.data(), c.n,
             nullptr, nullptr, isa, &pool);
    for (size_t i = 0; i < out.size(); ++i) {
      const uint32_t terms =
          static_cast<uint32_t>(row[i / c.n]) + static_cast<uint32_t>(col[i % c.n]);
      ASSERT_EQ(static_cast<uint32_t>(plain[i]) + terms, static_cast<uint32_t>(expected[i])) << i;
    }
    if (c.k == 0) continue;
    // B packed once gives the same integers.
    std::vector<uint8_t> packed(Int8PackedBytes(c.k, c.n, isa));
    PackInt8Right(rhs, c.k, c.n, isa, 1, packed.data());
    int64_t k = 0, n = 0;
    ASSERT_TRUE(CheckInt8Packed(packed.data(), packed.size(), isa, &k, &n).ok());
    EXPECT_EQ(k, c.k);
    EXPECT_EQ(n, c.n);
    Int8Right prepacked{nullptr, 0, false, false, packed.data()};
    std::fill(out.begin(), out.end(), 7);
    GemmU8S8(c.trans_a, c.m, c.n, c.k, a.data(), c.trans_a ? c.m : c.k, prepacked, out.data(), c.n,
             row.data(), col.data(), isa, &pool);
    ASSERT_EQ(out, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Int8GemmTest,
    ::testing::Combine(::testing::Values(Case{1, 1, 1, false, false, false},
                                         Case{3, 5, 7, false, false, true},
                                         Case{14, 32, 4, false, true, false},
                                         Case{15, 33, 5, true, false, true},
                                         Case{29, 65, 131, true, true, false},
                                         Case{97, 61, 2053, false, false, true},
                                         Case{300, 270, 2100, false, true, true},
                                         Case{64, 3000, 64, false, false, false},
                                         Case{33, 17, 0, false, false, true}),
                       ::testing::Values(1, 2)));

// A left operand given as rows and as runs read in place: row-major m x k bytes whose K steps
// come in runs of `width` (an im2col source's taps). RowRuns declines widths that are not whole
// groups, so those take the packing path. Even rows give an origin and the shared offsets, odd
// rows origin 0 and a table of addresses (both forms of Int8RowRuns).
class RunSource : public Int8RowSource {
 public:
  RunSource(const std::vector<uint8_t>& a, int64_t k, int64_t width) : a_(a), k_(k), width_(width) {
    for (int64_t p = 0; p < k; p += width) run_offsets_.push_back(p);
  }
  void Rows(int64_t i0, int64_t rows, int64_t p0, int64_t kc, uint8_t* dst,
            int64_t ld) const override {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t p = 0; p < kc; ++p) dst[r * ld + p] = a_[(i0 + r) * k_ + p0 + p];
    }
  }
  bool RowRuns(int64_t i0, int rows, int64_t p0, int64_t kc, int mr, const Int8RunsSlot& slot,
               gemm::Int8RowRuns* runs) const override {
    if (width_ % 4 != 0 || p0 % width_ != 0 || kc % width_ != 0) return false;
    const int64_t count = kc / width_;
    for (int r = 0; r < rows; ++r) {
      const uint8_t* row = a_.data() + (i0 + r) * k_ + p0;
      if (r % 2 == 0) {
        slot.origins[r] = reinterpret_cast<uintptr_t>(row);
        slot.offsets[r] = run_offsets_.data();
      } else {
        int64_t* table = slot.tables + r * count;
        for (int64_t t = 0; t < count; ++t) {
          table[t] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(row + t * width_));
        }
        slot.origins[r] = 0;
        slot.offsets[r] = table;
      }
    }
    *runs = {slot.origins, slot.offsets, static_cast<int>(count), width_ / 4};
    return true;
  }
  int64_t StepAlignment() const override { return width_; }

 private:
  const std::vector<uint8_t>& a_;
  int64_t k_, width_;
  std::vector<int64_t> run_offsets_;  // run t at t * width_
};

// Runs read in place (the AVX-512 VNNI rows kernel) and packed (every other kernel) match the
// reference: tile tails, several K blocks whose size rounds to whole runs (width 100 does not
// divide the blocking's kc), a width that is not whole groups, 1 and 2 threads.
TEST(Int8Gemm, RowSourcesInPlaceAndPacked) {
  for (const auto& [m, n, width, runs] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {1, 1, 4, 1}, {15, 33, 64, 9}, {97, 61, 100, 25}, {29, 70, 6, 7}}) {
    const int64_t k = width * runs;
    const Case c{m, n, k, false, false, false};
    std::mt19937 rng(static_cast<uint32_t>(m * 31 + width));
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<uint8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
    for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
    for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
    std::vector<int32_t> row(static_cast<size_t>(m), 5), col(static_cast<size_t>(n), -3);
    const std::vector<int32_t> expected = Reference(c, a, b, row, col);
    const RunSource source(a, k, width);
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      for (Int8Isa isa : SupportedInt8Isas()) {
        SCOPED_TRACE(std::string(Int8IsaName(isa)) + " width " + std::to_string(width));
        std::vector<int32_t> out(static_cast<size_t>(m * n), 7);
        GemmU8S8(source, m, n, k, Int8Right{b.data(), n, false, false}, out.data(), n, row.data(),
                 col.data(), isa, &pool);
        ASSERT_EQ(out, expected);
        // B packed once, for this source's runs.
        std::vector<uint8_t> packed(Int8PackedBytes(k, n, isa, width));
        PackInt8Right(Int8Right{b.data(), n, false, false}, k, n, isa, width, packed.data());
        std::fill(out.begin(), out.end(), 7);
        GemmU8S8(source, m, n, k, Int8Right{nullptr, 0, false, false, packed.data()}, out.data(), n,
                 row.data(), col.data(), isa, &pool);
        ASSERT_EQ(out, expected);
      }
    }
  }
}

TEST(Int8Gemm, PackedWeightsAreChecked) {
  const int64_t k = 37, n = 21;
  std::vector<uint8_t> b(static_cast<size_t>(k * n), 3);
  const std::vector<Int8Isa> isas = SupportedInt8Isas();
  for (Int8Isa isa : isas) {
    std::vector<uint8_t> packed(Int8PackedBytes(k, n, isa));
    PackInt8Right(Int8Right{b.data(), n, false, false}, k, n, isa, 1, packed.data());
    int64_t pk = 0, pn = 0;
    EXPECT_TRUE(CheckInt8Packed(packed.data(), packed.size(), isa, &pk, &pn).ok());
    const Status truncated = CheckInt8Packed(packed.data(), packed.size() - 1, isa, &pk, &pn);
    EXPECT_NE(truncated.message().find("damaged or truncated"), std::string::npos)
        << truncated.message();
    for (Int8Isa other : isas) {
      if (other == isa) continue;
      const Status wrong = CheckInt8Packed(packed.data(), packed.size(), other, &pk, &pn);
      EXPECT_NE(wrong.message().find("pack them again"), std::string::npos) << wrong.message();
    }
    packed[0] ^= 1;
    EXPECT_NE(CheckInt8Packed(packed.data(), packed.size(), isa, &pk, &pn)
                  .message()
                  .find("not packed 8-bit weights"),
              std::string::npos);
  }
}

TEST(Int8Gemm, KernelsAndBlocking) {
  for (Int8Isa isa : SupportedInt8Isas()) {
    const Int8Blocking& b = Int8BlockingFor(isa);
    EXPECT_GT(b.kernel.mr, 0);
    EXPECT_EQ(b.kc % b.kernel.k_group, 0) << Int8IsaName(isa);
    EXPECT_EQ(b.mc % b.kernel.mr, 0);
    EXPECT_EQ(b.nc % b.kernel.nr, 0);
    if (std::getenv("SWIGFLOW_INT8_BLOCKING") != nullptr) {  // int8_gemm_test_small_blocks
      EXPECT_EQ(b.kc, 64);
      EXPECT_EQ(b.nc, 64);
    }
  }
  EXPECT_EQ(Int8IsaFor(Isa::kScalar), Int8Isa::kScalar);
}

// Every edge tile: the AVX-512 VNNI kernel has one instantiation per tile height (1..14) and
// width in vectors (1 or 2), chosen by the rows and columns a tile stores. Heights 1..29 cover
// each height as a last sliver; widths 1..65 each vector count, full and masked, as a last
// sliver. In place and packed, with and without the zero-point terms' epilogue.
TEST(Int8Gemm, EveryTileEdge) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  const int64_t k = 24;
  for (int64_t m = 1; m <= 29; ++m) {
    for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65}) {
      const Case c{m, n, k, false, false, false};
      std::vector<uint8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
      for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
      for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
      std::vector<int32_t> row(static_cast<size_t>(m)), col(static_cast<size_t>(n));
      for (auto& v : row) v = byte(rng) - 128;
      for (auto& v : col) v = byte(rng) * 1000;
      const std::vector<int32_t> expected = Reference(c, a, b, row, col);
      const RunSource source(a, k, 8);
      for (Int8Isa isa : SupportedInt8Isas()) {
        SCOPED_TRACE(std::string(Int8IsaName(isa)) + " " + std::to_string(m) + "x" +
                     std::to_string(n));
        const Int8Right rhs{b.data(), n, false, false};
        std::vector<int32_t> out(static_cast<size_t>(m * n), 7);
        GemmU8S8(false, m, n, k, a.data(), k, rhs, out.data(), n, row.data(), col.data(), isa,
                 nullptr);
        ASSERT_EQ(out, expected);
        std::fill(out.begin(), out.end(), 7);
        GemmU8S8(source, m, n, k, rhs, out.data(), n, row.data(), col.data(), isa, nullptr);
        ASSERT_EQ(out, expected);
        GemmU8S8(source, m, n, k, rhs, out.data(), n, nullptr, nullptr, isa, nullptr);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_EQ(out[i] + row[i / n] + col[i % n], expected[i]) << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace swigflow
