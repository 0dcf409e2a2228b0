// Op definitions as text, and TensorFlow's rules for changing them (its ops.pbtxt and
// op_compatibility_lib, in REGISTER_OP's own syntax). The golden file of the registered ops
// (tests/api/golden/ops.txt) is written with OpDefText and read back with ParseOpDefs:
//
//   op: MaxPool
//     input: input: T
//     output: output: T
//     attr: T: {float}
//     attr: data_format: {'NHWC', 'NCHW'} = 'NHWC'
//
// Each line after "op:" is a spec OpDefBuilder takes, so reading the golden is registering
// it, minus the registry. Docs are left out: they may change freely.
#ifndef SWIGFLOW_FRAMEWORK_OP_COMPAT_H_
#define SWIGFLOW_FRAMEWORK_OP_COMPAT_H_

#include <string>
#include <vector>

#include "swigflow/framework/op.h"
#include "swigflow/framework/status.h"

namespace swigflow {

// The spec of an argument ("filter: T") or attribute ("padding: {'SAME', 'VALID'}",
// "dilations: list(int) = [1, 1, 1, 1]"), as OpDefBuilder parses it back to the same value.
std::string ArgSpec(const ArgDef& arg);
std::string AttrSpec(const AttrDef& attr);

// "op: NAME" and one indented line per input, output and attribute, in order.
std::string OpDefText(const OpDef& def);

// The op definitions of a text of OpDefText blocks (blank lines and "#" comments skipped).
// INVALID_ARGUMENT names the line of the first error.
Status ParseOpDefs(const std::string& text, std::vector<OpDef>* defs);

// The changes from `golden` to `now` that break existing callers, one sentence each; none when
// `now` is a compatible evolution. TensorFlow's rules: inputs and outputs keep their number,
// order and types; attributes are not removed and keep their type and default; a new attribute
// needs a default; the allowed values of an attribute may only grow. Also, because they are
// the generated Python wrappers' parameters: argument names are kept, and attributes without a
// default keep their order.
std::vector<std::string> IncompatibleChanges(const OpDef& golden, const OpDef& now);

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_OP_COMPAT_H_
