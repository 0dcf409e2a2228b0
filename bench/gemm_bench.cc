// Native SGEMM throughput per ISA and thread count (the Python benchmark compares with numpy).
//
//   bazel run //bench:gemm_bench
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/gemm.h"

namespace {

double Gflops(swigflow::Isa isa, swigflow::ThreadPool* pool, int64_t m, int64_t n, int64_t k) {
  std::vector<float> a(m * k), b(k * n), c(m * n);
  std::mt19937 rng(1);
  for (auto& x : a) x = static_cast<float>(rng() % 100) / 100;
  for (auto& x : b) x = static_cast<float>(rng() % 100) / 100;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    swigflow::kernels::Sgemm(false, false, m, n, k, a.data(), k, b.data(), n, c.data(), n, isa,
                             pool);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * m * n * k / best / 1e9;
}

}  // namespace

int main() {
  swigflow::ThreadPool one(1), two(2);
  std::printf("| size | isa | 1 thread GFLOP/s | 2 threads GFLOP/s |\n|---|---|---:|---:|\n");
  for (int64_t s : {256, 512, 1024, 2048}) {
    for (auto isa : {swigflow::Isa::kAvx2, swigflow::Isa::kAvx512}) {
      if (static_cast<int>(isa) > static_cast<int>(swigflow::BestIsa())) continue;
      std::printf("| %lld | %s | %.1f | %.1f |\n", static_cast<long long>(s),
                  swigflow::IsaName(isa), Gflops(isa, &one, s, s, s), Gflops(isa, &two, s, s, s));
    }
  }
  return 0;
}
