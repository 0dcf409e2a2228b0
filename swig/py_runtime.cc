// The one translation unit that defines numpy's C API table (see py_runtime.h).
#define SWIGFLOW_DEFINE_NUMPY_API
#include "swig/py_runtime.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
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

void CallReportingErrors(PyObject* object, const char* method, unsigned long long value) {
  PyObject* result = PyObject_CallMethod(object, method, "K", value);
  if (result == nullptr) PyErr_WriteUnraisable(object);
  Py_XDECREF(result);
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
  PyObject* old = g_exception_factory;
  g_exception_factory = factory;
  Py_XDECREF(old);
}

Status StatusForTesting(int code, const std::string& message) {
  return Status(static_cast<error::Code>(code), message);
}

void ReleaseAll(std::vector<PyObject*>* items) {
  for (PyObject* item : *items) Py_DECREF(item);
  items->clear();
}

namespace {

// A C API function `int f(void)` outside the limited API, looked up in the running interpreter
// under the first of `names` it has (the one module serves every version); null if none.
using IntFunction = int (*)();

IntFunction FindFunction(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* found = dlsym(RTLD_DEFAULT, name)) return reinterpret_cast<IntFunction>(found);
  }
  return nullptr;
}

// Py_IsFinalizing is public from Python 3.13, _Py_IsFinalizing before. Without either,
// CloseNativeCalls (run at exit, before finalizing) is the only guard.
bool Finalizing() {
  static const IntFunction is_finalizing = FindFunction({"Py_IsFinalizing", "_Py_IsFinalizing"});
  return is_finalizing != nullptr && is_finalizing() != 0;
}

// Scopes of Gil that are ok (inside Python, or about to be), and whether CloseNativeCalls ran.
std::atomic<int> g_inside{0};
std::atomic<bool> g_closed{false};

}  // namespace

bool Gil::Enter() {
  // Counted before the check: CloseNativeCalls sets g_closed, then waits for the count.
  g_inside.fetch_add(1);
  if (g_closed.load() || !Py_IsInitialized() || Finalizing()) {
    g_inside.fetch_sub(1);
    return false;
  }
  return true;
}

Gil::Gil() : ok_(Enter()) {
  if (!ok_) return;
  state_ = PyGILState_Ensure();
  pending_.emplace();
}

Gil::~Gil() {
  if (!ok_) return;
  pending_.reset();
  PyGILState_Release(state_);
  g_inside.fetch_sub(1);
}

int CloseNativeCalls(int timeout_ms) {
  g_closed.store(true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (g_inside.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return g_inside.load();
}

SharedRef::~SharedRef() {
  Gil gil;
  if (gil.ok()) Py_XDECREF(object_);
}

TempView::TempView(char* data, size_t n, int flags)
    : view_(PyMemoryView_FromMemory(data, static_cast<Py_ssize_t>(n), flags)) {}

TempView::~TempView() {
  if (view_ == nullptr) return;
  SetAsideError pending;
  Ref released(PyObject_CallMethod(view_.get(), "release", nullptr));
  if (released == nullptr) PyErr_Clear();  // still exported by the callee: it stays invalid
  view_.reset();
}

BytesView::BytesView(PyObject* object) {
  ok_ = PyObject_GetBuffer(object, &view_, PyBUF_C_CONTIGUOUS) == 0;
}

BytesView::~BytesView() {
  if (ok_) PyBuffer_Release(&view_);
}

bool HeldBuffer::Take(PyObject* object) {
  Release();
  held_ = PyObject_GetBuffer(object, &view_, PyBUF_C_CONTIGUOUS) == 0;
  return held_;
}

void HeldBuffer::Release() {
  if (held_) PyBuffer_Release(&view_);
  held_ = false;
}

namespace {

// Both new in a forked child, the parent's left as they were (the buffers in the list stay
// held): a thread the child does not have may have been changing them.
std::mutex* g_lent_mu = new std::mutex;
std::vector<HeldBuffer*>* g_lent_left = nullptr;  // guarded by *g_lent_mu
std::atomic<bool> g_any_lent_left{false};

void ForgetLentBuffersInChild() {
  g_lent_mu = new std::mutex;
  g_lent_left = nullptr;
  g_any_lent_left.store(false);
}

// Without PyGILState_Check every buffer waits for ReleaseLentBuffers.
bool HoldsGil() {
  static const IntFunction holds_gil = FindFunction({"PyGILState_Check"});
  return holds_gil != nullptr && holds_gil() != 0;
}

void LetGo(HeldBuffer* buffer) {
  if (!g_closed.load() && Py_IsInitialized() && !Finalizing() && HoldsGil()) {
    buffer->Release();
    delete buffer;
    return;
  }
  std::lock_guard<std::mutex> lock(*g_lent_mu);
  try {  // a deleter must not throw: out of memory, the view is left held (leaked)
    if (g_lent_left == nullptr) g_lent_left = new std::vector<HeldBuffer*>();
    g_lent_left->push_back(buffer);
  } catch (const std::bad_alloc&) {
    return;
  }
  g_any_lent_left.store(true);
}

}  // namespace

std::shared_ptr<const HeldBuffer> ShareHeldBuffer(HeldBuffer* buffer) {
  static const int registered = pthread_atfork(nullptr, nullptr, &ForgetLentBuffersInChild);
  (void)registered;
  auto shared = std::make_unique<HeldBuffer>();
  shared->Swap(buffer);
  return std::shared_ptr<const HeldBuffer>(
      shared.release(), [](const HeldBuffer* b) { LetGo(const_cast<HeldBuffer*>(b)); });
}

void ReleaseLentBuffers() {
  if (!g_any_lent_left.load()) return;
  std::vector<HeldBuffer*> left;
  {
    std::lock_guard<std::mutex> lock(*g_lent_mu);
    std::swap(left, *g_lent_left);
    g_any_lent_left.store(false);
  }
  for (HeldBuffer* b : left) {
    b->Release();  // (may run Python code: a finalizer giving the block back)
    delete b;
  }
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
                   TypeName(record).c_str(), PyUnicode_Check(record) ? " (encode it first)" : "");
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

std::string TypeName(PyObject* object) {
  const Ref name(PyType_GetName(Py_TYPE(object)));
  Py_ssize_t size = 0;
  const char* text = name != nullptr ? PyUnicode_AsUTF8AndSize(name.get(), &size) : nullptr;
  if (text == nullptr) {
    PyErr_Clear();  // a message's detail: never the error reported
    return "?";
  }
  return std::string(text, static_cast<size_t>(size));
}

std::string_view BytesOf(PyObject* bytes) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  PyBytes_AsStringAndSize(bytes, &data, &size);  // cannot fail for a bytes object
  return std::string_view(data, static_cast<size_t>(size));
}

FastItems::FastItems(PyObject* object, const char* message)
    : items_(PySequence_Fast(object, message)) {
  if (items_ == nullptr) return;
  is_list_ = PyList_Check(items_.get());
  size_ = is_list_ ? PyList_Size(items_.get()) : PyTuple_Size(items_.get());
}

bool PathFromPy(PyObject* object, std::string* out) {
  PyObject* converted = nullptr;
  if (!PyUnicode_FSConverter(object, &converted)) return false;
  const Ref encoded(converted);
  out->assign(BytesOf(encoded.get()));
  return true;
}

int PathFromStr(PyObject* object, std::string* out) {
  if (!PyUnicode_Check(object)) return 0;
  return PathFromPy(object, out) ? 1 : -1;
}

bool BytesVectorFromPy(PyObject* object, const char* what, std::vector<std::string>* out) {
  const std::string message = std::string(what) + " must be a sequence of bytes";
  const FastItems items(object, message.c_str());
  if (!items.ok()) return false;
  for (Py_ssize_t i = 0; i < items.size(); ++i) {
    BytesView view(items.item(i));
    if (!view.ok()) return false;
    out->emplace_back(static_cast<const char*>(view.data()), view.size());
  }
  return true;
}

PyObject* AddOutput(PyObject* result, PyObject* value) {
  Ref before(result), added(value);
  if (added == nullptr) return nullptr;
  if (before == nullptr || before.get() == Py_None) return added.release();
  const Ref outputs(PyTuple_Check(before.get()) ? before.release() : PyTuple_Pack(1, before.get()));
  const Ref last(outputs != nullptr ? PyTuple_Pack(1, added.get()) : nullptr);
  return last != nullptr ? PySequence_Concat(outputs.get(), last.get()) : nullptr;
}

PyObject* NewBytes(size_t n, char** data) {
  PyObject* bytes = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n));
  *data = bytes != nullptr ? PyBytes_AsString(bytes) : nullptr;
  return bytes;
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

bool Int64VectorFromPy(PyObject* object, std::vector<int64_t>* out) {
  if (PyList_Check(object) || PyTuple_Check(object)) {  // a shape: no array made for it
    const FastItems items(object, "");
    out->resize(static_cast<size_t>(items.size()));
    for (Py_ssize_t i = 0; i < items.size(); ++i) {
      const long long value = PyLong_AsLongLong(items.item(i));
      if (value == -1 && PyErr_Occurred()) return false;
      (*out)[static_cast<size_t>(i)] = value;
    }
    return true;
  }
  const Ref array(PyArray_FROMANY(object, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO));
  if (array == nullptr) return false;
  const auto* data = static_cast<const int64_t*>(PyArray_DATA(ArrayOf(array)));
  out->assign(data, data + PyArray_SIZE(ArrayOf(array)));
  return true;
}

PyObject* ObjectArray(std::vector<PyObject*>* items) {
  npy_intp size = static_cast<npy_intp>(items->size());
  PyObject* array = PyArray_SimpleNew(1, &size, NPY_OBJECT);
  if (array != nullptr) {
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)), items->data(),
                items->size() * sizeof(PyObject*));
    items->clear();
  } else {
    ReleaseAll(items);
  }
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
