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
  // One-channel, two-tap horizontal pass in groups of `per_group` outputs (group_lanes or, with
  // 16 lanes, 8): the outputs of group g read row[base[g] + rel[o]] and the sample after it, all
  // within the 2 * group_lanes floats from row + base[g] (which must be readable), and
  // out[o] = w0[o] * a + w1[o] * b, as `columns` computes it. Vector permutes instead of one
  // load per tap. group_lanes is 0 (and columns_grouped null) in builds without them.
  int group_lanes;
  void (*columns_grouped)(const float* row, int per_group, const int32_t* base, const int32_t* rel,
                          const float* w0, const float* w1, int64_t groups, float* out);
  // JFIF's YCbCr (full range, chroma centred on 128) to RGB, libjpeg's coefficients: out[x * 3 +
  // c], or out[c * n + x] when planar. cb == cr == nullptr: gray, R = G = B = Y.
  void (*to_rgb)(const float* y, const float* cb, const float* cr, int64_t n, bool planar,
                 float* out);
  // to_rgb then store_u8 (no scale) into n interleaved RGB pixels, in one pass: the same bytes.
  // Null in builds without byte shuffles (SSE2).
  void (*to_rgb_u8)(const float* y, const float* cb, const float* cr, int64_t n, uint8_t* dst);
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
namespace avx512 {
extern const ResizeKernels kResizeKernels;
}  // namespace avx512

// The build for `isa`. The AVX-512 build differs from the AVX2 one in columns_grouped (16-lane
// two-register permutes); its other loops are bound by loads and conversions, not vector width.
const ResizeKernels& ResizeKernelsFor(Isa isa);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_RESIZE_KERNELS_H_
