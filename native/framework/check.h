// SWIGFLOW_DCHECK(condition): an invariant the code relies on, checked where checks are
// compiled in (the sanitizer configs, --config=asan and --config=tsan, which define
// SWIGFLOW_DCHECKS, and builds without NDEBUG such as -c dbg) and free elsewhere. A failed check
// prints the condition and its place and aborts, so that the sanitizer's report (or the core)
// shows the stack.
//
// Elsewhere the condition is still compiled, so it cannot rot, but never evaluated.
#ifndef SWIGFLOW_FRAMEWORK_CHECK_H_
#define SWIGFLOW_FRAMEWORK_CHECK_H_

namespace swigflow {
namespace internal {

[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);

}  // namespace internal
}  // namespace swigflow

#if defined(SWIGFLOW_DCHECKS) || !defined(NDEBUG)
#define SWIGFLOW_DCHECKS_ON 1
#define SWIGFLOW_DCHECK(condition) \
  ((condition) ? (void)0 : ::swigflow::internal::CheckFailed(#condition, __FILE__, __LINE__))
#else
#define SWIGFLOW_DCHECKS_ON 0
#define SWIGFLOW_DCHECK(condition) ((void)sizeof(!(condition)))
#endif

#endif  // SWIGFLOW_FRAMEWORK_CHECK_H_
