// The one generic entry point to every registered op (python/swigflow/ops/__init__.py) and the op
// registry's introspection: py_ops.h.
%{
#include "swig/py_ops.h"
%}

%ignoreall
%rename("%s") swigflow::python::RunOp;
%rename("%s") swigflow::python::ListOps;
%rename("%s") swigflow::python::RegistryMark;
%rename("%s") swigflow::python::OpsSince;
%rename("%s") swigflow::python::TakeRegistryErrors;
%rename("%s") swigflow::python::PythonOpWrappers;
%rename("%s") swigflow::python::OpDefsText;
%rename("%s") swigflow::python::OpIncompatibilities;
%include "swig/py_ops.h"
%unignoreall
