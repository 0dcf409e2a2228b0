// Fuzz target for the op golden text (op_compat.h) and the Python wrapper generator.
// Invariants: no crash; a text either parses or is INVALID_ARGUMENT; what parses prints back to
// a text that parses to the same definitions, compatible with themselves; every parsed op gets
// wrappers.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "swigflow/framework/op_compat.h"
#include "swigflow/framework/python_op_gen.h"

namespace {

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<swigflow::OpDef> defs;
  const swigflow::Status s = swigflow::ParseOpDefs(text, &defs);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s), "parse status");
  if (!s.ok()) return 0;
  std::string printed;
  std::vector<const swigflow::OpDef*> ops;
  for (const swigflow::OpDef& def : defs) {
    printed += swigflow::OpDefText(def) + "\n";
    ops.push_back(&def);
  }
  std::vector<swigflow::OpDef> again;
  Require(swigflow::ParseOpDefs(printed, &again).ok(), "re-parse of printed text");
  Require(again.size() == defs.size(), "re-parse count");
  for (size_t i = 0; i < defs.size(); ++i) {
    Require(swigflow::OpDefText(again[i]) == swigflow::OpDefText(defs[i]), "text round trip");
    Require(swigflow::IncompatibleChanges(defs[i], again[i]).empty(), "self-compatible");
  }
  Require(!swigflow::PythonOpWrappers(ops, {}).empty(), "wrappers");
  return 0;
}
