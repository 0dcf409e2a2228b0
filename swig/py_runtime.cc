// The one translation unit that defines numpy's C API table (see py_runtime.h).
#define SWIGFLOW_DEFINE_NUMPY_API
#include "swig/py_runtime.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace swigflow {
namespace python {
namespace {

PyObject* g_exception_factory = nullptr;  // strong reference, set once by errors.py

}  // namespace

bool ImportNumpy() { return _import_array() >= 0; }

namespace {

// The interrupt KeepInterrupt took in this thread, and the message of the Status it returned.
struct KeptInterrupt {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  std::string message;
};
thread_local KeptInterrupt kept_interrupt;

}  // namespace

bool InterruptPending() {
  PyObject* type = PyErr_Occurred();
  return type != nullptr && !PyErr_GivenExceptionMatches(type, PyExc_Exception);
}

Status KeepInterrupt(const std::string& where) {
  KeptInterrupt& kept = kept_interrupt;
  Py_XDECREF(kept.type);  // an earlier one whose Status never reached Python
  Py_XDECREF(kept.value);
  Py_XDECREF(kept.traceback);
  PyErr_Fetch(&kept.type, &kept.value, &kept.traceback);
  kept.message = where + ": interrupted";
  return errors::Cancelled(kept.message);
}

void SetStatusError(const Status& status) {
  KeptInterrupt& kept = kept_interrupt;
  if (kept.type != nullptr && status.code() == error::CANCELLED &&
      status.message() == kept.message) {
    PyErr_Restore(kept.type, kept.value, kept.traceback);  // steals the references
    kept = KeptInterrupt();
    return;
  }
  if (g_exception_factory == nullptr) {
    PyErr_Format(PyExc_RuntimeError, "%s (swigflow.errors did not register its exceptions)",
                 status.ToString().c_str());
    return;
  }
  PyObject* message = MessageToPy(status.message());
  if (message == nullptr) return;
  PyObject* exception =
      PyObject_CallFunction(g_exception_factory, "iO", static_cast<int>(status.code()), message);
  Py_DECREF(message);
  if (exception == nullptr) return;  // the factory itself raised
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception)), exception);
  Py_DECREF(exception);
}

PyObject* StatusResult(const Status& status) {
  SetStatusError(status);
  return nullptr;
}

PyObject* ResultOrError(PyObject* result, const Status& status) {
  if (status.ok()) return result;
  Py_DECREF(result);
  return StatusResult(status);
}

void RegisterExceptionFactory(PyObject* factory) {
  if (!PyCallable_Check(factory)) {
    PyErr_SetString(PyExc_TypeError, "RegisterExceptionFactory expects a callable");
    return;
  }
  Py_INCREF(factory);
  Py_XSETREF(g_exception_factory, factory);
}

Status StatusForTesting(int code, const std::string& message) {
  return Status(static_cast<error::Code>(code), message);
}

BytesView::BytesView(PyObject* object) {
  ok_ = PyObject_GetBuffer(object, &view_, PyBUF_C_CONTIGUOUS) == 0;
}

BytesView::~BytesView() {
  if (ok_) PyBuffer_Release(&view_);
}

RecordView::~RecordView() {
  if (view_.obj != nullptr) PyBuffer_Release(&view_);
  Py_XDECREF(serialized_);
}

bool RecordView::Set(PyObject* record) {
  PyObject* source = record;
  if (!PyObject_CheckBuffer(record)) {
    PyObject* serialize = PyObject_GetAttrString(record, "SerializeToString");
    if (serialize == nullptr) {
      PyErr_Format(PyExc_TypeError,
                   "a record must be bytes-like or a protobuf message, not '%.200s'%s",
                   Py_TYPE(record)->tp_name, PyUnicode_Check(record) ? " (encode it first)" : "");
      return false;
    }
    // Deterministic: map keys sorted, so equal messages give equal bytes, as the native writers.
    PyObject* args = PyTuple_New(0);
    PyObject* kwargs = Py_BuildValue("{s:O}", "deterministic", Py_True);
    serialized_ = args && kwargs ? PyObject_Call(serialize, args, kwargs) : nullptr;
    Py_XDECREF(kwargs);
    Py_XDECREF(args);
    Py_DECREF(serialize);
    if (serialized_ == nullptr) return false;
    source = serialized_;
  }
  return PyObject_GetBuffer(source, &view_, PyBUF_C_CONTIGUOUS) == 0;
}

PyObject* MessageToPy(const std::string& text) {
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()),
                              "backslashreplace");
}

PyObject* Int64Array(const std::vector<int64_t>& values) {
  npy_intp size = static_cast<npy_intp>(values.size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_INT64);
  if (array != nullptr && !values.empty()) {
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)), values.data(),
                values.size() * sizeof(int64_t));
  }
  return array;
}

PyObject* ObjectArray(std::vector<PyObject*>* items) {
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

PyObject* WithBase(PyObject* array, PyObject* owner) {
  if (array == nullptr) {
    Py_DECREF(owner);
    return nullptr;
  }
  // Steals the owner, also on failure.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), owner) < 0) {
    Py_DECREF(array);
    return nullptr;
  }
  return array;
}

PyObject* ReadOnlyBytesArray(const char* data, size_t size, PyObject* owner) {
  npy_intp n = static_cast<npy_intp>(size);
  PyObject* array =
      WithBase(PyArray_SimpleNewFromData(1, &n, NPY_UINT8, const_cast<char*>(data)), owner);
  if (array != nullptr) {
    PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject*>(array), NPY_ARRAY_WRITEABLE);
  }
  return array;
}

}  // namespace python
}  // namespace swigflow
