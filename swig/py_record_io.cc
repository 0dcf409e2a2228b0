#include "swig/py_record_io.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/framework/thread_pool.h"
#include "swigflow/io/record_format.h"
#include "swigflow/io/record_index.h"

namespace swigflow {
namespace python {
namespace {

// Reads the record at `offset` of a file, uncompressed or through its seek index, checked
// against the framed length an index gave for it (< 0: none).
Status ReadIndexed(const io::RandomAccessFile& file, const io::SeekIndex* seek, uint64_t offset,
                   int64_t framed_length, std::string* record) {
  if (seek != nullptr) {
    if (framed_length < 0) {
      return errors::InvalidArgument("a read through a seek index needs the record's length");
    }
    return io::ReadSeekRecord(file, *seek, offset, static_cast<uint64_t>(framed_length), record);
  }
  if (framed_length < 0) return io::ReadRecordAt(file, offset, record);
  return io::ReadIndexedRecordAt(file, offset, static_cast<uint64_t>(framed_length), record);
}

// The seek index in `bytes` (a bytes object), parsed and checked against `file`.
Status ParseSeekIndexFor(PyObject* bytes, const std::string& index_path,
                         const io::RandomAccessFile& file,
                         std::shared_ptr<const io::SeekIndex>* seek) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(bytes, &data, &size) < 0) {
    PyErr_Clear();
    return errors::InvalidArgument("a seek index is passed as bytes");
  }
  auto index = std::make_shared<io::SeekIndex>();
  const std::string copy(data, static_cast<size_t>(size));
  SWIGFLOW_RETURN_IF_ERROR(WithoutGil([&] {
    SWIGFLOW_RETURN_IF_ERROR(io::ParseSeekIndex(copy, index_path, index.get()));
    return io::CheckSeekIndex(*index, file);
  }));
  *seek = std::move(index);
  return Status::OK();
}

// Whether `view` holds int64s; false with a Python error set when it does not.
bool Int64s(const BytesView& view, const char* name) {
  if (!view.ok()) return false;
  if (view.size() % sizeof(int64_t) != 0) {
    PyErr_Format(PyExc_TypeError, "%s: expected a contiguous int64 buffer", name);
    return false;
  }
  return true;
}

// Payloads of this size or more go straight into their bytes objects (ReadBatch).
constexpr uint64_t kDirectLength = 64 << 10;

PyObject* NewBatchOwner() { return OwningCapsule(new io::RecordBatch()); }

}  // namespace

// --- PyRecordReader ----------------------------------------------------------------------------

Status PyRecordReader::Open(const std::string& path, const io::RecordOptions& options,
                            std::unique_ptr<PyRecordReader>* reader) {
  std::unique_ptr<io::RecordReader> r;
  SWIGFLOW_RETURN_IF_ERROR(io::RecordReader::Open(path, options, &r));
  reader->reset(new PyRecordReader(std::move(r)));
  return Status::OK();
}

PyRecordReader::PyRecordReader(std::unique_ptr<io::RecordReader> reader)
    : reader_(std::move(reader)) {}

PyRecordReader::~PyRecordReader() = default;

PyObject* PyRecordReader::ReadBatch(size_t max_records, size_t max_bytes) {
  std::unique_lock<std::mutex> lock = LockWithoutGil();
  Ref list(PyList_New(0));
  if (list == nullptr) return nullptr;
  size_t records = 0, bytes = 0;
  Status s;
  while (records < max_records && bytes < max_bytes) {
    s = WithoutGil([&] {
      return reader_->ReadBatch(max_records - records, max_bytes - bytes, &batch_, kDirectLength);
    });
    if (!s.ok()) break;
    if (!AppendBatch(list.get())) return nullptr;
    records += batch_.size();
    bytes += batch_.bytes();
    uint64_t length = 0;
    if (!reader_->LargePending(&length)) {
      if (batch_.empty()) break;  // the end, or the last records before damage
      continue;
    }
    const Ref record(PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(length)));
    if (record == nullptr) return nullptr;
    uint64_t offset = 0;
    char* data = PyBytes_AsString(record.get());  // a new bytes object: ours to fill
    s = WithoutGil([&] { return reader_->ReadLarge(data, &offset); });
    if (!s.ok()) break;
    if (PyList_Append(list.get(), record.get()) < 0) return nullptr;
    ++records;
    bytes += length;
  }
  // Damage after some records: they come now, the error with the next call (sticky).
  if (!s.ok() && !errors::IsOutOfRange(s) && PyList_Size(list.get()) == 0) {
    return StatusResult(s);
  }
  return list.release();
}

PyObject* PyRecordReader::ReadBatchView(size_t max_records, size_t max_bytes) {
  std::unique_lock<std::mutex> lock = LockWithoutGil();
  // Two buffers, so that the usual loop, which still holds the last batch while it asks for
  // the next (`while batch := reader.read_batch(n, copy=False)`), alternates between them.
  for (Ref& view : views_) {  // made here, with the GIL (Open runs without it)
    if (view == nullptr) view.reset(NewBatchOwner());
    if (view == nullptr) return nullptr;
  }
  Ref& owner = Py_REFCNT(views_[0].get()) == 1 ? views_[0] : views_[1];
  if (Py_REFCNT(owner.get()) > 1) {  // both in use: a new buffer
    Ref fresh(NewBatchOwner());
    if (fresh == nullptr) return nullptr;
    owner = std::move(fresh);
  }
  auto* batch = static_cast<io::RecordBatch*>(PyCapsule_GetPointer(owner.get(), nullptr));
  const Status s = WithoutGil([&] { return reader_->ReadBatch(max_records, max_bytes, batch); });
  if (errors::IsOutOfRange(s)) Py_RETURN_NONE;
  if (!s.ok()) return StatusResult(s);
  PyObject* data = ReadOnlyBytesArray(batch->data(), batch->bytes(), Py_NewRef(owner.get()));
  if (data == nullptr) return nullptr;
  std::vector<int64_t> ends(batch->size() + 1, 0);
  for (size_t i = 0; i < batch->size(); ++i) ends[i + 1] = static_cast<int64_t>(batch->end(i));
  return Py_BuildValue("(NN)", data, Int64Array(ends));
}

Status PyRecordReader::Seek(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  return reader_->Seek(offset);
}

uint64_t PyRecordReader::Offset() {
  std::unique_lock<std::mutex> lock = LockWithoutGil();
  return reader_->offset();
}

std::unique_lock<std::mutex> PyRecordReader::LockWithoutGil() {
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  WithoutGil([&] {
    lock.lock();
    return Status::OK();
  });
  return lock;
}

bool PyRecordReader::AppendBatch(PyObject* list) {
  for (size_t i = 0; i < batch_.size(); ++i) {
    const Ref record(PyBytes_FromStringAndSize(
        batch_.data() + batch_.begin(i), static_cast<Py_ssize_t>(batch_.end(i) - batch_.begin(i))));
    if (record == nullptr || PyList_Append(list, record.get()) < 0) return false;
  }
  return true;
}

// --- PyRecordFile ------------------------------------------------------------------------------

Status PyRecordFile::Open(const std::string& path, std::unique_ptr<PyRecordFile>* file) {
  std::unique_ptr<io::RandomAccessFile> f;
  SWIGFLOW_RETURN_IF_ERROR(io::RandomAccessFile::Open(path, &f));
  file->reset(new PyRecordFile(std::move(f), nullptr));
  return Status::OK();
}

Status PyRecordFile::OpenSeekable(const std::string& path, PyObject* index,
                                  const std::string& index_path,
                                  std::unique_ptr<PyRecordFile>* file) {
  std::unique_ptr<io::RandomAccessFile> f;
  SWIGFLOW_RETURN_IF_ERROR(WithoutGil([&] { return io::RandomAccessFile::Open(path, &f); }));
  std::shared_ptr<const io::SeekIndex> seek;
  SWIGFLOW_RETURN_IF_ERROR(ParseSeekIndexFor(index, index_path, *f, &seek));
  file->reset(new PyRecordFile(std::move(f), std::move(seek)));
  return Status::OK();
}

PyRecordFile::PyRecordFile(std::unique_ptr<io::RandomAccessFile> file,
                           std::shared_ptr<const io::SeekIndex> seek)
    : file_(std::move(file)), seek_(std::move(seek)) {}

PyObject* PyRecordFile::Read(uint64_t offset, int64_t framed_length) {
  std::string record;
  const Status s =
      WithoutGil([&] { return ReadIndexed(*file_, seek_.get(), offset, framed_length, &record); });
  if (!s.ok()) return StatusResult(s);
  return PyBytes_FromStringAndSize(record.data(), static_cast<Py_ssize_t>(record.size()));
}

// --- PyRecordFiles -----------------------------------------------------------------------------

Status PyRecordFiles::Add(const std::string& path) {
  std::unique_ptr<io::RandomAccessFile> file;
  SWIGFLOW_RETURN_IF_ERROR(io::RandomAccessFile::Open(path, &file));
  std::lock_guard<std::mutex> lock(mu_);
  files_.push_back({std::move(file), nullptr});
  return Status::OK();
}

Status PyRecordFiles::AddSeekable(const std::string& path, PyObject* index,
                                  const std::string& index_path) {
  std::unique_ptr<io::RandomAccessFile> file;
  SWIGFLOW_RETURN_IF_ERROR(WithoutGil([&] { return io::RandomAccessFile::Open(path, &file); }));
  std::shared_ptr<const io::SeekIndex> seek;
  SWIGFLOW_RETURN_IF_ERROR(ParseSeekIndexFor(index, index_path, *file, &seek));
  std::lock_guard<std::mutex> lock(mu_);
  files_.push_back({std::move(file), std::move(seek)});
  return Status::OK();
}

PyObject* PyRecordFiles::ReadMany(PyObject* slots, PyObject* offsets, PyObject* framed_lengths) {
  const BytesView slot_view(slots), offset_view(offsets), length_view(framed_lengths);
  if (!Int64s(slot_view, "slots") || !Int64s(offset_view, "offsets") ||
      !Int64s(length_view, "framed_lengths")) {
    return nullptr;
  }
  const size_t n = slot_view.size() / sizeof(int64_t);
  if (offset_view.size() != slot_view.size() || length_view.size() != slot_view.size()) {
    PyErr_SetString(PyExc_ValueError, "slots, offsets and framed_lengths differ in length");
    return nullptr;
  }
  const auto* slot = static_cast<const int64_t*>(slot_view.data());
  const auto* offset = static_cast<const int64_t*>(offset_view.data());
  const auto* length = static_cast<const int64_t*>(length_view.data());
  // The slots' files and indexes, not the slots: an Add() on another thread may move those.
  std::vector<std::pair<const io::RandomAccessFile*, const io::SeekIndex*>> files;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& f : files_) files.emplace_back(f.file.get(), f.seek.get());
  }
  for (size_t i = 0; i < n; ++i) {
    if (slot[i] < 0 || static_cast<uint64_t>(slot[i]) >= files.size() || offset[i] < 0) {
      PyErr_Format(PyExc_IndexError, "read %zu: no file slot %lld or offset %lld", i,
                   static_cast<long long>(slot[i]), static_cast<long long>(offset[i]));
      return nullptr;
    }
  }
  std::vector<std::string> records(n);
  std::vector<Status> statuses(n);
  const Status s = WithoutGil([&] {
    ThreadPool::Default()->ParallelFor(static_cast<int64_t>(n), [&](int64_t i) {
      const auto& [file, seek] = files[slot[i]];
      statuses[i] =
          ReadIndexed(*file, seek, static_cast<uint64_t>(offset[i]), length[i], &records[i]);
    });
    for (const Status& read : statuses) SWIGFLOW_RETURN_IF_ERROR(read);
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return NewList(n, [&](size_t i) {
    return PyBytes_FromStringAndSize(records[i].data(), static_cast<Py_ssize_t>(records[i].size()));
  });
}

// --- PyRecordScanner ---------------------------------------------------------------------------

Status PyRecordScanner::Open(const std::string& path, const io::RecordOptions& options,
                             std::unique_ptr<PyRecordScanner>* scanner) {
  std::unique_ptr<io::RecordScanner> s;
  SWIGFLOW_RETURN_IF_ERROR(io::RecordScanner::Open(path, options, &s));
  scanner->reset(new PyRecordScanner(std::move(s)));
  return Status::OK();
}

PyRecordScanner::PyRecordScanner(std::unique_ptr<io::RecordScanner> scanner)
    : scanner_(std::move(scanner)) {}

PyObject* PyRecordScanner::ReadBatch(size_t max_records, bool with_payloads) {
  std::vector<uint64_t> offsets;
  std::vector<std::string> payloads;
  const Status s = WithoutGil([&] {
    std::string payload;
    Status next;
    while (offsets.size() < max_records) {
      uint64_t offset;
      next = scanner_->Next(&offset, with_payloads ? &payload : nullptr);
      if (!next.ok()) break;
      offsets.push_back(offset);
      if (with_payloads) payloads.push_back(std::move(payload));
    }
    return next;
  });
  if (!s.ok() && !errors::IsOutOfRange(s)) return StatusResult(s);
  return NewList(offsets.size(), [&](size_t i) {
    const auto offset = static_cast<unsigned long long>(offsets[i]);
    return with_payloads ? Py_BuildValue("(Ky#)", offset, payloads[i].data(),
                                         static_cast<Py_ssize_t>(payloads[i].size()))
                         : Py_BuildValue("(KO)", offset, Py_None);
  });
}

PyObject* PyRecordScanner::TakeDamages() {
  const std::vector<io::RecordDamage> damages = scanner_->TakeDamages();
  return NewList(damages.size(), [&](size_t i) -> PyObject* {
    const io::RecordDamage& d = damages[i];
    PyObject* message = MessageToPy(d.message);
    if (message == nullptr) return nullptr;
    return Py_BuildValue("(sKKKN)", io::DamageKindName(d.kind),
                         static_cast<unsigned long long>(d.offset),
                         static_cast<unsigned long long>(d.resume),
                         static_cast<unsigned long long>(d.records_before), message);
  });
}

PyObject* BuildSeekIndex(const std::string& path, int compression, uint64_t span) {
  std::string bytes;
  const Status s = WithoutGil([&] {
    io::SeekIndex index;
    SWIGFLOW_RETURN_IF_ERROR(io::BuildSeekIndex(path, static_cast<io::Compression>(compression),
                                                span > 0 ? span : io::kDefaultSeekSpan, &index));
    bytes = io::SerializeSeekIndex(index);
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return PyBytes_FromStringAndSize(bytes.data(), static_cast<Py_ssize_t>(bytes.size()));
}

PyObject* SeekIndexRecords(PyObject* index, const std::string& index_path) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(index, &data, &size) < 0) return nullptr;
  io::SeekIndex parsed;
  const std::string copy(data, static_cast<size_t>(size));
  const Status s = WithoutGil([&] { return io::ParseSeekIndex(copy, index_path, &parsed); });
  if (!s.ok()) return StatusResult(s);
  Ref offsets(Int64Array(parsed.records.offsets));
  Ref lengths(offsets != nullptr ? Int64Array(parsed.records.lengths) : nullptr);
  if (lengths == nullptr) return nullptr;
  return Py_BuildValue("(iNN)", static_cast<int>(parsed.compression), offsets.release(),
                       lengths.release());
}

namespace {

// The index's arrays moved out to the caller's.
Status TakeIndex(io::RecordIndex* index, std::vector<int64_t>* offsets,
                 std::vector<int64_t>* lengths) {
  *offsets = std::move(index->offsets);
  *lengths = std::move(index->lengths);
  return Status::OK();
}

}  // namespace

Status ScanRecordIndex(const std::string& path, std::vector<int64_t>* offsets,
                       std::vector<int64_t>* lengths) {
  io::RecordIndex index;
  SWIGFLOW_RETURN_IF_ERROR(io::ScanRecords(path, &index));
  return TakeIndex(&index, offsets, lengths);
}

Status CreateIndexFile(const std::string& path, const std::string& index_path,
                       std::vector<int64_t>* offsets, std::vector<int64_t>* lengths) {
  io::RecordIndex index;
  SWIGFLOW_RETURN_IF_ERROR(io::ScanRecords(path, &index));
  SWIGFLOW_RETURN_IF_ERROR(io::WriteIndexFile(index_path, index));
  return TakeIndex(&index, offsets, lengths);
}

Status ReadRecordIndex(const std::string& index_path, std::vector<int64_t>* offsets,
                       std::vector<int64_t>* lengths) {
  io::RecordIndex index;
  SWIGFLOW_RETURN_IF_ERROR(io::ReadIndexFile(index_path, &index));
  return TakeIndex(&index, offsets, lengths);
}

Status WriteRecordIndex(const std::string& index_path, const std::vector<int64_t>& offsets,
                        const std::vector<int64_t>& lengths) {
  if (offsets.size() != lengths.size()) {
    return errors::InvalidArgument("offsets and lengths differ in length (", offsets.size(),
                                   " and ", lengths.size(), ")");
  }
  io::RecordIndex index;
  index.offsets = offsets;
  index.lengths = lengths;
  return io::WriteIndexFile(index_path, index);
}

}  // namespace python
}  // namespace swigflow
