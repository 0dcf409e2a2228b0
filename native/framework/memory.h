// How the process's allocator treats freed memory.
#ifndef SWIGFLOW_FRAMEWORK_MEMORY_H_
#define SWIGFLOW_FRAMEWORK_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>

namespace swigflow {

// Keeps up to `bytes` of freed memory in the process instead of handing it back to the system
// at once. glibc returns the top of its heap whenever more than 128 KiB is free there, so a loop
// that allocates and frees 100 KiB records (a Python bytes object each) takes a page fault for
// every 4 KiB of every record, which costs more than reading it. This sets glibc's trim
// threshold to `bytes` and its mmap threshold to 32 MiB (records up to that size come from the
// heap, not from a fresh mapping each). Process-wide; returns false where the allocator is not
// glibc's or refuses.
bool RetainFreedMemory(size_t bytes);

// Large buffers kept mapped between uses. A batch of decoded images (64 x 224 x 224 x 3 float32
// is 38 MB) is larger than glibc's largest mmap threshold, so each one would be a fresh mapping
// whose every page faults when first written: a quarter of a float32 image pipeline's CPU time
// (measured on Zen 4). A freed block of at least kMinBytes goes back to a free list (the oldest
// blocks are released once more than the budget is held), and an allocation of the same size
// takes it again. Thread-safe. Under AddressSanitizer it holds nothing, so that ASan still sees
// every use after free.
class BufferPool {
 public:
  static constexpr size_t kMinBytes = 1 << 20;

  // `budget`: the most freed bytes kept.
  explicit BufferPool(size_t budget) : budget_(budget) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The process's pool: SWIGFLOW_BUFFER_POOL_BYTES (default 256 MiB; 0 keeps nothing).
  static BufferPool& Default();

  // `bytes` of memory (aligned for any type): a kept block of exactly that size when there is
  // one. Throws std::bad_alloc as operator new does.
  void* Allocate(size_t bytes);
  // Gives back a block Allocate returned, with the size it was asked for.
  void Deallocate(void* block, size_t bytes);

  // Freed bytes held now (for tests and statistics).
  size_t held() const;

 private:
  const size_t budget_;
  mutable std::mutex mu_;
  std::deque<std::pair<size_t, void*>> free_;  // oldest first
  size_t held_ = 0;
};

// Allocate / Deallocate through BufferPool::Default() for blocks of at least kMinBytes, and
// operator new / delete for smaller ones.
void* PooledAllocate(size_t bytes);
void PooledDeallocate(void* block, size_t bytes);

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_MEMORY_H_
