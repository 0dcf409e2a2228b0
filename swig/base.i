// Conventions shared by every interface file.
//
// Nothing is wrapped unless an interface un-ignores it: %include-ing a real header then exposes
// exactly the functions listed, under a Python name chosen here.
//
//   %ignoreall
//   %rename(Crc32cExtend) swigflow::crc32c::Extend;
//   %include "swigflow/io/crc32c.h"
//   %unignoreall

// int64_t is long on the LP64 platforms we build for; SWIG assumes long long unless told.
#define SWIGWORDSIZE64
%include <stdint.i>
%include <std_string.i>

// Matching by kind (%$isfunction, ...) rather than `%ignore ""` lets a later %rename of one name win.
%define %ignoreall
%rename($ignore, %$isfunction) "";
%rename($ignore, %$isclass) "";
%rename($ignore, %$isvariable) "";
%rename($ignore, %$isconstant) "";
%enddef
%define %unignoreall
%rename("%s", %$isfunction) "";
%rename("%s", %$isclass) "";
%rename("%s", %$isvariable) "";
%rename("%s", %$isconstant) "";
%enddef

// Releases the GIL around the C++ call of FUNCTION. Only for functions that touch no Python
// object: argument conversion happens before and result conversion after, with the GIL held.
// A C++ exception becomes the Python error of its Status (status.i), as in every wrapper.
%define SWIGFLOW_RELEASE_GIL(FUNCTION)
%exception FUNCTION {
  swigflow::Status swigflow_thrown;
  Py_BEGIN_ALLOW_THREADS
  swigflow_thrown = swigflow::CatchExceptions([&]() -> swigflow::Status {
    $action
    return swigflow::Status::OK();
  });
  Py_END_ALLOW_THREADS
  if (!swigflow_thrown.ok()) {
    swigflow::python::SetStatusError(swigflow_thrown);
    SWIG_fail;
  }
}
%enddef

// (const char* data, size_t n) from any object exporting a C-contiguous buffer: bytes, bytearray,
// memoryview, array.array, a contiguous numpy array. The buffer stays exported (so a bytearray
// cannot be resized under us) until the wrapper returns, also while the GIL is released.
%typemap(in) (const char* data, size_t n) (Py_buffer view = {}) {
  if (PyObject_GetBuffer($input, &view, PyBUF_C_CONTIGUOUS) != 0) {
    SWIG_fail;  // TypeError: a bytes-like object is required, not 'str'
  }
  $1 = static_cast<$1_ltype>(view.buf);
  $2 = static_cast<$2_ltype>(view.len);
}
%typemap(freearg) (const char* data, size_t n) {
  if (view$argnum.obj != nullptr) PyBuffer_Release(&view$argnum);
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) (const char* data, size_t n) {
  $1 = PyObject_CheckBuffer($input) ? 1 : 0;
}
