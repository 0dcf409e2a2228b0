#include "swigflow/kernels/gemm/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace kernels {
namespace {

std::vector<Isa> AvailableIsas() {
  std::vector<Isa> isas = {Isa::kScalar};
  if (GetCpuFeatures().avx2) isas.push_back(Isa::kAvx2);
  if (GetCpuFeatures().avx512) isas.push_back(Isa::kAvx512);
  return isas;
}

struct Problem {
  int64_t m, n, k;
  bool trans_a, trans_b;
  int64_t pad;  // extra elements at the end of every row (row strides larger than the width)
  std::vector<float> a, b;
  int64_t lda, ldb, ldc;

  Problem(int64_t m_, int64_t n_, int64_t k_, bool ta, bool tb, int64_t pad_, bool integers,
          uint32_t seed)
      : m(m_), n(n_), k(k_), trans_a(ta), trans_b(tb), pad(pad_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> small(-4, 4);
    auto value = [&] { return integers ? static_cast<float>(small(rng)) : real(rng); };
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
    const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
    lda = a_cols + pad;
    ldb = b_cols + pad;
    ldc = n + pad;
    a.resize(static_cast<size_t>(std::max<int64_t>(a_rows * lda, 1)));
    b.resize(static_cast<size_t>(std::max<int64_t>(b_rows * ldb, 1)));
    for (auto& x : a) x = value();
    for (auto& x : b) x = value();
  }

  double A(int64_t i, int64_t p) const { return trans_a ? a[p * lda + i] : a[i * lda + p]; }
  double B(int64_t p, int64_t j) const { return trans_b ? b[j * ldb + p] : b[p * ldb + j]; }

  std::vector<float> Run(Isa isa, ThreadPool* pool) const {
    std::vector<float> c(static_cast<size_t>(std::max<int64_t>(m * ldc, 1)), -7.0f);
    Sgemm(trans_a, trans_b, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, isa, pool);
    return c;
  }

  // The float64 product and the sum of |terms| per element of C, computed once and shared by
  // every ISA and thread count (under TSan the reference costs more than the GEMMs).
  struct Reference {
    std::vector<double> value, magnitude;
  };
  Reference Compute() const {
    Reference r;
    r.value.assign(static_cast<size_t>(m * n), 0.0);
    r.magnitude.assign(static_cast<size_t>(m * n), 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        const double a_ip = A(i, p);
        for (int64_t j = 0; j < n; ++j) {
          const double term = a_ip * B(p, j);
          r.value[i * n + j] += term;
          r.magnitude[i * n + j] += std::fabs(term);
        }
      }
    }
    return r;
  }

  // Checks c against the reference; exact when the data are small integers.
  void Check(const std::vector<float>& c, const Reference& r, bool exact,
             const std::string& what) const {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const double ref = r.value[i * n + j];
        const double got = c[i * ldc + j];
        if (exact) {
          ASSERT_EQ(got, ref) << what << " at " << i << "," << j;
        } else {
          ASSERT_NEAR(got, ref, 2e-7 * (k + 8) * r.magnitude[i * n + j] + 1e-30)
              << what << " at " << i << "," << j;
        }
      }
      for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], -7.0f) << what << " padding";
    }
  }
};

// (m, n, k): tile and block edges of every kernel (MR 4/6/14 and every tile height below, NR
// 8/16/32, KC 192-1024), zero sizes, the GEMV shapes (column split, 16- and 8-row blocks and
// their remainder, K chunks summed in order), several N panels and K panels on two threads (a
// column-split grid), a row-split grid, A blocks of equal height, B read in place (M < 64, full
// slivers in place, the last one packed) against B packed (M = 64), A read in place (one K
// block, no larger than a block of A) against A packed (800 x 600), and long products with few
// tiles of C cut along K (chunks of 1024 steps and a short last one; 64 longer chunks).
const std::vector<std::tuple<int64_t, int64_t, int64_t>> kShapes = {
    {1, 1, 1},       {1, 37, 5},     {37, 1, 5},    {2, 2, 1},       {5, 7, 3},
    {6, 16, 8},      {7, 17, 9},     {11, 31, 191}, {12, 32, 192},   {13, 33, 193},
    {14, 32, 384},   {15, 33, 385},  {25, 65, 257}, {145, 40, 300},  {0, 5, 5},
    {5, 0, 5},       {5, 5, 0},      {64, 600, 64}, {200, 300, 400}, {1, 5000, 70},
    {30, 4200, 800}, {700, 90, 130}, {3, 40, 20},   {10, 70, 33},    {1, 300, 90},
    {63, 100, 1100}, {64, 100, 50},  {1, 50, 2100}, {1, 70, 4500},   {30, 40, 17000},
    {9, 20, 300001}, {800, 40, 600},
};

TEST(GemmTest, EveryIsaThreadCountAndTransposeAgainstFloat64) {
  ThreadPool two(2);
  for (const auto& [m, n, k] : kShapes) {
    for (int t = 0; t < 4; ++t) {
      const Problem problem(m, n, k, t & 1, t & 2, (m + n) % 3, false, 17 * m + n + k + t);
      const Problem::Reference reference = problem.Compute();
      for (Isa isa : AvailableIsas()) {
        const std::string what = std::string(IsaName(isa)) + " m=" + std::to_string(m) +
                                 " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                 " trans=" + std::to_string(t);
        const std::vector<float> one_thread = problem.Run(isa, nullptr);
        problem.Check(one_thread, reference, false, what);
        const std::vector<float> two_threads = problem.Run(isa, &two);
        ASSERT_EQ(0, std::memcmp(one_thread.data(), two_threads.data(),
                                 one_thread.size() * sizeof(float)))
            << what << ": 1 and 2 threads differ";
      }
    }
  }
}

// The micro-kernels' batch-reduce entry points, every layout of A (packed, rows in place, steps
// in place) and every tile height up to MR, edge columns, several items, B packed or in place,
// and accumulation into C, against a float64 sum of the same terms.
TEST(GemmTest, BatchReduceEveryLayoutAndTileHeight) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (Isa isa : AvailableIsas()) {
    const gemm::KernelInfo& k = KernelFor(isa);
    const int mr = k.mr, nr = k.nr;
    const int64_t kc = 19, lda = 23, ldb = nr + 5, ldc = nr + 3;
    constexpr int kItems = 3;
    std::vector<float> a(static_cast<size_t>(kItems * (mr * lda + kc * lda + kc * mr)));
    std::vector<float> b(static_cast<size_t>(kItems * kc * ldb));
    for (auto& x : a) x = real(rng);
    for (auto& x : b) x = real(rng);
    for (int layout = 0; layout < 3; ++layout) {
      for (int rows = 1; rows <= mr; ++rows) {
        for (int cols : {nr, nr - 1, 1}) {
          for (bool b_in_place : {false, true}) {
            if (b_in_place && cols != nr) continue;  // whole slivers only
            for (bool accumulate : {false, true}) {
              std::vector<gemm::BatchItem> items;
              const auto value_of_a = [&](int t, int i, int64_t p) {
                const float* base = a.data() + t * (a.size() / kItems);
                return layout == 0   ? base[p * mr + i]
                       : layout == 1 ? base[i * lda + p]
                                     : base[p * lda + i];
              };
              for (int t = 0; t < kItems; ++t) {
                gemm::BatchItem item{a.data() + t * (a.size() / kItems), layout == 0 ? 0 : lda,
                                     b.data() + t * kc * ldb, kc};
                item.ldb = b_in_place ? ldb : 0;
                items.push_back(item);
              }
              // Packed B: the items read B's rows as if they were nr apart.
              const int64_t step_b = b_in_place ? ldb : nr;
              std::vector<float> c(static_cast<size_t>(mr * ldc));
              for (auto& x : c) x = real(rng);
              const std::vector<float> before = c;
              const gemm::BatchReduceKernel fn = layout == 0   ? k.batch_reduce_packed
                                                 : layout == 1 ? k.batch_reduce
                                                               : k.batch_reduce_steps;
              fn(items.data(), kItems, c.data(), ldc, rows, cols, accumulate);
              for (int i = 0; i < mr; ++i) {
                for (int64_t j = 0; j < ldc; ++j) {
                  const size_t at = static_cast<size_t>(i * ldc + j);
                  if (i >= rows || j >= cols) {
                    ASSERT_EQ(c[at], before[at]) << "wrote outside the tile";
                    continue;
                  }
                  double sum = accumulate ? before[at] : 0.0;
                  for (int t = 0; t < kItems; ++t) {
                    for (int64_t p = 0; p < kc; ++p) {
                      sum += double{value_of_a(t, i, p)} * b[t * kc * ldb + p * step_b + j];
                    }
                  }
                  ASSERT_NEAR(c[at], sum, 1e-4)
                      << IsaName(isa) << " layout " << layout << " rows " << rows << " cols "
                      << cols << " in place " << b_in_place << " at " << i << "," << j;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(GemmTest, SmallIntegersAreExact) {
  for (int t = 0; t < 4; ++t) {
    const Problem problem(70, 90, 600, t & 1, t & 2, 1, true, t);
    const Problem::Reference reference = problem.Compute();
    for (Isa isa : AvailableIsas()) {
      problem.Check(problem.Run(isa, ThreadPool::Default()), reference, true, IsaName(isa));
    }
  }
}

TEST(GemmTest, Dgemm) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> real(-1, 1);
  for (int t = 0; t < 4; ++t) {
    const int64_t m = 9, n = 11, k = 13;
    std::vector<double> a(m * k), b(k * n), c(m * n, -1);
    for (auto& x : a) x = real(rng);
    for (auto& x : b) x = real(rng);
    const bool ta = t & 1, tb = t & 2;
    Dgemm(ta, tb, m, n, k, a.data(), ta ? m : k, b.data(), tb ? k : n, c.data(), n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < k; ++p) {
          ref += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
        }
        ASSERT_NEAR(c[i * n + j], ref, 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace swigflow
