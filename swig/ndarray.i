// numpy arrays out of the wrapper: our own helpers (py_runtime.h; numpy's numpy.i is not used).
// The extension module loads numpy's C API once, here.
//
// SWIG 4.5 runs %init code in a Py_mod_exec slot (returns int), so import_array()'s
// `return NULL` would not fit; ImportNumpy() returns a flag instead.
%init %{
  if (!swigflow::python::ImportNumpy()) return -1;
%}
