// Matrix multiplication for swigflow.linalg (python/swigflow/linalg.py prepares the operands).
%{
#include "swigflow/kernels/gemm/gemm.h"
%}

%inline %{
// op(a) * op(b) for 2-D float32 or float64 arrays of one dtype whose rows are contiguous (unit
// inner stride); a new C-contiguous result. Shapes are checked by the caller.
PyObject* MatMul2D(PyObject* a_obj, PyObject* b_obj, bool trans_a, bool trans_b) {
  if (!PyArray_Check(a_obj) || !PyArray_Check(b_obj)) {
    PyErr_SetString(PyExc_TypeError, "MatMul2D expects numpy arrays");
    return nullptr;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(a_obj);
  auto* b = reinterpret_cast<PyArrayObject*>(b_obj);
  const int type = PyArray_TYPE(a);
  const npy_intp item = PyArray_ITEMSIZE(a);
  if (PyArray_NDIM(a) != 2 || PyArray_NDIM(b) != 2 || PyArray_TYPE(b) != type ||
      (type != NPY_FLOAT32 && type != NPY_FLOAT64) || PyArray_STRIDE(a, 1) != item ||
      PyArray_STRIDE(b, 1) != item || PyArray_STRIDE(a, 0) % item != 0 ||
      PyArray_STRIDE(b, 0) % item != 0 || PyArray_STRIDE(a, 0) < 0 || PyArray_STRIDE(b, 0) < 0) {
    PyErr_SetString(PyExc_ValueError, "MatMul2D: operands not prepared as documented");
    return nullptr;
  }
  const int64_t m = trans_a ? PyArray_DIM(a, 1) : PyArray_DIM(a, 0);
  const int64_t k = trans_a ? PyArray_DIM(a, 0) : PyArray_DIM(a, 1);
  const int64_t n = trans_b ? PyArray_DIM(b, 0) : PyArray_DIM(b, 1);
  const int64_t lda = PyArray_STRIDE(a, 0) / item, ldb = PyArray_STRIDE(b, 0) / item;
  npy_intp dims[2] = {static_cast<npy_intp>(m), static_cast<npy_intp>(n)};
  PyObject* c_obj = PyArray_SimpleNew(2, dims, type);
  if (c_obj == nullptr) return nullptr;
  auto* c = reinterpret_cast<PyArrayObject*>(c_obj);
  const void* a_data = PyArray_DATA(a);
  const void* b_data = PyArray_DATA(b);
  void* c_data = PyArray_DATA(c);
  Py_BEGIN_ALLOW_THREADS
  if (type == NPY_FLOAT32) {
    swigflow::kernels::Sgemm(trans_a, trans_b, m, n, k, static_cast<const float*>(a_data), lda,
                             static_cast<const float*>(b_data), ldb, static_cast<float*>(c_data),
                             n);
  } else {
    swigflow::kernels::Dgemm(trans_a, trans_b, m, n, k, static_cast<const double*>(a_data), lda,
                             static_cast<const double*>(b_data), ldb,
                             static_cast<double*>(c_data), n);
  }
  Py_END_ALLOW_THREADS
  return c_obj;
}

// The FMA throughput of this process's ISA on `threads` threads (GFLOP/s), for benchmarks.
double FmaPeakGflops(int threads, double seconds) {
  double gflops;
  Py_BEGIN_ALLOW_THREADS
  gflops = swigflow::kernels::FmaPeakGflops(swigflow::SelectedIsa(), threads, seconds);
  Py_END_ALLOW_THREADS
  return gflops;
}

// The instruction set Sgemm uses in this process: "scalar", "avx2" or "avx512".
const char* SelectedIsaName() { return swigflow::IsaName(swigflow::SelectedIsa()); }
%}
