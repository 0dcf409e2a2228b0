// Python wrappers for registered ops, generated from their OpDefs: TensorFlow's
// python_op_gen, for swigflow's registry. One function per op, named in snake_case, with the
// inputs, then the attributes without a default, then those with one (their defaults from the
// OpDef), then `name`; a docstring from the OpDef's doc, argument types and allowed values.
// Each calls swigflow.ops.run, which checks the call against the OpDef: the wrappers validate
// nothing themselves. Type attributes that inputs determine are not parameters. A function
// returns the output for one output, a namedtuple of them for several, None for none.
//
// The same generator writes gen_<lib>_ops.py at build time (bazel/gen_op_wrapper.bzl) and the
// modules load_op_library returns at run time.
#ifndef SWIGFLOW_FRAMEWORK_PYTHON_OP_GEN_H_
#define SWIGFLOW_FRAMEWORK_PYTHON_OP_GEN_H_

#include <string>
#include <vector>

#include "swigflow/framework/op.h"

namespace swigflow {

// TensorFlow's Python name of an op: "Conv2DBackpropInput" -> "conv2d_backprop_input",
// "MatMul" -> "mat_mul" (an underscore before a capital that follows a lower-case letter, or
// that starts a lower-case run).
std::string PythonOpName(const std::string& op_name);

struct PythonOpGenOptions {
  std::string source;               // what the ops come from, for the module docstring
  std::vector<std::string> hidden;  // ops whose functions get a leading underscore
};

// The source of a Python module wrapping `ops` (in the given order).
std::string PythonOpWrappers(const std::vector<const OpDef*>& ops,
                             const PythonOpGenOptions& options);

}  // namespace swigflow

#endif  // SWIGFLOW_FRAMEWORK_PYTHON_OP_GEN_H_
