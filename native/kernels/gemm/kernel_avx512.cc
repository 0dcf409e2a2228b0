// AVX-512 micro-kernel, 14 x 32: twenty-eight zmm accumulators, two zmm of B per step and one
// broadcast of A (31 of the 32 registers). Edge tiles use masked loads and stores. Compiled
// with -mavx512f (see BUILD).
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#include "swigflow/kernels/gemm/micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace gemm {
namespace {

constexpr int kMr = 14, kNr = 32;

// Row i of a tile read in place is kScale[i] rows (0, 1, 2, 4 or 8: x86's address scales) after
// base kBase[i] (bases at rows 0, 3, 6, 9 and 12).
constexpr int kBase[kMr] = {0, 0, 0, 1, 0, 1, 2, 1, 0, 3, 2, 1, 4, 3};
constexpr int kScale[kMr] = {0, 1, 2, 0, 4, 2, 0, 4, 8, 0, 4, 8, 0, 4};

// One body for the three layouts of A, for batches of items and for every tile height (see
// micro_kernel.h): a tile of kHeight rows does kHeight rows' work, so edge tiles and short products
// (M = 32 is 14 + 14 + 4) cost what they compute.
template <Layout kLayout, int kHeight>
void TileOf(const BatchItem* items, int count, float* c, int64_t ldc, int cols, bool accumulate) {
  __m512 acc[kHeight][2];
  // Fully unrolled row loops keep every accumulator in a register (GCC does not unroll them
  // on its own and would keep the tile in memory).
#pragma GCC unroll 16
  for (int i = 0; i < kHeight; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  // The C tile is stored (and read, when accumulating) after the loop: fetch it meanwhile (2-4%
  // on Zen 4 from 1024^3 up). Prefetching packed A ahead gained nothing there: the hardware
  // prefetchers follow its stream.
#pragma GCC unroll 16
  for (int i = 0; i < kHeight; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr - 1), _MM_HINT_T0);
  }
  for (int t = 0; t < count; ++t) {
    const float* a = items[t].a;
    const float* b = items[t].b;
    const int64_t lda = items[t].lda, kc = items[t].kc;
    const int64_t ldb = items[t].ldb > 0 ? items[t].ldb : kNr;
    // Rows in place: row i is base[kBase[i]][kScale[i] * lda] with five bases three rows apart,
    // so that one register of lda and x86's scaled addressing reach all fourteen rows (with a
    // pointer per row, four of them were reloaded from the stack at every step).
    const float* base[5];
#pragma GCC unroll 8
    for (int r = 0; r < 5; ++r) base[r] = kLayout == kRows && 3 * r < kHeight ? a + 3 * r * lda : a;
    for (int64_t p = 0; p < kc; ++p, b += ldb) {
      const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
      for (int i = 0; i < kHeight; ++i) {
        const __m512 ai = _mm512_set1_ps(kLayout == kRows    ? base[kBase[i]][kScale[i] * lda]
                                         : kLayout == kSteps ? a[p * lda + i]
                                                             : a[p * kMr + i]);
        acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
      }
      if (kLayout == kRows) {
#pragma GCC unroll 8
        for (auto& row : base) ++row;
      }
    }
  }
  // Columns [0, 16) and [16, 32) of the tile, masked to the valid ones.
  const __mmask16 m0 = static_cast<__mmask16>(cols >= 16 ? 0xffff : (1u << cols) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(cols >= 32  ? 0xffff
                                              : cols > 16 ? (1u << (cols - 16)) - 1
                                                          : 0);
#pragma GCC unroll 16
  for (int i = 0; i < kHeight; ++i) {
    float* ci = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_maskz_loadu_ps(m0, ci));
      acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_maskz_loadu_ps(m1, ci + 16));
    }
    _mm512_mask_storeu_ps(ci, m0, acc[i][0]);
    _mm512_mask_storeu_ps(ci + 16, m1, acc[i][1]);
  }
}

using TileFn = void (*)(const BatchItem*, int, float*, int64_t, int, bool);

template <Layout kLayout, int... kHeights>
constexpr std::array<TileFn, kMr> Heights(std::integer_sequence<int, kHeights...>) {
  return {TileOf<kLayout, kHeights + 1>...};
}

template <Layout kLayout>
void Tile(const BatchItem* items, int count, float* c, int64_t ldc, int rows, int cols,
          bool accumulate) {
  static constexpr std::array<TileFn, kMr> kTiles =
      Heights<kLayout>(std::make_integer_sequence<int, kMr>());
  kTiles[rows - 1](items, count, c, ldc, cols, accumulate);
}

struct FmaOps {
  using Vector = __m512;
  static constexpr int kLanes = 16;
  static __m512 Set1(float x) { return _mm512_set1_ps(x); }
  static __m512 Fma(__m512 x, __m512 y, __m512 z) { return _mm512_fmadd_ps(x, y, z); }
};

SWIGFLOW_MICRO_KERNEL_ENTRY_POINTS

}  // namespace

KernelInfo Avx512Kernel() { return Describe(); }

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow
