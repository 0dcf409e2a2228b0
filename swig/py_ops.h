// The one generic entry point to every registered op (python/swigflow/ops/__init__.py): numpy
// arrays in, numpy arrays out, attributes as a dict. Adding an op needs no code here.
#ifndef SWIGFLOW_SWIG_PY_OPS_H_
#define SWIGFLOW_SWIG_PY_OPS_H_

#include "swig/py_runtime.h"

namespace swigflow {
namespace python {

// Runs a registered op: list of outputs (numpy arrays). Computes without the GIL.
PyObject* RunOp(const char* name, PyObject* inputs, PyObject* attrs);

// Every registered op as a dict: name, inputs, outputs, attrs (name, type, default, allowed),
// kernel types and doc, like ops.pbtxt.
PyObject* ListOps();

// For swigflow.load_op_library: how many ops are registered (a mark), the ops registered since
// a mark, and registration errors static initializers could not return (ALREADY_EXISTS for a
// duplicate name), as [(code, message)].
long long RegistryMark();
PyObject* OpsSince(long long mark);
PyObject* TakeRegistryErrors();

// For generated wrappers and op compatibility (python_op_gen.h, op_compat.h). `op_names` is a
// list of names, or None for every registered op (sorted by name).
// PythonOpWrappers: the Python source wrapping those ops (load_op_library's modules).
// OpDefsText: their golden text. OpIncompatibilities: the changes from the ops of a golden text
// to the registered ones that break callers, one sentence each (a removed op included);
// INVALID_ARGUMENT for a text that does not parse.
PyObject* PythonOpWrappers(PyObject* op_names, const char* source);
PyObject* OpDefsText(PyObject* op_names);
PyObject* OpIncompatibilities(const char* golden_text);

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_OPS_H_
