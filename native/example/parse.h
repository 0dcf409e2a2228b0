// parse_example's fast path: reads a batch of serialized Examples once, decoding only the
// requested features straight into per-feature output buffers (TensorFlow's "fast parsing").
//
// Semantics are tf.io.parse_example's: a Feature with no kind counts as missing; the last entry
// of a key wins; a wrong kind, or a FixedLen feature with the wrong number of values, is an
// error naming the key and the record; a missing FixedLen feature takes its default or is an
// error. The error reported is the first record's (in order) and, within that record, the first
// feature's in the order of `specs`. Strings are returned as views into the serialized inputs.
#ifndef SWIGFLOW_EXAMPLE_PARSE_H_
#define SWIGFLOW_EXAMPLE_PARSE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/example/example.h"
#include "swigflow/framework/memory.h"
#include "swigflow/framework/status.h"
#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace example {

struct FeatureSpec {
  enum class Type { kFixedLen, kVarLen, kFixedLenSequence, kRagged };

  std::string key;  // the key read from each example
  Type type = Type::kVarLen;
  Feature::Kind dtype = Feature::Kind::kInt64;  // kBytes, kFloat or kInt64
  // FixedLen: the shape of each example's values; FixedLenSequence: the shape of one row.
  std::vector<int64_t> shape;
  int64_t row_size = 1;  // product of shape
  // FixedLen only: row_size values used when the feature is missing.
  bool has_default = false;
  std::vector<int64_t> default_int64;
  std::vector<float> default_float;
  std::vector<std::string> default_bytes;

  // Sets shape and row_size (its product) together.
  void SetShape(std::vector<int64_t> dims) {
    shape = std::move(dims);
    row_size = 1;
    for (int64_t d : shape) row_size *= d;
  }
};

// std::allocator, except that resize() leaves new numbers uninitialized: the parser overwrites
// them at once, so zeroing them first would only cost time.
// Large blocks come from the process's BufferPool (framework/memory.h): a batch's buffers are
// reused by the next batch of the same size instead of faulting in fresh pages.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(PooledAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { PooledDeallocate(p, n * sizeof(T)); }
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialization: no zeroing
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using NumberVector = std::vector<T, UninitializedAllocator<T>>;

// The values of one spec for the whole batch, examples back to back.
struct ParsedFeature {
  NumberVector<int64_t> int64s;
  NumberVector<float> floats;
  std::vector<std::string_view> bytes;  // views into the serialized inputs (or the defaults)
  // Values per example (all specs but FixedLen, whose examples have row_size values each).
  NumberVector<int64_t> counts;

  size_t size(Feature::Kind dtype) const;
};

// Parses serialized[i] for every spec. `names` (optional, else "<unknown>") appear in errors.
// Splits large batches into at most `num_threads` parts run on `pool` (null:
// ThreadPool::Default()); the result does not depend on the split.
Status ParseExampleBatch(const std::vector<std::string_view>& serialized,
                         const std::vector<FeatureSpec>& specs,
                         const std::vector<std::string>* names, int num_threads,
                         std::vector<ParsedFeature>* out, ThreadPool* pool = nullptr);

// ParseExampleBatch's result, parsed by one background thread in consecutive parts of
// `part_records` records while the calling thread consumes them: consume(begin, strings) runs on
// the caller, in record order, as soon as records [begin, begin + part_records) are parsed, with
// their string values (strings[s]: spec s's, empty for other dtypes). It overlaps the parse with
// work only the caller can do (making Python objects of the strings, under the GIL). The first
// error, a parse error or one returned by consume, stops the parse and is returned; parts before a
// parse error are consumed first.
using StringParts = std::vector<std::vector<std::string_view>>;
Status ParseExampleBatchStreaming(
    const std::vector<std::string_view>& serialized, const std::vector<FeatureSpec>& specs,
    const std::vector<std::string>* names, size_t part_records,
    const std::function<Status(size_t begin, const StringParts& strings)>& consume,
    std::vector<ParsedFeature>* out);

}  // namespace example
}  // namespace swigflow

#endif  // SWIGFLOW_EXAMPLE_PARSE_H_
