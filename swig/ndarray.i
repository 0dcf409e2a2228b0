// numpy arrays out of the wrapper (our own typemaps; numpy's numpy.i is not used).
%{
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

// A new 1-D int64 array with a copy of `values`. Needs the GIL.
static PyObject* SwigflowInt64Array(const std::vector<int64_t>& values) {
  npy_intp size = static_cast<npy_intp>(values.size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_INT64);
  if (array != nullptr && !values.empty()) {
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)), values.data(),
                values.size() * sizeof(int64_t));
  }
  return array;
}

// An array of `type_num` and shape `dims` over the bytes of `values`, taking them over without a
// copy: a capsule owning the vector is the array's base, so the memory lives as long as the
// array. The vector must hold exactly the array's bytes. Needs the GIL.
template <typename Vector>
static PyObject* SwigflowArrayFromBuffer(Vector&& values, int type_num, int ndim, npy_intp* dims) {
  using Owned = std::decay_t<Vector>;
  auto* owned = new Owned(std::move(values));
  PyObject* capsule = PyCapsule_New(owned, nullptr, [](PyObject* c) {
    delete static_cast<Owned*>(PyCapsule_GetPointer(c, nullptr));
  });
  if (capsule == nullptr) {
    delete owned;
    return nullptr;
  }
  PyObject* array = PyArray_SimpleNewFromData(ndim, dims, type_num, owned->data());
  if (array == nullptr) {
    Py_DECREF(capsule);
    return nullptr;
  }
  // Steals the capsule, also on failure.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), capsule) < 0) {
    Py_DECREF(array);
    return nullptr;
  }
  return array;
}

// The 1-D form: as many elements as `values` has.
template <typename Vector>
static PyObject* SwigflowArrayFromVector(Vector&& values, int type_num) {
  npy_intp size = static_cast<npy_intp>(values.size());
  return SwigflowArrayFromBuffer(std::forward<Vector>(values), type_num, 1, &size);
}

// A new 1-D object array of bytes objects copied from `values`. Needs the GIL.
template <typename Strings>
static PyObject* SwigflowBytesArray(const Strings& values) {
  npy_intp size = static_cast<npy_intp>(values.size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_OBJECT);  // zero-filled: NULL entries
  if (array == nullptr) return nullptr;
  PyObject** items = static_cast<PyObject**>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)));
  for (npy_intp i = 0; i < size; ++i) {
    items[i] = PyBytes_FromStringAndSize(values[i].data(), static_cast<Py_ssize_t>(values[i].size()));
    if (items[i] == nullptr) {
      Py_DECREF(array);
      return nullptr;
    }
  }
  return array;
}
%}

%{
// A 1-D object array that takes over the references in `items` (emptied), even on failure.
static PyObject* SwigflowObjectArray(std::vector<PyObject*>* items) {
  npy_intp size = static_cast<npy_intp>(items->size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_OBJECT);
  if (array != nullptr) {
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)), items->data(),
                items->size() * sizeof(PyObject*));
  } else {
    for (PyObject* item : *items) Py_DECREF(item);
  }
  items->clear();
  return array;
}
%}

// SWIG 4.5 runs %init code in a Py_mod_exec slot (returns int), so import_array()'s
// `return NULL` does not fit; call the function it wraps.
%init %{
  if (_import_array() < 0) return -1;
%}
