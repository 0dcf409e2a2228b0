#include "swigflow/framework/op_compat.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace swigflow {

namespace {

// A value as a spec literal: what OpDefBuilder's default parser reads back to the same value
// (strings in single quotes, floats with enough digits to round-trip).
std::string SpecLiteral(const AttrValue& value) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, float>) {
          return FloatLiteral(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "'" + x + "'";
        } else {
          return AttrValueString(x);
        }
      },
      value);
}

std::string Signature(const std::vector<ArgDef>& args) {
  std::string s = "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + ArgSpec(args[i]);
  return s + ")";
}

std::vector<std::string> AllowedValues(const AttrDef& attr) {
  std::vector<std::string> values = attr.allowed_strings;
  for (DataType t : attr.allowed_types) values.push_back(DataTypeName(t));
  return values;
}

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

}  // namespace

std::string ArgSpec(const ArgDef& arg) {
  return arg.name + ": " + (arg.type_attr.empty() ? DataTypeName(arg.type) : arg.type_attr);
}

std::string AttrSpec(const AttrDef& attr) {
  std::string type = attr.type;
  if (!attr.allowed_strings.empty() || !attr.allowed_types.empty()) {
    std::vector<std::string> items;
    for (const std::string& s : attr.allowed_strings) items.push_back("'" + s + "'");
    for (DataType t : attr.allowed_types) items.push_back(DataTypeName(t));
    type = "{" + Join(items) + "}";
  }
  std::string spec = attr.name + ": " + type;
  if (attr.has_default) spec += " = " + SpecLiteral(attr.default_value);
  return spec;
}

std::string OpDefText(const OpDef& def) {
  std::string text = "op: " + def.name + "\n";
  for (const ArgDef& arg : def.inputs) text += "  input: " + ArgSpec(arg) + "\n";
  for (const ArgDef& arg : def.outputs) text += "  output: " + ArgSpec(arg) + "\n";
  for (const AttrDef& attr : def.attrs) text += "  attr: " + AttrSpec(attr) + "\n";
  return text;
}

Status ParseOpDefs(const std::string& text, std::vector<OpDef>* defs) {
  defs->clear();
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  std::unique_ptr<OpDefBuilder> builder;
  int op_line = 0;
  const auto finish = [&]() -> Status {
    if (builder == nullptr) return Status::OK();
    OpDef def;
    const Status s = builder->Finish(&def);
    if (!s.ok()) return errors::InvalidArgument("line ", op_line, ": ", s.message());
    defs->push_back(std::move(def));
    builder.reset();
    return Status::OK();
  };
  while (std::getline(lines, line)) {
    ++number;
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string body = line.substr(start);
    const size_t colon = body.find(": ");
    const std::string key = colon == std::string::npos ? body : body.substr(0, colon);
    const std::string spec = colon == std::string::npos ? "" : body.substr(colon + 2);
    if (key == "op" && start == 0 && !spec.empty()) {
      SWIGFLOW_RETURN_IF_ERROR(finish());
      builder = std::make_unique<OpDefBuilder>(spec);
      op_line = number;
    } else if (builder != nullptr && start > 0 && key == "input") {
      builder->Input(spec);
    } else if (builder != nullptr && start > 0 && key == "output") {
      builder->Output(spec);
    } else if (builder != nullptr && start > 0 && key == "attr") {
      builder->Attr(spec);
    } else {
      return errors::InvalidArgument("line ", number, ": expected 'op: NAME' or an indented ",
                                     "'input: ', 'output: ' or 'attr: ' spec, got: ", line);
    }
  }
  return finish();
}

std::vector<std::string> IncompatibleChanges(const OpDef& golden, const OpDef& now) {
  std::vector<std::string> problems;
  const auto add = [&](const std::string& what) { problems.push_back(golden.name + ": " + what); };
  if (Signature(golden.inputs) != Signature(now.inputs)) {
    add("inputs changed from " + Signature(golden.inputs) + " to " + Signature(now.inputs));
  }
  if (Signature(golden.outputs) != Signature(now.outputs)) {
    add("outputs changed from " + Signature(golden.outputs) + " to " + Signature(now.outputs));
  }
  for (const AttrDef& old : golden.attrs) {
    const AttrDef* attr = now.FindAttr(old.name);
    if (attr == nullptr) {
      add("attr '" + old.name + "' was removed");
      continue;
    }
    if (attr->type != old.type) {
      add("attr '" + old.name + "' changed type from " + old.type + " to " + attr->type);
      continue;
    }
    const std::vector<std::string> before = AllowedValues(old), after = AllowedValues(*attr);
    if (!before.empty() || !after.empty()) {
      std::vector<std::string> lost;
      for (const std::string& v : before) {
        if (std::find(after.begin(), after.end(), v) == after.end()) lost.push_back(v);
      }
      if (before.empty()) {
        add("attr '" + old.name + "' now allows only {" + Join(after) + "}");
      } else if (!after.empty() && !lost.empty()) {
        add("attr '" + old.name + "' no longer allows " + Join(lost));
      }
    }
    if (old.has_default && !attr->has_default) {
      add("attr '" + old.name + "' lost its default " + SpecLiteral(old.default_value));
    } else if (old.has_default &&
               SpecLiteral(old.default_value) != SpecLiteral(attr->default_value)) {
      add("attr '" + old.name + "' changed its default from " + SpecLiteral(old.default_value) +
          " to " + SpecLiteral(attr->default_value));
    }
  }
  for (const AttrDef& attr : now.attrs) {
    if (golden.FindAttr(attr.name) == nullptr && !attr.has_default) {
      add("new attr '" + attr.name + "' has no default, so existing callers do not set it");
    }
  }
  // Attributes without a default are positional parameters of the wrapper, in this order.
  std::vector<std::string> required_before, required_now;
  for (const AttrDef& a : golden.attrs) {
    const AttrDef* later = now.FindAttr(a.name);
    if (!a.has_default && later != nullptr && !later->has_default) {
      required_before.push_back(a.name);
    }
  }
  for (const AttrDef& a : now.attrs) {
    if (!a.has_default && golden.FindAttr(a.name) != nullptr) required_now.push_back(a.name);
  }
  if (problems.empty() && required_before != required_now) {
    add("attrs without a default changed from (" + Join(required_before) + ") to (" +
        Join(required_now) + "): they are positional parameters of the Python wrapper");
  }
  return problems;
}

}  // namespace swigflow
