#include "swig/py_example.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace swigflow {
namespace python {
namespace {

namespace ex = swigflow::example;

// (kind, [values]) for one Feature. Needs the GIL.
PyObject* FeatureToPy(const ex::Feature& f) {
  const Py_ssize_t n = static_cast<Py_ssize_t>(f.size());
  Ref values(PyList_New(n));
  if (values == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = nullptr;
    switch (f.kind) {
      case ex::Feature::Kind::kBytes:
        v = PyBytes_FromStringAndSize(f.bytes_list[i].data(),
                                      static_cast<Py_ssize_t>(f.bytes_list[i].size()));
        break;
      case ex::Feature::Kind::kFloat:
        v = PyFloat_FromDouble(f.float_list[i]);
        break;
      case ex::Feature::Kind::kInt64:
        v = PyLong_FromLongLong(f.int64_list[i]);
        break;
      case ex::Feature::Kind::kNone:
        break;
    }
    if (v == nullptr) return nullptr;
    PyList_SetItem(values.get(), i, v);
  }
  return Py_BuildValue("(iN)", static_cast<int>(f.kind), values.release());
}

// Map keys are proto `string`s: UTF-8, decoded without ever failing.
PyObject* KeyToPy(const std::string& key) {
  return PyUnicode_DecodeUTF8(key.data(), static_cast<Py_ssize_t>(key.size()), "surrogateescape");
}

PyObject* FeatureMapToPy(const ex::FeatureMap& map) {
  Ref dict(PyDict_New());
  if (dict == nullptr) return nullptr;
  for (const auto& [key, feature] : map) {
    const Ref k(KeyToPy(key));
    const Ref v(k != nullptr ? FeatureToPy(feature) : nullptr);
    if (v == nullptr || PyDict_SetItem(dict.get(), k.get(), v.get()) != 0) return nullptr;
  }
  return dict.release();
}

bool KeyFromPy(PyObject* key, std::string* out) {
  if (!PyUnicode_Check(key)) {
    PyErr_Format(PyExc_TypeError, "feature keys must be str, not %.100s", TypeName(key).c_str());
    return false;
  }
  const Ref utf8(PyUnicode_AsEncodedString(key, "utf-8", "surrogateescape"));
  if (utf8 == nullptr) return false;
  out->assign(BytesOf(utf8.get()));
  return true;
}

// A Feature from (kind, values); values any sequence of the kind's type.
bool FeatureFromPy(PyObject* item, ex::Feature* f) {
  int kind = 0;
  PyObject* values = nullptr;
  if (!PyArg_ParseTuple(item, "iO", &kind, &values)) return false;
  if (kind < 0 || kind > 3) {
    PyErr_Format(PyExc_ValueError, "invalid feature kind %d", kind);
    return false;
  }
  f->SetKind(static_cast<ex::Feature::Kind>(kind));
  const FastItems items(values, "feature values must be a sequence");
  if (!items.ok()) return false;
  const Py_ssize_t n = items.size();
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    PyObject* v = items.item(i);
    switch (f->kind) {
      case ex::Feature::Kind::kBytes: {
        char* data;
        Py_ssize_t size;
        if (!PyBytes_Check(v)) {
          PyErr_Format(PyExc_TypeError, "bytes_list values must be bytes, not %.100s",
                       TypeName(v).c_str());
          ok = false;
        } else if (PyBytes_AsStringAndSize(v, &data, &size) == 0) {
          f->bytes_list.emplace_back(data, static_cast<size_t>(size));
        } else {
          ok = false;
        }
        break;
      }
      case ex::Feature::Kind::kFloat: {
        const double d = PyFloat_AsDouble(v);
        ok = !(d == -1.0 && PyErr_Occurred());
        if (ok) f->float_list.push_back(static_cast<float>(d));
        break;
      }
      case ex::Feature::Kind::kInt64: {
        const long long x = PyLong_AsLongLong(v);
        ok = !(x == -1 && PyErr_Occurred());
        if (ok) f->int64_list.push_back(x);
        break;
      }
      case ex::Feature::Kind::kNone:
        PyErr_SetString(PyExc_ValueError, "a Feature with no kind has no values");
        ok = false;
        break;
    }
  }
  return ok;
}

// A FeatureMap from a dict {key: (kind, values)}.
bool FeatureMapFromPy(PyObject* dict, ex::FeatureMap* map) {
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "expected a dict of features");
    return false;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    std::string k;
    if (!KeyFromPy(key, &k) || !FeatureFromPy(value, &(*map)[k])) return false;
  }
  return true;
}

PyObject* BytesToPy(const std::string& s) {
  return PyBytes_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Parses with the GIL released. Large batches with string features are parsed by a background
// thread in parts while this thread, holding the GIL, turns each finished part's strings into
// bytes objects: the two costs overlap instead of adding up. objects[s] receives spec s's bytes
// objects (new references) when that happens.
Status ParseReleasingGil(const std::vector<std::string_view>& views,
                         const std::vector<ex::FeatureSpec>& specs,
                         const std::vector<std::string>* names, int num_threads,
                         std::vector<ex::ParsedFeature>* parsed,
                         std::vector<std::vector<PyObject*>>* objects) {
  constexpr size_t kPartRecords = 512;
  const bool has_bytes = std::any_of(specs.begin(), specs.end(), [](const ex::FeatureSpec& s) {
    return s.dtype == ex::Feature::Kind::kBytes;
  });
  Status s;
  if (!has_bytes || num_threads < 2 || views.size() < 4 * kPartRecords) {
    return WithoutGil(
        [&] { return ex::ParseExampleBatch(views, specs, names, num_threads, parsed); });
  }
  PyThreadState* released = PyEval_SaveThread();
  s = ex::ParseExampleBatchStreaming(
      views, specs, names, kPartRecords,
      [&](size_t, const ex::StringParts& strings) {
        PyEval_RestoreThread(released);
        bool ok = true;
        for (size_t f = 0; ok && f < specs.size(); ++f) {
          for (std::string_view v : strings[f]) {
            PyObject* item = PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
            if (item == nullptr) {
              ok = false;
              break;
            }
            (*objects)[f].push_back(item);
          }
        }
        released = PyEval_SaveThread();
        return ok ? Status::OK()
                  : swigflow::errors::ResourceExhausted("out of memory making bytes objects");
      },
      parsed);
  PyEval_RestoreThread(released);
  if (!s.ok()) {
    for (auto& list : *objects) ReleaseAll(&list);
  }
  return s;
}

}  // namespace

// {key: (kind, values)} of a serialized Example; InvalidArgumentError if malformed.
PyObject* DecodeExample(const char* data, size_t n) {
  ex::Example example;
  Status s;
  s = WithoutGil([&] { return ex::ParseExample(data, n, &example); });
  if (!s.ok()) {
    SetStatusError(s);
    return nullptr;
  }
  return FeatureMapToPy(example.features);
}

// (context, {key: [(kind, values), ...]}) of a serialized SequenceExample.
PyObject* DecodeSequenceExample(const char* data, size_t n) {
  ex::SequenceExample example;
  Status s;
  s = WithoutGil([&] { return ex::ParseSequenceExample(data, n, &example); });
  if (!s.ok()) {
    SetStatusError(s);
    return nullptr;
  }
  Ref context(FeatureMapToPy(example.context));
  Ref lists(context != nullptr ? PyDict_New() : nullptr);
  if (lists == nullptr) return nullptr;
  for (const auto& [key, features] : example.feature_lists) {
    const Ref list(PyList_New(static_cast<Py_ssize_t>(features.size())));
    const Ref k(list != nullptr ? KeyToPy(key) : nullptr);
    if (k == nullptr) return nullptr;
    for (size_t i = 0; i < features.size(); ++i) {
      PyObject* f = FeatureToPy(features[i]);
      if (f == nullptr) return nullptr;
      PyList_SetItem(list.get(), static_cast<Py_ssize_t>(i), f);
    }
    if (PyDict_SetItem(lists.get(), k.get(), list.get()) != 0) return nullptr;
  }
  return Py_BuildValue("(NN)", context.release(), lists.release());
}

// Canonical bytes of an Example given as {key: (kind, values)}.
PyObject* EncodeExample(PyObject* features) {
  ex::Example example;
  if (!FeatureMapFromPy(features, &example.features)) return nullptr;
  std::string out;
  ex::SerializeExample(example, &out);
  return BytesToPy(out);
}

namespace {

// One column of EncodeExampleColumns, its arrays held until the encoding is done.
struct Column {
  std::string key;
  ex::Feature::Kind kind;
  Ref values;  // 1-D arrays
  Ref splits;
  std::vector<std::string_view> bytes;  // kBytes: the values' buffers (the array keeps them)
};

// Checks and holds one (key, kind, values, splits) item; false with a Python error.
bool ColumnFromPy(PyObject* item, long long n, Column* c) {
  PyObject *key, *values, *splits;
  int kind;
  if (!PyArg_ParseTuple(item, "OiOO", &key, &kind, &values, &splits)) return false;
  if (!KeyFromPy(key, &c->key)) return false;
  if (kind < 1 || kind > 3) {
    PyErr_Format(PyExc_ValueError, "column %s: invalid feature kind %d", c->key.c_str(), kind);
    return false;
  }
  c->kind = static_cast<ex::Feature::Kind>(kind);
  const int type = c->kind == ex::Feature::Kind::kFloat   ? NPY_FLOAT32
                   : c->kind == ex::Feature::Kind::kInt64 ? NPY_INT64
                                                          : NPY_OBJECT;
  c->values.reset(
      PyArray_FromAny(values, PyArray_DescrFromType(type), 1, 1, NPY_ARRAY_CARRAY_RO, nullptr));
  if (c->values == nullptr) return false;
  c->splits.reset(PyArray_FromAny(splits, PyArray_DescrFromType(NPY_INT64), 1, 1,
                                  NPY_ARRAY_CARRAY_RO, nullptr));
  if (c->splits == nullptr) return false;
  const npy_intp size = PyArray_SIZE(ArrayOf(c->values));
  const auto* bounds = static_cast<const int64_t*>(PyArray_DATA(ArrayOf(c->splits)));
  if (PyArray_SIZE(ArrayOf(c->splits)) != n + 1 || bounds[0] != 0 || bounds[n] != size) {
    PyErr_Format(PyExc_ValueError,
                 "column %s: splits must be %lld + 1 bounds from 0 to the %zd values",
                 c->key.c_str(), n, static_cast<Py_ssize_t>(size));
    return false;
  }
  for (long long i = 0; i < n; ++i) {
    if (bounds[i + 1] < bounds[i]) {
      PyErr_Format(PyExc_ValueError, "column %s: splits must not decrease", c->key.c_str());
      return false;
    }
  }
  if (type == NPY_OBJECT) {
    auto* const* items = static_cast<PyObject* const*>(PyArray_DATA(ArrayOf(c->values)));
    c->bytes.reserve(static_cast<size_t>(size));
    for (npy_intp i = 0; i < size; ++i) {
      if (items[i] == nullptr || !PyBytes_Check(items[i])) {
        PyErr_Format(PyExc_TypeError, "column %s: bytes_list values must be bytes, not %.100s",
                     c->key.c_str(), items[i] == nullptr ? "NULL" : TypeName(items[i]).c_str());
        return false;
      }
      c->bytes.emplace_back(BytesOf(items[i]));
    }
  }
  return true;
}

}  // namespace

PyObject* EncodeExampleColumns(PyObject* columns, long long n) {
  if (n < 0) {
    PyErr_SetString(PyExc_ValueError, "the number of rows must not be negative");
    return nullptr;
  }
  std::vector<Column> cols;
  {
    const FastItems items(columns, "columns must be a sequence");
    if (!items.ok()) return nullptr;
    cols.resize(static_cast<size_t>(items.size()));
    for (size_t j = 0; j < cols.size(); ++j) {
      PyObject* item = items.item(static_cast<Py_ssize_t>(j));
      if (!ColumnFromPy(item, n, &cols[j])) return nullptr;
    }
  }
  std::vector<std::string> encoded(static_cast<size_t>(n));
  const Status s = WithoutGil([&] {
    ex::Example example;
    for (const Column& c : cols) example.features[c.key].SetKind(c.kind);
    for (long long i = 0; i < n; ++i) {
      for (const Column& c : cols) {
        ex::Feature& f = example.features[c.key];
        const auto* bounds = static_cast<const int64_t*>(PyArray_DATA(ArrayOf(c.splits)));
        const size_t begin = static_cast<size_t>(bounds[i]),
                     end = static_cast<size_t>(bounds[i + 1]);
        switch (c.kind) {
          case ex::Feature::Kind::kFloat: {
            const auto* v = static_cast<const float*>(PyArray_DATA(ArrayOf(c.values)));
            f.float_list.assign(v + begin, v + end);
            break;
          }
          case ex::Feature::Kind::kInt64: {
            const auto* v = static_cast<const int64_t*>(PyArray_DATA(ArrayOf(c.values)));
            f.int64_list.assign(v + begin, v + end);
            break;
          }
          default:
            f.bytes_list.assign(c.bytes.begin() + begin, c.bytes.begin() + end);
            break;
        }
      }
      ex::SerializeExample(example, &encoded[static_cast<size_t>(i)]);
    }
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return NewList(encoded.size(), [&](size_t i) { return BytesToPy(encoded[i]); });
}

// Numbers go to numpy without a copy; strings become bytes objects (the views point into the
// caller's records), unless `objects` already holds them (then the array takes them over).
PyObject* ParsedToPy(const ex::FeatureSpec& spec, ex::ParsedFeature* parsed,
                     std::vector<PyObject*>* objects) {
  Ref values;
  if (spec.dtype == ex::Feature::Kind::kBytes) {
    values.reset(objects->empty() ? BytesArray(parsed->bytes) : ObjectArray(objects));
  } else if (spec.dtype == ex::Feature::Kind::kFloat) {
    values.reset(ArrayFromVector(std::move(parsed->floats), NPY_FLOAT32));
  } else {
    values.reset(ArrayFromVector(std::move(parsed->int64s), NPY_INT64));
  }
  Ref counts(values != nullptr ? ArrayFromVector(std::move(parsed->counts), NPY_INT64) : nullptr);
  if (counts == nullptr) return nullptr;
  return Py_BuildValue("(NN)", values.release(), counts.release());
}

Status AppendFeatureSpec(std::vector<ex::FeatureSpec>* specs, const std::string& key, int type,
                         int kind, std::vector<int64_t> shape) {
  if (type < 0 || type > static_cast<int>(ex::FeatureSpec::Type::kRagged) ||
      kind < static_cast<int>(ex::Feature::Kind::kBytes) ||
      kind > static_cast<int>(ex::Feature::Kind::kInt64)) {
    return errors::InvalidArgument("AppendFeatureSpec: no spec type ", type, " or kind ", kind);
  }
  ex::FeatureSpec& spec = specs->emplace_back();
  spec.key = key;
  spec.type = static_cast<ex::FeatureSpec::Type>(type);
  spec.dtype = static_cast<ex::Feature::Kind>(kind);
  spec.SetShape(std::move(shape));
  return Status::OK();
}

PyObject* ParseExampleBatch(PyObject* serialized, const std::vector<ex::FeatureSpec>& specs,
                            PyObject* names, int num_threads) {
  // A tuple holds a reference to every record while the GIL is released.
  const Ref records(PySequence_Tuple(serialized));
  if (records == nullptr) return nullptr;
  const Py_ssize_t n = PyTuple_Size(records.get());
  std::vector<std::string_view> views(static_cast<size_t>(n));
  std::vector<std::string> name_list;
  Ref result;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    PyObject* item = PyTuple_GetItem(records.get(), i);
    if (!PyBytes_Check(item)) {
      PyErr_Format(PyExc_TypeError, "serialized examples must be bytes, not %.100s (record %zd)",
                   TypeName(item).c_str(), i);
      ok = false;
    } else {
      views[i] = BytesOf(item);
    }
  }
  if (ok && names != Py_None) {
    const FastItems name_items(names, "example_names must be a sequence");
    ok = name_items.ok();
    for (Py_ssize_t i = 0; ok && i < name_items.size(); ++i) {
      name_list.emplace_back();
      ok = KeyFromPy(name_items.item(i), &name_list.back());
    }
  }
  if (ok) {
    std::vector<ex::ParsedFeature> parsed;
    std::vector<std::vector<PyObject*>> objects(specs.size());
    const std::vector<std::string>* names_ptr = names != Py_None ? &name_list : nullptr;
    const Status s = ParseReleasingGil(views, specs, names_ptr, num_threads, &parsed, &objects);
    if (!s.ok()) {
      if (!PyErr_Occurred()) SetStatusError(s);
    } else {
      result.reset(PyList_New(static_cast<Py_ssize_t>(parsed.size())));
      for (size_t i = 0; i < parsed.size(); ++i) {
        PyObject* item =
            result != nullptr ? ParsedToPy(specs[i], &parsed[i], &objects[i]) : nullptr;
        if (item == nullptr) {
          result.reset();
          ReleaseAll(&objects[i]);  // not taken over
        } else {
          PyList_SetItem(result.get(), static_cast<Py_ssize_t>(i), item);
        }
      }
    }
  }
  return result.release();  // (records is released after: the views pointed into its bytes)
}

namespace {

// A parsed value cast to `type` (a numpy type number ParseExampleRows takes) into `out`.
void CastNumber(int64_t v, int type, void* out) {
  switch (type) {
    case NPY_BOOL:
      *static_cast<npy_bool*>(out) = v != 0;
      break;
    case NPY_INT8:
      *static_cast<int8_t*>(out) = static_cast<int8_t>(v);
      break;
    case NPY_UINT8:
      *static_cast<uint8_t*>(out) = static_cast<uint8_t>(v);
      break;
    case NPY_INT16:
      *static_cast<int16_t*>(out) = static_cast<int16_t>(v);
      break;
    case NPY_UINT16:
      *static_cast<uint16_t*>(out) = static_cast<uint16_t>(v);
      break;
    case NPY_INT32:
      *static_cast<int32_t*>(out) = static_cast<int32_t>(v);
      break;
    case NPY_UINT32:
      *static_cast<uint32_t*>(out) = static_cast<uint32_t>(v);
      break;
    case NPY_UINT64:
      *static_cast<uint64_t*>(out) = static_cast<uint64_t>(v);
      break;
    default:
      *static_cast<int64_t*>(out) = v;
      break;
  }
}

void CastNumber(float v, int type, void* out) {
  if (type == NPY_FLOAT64) {
    *static_cast<double*>(out) = v;
  } else {
    *static_cast<float*>(out) = v;
  }
}

bool RowTypeSupported(int type, ex::Feature::Kind kind) {
  switch (kind) {
    case ex::Feature::Kind::kBytes:
      return type == NPY_OBJECT;
    case ex::Feature::Kind::kFloat:
      return type == NPY_FLOAT32 || type == NPY_FLOAT64;
    default:
      return type == NPY_BOOL || type == NPY_INT8 || type == NPY_UINT8 || type == NPY_INT16 ||
             type == NPY_UINT16 || type == NPY_INT32 || type == NPY_UINT32 || type == NPY_INT64 ||
             type == NPY_UINT64;
  }
}

// A Python int, float or bool of one cast value (python_scalars), else a numpy scalar.
template <typename T>
PyObject* ScalarToPy(T v, int type, PyArray_Descr* descr, bool python_scalars) {
  alignas(8) unsigned char buffer[8];
  CastNumber(v, type, buffer);
  if (!python_scalars) return PyArray_Scalar(buffer, descr, nullptr);
  switch (type) {
    case NPY_BOOL:
      return PyBool_FromLong(*reinterpret_cast<npy_bool*>(buffer));
    case NPY_INT8:
      return PyLong_FromLong(*reinterpret_cast<int8_t*>(buffer));
    case NPY_UINT8:
      return PyLong_FromLong(*reinterpret_cast<uint8_t*>(buffer));
    case NPY_INT16:
      return PyLong_FromLong(*reinterpret_cast<int16_t*>(buffer));
    case NPY_UINT16:
      return PyLong_FromLong(*reinterpret_cast<uint16_t*>(buffer));
    case NPY_INT32:
      return PyLong_FromLong(*reinterpret_cast<int32_t*>(buffer));
    case NPY_UINT32:
      return PyLong_FromUnsignedLong(*reinterpret_cast<uint32_t*>(buffer));
    case NPY_UINT64:
      return PyLong_FromUnsignedLongLong(*reinterpret_cast<uint64_t*>(buffer));
    case NPY_FLOAT32:
      return PyFloat_FromDouble(*reinterpret_cast<float*>(buffer));
    case NPY_FLOAT64:
      return PyFloat_FromDouble(*reinterpret_cast<double*>(buffer));
    default:
      return PyLong_FromLongLong(*reinterpret_cast<int64_t*>(buffer));
  }
}

// `count` values of `f` from `begin` as an array of `type` and shape `dims` (rank `nd`).
PyObject* ValuesToArray(const ex::ParsedFeature& f, ex::Feature::Kind kind, size_t begin,
                        size_t count, int type, int nd, npy_intp* dims) {
  Ref array(PyArray_SimpleNew(nd, dims, type));
  if (array == nullptr) return nullptr;
  char* out = static_cast<char*>(PyArray_DATA(ArrayOf(array)));
  const size_t item = static_cast<size_t>(PyArray_ITEMSIZE(ArrayOf(array)));
  for (size_t k = 0; k < count; ++k) {
    if (kind == ex::Feature::Kind::kBytes) {
      const std::string_view v = f.bytes[begin + k];
      PyObject* b = PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
      if (b == nullptr) return nullptr;
      reinterpret_cast<PyObject**>(out)[k] = b;
    } else if (kind == ex::Feature::Kind::kFloat) {
      CastNumber(f.floats[begin + k], type, out + k * item);
    } else {
      CastNumber(f.int64s[begin + k], type, out + k * item);
    }
  }
  return array.release();
}

// One spec's value in example i (see ParseExampleRows).
PyObject* RowValue(const ex::FeatureSpec& spec, const ex::ParsedFeature& f,
                   const std::vector<size_t>& offsets, size_t i, int type, PyArray_Descr* descr,
                   bool python_scalars) {
  const bool fixed = spec.type == ex::FeatureSpec::Type::kFixedLen;
  const size_t begin = fixed ? i * static_cast<size_t>(spec.row_size) : offsets[i];
  const size_t count = fixed ? static_cast<size_t>(spec.row_size) : offsets[i + 1] - offsets[i];
  if (fixed && spec.shape.empty()) {
    switch (spec.dtype) {
      case ex::Feature::Kind::kBytes: {
        const std::string_view v = f.bytes[begin];
        return PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
      }
      case ex::Feature::Kind::kFloat:
        return ScalarToPy(f.floats[begin], type, descr, python_scalars);
      default:
        return ScalarToPy(f.int64s[begin], type, descr, python_scalars);
    }
  }
  std::vector<npy_intp> dims;
  if (fixed) {
    dims.assign(spec.shape.begin(), spec.shape.end());
  } else {
    dims.push_back(static_cast<npy_intp>(count));
  }
  return ValuesToArray(f, spec.dtype, begin, count, type, static_cast<int>(dims.size()),
                       dims.data());
}

}  // namespace

PyObject* ParseExampleRows(PyObject* serialized, const std::vector<ex::FeatureSpec>& specs,
                           PyObject* dtypes, bool python_scalars, int num_threads) {
  const Ref records(PySequence_Tuple(serialized));
  if (records == nullptr) return nullptr;
  const FastItems types(dtypes, "dtypes must be a sequence");
  if (!types.ok()) return nullptr;
  if (types.size() != static_cast<Py_ssize_t>(specs.size())) {
    PyErr_SetString(PyExc_ValueError, "ParseExampleRows needs one dtype per spec");
    return nullptr;
  }
  std::vector<PyArray_Descr*> descrs(specs.size());
  std::vector<int> type_nums(specs.size());
  for (size_t j = 0; j < specs.size(); ++j) {
    PyObject* t = types.item(static_cast<Py_ssize_t>(j));
    if (!PyArray_DescrCheck(t) ||
        !RowTypeSupported(reinterpret_cast<PyArray_Descr*>(t)->type_num, specs[j].dtype) ||
        specs[j].type == ex::FeatureSpec::Type::kFixedLenSequence) {
      PyErr_Format(PyExc_TypeError, "ParseExampleRows: unsupported dtype or spec for %s",
                   specs[j].key.c_str());
      return nullptr;
    }
    descrs[j] = reinterpret_cast<PyArray_Descr*>(t);
    type_nums[j] = descrs[j]->type_num;
  }
  const Py_ssize_t n = PyTuple_Size(records.get());
  std::vector<std::string_view> views(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GetItem(records.get(), i);
    if (!PyBytes_Check(item)) {
      PyErr_Format(PyExc_TypeError, "serialized examples must be bytes, not %.100s (record %zd)",
                   TypeName(item).c_str(), i);
      return nullptr;
    }
    views[static_cast<size_t>(i)] = BytesOf(item);
  }
  std::vector<ex::ParsedFeature> parsed;
  const Status s = WithoutGil(
      [&] { return ex::ParseExampleBatch(views, specs, nullptr, num_threads, &parsed); });
  if (!s.ok()) return StatusResult(s);
  std::vector<std::vector<size_t>> offsets(specs.size());
  for (size_t j = 0; j < specs.size(); ++j) {
    if (specs[j].type == ex::FeatureSpec::Type::kFixedLen) continue;
    offsets[j].resize(static_cast<size_t>(n) + 1);
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      offsets[j][i + 1] = offsets[j][i] + static_cast<size_t>(parsed[j].counts[i]);
    }
  }
  return NewList(static_cast<size_t>(n), [&](size_t i) {
    return NewList(specs.size(), [&](size_t j) {
      return RowValue(specs[j], parsed[j], offsets[j], i, type_nums[j], descrs[j], python_scalars);
    });
  });
}

}  // namespace python
}  // namespace swigflow
