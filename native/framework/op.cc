#include "swigflow/framework/op.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace swigflow {

namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "a, b, c" at top-level commas.
std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : s) {
    if (c == ',') {
      parts.push_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!Trim(current).empty()) parts.push_back(Trim(current));
  return parts;
}

bool Unquote(const std::string& s, std::string* out) {
  if (s.size() < 2 || s.front() != '\'' || s.back() != '\'') return false;
  *out = s.substr(1, s.size() - 2);
  return true;
}

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size();
}

Status ParseDefault(const AttrDef& attr, const std::string& text, AttrValue* out) {
  const auto bad = [&] {
    return errors::Internal("bad default '", text, "' for attr ", attr.name, ": ", attr.type);
  };
  if (attr.type == "int") {
    int64_t v;
    if (!ParseInt(text, &v)) return bad();
    *out = v;
  } else if (attr.type == "float") {
    char* end = nullptr;
    const float v = std::strtof(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return bad();
    *out = v;
  } else if (attr.type == "bool") {
    if (text != "true" && text != "false") return bad();
    *out = text == "true";
  } else if (attr.type == "string") {
    std::string v;
    if (!Unquote(text, &v)) return bad();
    *out = v;
  } else if (attr.type == "type") {
    DataType t;
    if (!DataTypeFromName(text, &t).ok()) return bad();
    *out = t;
  } else if (attr.type == "list(int)") {
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') return bad();
    std::vector<int64_t> v;
    for (const std::string& item : SplitList(text.substr(1, text.size() - 2))) {
      int64_t x;
      if (!ParseInt(item, &x)) return bad();
      v.push_back(x);
    }
    *out = v;
  } else {
    return bad();
  }
  return Status::OK();
}

// The attr type name of a value, as op definitions spell it.
std::string TypeOf(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) return "int";
        if constexpr (std::is_same_v<T, float>) return "float";
        if constexpr (std::is_same_v<T, bool>) return "bool";
        if constexpr (std::is_same_v<T, std::string>) return "string";
        if constexpr (std::is_same_v<T, DataType>) return "type";
        return "list(int)";
      },
      v);
}

// A type attribute given by name ("float32") becomes the DataType.
Status TypeFromName(AttrValue* v) {
  if (!std::holds_alternative<std::string>(*v)) return Status::OK();
  DataType t;
  SWIGFLOW_RETURN_IF_ERROR(DataTypeFromName(std::get<std::string>(*v), &t));
  *v = t;
  return Status::OK();
}

// The type attr `attr` takes from an input of type `given`: the input's own, or the quantized
// type stored as it when only that one is allowed (a uint8 array for a quint8 input).
DataType InferredType(const AttrDef& attr, DataType given) {
  const auto allowed = [&](DataType t) {
    return attr.allowed_types.empty() ||
           std::find(attr.allowed_types.begin(), attr.allowed_types.end(), t) !=
               attr.allowed_types.end();
  };
  const DataType quantized = QuantizedTypeStoredAs(given);
  return !allowed(given) && quantized != DataType::kInvalid && allowed(quantized) ? quantized
                                                                                  : given;
}

// Fills type attributes from the inputs' dtypes (or checks them against the inputs when given).
Status ResolveInputTypes(const OpDef& def, const std::vector<Tensor>& inputs, AttrMap* attrs) {
  if (inputs.size() != def.inputs.size()) {
    return errors::InvalidArgument(def.name, " expects ", def.inputs.size(), " inputs, got ",
                                   inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgDef& arg = def.inputs[i];
    DataType expected = arg.type;
    if (!arg.type_attr.empty()) {
      auto it = attrs->find(arg.type_attr);
      if (it == attrs->end()) {
        (*attrs)[arg.type_attr] = InferredType(*def.FindAttr(arg.type_attr), inputs[i].dtype());
        continue;
      }
      SWIGFLOW_RETURN_IF_ERROR(TypeFromName(&it->second));
      expected = std::get<DataType>(it->second);
    }
    // A quantized type arrives as its storage type (numpy has no quint8).
    if (inputs[i].dtype() != expected && inputs[i].dtype() != StorageType(expected)) {
      return errors::InvalidArgument(
          "cannot compute ", def.name, " as input #", i, "(zero-based) was expected to be a ",
          DataTypeName(expected), " tensor but is a ", DataTypeName(inputs[i].dtype()), " tensor");
    }
  }
  return Status::OK();
}

// `v`, the value of attr `a` (after defaults), converted where TF converts (an int for a float
// attr, a type by name) and checked against the attr's type and allowed values.
Status CheckAttr(const OpDef& def, const AttrDef& a, AttrValue* v) {
  if (a.type == "float" && std::holds_alternative<int64_t>(*v)) {
    *v = static_cast<float>(std::get<int64_t>(*v));
  }
  if (a.type == "type") SWIGFLOW_RETURN_IF_ERROR(TypeFromName(v));
  if (TypeOf(*v) != a.type) {
    return errors::InvalidArgument("attr '", a.name, "' of ", def.name, " must be ", a.type,
                                   ", got ", TypeOf(*v), " ", AttrValueString(*v));
  }
  if (!a.allowed_strings.empty() &&
      std::find(a.allowed_strings.begin(), a.allowed_strings.end(), std::get<std::string>(*v)) ==
          a.allowed_strings.end()) {
    std::string allowed;
    for (const auto& s : a.allowed_strings) {
      allowed += (allowed.empty() ? "\"" : ", \"") + s + "\"";
    }
    return errors::InvalidArgument("Value for attr '", a.name, "' of ", AttrValueString(*v),
                                   " is not in the list of allowed values: ", allowed);
  }
  if (!a.allowed_types.empty() && std::find(a.allowed_types.begin(), a.allowed_types.end(),
                                            std::get<DataType>(*v)) == a.allowed_types.end()) {
    std::string allowed;
    for (DataType t : a.allowed_types) {
      allowed += (allowed.empty() ? "" : ", ") + std::string(DataTypeName(t));
    }
    return errors::InvalidArgument("Value for attr '", a.name, "' of ",
                                   DataTypeName(std::get<DataType>(*v)),
                                   " is not in the list of allowed values: ", allowed);
  }
  return Status::OK();
}

// Every attr of `def` present (defaults filled in), converted and checked; no unknown ones.
Status CheckAttrs(const OpDef& def, AttrMap* attrs) {
  for (const auto& entry : *attrs) {
    if (def.FindAttr(entry.first) == nullptr) {
      return errors::InvalidArgument("NodeDef mentions attr '", entry.first, "' not in ",
                                     def.Summary());
    }
  }
  for (const AttrDef& a : def.attrs) {
    auto it = attrs->find(a.name);
    if (it == attrs->end()) {
      if (!a.has_default) {
        return errors::InvalidArgument("NodeDef missing attr '", a.name, "' from ", def.Summary());
      }
      it = attrs->emplace(a.name, a.default_value).first;
    }
    SWIGFLOW_RETURN_IF_ERROR(CheckAttr(def, a, &it->second));
  }
  return Status::OK();
}

}  // namespace

std::string AttrValueString(const AttrValue& value) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
          return std::to_string(x);
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + x + "\"";
        } else if constexpr (std::is_same_v<T, DataType>) {
          return DataTypeName(x);
        } else {
          std::string s = "[";
          for (size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + std::to_string(x[i]);
          return s + "]";
        }
      },
      value);
}

std::string FloatLiteral(float value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
  return buffer;
}

const AttrDef* OpDef::FindAttr(const std::string& attr) const {
  for (const AttrDef& a : attrs) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

std::string OpDef::Summary() const {
  const auto args = [](const std::vector<ArgDef>& list) {
    std::string s;
    for (size_t i = 0; i < list.size(); ++i) {
      s += (i ? ", " : "") + list[i].name + ":" +
           (list[i].type_attr.empty() ? DataTypeName(list[i].type) : list[i].type_attr);
    }
    return s;
  };
  std::string s = "Op<name=" + name + "; signature=" + args(inputs) + " -> " + args(outputs);
  for (const AttrDef& a : attrs) {
    s += "; attr=" + a.name + ":" + a.type;
    if (a.has_default) s += ",default=" + AttrValueString(a.default_value);
  }
  return s + ">";
}

OpDefBuilder::OpDefBuilder(std::string name) { def_.name = std::move(name); }

static Status ParseArg(const std::string& spec, ArgDef* arg) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return errors::Internal("bad argument spec: ", spec);
  arg->name = Trim(spec.substr(0, colon));
  const std::string type = Trim(spec.substr(colon + 1));
  if (arg->name.empty() || type.empty()) return errors::Internal("bad argument spec: ", spec);
  if (!DataTypeFromName(type, &arg->type).ok()) {
    arg->type = DataType::kInvalid;
    arg->type_attr = type;
  }
  return Status::OK();
}

OpDefBuilder& OpDefBuilder::Input(const std::string& spec) {
  ArgDef arg;
  if (status_.ok()) status_ = ParseArg(spec, &arg);
  def_.inputs.push_back(arg);
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(const std::string& spec) {
  ArgDef arg;
  if (status_.ok()) status_ = ParseArg(spec, &arg);
  def_.outputs.push_back(arg);
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(const std::string& spec) {
  AttrDef attr;
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    if (status_.ok()) status_ = errors::Internal("bad attr spec: ", spec);
    return *this;
  }
  attr.name = Trim(spec.substr(0, colon));
  if (attr.name.empty() && status_.ok()) status_ = errors::Internal("bad attr spec: ", spec);
  std::string rest = spec.substr(colon + 1);
  std::string default_text;
  const size_t eq = rest.find('=');
  if (eq != std::string::npos) {
    default_text = Trim(rest.substr(eq + 1));
    rest = rest.substr(0, eq);
  }
  std::string type = Trim(rest);
  // TensorFlow's shorthand for the quantized types.
  if (type == "quantizedtype") type = "{qint8, quint8, qint32, qint16, quint16}";
  if (!type.empty() && type.front() == '{' && type.back() == '}') {
    // A set: of quoted strings, or of types.
    for (const std::string& item : SplitList(type.substr(1, type.size() - 2))) {
      std::string s;
      DataType t;
      if (Unquote(item, &s)) {
        attr.allowed_strings.push_back(s);
      } else if (DataTypeFromName(item, &t).ok()) {
        attr.allowed_types.push_back(t);
      } else if (status_.ok()) {
        status_ = errors::Internal("bad value '", item, "' in attr spec: ", spec);
      }
    }
    type = attr.allowed_types.empty() ? "string" : "type";
  }
  attr.type = type;
  if (type != "int" && type != "float" && type != "bool" && type != "string" && type != "type" &&
      type != "list(int)" && status_.ok()) {
    status_ = errors::Internal("unsupported attr type '", type, "' in: ", spec);
  }
  if (!default_text.empty() && status_.ok()) {
    attr.has_default = true;
    status_ = ParseDefault(attr, default_text, &attr.default_value);
  }
  def_.attrs.push_back(attr);
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(const std::string& text) {
  def_.doc = text;
  return *this;
}

Status OpDefBuilder::Finish(OpDef* def) const {
  SWIGFLOW_RETURN_IF_ERROR(status_);
  // One namespace, as TensorFlow's: attributes are keys of calls, and inputs and attributes are
  // the keyword parameters of the generated wrappers.
  std::set<std::string> names;
  for (const AttrDef& a : def_.attrs) {
    if (!names.insert(a.name).second) {
      return errors::Internal("op ", def_.name, ": duplicate name '", a.name, "'");
    }
  }
  for (const auto* list : {&def_.inputs, &def_.outputs}) {
    for (const ArgDef& arg : *list) {
      if (!names.insert(arg.name).second) {
        return errors::Internal("op ", def_.name, ": duplicate name '", arg.name, "'");
      }
    }
  }
  for (const auto* list : {&def_.inputs, &def_.outputs}) {
    for (const ArgDef& arg : *list) {
      if (arg.type_attr.empty()) continue;
      const AttrDef* attr = def_.FindAttr(arg.type_attr);
      if (attr == nullptr || attr->type != "type") {
        return errors::Internal("op ", def_.name, ": argument ", arg.name, " has type ",
                                arg.type_attr, ", which is neither a type nor a type attr");
      }
    }
  }
  *def = def_;
  return Status::OK();
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();  // never destroyed: used from static dtors
  return registry;
}

Status OpRegistry::RegisterOp(const OpDefBuilder& builder) {
  auto def = std::make_unique<OpDef>();
  SWIGFLOW_RETURN_IF_ERROR(builder.Finish(def.get()));
  std::lock_guard<std::mutex> lock(mu_);
  if (ops_.count(def->name) > 0) {
    return errors::AlreadyExists("Op with name ", def->name, " is already registered");
  }
  order_.push_back(def->name);
  ops_[def->name] = std::move(def);
  return Status::OK();
}

Status OpRegistry::RegisterKernel(const std::string& op, DataType type, KernelFactory factory) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto key = std::make_pair(op, type);
  if (kernels_.count(key) > 0) {
    return errors::AlreadyExists("a kernel for ", op, " with T=", DataTypeName(type),
                                 " is already registered");
  }
  kernels_[key] = std::move(factory);
  return Status::OK();
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<const OpDef*> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const OpDef*> list;
  for (const auto& entry : ops_) list.push_back(entry.second.get());
  return list;
}

std::vector<DataType> OpRegistry::KernelTypes(const std::string& op) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DataType> types;
  for (const auto& entry : kernels_) {
    if (entry.first.first == op) types.push_back(entry.first.second);
  }
  return types;
}

std::vector<Status> OpRegistry::TakeDeferredErrors() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(deferred_);
}

void OpRegistry::AddDeferredError(const Status& s) {
  std::lock_guard<std::mutex> lock(mu_);
  deferred_.push_back(s);
}

size_t OpRegistry::Mark() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

std::vector<std::string> OpRegistry::OpsSince(size_t mark) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::vector<std::string>(order_.begin() + static_cast<ptrdiff_t>(mark), order_.end());
}

std::unique_ptr<OpKernel> OpRegistry::MakeKernel(const std::string& op, DataType type) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernels_.find(std::make_pair(op, type));
  return it == kernels_.end() ? nullptr : it->second();
}

OpRegistrar::OpRegistrar(const OpDefBuilder& builder) {
  const Status s = OpRegistry::Global()->RegisterOp(builder);
  if (!s.ok()) OpRegistry::Global()->AddDeferredError(s);
}

KernelRegistrar::KernelRegistrar(const std::string& op, DataType type, KernelFactory factory) {
  const Status s = OpRegistry::Global()->RegisterKernel(op, type, std::move(factory));
  if (!s.ok()) OpRegistry::Global()->AddDeferredError(s);
}

Tensor* OpKernelContext::allocate_output(int i, std::vector<int64_t> shape, bool uninitialized) {
  if (outputs_.size() < def_.outputs.size()) outputs_.resize(def_.outputs.size());
  const ArgDef& arg = def_.outputs[static_cast<size_t>(i)];
  DataType type = arg.type;
  if (!arg.type_attr.empty()) type = std::get<DataType>(attrs_.at(arg.type_attr));
  outputs_[static_cast<size_t>(i)] = Tensor(type, std::move(shape), !uninitialized);
  return &outputs_[static_cast<size_t>(i)];
}

Status RunOp(const std::string& name, const std::vector<Tensor>& inputs, AttrMap attrs,
             std::vector<Tensor>* outputs, Isa isa, ThreadPool* pool) {
  const OpDef* def = OpRegistry::Global()->Find(name);
  if (def == nullptr) {
    return errors::NotFound("Op type not registered '", name, "' in binary");
  }
  SWIGFLOW_RETURN_IF_ERROR(ResolveInputTypes(*def, inputs, &attrs));
  SWIGFLOW_RETURN_IF_ERROR(CheckAttrs(*def, &attrs));
  DataType kernel_type = DataType::kInvalid;
  for (const AttrDef& a : def->attrs) {
    if (a.type == "type") {
      kernel_type = std::get<DataType>(attrs.at(a.name));
      break;
    }
  }
  std::unique_ptr<OpKernel> kernel = OpRegistry::Global()->MakeKernel(name, kernel_type);
  if (kernel == nullptr) {
    return errors::NotFound(
        "No registered '", name,
        "' OpKernel for CPU devices compatible with T=", DataTypeName(kernel_type));
  }
  OpKernelContext ctx(*def, inputs, attrs, isa, pool);
  try {
    kernel->Compute(&ctx);
  } catch (const std::bad_alloc&) {
    return errors::ResourceExhausted("OOM when allocating an output of ", name);
  }
  SWIGFLOW_RETURN_IF_ERROR(ctx.status());
  *outputs = std::move(*ctx.outputs());
  if (outputs->size() != def->outputs.size()) {
    return errors::Internal("kernel of ", name, " produced ", outputs->size(), " outputs, not ",
                            def->outputs.size());
  }
  return Status::OK();
}

}  // namespace swigflow
