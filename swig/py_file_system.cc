#include "swig/py_file_system.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "swigflow/io/file_system.h"

namespace swigflow {
namespace python {
namespace {

// Holds the GIL for a scope, from any thread. ok() is false once the interpreter is finalizing:
// a native pipeline thread still reading then gets CANCELLED instead of hanging in
// PyGILState_Ensure.
class Gil {
 public:
  // A Python error already pending in the thread (a destructor run while an exception unwinds)
  // is set aside for the scope and restored after it.
  Gil() : ok_(Py_IsInitialized() && !Finalizing()) {
    if (!ok_) return;
    state_ = PyGILState_Ensure();
    PyErr_Fetch(&type_, &value_, &traceback_);
  }
  ~Gil() {
    if (!ok_) return;
    if (type_ != nullptr) PyErr_Restore(type_, value_, traceback_);
    PyGILState_Release(state_);
  }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

  bool ok() const { return ok_; }

 private:
  static bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
  }

  const bool ok_;
  PyGILState_STATE state_;
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
};

// `url` as str, decoded as the OS encodes paths (any bytes round-trip). Needs the GIL.
PyObject* UrlObject(const std::string& url) {
  return PyUnicode_DecodeFSDefaultAndSize(url.data(), static_cast<Py_ssize_t>(url.size()));
}

Status Finalizing(const std::string& url) {
  return errors::Cancelled(url, ": Python is shutting down");
}

// The Status of the Python exception being raised (cleared). Needs the GIL. An interrupt
// (Ctrl-C) is kept to be raised again as itself (KeepInterrupt).
Status TakePythonError(const std::string& url) {
  if (InterruptPending()) return KeepInterrupt(url);
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  Status status(error::UNKNOWN, url + ": unknown Python error");
  if (value != nullptr) {
    PyObject* code = PyObject_GetAttrString(value, "error_code");
    PyObject* text = PyObject_Str(value);
    const char* message = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
    if (code != nullptr && PyLong_Check(code) && message != nullptr) {
      status = Status(static_cast<error::Code>(PyLong_AsLong(code)), message);
    } else if (message != nullptr) {
      status = Status(error::UNKNOWN, url + ": " + Py_TYPE(value)->tp_name + ": " + message);
    }
    Py_XDECREF(code);
    Py_XDECREF(text);
    PyErr_Clear();  // from the attribute lookup or the conversion
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return status;
}

// A Python object owned across threads: released with the GIL held, or leaked once the
// interpreter is gone (its memory is then reclaimed with the process).
class PyRef {
 public:
  explicit PyRef(PyObject* object) : object_(object) {}  // steals
  ~PyRef() {
    Gil gil;
    if (gil.ok()) Py_XDECREF(object_);
  }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  PyObject* get() const { return object_; }

 private:
  PyObject* const object_;
};

// A memoryview over data[0, n) that must not outlive the call it is passed to: the destructor
// releases it, so a callee that kept it fails cleanly instead of touching freed memory. Needs
// the GIL.
//
// The callee's exception, when it raised, is what the caller reports: it is set aside while the
// view is released and restored after. (Releasing with it pending once cleared it, so a read
// that raised looked like the end of the file and a write that raised like a success.)
class TempView {
 public:
  TempView(char* data, size_t n, int flags)
      : view_(PyMemoryView_FromMemory(data, static_cast<Py_ssize_t>(n), flags)) {}
  ~TempView() {
    if (view_ == nullptr) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject* released = PyObject_CallMethod(view_, "release", nullptr);
    if (released == nullptr) PyErr_Clear();  // still exported by the callee: it stays invalid
    Py_XDECREF(released);
    Py_DECREF(view_);
    PyErr_Restore(type, value, traceback);
  }
  TempView(const TempView&) = delete;
  TempView& operator=(const TempView&) = delete;
  PyObject* get() const { return view_; }

 private:
  PyObject* const view_;
};

class PyReadFile : public io::RandomAccessFile {
 public:
  PyReadFile(std::string url, PyObject* reader)
      : RandomAccessFile(std::move(url)), reader_(reader) {}

  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    *bytes_read = 0;
    if (n == 0) return Status::OK();
    Gil gil;
    if (!gil.ok()) return Finalizing(path());
    unsigned long long got = 0;
    {
      TempView buffer(dst, n, PyBUF_WRITE);
      if (buffer.get() == nullptr) return TakePythonError(path());
      PyObject* result = PyObject_CallMethod(reader_.get(), "read_at", "KO",
                                             static_cast<unsigned long long>(offset), buffer.get());
      if (result != nullptr) {
        got = PyLong_AsUnsignedLongLong(result);
        Py_DECREF(result);
      }
    }
    if (InterruptPending()) return KeepInterrupt(path());  // raised again as itself
    if (PyErr_Occurred()) {
      const Status raised = TakePythonError(path());
      return Status(raised.code(), raised.message() + " (reading " + std::to_string(n) +
                                       " bytes at offset " + std::to_string(offset) + ")");
    }
    if (got > n) {
      return errors::Internal(path(), ": read_at returned ", got, " bytes for a buffer of ", n);
    }
    *bytes_read = static_cast<size_t>(got);
    return Status::OK();
  }

  Status Size(uint64_t* size) const override {
    Gil gil;
    if (!gil.ok()) return Finalizing(path());
    PyObject* value = PyObject_GetAttrString(reader_.get(), "size");
    const unsigned long long v = value != nullptr ? PyLong_AsUnsignedLongLong(value) : 0;
    Py_XDECREF(value);
    if (PyErr_Occurred()) return TakePythonError(path());
    *size = v;
    return Status::OK();
  }

 private:
  PyRef reader_;
};

// Buffers appends (writer.write per kBufferSize bytes: few Python calls, the large parts an
// object store wants); Close() commits, destruction without it discards.
class PyWriteFile : public io::OutputStream {
 public:
  static constexpr size_t kBufferSize = 8 << 20;

  PyWriteFile(std::string url, PyObject* writer) : url_(std::move(url)), writer_(writer) {
    buffer_.reserve(kBufferSize);
  }
  ~PyWriteFile() override {
    if (open_) Call("discard").ok();  // never closed: the file must not appear
  }

  Status Append(const char* data, size_t n) override {
    if (!open_) return errors::FailedPrecondition(url_, ": file is closed");
    if (buffer_.size() + n > kBufferSize) {
      SWIGFLOW_RETURN_IF_ERROR(Drain());
      if (n >= kBufferSize) return Write(const_cast<char*>(data), n);
    }
    buffer_.append(data, n);
    return Status::OK();
  }

  // Hands the buffered bytes to the writer. An object store shows them only after Close().
  Status Flush() override {
    if (!open_) return errors::FailedPrecondition(url_, ": file is closed");
    return Drain();
  }

  Status Close() override {
    if (!open_) return errors::FailedPrecondition(url_, ": file is closed");
    Status s = Drain();
    open_ = false;
    s.Update(Call(s.ok() ? "close" : "discard"));
    return s;
  }

  Status Abort() override {
    if (!open_) return errors::FailedPrecondition(url_, ": file is closed");
    open_ = false;
    buffer_.clear();
    return Call("discard");
  }

  bool CompletesWhenDropped() const override { return false; }

 private:
  Status Drain() {
    if (buffer_.empty()) return Status::OK();
    Status s = Write(&buffer_[0], buffer_.size());
    buffer_.clear();
    return s;
  }

  Status Write(char* data, size_t n) {
    Gil gil;
    if (!gil.ok()) return Finalizing(url_);
    {
      TempView view(data, n, PyBUF_READ);
      if (view.get() == nullptr) return TakePythonError(url_);
      PyObject* result = PyObject_CallMethod(writer_.get(), "write", "O", view.get());
      Py_XDECREF(result);
    }
    if (PyErr_Occurred()) return TakePythonError(url_);
    return Status::OK();
  }

  Status Call(const char* method) {
    Gil gil;
    if (!gil.ok()) return Finalizing(url_);
    PyObject* result = PyObject_CallMethod(writer_.get(), method, nullptr);
    Py_XDECREF(result);
    if (result == nullptr) return TakePythonError(url_);
    return Status::OK();
  }

  const std::string url_;
  PyRef writer_;
  std::string buffer_;
  bool open_ = true;
};

class PyRemoteFileSystem : public io::RemoteFileSystem {
 public:
  explicit PyRemoteFileSystem(PyObject* opener) : opener_(opener) {}  // steals

  Status OpenRead(const std::string& url, std::unique_ptr<io::RandomAccessFile>* file,
                  uint64_t* size) override {
    PyObject* reader;
    {
      Gil gil;
      if (!gil.ok()) return Finalizing(url);
      reader = PyObject_CallMethod(opener_.get(), "open_read", "N", UrlObject(url));
      if (reader == nullptr) return TakePythonError(url);
    }
    auto opened = std::make_unique<PyReadFile>(url, reader);
    if (size != nullptr) SWIGFLOW_RETURN_IF_ERROR(opened->Size(size));
    *file = std::move(opened);
    return Status::OK();
  }

  Status OpenWrite(const std::string& url, std::unique_ptr<io::OutputStream>* file) override {
    Gil gil;
    if (!gil.ok()) return Finalizing(url);
    PyObject* writer = PyObject_CallMethod(opener_.get(), "open_write", "N", UrlObject(url));
    if (writer == nullptr) return TakePythonError(url);
    *file = std::make_unique<PyWriteFile>(url, writer);
    return Status::OK();
  }

 private:
  PyRef opener_;
};

}  // namespace

void SetRemoteOpener(PyObject* opener) {
  if (opener == Py_None) {
    io::SetRemoteFileSystem(nullptr);
    return;
  }
  Py_INCREF(opener);
  io::SetRemoteFileSystem(std::make_shared<PyRemoteFileSystem>(opener));
}

}  // namespace python
}  // namespace swigflow
