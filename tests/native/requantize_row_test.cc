// RequantizeRow (the fused inference ops' epilogue): every build this machine runs gives the
// portable loop's bytes, and those bytes are the definition's.
#include "swigflow/kernels/quantization/requantize_row.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace swigflow {
namespace quantization {
namespace {

std::vector<Isa> Runnable() {
  std::vector<Isa> isas = {Isa::kScalar};
  if (BestIsa() != Isa::kScalar) isas.push_back(Isa::kAvx2);
  if (BestIsa() == Isa::kAvx512) isas.push_back(Isa::kAvx512);
  return isas;
}

TEST(RequantizeRow, Definition) {
  // inverse 0.5: odd sums land on halves, which round to even; 600 saturates; negatives and NaN
  // give 0, +inf 255.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<int32_t> acc = {1, 3, 5, 7, 600, -8, 0, 2, 2, 2, 9};
  const std::vector<float> scale(acc.size(), 1.0f);
  const std::vector<float> bias = {0, 0, 0, 0, 0, 0, nan, inf, -inf, 0.25f, 0};
  const std::vector<uint8_t> want = {0, 2, 2, 4, 255, 0, 0, 255, 0, 1, 4};
  for (Isa isa : Runnable()) {
    std::vector<uint8_t> out(acc.size(), 77);
    RequantizeRowFor(isa)(acc.data(), scale.data(), bias.data(), 0.5f,
                          static_cast<int64_t>(acc.size()), out.data());
    EXPECT_EQ(out, want) << IsaName(isa);
  }
}

TEST(RequantizeRow, BuildsAgreeOnEveryLengthAndRange) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> sums(-3000000, 3000000);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int n = 0; n <= 70; ++n) {
    std::vector<int32_t> acc(n);
    std::vector<float> scale(n), bias(n);
    for (int j = 0; j < n; ++j) {
      acc[j] = j % 9 == 0 ? std::numeric_limits<int32_t>::min() + j : sums(rng);
      scale[j] = std::ldexp(unit(rng), -12);
      bias[j] = 40.0f * unit(rng);
    }
    for (float inverse : {0.37f, 1.0f, 255.0f / 6.0f}) {
      std::vector<uint8_t> want(n + 1, 0xEE);
      RequantizeRowGeneric(acc.data(), scale.data(), bias.data(), inverse, n, want.data());
      for (Isa isa : Runnable()) {
        std::vector<uint8_t> got(n + 1, 0xEE);  // the byte past the row stays untouched
        RequantizeRowFor(isa)(acc.data(), scale.data(), bias.data(), inverse, n, got.data());
        EXPECT_EQ(got, want) << IsaName(isa) << " n=" << n << " inverse=" << inverse;
      }
    }
  }
}

}  // namespace
}  // namespace quantization
}  // namespace swigflow
