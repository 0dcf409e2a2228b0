// AVX-512 VNNI 8-bit micro-kernel, 14 x 32: twenty-eight zmm accumulators, two zmm of B (32
// columns x 4 steps) a group and one broadcast of A's 4 bytes (31 of the 32 registers). Each
// vpdpbusd does 64 multiply-adds. Compiled with -mavx512f -mavx512bw -mavx512vnni and no FMA
// contraction, for the requantizing epilogue's float operations (see BUILD).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "swigflow/kernels/gemm/int8_micro_kernel.h"
#include "swigflow/kernels/gemm/int8_requantize_avx512.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 14, kNr = 32, kGroup = 4;

// Every function below is instantiated for each tile height kRows <= kMr and width kVecs (16
// columns a vector): an edge tile sums only the rows and columns it stores. M = 256 in slivers
// of 14 would otherwise multiply 266 rows, N = 1000 in slivers of 32 1024 columns.

// A tile's column masks (cols of its 16 * kVecs columns) and, when given, its columns' offsets.
template <int kVecs>
struct TileColumns {
  __mmask16 m0, m1;
  __m512i col0 = _mm512_setzero_si512(), col1 = _mm512_setzero_si512();
  const int32_t* row_offset;  // null: no offsets

  TileColumns(int cols, const int32_t* row_offsets, const int32_t* col_offset)
      : m0(static_cast<__mmask16>(cols >= 16 ? 0xffff : (1u << cols) - 1)),
        m1(static_cast<__mmask16>(cols >= 32  ? 0xffff
                                  : cols > 16 ? (1u << (cols - 16)) - 1
                                              : 0)),
        row_offset(col_offset != nullptr ? row_offsets : nullptr) {
    if (col_offset != nullptr) {
      col0 = _mm512_maskz_loadu_epi32(m0, col_offset);
      if (kVecs == 2) col1 = _mm512_maskz_loadu_epi32(m1, col_offset + 16);
    }
  }
  // Row i's sums plus row_offset[i] + col_offset[j], when there are offsets.
  void AddOffsets(int i, __m512i* r0, __m512i* r1) const {
    if (row_offset == nullptr) return;
    const __m512i row = _mm512_set1_epi32(row_offset[i]);
    *r0 = _mm512_add_epi32(*r0, _mm512_add_epi32(row, col0));
    if (kVecs == 2) *r1 = _mm512_add_epi32(*r1, _mm512_add_epi32(row, col1));
  }
};

// Adds the zero-point terms and stores (or accumulates) the tile's top-left rows x cols.
template <int kRows, int kVecs>
inline void StoreTile(__m512i (&acc)[kMr][2], int32_t* c, int64_t ldc, int cols, bool accumulate,
                      const int32_t* row_offset, const int32_t* col_offset) {
  const TileColumns<kVecs> columns(cols, row_offset, col_offset);
  // Unrolled with constant indexes, as every loop over acc: a runtime index makes GCC keep the
  // tile in memory and spill it in the K loop (Zen 4, 1024^3: 300 -> 674 GOP/s).
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
    int32_t* ci = c + i * ldc;
    __m512i r0 = acc[i][0], r1 = acc[i][1];
    if (accumulate) {
      r0 = _mm512_add_epi32(r0, _mm512_maskz_loadu_epi32(columns.m0, ci));
      if (kVecs == 2) r1 = _mm512_add_epi32(r1, _mm512_maskz_loadu_epi32(columns.m1, ci + 16));
    }
    columns.AddOffsets(i, &r0, &r1);
    _mm512_mask_storeu_epi32(ci, columns.m0, r0);
    if (kVecs == 2) _mm512_mask_storeu_epi32(ci + 16, columns.m1, r1);
  }
}

template <int kRows>
inline void PrefetchTile(const int32_t* c, int64_t ldc) {
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr - 1), _MM_HINT_T0);
  }
}

// One group of K steps into the tile: B's vectors for the group, A's row i at row(i).
template <int kRows, int kVecs, typename RowGroup>
inline void MultiplyGroup(__m512i (&acc)[kMr][2], const __m512i* b, const RowGroup& row) {
  const __m512i b0 = _mm512_loadu_si512(b);
  const __m512i b1 = kVecs == 2 ? _mm512_loadu_si512(b + 1) : _mm512_setzero_si512();
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
    const __m512i ai = _mm512_set1_epi32(LoadGroup(row(i)));
    acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
    if (kVecs == 2) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
  }
}

// acc = the tile's sums over packed A.
template <int kRows, int kVecs>
inline void SumPacked(__m512i (&acc)[kMr][2], int64_t groups, const uint8_t* a, const __m512i* b) {
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g, a += kMr * kGroup, b += 2) {
    MultiplyGroup<kRows, kVecs>(acc, b, [a](int i) { return a + i * kGroup; });
  }
}

// acc = the tile's sums over rows read in place: the same sums in the same order as SumPacked
// over their packed copy.
template <int kRows, int kVecs>
inline void SumRuns(__m512i (&acc)[kMr][2], const Int8RowRuns& a, const __m512i* b) {
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (int t = 0; t < a.runs; ++t) {
    const uint8_t* row[kRows];
#pragma GCC unroll 16
    for (int i = 0; i < kRows; ++i) {
      row[i] =
          reinterpret_cast<const uint8_t*>(a.origins[i] + static_cast<uintptr_t>(a.offsets[i][t]));
    }
    for (int64_t g = 0; g < a.groups; ++g, b += 2) {
      MultiplyGroup<kRows, kVecs>(acc, b, [&row, g](int i) { return row[i] + g * kGroup; });
    }
  }
}

// The tile's rows x cols requantized (Int8Requantize) after the offsets, when given.
template <int kRows, int kVecs>
inline void RequantizeTile(__m512i (&acc)[kMr][2], const Int8Requantize& q, int cols,
                           const int32_t* row_offset, const int32_t* col_offset) {
  const TileColumns<kVecs> columns(cols, row_offset, col_offset);
  const __m512 inverse = _mm512_set1_ps(q.inverse_output);
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
    __m512i r0 = acc[i][0], r1 = acc[i][1];
    columns.AddOffsets(i, &r0, &r1);
    uint8_t* out = q.out + i * q.ldo;
    RequantizeSixteen(r0, q.scale, q.bias, inverse, columns.m0, out);
    if (kVecs == 2) RequantizeSixteen(r1, q.scale + 16, q.bias + 16, inverse, columns.m1, out + 16);
  }
}

template <int kRows, int kVecs>
void Kernel(int64_t groups, const void* a, const void* b, int32_t* c, int64_t ldc, int cols,
            bool accumulate, const int32_t* row_offset, const int32_t* col_offset) {
  __m512i acc[kMr][2];
  PrefetchTile<kRows>(c, ldc);
  SumPacked<kRows, kVecs>(acc, groups, static_cast<const uint8_t*>(a),
                          static_cast<const __m512i*>(b));
  StoreTile<kRows, kVecs>(acc, c, ldc, cols, accumulate, row_offset, col_offset);
}

template <int kRows, int kVecs>
void RowsKernel(const Int8RowRuns& a, const void* b, int32_t* c, int64_t ldc, int cols,
                bool accumulate, const int32_t* row_offset, const int32_t* col_offset) {
  __m512i acc[kMr][2];
  PrefetchTile<kRows>(c, ldc);
  SumRuns<kRows, kVecs>(acc, a, static_cast<const __m512i*>(b));
  StoreTile<kRows, kVecs>(acc, c, ldc, cols, accumulate, row_offset, col_offset);
}

template <int kRows, int kVecs>
void RequantizingKernel(int64_t groups, const void* a, const void* b, const Int8Requantize& q,
                        int cols, const int32_t* row_offset, const int32_t* col_offset) {
  __m512i acc[kMr][2];
  SumPacked<kRows, kVecs>(acc, groups, static_cast<const uint8_t*>(a),
                          static_cast<const __m512i*>(b));
  RequantizeTile<kRows, kVecs>(acc, q, cols, row_offset, col_offset);
}

template <int kRows, int kVecs>
void RequantizingRowsKernel(const Int8RowRuns& a, const void* b, const Int8Requantize& q, int cols,
                            const int32_t* row_offset, const int32_t* col_offset) {
  __m512i acc[kMr][2];
  SumRuns<kRows, kVecs>(acc, a, static_cast<const __m512i*>(b));
  RequantizeTile<kRows, kVecs>(acc, q, cols, row_offset, col_offset);
}

// Tables of the instantiations, [rows - 1][vectors - 1].
template <int... kRows>
struct Instances {
  using KernelFn = void (*)(int64_t, const void*, const void*, int32_t*, int64_t, int, bool,
                            const int32_t*, const int32_t*);
  using RowsFn = void (*)(const Int8RowRuns&, const void*, int32_t*, int64_t, int, bool,
                          const int32_t*, const int32_t*);
  using RequantizingFn = void (*)(int64_t, const void*, const void*, const Int8Requantize&, int,
                                  const int32_t*, const int32_t*);
  using RequantizingRowsFn = void (*)(const Int8RowRuns&, const void*, const Int8Requantize&, int,
                                      const int32_t*, const int32_t*);
  static constexpr KernelFn kKernels[][2] = {{Kernel<kRows, 1>, Kernel<kRows, 2>}...};
  static constexpr RowsFn kRowsKernels[][2] = {{RowsKernel<kRows, 1>, RowsKernel<kRows, 2>}...};
  static constexpr RequantizingFn kRequantizing[][2] = {
      {RequantizingKernel<kRows, 1>, RequantizingKernel<kRows, 2>}...};
  static constexpr RequantizingRowsFn kRequantizingRows[][2] = {
      {RequantizingRowsKernel<kRows, 1>, RequantizingRowsKernel<kRows, 2>}...};
};
using Tiles = Instances<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14>;

void AnyKernel(int64_t groups, const void* a, const void* b, int32_t* c, int64_t ldc, int rows,
               int cols, bool accumulate, const int32_t* row_offset, const int32_t* col_offset) {
  Tiles::kKernels[rows - 1][cols > 16](groups, a, b, c, ldc, cols, accumulate, row_offset,
                                       col_offset);
}

void AnyRowsKernel(const Int8RowRuns& a, const void* b, int32_t* c, int64_t ldc, int rows, int cols,
                   bool accumulate, const int32_t* row_offset, const int32_t* col_offset) {
  Tiles::kRowsKernels[rows - 1][cols > 16](a, b, c, ldc, cols, accumulate, row_offset, col_offset);
}

void AnyRequantizingKernel(int64_t groups, const void* a, const void* b, const Int8Requantize& q,
                           int rows, int cols, const int32_t* row_offset,
                           const int32_t* col_offset) {
  Tiles::kRequantizing[rows - 1][cols > 16](groups, a, b, q, cols, row_offset, col_offset);
}

void AnyRequantizingRowsKernel(const Int8RowRuns& a, const void* b, const Int8Requantize& q,
                               int rows, int cols, const int32_t* row_offset,
                               const int32_t* col_offset) {
  Tiles::kRequantizingRows[rows - 1][cols > 16](a, b, q, cols, row_offset, col_offset);
}

}  // namespace

Int8KernelInfo Avx512VnniInt8Kernel() {
  return {"avx512_vnni",
          kMr,
          kNr,
          kGroup,
          Int8Element::kBytes,
          AnyKernel,
          AnyRowsKernel,
          AnyRequantizingKernel,
          AnyRequantizingRowsKernel};
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
