#include "swigflow/framework/python_op_gen.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace swigflow {

namespace {

constexpr size_t kLineLimit = 100;  // the repository's Python line length (ruff)

bool IsLower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool IsUpper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }

// A parameter name that is no Python keyword and does not shadow `name` (TF appends "_").
std::string ParamName(const std::string& arg) {
  static const std::set<std::string> reserved = {
      "False", "None",     "True", "and",    "as",     "assert", "async",  "await",   "break",
      "class", "continue", "def",  "del",    "elif",   "else",   "except", "finally", "for",
      "from",  "global",   "if",   "import", "in",     "is",     "lambda", "name",    "nonlocal",
      "not",   "or",       "pass", "raise",  "return", "try",    "while",  "with",    "yield"};
  return reserved.count(arg) ? arg + "_" : arg;
}

// Python's spelling of a data type: numpy's names, as swigflow's Python API uses.
std::string PyType(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return "float32";
    case DataType::kDouble:
      return "float64";
    default:
      return DataTypeName(t);
  }
}

std::string PyString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string PyLiteral(const AttrValue& value) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, float>) {
          if (std::isnan(x)) return "float(\"nan\")";
          if (std::isinf(x)) return x > 0 ? "float(\"inf\")" : "-float(\"inf\")";
          std::string s = FloatLiteral(x);
          if (s.find_first_of(".e") == std::string::npos) s += ".0";
          return s;
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "True" : "False";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return PyString(x);
        } else if constexpr (std::is_same_v<T, DataType>) {
          return PyString(PyType(x));
        } else {
          return AttrValueString(x);  // an int, or a list of ints: "[1, 2]"
        }
      },
      value);
}

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
  return s;
}

std::string AllowedTypes(const AttrDef& attr) {
  std::vector<std::string> names;
  for (DataType t : attr.allowed_types) names.push_back("`" + PyType(t) + "`");
  return Join(names, ", ");
}

std::string AllowedStrings(const AttrDef& attr) {
  std::vector<std::string> quoted;
  for (const std::string& s : attr.allowed_strings) quoted.push_back(PyString(s));
  return "`" + Join(quoted, ", ") + "`";
}

// The type attributes some input determines: not parameters, RunOp infers them.
std::set<std::string> InferredAttrs(const OpDef& def) {
  std::set<std::string> inferred;
  for (const ArgDef& arg : def.inputs) {
    if (!arg.type_attr.empty()) inferred.insert(arg.type_attr);
  }
  return inferred;
}

// "A `Tensor`. Must be one of ...", "... Has the same type as `x`." for an argument.
std::string ArgDoc(const OpDef& def, const ArgDef& arg, const std::string& first_with_attr) {
  if (arg.type_attr.empty()) return "A `Tensor` of type `" + PyType(arg.type) + "`.";
  if (!first_with_attr.empty()) {
    return "A `Tensor`. Has the same type as `" + ParamName(first_with_attr) + "`.";
  }
  const AttrDef* attr = def.FindAttr(arg.type_attr);
  if (attr != nullptr && !attr->allowed_types.empty()) {
    return "A `Tensor`. Must be one of the following types: " + AllowedTypes(*attr) + ".";
  }
  return "A `Tensor`.";
}

std::string AttrDoc(const AttrDef& attr) {
  std::string kind;
  if (attr.type == "int") {
    kind = "`int`";
  } else if (attr.type == "float") {
    kind = "`float`";
  } else if (attr.type == "bool") {
    kind = "`bool`";
  } else if (attr.type == "list(int)") {
    kind = "list of `ints`";
  } else if (attr.type == "type") {
    kind = "dtype name";
  } else {
    kind = "`string`";
  }
  const bool vowel = kind == "`int`";
  std::string doc = attr.has_default ? "An optional " + kind : (vowel ? "An " : "A ") + kind;
  if (!attr.allowed_strings.empty()) doc += " from: " + AllowedStrings(attr);
  if (!attr.allowed_types.empty()) doc += " from: " + AllowedTypes(attr);
  doc += ".";
  if (attr.has_default) doc += " Defaults to `" + PyLiteral(attr.default_value) + "`.";
  return doc;
}

// The Python annotation of an attribute's parameter.
std::string AttrAnnotation(const AttrDef& attr) {
  if (attr.type == "int") return "int";
  if (attr.type == "float") return "float";
  if (attr.type == "bool") return "bool";
  if (attr.type == "string") return "str";
  if (attr.type == "list(int)") return "list[int]";
  if (attr.type == "list(float)") return "list[float]";
  return "_Any";  // a dtype, or a list of anything else
}

// Where the first input typed by `attr` is, for "Has the same type as"; "" when none.
std::string FirstInputTyped(const OpDef& def, const std::string& attr) {
  for (const ArgDef& arg : def.inputs) {
    if (arg.type_attr == attr) return arg.name;
  }
  return "";
}

void AppendCall(const std::string& head, const std::vector<std::string>& items,
                const std::string& tail, const std::string& indent, std::string* out) {
  const std::string line = indent + head + Join(items, ", ") + tail;
  if (line.size() <= kLineLimit) {
    *out += line + "\n";
    return;
  }
  *out += indent + head + "\n";
  for (const std::string& item : items) *out += indent + "    " + item + ",\n";
  *out += indent + tail + "\n";
}

std::string Docstring(const OpDef& def, const std::vector<const ArgDef*>& inputs,
                      const std::vector<const AttrDef*>& attrs) {
  std::string doc = def.doc.empty() ? "Runs the " + def.name + " op." : def.doc;
  doc += "\n\nArgs:\n";
  std::set<std::string> seen_attrs;
  for (const ArgDef* arg : inputs) {
    std::string first;
    if (!arg->type_attr.empty() && !seen_attrs.insert(arg->type_attr).second) {
      first = FirstInputTyped(def, arg->type_attr);
    }
    doc += "  " + ParamName(arg->name) + ": " + ArgDoc(def, *arg, first) + "\n";
  }
  for (const AttrDef* attr : attrs)
    doc += "  " + ParamName(attr->name) + ": " + AttrDoc(*attr) + "\n";
  doc += "  name: A name for the operation (optional; unused: swigflow runs ops eagerly).\n";
  doc += "\nReturns:\n";
  const auto output_doc = [&](const ArgDef& out) {
    if (out.type_attr.empty()) return "A `Tensor` of type `" + PyType(out.type) + "`.";
    const std::string source = FirstInputTyped(def, out.type_attr);
    if (!source.empty()) return "A `Tensor`. Has the same type as `" + ParamName(source) + "`.";
    return "A `Tensor` of type `" + ParamName(out.type_attr) + "`.";
  };
  if (def.outputs.empty()) {
    doc += "  None.\n";
  } else if (def.outputs.size() == 1) {
    doc += "  " + output_doc(def.outputs[0]) + "\n";
  } else {
    std::vector<std::string> names;
    for (const ArgDef& out : def.outputs) names.push_back(out.name);
    doc += "  A tuple of `Tensor` objects (" + Join(names, ", ") + ").\n\n";
    for (const ArgDef& out : def.outputs) doc += "  " + out.name + ": " + output_doc(out) + "\n";
  }
  // Indented by four inside the function; backslashes and quotes kept literal.
  std::string body;
  size_t start = 0;
  while (start <= doc.size()) {
    const size_t end = doc.find('\n', start);
    const std::string line = doc.substr(start, end == std::string::npos ? end : end - start);
    body += line.empty() ? "\n" : "    " + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::string escaped;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\') {
      escaped += "\\\\";
    } else if (body.compare(i, 3, "\"\"\"") == 0) {
      escaped += "\\\"\\\"\\\"";
      i += 2;
    } else {
      escaped += body[i];
    }
  }
  while (!escaped.empty() && escaped.back() == '\n') escaped.pop_back();
  return "    \"\"\"" + escaped.substr(4) + "\n    \"\"\"\n";
}

std::string OpFunction(const OpDef& def, bool hidden) {
  const std::string function = (hidden ? "_" : "") + PythonOpName(def.name);
  const std::set<std::string> inferred = InferredAttrs(def);
  std::vector<const ArgDef*> inputs;
  for (const ArgDef& arg : def.inputs) inputs.push_back(&arg);
  std::vector<const AttrDef*> attrs;  // the parameters: without a default first
  for (int pass = 0; pass < 2; ++pass) {
    for (const AttrDef& a : def.attrs) {
      if (!inferred.count(a.name) && a.has_default == (pass == 1)) attrs.push_back(&a);
    }
  }
  std::vector<std::string> params, inputs_passed, attrs_passed;
  for (const ArgDef* arg : inputs) {
    params.push_back(ParamName(arg->name) + ": _ArrayLike");
    inputs_passed.push_back(ParamName(arg->name));
  }
  for (const AttrDef* a : attrs) {
    params.push_back(ParamName(a->name) + ": " + AttrAnnotation(*a) +
                     (a->has_default ? " = " + PyLiteral(a->default_value) : std::string()));
    attrs_passed.push_back(a->name + "=" + ParamName(a->name));
  }
  params.push_back("name: str | None = None");
  const std::string returns = def.outputs.empty()       ? "None"
                              : def.outputs.size() == 1 ? "_np.ndarray"
                                                        : "tuple[_np.ndarray, ...]";

  std::string out = "\n\n";
  AppendCall("def " + function + "(", params, ") -> " + returns + ":", "", &out);
  out += Docstring(def, inputs, attrs);
  out += "    del name  # graph node names do not apply to eager ops\n";
  std::vector<std::string> call = {PyString(def.name), "[" + Join(inputs_passed, ", ") + "]"};
  call.insert(call.end(), attrs_passed.begin(), attrs_passed.end());
  if (def.outputs.empty()) {
    AppendCall("_run(", call, ")", "    ", &out);
  } else if (def.outputs.size() == 1) {
    AppendCall("return _run(", call, ")[0]", "    ", &out);
  } else {
    AppendCall("outputs = _run(", call, ")", "    ", &out);
    out += "    return _" + def.name + "Output._make(outputs)\n";
  }
  return out;
}

}  // namespace

std::string PythonOpName(const std::string& op_name) {
  std::string out;
  for (size_t i = 0; i < op_name.size(); ++i) {
    const char c = op_name[i];
    if (IsUpper(c) && i > 0 &&
        (IsLower(op_name[i - 1]) || (i + 1 < op_name.size() && IsLower(op_name[i + 1])))) {
      out += '_';
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string PythonOpWrappers(const std::vector<const OpDef*>& ops,
                             const PythonOpGenOptions& options) {
  std::string out = "\"\"\"Python wrappers around swigflow ops" +
                    (options.source.empty() ? std::string() : " from " + options.source) +
                    ".\n\nMACHINE GENERATED from the op registry by python_op_gen\n"
                    "(native/framework/python_op_gen.h): do not edit.\n\"\"\"\n\n";
  bool tuples = false;
  for (const OpDef* def : ops) tuples |= def->outputs.size() > 1;
  // Annotations stay strings (PEP 563), so `X | None` reads on every supported Python.
  out += "from __future__ import annotations\n\n";
  if (tuples) out += "import collections as _collections\n";
  out +=
      "from typing import Any as _Any\n\nimport numpy as _np\nfrom numpy.typing import ArrayLike "
      "as _ArrayLike\n\n";
  out += "from swigflow.ops.registry import run as _run\n";
  for (const OpDef* def : ops) {
    if (def->outputs.size() > 1) {
      std::vector<std::string> names;
      for (const ArgDef& o : def->outputs) names.push_back(PyString(o.name));
      out += "\n_" + def->name + "Output = _collections.namedtuple(" + PyString(def->name) + ", [" +
             Join(names, ", ") + "])\n";
    }
  }
  for (const OpDef* def : ops) {
    const bool hidden =
        std::find(options.hidden.begin(), options.hidden.end(), def->name) != options.hidden.end();
    out += OpFunction(*def, hidden);
  }
  return out;
}

}  // namespace swigflow
