// What the native pipeline's stages did since it started: the numbers behind swigflow.data's
// Iterator.stats() and `swigflow profile`. Collecting costs two clock reads per chunk, batch or
// blocked wait, never per record.
#ifndef SWIGFLOW_DATA_PIPELINE_STATS_H_
#define SWIGFLOW_DATA_PIPELINE_STATS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace swigflow {
namespace data {

// One stage. Times are wall-clock nanoseconds: busy + input_wait + output_wait is the time the
// stage's thread was alive (read: summed over its reader threads; parse and decode work on a
// batch with a pool of `threads`).
struct StageStats {
  std::string name;  // "read", "assemble", "parse" or "decode"
  int threads = 1;
  int64_t busy_ns = 0;
  int64_t input_wait_ns = 0;   // waiting for the stage before it
  int64_t output_wait_ns = 0;  // waiting for room in its output (readers: in the read-ahead)
  int64_t elements = 0;        // chunks read, or batches made
  int64_t records = 0;
  int64_t bytes = 0;  // read: record payloads; decode: pixels written
  int64_t files = 0;  // read: files opened
};

// A queue between two stages, named after the stage that fills it.
struct QueueStats {
  std::string name;
  int64_t capacity = 0;
  int64_t size = 0;        // items in it now
  double mean_fill = 0.0;  // items in it when one was taken, on average
};

struct PipelineStats {
  int64_t elapsed_ns = 0;
  std::vector<StageStats> stages;  // in pipeline order
  std::vector<QueueStats> queues;
  int64_t consumer_wait_ns = 0;  // Pipeline::Next waiting for an element
  int64_t delivered = 0;         // elements Next returned
};

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Time blocked, by any number of threads at once; a wait still in progress counts up to `now`.
// Its owner's mutex guards it.
class WaitClock {
 public:
  void Begin(int64_t now) {
    ++waiting_;
    starts_ += now;
  }
  void End(int64_t start, int64_t now) {
    --waiting_;
    starts_ -= start;
    total_ += now - start;
  }
  int64_t Total(int64_t now) const { return total_ + waiting_ * now - starts_; }

 private:
  int64_t total_ = 0;
  int64_t waiting_ = 0;
  int64_t starts_ = 0;  // the sum of the waits in progress' start times
};

// Counters a stage's threads add to without a lock.
struct StageCounters {
  std::atomic<int64_t> busy_ns{0};
  std::atomic<int64_t> input_wait_ns{0};
  std::atomic<int64_t> elements{0};
  std::atomic<int64_t> records{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> files{0};
};

inline void AddTo(std::atomic<int64_t>* counter, int64_t n) {
  counter->fetch_add(n, std::memory_order_relaxed);
}

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_PIPELINE_STATS_H_
