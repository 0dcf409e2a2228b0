// Facts about how _pywrap_swigflow.so was compiled, for swigflow.sysconfig: code built against the
// shipped headers must use the same C++ ABI.
%inline %{
int CxxAbiFlag() {
#ifdef _GLIBCXX_USE_CXX11_ABI
  return _GLIBCXX_USE_CXX11_ABI;
#else
  return -1;  // not libstdc++
#endif
}

// The stable ABI the module keeps to (Py_LIMITED_API, e.g. 0x030b0000 for 3.11): the oldest
// CPython it loads in, which the wheel's tag and Requires-Python state (pkg/setup.py).
long LimitedApiVersion() { return Py_LIMITED_API; }
%}

// The thread-count rule, so Python splits its work as the native pool does.
%{
#include "swigflow/framework/thread_pool.h"
%}
%ignoreall
%rename("%s") swigflow::DefaultThreadCount;
%include "swigflow/framework/thread_pool.h"
%unignoreall
