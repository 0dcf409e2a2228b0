// swigflow::Status -> Python: OK becomes None, anything else raises the swigflow.errors class of
// its code (InvalidArgumentError, NotFoundError, DataLossError, ...), as tf.errors does.
//
// The classes live in Python (swigflow/errors.py). At import that module registers a factory
// `f(code, message) -> exception instance` (py_runtime.h); C++ never hard-codes Python class
// names.
%{
#include <cxxabi.h>

#include "swig/py_runtime.h"
%}

// Every wrapper: a C++ exception (std::bad_alloc, ...) raises the swigflow.errors class of its
// Status (ResourceExhaustedError, also a MemoryError) instead of aborting the interpreter. A
// thread ended by pthread_exit must unwind on: Python ends daemon threads that way when one
// takes the GIL back while the interpreter finalizes (a prefetch thread in a native call).
%exception {
  try {
    $action
  } catch (abi::__forced_unwind&) {
    throw;
  } catch (...) {
    swigflow::python::SetStatusError(swigflow::StatusFromCurrentException());
    SWIG_fail;
  }
}

// Declared for SWIG, so that `Status` inside swigflow's namespaces resolves to this type.
namespace swigflow {
class Status;
}

%typemap(out) swigflow::Status {
  if (!$1.ok()) {
    swigflow::python::SetStatusError($1);
    SWIG_fail;
  }
  $result = SWIG_Py_Void();
}

// Waits for native threads to leave Python: without the GIL, which they need to.
SWIGFLOW_RELEASE_GIL(swigflow::python::CloseNativeCalls)

%ignoreall
%rename("%s") swigflow::python::RegisterExceptionFactory;
%rename("%s") swigflow::python::StatusForTesting;
%rename("%s") swigflow::python::CloseNativeCalls;
%include "swig/py_runtime.h"
%unignoreall
