#include "swigflow/kernels/gemm/config/kernel_config.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace swigflow {
namespace kernels {
namespace {

int64_t RoundDown(int64_t x, int64_t multiple) {
  return std::max(multiple, x / multiple * multiple);
}

// Family 1Ah models that are Zen 5 (00h-2Fh, 40h-4Fh, 60h-7Fh); the family's others (Zen 6)
// get the generic config until a machine with one is measured.
bool IsZen5Model(int model) {
  return model <= 0x2f || (model >= 0x40 && model <= 0x4f) || (model >= 0x60 && model <= 0x7f);
}

// The named config for this CPU, tuned for `isa`, or an empty name.
KernelConfig NamedConfig(const CpuModel& cpu, Isa isa) {
  KernelConfig named;
  if (cpu.vendor == "AuthenticAMD" && cpu.family == 0x19 && isa == Isa::kAvx512) {
    named = Zen4Config();  // family 19h with AVX-512 is Zen 4 (Zen 3 has none)
  } else if (cpu.vendor == "AuthenticAMD" && cpu.family == 0x1a && IsZen5Model(cpu.model)) {
    named = Zen5Config();
  }
  if (named.isa != isa) named.name.clear();
  return named;
}

// "mc,kc,nc" with each in range, applied to `c`; false (c untouched) otherwise.
bool ParseBlocking(const char* text, int mr, int nr, KernelConfig* c) {
  long long mc, kc, nc;
  char end;
  if (std::sscanf(text, "%lld,%lld,%lld%c", &mc, &kc, &nc, &end) != 3) return false;
  if (mc < 1 || kc < 1 || nc < 1 || mc > (1 << 16) || kc > (1 << 16) || nc > (1 << 20)) {
    return false;
  }
  c->mc = RoundDown(mc, mr);
  c->kc = kc;
  c->nc = RoundDown(nc, nr);
  return true;
}

}  // namespace

KernelConfig DeriveConfig(const CpuCaches& caches, Isa isa, int mr, int nr) {
  const int64_t l1 = caches.l1d > 0 ? caches.l1d : 32 << 10;
  const int64_t l2 = caches.l2 > 0 ? caches.l2 : 1 << 20;
  const int64_t l3 = caches.l3 > 0 ? caches.l3 : 8 << 20;
  KernelConfig c;
  c.name = "generic";
  c.source = "caches";
  c.isa = isa;
  // A kc x nr sliver of B in at most 3/4 of L1d, leaving room for the A sliver streaming past.
  c.kc = std::clamp<int64_t>(l1 * 3 / 4 / (nr * 4) / 16 * 16, 64, 512);
  // The mc x kc block of A in half of L2.
  c.mc = std::clamp<int64_t>(RoundDown(l2 / 2 / (c.kc * 4), mr), mr, 1024);
  // The kc x nc panel of B in a quarter of L3 (it is shared), at most 4096 columns.
  c.nc = std::clamp<int64_t>(RoundDown(l3 / 4 / (c.kc * 4), nr), nr, 4096);
  return c;
}

KernelConfig ChooseConfig(const CpuModel& cpu, Isa isa, int mr, int nr, const char* environment) {
  KernelConfig c = NamedConfig(cpu, isa);
  if (c.name.empty()) c = DeriveConfig(cpu.caches, isa, mr, nr);
  if (environment != nullptr && *environment != '\0' && ParseBlocking(environment, mr, nr, &c)) {
    c.source = "environment";
  }
  return c;
}

}  // namespace kernels
}  // namespace swigflow
