#include "swigflow/framework/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace swigflow {

void SetCurrentThreadName(const char* name) {
#if defined(__linux__)
  char truncated[16];  // the kernel's limit, with the terminator
  snprintf(truncated, sizeof(truncated), "%s", name);
  pthread_setname_np(pthread_self(), truncated);
#else
  (void)name;
#endif
}

ThreadPool::ThreadPool(int num_threads, bool spin) : spin_(spin) {
  for (int i = 1; i < num_threads; ++i) {
    try {
      workers_.emplace_back([this, i] { WorkerLoop(i); });
    } catch (const std::system_error&) {
      break;  // no more threads to be had (RLIMIT_NPROC): run with those that started
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

// Claims tasks until none is left (or, pinned, runs task `index` if there is one); every
// participant runs this, the caller as index 0. A task that throws ends its job: the tasks not
// yet started are skipped and the caller rethrows.
void ThreadPool::RunTasks(int index) {
  const auto run = [&](int64_t i) {
    try {
      (*fn_)(i);
    } catch (...) {
      next_.store(n_);
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
  };
  if (pinned_) {
    if (index < n_ && next_.load() < n_) run(index);
    return;
  }
  for (int64_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) run(i);
}

namespace {

// Waking a thread from a futex costs tens of microseconds on a VM, as much as a whole small
// job: waiters first spin this long on the atomic they wait for.
constexpr auto kSpin = std::chrono::microseconds(50);

template <typename Done>
void SpinFor(bool spin, Done done) {
  if (!spin) return;
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; !done(); ++i) {
    if (i % 64 == 63 && std::chrono::steady_clock::now() > until) return;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace

void ThreadPool::WorkerLoop(int index) {
  SetCurrentThreadName("sf-pool");
  uint64_t seen = 0;
  for (;;) {
    SpinFor(spin_, [&] { return generation_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    RunTasks(index);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (active_.fetch_sub(1) == 1) work_done_.notify_one();
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t)>& fn) {
  Run(n, fn, false);
}

void ThreadPool::ParallelForPinned(int64_t n, const std::function<void(int64_t)>& fn) {
  Run(n, fn, n <= num_threads());  // more tasks than threads: shared out as ParallelFor does
}

void ThreadPool::Run(int64_t n, const std::function<void(int64_t)>& fn, bool pinned) {
  if (n <= 0) return;
  std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
  if (workers_.empty() || n == 1 || !busy.owns_lock()) {
    for (int64_t i = 0; i < n; ++i) fn(i);  // no pool, nothing to share, or the pool is busy
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    n_ = n;
    pinned_ = pinned;
    next_.store(0);
    active_ = static_cast<int>(workers_.size());
    generation_.fetch_add(1, std::memory_order_release);
  }
  work_ready_.notify_all();
  RunTasks(0);
  SpinFor(spin_, [&] { return active_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mu_);
  work_done_.wait(lock, [&] { return active_ == 0; });  // workers are done with fn_
  fn_ = nullptr;
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> error_lock(error_mu_);
    error.swap(error_);
  }
  if (error) std::rethrow_exception(error);
}

namespace {

// The process-wide pool. A forked child (a DataLoader or Grain worker) has only the thread that
// called fork: the parent's workers are gone, so the child forgets the pool (leaking it: joining
// threads that no longer exist would hang) and makes its own on first use.
std::atomic<ThreadPool*> default_pool{nullptr};

void ForgetDefaultPoolInChild() { default_pool.store(nullptr, std::memory_order_relaxed); }

ThreadPool* NewDefaultPool() {
  return new ThreadPool(DefaultThreadCount());  // lives until exit, like its threads
}

}  // namespace

int DefaultThreadCount() {
  if (const char* env = std::getenv("SWIGFLOW_NUM_THREADS")) {
    char* end = nullptr;
    errno = 0;
    const long requested = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && errno == 0 && requested > 0 && requested <= 4096) {
      return static_cast<int>(requested);
    }
  }
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

ThreadPool* ThreadPool::Default() {
  ThreadPool* pool = default_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return pool;
  static const int registered = pthread_atfork(nullptr, nullptr, &ForgetDefaultPoolInChild);
  (void)registered;
  ThreadPool* made = NewDefaultPool();
  // Two first callers at once: one pool wins, the other is joined and freed.
  if (default_pool.compare_exchange_strong(pool, made, std::memory_order_acq_rel)) return made;
  delete made;
  return pool;
}

}  // namespace swigflow
