// RequantizeRow (the fused inference ops' epilogue): every build this machine runs gives the
// portable loop's bytes, and those bytes are the definition's.
#include "swigflow/kernels/quantization/requantize_row.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/quantization/conv_geometry.h"

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

// A fused op's epilogue: RequantizeRowGeneric on finished blocks of sums, and when `in_registers`
// the same work offered to kernels that requantize tiles in their registers.
class Requantizing : public kernels::Int8Epilogue {
 public:
  Requantizing(const std::vector<float>& scale, const std::vector<float>& bias, float inverse,
               uint8_t* out, int64_t n, bool in_registers)
      : scale_(scale),
        bias_(bias),
        inverse_(inverse),
        out_(out),
        n_(n),
        in_registers_(in_registers),
        tile_{scale_.data(), bias_.data(), inverse, out, n} {}
  void Finish(int64_t i0, int64_t rows, int64_t j0, int64_t cols, const int32_t* c,
              int64_t ldc) const override {
    for (int64_t r = 0; r < rows; ++r) {
      RequantizeRowGeneric(c + r * ldc, scale_.data() + j0, bias_.data() + j0, inverse_, cols,
                           out_ + (i0 + r) * n_ + j0);
    }
  }
  const kernels::gemm::Int8Requantize* Requantize() const override {
    return in_registers_ ? &tile_ : nullptr;
  }

 private:
  const std::vector<float>& scale_;
  const std::vector<float>& bias_;
  const float inverse_;
  uint8_t* const out_;
  const int64_t n_;
  const bool in_registers_;
  const kernels::gemm::Int8Requantize tile_;
};

// Tiles requantized in a kernel's registers (the AVX-512 VNNI kernel; others keep Finish) give
// Finish's bytes, and convolution windows read in place those of their packed copy: every tile
// height and width at the edges, with and without zero-point terms, 1 and 2 threads. Run again
// with small blocks (requantize_row_test_small_blocks), K spans several blocks: windows read
// from a later tap on, and Finish only.
TEST(RequantizeRow, TilesRequantizedInRegistersGiveTheSameBytes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 16, 17, 32, 33, 64, 100}) {
      std::vector<float> scale(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
      for (auto& v : scale) v = std::ldexp(1.5f + unit(rng), -12);
      for (auto& v : bias) v = 5.0f * unit(rng);
      // A 3x3 SAME convolution of a 9 x 11 x 8 image: m = 99 windows of k = 72 steps.
      Int8ConvGeometry g;
      g.batch = 1, g.in_h = 9, g.in_w = 11, g.depth = 8, g.kh = 3, g.kw = 3, g.out_depth = n;
      g.out_h = 9, g.out_w = 11, g.top = 1, g.left = 1;
      const int64_t m = g.Rows(), k = g.Steps();
      std::vector<uint8_t> image(static_cast<size_t>(g.in_h * g.in_w * g.depth));
      std::vector<uint8_t> b(static_cast<size_t>(k * n));
      for (auto& v : image) v = static_cast<uint8_t>(byte(rng));
      for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
      const Im2ColRows windows(g, image.data(), 3);
      std::vector<uint8_t> a(static_cast<size_t>(m * k));
      windows.Rows(0, m, 0, k, a.data(), k);
      std::vector<int32_t> row(static_cast<size_t>(m)), col(static_cast<size_t>(n));
      for (auto& v : row) v = byte(rng) - 128;
      for (auto& v : col) v = 1000 * (byte(rng) - 128);
      const kernels::Int8Right rhs{b.data(), n, false, false};
      for (kernels::Int8Isa isa : kernels::SupportedInt8Isas()) {
        for (bool offsets : {false, true}) {
          const int32_t* r = offsets ? row.data() : nullptr;
          const int32_t* c = offsets ? col.data() : nullptr;
          // The bytes of windows read in place or packed, tiles requantized in registers or
          // sums finished by blocks.
          const auto run = [&](bool in_place, bool in_registers) {
            std::vector<uint8_t> bytes(static_cast<size_t>(m * n), 0xEE);
            std::vector<int32_t> sums(static_cast<size_t>(m * n));
            const Requantizing epilogue(scale, bias, 0.75f, bytes.data(), n, in_registers);
            if (in_place) {
              kernels::GemmU8S8(windows, m, n, k, rhs, sums.data(), n, r, c, isa, &pool, &epilogue);
            } else {
              kernels::GemmU8S8(false, m, n, k, a.data(), k, rhs, sums.data(), n, r, c, isa, &pool,
                                &epilogue);
            }
            return bytes;
          };
          const std::vector<uint8_t> want = run(false, false);
          for (bool in_place : {false, true}) {
            for (bool in_registers : {false, true}) {
              SCOPED_TRACE(std::string(kernels::Int8IsaName(isa)) + " n=" + std::to_string(n) +
                           (offsets ? " offsets" : "") + (in_place ? " in place" : "") +
                           (in_registers ? " in registers" : ""));
              EXPECT_EQ(run(in_place, in_registers), want);
            }
          }
          // Neither all clipped nor all zero: most bytes fall inside (0, 255) (one column alone
          // may lean to one side).
          if (n >= 16) {
            EXPECT_GT(
                std::count_if(want.begin(), want.end(), [](uint8_t v) { return v > 0 && v < 255; }),
                m * n / 4);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace quantization
}  // namespace swigflow
