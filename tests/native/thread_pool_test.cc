#include "swigflow/framework/thread_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "swigflow/framework/cpu_info.h"

namespace swigflow {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskOnce) {
  for (bool spin : {true, false}) {
    for (int threads : {1, 2, 4}) {
      ThreadPool pool(threads, spin);
      EXPECT_EQ(pool.num_threads(), threads);
      for (int64_t n : {0, 1, 2, 7, 1000}) {
        std::vector<std::atomic<int>> hits(n);
        pool.ParallelFor(n, [&](int64_t i) { hits[i]++; });
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << spin << " " << threads << " " << n;
        }
      }
    }
  }
}

TEST(ThreadPoolTest, PinnedTasksRunOnTheSameThreadEveryCall) {
  ThreadPool pool(3);
  std::vector<std::thread::id> first(3);
  pool.ParallelForPinned(3, [&](int64_t i) { first[i] = std::this_thread::get_id(); });
  EXPECT_EQ(first[0], std::this_thread::get_id());  // task 0 is the caller's
  EXPECT_NE(first[1], first[2]);
  EXPECT_NE(first[1], first[0]);
  for (int call = 0; call < 50; ++call) {
    std::vector<std::thread::id> seen(3);
    pool.ParallelForPinned(3, [&](int64_t i) { seen[i] = std::this_thread::get_id(); });
    ASSERT_EQ(seen, first) << "call " << call;
  }
  // Fewer tasks than threads, and more (shared out like ParallelFor): each still runs once.
  for (int64_t n : {0, 1, 2, 9}) {
    std::vector<std::atomic<int>> hits(n);
    pool.ParallelForPinned(n, [&](int64_t i) { hits[i]++; });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n;
  }
  // Nested inside a running job: the tasks run in the calling thread, in order.
  pool.ParallelFor(2, [&](int64_t) {
    std::vector<int64_t> order;
    pool.ParallelForPinned(3, [&](int64_t i) { order.push_back(i); });
    EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2}));
  });
}

TEST(ThreadPoolTest, ATaskExceptionIsRethrownInTheCallerAndThePoolGoesOn) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.ParallelFor(1000,
                                  [&](int64_t i) {
                                    ++ran;
                                    if (i == 3) throw std::bad_alloc();
                                  }),
                 std::bad_alloc);
    EXPECT_LE(ran.load(), 1000);
    std::atomic<int> after{0};
    pool.ParallelFor(100, [&](int64_t) { ++after; });  // no stale error, no lost worker
    EXPECT_EQ(after.load(), 100);
  }
}

TEST(ThreadPoolTest, UsesMoreThanOneThread) {
  ThreadPool pool(2);
  std::atomic<int> inside{0}, overlapped{0};
  pool.ParallelFor(2, [&](int64_t) {
    if (++inside == 2) overlapped = 1;
    // Wait for the other task for up to 5 s: a loaded machine (sanitizers, other jobs) can be
    // slow to run the worker, but it must run it.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!overlapped && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    --inside;
  });
  EXPECT_EQ(overlapped.load(), 1);
}

TEST(ThreadPoolTest, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.ParallelFor(4, [&](int64_t) { pool.ParallelFor(3, [&](int64_t) { total++; }); });
  EXPECT_EQ(total.load(), 12);
}

TEST(ThreadPoolTest, ConcurrentCallersAllFinish) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) pool.ParallelFor(10, [&](int64_t i) { total += i; });
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 200 * 45);
}

TEST(ThreadPoolTest, ManySmallJobs) {  // stresses the hand-over between jobs (run under ASan)
  for (bool spin : {true, false}) {    // without spinning, every hand-over goes through the futex
    ThreadPool pool(3, spin);
    int64_t sum = 0;
    std::vector<int64_t> part(3);
    for (int job = 0; job < 20000; ++job) {
      pool.ParallelFor(3, [&](int64_t i) { part[i] = i + job; });
      sum += part[0] + part[1] + part[2];
    }
    EXPECT_EQ(sum, 20000LL * 3 + 3LL * (20000LL * 19999 / 2)) << spin;
  }
}

#if defined(__linux__)
std::string ThreadName(std::thread::native_handle_type thread) {
  char name[16] = {};
  pthread_getname_np(thread, name, sizeof(name));
  return name;
}

TEST(ThreadPoolTest, ThreadsAreNamed) {
  std::string inside;
  std::thread named([&] {
    SetCurrentThreadName("sf-a-name-longer-than-15");
    inside = ThreadName(pthread_self());
  });
  named.join();
  EXPECT_EQ(inside, "sf-a-name-longe");  // the kernel keeps 15 characters
  ThreadPool pool(2);
  std::string worker;
  pool.ParallelForPinned(2, [&](int64_t i) {
    if (i == 1) worker = ThreadName(pthread_self());
  });
  EXPECT_EQ(worker, "sf-pool");
}
#endif

TEST(ThreadPoolTest, DefaultThreadCountFollowsTheEnvironmentOnEachCall) {
  const int cores = std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
  const char* saved = std::getenv("SWIGFLOW_NUM_THREADS");
  const std::string before = saved == nullptr ? "" : saved;
  ::unsetenv("SWIGFLOW_NUM_THREADS");
  EXPECT_EQ(DefaultThreadCount(), cores);
  ::setenv("SWIGFLOW_NUM_THREADS", "3", 1);
  EXPECT_EQ(DefaultThreadCount(), 3);
  ::setenv("SWIGFLOW_NUM_THREADS", "4096", 1);
  EXPECT_EQ(DefaultThreadCount(), 4096);
  for (const char* ignored : {"0", "-2", "", "3x", "4097", "99999999999999999999"}) {
    ::setenv("SWIGFLOW_NUM_THREADS", ignored, 1);
    EXPECT_EQ(DefaultThreadCount(), cores) << "SWIGFLOW_NUM_THREADS=" << ignored;
  }
  if (saved == nullptr) {
    ::unsetenv("SWIGFLOW_NUM_THREADS");
  } else {
    ::setenv("SWIGFLOW_NUM_THREADS", before.c_str(), 1);
  }
}

TEST(CpuInfoTest, FeaturesAreConsistent) {
  const CpuFeatures& f = GetCpuFeatures();
  if (f.avx512) {
    EXPECT_TRUE(f.avx2);
  }
  if (f.avx512_vnni || f.avx512_bf16) {
    EXPECT_TRUE(f.avx512);
  }
  EXPECT_EQ(BestIsa(), f.avx512 ? Isa::kAvx512 : f.avx2 ? Isa::kAvx2 : Isa::kScalar);
  EXPECT_STREQ(IsaName(Isa::kAvx2), "avx2");
}

TEST(CpuInfoTest, EnvironmentSelectsTheScalarPath) {
  // SelectedIsa() reads the environment once per process; this test is its first caller.
  setenv("SWIGFLOW_ISA", "scalar", 1);
  std::string note = "unchanged";
  EXPECT_EQ(SelectedIsa(&note), Isa::kScalar);
  EXPECT_EQ(note, "");
}

}  // namespace
}  // namespace swigflow
