#include "swigflow/framework/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>

#include <cstddef>
#endif

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

}  // namespace swigflow
