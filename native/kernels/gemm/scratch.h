// Per-thread scratch buffers for the packed panels: grown, never shrunk, so steady calls
// neither allocate nor touch fresh pages.
#ifndef SWIGFLOW_KERNELS_GEMM_SCRATCH_H_
#define SWIGFLOW_KERNELS_GEMM_SCRATCH_H_

#include <cstddef>
#include <memory>

namespace swigflow {
namespace kernels {
namespace gemm {

// Buffer `which` (< kBuffers) of the calling thread, at least n elements of T and `slack` more
// (room a kernel may read past the last panel), contents undefined. Each element type has its
// own kBuffers buffers.
template <typename T, int kBuffers>
T* ThreadScratch(int which, size_t n, size_t slack = 0) {
  struct Buffer {
    std::unique_ptr<T[]> data;
    size_t size = 0;
  };
  thread_local Buffer buffers[kBuffers];
  Buffer& b = buffers[which];
  if (b.size < n) {
    b.data.reset(new T[n + slack]);  // default-initialized: not zeroed
    b.size = n;
  }
  return b.data.get();
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_SCRATCH_H_
