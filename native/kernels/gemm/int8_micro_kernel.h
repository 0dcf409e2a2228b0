// The micro-kernels behind the 8-bit integer GEMM (int8_gemm.h), one per instruction set, each
// compiled with its own flags.
//
// A micro-kernel sums u8 x s8 products into an MR x NR tile of int32. Both operands come packed
// in groups of `k_group` consecutive K steps, the group of one row (of A) or column (of B)
// contiguous, so that one vector instruction multiplies a whole group:
//   A sliver: group g, row r, step t at a[(g * MR + r) * k_group + t]
//   B sliver: group g, column j, step t at b[(g * NR + j) * k_group + t]
// Steps past K are zero in both. `element` says how the values are stored: u8/s8 bytes (the
// VNNI layout, 4 steps a group) or both widened to int16 (2 steps a group, for vpmaddwd).
//
// Every sum wraps modulo 2^32 and every product is exact, so all kernels give the same
// integers (vpdpbusd does not saturate; vpmaddubsw would, and is not used).
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_MICRO_KERNEL_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_MICRO_KERNEL_H_

#include <cstdint>
#include <cstring>

namespace swigflow {
namespace kernels {
namespace gemm {

// C tile = sum over `groups` groups (+ C when `accumulate`); then, when `row_offset` is not
// null, + row_offset[i] + col_offset[j] (the zero-point terms, added once after the last
// block). Only the top-left rows x cols of the tile are written.
using Int8MicroKernel = void (*)(int64_t groups, const void* a, const void* b, int32_t* c,
                                 int64_t ldc, int rows, int cols, bool accumulate,
                                 const int32_t* row_offset, const int32_t* col_offset);

// A tile's rows read in place instead of packed (an implicit im2col): `runs` runs of `groups`
// groups of 4 bytes each, run t of row i at the address origins[i] + offsets[i][t]. Addresses
// are added as integers: rows of one window share a table of offsets from their origin (a
// convolution's taps), while a row whose runs lie in different buffers (a window that leaves
// the input, its outside taps reading a pad pixel) has origin 0 and a table of addresses.
// Only the tile's rows are read.
struct Int8RowRuns {
  const uintptr_t* origins = nullptr;       // one per row
  const int64_t* const* offsets = nullptr;  // one table of `runs` offsets per row
  int runs = 0;
  int64_t groups = 0;  // per run
};

// The same tile as Int8MicroKernel from rows read in place, in K order: B packed as for it (the
// runs' groups one after the other). Byte kernels only.
using Int8RowsKernel = void (*)(const Int8RowRuns& a, const void* b, int32_t* c, int64_t ldc,
                                int rows, int cols, bool accumulate, const int32_t* row_offset,
                                const int32_t* col_offset);

// The fused inference ops' last step done on a finished tile in the kernel's registers instead
// of on stored sums: out[i * ldo + j] = RequantizeRow's value (quantization/requantize_row.h) of
// the sum of row i, column j (offsets included), with that column's scale and bias. Given at the
// tile's first row and column.
struct Int8Requantize {
  const float* scale = nullptr;
  const float* bias = nullptr;
  float inverse_output = 0;
  uint8_t* out = nullptr;
  int64_t ldo = 0;
};

// The same tiles as Int8MicroKernel and Int8RowsKernel over all of K (one block), requantized to
// `q` instead of stored.
using Int8RequantizingKernel = void (*)(int64_t groups, const void* a, const void* b,
                                        const Int8Requantize& q, int rows, int cols,
                                        const int32_t* row_offset, const int32_t* col_offset);
using Int8RequantizingRowsKernel = void (*)(const Int8RowRuns& a, const void* b,
                                            const Int8Requantize& q, int rows, int cols,
                                            const int32_t* row_offset, const int32_t* col_offset);

enum class Int8Element { kBytes, kInt16 };

struct Int8KernelInfo {
  const char* name = "";  // "avx512_vnni", "avx_vnni", "avx2", "scalar"
  int mr = 0, nr = 0;
  int k_group = 4;
  Int8Element element = Int8Element::kBytes;
  Int8MicroKernel kernel = nullptr;
  Int8RowsKernel rows_kernel = nullptr;  // where the kernel has one
  // Where the kernel requantizes in registers (with rows_kernel, when it has one).
  Int8RequantizingKernel requantizing_kernel = nullptr;
  Int8RequantizingRowsKernel requantizing_rows_kernel = nullptr;
};

// The 32 bits of one packed group of A (4 bytes or 2 int16), to broadcast.
inline int32_t LoadGroup(const void* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Adds the zero-point terms and stores (or accumulates) one row of a tile: the epilogue every
// kernel shares for the values it has already summed into `sums`.
inline void StoreInt8Row(const int32_t* sums, int32_t* c, int cols, bool accumulate,
                         int32_t row_term, const int32_t* col_offset) {
  for (int j = 0; j < cols; ++j) {
    uint32_t v = static_cast<uint32_t>(sums[j]);
    if (accumulate) v += static_cast<uint32_t>(c[j]);
    if (col_offset != nullptr) {
      v += static_cast<uint32_t>(row_term) + static_cast<uint32_t>(col_offset[j]);
    }
    c[j] = static_cast<int32_t>(v);
  }
}

Int8KernelInfo ScalarInt8Kernel();      // portable C++, 4 x 8
Int8KernelInfo Avx2Int8Kernel();        // AVX2 vpmaddwd on int16, 6 x 16
Int8KernelInfo AvxVnniInt8Kernel();     // AVX-VNNI vpdpbusd on ymm, 6 x 16
Int8KernelInfo Avx512VnniInt8Kernel();  // AVX-512 VNNI vpdpbusd on zmm, 14 x 32

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_MICRO_KERNEL_H_
