#include "swig/py_file_system.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "swigflow/io/file.h"
#include "swigflow/io/file_system.h"

namespace swigflow {
namespace python {
namespace {

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
  const Ref type_ref(type), value_ref(value), traceback_ref(traceback);
  Status status(error::UNKNOWN, url + ": unknown Python error");
  if (value != nullptr) {
    const Ref code(PyObject_GetAttrString(value, "error_code"));
    const Ref text(PyObject_Str(value));
    const char* message = text != nullptr ? PyUnicode_AsUTF8AndSize(text.get(), nullptr) : nullptr;
    if (code != nullptr && PyLong_Check(code.get()) && message != nullptr) {
      status = Status(static_cast<error::Code>(PyLong_AsLong(code.get())), message);
    } else if (message != nullptr) {
      status = Status(error::UNKNOWN, url + ": " + TypeName(value) + ": " + message);
    }
    PyErr_Clear();  // from the attribute lookup or the conversion
  }
  return status;
}

// A remote reader. One that lends blocks (reader.block_at) is read from the block holding the
// offset, which it fetched ahead: the bytes are copied from there (or lent in place, Lend, with
// a reference that keeps the block for the records a pipeline's chunks take where they lie)
// without the GIL, and Python is called once per block rather than once per read. Other reads
// go to reader.read_at.
class ReaderFile : public io::RandomAccessFile {
 public:
  ReaderFile(std::string url, PyObject* reader, bool lends)
      : RandomAccessFile(std::move(url)), reader_(reader), lends_(lends) {}

  ~ReaderFile() override {
    if (lent_ == nullptr) return;
    Gil gil;
    if (!gil.ok()) return;  // the interpreter is gone with the block
    lent_.reset();
    ReleaseLentBuffers();
  }

  bool ReadsFromMemory() const override { return lends_; }

  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    *bytes_read = 0;
    size_t done = 0;
    while (lends_ && done < n) {
      const size_t copied = CopyLent(offset + done, n - done, dst + done);
      done += copied;
      *bytes_read = done;
      if (copied > 0) continue;
      bool lent = false;
      SWIGFLOW_RETURN_IF_ERROR(Borrow(offset + done, &lent));
      if (!lent) break;  // past the end, or not read in order: read_at reads it as asked
    }
    if (done == n) return Status::OK();
    size_t got = 0;
    const Status s = ReadAt(offset + done, n - done, dst + done, &got);
    *bytes_read = done + got;
    return s;
  }

  Status Lend(uint64_t offset, size_t n, std::string_view* view,
              std::shared_ptr<const void>* keeper) const override {
    *view = {};
    if (keeper != nullptr) keeper->reset();
    for (bool borrowed = false; lends_; borrowed = true) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        const std::string_view held = HeldAt(offset);
        if (!held.empty()) {
          if (n <= held.size()) {  // else it runs into the next block
            *view = held.substr(0, n);
            if (keeper != nullptr) *keeper = lent_;
          }
          return Status::OK();
        }
      }
      if (borrowed) break;
      bool lent = false;  // the reader moved past the block lent: the next one
      SWIGFLOW_RETURN_IF_ERROR(Borrow(offset, &lent));
      if (!lent) break;
    }
    return Status::OK();
  }

  Status Size(uint64_t* size) const override {
    Gil gil;
    if (!gil.ok()) return Finalizing(path());
    const Ref value(PyObject_GetAttrString(reader_.get(), "size"));
    const unsigned long long v = value != nullptr ? PyLong_AsUnsignedLongLong(value.get()) : 0;
    if (PyErr_Occurred()) return TakePythonError(path());
    *size = v;
    return Status::OK();
  }

 private:
  // The lent block's bytes from `offset` to its end (empty: it does not hold `offset`). mu_ held.
  std::string_view HeldAt(uint64_t offset) const {
    if (lent_ == nullptr || offset < lent_start_ || offset - lent_start_ >= lent_->size()) {
      return {};
    }
    const size_t at = static_cast<size_t>(offset - lent_start_);
    return std::string_view(lent_->data() + at, lent_->size() - at);
  }

  bool Holds(uint64_t offset, size_t n) const override {
    if (!lends_) return false;
    std::lock_guard<std::mutex> lock(mu_);
    return HeldAt(offset).size() >= n;
  }

  // Copies up to n bytes at `offset` from the lent block: how many (0: it does not hold them).
  size_t CopyLent(uint64_t offset, size_t n, char* dst) const {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string_view held = HeldAt(offset);
    const size_t copy = std::min(n, held.size());
    if (copy > 0) std::memcpy(dst, held.data(), copy);
    return copy;
  }

  // Has the reader lend the block holding `offset` (*lent false: it declined). The block lent
  // before is given back first: the reader has dropped it from its read-ahead memory already.
  Status Borrow(uint64_t offset, bool* lent) const {
    Gil gil;  // taken before mu_, never while holding it
    if (!gil.ok()) return Finalizing(path());
    HeldBuffer none;
    Lend(0, &none);
    ReleaseLentBuffers();  // blocks whose last holder let go without the GIL, this one's too
    const Ref block(PyObject_CallMethod(reader_.get(), "block_at", "K",
                                        static_cast<unsigned long long>(offset)));
    if (block == nullptr) return Raised(offset, 0);
    *lent = block.get() != Py_None;
    if (!*lent) return Status::OK();
    unsigned long long start = 0;
    PyObject* buffer = nullptr;
    HeldBuffer next;
    if (!PyArg_ParseTuple(block.get(), "KO;block_at returns (start, buffer) or None", &start,
                          &buffer) ||
        !next.Take(buffer)) {
      return Raised(offset, 0);
    }
    if (offset < start || offset - start >= next.size()) {
      const uint64_t end = start + next.size();
      next.Release();
      return errors::Internal(path(), ": block_at(", offset, ") lent bytes [", start, ", ", end,
                              ")");
    }
    Lend(start, &next);
    return Status::OK();
  }

  // Lends `*block` (the file's bytes from `start`; taken) in place of the block lent now, which
  // is given back once no chunk refers to it either. Needs the GIL.
  void Lend(uint64_t start, HeldBuffer* block) const {
    std::shared_ptr<const HeldBuffer> next, previous;
    if (block->held()) next = ShareHeldBuffer(block);
    {
      std::lock_guard<std::mutex> lock(mu_);
      lent_start_ = start;
      previous = std::move(lent_);
      lent_ = std::move(next);
    }
  }

  Status ReadAt(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const {
    *bytes_read = 0;
    if (n == 0) return Status::OK();
    Gil gil;
    if (!gil.ok()) return Finalizing(path());
    unsigned long long got = 0;
    {
      TempView buffer(dst, n, PyBUF_WRITE);
      if (buffer.get() == nullptr) return TakePythonError(path());
      const Ref result(PyObject_CallMethod(reader_.get(), "read_at", "KO",
                                           static_cast<unsigned long long>(offset), buffer.get()));
      if (result != nullptr) got = PyLong_AsUnsignedLongLong(result.get());
    }
    if (PyErr_Occurred() || InterruptPending()) return Raised(offset, n);
    if (got > n) {
      return errors::Internal(path(), ": read_at returned ", got, " bytes for a buffer of ", n);
    }
    *bytes_read = static_cast<size_t>(got);
    return Status::OK();
  }

  // The Status of the error the reader raised reading `n` bytes (0: a block) at `offset`. Needs
  // the GIL.
  Status Raised(uint64_t offset, size_t n) const {
    if (InterruptPending()) return KeepInterrupt(path());  // raised again as itself
    const Status raised = TakePythonError(path());
    const std::string what = n > 0 ? std::to_string(n) + " bytes" : "the block";
    return Status(raised.code(), raised.message() + " (reading " + what + " at offset " +
                                     std::to_string(offset) + ")");
  }

  SharedRef reader_;
  const bool lends_;
  mutable std::mutex mu_;  // guards the lent block
  mutable uint64_t lent_start_ = 0;
  mutable std::shared_ptr<const HeldBuffer> lent_;
};

// Buffers appends (writer.write per kBufferSize bytes: few Python calls, the large parts an
// object store wants); Close() commits, destruction without it discards.
class WriterStream : public io::OutputStream {
 public:
  static constexpr size_t kBufferSize = 8 << 20;

  WriterStream(std::string url, PyObject* writer) : url_(std::move(url)), writer_(writer) {
    buffer_.reserve(kBufferSize);
  }
  ~WriterStream() override {
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
      const Ref result(PyObject_CallMethod(writer_.get(), "write", "O", view.get()));
    }
    if (PyErr_Occurred()) return TakePythonError(url_);
    return Status::OK();
  }

  Status Call(const char* method) {
    Gil gil;
    if (!gil.ok()) return Finalizing(url_);
    const Ref result(PyObject_CallMethod(writer_.get(), method, nullptr));
    if (result == nullptr) return TakePythonError(url_);
    return Status::OK();
  }

  const std::string url_;
  SharedRef writer_;
  std::string buffer_;
  bool open_ = true;
};

class OpenerFileSystem : public io::RemoteFileSystem {
 public:
  explicit OpenerFileSystem(PyObject* opener) : opener_(opener) {}  // steals

  // open_read returns a reader object, or a str: the path of a local copy (a shard cache's),
  // which is read natively (io::OpenCachedCopy).
  Status OpenRead(const std::string& url, std::unique_ptr<io::RandomAccessFile>* file,
                  uint64_t* size) override {
    PyObject* reader;
    std::string local;
    int is_path;
    bool lends = false;
    {
      Gil gil;
      if (!gil.ok()) return Finalizing(url);
      reader = PyObject_CallMethod(opener_.get(), "open_read", "NK", UrlObject(url),
                                   static_cast<unsigned long long>(io::ThreadReadGroup()));
      if (reader == nullptr) return TakePythonError(url);
      is_path = PathFromStr(reader, &local);
      if (is_path != 0) {
        const Ref path(reader);  // a str: only the path it holds is kept
        if (is_path < 0) return TakePythonError(url);
      } else {
        lends = PyObject_HasAttrString(reader, "block_at") != 0;
      }
    }
    if (is_path > 0) return io::OpenCachedCopy(url, std::move(local), file, size);
    auto opened = std::make_unique<ReaderFile>(url, reader, lends);
    if (size != nullptr) SWIGFLOW_RETURN_IF_ERROR(opened->Size(size));
    *file = std::move(opened);
    return Status::OK();
  }

  void CancelReads(uint64_t group) override {
    Gil gil;
    if (gil.ok()) CallReportingErrors(opener_.get(), "cancel_reads", group);
  }

  void EndReadGroup(uint64_t group) override {
    Gil gil;
    if (gil.ok()) CallReportingErrors(opener_.get(), "end_group", group);
  }

  Status OpenWrite(const std::string& url, std::unique_ptr<io::OutputStream>* file) override {
    Gil gil;
    if (!gil.ok()) return Finalizing(url);
    PyObject* writer = PyObject_CallMethod(opener_.get(), "open_write", "N", UrlObject(url));
    if (writer == nullptr) return TakePythonError(url);
    *file = std::make_unique<WriterStream>(url, writer);
    return Status::OK();
  }

 private:
  SharedRef opener_;
};

}  // namespace

void SetRemoteOpener(PyObject* opener) {
  if (opener == Py_None) {
    io::SetRemoteFileSystem(nullptr);
    return;
  }
  Py_INCREF(opener);
  io::SetRemoteFileSystem(std::make_shared<OpenerFileSystem>(opener));
}

}  // namespace python
}  // namespace swigflow
