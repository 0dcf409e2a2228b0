// The pipeline's shuffles, each deterministic given its seed: tf.data's shuffle buffer, the same
// buffer applied to a known sequence (indexed files: the order is computed, then read), and a
// uniform permutation of a whole epoch (global_shuffle). Seeds are per epoch and per use.
#ifndef SWIGFLOW_DATA_SHUFFLE_H_
#define SWIGFLOW_DATA_SHUFFLE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "swigflow/data/file_readers.h"
#include "swigflow/framework/random.h"

namespace swigflow {
namespace data {

// The uses of one pipeline seed, each its own stream (3 is image::ImageSeed's).
constexpr uint64_t kGlobalShuffleStream = 1;
constexpr uint64_t kBufferShuffleStream = 2;

// The seed of one use (`stream`) in one epoch; the same every epoch without `reshuffle`.
inline uint64_t EpochSeed(uint64_t seed, bool reshuffle, int64_t epoch, uint64_t stream) {
  Rng mixed(MixSeed(seed, stream) + static_cast<uint64_t>(reshuffle ? epoch : 0));
  return mixed.Next();
}

// Brings an item's out-of-line contents toward the cache (see ShuffleBuffer::Take).
template <typename T>
void PrefetchContents(const T&) {}
inline void PrefetchContents(const Record& record) {
  const char* p = record.payload().data();
  const size_t n = std::min<size_t>(record.payload().size(), 512);
  for (size_t i = 0; i < n; i += 64) __builtin_prefetch(p + i);
}

// tf.data's shuffle buffer: fill with `size` items, then emit a uniformly chosen one and put
// the next input in its place; once the input ends, drain in random order.
template <typename T>
class ShuffleBuffer {
 public:
  ShuffleBuffer(size_t size, uint64_t seed) : size_(std::max<size_t>(size, 1)), rng_(seed) {
    for (uint64_t& draw : ahead_) draw = rng_.Next();
  }
  bool full() const { return items_.size() >= size_; }
  bool empty() const { return items_.empty(); }
  void Add(T&& item) { items_.push_back(std::move(item)); }
  // Takes a random item; `refill` (when not null) takes its place.
  T Take(T* refill) {
    const size_t i = static_cast<size_t>(Rng::Scale(ahead_[0], items_.size()));
    ahead_[0] = ahead_[1];
    ahead_[1] = rng_.Next();
    T out = std::move(items_[i]);
    if (refill != nullptr) {
      items_[i] = std::move(*refill);
    } else {
      items_[i] = std::move(items_.back());
      items_.pop_back();
    }
    // A full buffer is larger than the cache and read at random: the draws are made two takes
    // ahead, so the next item's contents and the one after's slot are on their way.
    if (!items_.empty()) {
      const uint64_t n = items_.size();
      PrefetchContents(items_[Rng::Scale(ahead_[0], n)]);
      __builtin_prefetch(&items_[Rng::Scale(ahead_[1], n)]);
    }
    return out;
  }

 private:
  const size_t size_;
  Rng rng_;
  uint64_t ahead_[2];  // the next two draws of rng_, in order
  std::vector<T> items_;
};

// Reorders `items` as a shuffle buffer of `size` would emit them.
template <typename T>
void ShuffleLikeBuffer(size_t size, uint64_t seed, std::vector<T>* items) {
  ShuffleBuffer<T> buffer(size, seed);
  std::vector<T> out;
  out.reserve(items->size());
  for (T& item : *items) {
    if (!buffer.full()) {
      buffer.Add(std::move(item));
      continue;
    }
    out.push_back(buffer.Take(&item));
  }
  while (!buffer.empty()) out.push_back(buffer.Take(nullptr));
  *items = std::move(out);
}

// A uniform permutation of `items` (Fisher-Yates, drawing from the back).
template <typename T>
void ShuffleAll(uint64_t seed, std::vector<T>* items) {
  Rng rng(seed);
  for (size_t i = items->size(); i > 1; --i) std::swap((*items)[i - 1], (*items)[rng.Uniform(i)]);
}

// 0, 1, ..., n - 1 in ShuffleAll's order for `seed`: swigflow's one uniform permutation, also
// what a global shuffle of a random-access dataset and `swigflow reshard --seed` use.
inline std::vector<int64_t> Permutation(size_t n, uint64_t seed) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  ShuffleAll(seed, &order);
  return order;
}

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_SHUFFLE_H_
