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

// out = w0 * row0 + w1 * row1 + ...: the same additions in the same order for every n, so the
// fixed-n loops below agree with the generic one bit for bit.
template <typename T, int N>
void RowsFixed(const T* __restrict first, int64_t stride, int64_t length, const float* __restrict w,
               float* __restrict out) {
  float wk[N];
  for (int k = 0; k < N; ++k) wk[k] = w[k];
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

template <bool kPlanar>
void Columns(const float* row, int channels, const int64_t* start, const float* w, int n,
             int64_t out_width, float* out) {
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

// Stores run on vectors as wide as the build's registers: scalar clamps and conversions compile
// to branches, which mispredict on photographs.
#if defined(__AVX2__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float FV __attribute__((vector_size(kLanes * sizeof(float))));

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
    /*store_u8=*/Store<uint8_t>,
    /*store_u16=*/Store<uint16_t>,
    /*store_f32=*/Store<float>,
};

}  // namespace SWIGFLOW_RESIZE_ISA
}  // namespace image
}  // namespace swigflow
