#include "swigflow/framework/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace swigflow {

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return "float";
    case DataType::kDouble:
      return "double";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kInvalid:
      break;
  }
  return "invalid";
}

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat:
    case DataType::kInt32:
      return 4;
    case DataType::kDouble:
    case DataType::kInt64:
      return 8;
    case DataType::kInvalid:
      break;
  }
  return 0;
}

Status DataTypeFromName(const std::string& name, DataType* type) {
  if (name == "float" || name == "float32") {
    *type = DataType::kFloat;
  } else if (name == "double" || name == "float64") {
    *type = DataType::kDouble;
  } else if (name == "int32") {
    *type = DataType::kInt32;
  } else if (name == "int64") {
    *type = DataType::kInt64;
  } else {
    return errors::InvalidArgument("unknown or unsupported data type: ", name);
  }
  return Status::OK();
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
