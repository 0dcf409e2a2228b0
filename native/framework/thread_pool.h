// A persistent pool of worker threads for the native kernels and parsers.
//
// ParallelFor(n, fn) runs fn(0) .. fn(n - 1), the calling thread taking part, and returns when
// all are done. Callers split their work into fixed parts (by rows or records, never so that a
// sum's order depends on the split), so results do not depend on the number of threads.
#ifndef SWIGFLOW_FRAMEWORK_THREAD_POOL_H_
#define SWIGFLOW_FRAMEWORK_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace swigflow {

// Names the calling thread (at most 15 characters are kept) so that `top -H`, perf and gdb tell
// swigflow's threads apart. Does nothing where threads cannot be named.
void SetCurrentThreadName(const char* name);

class ThreadPool {
 public:
  // A pool that runs work on `num_threads` threads in all: the caller and num_threads - 1
  // workers (so 1 means everything runs in the caller). Workers that cannot be started (a
  // thread limit) are left out: the pool then has fewer threads, never fails.
  //
  // spin: a waiting thread (a worker between jobs, the caller for its workers) first spins
  // briefly before it sleeps, since waking from a futex costs as much as a small job. That suits
  // kernels called back to back. A pool whose callers share the cores with other busy threads (a
  // pipeline's stages) should not spin: on a loaded machine the spinning takes their core.
  explicit ThreadPool(int num_threads, bool spin = true);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for every i in [0, n). Tasks run in parallel only when the pool is free: a call
  // made while another is running (from another thread, or from inside a task) runs its tasks
  // in the calling thread, so nesting never deadlocks. If a task throws (std::bad_alloc), the
  // tasks not yet started are skipped and the first exception is rethrown here, in the caller.
  void ParallelFor(int64_t n, const std::function<void(int64_t)>& fn);

  // The same, with each of n <= num_threads() tasks always on the same thread: the caller runs
  // task 0 and worker i runs task i + 1 (more tasks are shared out as by ParallelFor). Successive
  // calls then find a task's data in the cache of the core that last touched it (a GEMM's block of
  // C across its K panels). When the pool is busy the caller runs the tasks one after another, as
  // ParallelFor does.
  void ParallelForPinned(int64_t n, const std::function<void(int64_t)>& fn);

  // The process-wide pool, of DefaultThreadCount() threads when it is first used.
  static ThreadPool* Default();

 private:
  void WorkerLoop(int index);
  void RunTasks(int index);
  void Run(int64_t n, const std::function<void(int64_t)>& fn, bool pinned);

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller of the running ParallelFor

  std::mutex mu_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  // Written under mu_ (the condition variables' protocol); atomic so that waiters can spin on
  // them briefly before they sleep.
  std::atomic<uint64_t> generation_{0};  // bumped for every job
  std::atomic<int> active_{0};           // workers still inside the current job
  bool stopping_ = false;                // guarded by mu_
  const bool spin_;

  const std::function<void(int64_t)>* fn_ = nullptr;  // the current job
  int64_t n_ = 0;
  bool pinned_ = false;  // task i runs on thread i (the caller is 0) instead of the next free one
  std::atomic<int64_t> next_{0};
  std::mutex error_mu_;
  std::exception_ptr error_;  // the first exception a task of the current job threw
};

// The one rule for swigflow's parallelism: SWIGFLOW_NUM_THREADS when it is an integer in
// [1, 4096], else one per core. Read anew on each call: Python splits its work by it per call,
// the default pool once, when it is first used.
int DefaultThreadCount();

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_THREAD_POOL_H_
