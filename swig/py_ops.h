// The one generic entry point to every registered op (python/swigflow/ops.py): numpy arrays in,
// numpy arrays out, attributes as a dict. Adding an op needs no code here.
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

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_OPS_H_
