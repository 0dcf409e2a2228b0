// A blocking FIFO of bounded capacity between pipeline threads, closable from either side. It
// keeps the statistics of pipeline_stats.h: how full it was and how long each side blocked.
#ifndef SWIGFLOW_DATA_BOUNDED_QUEUE_H_
#define SWIGFLOW_DATA_BOUNDED_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>

#include "swigflow/data/pipeline_stats.h"

namespace swigflow {
namespace data {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  struct Stats {
    size_t capacity = 0;
    size_t size = 0;
    double mean_fill = 0.0;    // items held when one was taken, on average
    int64_t push_wait_ns = 0;  // pushes blocked because it was full
    int64_t pop_wait_ns = 0;   // pops blocked because it was empty
  };

  // Blocks while full. False (and `item` untouched) once the queue is closed.
  bool Push(T&& item) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!closed_ && items_.size() >= capacity_) {  // the clock runs only when blocked
      const int64_t start = NowNs();
      push_wait_.Begin(start);
      not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
      push_wait_.End(start, NowNs());
    }
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  // Blocks while empty. False once the queue is closed and drained.
  bool Pop(T* item) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!closed_ && items_.empty()) {
      const int64_t start = NowNs();
      pop_wait_.Begin(start);
      not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
      pop_wait_.End(start, NowNs());
    }
    return TakeFront(item);
  }

  // Pop that gives up after `timeout`: false with *timed_out set when nothing came in time.
  template <typename Duration>
  bool PopFor(T* item, Duration timeout, bool* timed_out) {
    std::unique_lock<std::mutex> lock(mu_);
    *timed_out = false;
    if (!closed_ && items_.empty()) {
      const int64_t start = NowNs();
      pop_wait_.Begin(start);
      *timed_out = !not_empty_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
      pop_wait_.End(start, NowNs());
    }
    return !*timed_out && TakeFront(item);
  }

  Stats GetStats() const {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t now = NowNs();
    Stats s;
    s.capacity = capacity_;
    s.size = items_.size();
    s.mean_fill = pops_ > 0 ? static_cast<double>(fill_sum_) / static_cast<double>(pops_) : 0.0;
    s.push_wait_ns = push_wait_.Total(now);
    s.pop_wait_ns = pop_wait_.Total(now);
    return s;
  }

  // Wakes every waiter: pushes fail from now on, pops drain what is left.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  // Requires mu_. False when empty.
  bool TakeFront(T* item) {
    if (items_.empty()) return false;
    ++pops_;
    fill_sum_ += items_.size();
    *item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return true;
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;  // guarded by mu_
  bool closed_ = false;  // guarded by mu_
  // Statistics, guarded by mu_:
  WaitClock push_wait_;
  WaitClock pop_wait_;
  int64_t pops_ = 0;
  uint64_t fill_sum_ = 0;
};

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_BOUNDED_QUEUE_H_
