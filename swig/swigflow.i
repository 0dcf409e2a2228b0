// The single SWIG module of swigflow: _pywrap_swigflow.so and its shim swigflow/pywrap_swigflow.py.
// Each concept has its own interface file; python/swigflow/ wraps these low-level functions in the
// public, TensorFlow-named API.
%module(package="swigflow") pywrap_swigflow

// Every wrapped function and method gets a docstring "Name(type arg, ...) -> type", from which
// py_wrap_cc writes the module's type stub (bazel/swig_stub.py).
%feature("autodoc", "1");

%include "swig/base.i"
%include "swig/status.i"
%include "swig/build_info.i"
%include "swig/memory.i"
%include "swig/ndarray.i"
%include "swig/crc32c.i"
%include "swig/record_io.i"
%include "swig/example.i"
%include "swig/image.i"
%include "swig/data.i"
%include "swig/linalg.i"
%include "swig/ops.i"
