// numpy arrays out of the wrapper: our own helpers (py_runtime.h; numpy's numpy.i is not used).
// The extension module loads numpy's C API once, here.
//
// SWIG 4.5 runs %init code in a Py_mod_exec slot (returns int), so import_array()'s
// `return NULL` would not fit; ImportNumpy() returns a flag instead.
%init %{
  if (!swigflow::python::ImportNumpy()) return -1;
%}

// std::vector<int64_t> out-arguments (%apply'd by name) become int64 arrays added to the result:
// the array itself after a void or Status result, else a tuple of the outputs.
%typemap(in, numinputs=0) std::vector<int64_t>* INT64_ARRAY_OUT (std::vector<int64_t> temp) {
  $1 = &temp;
}
%typemap(argout) std::vector<int64_t>* INT64_ARRAY_OUT {
  $result = swigflow::python::AddOutput($result, swigflow::python::Int64Array(*$1));
  if ($result == nullptr) SWIG_fail;
}

// And in-arguments come from a 1-D int64 array or any sequence of ints, by reference or value.
%typemap(in) const std::vector<int64_t>& INT64_ARRAY_IN (std::vector<int64_t> temp) {
  if (!swigflow::python::Int64VectorFromPy($input, &temp)) SWIG_fail;
  $1 = &temp;
}
%typemap(in) std::vector<int64_t> INT64_ARRAY_IN {
  if (!swigflow::python::Int64VectorFromPy($input, &$1)) SWIG_fail;
}
