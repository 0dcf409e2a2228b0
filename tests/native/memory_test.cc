// BufferPool: blocks kept within the budget and handed back for the same size, oldest released
// first, nothing kept with a budget of 0, and threads sharing the pool (run under TSan in CI).
#include "swigflow/framework/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace swigflow {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(BufferPoolTest, ReusesABlockOfTheSameSize) {
  BufferPool pool(8 * kMiB);
  void* a = pool.Allocate(2 * kMiB);
  std::memset(a, 7, 2 * kMiB);
  pool.Deallocate(a, 2 * kMiB);
  EXPECT_EQ(pool.held(), 2 * kMiB);
  void* other = pool.Allocate(3 * kMiB);  // another size: a new block
  EXPECT_NE(other, a);
  void* again = pool.Allocate(2 * kMiB);
  EXPECT_EQ(again, a);
  EXPECT_EQ(pool.held(), 0u);
  pool.Deallocate(again, 2 * kMiB);
  pool.Deallocate(other, 3 * kMiB);
  EXPECT_EQ(pool.held(), 5 * kMiB);
}

TEST(BufferPoolTest, ReleasesTheOldestBlocksBeyondItsBudget) {
  BufferPool pool(4 * kMiB);
  void* first = pool.Allocate(2 * kMiB);
  void* second = pool.Allocate(2 * kMiB);
  void* third = pool.Allocate(2 * kMiB);
  pool.Deallocate(first, 2 * kMiB);
  pool.Deallocate(second, 2 * kMiB);
  pool.Deallocate(third, 2 * kMiB);  // over budget: `first` goes back to the system
  EXPECT_EQ(pool.held(), 4 * kMiB);
  void* a = pool.Allocate(2 * kMiB);
  void* b = pool.Allocate(2 * kMiB);
  EXPECT_TRUE((a == third && b == second));  // the most recent first
  EXPECT_EQ(pool.held(), 0u);
  pool.Deallocate(a, 2 * kMiB);
  pool.Deallocate(b, 2 * kMiB);
  void* big = pool.Allocate(5 * kMiB);  // larger than the budget: never kept
  pool.Deallocate(big, 5 * kMiB);
  EXPECT_EQ(pool.held(), 4 * kMiB);
}

TEST(BufferPoolTest, ZeroBudgetKeepsNothing) {
  BufferPool pool(0);
  void* a = pool.Allocate(kMiB);
  pool.Deallocate(a, kMiB);
  EXPECT_EQ(pool.held(), 0u);
}

TEST(BufferPoolTest, SmallBlocksBypassThePool) {
  void* small = PooledAllocate(100);
  std::memset(small, 1, 100);
  PooledDeallocate(small, 100);
  void* large = PooledAllocate(BufferPool::kMinBytes);
  std::memset(large, 1, BufferPool::kMinBytes);
  PooledDeallocate(large, BufferPool::kMinBytes);
}

TEST(BufferPoolTest, ThreadsShareOnePool) {
  BufferPool pool(16 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t bytes = (1 + (i + t) % 3) * kMiB;
        auto* block = static_cast<uint8_t*>(pool.Allocate(bytes));
        block[0] = static_cast<uint8_t>(t);
        block[bytes - 1] = static_cast<uint8_t>(i);
        ASSERT_EQ(block[0], static_cast<uint8_t>(t));  // no other thread holds it
        pool.Deallocate(block, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(pool.held(), 16 * kMiB);
}

}  // namespace
}  // namespace swigflow
