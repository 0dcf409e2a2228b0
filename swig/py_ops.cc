#include "swig/py_ops.h"

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/framework/op_compat.h"
#include "swigflow/framework/python_op_gen.h"

namespace swigflow {
namespace python {
namespace {

// numpy's type for each storage type; quantized types come back as the integers they are
// stored as (quint8 as uint8, ...).
constexpr std::pair<swigflow::DataType, int> kNumpyTypes[] = {
    {swigflow::DataType::kFloat, NPY_FLOAT32}, {swigflow::DataType::kDouble, NPY_FLOAT64},
    {swigflow::DataType::kInt32, NPY_INT32},   {swigflow::DataType::kInt64, NPY_INT64},
    {swigflow::DataType::kUInt8, NPY_UINT8},   {swigflow::DataType::kInt8, NPY_INT8},
    {swigflow::DataType::kInt16, NPY_INT16},   {swigflow::DataType::kUInt16, NPY_UINT16},
};

int NumpyType(swigflow::DataType type) {
  for (const auto& entry : kNumpyTypes) {
    if (entry.first == swigflow::StorageType(type)) return entry.second;
  }
  return -1;
}

// A tensor viewing a C-contiguous numpy array, which it keeps alive (released under the GIL).
bool TensorFromNumpy(PyObject* object, swigflow::Tensor* out) {
  if (!PyArray_Check(object)) {
    PyErr_Format(PyExc_TypeError, "op inputs must be numpy arrays, not %.100s",
                 TypeName(object).c_str());
    return false;
  }
  PyArrayObject* array = reinterpret_cast<PyArrayObject*>(object);
  swigflow::DataType type = swigflow::DataType::kInvalid;
  for (const auto& entry : kNumpyTypes) {
    if (entry.second == PyArray_TYPE(array)) type = entry.first;
  }
  // Another number for the same type (NPY_LONGLONG for int64 where NPY_LONG is): equivalence is
  // the slow test (numpy's cast tables), so it comes second.
  for (size_t i = 0; type == swigflow::DataType::kInvalid && i < std::size(kNumpyTypes); ++i) {
    if (PyArray_EquivTypenums(kNumpyTypes[i].second, PyArray_TYPE(array))) {
      type = kNumpyTypes[i].first;
    }
  }
  if (type == swigflow::DataType::kInvalid) {
    PyErr_Format(PyExc_TypeError,
                 "unsupported input dtype %R (float32, float64, int32, int64, uint8, int8, int16, "
                 "uint16)",
                 reinterpret_cast<PyObject*>(PyArray_DESCR(array)));
    return false;
  }
  if (!PyArray_IS_C_CONTIGUOUS(array) || !PyArray_ISALIGNED(array)) {
    PyErr_SetString(PyExc_ValueError, "op inputs must be C-contiguous and aligned");
    return false;
  }
  std::vector<int64_t> shape(PyArray_DIMS(array), PyArray_DIMS(array) + PyArray_NDIM(array));
  // Kernels may drop their inputs on any thread.
  std::shared_ptr<void> owner = std::make_shared<SharedRef>(Py_NewRef(object));
  *out = swigflow::Tensor(type, std::move(shape), std::move(owner), PyArray_DATA(array));
  return true;
}

// A numpy array sharing the tensor's buffer (a capsule holding its owner is the array's base).
PyObject* NumpyFromTensor(const swigflow::Tensor& t) {
  PyObject* capsule = OwningCapsule(new std::shared_ptr<void>(t.owner()));
  if (capsule == nullptr) return nullptr;
  std::vector<npy_intp> dims(t.shape().begin(), t.shape().end());
  return WithBase(PyArray_New(&PyArray_Type, t.dims(), dims.data(), NumpyType(t.dtype()), nullptr,
                              const_cast<void*>(t.raw()), 0, NPY_ARRAY_CARRAY, nullptr),
                  capsule);
}

bool AttrFromPy(PyObject* value, swigflow::AttrValue* out) {
  if (PyBool_Check(value)) {
    *out = value == Py_True;
  } else if (PyLong_Check(value)) {
    const long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return false;
    *out = static_cast<int64_t>(v);
  } else if (PyFloat_Check(value)) {
    *out = static_cast<float>(PyFloat_AsDouble(value));
  } else if (PyUnicode_Check(value)) {
    const char* s = PyUnicode_AsUTF8AndSize(value, nullptr);
    if (s == nullptr) return false;
    *out = std::string(s);
  } else if (PyList_Check(value) || PyTuple_Check(value)) {
    const FastItems items(value, "");
    if (!items.ok()) return false;
    std::vector<int64_t> list;
    for (Py_ssize_t i = 0; i < items.size(); ++i) {
      PyObject* item = items.item(i);
      if (!PyLong_Check(item) || PyBool_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "list attributes hold ints only");
        return false;
      }
      list.push_back(PyLong_AsLongLong(item));
    }
    *out = list;
  } else {
    PyErr_Format(PyExc_TypeError, "unsupported attribute value %R", value);
    return false;
  }
  return true;
}

PyObject* AttrToPy(const swigflow::AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return PyLong_FromLongLong(*i);
  if (const auto* f = std::get_if<float>(&v)) return PyFloat_FromDouble(*f);
  if (const auto* b = std::get_if<bool>(&v)) return PyBool_FromLong(*b);
  if (const auto* s = std::get_if<std::string>(&v)) return PyUnicode_FromString(s->c_str());
  if (const auto* t = std::get_if<swigflow::DataType>(&v)) {
    return PyUnicode_FromString(swigflow::DataTypeName(*t));
  }
  const auto& list = std::get<std::vector<int64_t>>(v);
  return NewList(list.size(), [&](size_t i) { return PyLong_FromLongLong(list[i]); });
}

PyObject* ArgsToPy(const std::vector<swigflow::ArgDef>& args) {
  return NewList(args.size(), [&](size_t i) {
    const auto& a = args[i];
    return Py_BuildValue(
        "{s:s,s:s}", "name", a.name.c_str(), "type",
        a.type_attr.empty() ? swigflow::DataTypeName(a.type) : a.type_attr.c_str());
  });
}

PyObject* NamesToPy(const std::vector<const char*>& names) {
  return NewList(names.size(), [&](size_t i) { return PyUnicode_FromString(names[i]); });
}

PyObject* AttrDefToPy(const swigflow::AttrDef& a) {
  std::vector<const char*> allowed;
  for (const auto& s : a.allowed_strings) allowed.push_back(s.c_str());
  for (auto t : a.allowed_types) allowed.push_back(swigflow::DataTypeName(t));
  PyObject* fallback = a.has_default ? AttrToPy(a.default_value) : Py_NewRef(Py_None);
  return Py_BuildValue("{s:s,s:s,s:N,s:O,s:N}", "name", a.name.c_str(), "type", a.type.c_str(),
                       "default", fallback, "has_default", a.has_default ? Py_True : Py_False,
                       "allowed", NamesToPy(allowed));
}

}  // namespace

PyObject* RunOp(const char* name, PyObject* inputs, PyObject* attrs) {
  std::vector<swigflow::Tensor> tensors;
  bool ok = true;
  {
    const FastItems items(inputs, "inputs must be a sequence of numpy arrays");
    if (!items.ok()) return nullptr;
    tensors.resize(static_cast<size_t>(items.size()));
    for (size_t i = 0; ok && i < tensors.size(); ++i) {
      PyObject* item = items.item(static_cast<Py_ssize_t>(i));
      ok = TensorFromNumpy(item, &tensors[i]);
    }
  }
  swigflow::AttrMap attr_map;
  if (ok && attrs != Py_None) {
    if (!PyDict_Check(attrs)) {
      PyErr_SetString(PyExc_TypeError, "attrs must be a dict");
      return nullptr;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (ok && PyDict_Next(attrs, &pos, &key, &value)) {
      const char* k = PyUnicode_AsUTF8AndSize(key, nullptr);
      swigflow::AttrValue v;
      ok = k != nullptr && AttrFromPy(value, &v);
      if (ok) attr_map[k] = std::move(v);
    }
  }
  if (!ok) return nullptr;
  std::vector<swigflow::Tensor> outputs;
  swigflow::Status s;
  const std::string op(name);
  s = WithoutGil([&] { return swigflow::RunOp(op, tensors, std::move(attr_map), &outputs); });
  if (!s.ok()) {
    SetStatusError(s);
    return nullptr;
  }
  return NewList(outputs.size(), [&](size_t i) { return NumpyFromTensor(outputs[i]); });
}

PyObject* ListOps() {
  auto* registry = swigflow::OpRegistry::Global();
  const auto ops = registry->ListOps();
  return NewList(ops.size(), [&](size_t i) {
    const swigflow::OpDef& def = *ops[i];
    std::vector<const char*> kernels;
    for (auto t : registry->KernelTypes(def.name)) kernels.push_back(swigflow::DataTypeName(t));
    return Py_BuildValue(
        "{s:s,s:N,s:N,s:N,s:N,s:s}", "name", def.name.c_str(), "inputs", ArgsToPy(def.inputs),
        "outputs", ArgsToPy(def.outputs), "attrs",
        NewList(def.attrs.size(), [&](size_t j) { return AttrDefToPy(def.attrs[j]); }), "kernels",
        NamesToPy(kernels), "doc", def.doc.c_str());
  });
}

long long RegistryMark() { return static_cast<long long>(swigflow::OpRegistry::Global()->Mark()); }

PyObject* OpsSince(long long mark) {
  const auto names = swigflow::OpRegistry::Global()->OpsSince(static_cast<size_t>(mark));
  return NewList(names.size(), [&](size_t i) { return PyUnicode_FromString(names[i].c_str()); });
}

PyObject* TakeRegistryErrors() {
  const auto errors = swigflow::OpRegistry::Global()->TakeDeferredErrors();
  return NewList(errors.size(), [&](size_t i) {
    return Py_BuildValue("(is)", static_cast<int>(errors[i].code()), errors[i].message().c_str());
  });
}

namespace {

// The OpDefs named by a list of str, or every registered one (sorted) for None.
Status NamedOps(PyObject* op_names, std::vector<const OpDef*>* ops) {
  auto* registry = OpRegistry::Global();
  if (op_names == Py_None) {
    *ops = registry->ListOps();
    return Status::OK();
  }
  if (!PyList_Check(op_names)) return errors::InvalidArgument("op names must be a list or None");
  for (Py_ssize_t i = 0; i < PyList_Size(op_names); ++i) {
    const char* name = PyUnicode_AsUTF8AndSize(PyList_GetItem(op_names, i), nullptr);
    if (name == nullptr) {
      PyErr_Clear();
      return errors::InvalidArgument("op names must be str");
    }
    const OpDef* def = registry->Find(name);
    if (def == nullptr) return errors::NotFound("Op type not registered '", name, "'");
    ops->push_back(def);
  }
  return Status::OK();
}

}  // namespace

PyObject* PythonOpWrappers(PyObject* op_names, const char* source) {
  std::vector<const OpDef*> ops;
  const Status s = NamedOps(op_names, &ops);
  if (!s.ok()) return StatusResult(s);
  PythonOpGenOptions options;
  options.source = source;
  const std::string text = swigflow::PythonOpWrappers(ops, options);
  return PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
}

PyObject* OpDefsText(PyObject* op_names) {
  std::vector<const OpDef*> ops;
  const Status s = NamedOps(op_names, &ops);
  if (!s.ok()) return StatusResult(s);
  std::string text;
  for (const OpDef* def : ops) text += (text.empty() ? "" : "\n") + OpDefText(*def);
  return PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
}

PyObject* OpIncompatibilities(const char* golden_text) {
  std::vector<OpDef> golden;
  const Status s = ParseOpDefs(golden_text, &golden);
  if (!s.ok()) return StatusResult(s);
  std::vector<std::string> problems;
  for (const OpDef& old : golden) {
    const OpDef* now = OpRegistry::Global()->Find(old.name);
    if (now == nullptr) {
      problems.push_back(old.name + ": the op was removed");
      continue;
    }
    for (std::string& p : IncompatibleChanges(old, *now)) problems.push_back(std::move(p));
  }
  return NewList(problems.size(), [&](size_t i) {
    return PyUnicode_FromStringAndSize(problems[i].data(),
                                       static_cast<Py_ssize_t>(problems[i].size()));
  });
}

}  // namespace python
}  // namespace swigflow
