#include "swigflow/framework/check.h"

#include <cstdio>
#include <cstdlib>

namespace swigflow {
namespace internal {

void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: swigflow invariant failed: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace swigflow
