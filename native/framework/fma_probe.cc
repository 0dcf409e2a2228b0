#include "swigflow/framework/fma_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The best rate of `loop` over `windows` runs of `iterations` on every thread of `pool`: FLOP/s,
// and per thread the loop iterations per second.
struct Rate {
  double flops_per_second = 0, iterations_per_second = 0;
};

Rate BestRate(FmaLoop loop, ThreadPool* pool, int64_t iterations, int windows) {
  Rate best;
  const int threads = pool->num_threads();
  std::vector<int64_t> flops(static_cast<size_t>(threads));
  for (int w = 0; w < windows; ++w) {
    const auto start = std::chrono::steady_clock::now();
    pool->ParallelFor(threads, [&](int64_t t) { flops[t] = loop(iterations); });
    const double elapsed = SecondsSince(start);
    double total = 0;
    for (int64_t f : flops) total += static_cast<double>(f);
    if (total / elapsed > best.flops_per_second) {
      best.flops_per_second = total / elapsed;
      best.iterations_per_second = static_cast<double>(iterations) / elapsed;
    }
  }
  return best;
}

// Iterations of `loop` that take about `seconds` on one thread.
int64_t Calibrate(FmaLoop loop, double seconds) {
  int64_t iterations = 1 << 12;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    loop(iterations);
    const double elapsed = SecondsSince(start);
    if (elapsed > seconds / 4 || iterations > (int64_t{1} << 40)) {
      return std::max<int64_t>(
          1, static_cast<int64_t>(iterations * seconds / std::max(elapsed, 1e-9)));
    }
    iterations *= 4;
  }
}

}  // namespace

FmaProbe MeasureFma(FmaLoop throughput, FmaLoop latency, int threads, double seconds) {
  ThreadPool pool(std::max(threads, 1));
  constexpr int kWindows = 5;  // the VM is noisy: the best of several short windows
  const double window = seconds / (2 * kWindows);
  FmaProbe probe;
  probe.threads = pool.num_threads();
  const Rate peak = BestRate(throughput, &pool, Calibrate(throughput, window), kWindows);
  const Rate chain = BestRate(latency, &pool, Calibrate(latency, window), kWindows);
  probe.gflops = peak.flops_per_second / 1e9;
  // One dependent chain retires an FMA every latency cycles.
  probe.ghz = chain.iterations_per_second * kFmaLatencyCycles / 1e9;
  probe.flops_per_cycle = probe.gflops / (probe.threads * probe.ghz);
  return probe;
}

}  // namespace swigflow
