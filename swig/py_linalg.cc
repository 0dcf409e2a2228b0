#include "swig/py_linalg.h"

#include <algorithm>
#include <cstdint>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/gemm/int8_gemm.h"

namespace swigflow {
namespace python {

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
  const swigflow::Status s = WithoutGil([&] {
    if (type == NPY_FLOAT32) {
      swigflow::kernels::Sgemm(trans_a, trans_b, m, n, k, static_cast<const float*>(a_data), lda,
                               static_cast<const float*>(b_data), ldb, static_cast<float*>(c_data),
                               n);
    } else {
      swigflow::kernels::Dgemm(trans_a, trans_b, m, n, k, static_cast<const double*>(a_data), lda,
                               static_cast<const double*>(b_data), ldb,
                               static_cast<double*>(c_data), n);
    }
    return swigflow::Status::OK();
  });
  return ResultOrError(c_obj, s);
}

PyObject* MatMulBatched(PyObject* a_obj, PyObject* a_offsets_obj, PyObject* b_obj,
                        PyObject* b_offsets_obj, bool trans_a, bool trans_b, long long m,
                        long long n, long long k) {
  if (!PyArray_Check(a_obj) || !PyArray_Check(b_obj) || !PyArray_Check(a_offsets_obj) ||
      !PyArray_Check(b_offsets_obj)) {
    PyErr_SetString(PyExc_TypeError, "MatMulBatched expects numpy arrays");
    return nullptr;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(a_obj);
  auto* b = reinterpret_cast<PyArrayObject*>(b_obj);
  auto* a_off = reinterpret_cast<PyArrayObject*>(a_offsets_obj);
  auto* b_off = reinterpret_cast<PyArrayObject*>(b_offsets_obj);
  const int type = PyArray_TYPE(a);
  const npy_intp item = PyArray_ITEMSIZE(a);
  const int da = PyArray_NDIM(a), db = PyArray_NDIM(b);
  if (da < 2 || db < 2 || PyArray_TYPE(b) != type || (type != NPY_FLOAT32 && type != NPY_FLOAT64) ||
      PyArray_STRIDE(a, da - 1) != item || PyArray_STRIDE(b, db - 1) != item ||
      PyArray_STRIDE(a, da - 2) % item != 0 || PyArray_STRIDE(b, db - 2) % item != 0 ||
      PyArray_TYPE(a_off) != NPY_INT64 || PyArray_TYPE(b_off) != NPY_INT64 ||
      !PyArray_IS_C_CONTIGUOUS(a_off) || !PyArray_IS_C_CONTIGUOUS(b_off) ||
      PyArray_SIZE(a_off) != PyArray_SIZE(b_off) || m <= 0 || n <= 0 || k <= 0) {
    PyErr_SetString(PyExc_ValueError, "MatMulBatched: operands not prepared as documented");
    return nullptr;
  }
  const int64_t batch = PyArray_SIZE(a_off);
  const int64_t lda = PyArray_STRIDE(a, da - 2) / item, ldb = PyArray_STRIDE(b, db - 2) / item;
  npy_intp dims[3] = {static_cast<npy_intp>(batch), static_cast<npy_intp>(m),
                      static_cast<npy_intp>(n)};
  PyObject* c_obj = PyArray_SimpleNew(3, dims, type);
  if (c_obj == nullptr) return nullptr;
  const int64_t* ao = static_cast<const int64_t*>(PyArray_DATA(a_off));
  const int64_t* bo = static_cast<const int64_t*>(PyArray_DATA(b_off));
  char* a_data = static_cast<char*>(PyArray_DATA(a));
  char* b_data = static_cast<char*>(PyArray_DATA(b));
  char* c_data = static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(c_obj)));
  const swigflow::Status s = WithoutGil([&] {
    auto one = [&](int64_t i, swigflow::ThreadPool* pool) {
      if (type == NPY_FLOAT32) {
        swigflow::kernels::Sgemm(
            trans_a, trans_b, m, n, k, reinterpret_cast<const float*>(a_data) + ao[i], lda,
            reinterpret_cast<const float*>(b_data) + bo[i], ldb,
            reinterpret_cast<float*>(c_data) + i * m * n, n, swigflow::SelectedIsa(), pool);
      } else {
        swigflow::kernels::Dgemm(trans_a, trans_b, m, n, k,
                                 reinterpret_cast<const double*>(a_data) + ao[i], lda,
                                 reinterpret_cast<const double*>(b_data) + bo[i], ldb,
                                 reinterpret_cast<double*>(c_data) + i * m * n, n);
      }
    };
    swigflow::ThreadPool* pool = swigflow::ThreadPool::Default();
    if (batch > 1 && m * n * k < (int64_t{1} << 18)) {
      // Small products: whole products per thread (each is computed the same way on any thread).
      const int64_t parts = std::min<int64_t>(pool->num_threads(), batch);
      pool->ParallelFor(parts, [&](int64_t part) {
        for (int64_t i = batch * part / parts; i < batch * (part + 1) / parts; ++i) one(i, nullptr);
      });
    } else {
      for (int64_t i = 0; i < batch; ++i) one(i, pool);
    }
    return swigflow::Status::OK();
  });
  return ResultOrError(c_obj, s);
}

PyObject* MeasureFma(int threads, double seconds) {
  swigflow::FmaProbe probe;
  WithoutGil([&] {
    probe = swigflow::kernels::MeasureFma(swigflow::SelectedIsa(), threads, seconds);
    return swigflow::Status::OK();
  });
  return Py_BuildValue("{s:i,s:d,s:d,s:d}", "threads", probe.threads, "gflops", probe.gflops, "ghz",
                       probe.ghz, "flops_per_cycle", probe.flops_per_cycle);
}

PyObject* KernelConfigDict() {
  const swigflow::Isa isa = swigflow::SelectedIsa();
  const swigflow::kernels::KernelConfig& config = swigflow::kernels::ConfigFor(isa);
  const swigflow::kernels::gemm::KernelInfo& kernel = swigflow::kernels::KernelFor(isa);
  const swigflow::CpuModel& cpu = swigflow::GetCpuModel();
  const swigflow::kernels::Int8Isa int8_isa = swigflow::kernels::Int8IsaFor(isa);
  const swigflow::kernels::Int8Blocking& int8 = swigflow::kernels::Int8BlockingFor(int8_isa);
  return Py_BuildValue(
      "{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:L,s:L,s:L,s:i,s:i,s:L,s:L,s:L,s:L,s:i,s:i,"
      "s:s,s:i,s:i,s:L,s:L,s:L}",
      "name", config.name.c_str(), "source", config.source.c_str(), "isa", swigflow::IsaName(isa),
      "vendor", cpu.vendor.c_str(), "cpu", cpu.brand.c_str(), "family", cpu.family, "model",
      cpu.model, "l1d", static_cast<long long>(cpu.caches.l1d), "l2",
      static_cast<long long>(cpu.caches.l2), "l3", static_cast<long long>(cpu.caches.l3), "mr",
      kernel.mr, "nr", kernel.nr, "mc", static_cast<long long>(kernel.mc), "kc",
      static_cast<long long>(kernel.kc), "nc", static_cast<long long>(kernel.nc), "few_channels",
      static_cast<long long>(config.few_channels), "min_row_fill_pct", config.min_row_fill_pct,
      "threads", swigflow::ThreadPool::Default()->num_threads(), "int8_kernel",
      swigflow::kernels::Int8IsaName(int8_isa), "int8_mr", int8.kernel.mr, "int8_nr",
      int8.kernel.nr, "int8_mc", static_cast<long long>(int8.mc), "int8_kc",
      static_cast<long long>(int8.kc), "int8_nc", static_cast<long long>(int8.nc));
}

const char* SelectedIsaName() { return swigflow::IsaName(swigflow::SelectedIsa()); }

}  // namespace python
}  // namespace swigflow
