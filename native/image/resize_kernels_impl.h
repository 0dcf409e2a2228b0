// The loops of resize_kernels.h, included once per instruction set by resize_kernels_<isa>.cc
// with SWIGFLOW_RESIZE_ISA naming the namespace. Everything here has internal linkage or lives
// in that namespace, and calls no inline library function: an inline function compiled with
// -mavx2 could otherwise be picked by the linker for the SSE2 build as well.
#ifndef SWIGFLOW_RESIZE_ISA
#error "define SWIGFLOW_RESIZE_ISA before including resize_kernels_impl.h"
#endif

#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "swigflow/image/resize_kernels.h"

namespace swigflow {
namespace image {
namespace SWIGFLOW_RESIZE_ISA {
namespace {

// Vector widths of the build. The row loops use whole registers. The stores and the colour
// conversion use 8 lanes from AVX2 up (their packs and shuffles are AVX2's): scalar clamps and
// conversions would compile to branches, which mispredict on photographs.
#if defined(__AVX512F__)
constexpr int kRowLanes = 16, kLanes = 8;
#elif defined(__AVX2__)
constexpr int kRowLanes = 8, kLanes = 8;
#else
constexpr int kRowLanes = 4, kLanes = 4;
#endif
typedef float RowV __attribute__((vector_size(kRowLanes * sizeof(float))));
typedef float FV __attribute__((vector_size(kLanes * sizeof(float))));

// kRowLanes samples as floats (GCC scalarizes __builtin_convertvector from byte vectors).
template <typename T>
inline RowV LoadRow(const T* p) {
  RowV v;
  if constexpr (std::is_same_v<T, float>) {
    __builtin_memcpy(&v, p, sizeof(v));
#if defined(__AVX512F__)
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    // The zero-masking forms: the plain ones start from _mm512_undefined, which GCC 12
    // reports as maybe-uninitialized.
    const __mmask16 all = 0xFFFF;
    v = reinterpret_cast<RowV>(_mm512_maskz_cvtepi32_ps(
        all,
        _mm512_maskz_cvtepu8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))));
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    const __mmask16 all = 0xFFFF;
    v = reinterpret_cast<RowV>(_mm512_maskz_cvtepi32_ps(
        all,
        _mm512_maskz_cvtepu16_epi32(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))));
#elif defined(__AVX2__)
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    v = reinterpret_cast<RowV>(_mm256_cvtepi32_ps(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))));
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    v = reinterpret_cast<RowV>(_mm256_cvtepi32_ps(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))));
#elif defined(__SSE2__)
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    int32_t word;
    __builtin_memcpy(&word, p, sizeof(word));
    const __m128i zero = _mm_setzero_si128();
    const __m128i bytes = _mm_cvtsi32_si128(word);
    v = reinterpret_cast<RowV>(
        _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(bytes, zero), zero)));
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    const __m128i words = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    v = reinterpret_cast<RowV>(_mm_cvtepi32_ps(_mm_unpacklo_epi16(words, _mm_setzero_si128())));
#endif
  } else {
    for (int k = 0; k < kRowLanes; ++k) v[k] = static_cast<float>(p[k]);
  }
  return v;
}

// out = w0 * row0 + w1 * row1 + ...: the same additions in the same order for every n, so the
// fixed-n loops below agree with the generic one bit for bit. Whole vectors only: the last one
// ends at `length`, overlapping the one before it (whose values it computes again, the same),
// instead of a scalar tail (which cost a fifth of a 250-sample row).
template <typename T, int N>
void RowsFixed(const T* __restrict first, int64_t stride, int64_t length, const float* __restrict w,
               float* __restrict out) {
  float wk[N];
  for (int k = 0; k < N; ++k) wk[k] = w[k];
  if (length >= kRowLanes) {
    for (int64_t i = 0;; i += kRowLanes) {
      if (i > length - kRowLanes) i = length - kRowLanes;
      RowV acc = wk[0] * LoadRow(first + i);
      for (int k = 1; k < N; ++k) acc += wk[k] * LoadRow(first + k * stride + i);
      __builtin_memcpy(out + i, &acc, sizeof(acc));
      if (i == length - kRowLanes) return;
    }
  }
  for (int64_t i = 0; i < length; ++i) {
    float acc = wk[0] * static_cast<float>(first[i]);
    for (int k = 1; k < N; ++k) acc += wk[k] * static_cast<float>(first[k * stride + i]);
    out[i] = acc;
  }
}

template <typename T>
void Rows(const T* first, int64_t stride, int64_t length, const float* w, int n, float* out) {
  switch (n) {
    case 1:
      return RowsFixed<T, 1>(first, stride, length, w, out);
    case 2:
      return RowsFixed<T, 2>(first, stride, length, w, out);
    case 3:
      return RowsFixed<T, 3>(first, stride, length, w, out);
    case 4:
      return RowsFixed<T, 4>(first, stride, length, w, out);
  }
  RowsFixed<T, 1>(first, stride, length, w, out);
  for (int k = 1; k < n; ++k) {
    const T* __restrict row = first + k * stride;
    const float wk = w[k];
    float* __restrict o = out;
    for (int64_t i = 0; i < length; ++i) o[i] += wk * static_cast<float>(row[i]);
  }
}

// One RGB pixel in the first three lanes of a vector (GCC's vector extensions: SSE registers
// on x86, NEON elsewhere); the fourth lane carries the next sample along and is overwritten.
typedef float F4 __attribute__((vector_size(16)));

inline F4 Load4(const float* p) {
  F4 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

// Interleaved output: out[o * 3 + c]; planar: out[c * out_width + o].
template <int N, bool kPlanar>
void Columns3(const float* __restrict row, const int64_t* start, const float* w, int n,
              int64_t out_width, float* __restrict out) {
  const int taps = N > 0 ? N : n;
  for (int64_t o = 0; o < out_width; ++o) {
    const float* s = row + start[o] * 3;
    const float* wo = w + o * taps;
    F4 acc = wo[0] * Load4(s);
    for (int k = 1; k < taps; ++k) acc += wo[k] * Load4(s + 3 * k);
    if constexpr (kPlanar) {
      out[o] = acc[0];
      out[out_width + o] = acc[1];
      out[2 * out_width + o] = acc[2];
    } else {
      __builtin_memcpy(out + o * 3, &acc, sizeof(acc));  // lane 3: the next pixel writes over it
    }
  }
}

template <bool kPlanar>
void ColumnsAny(const float* __restrict row, int channels, const int64_t* start, const float* w,
                int n, int64_t out_width, float* __restrict out) {
  for (int64_t o = 0; o < out_width; ++o) {
    const float* s = row + start[o] * channels;
    const float* wo = w + o * n;
    for (int c = 0; c < channels; ++c) {
      float acc = wo[0] * s[c];
      for (int k = 1; k < n; ++k) acc += wo[k] * s[k * channels + c];
      out[kPlanar ? c * out_width + o : o * channels + c] = acc;
    }
  }
}

template <int N>
void Columns1(const float* __restrict row, const int64_t* start, const float* w, int64_t out_width,
              float* __restrict out) {
  for (int64_t o = 0; o < out_width; ++o) {
    const float* s = row + start[o];
    const float* wo = w + o * N;
    float acc = wo[0] * s[0];
    for (int k = 1; k < N; ++k) acc += wo[k] * s[k];
    out[o] = acc;
  }
}

template <bool kPlanar>
void Columns(const float* row, int channels, const int64_t* start, const float* w, int n,
             int64_t out_width, float* out) {
  if (channels == 1 && n == 1) return Columns1<1>(row, start, w, out_width, out);
  if (channels == 1 && n == 2) return Columns1<2>(row, start, w, out_width, out);
  if (channels == 3) {
    switch (n) {
      case 1:
        return Columns3<1, kPlanar>(row, start, w, n, out_width, out);
      case 2:
        return Columns3<2, kPlanar>(row, start, w, n, out_width, out);
      case 4:
        return Columns3<4, kPlanar>(row, start, w, n, out_width, out);
      default:
        return Columns3<0, kPlanar>(row, start, w, n, out_width, out);
    }
  }
  ColumnsAny<kPlanar>(row, channels, start, w, n, out_width, out);
}

#if defined(__AVX512F__)
constexpr int kGroupLanes = 16;

void ColumnsGrouped(const float* row, int per_group, const int32_t* base, const int32_t* rel,
                    const float* w0, const float* w1, int64_t groups, float* out) {
  const __m512i one = _mm512_set1_epi32(1);
  for (int64_t g = 0; g < groups; ++g) {
    const float* s = row + base[g];
    const __m512 lo = _mm512_loadu_ps(s), hi = _mm512_loadu_ps(s + 16);
    // 8 outputs: the low half of every vector (masked loads and stores).
    const __mmask16 m = per_group == 16 ? 0xFFFF : 0x00FF;
    const int64_t o = g * per_group;
    const __m512i i = _mm512_maskz_loadu_epi32(m, rel + o);
    const __m512 a = _mm512_permutex2var_ps(lo, i, hi);
    const __m512 b = _mm512_permutex2var_ps(lo, _mm512_add_epi32(i, one), hi);
    _mm512_mask_storeu_ps(out + o, m,
                          _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, w0 + o), a),
                                        _mm512_mul_ps(_mm512_maskz_loadu_ps(m, w1 + o), b)));
  }
}
#elif defined(__AVX2__)
constexpr int kGroupLanes = 8;

// row[base + i] for i < 16 from two 8-float vectors: vpermps reads the low 3 bits of i.
inline __m256 Pick16(__m256 lo, __m256 hi, __m256i i) {
  const __m256 upper = _mm256_castsi256_ps(_mm256_cmpgt_epi32(i, _mm256_set1_epi32(7)));
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, i), _mm256_permutevar8x32_ps(hi, i), upper);
}

void ColumnsGrouped(const float* row, int per_group, const int32_t* base, const int32_t* rel,
                    const float* w0, const float* w1, int64_t groups, float* out) {
  (void)per_group;  // always 8
  const __m256i one = _mm256_set1_epi32(1);
  for (int64_t g = 0; g < groups; ++g) {
    const float* s = row + base[g];
    const __m256 lo = _mm256_loadu_ps(s), hi = _mm256_loadu_ps(s + 8);
    const int64_t o = g * 8;
    const __m256i i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rel + o));
    const __m256 a = Pick16(lo, hi, i);
    const __m256 b = Pick16(lo, hi, _mm256_add_epi32(i, one));
    _mm256_storeu_ps(out + o, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(w0 + o), a),
                                            _mm256_mul_ps(_mm256_loadu_ps(w1 + o), b)));
  }
}
#else
constexpr int kGroupLanes = 0;
constexpr void (*ColumnsGrouped)(const float*, int, const int32_t*, const int32_t*, const float*,
                                 const float*, int64_t, float*) = nullptr;
#endif

// libjpeg's YCbCr -> RGB coefficients (jdcolor.c's FIX constants).
constexpr float kCrToR = 1.40200f, kCbToG = -0.34414f, kCrToG = -0.71414f, kCbToB = 1.77200f;

template <bool kPlanar>
void YccToRgb(const float* __restrict y, const float* __restrict cb, const float* __restrict cr,
              int64_t n, float* __restrict out) {
  for (int64_t i = 0; i < n; ++i) {
    const float u = cb[i] - 128.0f, v = cr[i] - 128.0f;
    const float r = y[i] + kCrToR * v;
    const float g = y[i] + kCbToG * u + kCrToG * v;
    const float b = y[i] + kCbToB * u;
    if constexpr (kPlanar) {
      out[i] = r;
      out[n + i] = g;
      out[2 * n + i] = b;
    } else {
      out[3 * i] = r;
      out[3 * i + 1] = g;
      out[3 * i + 2] = b;
    }
  }
}

void ToRgb(const float* y, const float* cb, const float* cr, int64_t n, bool planar, float* out) {
  if (cb != nullptr) {
    return planar ? YccToRgb<true>(y, cb, cr, n, out) : YccToRgb<false>(y, cb, cr, n, out);
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) out[planar ? c * n + i : 3 * i + c] = y[i];
  }
}

// Rounds half up and saturates (the values are finite); integer types only.
template <typename T>
inline T Saturate(float v) {
  constexpr float kMax = static_cast<float>(T(~T(0)));
  float c = v < 0.0f ? 0.0f : v;
  c = c > kMax ? kMax : c;
  return static_cast<T>(c + 0.5f);
}

template <typename T>
inline T Convert(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return Saturate<T>(v);
  }
}

inline FV LoadV(const float* p) {
  FV v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

// How a store applies scale and bias: not at all, one value per element, or one for the run.
enum class Affine { kNone, kPerElement, kBroadcast };

template <Affine A>
inline FV AffineV(const float* v, int64_t i, const float* scale, const float* bias) {
  const FV x = LoadV(v + i);
  if constexpr (A == Affine::kPerElement) return x * LoadV(scale + i) + LoadV(bias + i);
  if constexpr (A == Affine::kBroadcast) return x * scale[0] + bias[0];
  return x;
}

template <Affine A>
inline float AffineS(const float* v, int64_t i, const float* scale, const float* bias) {
  if constexpr (A == Affine::kPerElement) return v[i] * scale[i] + bias[i];
  if constexpr (A == Affine::kBroadcast) return v[i] * scale[0] + bias[0];
  return v[i];
}

// Clamped to [0, 255] plus one half: truncation then rounds half up.
inline FV ClampRoundV(FV x) {
  const FV zero = {}, top = zero + 255.0f;
  x = x < zero ? zero : x;
  x = x > top ? top : x;
  return x + 0.5f;
}

// 2 * kLanes values in [0, 256) to bytes: truncating conversions, then the saturating packs
// (exact: every value is in range).
inline void NarrowU8(FV a, FV b, uint8_t* dst) {
#if defined(__AVX2__)
  const __m256i ia = _mm256_cvttps_epi32(reinterpret_cast<__m256>(a));
  const __m256i ib = _mm256_cvttps_epi32(reinterpret_cast<__m256>(b));
  const __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32(ia, ib), 0xD8);
  const __m128i bytes =
      _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), bytes);
#elif defined(__SSE2__)
  const __m128i words = _mm_packs_epi32(_mm_cvttps_epi32(reinterpret_cast<__m128>(a)),
                                        _mm_cvttps_epi32(reinterpret_cast<__m128>(b)));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_packus_epi16(words, words));
#else
  for (int k = 0; k < kLanes; ++k) {
    dst[k] = static_cast<uint8_t>(a[k]);
    dst[kLanes + k] = static_cast<uint8_t>(b[k]);
  }
#endif
}

#if defined(__AVX2__)
// 8 pixels per step: R, G, B as in YccToRgb, rounded as Store<uint8_t>, packed to bytes and
// interleaved by a byte shuffle per 128-bit lane (4 pixels each). Each lane's 16-byte store
// writes 4 bytes past its 12, which the next store (or the scalar tail: at least 2 pixels are
// left for it) overwrites.
void YccToRgbU8(const float* __restrict y, const float* __restrict cb, const float* __restrict cr,
                int64_t n, uint8_t* __restrict dst) {
  const __m256i interleave = _mm256_setr_epi8(  // [r0..3 g0..3 b0..3 b0..3] -> r0 g0 b0 r1 ...
      0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11,
      -1, -1, -1, -1);
  int64_t i = 0;
  for (; i + 10 <= n; i += 8) {
    const FV u = LoadV(cb + i) - 128.0f, v = LoadV(cr + i) - 128.0f, l = LoadV(y + i);
    // No clamp before the truncating conversion: the saturating packs give Store's bytes, as
    // the values are within a few hundred of [0, 255] (samples are bytes, the taps convex).
    const FV r = (l + kCrToR * v) + 0.5f;
    const FV g = (l + kCbToG * u + kCrToG * v) + 0.5f;
    const FV b = (l + kCbToB * u) + 0.5f;
    const __m256i ri = _mm256_cvttps_epi32(reinterpret_cast<__m256>(r));
    const __m256i gi = _mm256_cvttps_epi32(reinterpret_cast<__m256>(g));
    const __m256i bi = _mm256_cvttps_epi32(reinterpret_cast<__m256>(b));
    const __m256i bytes =
        _mm256_packus_epi16(_mm256_packus_epi32(ri, gi), _mm256_packus_epi32(bi, bi));
    const __m256i pixels = _mm256_shuffle_epi8(bytes, interleave);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * i), _mm256_castsi256_si128(pixels));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * i + 12),
                     _mm256_extracti128_si256(pixels, 1));
  }
  for (; i < n; ++i) {
    const float u = cb[i] - 128.0f, v = cr[i] - 128.0f;
    dst[3 * i] = Saturate<uint8_t>(y[i] + kCrToR * v);
    dst[3 * i + 1] = Saturate<uint8_t>(y[i] + kCbToG * u + kCrToG * v);
    dst[3 * i + 2] = Saturate<uint8_t>(y[i] + kCbToB * u);
  }
}
#else
constexpr void (*YccToRgbU8)(const float*, const float*, const float*, int64_t, uint8_t*) = nullptr;
#endif

template <typename T, Affine A>
void StoreContiguous(const float* __restrict v, int64_t count, const float* scale,
                     const float* bias, T* __restrict dst) {
  int64_t i = 0;
  if constexpr (std::is_same_v<T, uint8_t>) {
    for (; i + 2 * kLanes <= count; i += 2 * kLanes) {
      NarrowU8(ClampRoundV(AffineV<A>(v, i, scale, bias)),
               ClampRoundV(AffineV<A>(v, i + kLanes, scale, bias)), dst + i);
    }
  } else if constexpr (std::is_same_v<T, float>) {
    for (; i + kLanes <= count; i += kLanes) {
      const FV x = AffineV<A>(v, i, scale, bias);
      __builtin_memcpy(dst + i, &x, sizeof(x));
    }
  }
  for (; i < count; ++i) dst[i] = Convert<T>(AffineS<A>(v, i, scale, bias));
}

template <typename T>
void Store(const float* __restrict v, int64_t v_stride, int64_t count, const float* scale,
           const float* bias, int64_t sb_stride, T* __restrict dst) {
  if (v_stride == 1) {  // the layouts Resize produces get loops that vectorize
    if (scale == nullptr) return StoreContiguous<T, Affine::kNone>(v, count, scale, bias, dst);
    if (sb_stride == 1) return StoreContiguous<T, Affine::kPerElement>(v, count, scale, bias, dst);
    if (sb_stride == 0) return StoreContiguous<T, Affine::kBroadcast>(v, count, scale, bias, dst);
  }
  for (int64_t i = 0; i < count; ++i) {
    const float x = v[i * v_stride];
    dst[i] = Convert<T>(scale != nullptr ? x * scale[i * sb_stride] + bias[i * sb_stride] : x);
  }
}

}  // namespace

extern const ResizeKernels kResizeKernels = {
    /*rows_u8=*/Rows<uint8_t>,
    /*rows_u16=*/Rows<uint16_t>,
    /*rows_f32=*/Rows<float>,
    /*columns=*/Columns<false>,
    /*columns_planar=*/Columns<true>,
    /*group_lanes=*/kGroupLanes,
    /*columns_grouped=*/ColumnsGrouped,
    /*to_rgb=*/ToRgb,
    /*to_rgb_u8=*/YccToRgbU8,
    /*store_u8=*/Store<uint8_t>,
    /*store_u16=*/Store<uint16_t>,
    /*store_f32=*/Store<float>,
};

}  // namespace SWIGFLOW_RESIZE_ISA
}  // namespace image
}  // namespace swigflow
