// The CPU's floating-point peak and clock, measured rather than looked up: a throughput loop and
// a dependent-chain loop of one ISA's FMAs, timed on every thread of a pool. The loops themselves
// are ISA code and come from the micro-kernels (gemm::KernelInfo's fma_throughput and
// fma_latency); kernels::MeasureFma(isa, ...) passes the selected ISA's.
#ifndef SWIGFLOW_FRAMEWORK_FMA_PROBE_H_
#define SWIGFLOW_FRAMEWORK_FMA_PROBE_H_

#include <cstdint>

namespace swigflow {

// FMA latency in cycles on the cores we run on (Skylake-SP and later, Zen 3 and later): turns the
// rate of one dependent chain into a clock frequency.
constexpr int kFmaLatencyCycles = 4;

// Runs `iterations` rounds of FMAs and returns the floating-point operations done.
using FmaLoop = int64_t (*)(int64_t iterations);

struct FmaProbe {
  int threads = 0;
  double gflops = 0;           // FMA throughput of all threads: the peak SGEMM is compared with
  double ghz = 0;              // the clock while all threads run (one dependent chain each)
  double flops_per_cycle = 0;  // per core: gflops / (threads * ghz), 32 or 64 for AVX-512
};

// Times `throughput` (independent chains) and `latency` (one dependent chain) on `threads`
// threads for about `seconds` in all, the best of several windows each.
FmaProbe MeasureFma(FmaLoop throughput, FmaLoop latency, int threads, double seconds);

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_FMA_PROBE_H_
