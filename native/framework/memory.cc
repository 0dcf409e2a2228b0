#include "swigflow/framework/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

namespace swigflow {

bool RetainFreedMemory(size_t bytes) {
#if defined(__GLIBC__)
  constexpr int kMmapThreshold = 32 << 20;  // glibc's largest allowed value on 64-bit
  const int trim = bytes > (1u << 30) ? (1 << 30) : static_cast<int>(bytes);
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim) == 1;
#else
  (void)bytes;
  return false;
#endif
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kKeepBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kKeepBlocks = false;
#else
constexpr bool kKeepBlocks = true;
#endif
#else
constexpr bool kKeepBlocks = true;
#endif

size_t DefaultBudget() {
  const char* text = std::getenv("SWIGFLOW_BUFFER_POOL_BYTES");
  if (text == nullptr || *text == '\0') return size_t{256} << 20;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? static_cast<size_t>(value) : size_t{256} << 20;
}

}  // namespace

BufferPool::~BufferPool() {
  for (const auto& [bytes, block] : free_) ::operator delete(block);
}

BufferPool& BufferPool::Default() {
  // Never destroyed: blocks may be given back by threads still running at exit.
  static BufferPool* pool = new BufferPool(kKeepBlocks ? DefaultBudget() : 0);
  return *pool;
}

void* BufferPool::Allocate(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = free_.rbegin(); it != free_.rend(); ++it) {  // the most recent first
      if (it->first == bytes) {
        void* block = it->second;
        held_ -= bytes;
        free_.erase(std::next(it).base());
        return block;
      }
    }
  }
  return ::operator new(bytes);
}

void BufferPool::Deallocate(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (bytes > budget_) {
    ::operator delete(block);
    return;
  }
  std::deque<std::pair<size_t, void*>> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.emplace_back(bytes, block);
    held_ += bytes;
    while (held_ > budget_) {
      released.push_back(free_.front());
      held_ -= free_.front().first;
      free_.pop_front();
    }
  }
  for (const auto& [size, old] : released) ::operator delete(old);
}

size_t BufferPool::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

void* PooledAllocate(size_t bytes) {
  return bytes >= BufferPool::kMinBytes ? BufferPool::Default().Allocate(bytes)
                                        : ::operator new(bytes);
}

void PooledDeallocate(void* block, size_t bytes) {
  if (bytes >= BufferPool::kMinBytes) {
    BufferPool::Default().Deallocate(block, bytes);
  } else {
    ::operator delete(block);
  }
}

}  // namespace swigflow
