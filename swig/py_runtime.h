// What every binding in swig/ shares: the Python and numpy C APIs included one way, Status ->
// Python exceptions, running C++ without the GIL, and numpy arrays that own C++ buffers.
//
// The bindings use Python's limited API only (Py_LIMITED_API, set by the build), so that one
// extension module serves every CPython from the floor on: no macro that reads an object's
// layout (PyList_GET_ITEM, PyBytes_AS_STRING, tp_name), but the functions and the helpers below.
//
// Include this header first in a binding .cc file (Python.h must precede the standard headers).
// The numpy C API table is one symbol for the whole extension module: py_runtime.cc defines it
// and ImportNumpy() fills it when the module initialises.
#ifndef SWIGFLOW_SWIG_PY_RUNTIME_H_
#define SWIGFLOW_SWIG_PY_RUNTIME_H_

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL swigflow_numpy_api
#ifndef SWIGFLOW_DEFINE_NUMPY_API
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace python {

// Loads numpy's C API; false with a Python error set. Called once, by the module's init.
bool ImportNumpy();

// --- Errors ----------------------------------------------------------------------------------

// Sets the Python error for a non-OK `status`: the swigflow.errors class of its code, made by
// the factory swigflow/errors.py registers at import. Needs the GIL.
void SetStatusError(const Status& status);

// SetStatusError(status), then nullptr: `return StatusResult(s);` in a function returning a
// new reference.
PyObject* StatusResult(const Status& status);

// `result` (a new reference) when `status` is OK; else releases it and raises `status`.
PyObject* ResultOrError(PyObject* result, const Status& status);

// A KeyboardInterrupt or SystemExit raised in a Python callback that native code called (a
// remote read): KeepInterrupt takes the pending one (needs the GIL) and returns the CANCELLED
// Status to unwind the native code with; when that Status reaches SetStatusError in the same
// thread, the interrupt itself is raised again, so Ctrl-C stays a KeyboardInterrupt.
Status KeepInterrupt(const std::string& where);

// Whether the pending Python exception is such an interrupt (not an Exception). Needs the GIL.
bool InterruptPending();

// object.method(value) for a call that cannot fail its caller (a stop): an exception it raises
// is reported as unraisable (sys.unraisablehook) and cleared. Needs the GIL.
void CallReportingErrors(PyObject* object, const char* method, unsigned long long value);

// Called by swigflow/errors.py when it is imported: factory(code, message) -> exception.
void RegisterExceptionFactory(PyObject* factory);

// A Status with the given code and message, so tests can check the mapping of every code.
Status StatusForTesting(int code, const std::string& message);

// Runs fn (returning Status) without the GIL. A C++ exception escaping it becomes a Status
// (out of memory: RESOURCE_EXHAUSTED), never std::terminate in Python's frames.
template <typename F>
Status WithoutGil(F&& fn) {
  PyThreadState* released = PyEval_SaveThread();
  Status s = CatchExceptions(std::forward<F>(fn));
  PyEval_RestoreThread(released);
  return s;
}

// --- References and the GIL -------------------------------------------------------------------
//
// Binding code owns its references through these, never by a Py_DECREF of its own: a reference
// is released however the scope is left, and taken out with release() only where the C API
// steals it ("N" in Py_BuildValue, PyList_SetItem, a return).

struct Decref {
  void operator()(PyObject* object) const { Py_DECREF(object); }
};

// One owned reference (a new one, or one stolen); empty when the call that made it failed.
// Released with the GIL held, so on the thread that made it.
using Ref = std::unique_ptr<PyObject, Decref>;

// The numpy array a Ref holds.
inline PyArrayObject* ArrayOf(const Ref& ref) {
  return reinterpret_cast<PyArrayObject*>(ref.get());
}

// Releases every reference in `items` and empties it: for the vectors of new references that
// ObjectArray takes over, when they are not taken over after all.
void ReleaseAll(std::vector<PyObject*>* items);

// The pending Python error, set aside for a scope and restored at its end (replacing any raised
// meanwhile). Needs the GIL.
class SetAsideError {
 public:
  SetAsideError() { PyErr_Fetch(&type_, &value_, &traceback_); }
  ~SetAsideError() {
    if (type_ != nullptr) PyErr_Restore(type_, value_, traceback_);
  }
  SetAsideError(const SetAsideError&) = delete;
  SetAsideError& operator=(const SetAsideError&) = delete;

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
};

// Holds the GIL for a scope, from any thread. ok() is false once the interpreter is finalizing,
// or once CloseNativeCalls() ran: a native pipeline thread still reading then gets CANCELLED
// instead of hanging in PyGILState_Ensure. A Python error already pending in the thread (a
// destructor run while an exception unwinds) is set aside for the scope and restored after it.
class Gil {
 public:
  Gil();
  ~Gil();
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

  bool ok() const { return ok_; }

 private:
  static bool Enter();

  const bool ok_;
  PyGILState_STATE state_;
  std::optional<SetAsideError> pending_;  // (destroyed before the GIL is released)
};

// Called at exit (atexit), before the interpreter finalizes: no native thread calls into Python
// from now on (Gil is not ok), and this waits up to `timeout_ms` for those inside to leave
// (call without the GIL). Returns how many are still inside. A native thread inside Python
// when finalizing starts would be ended there, mid-call, which aborts the process.
int CloseNativeCalls(int timeout_ms);

// A Python object owned by native code that any thread may drop (a file object read by pipeline
// threads): released with the GIL taken, or leaked once the interpreter is gone (its memory then
// goes with the process).
class SharedRef {
 public:
  explicit SharedRef(PyObject* object) : object_(object) {}  // steals
  ~SharedRef();
  SharedRef(const SharedRef&) = delete;
  SharedRef& operator=(const SharedRef&) = delete;
  PyObject* get() const { return object_; }

 private:
  PyObject* const object_;
};

// A memoryview over data[0, n) that must not outlive the call it is passed to: the destructor
// releases it, so a callee that kept it fails cleanly instead of touching freed memory. Needs
// the GIL. get() is null, with a Python error set, if the view could not be made.
//
// The callee's exception, when it raised, is what the caller reports: it is set aside while the
// view is released and restored after. (Releasing with it pending once cleared it, so a read
// that raised looked like the end of the file and a write that raised like a success.)
class TempView {
 public:
  TempView(char* data, size_t n, int flags);
  ~TempView();
  TempView(const TempView&) = delete;
  TempView& operator=(const TempView&) = delete;
  PyObject* get() const { return view_.get(); }

 private:
  Ref view_;
};

// --- Values ----------------------------------------------------------------------------------

// A contiguous read-only view of a bytes-like object, released on scope exit. ok() is false,
// with a Python error set, when the object exports no contiguous buffer.
class BytesView {
 public:
  explicit BytesView(PyObject* object);
  ~BytesView();
  BytesView(const BytesView&) = delete;
  BytesView& operator=(const BytesView&) = delete;

  bool ok() const { return ok_; }
  const void* data() const { return view_.buf; }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_ = {};
  bool ok_ = false;
};

// A contiguous read-only view of a bytes-like object kept past the call that gave it (a remote
// reader's lent block): taken and released explicitly, both under the GIL, and swapped between
// holders in between. One still held when it is destroyed is left held (the interpreter may be
// gone).
class HeldBuffer {
 public:
  HeldBuffer() = default;
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;

  // False, with a Python error set, when `object` exports no contiguous buffer. Needs the GIL.
  bool Take(PyObject* object);
  // Gives the view back, if held. Needs the GIL.
  void Release();
  void Swap(HeldBuffer* other) {
    std::swap(view_, other->view_);
    std::swap(held_, other->held_);
  }

  bool held() const { return held_; }
  const char* data() const { return static_cast<const char*>(view_.buf); }
  size_t size() const { return held_ ? static_cast<size_t>(view_.len) : 0; }

 private:
  Py_buffer view_ = {};
  bool held_ = false;
};

// Takes *buffer's view into a buffer that native holders on any thread share (the pipeline's
// chunks and elements whose records lie in a remote reader's block). The last holder to let go
// releases it at once when it holds the GIL; one without the GIL leaves it to the next
// ReleaseLentBuffers instead of waiting for the GIL (up to a switch interval) on a reader thread.
std::shared_ptr<const HeldBuffer> ShareHeldBuffer(HeldBuffer* buffer);
// Releases the shared buffers left by holders without the GIL. Needs the GIL.
void ReleaseLentBuffers();

// A TFRecord payload to write: the buffer of a bytes-like object, or of the deterministic
// serialization of a protobuf message (anything with SerializeToString: swigflow.train.Example,
// TensorFlow's tf.train.Example), held until destruction.
class RecordView {
 public:
  RecordView() = default;
  ~RecordView();
  RecordView(const RecordView&) = delete;
  RecordView& operator=(const RecordView&) = delete;

  // False, with a Python error set (TypeError for a str), for anything else. Call once.
  bool Set(PyObject* record);
  const char* data() const { return static_cast<const char*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_ = {};
  PyObject* serialized_ = nullptr;
};

// A file path from str, bytes or os.PathLike, encoded as the OS expects (surrogateescape, so
// any name the file system can hold round-trips); false with a Python error set.
bool PathFromPy(PyObject* object, std::string* out);

// PathFromPy for a str only: 1 with the path in *out, 0 (nothing set) for any other object, -1
// with a Python error set when the str cannot be a path.
int PathFromStr(PyObject* object, std::string* out);

// The name of `object`'s type, for messages ("int", "numpy.ndarray").
std::string TypeName(PyObject* object);

// The bytes of a bytes object (PyBytes_Check), valid while it lives.
std::string_view BytesOf(PyObject* bytes);

// The items of a sequence as PySequence_Fast gives them (a list or a tuple), borrowed from it.
// ok() is false, with a Python error set (a TypeError with `message` for a non-sequence), when
// the sequence could not be read.
class FastItems {
 public:
  FastItems(PyObject* object, const char* message);
  FastItems(const FastItems&) = delete;
  FastItems& operator=(const FastItems&) = delete;

  bool ok() const { return items_ != nullptr; }
  Py_ssize_t size() const { return size_; }
  PyObject* item(Py_ssize_t i) const {
    return is_list_ ? PyList_GetItem(items_.get(), i) : PyTuple_GetItem(items_.get(), i);
  }

 private:
  Ref items_;
  bool is_list_ = false;
  Py_ssize_t size_ = 0;
};

// Copies of the buffers of a sequence of bytes-like objects; false with a Python error set (a
// TypeError naming `what` when `object` is not a sequence).
bool BytesVectorFromPy(PyObject* object, const char* what, std::vector<std::string>* out);

// A wrapper's result with an output argument's `value` added (both references stolen): `value`
// itself in place of None (a void or OK Status result), else a tuple of the outputs so far and
// `value`. nullptr, with both released, when `value` is nullptr or the tuple cannot be made.
PyObject* AddOutput(PyObject* result, PyObject* value);

// `text` as str, bytes that are not UTF-8 escaped (messages may hold any file name).
PyObject* MessageToPy(const std::string& text);

// A new bytes object of n bytes left to fill through *data (before any other code sees it: it
// may be filled without the GIL); nullptr, with a Python error set, if it cannot be made.
PyObject* NewBytes(size_t n, char** data);

// A list of the `n` new references make(i) returns; nullptr (and no list) if one is nullptr.
template <typename Make>
PyObject* NewList(size_t n, Make&& make) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  for (size_t i = 0; list != nullptr && i < n; ++i) {
    PyObject* item = make(i);
    if (item == nullptr) {
      Py_CLEAR(list);
    } else {
      PyList_SetItem(list, static_cast<Py_ssize_t>(i), item);  // steals; cannot fail here
    }
  }
  return list;
}

// --- numpy arrays ----------------------------------------------------------------------------

// A new 1-D int64 array with a copy of `values`. Needs the GIL.
PyObject* Int64Array(const std::vector<int64_t>& values);

// A copy of a 1-D int64 array, list or tuple of ints (or of any sequence numpy takes as one);
// false with a Python error set.
bool Int64VectorFromPy(PyObject* object, std::vector<int64_t>* out);

// A 1-D object array that takes over the references in `items` (emptied), even on failure.
PyObject* ObjectArray(std::vector<PyObject*>* items);

// Makes `owner` the base of `array` (which then keeps it alive): returns `array`, or nullptr
// with both released on failure. Steals both references.
PyObject* WithBase(PyObject* array, PyObject* owner);

// A read-only 1-D uint8 array over `size` bytes at `data`, kept alive by `owner` (a reference
// this call steals, also on failure).
PyObject* ReadOnlyBytesArray(const char* data, size_t size, PyObject* owner);

// A capsule that deletes `object` (a T*) when it dies; deletes it at once if one cannot be made.
template <typename T>
PyObject* OwningCapsule(T* object) {
  PyObject* capsule = PyCapsule_New(object, nullptr, [](PyObject* c) {
    delete static_cast<T*>(PyCapsule_GetPointer(c, nullptr));
  });
  if (capsule == nullptr) delete object;
  return capsule;
}

// An array of `type_num` and shape `dims` over the bytes of `values`, taking them over without a
// copy: a capsule owning the vector is the array's base, so the memory lives as long as the
// array. The vector must hold exactly the array's bytes. Needs the GIL.
template <typename Vector>
PyObject* ArrayFromBuffer(Vector&& values, int type_num, int ndim, npy_intp* dims) {
  using Owned = std::decay_t<Vector>;
  auto* owned = new Owned(std::forward<Vector>(values));
  void* data = owned->data();
  PyObject* capsule = OwningCapsule(owned);
  if (capsule == nullptr) return nullptr;
  return WithBase(PyArray_SimpleNewFromData(ndim, dims, type_num, data), capsule);
}

// The 1-D form: as many elements as `values` has.
template <typename Vector>
PyObject* ArrayFromVector(Vector&& values, int type_num) {
  npy_intp size = static_cast<npy_intp>(values.size());
  return ArrayFromBuffer(std::forward<Vector>(values), type_num, 1, &size);
}

// A new 1-D object array of bytes objects copied from `values` (strings or string views).
template <typename Strings>
PyObject* BytesArray(const Strings& values) {
  npy_intp size = static_cast<npy_intp>(values.size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_OBJECT);  // zero-filled: NULL entries
  if (array == nullptr) return nullptr;
  auto** items = static_cast<PyObject**>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)));
  for (npy_intp i = 0; i < size; ++i) {
    items[i] =
        PyBytes_FromStringAndSize(values[i].data(), static_cast<Py_ssize_t>(values[i].size()));
    if (items[i] == nullptr) {
      Py_DECREF(array);
      return nullptr;
    }
  }
  return array;
}

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_RUNTIME_H_
