// The inner loops of Resize (resize.h), the only ISA-specific part of it: one source,
// resize_kernels_impl.h, compiled once for baseline SSE2 and once with -mavx2, chosen at run time
// from CPUID (cpu_info.h). The loops are written for the compiler's vectorizer, so both builds
// compute the same float operations in the same order: results are bit-identical on every
// machine (no FMA contraction: -mfma is not given).
#ifndef SWIGFLOW_IMAGE_RESIZE_KERNELS_H_
#define SWIGFLOW_IMAGE_RESIZE_KERNELS_H_

#include <cstdint>

#include "swigflow/framework/cpu_info.h"

namespace swigflow {
namespace image {

// Floats the row buffers passed to `columns` must have readable (and `out` writable) past their
// last element: the 3-channel loop moves whole 4-float vectors.
constexpr int kResizeRowPadding = 4;

struct ResizeKernels {
  // Vertical pass: out[i] = sum_{k < n} w[k] * first[k * stride + i] for i < length.
  void (*rows_u8)(const uint8_t* first, int64_t stride, int64_t length, const float* w, int n,
                  float* out);
  void (*rows_u16)(const uint16_t* first, int64_t stride, int64_t length, const float* w, int n,
                   float* out);
  void (*rows_f32)(const float* first, int64_t stride, int64_t length, const float* w, int n,
                   float* out);
  // Horizontal pass over one row of interleaved pixels: for o < out_width and c < channels,
  // out[o * channels + c] = sum_{k < n} w[o * n + k] * row[(start[o] + k) * channels + c].
  void (*columns)(const float* row, int channels, const int64_t* start, const float* w, int n,
                  int64_t out_width, float* out);
  // The same into planes: out[c * out_width + o].
  void (*columns_planar)(const float* row, int channels, const int64_t* start, const float* w,
                         int n, int64_t out_width, float* out);
  // Store: dst[i] = v[i * v_stride] * scale[i * sb_stride] + bias[i * sb_stride] for i < count
  // (scale == nullptr: v alone), integers rounded half up and saturated. Vectorized for
  // v_stride 1 and sb_stride 0 or 1.
  void (*store_u8)(const float* v, int64_t v_stride, int64_t count, const float* scale,
                   const float* bias, int64_t sb_stride, uint8_t* dst);
  void (*store_u16)(const float* v, int64_t v_stride, int64_t count, const float* scale,
                    const float* bias, int64_t sb_stride, uint16_t* dst);
  void (*store_f32)(const float* v, int64_t v_stride, int64_t count, const float* scale,
                    const float* bias, int64_t sb_stride, float* dst);
};

namespace sse2 {
extern const ResizeKernels kResizeKernels;
}  // namespace sse2
namespace avx2 {
extern const ResizeKernels kResizeKernels;
}  // namespace avx2

// The build for `isa` (AVX-512 machines run the AVX2 one: these loops are bound by loads and
// conversions, not by vector width).
const ResizeKernels& ResizeKernelsFor(Isa isa);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_RESIZE_KERNELS_H_
