#include "swigflow/framework/tensor.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace swigflow {

namespace {

struct TypeInfo {
  DataType type;
  const char* name;
  size_t size;
  DataType storage;
};

// TensorFlow's names, sizes, and the plain type each quantized type is stored as.
constexpr TypeInfo kTypes[] = {
    {DataType::kFloat, "float", 4, DataType::kFloat},
    {DataType::kDouble, "double", 8, DataType::kDouble},
    {DataType::kInt32, "int32", 4, DataType::kInt32},
    {DataType::kUInt8, "uint8", 1, DataType::kUInt8},
    {DataType::kInt16, "int16", 2, DataType::kInt16},
    {DataType::kInt8, "int8", 1, DataType::kInt8},
    {DataType::kInt64, "int64", 8, DataType::kInt64},
    {DataType::kQInt8, "qint8", 1, DataType::kInt8},
    {DataType::kQUInt8, "quint8", 1, DataType::kUInt8},
    {DataType::kQInt32, "qint32", 4, DataType::kInt32},
    {DataType::kQInt16, "qint16", 2, DataType::kInt16},
    {DataType::kQUInt16, "quint16", 2, DataType::kUInt16},
    {DataType::kUInt16, "uint16", 2, DataType::kUInt16},
};

const TypeInfo* Find(DataType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return &t;
  }
  return nullptr;
}

}  // namespace

const char* DataTypeName(DataType type) {
  const TypeInfo* t = Find(type);
  return t == nullptr ? "invalid" : t->name;
}

size_t DataTypeSize(DataType type) {
  const TypeInfo* t = Find(type);
  return t == nullptr ? 0 : t->size;
}

Status DataTypeFromName(const std::string& name, DataType* type) {
  const std::string canonical = name == "float32" ? "float" : name == "float64" ? "double" : name;
  for (const TypeInfo& t : kTypes) {
    if (canonical == t.name) {
      *type = t.type;
      return Status::OK();
    }
  }
  return errors::InvalidArgument("unknown or unsupported data type: ", name);
}

DataType StorageType(DataType type) {
  const TypeInfo* t = Find(type);
  return t == nullptr ? type : t->storage;
}

DataType QuantizedTypeStoredAs(DataType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.storage == type && t.type != type) return t.type;
  }
  return DataType::kInvalid;
}

Tensor::Tensor(DataType type, std::vector<int64_t> shape, bool zero)
    : type_(type), shape_(std::move(shape)) {
  // Sizes from untrusted input may be absurd or overflow: refuse them as a failed allocation
  // (RunOp reports RESOURCE_EXHAUSTED).
  uint64_t elements = 1;
  for (int64_t d : shape_) {
    if (d < 0 || (d > 0 && elements > (uint64_t{1} << 56) / static_cast<uint64_t>(d))) {
      throw std::bad_alloc();
    }
    elements *= static_cast<uint64_t>(d);
  }
  // 64-byte aligned (full cache lines and AVX-512 vectors), at least one byte so data() is never
  // null.
  const size_t size = (std::max<size_t>(bytes(), 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, size);
  if (p == nullptr) throw std::bad_alloc();
  if (zero) std::memset(p, 0, size);
  owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  data_ = p;
}

Tensor::Tensor(DataType type, std::vector<int64_t> shape, std::shared_ptr<void> owner, void* data)
    : type_(type), shape_(std::move(shape)), owner_(std::move(owner)), data_(data) {}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string Tensor::ShapeString() const { return swigflow::ShapeString(shape_); }

}  // namespace swigflow
