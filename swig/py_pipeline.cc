#include "swig/py_pipeline.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swig/py_example.h"
#include "swigflow/data/shuffle.h"

namespace swigflow {
namespace python {
namespace {

// (data, ends): the records end to end in one read-only uint8 array and their n + 1 boundaries
// in it. The array views the records where they lie when each starts where the one before ends
// (PipelineOptions::contiguous: the element's own buffer; the array keeps the element, which
// holds them, alive), else holds a copy made without the GIL.
PyObject* RecordsToView(std::unique_ptr<data::Element> e) {
  std::vector<int64_t> ends(e->size() + 1, 0);
  for (size_t i = 0; i < e->size(); ++i) {
    ends[i + 1] = ends[i] + static_cast<int64_t>(e->records[i].size());
  }
  const size_t size = static_cast<size_t>(ends.back());
  const char* bytes = e->size() > 0 ? e->records[0].data() : nullptr;
  bool in_place = bytes != nullptr;
  for (size_t i = 0; in_place && i < e->size(); ++i) {
    in_place = e->records[i].data() == bytes + ends[i];
  }
  PyObject* owner;
  if (in_place) {
    owner = OwningCapsule(e.release());
  } else {
    auto copy = std::make_unique<std::string>();
    const Status s = WithoutGil([&] {
      copy->reserve(size);
      for (std::string_view r : e->records) copy->append(r);
      return Status::OK();
    });
    if (!s.ok()) return StatusResult(s);
    bytes = copy->data();
    owner = OwningCapsule(copy.release());
  }
  if (owner == nullptr) return nullptr;
  PyObject* array = ReadOnlyBytesArray(bytes, size, owner);
  if (array == nullptr) return nullptr;
  return Py_BuildValue("(NN)", array, Int64Array(ends));
}

// Elements of at least this many bytes fill their bytes objects without the GIL.
constexpr size_t kCopyWithoutGil = 256 << 10;

PyObject* RecordsToPy(const data::Element& e) {
  if (e.bytes() < kCopyWithoutGil) {
    return NewList(e.size(), [&](size_t i) {
      return PyBytes_FromStringAndSize(e.records[i].data(),
                                       static_cast<Py_ssize_t>(e.records[i].size()));
    });
  }
  // The objects are made with the GIL and filled without it (no other thread can see them
  // yet): the copy, the one the bytes API costs, then holds up no remote read's thread.
  std::vector<char*> into(e.size());
  Ref list(NewList(e.size(), [&](size_t i) { return NewBytes(e.records[i].size(), &into[i]); }));
  if (list == nullptr) return nullptr;
  const Status s = WithoutGil([&] {
    for (size_t i = 0; i < e.size(); ++i) {
      std::memcpy(into[i], e.records[i].data(), e.records[i].size());
    }
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return list.release();
}

// The decoded images as one array [n, h, w, c] (or [n, c, h, w]) that owns their buffer.
PyObject* ImagesToArray(const image::BatchDecodeOptions& o, data::Element* e) {
  const auto shape = image::DecodedBatchShape(o, static_cast<int64_t>(e->size()));
  npy_intp dims[4] = {shape[0], shape[1], shape[2], shape[3]};
  const int type = o.type == image::SampleType::kFloat32 ? NPY_FLOAT32 : NPY_UINT8;
  return ArrayFromBuffer(std::move(e->images), type, 4, dims);
}

}  // namespace

PyObject* AddSourceFiles(data::PipelineOptions* options, PyObject* paths, PyObject* offsets) {
  if (!PyList_Check(paths) ||
      (offsets != Py_None &&
       (!PyList_Check(offsets) || PyList_Size(offsets) != PyList_Size(paths)))) {
    PyErr_SetString(PyExc_TypeError,
                    "AddSourceFiles: a list of paths, and None or as many offsets");
    return nullptr;
  }
  const Py_ssize_t n = PyList_Size(paths);
  options->files.reserve(options->files.size() + static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    data::SourceFile file;
    if (!PathFromPy(PyList_GetItem(paths, i), &file.path)) return nullptr;
    PyObject* seek = offsets != Py_None ? PyList_GetItem(offsets, i) : nullptr;
    if (seek != nullptr && PyBytes_Check(seek)) {
      auto index = std::make_shared<io::SeekIndex>();
      const std::string bytes(BytesOf(seek));
      const Status s = io::ParseSeekIndex(bytes, file.path + " (seek index)", index.get());
      if (!s.ok()) return StatusResult(s);
      file.offsets.assign(index->records.offsets.begin(), index->records.offsets.end());
      file.seek_index = std::move(index);
      file.indexed = true;
    } else if (offsets != Py_None) {
      const Ref array(PyArray_FROMANY(PyList_GetItem(offsets, i), NPY_UINT64, 1, 1,
                                      NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST));
      if (array == nullptr) return nullptr;
      const auto* begin = static_cast<const uint64_t*>(PyArray_DATA(ArrayOf(array)));
      file.offsets.assign(begin, begin + PyArray_SIZE(ArrayOf(array)));
      file.indexed = true;
    }
    options->files.push_back(std::move(file));
  }
  Py_RETURN_NONE;
}

void Permutation(size_t n, unsigned long long seed, std::vector<int64_t>* permutation) {
  *permutation = data::Permutation(n, seed);
}

Status PyPipeline::Create(const data::PipelineOptions& options,
                          std::unique_ptr<PyPipeline>* pipeline) {
  std::unique_ptr<data::Pipeline> p;
  SWIGFLOW_RETURN_IF_ERROR(data::Pipeline::Create(options, &p));
  pipeline->reset(new PyPipeline(std::move(p), options));
  return Status::OK();
}

PyPipeline::PyPipeline(std::unique_ptr<data::Pipeline> pipeline,
                       const data::PipelineOptions& options)
    : pipeline_(std::move(pipeline)),
      parsing_(options.parse),
      specs_(options.specs),
      image_spec_(options.decode_images ? static_cast<int64_t>(options.image_spec) : -1),
      image_options_(options.image) {}

PyPipeline::~PyPipeline() {
  pipeline_.reset();
  Gil gil;
  if (gil.ok()) ReleaseLentBuffers();
}

PyObject* PyPipeline::Next() { return NextAs(parsing_ ? Payload::kParsed : Payload::kBytes); }

PyObject* PyPipeline::NextView() { return NextAs(Payload::kView); }

PyObject* PyPipeline::TakeDamages() {
  const std::vector<io::RecordDamage> damages = pipeline_->TakeDamages();
  return NewList(damages.size(), [&](size_t i) -> PyObject* {
    const io::RecordDamage& d = damages[i];
    PyObject* message = MessageToPy(d.message);
    if (message == nullptr) return nullptr;
    return Py_BuildValue("(sKN)", io::DamageKindName(d.kind),
                         static_cast<unsigned long long>(d.offset), message);
  });
}

PyObject* PyPipeline::Stats() const {
  const data::PipelineStats s = pipeline_->Stats();  // brief locks only: keeps the GIL
  Ref stages(NewList(s.stages.size(), [&](size_t i) {
    const data::StageStats& st = s.stages[i];
    return Py_BuildValue(
        "{s:s,s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "name", st.name.c_str(), "threads", st.threads,
        "busy_ns", static_cast<long long>(st.busy_ns), "input_wait_ns",
        static_cast<long long>(st.input_wait_ns), "output_wait_ns",
        static_cast<long long>(st.output_wait_ns), "elements", static_cast<long long>(st.elements),
        "records", static_cast<long long>(st.records), "bytes", static_cast<long long>(st.bytes),
        "files", static_cast<long long>(st.files));
  }));
  if (stages == nullptr) return nullptr;
  Ref queues(NewList(s.queues.size(), [&](size_t i) {
    const data::QueueStats& q = s.queues[i];
    return Py_BuildValue("{s:s,s:L,s:L,s:d}", "name", q.name.c_str(), "capacity",
                         static_cast<long long>(q.capacity), "size", static_cast<long long>(q.size),
                         "mean_fill", q.mean_fill);
  }));
  if (queues == nullptr) return nullptr;
  return Py_BuildValue("{s:L,s:L,s:L,s:N,s:N}", "elapsed_ns", static_cast<long long>(s.elapsed_ns),
                       "consumer_wait_ns", static_cast<long long>(s.consumer_wait_ns), "delivered",
                       static_cast<long long>(s.delivered), "stages", stages.release(), "queues",
                       queues.release());
}

PyObject* PyPipeline::NextAs(Payload kind) {
  std::unique_ptr<data::Element> e;
  Status s;
  for (;;) {
    s = WithoutGil([&] { return pipeline_->NextFor(&e, 100); });
    if (!errors::IsDeadlineExceeded(s)) break;
    if (PyErr_CheckSignals() < 0) return nullptr;
  }
  ReleaseLentBuffers();  // remote blocks the pipeline's threads let go of
  if (errors::IsOutOfRange(s)) Py_RETURN_NONE;
  if (!s.ok()) return StatusResult(s);
  const Py_ssize_t records = static_cast<Py_ssize_t>(e->size());
  const long long epoch = e->epoch, position = e->position;
  PyObject* payload = kind == Payload::kParsed  ? ParsedToPyList(e.get())
                      : kind == Payload::kBytes ? RecordsToPy(*e)
                                                : RecordsToView(std::move(e));
  if (payload == nullptr) return nullptr;
  return Py_BuildValue("(NnLL)", payload, records, epoch, position);
}

PyObject* PyPipeline::ParsedToPyList(data::Element* e) {
  return NewList(e->parsed.size(), [&](size_t i) {
    std::vector<PyObject*> none;
    return static_cast<int64_t>(i) == image_spec_ ? ImagesToArray(image_options_, e)
                                                  : ParsedToPy(specs_[i], &e->parsed[i], &none);
  });
}

}  // namespace python
}  // namespace swigflow
