// A small driver for LLVMFuzzerTestOneInput, for CI: no coverage feedback, but deterministic and
// fast. It runs every seed file given on the command line, then seeded random mutations of them
// (bit flips, truncations, byte runs, CRC-valid headers with random lengths spliced in).
//
//   fuzz_driver [--iterations=N] SEED_FILE...
//
// Long coverage-guided runs use clang's libFuzzer on the same target: tests/fuzz/run_libfuzzer.sh.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "swigflow/io/record_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  if (s.empty()) s.push_back(static_cast<char>(rng()));
  switch (rng() % 5) {
    case 0:
      for (int k = 0, n = 1 + rng() % 8; k < n; ++k) s[rng() % s.size()] ^= 1 << (rng() % 8);
      break;
    case 1:
      s.resize(rng() % s.size());
      break;
    case 2:
      for (size_t k = rng() % s.size(), e = std::min(s.size(), k + rng() % 64); k < e; ++k) {
        s[k] = static_cast<char>(rng());
      }
      break;
    case 3: {
      char header[swigflow::io::record_format::kHeaderSize];
      swigflow::io::record_format::EncodeHeader(rng() >> (rng() % 64), header);
      s.insert(rng() % (s.size() + 1), header, sizeof(header));
      break;
    }
    case 4:  // duplicate a span (repeated records, repeated gzip members)
      if (s.size() > 1) {
        const size_t a = rng() % s.size(), n = rng() % (s.size() - a);
        s.insert(rng() % s.size(), s.substr(a, n));
      }
      break;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 2000;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--iterations=", 13) == 0) {
      iterations = std::atol(argv[i] + 13);
      continue;
    }
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read seed %s\n", argv[i]);
      return 2;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    seeds.push_back(bytes.str());
  }
  seeds.push_back("");
  for (const auto& seed : seeds) Run(seed);
  std::mt19937_64 rng(20261121);
  for (long i = 0; i < iterations; ++i) {
    std::string input = seeds[rng() % seeds.size()];
    for (int k = 0, n = 1 + rng() % 3; k < n; ++k) input = Mutate(std::move(input), rng);
    Run(input);
  }
  std::printf("fuzz_driver: %zu seeds and %ld mutated inputs: no invariant broken\n", seeds.size(),
              iterations);
  return 0;
}
