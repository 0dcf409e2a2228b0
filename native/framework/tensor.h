// Tensor: a dense row-major n-d array of one DataType, sharing its buffer on copy (as
// tensorflow::Tensor does).
#ifndef SWIGFLOW_FRAMEWORK_TENSOR_H_
#define SWIGFLOW_FRAMEWORK_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"

namespace swigflow {

// TensorFlow's DataType numbers, for the types swigflow kernels use.
enum class DataType : int { kInvalid = 0, kFloat = 1, kDouble = 2, kInt32 = 3, kInt64 = 9 };

const char* DataTypeName(DataType type);  // "float", "double", "int32", "int64"
size_t DataTypeSize(DataType type);
// "float"/"float32", "double"/"float64", "int32", "int64".
Status DataTypeFromName(const std::string& name, DataType* type);

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::kDouble;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled, unless `zero` is false (for outputs a kernel overwrites entirely: clearing
  // tens of megabytes first would cost as much as some kernels).
  Tensor(DataType type, std::vector<int64_t> shape, bool zero = true);
  // A view of memory owned by `owner` (kept alive as long as any copy of this tensor).
  Tensor(DataType type, std::vector<int64_t> shape, std::shared_ptr<void> owner, void* data);

  DataType dtype() const { return type_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int dims() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t num_elements() const;
  size_t bytes() const { return static_cast<size_t>(num_elements()) * DataTypeSize(type_); }

  template <typename T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  void* raw() { return data_; }
  const void* raw() const { return data_; }
  const std::shared_ptr<void>& owner() const { return owner_; }

  // "[2,3,4]", as TensorFlow prints shapes in messages.
  std::string ShapeString() const;

 private:
  DataType type_ = DataType::kInvalid;
  std::vector<int64_t> shape_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_TENSOR_H_
