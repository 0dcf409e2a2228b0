#include "swigflow/kernels/gemm/config/kernel_config.h"

#include <gtest/gtest.h>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/kernels/gemm/gemm.h"

namespace swigflow {
namespace kernels {
namespace {

CpuModel Cpu(const char* vendor, int family, int model, CpuCaches caches) {
  CpuModel cpu;
  cpu.vendor = vendor;
  cpu.family = family;
  cpu.model = model;
  cpu.caches = caches;
  return cpu;
}

CpuModel Zen4() { return Cpu("AuthenticAMD", 0x19, 0x11, {32 << 10, 1 << 20, 32 << 20}); }
CpuModel Zen5(int model = 0x02) {
  return Cpu("AuthenticAMD", 0x1a, model, {48 << 10, 1 << 20, 32 << 20});
}

// The Xeon of the issue: AVX-512 with 48 KiB L1d and 2 MiB L2 per core (no named config yet).
CpuModel Xeon() { return Cpu("GenuineIntel", 6, 0x8f, {48 << 10, 2 << 20, 105 << 20}); }

TEST(KernelConfigTest, NamedConfigForItsIsaOnly) {
  const KernelConfig zen4 = ChooseConfig(Zen4(), Isa::kAvx512, 14, 32, nullptr);
  EXPECT_EQ(zen4.name, "zen4");
  EXPECT_EQ(zen4.source, "cpuid");
  EXPECT_EQ(zen4.isa, Isa::kAvx512);
  // SWIGFLOW_ISA=avx2 on the same machine: its 6 x 16 tile needs blocking of its own.
  const KernelConfig avx2 = ChooseConfig(Zen4(), Isa::kAvx2, 6, 16, "");
  EXPECT_EQ(avx2.name, "generic");
  EXPECT_EQ(avx2.source, "caches");
}

TEST(KernelConfigTest, Zen5ByFamilyAndModel) {
  for (int model : {0x02, 0x11, 0x24, 0x44, 0x60, 0x70}) {
    const KernelConfig zen5 = ChooseConfig(Zen5(model), Isa::kAvx512, 14, 32, nullptr);
    EXPECT_EQ(zen5.name, "zen5") << model;
    EXPECT_EQ(zen5.source, "cpuid") << model;
    EXPECT_EQ(zen5.mc % 14, 0);
    EXPECT_EQ(zen5.nc % 32, 0);
  }
  // Family 1Ah's models outside Zen 5's ranges (Zen 6) fall back to the caches.
  for (int model : {0x30, 0x50, 0x80}) {
    EXPECT_EQ(ChooseConfig(Zen5(model), Isa::kAvx512, 14, 32, nullptr).name, "generic") << model;
  }
  EXPECT_EQ(ChooseConfig(Zen5(), Isa::kAvx2, 6, 16, nullptr).name, "generic");
}

TEST(KernelConfigTest, GenericBlockingFollowsTheCaches) {
  const KernelConfig xeon = ChooseConfig(Xeon(), Isa::kAvx512, 14, 32, nullptr);
  EXPECT_EQ(xeon.name, "generic");
  // kc: a kc x 32 sliver of B in 3/4 of the 48 KiB L1d; mc: the A block in half of L2.
  EXPECT_EQ(xeon.kc, 288);
  EXPECT_EQ(xeon.mc % 14, 0);
  EXPECT_LE(xeon.mc * xeon.kc * 4, 1 << 20);
  EXPECT_GT(xeon.mc * xeon.kc * 4, (1 << 20) - 14 * 288 * 4);
  EXPECT_EQ(xeon.nc, 4096);
  // A smaller L1 gives a shorter kc; unknown sizes get the documented defaults.
  EXPECT_LT(DeriveConfig(Zen4().caches, Isa::kAvx512, 14, 32).kc, xeon.kc);
  const KernelConfig unknown = DeriveConfig(CpuCaches{}, Isa::kAvx2, 6, 16);
  EXPECT_EQ(unknown.kc, 384);  // 3/4 of 32 KiB over 16 floats
  EXPECT_EQ(unknown.mc % 6, 0);
  EXPECT_EQ(unknown.nc % 16, 0);
  EXPECT_GT(unknown.nc, 0);
}

TEST(KernelConfigTest, EnvironmentBlockingWinsWhenWellFormed) {
  const KernelConfig c = ChooseConfig(Zen4(), Isa::kAvx512, 14, 32, "100,256,1000");
  EXPECT_EQ(c.source, "environment");
  EXPECT_EQ(c.name, "zen4");  // the rest of the config stays
  EXPECT_EQ(c.mc, 98);        // whole slivers
  EXPECT_EQ(c.kc, 256);
  EXPECT_EQ(c.nc, 992);
  for (const char* bad :
       {"100,256", "0,256,1000", "a,b,c", "100,256,1000x", "-1,2,3", "100,256,99999999"}) {
    const KernelConfig ignored = ChooseConfig(Zen4(), Isa::kAvx512, 14, 32, bad);
    EXPECT_EQ(ignored.source, "cpuid") << bad;
    EXPECT_EQ(ignored.kc, Zen4Config().kc) << bad;
  }
}

// One parser for every GEMM's variable; only the K limit is the element type's.
TEST(KernelConfigTest, OneBlockingParser) {
  Blocking b;
  for (GemmType type : {GemmType::kFp32, GemmType::kInt8}) {
    EXPECT_TRUE(ParseBlocking(type, "7,65536,9", &b));
    EXPECT_EQ(b.mc, 7);
    EXPECT_EQ(b.kc, 65536);
    EXPECT_EQ(b.nc, 9);
    for (const char* bad : {"100,256", "0,256,1000", "1,2,3x", "-1,2,3", "65537,2,3", "1,2,1048577",
                            "1,1048577,1", ""}) {
      b = Blocking{5, 5, 5};
      EXPECT_FALSE(ParseBlocking(type, bad, &b)) << bad;
      EXPECT_EQ(b.kc, 5) << bad;  // untouched
    }
    EXPECT_FALSE(ParseBlocking(type, nullptr, &b));
  }
  EXPECT_FALSE(ParseBlocking(GemmType::kFp32, "1,65537,1", &b));
  EXPECT_TRUE(ParseBlocking(GemmType::kInt8, "1,65537,1", &b));  // a step is a quarter the bytes
}

TEST(KernelConfigTest, Int8BlockingFromTheConfigs) {
  const Int8Tile vnni{14, 32, 4, 1};
  Blocking b = Int8BlockingOf(Zen4Config(), 32, vnni, nullptr);  // the named config's own
  EXPECT_EQ(b.mc, 238);
  EXPECT_EQ(b.kc, 2048);
  EXPECT_EQ(b.nc, 2048);
  b = Int8BlockingOf(Zen4Config(), 32, vnni, "100,130,50");  // whole groups and slivers
  EXPECT_EQ(b.mc, 112);
  EXPECT_EQ(b.kc, 128);
  EXPECT_EQ(b.nc, 64);
  b = Int8BlockingOf(Zen4Config(), 32, vnni, "100,130");  // malformed: ignored
  EXPECT_EQ(b.kc, 2048);
  // Without int8_*: the FP32 sliver's bytes. 256 x 16 floats = 16 KiB, 512 steps of 16 int16.
  KernelConfig fp32 = DeriveConfig(CpuCaches{}, Isa::kAvx2, 6, 16);
  fp32.kc = 256;
  fp32.mc = 120;
  b = Int8BlockingOf(fp32, 16, Int8Tile{6, 16, 2, 2}, nullptr);
  EXPECT_EQ(b.kc, 512);
  EXPECT_EQ(b.mc, 120);  // 120 x 256 floats in 512 steps of int16
  EXPECT_EQ(b.nc, fp32.nc);
}

TEST(KernelConfigTest, ThisMachine) {
  const CpuModel& cpu = GetCpuModel();
  if (cpu.vendor == "GenuineIntel" || cpu.vendor == "AuthenticAMD") {
    EXPECT_GT(cpu.family, 0);
    EXPECT_GE(cpu.caches.l1d, 16 << 10);
    EXPECT_GE(cpu.caches.l2, cpu.caches.l1d);
  }
  const KernelConfig& config = ConfigFor(SelectedIsa());
  EXPECT_FALSE(config.name.empty());
  const gemm::KernelInfo& kernel = KernelFor(SelectedIsa());
  EXPECT_EQ(kernel.mc % kernel.mr, 0);
  EXPECT_EQ(kernel.nc % kernel.nr, 0);
  EXPECT_EQ(kernel.kc, config.kc);
}

TEST(KernelConfigTest, FmaProbeSeesWholeVectorsPerCycle) {
  const FmaProbe probe = MeasureFma(SelectedIsa(), 1, 0.2);
  EXPECT_EQ(probe.threads, 1);
  EXPECT_GT(probe.gflops, 0.5);
  EXPECT_GT(probe.ghz, 0.3);
  // At least one FMA of the ISA's width per cycle (scalar: 2 FLOP); sanitizers and a busy
  // machine only lower the rate, and the clock estimate falls with it.
  EXPECT_GT(probe.flops_per_cycle, 1.0);
}

}  // namespace
}  // namespace kernels
}  // namespace swigflow
