// The pseudo-random numbers of swigflow's seeded steps (shuffles, random crops): splitmix64,
// small, fast, and the same sequence on every platform (std:: distributions are not).
#ifndef SWIGFLOW_FRAMEWORK_RANDOM_H_
#define SWIGFLOW_FRAMEWORK_RANDOM_H_

#include <cstdint>

namespace swigflow {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-40 for any n we see).
  uint64_t Uniform(uint64_t n) { return Scale(Next(), n); }
  // Uniform's value for a draw `raw` of Next (so a draw can be made before n is known).
  static uint64_t Scale(uint64_t raw, uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(raw) * n) >> 64);
  }
  // Uniform in [0, 1), with 24 random bits (every float32 value there is reachable evenly).
  float UniformFloat() { return static_cast<float>(Next() >> 40) * (1.0f / (1 << 24)); }

 private:
  uint64_t state_;
};

// A seed derived from `seed` for one use (`stream`), independent of the other streams.
inline uint64_t MixSeed(uint64_t seed, uint64_t stream) {
  Rng rng(seed ^ (stream * 0xD1B54A32D192ED03ULL));
  rng.Next();
  return rng.Next();
}

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_RANDOM_H_
