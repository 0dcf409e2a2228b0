// Matrix multiplication for swigflow.linalg: py_linalg.h.
%{
#include "swig/py_linalg.h"
%}

%ignoreall
%rename("%s") swigflow::python::MatMul2D;
%rename("%s") swigflow::python::MatMulBatched;
%rename("%s") swigflow::python::MeasureFma;
%rename("%s") swigflow::python::KernelConfigDict;
%rename("%s") swigflow::python::SelectedIsaName;
%include "swig/py_linalg.h"
%unignoreall
