// Matrix multiplication for swigflow.linalg (python/swigflow/linalg.py prepares the operands).
#ifndef SWIGFLOW_SWIG_PY_LINALG_H_
#define SWIGFLOW_SWIG_PY_LINALG_H_

#include "swig/py_runtime.h"

namespace swigflow {
namespace python {

// op(a) * op(b) for 2-D float32 or float64 arrays of one dtype whose rows are contiguous (unit
// inner stride); a new C-contiguous result. Shapes are checked by the caller.
PyObject* MatMul2D(PyObject* a_obj, PyObject* b_obj, bool trans_a, bool trans_b);

// A batch of products op(a_i) * op(b_i) in one call: matrix i of `a` starts offsets_a[i] elements
// after a's data (its rows are a's second-to-last stride apart, with unit inner stride; the same
// for b). linalg.py computes the offsets from the broadcast batch shape, so broadcast operands
// are never copied. Small products run one per thread, large ones each over the pool: the result
// equals the 2-D calls' bit for bit.
PyObject* MatMulBatched(PyObject* a_obj, PyObject* a_offsets_obj, PyObject* b_obj,
                        PyObject* b_offsets_obj, bool trans_a, bool trans_b, long long m,
                        long long n, long long k);

// The FMA probe of this process's ISA on `threads` threads, for benchmarks: a dict of threads,
// gflops, ghz and flops_per_cycle (kernels::FmaProbe).
PyObject* MeasureFma(int threads, double seconds);

// What the float32 kernels were configured with here: the config's name and source, the ISA,
// the CPU (vendor, brand, family, model, cache sizes), the tile and blocking, the convolution
// thresholds and the default thread count. swigflow.linalg.kernel_config() returns it.
PyObject* KernelConfigDict();

// The instruction set Sgemm uses in this process: "scalar", "avx2" or "avx512".
const char* SelectedIsaName();

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_LINALG_H_
