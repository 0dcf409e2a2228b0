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

// For swigflow's per-call paths: the extension module itself, whose functions take a proxy's
// `this` (a SwigPyObject) where a method takes `self`, and method(), a proxy's method bound so.
// Given the proxy instead, SWIG 4.5 finds `this` after comparing type names: ~0.4 us a call
// under the limited API (bench/binding_call_bench.py).
%pythoncode %{
import types as _types

flat = _pywrap_swigflow


def method(proxy, name):
    """proxy.name, as a callable that passes the extension proxy.this: a method object, whose
    call builds one argument tuple (a functools.partial would build two). An object that is no
    proxy (a stand-in for a closed handle) gives its own attribute."""
    this = getattr(proxy, "this", None)
    if this is None:
        return getattr(proxy, name)
    return _types.MethodType(getattr(flat, type(proxy).__name__ + "_" + name), this)


# Module functions are the extension's own: SWIG's Python def around each (same name, same
# autodoc line) costs a frame per call. Their arguments are positional, as the def's were used.
for _name, _shim in list(globals().items()):
    if getattr(_shim, "__module__", None) == __name__ and hasattr(flat, _name):
        globals()[_name] = getattr(flat, _name)
del _name, _shim
%}
