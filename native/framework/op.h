// Ops and kernels, shaped like TensorFlow's: an op is registered once with its typed inputs,
// outputs and attributes (REGISTER_OP), kernels implement Compute(OpKernelContext*) and are
// registered per op and data type (REGISTER_KERNEL), and RunOp is the one entry point that
// checks a call against the op's definition, fills in attribute defaults and runs the kernel.
// Adding an op needs no binding code: Python reaches every op through RunOp.
//
//   REGISTER_OP("Relu")
//       .Input("features: T")
//       .Output("activations: T")
//       .Attr("T: {float}")
//       .Doc("max(features, 0).");
//   REGISTER_KERNEL("Relu", DataType::kFloat, ReluOp);
#ifndef SWIGFLOW_FRAMEWORK_OP_H_
#define SWIGFLOW_FRAMEWORK_OP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/status.h"
#include "swigflow/framework/tensor.h"
#include "swigflow/framework/thread_pool.h"

namespace swigflow {

using AttrValue = std::variant<int64_t, float, bool, std::string, DataType, std::vector<int64_t>>;
using AttrMap = std::map<std::string, AttrValue>;

// "[1, 2]", "'SAME'", "float", "true", ...: how messages show an attribute value.
std::string AttrValueString(const AttrValue& value);

// A float attribute value with the digits to read back the same float ("%.9g"): for op
// definitions as text and generated code.
std::string FloatLiteral(float value);

// An input or output: "name: T" (the type attribute T) or "name: int32" (a fixed type).
struct ArgDef {
  std::string name;
  std::string type_attr;
  DataType type = DataType::kInvalid;
};

// An attribute: "name: type", "name: type = default", "name: {'A', 'B'} = 'A'" (a string from
// a set) or "T: {float, double}" (a type from a set). Types: int, float, bool, string, type,
// list(int).
struct AttrDef {
  std::string name;
  std::string type;
  std::vector<std::string> allowed_strings;
  std::vector<DataType> allowed_types;
  bool has_default = false;
  AttrValue default_value;
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  std::string doc;
  const AttrDef* FindAttr(const std::string& name) const;
  std::string Summary() const;  // "Op<name=Conv2D; signature=input:T, filter:T -> output:T; ...>"
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(const std::string& spec);
  OpDefBuilder& Output(const std::string& spec);
  OpDefBuilder& Attr(const std::string& spec);
  OpDefBuilder& Doc(const std::string& text);
  // The definition, or the first error in a spec (a bug in the registering code).
  Status Finish(OpDef* def) const;

 private:
  OpDef def_;
  Status status_;
};

class OpKernelContext {
 public:
  OpKernelContext(const OpDef& def, const std::vector<Tensor>& inputs, const AttrMap& attrs,
                  Isa isa, ThreadPool* pool)
      : def_(def), inputs_(inputs), attrs_(attrs), isa_(isa), pool_(pool) {}

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const { return inputs_[static_cast<size_t>(i)]; }

  // The attribute (RunOp has checked it exists with the declared type).
  int64_t GetInt(const std::string& name) const { return std::get<int64_t>(attrs_.at(name)); }
  float GetFloat(const std::string& name) const { return std::get<float>(attrs_.at(name)); }
  bool GetBool(const std::string& name) const { return std::get<bool>(attrs_.at(name)); }
  const std::string& GetString(const std::string& name) const {
    return std::get<std::string>(attrs_.at(name));
  }
  DataType GetType(const std::string& name) const { return std::get<DataType>(attrs_.at(name)); }
  const std::vector<int64_t>& GetInts(const std::string& name) const {
    return std::get<std::vector<int64_t>>(attrs_.at(name));
  }

  // A new output i of the type the op declares: zero-filled, or with `uninitialized` left for
  // the kernel to overwrite entirely.
  Tensor* allocate_output(int i, std::vector<int64_t> shape, bool uninitialized = false);
  std::vector<Tensor>* outputs() { return &outputs_; }

  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

  Isa isa() const { return isa_; }
  ThreadPool* pool() const { return pool_; }
  const OpDef& def() const { return def_; }

 private:
  const OpDef& def_;
  const std::vector<Tensor>& inputs_;
  const AttrMap& attrs_;
  const Isa isa_;
  ThreadPool* const pool_;
  std::vector<Tensor> outputs_;
  Status status_;
};

#define OP_REQUIRES(ctx, condition, status) \
  do {                                      \
    if (!(condition)) {                     \
      (ctx)->SetStatus(status);             \
      return;                               \
    }                                       \
  } while (0)

#define OP_REQUIRES_OK(ctx, expr)         \
  do {                                    \
    const ::swigflow::Status _s = (expr); \
    if (!_s.ok()) {                       \
      (ctx)->SetStatus(_s);               \
      return;                             \
    }                                     \
  } while (0)

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual void Compute(OpKernelContext* ctx) = 0;
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>()>;

// The process-wide registry of op definitions and kernels. Registration normally happens in
// static initializers (REGISTER_OP, REGISTER_KERNEL); libraries loaded later register too.
class OpRegistry {
 public:
  static OpRegistry* Global();

  // ALREADY_EXISTS for a name registered before (from this library or another).
  Status RegisterOp(const OpDefBuilder& builder);
  Status RegisterKernel(const std::string& op, DataType type, KernelFactory factory);
  const OpDef* Find(const std::string& name) const;
  std::vector<const OpDef*> ListOps() const;  // sorted by name
  // Kernels' data types for `op` (kInvalid for an op without a type attribute).
  std::vector<DataType> KernelTypes(const std::string& op) const;
  // Registration errors from static initializers, which cannot return them.
  std::vector<Status> TakeDeferredErrors();
  void AddDeferredError(const Status& s);

  // The ops and kernels registered since the last mark: what a loaded library added.
  size_t Mark() const;
  std::vector<std::string> OpsSince(size_t mark) const;

  std::unique_ptr<OpKernel> MakeKernel(const std::string& op, DataType type) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
  std::vector<std::string> order_;  // registration order
  std::map<std::pair<std::string, DataType>, KernelFactory> kernels_;
  std::vector<Status> deferred_;
};

// Runs op `name`: checks the inputs (count, types) and attributes (known names, types, allowed
// values; defaults filled in), picks the kernel for the inputs' type and computes the outputs.
// Errors read like TensorFlow's.
Status RunOp(const std::string& name, const std::vector<Tensor>& inputs, AttrMap attrs,
             std::vector<Tensor>* outputs, Isa isa = SelectedIsa(),
             ThreadPool* pool = ThreadPool::Default());

// Static registration helpers.
struct OpRegistrar {
  OpRegistrar(const OpDefBuilder& builder);  // NOLINT(runtime/explicit): used as `= builder`
};
struct KernelRegistrar {
  KernelRegistrar(const std::string& op, DataType type, KernelFactory factory);
};

#define SWIGFLOW_CONCAT_INNER(a, b) a##b
#define SWIGFLOW_CONCAT(a, b) SWIGFLOW_CONCAT_INNER(a, b)

#define REGISTER_OP(name)                                                   \
  static ::swigflow::OpRegistrar SWIGFLOW_CONCAT(swigflow_op_, __COUNTER__) \
      __attribute__((unused)) = ::swigflow::OpDefBuilder(name)

#define REGISTER_KERNEL(op, type, cls)                                              \
  static ::swigflow::KernelRegistrar SWIGFLOW_CONCAT(swigflow_kernel_, __COUNTER__) \
      __attribute__((unused)) (op, type,                                            \
                               [] { return std::unique_ptr<::swigflow::OpKernel>(new cls); })

// Registers kernel<float> and kernel<double> for `op` (the "T: {float, double}" ops).
#define REGISTER_FLOATING_KERNELS(op, kernel)           \
  REGISTER_KERNEL(op, DataType::kFloat, kernel<float>); \
  REGISTER_KERNEL(op, DataType::kDouble, kernel<double>)

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_OP_H_
