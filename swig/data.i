// swigflow.data's native pipeline (python/swigflow/data/). Python describes the pipeline in a
// dict; elements come back as raw records or parse_example's (values, counts) per spec.
%{
#include <functional>

#include "swigflow/data/pipeline.h"
%}

%{
namespace {

namespace sfd = swigflow::data;

// config[key] as an int64, or `fallback` when absent; false with an exception set on a bad value.
bool ConfigInt(PyObject* config, const char* key, int64_t fallback, int64_t* out) {
  PyObject* value = PyDict_GetItemString(config, key);  // borrowed
  if (value == nullptr || value == Py_None) {
    *out = fallback;
    return true;
  }
  const long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) return false;
  *out = v;
  return true;
}

// A list of floats (mean or std); None leaves `out` empty.
bool FloatList(PyObject* value, std::vector<float>* out) {
  if (value == nullptr || value == Py_None) return true;
  PyObject* list = PySequence_Fast(value, "expected a sequence of floats");
  if (list == nullptr) return false;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(list); ++i) {
    const double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(list, i));
    if (v == -1.0 && PyErr_Occurred()) {
      Py_DECREF(list);
      return false;
    }
    out->push_back(static_cast<float>(v));
  }
  Py_DECREF(list);
  return true;
}

// config["images"]: decode_images's options (swigflow/data/records.py writes them).
bool ImageOptionsFromPy(PyObject* images, sfd::PipelineOptions* o) {
  namespace sfi = swigflow::image;
  if (!PyDict_Check(images)) {
    PyErr_SetString(PyExc_TypeError, "images must be a dict");
    return false;
  }
  sfi::BatchDecodeOptions& io = o->image;
  int64_t v;
  struct Field {
    const char* key;
    std::function<void(int64_t)> set;
  };
  const Field fields[] = {
      {"spec", [&](int64_t x) { o->image_spec = static_cast<size_t>(x); }},
      {"height", [&](int64_t x) { io.height = x; }},
      {"width", [&](int64_t x) { io.width = x; }},
      {"channels", [&](int64_t x) { io.channels = static_cast<int>(x); }},
      {"crop", [&](int64_t x) { io.crop = static_cast<sfi::BatchDecodeOptions::Crop>(x); }},
      {"flip", [&](int64_t x) { io.flip = x != 0; }},
      {"float32", [&](int64_t x) { io.type = x ? sfi::SampleType::kFloat32 : sfi::SampleType::kUint8; }},
      {"nchw", [&](int64_t x) { io.nchw = x != 0; }},
      {"fast", [&](int64_t x) { io.fast = x != 0; }},
      {"seed", [&](int64_t x) { o->image_seed = static_cast<uint64_t>(x); }},
  };
  for (const Field& f : fields) {
    if (!ConfigInt(images, f.key, 0, &v)) return false;
    f.set(v);
  }
  if (!FloatList(PyDict_GetItemString(images, "mean"), &io.mean) ||
      !FloatList(PyDict_GetItemString(images, "std"), &io.std)) {
    return false;
  }
  o->decode_images = true;
  return true;
}

bool PipelineOptionsFromPy(PyObject* config, sfd::PipelineOptions* o) {
  if (!PyDict_Check(config)) {
    PyErr_SetString(PyExc_TypeError, "pipeline config must be a dict");
    return false;
  }
  PyObject* files = PyDict_GetItemString(config, "files");
  PyObject* items = files != nullptr ? PySequence_Fast(files, "files must be a sequence") : nullptr;
  if (items == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "files");
    return false;
  }
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(items); ++i) {
    PyObject *path, *offsets;
    sfd::SourceFile file;
    ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(items, i), "O&O", PyUnicode_FSConverter,
                          &path, &offsets);
    if (!ok) break;
    file.path.assign(PyBytes_AS_STRING(path), static_cast<size_t>(PyBytes_GET_SIZE(path)));
    Py_DECREF(path);
    if (offsets != Py_None) {
      PyObject* list = PySequence_Fast(offsets, "offsets must be a sequence");
      ok = list != nullptr;
      for (Py_ssize_t j = 0; ok && j < PySequence_Fast_GET_SIZE(list); ++j) {
        const unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(list, j));
        ok = !(v == static_cast<unsigned long long>(-1) && PyErr_Occurred());
        file.offsets.push_back(v);
      }
      Py_XDECREF(list);
      file.indexed = true;
    }
    o->files.push_back(std::move(file));
  }
  Py_DECREF(items);
  if (!ok) return false;

  int64_t v;
  struct Field {
    const char* key;
    int64_t fallback;
    std::function<void(int64_t)> set;
  };
  const Field fields[] = {
      {"cycle_length", 1, [&](int64_t x) { o->cycle_length = static_cast<int>(x); }},
      {"block_length", 1, [&](int64_t x) { o->block_length = static_cast<int>(x); }},
      {"num_shards", 1, [&](int64_t x) { o->num_shards = x; }},
      {"shard_index", 0, [&](int64_t x) { o->shard_index = x; }},
      {"global_shuffle", 0, [&](int64_t x) { o->global_shuffle = x != 0; }},
      {"shuffle_buffer", 0, [&](int64_t x) { o->shuffle_buffer = x; }},
      {"seed", 0, [&](int64_t x) { o->seed = static_cast<uint64_t>(x); }},
      {"reshuffle_each_iteration", 1, [&](int64_t x) { o->reshuffle_each_iteration = x != 0; }},
      {"epochs", 1, [&](int64_t x) { o->epochs = x; }},
      {"batch_size", 0, [&](int64_t x) { o->batch_size = x; }},
      {"drop_remainder", 0, [&](int64_t x) { o->drop_remainder = x != 0; }},
      {"batch_across_epochs", 0, [&](int64_t x) { o->batch_across_epochs = x != 0; }},
      {"prefetch", 2, [&](int64_t x) { o->prefetch = static_cast<int>(std::min<int64_t>(x, 1 << 20)); }},
      {"on_error", 0, [&](int64_t x) { o->on_error = static_cast<sfd::OnError>(x); }},
      {"start_epoch", 0, [&](int64_t x) { o->start_epoch = x; }},
      {"start_position", 0, [&](int64_t x) { o->start_position = x; }},
  };
  for (const Field& f : fields) {
    if (!ConfigInt(config, f.key, f.fallback, &v)) return false;
    f.set(v);
  }
  if (o->on_error != sfd::OnError::kRaise && o->on_error != sfd::OnError::kSkipRecord &&
      o->on_error != sfd::OnError::kSkipFile) {
    PyErr_SetString(PyExc_ValueError, "invalid on_error");
    return false;
  }
  PyObject* images = PyDict_GetItemString(config, "images");
  if (images != nullptr && images != Py_None && !ImageOptionsFromPy(images, o)) return false;
  PyObject* specs = PyDict_GetItemString(config, "specs");
  if (specs != nullptr && specs != Py_None) {
    PyObject* list = PySequence_Fast(specs, "specs must be a sequence");
    if (list == nullptr) return false;
    o->parse = true;
    for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(list); ++i) {
      o->specs.emplace_back();
      ok = SpecFromPy(PySequence_Fast_GET_ITEM(list, i), &o->specs.back());
    }
    Py_DECREF(list);
  }
  return ok;
}

}  // namespace
%}

SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::data::PyPipeline, pipeline)

%inline %{
namespace swigflow {
namespace data {

// One running pipeline; swigflow.data's iterators own one each (not shared between threads).
class PyPipeline {
 public:
  static Status Create(const io::RecordOptions& record_options, PyObject* config,
                       std::unique_ptr<PyPipeline>* pipeline) {
    PipelineOptions options;
    if (!PipelineOptionsFromPy(config, &options)) {
      // Built by swigflow/data itself: a bad config is a bug there; keep its message.
      PyObject *type, *value, *traceback;
      PyErr_Fetch(&type, &value, &traceback);
      PyObject* text = value != nullptr ? PyObject_Str(value) : nullptr;
      const char* utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
      Status s = errors::InvalidArgument("bad pipeline config: ", utf8 != nullptr ? utf8 : "?");
      Py_XDECREF(text);
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(traceback);
      PyErr_Clear();
      return s;
    }
    options.record_options = record_options;
    const bool parsing = options.parse;
    const bool images = options.decode_images;
    const size_t image_spec = options.image_spec;
    const image::BatchDecodeOptions image_options = options.image;
    std::vector<example::FeatureSpec> specs = options.specs;
    std::unique_ptr<Pipeline> p;
    SWIGFLOW_RETURN_IF_ERROR(Pipeline::Create(std::move(options), &p));
    pipeline->reset(new PyPipeline(std::move(p), parsing, std::move(specs)));
    if (images) {
      (*pipeline)->image_spec_ = static_cast<int64_t>(image_spec);
      (*pipeline)->image_options_ = image_options;
    }
    return Status::OK();
  }

  // (payload, records, epoch, position) of the next element, None at the end. payload: parse_example's
  // [(values, counts)] per spec when parsing, else the records as a list of bytes.
  PyObject* Next() { return NextAs(parsing_ ? kParsed : kBytes); }

  // Next() for records without a bytes object each: payload is (data, ends), a read-only uint8
  // array over the element's own buffer (which the array keeps alive: no copy) and the n + 1
  // int64 boundaries of the records in it.
  PyObject* NextView() { return NextAs(kView); }

  // Damage skipped since the last call: [(kind, offset, message)].
  PyObject* TakeDamages() {
    const std::vector<io::RecordDamage> damages = pipeline_->TakeDamages();
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(damages.size()));
    for (size_t i = 0; list != nullptr && i < damages.size(); ++i) {
      const io::RecordDamage& d = damages[i];
      PyObject* message = PyUnicode_DecodeUTF8(
          d.message.data(), static_cast<Py_ssize_t>(d.message.size()), "backslashreplace");
      PyObject* item = message == nullptr ? nullptr
                                          : Py_BuildValue("(sKN)", io::DamageKindName(d.kind),
                                                          static_cast<unsigned long long>(d.offset),
                                                          message);
      if (item == nullptr) {
        Py_CLEAR(list);
      } else {
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
      }
    }
    return list;
  }

  long long RecordsPerEpoch() const { return pipeline_->RecordsPerEpoch(); }

 private:
  PyPipeline(std::unique_ptr<Pipeline> pipeline, bool parsing,
             std::vector<example::FeatureSpec> specs)
      : pipeline_(std::move(pipeline)), parsing_(parsing), specs_(std::move(specs)) {}

  enum Payload { kParsed, kBytes, kView };

  // Waits in slices of 100 ms, checking for signals in between: Ctrl-C interrupts a pipeline
  // blocked on a slow or stuck reader (KeyboardInterrupt).
  PyObject* NextAs(Payload kind) {
    std::unique_ptr<Element> e;
    Status s;
    for (;;) {
      s = SwigflowWithoutGil([&] { return pipeline_->NextFor(&e, 100); });
      if (!errors::IsDeadlineExceeded(s)) break;
      if (PyErr_CheckSignals() < 0) return nullptr;
    }
    if (errors::IsOutOfRange(s)) Py_RETURN_NONE;
    if (!s.ok()) {
      SwigflowSetStatusError(s);
      return nullptr;
    }
    const Py_ssize_t records = static_cast<Py_ssize_t>(e->size());
    const long long epoch = e->epoch, position = e->position;
    PyObject* payload = kind == kParsed  ? ParsedToPyList(e.get())
                        : kind == kBytes ? RecordsToPy(*e)
                                         : RecordsToView(std::move(e));
    if (payload == nullptr) return nullptr;
    return Py_BuildValue("(NnLL)", payload, records, epoch, position);
  }

  // (data, ends) over the element's buffer, which a capsule owning the element keeps alive.
  static PyObject* RecordsToView(std::unique_ptr<Element> e) {
    std::vector<int64_t> ends(e->size() + 1, 0);
    for (size_t i = 0; i < e->size(); ++i) ends[i + 1] = static_cast<int64_t>(e->ends[i]);
    npy_intp size = static_cast<npy_intp>(e->data.size());
    char* bytes = &e->data[0];
    Element* raw = e.release();
    PyObject* owner = PyCapsule_New(raw, nullptr, [](PyObject* c) {
      delete static_cast<Element*>(PyCapsule_GetPointer(c, nullptr));
    });
    if (owner == nullptr) {
      delete raw;
      return nullptr;
    }
    PyObject* data = PyArray_SimpleNewFromData(1, &size, NPY_UINT8, bytes);
    if (data == nullptr || PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(data), owner) < 0) {
      Py_XDECREF(data);
      if (data == nullptr) Py_DECREF(owner);
      return nullptr;
    }
    PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject*>(data), NPY_ARRAY_WRITEABLE);
    return Py_BuildValue("(NN)", data, SwigflowInt64Array(ends));
  }

  static PyObject* RecordsToPy(const Element& e) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(e.size()));
    for (size_t i = 0; list != nullptr && i < e.size(); ++i) {
      const size_t begin = i == 0 ? 0 : e.ends[i - 1];
      PyObject* item = PyBytes_FromStringAndSize(e.data.data() + begin,
                                                 static_cast<Py_ssize_t>(e.ends[i] - begin));
      if (item == nullptr) {
        Py_CLEAR(list);
      } else {
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
      }
    }
    return list;
  }

  PyObject* ParsedToPyList(Element* e) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(e->parsed.size()));
    for (size_t i = 0; list != nullptr && i < e->parsed.size(); ++i) {
      std::vector<PyObject*> none;
      PyObject* item = static_cast<int64_t>(i) == image_spec_
                           ? ImagesToArray(e)
                           : ParsedToPy(specs_[i], &e->parsed[i], &none);
      if (item == nullptr) {
        Py_CLEAR(list);
      } else {
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
      }
    }
    return list;
  }

  // The decoded images as one array [n, h, w, c] (or [n, c, h, w]) that owns their buffer.
  PyObject* ImagesToArray(Element* e) {
    const image::BatchDecodeOptions& o = image_options_;
    const auto shape = image::DecodedBatchShape(o, static_cast<int64_t>(e->size()));
    npy_intp dims[4] = {shape[0], shape[1], shape[2], shape[3]};
    const int type = o.type == image::SampleType::kFloat32 ? NPY_FLOAT32 : NPY_UINT8;
    return SwigflowArrayFromBuffer(std::move(e->images), type, 4, dims);
  }

  std::unique_ptr<Pipeline> pipeline_;
  int64_t image_spec_ = -1;  // the spec whose bytes are decoded images, or -1
  image::BatchDecodeOptions image_options_;
  const bool parsing_;
  const std::vector<example::FeatureSpec> specs_;
};

}  // namespace data
}  // namespace swigflow
%}
