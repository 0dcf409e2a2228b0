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

// Per GemmType: its variable and the largest kc it takes (an 8-bit step is a quarter of an FP32
// one's bytes).
struct BlockingVariable {
  const char* name;
  int64_t max_kc;
};
constexpr BlockingVariable kBlockingVariables[] = {
    {"SWIGFLOW_GEMM_BLOCKING", int64_t{1} << 16},
    {"SWIGFLOW_INT8_BLOCKING", int64_t{1} << 20},
};

const BlockingVariable& VariableOf(GemmType type) {
  return kBlockingVariables[static_cast<int>(type)];
}

}  // namespace

const char* BlockingEnvironment(GemmType type) { return std::getenv(VariableOf(type).name); }

bool ParseBlocking(GemmType type, const char* text, Blocking* blocking) {
  long long mc, kc, nc;  // NOLINT(runtime/int): sscanf's type
  char end;
  if (text == nullptr || std::sscanf(text, "%lld,%lld,%lld%c", &mc, &kc, &nc, &end) != 3) {
    return false;
  }
  if (mc < 1 || kc < 1 || nc < 1 || mc > (1 << 16) || kc > VariableOf(type).max_kc ||
      nc > (1 << 20)) {
    return false;
  }
  *blocking = Blocking{mc, kc, nc};
  return true;
}

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
  Blocking given;
  if (ParseBlocking(GemmType::kFp32, environment, &given)) {
    c.mc = RoundDown(given.mc, mr);
    c.kc = given.kc;
    c.nc = RoundDown(given.nc, nr);
    c.source = "environment";
  }
  return c;
}

Blocking Int8BlockingOf(const KernelConfig& fp32, int fp32_nr, const Int8Tile& tile,
                        const char* environment) {
  Blocking b;
  if (ParseBlocking(GemmType::kInt8, environment, &b)) {
    // as given
  } else if (fp32.int8_kc > 0) {  // the named config's own
    b = Blocking{fp32.int8_mc, fp32.int8_kc, fp32.int8_nc};
  } else {
    // The FP32 config's bytes: its B sliver (kc x nr floats) stays in L1/L2 and its A block
    // (mc x kc floats) in L2.
    const int64_t sliver_bytes = fp32.kc * fp32_nr * int64_t{sizeof(float)};
    b.kc = std::max<int64_t>(64, sliver_bytes / (tile.nr * tile.element_bytes));
    b.mc = fp32.mc * fp32.kc * int64_t{sizeof(float)} / (b.kc * tile.element_bytes);
    b.nc = fp32.nc;
  }
  b.kc = RoundDown(b.kc, tile.k_group);
  b.mc = std::max<int64_t>(1, (b.mc + tile.mr - 1) / tile.mr) * tile.mr;
  b.nc = std::max<int64_t>(1, (b.nc + tile.nr - 1) / tile.nr) * tile.nr;
  return b;
}

}  // namespace kernels
}  // namespace swigflow
