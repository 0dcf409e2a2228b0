// A small driver for LLVMFuzzerTestOneInput, for CI: no coverage feedback, but deterministic and
// fast. It runs every seed file given on the command line, then seeded random mutations of them
// (bit flips, truncations, byte runs, CRC-valid headers with random lengths spliced in).
//
//   fuzz_driver [--iterations=N] [--rss_limit_mb=N] SEED_FILE...
//
// With --rss_limit_mb, the run fails when the process's peak resident memory exceeds N MiB: the
// target's memory must stay bounded whatever the input claims (libFuzzer's -rss_limit_mb).
//
// Long coverage-guided runs use clang's libFuzzer on the same target: tests/fuzz/run_libfuzzer.sh.
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/io/record_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// s compressed as a ZLIB (window_bits 15) or GZIP (31) stream: mutated records, with their
// lying headers, behind compression.
std::string Compress(const std::string& s, int window_bits) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) return s;
  std::string out(deflateBound(&z, s.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  if (s.empty()) s.push_back(static_cast<char>(rng()));
  switch (rng() % 6) {
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
    case 5:  // compress what the other mutations made (lying lengths inside GZIP / ZLIB)
      s = Compress(s, rng() % 2 ? 31 : 15);
      break;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 2000;
  long rss_limit_mb = 0;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--iterations=", 13) == 0) {
      iterations = std::atol(argv[i] + 13);
      continue;
    }
    if (std::strncmp(argv[i], "--rss_limit_mb=", 15) == 0) {
      rss_limit_mb = std::atol(argv[i] + 15);
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
    if (const char* last = std::getenv("FUZZ_DRIVER_LAST_INPUT")) {  // to reproduce a crash
      std::ofstream(last, std::ios::binary) << input;
    }
    Run(input);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const long peak_mb = usage.ru_maxrss / 1024;
  std::printf(
      "fuzz_driver: %zu seeds and %ld mutated inputs: no invariant broken; peak RSS %ld MiB\n",
      seeds.size(), iterations, peak_mb);
  if (rss_limit_mb > 0 && peak_mb > rss_limit_mb) {
    std::fprintf(stderr, "fuzz_driver: peak RSS %ld MiB is over the limit of %ld MiB\n", peak_mb,
                 rss_limit_mb);
    return 1;
  }
  return 0;
}
