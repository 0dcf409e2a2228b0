// Convolutions as plain loops over the tap maps, for the types without a GEMM micro-kernel:
// double, and int32 (Conv2D and its input gradient, as TensorFlow registers them), and for the
// depthwise convolutions of every type. One block of
// output rows per task, so no two threads write one element and results do not depend on the
// thread count. Exact to double rounding, not tuned (as Dgemm). int32 sums wrap modulo 2^32, as
// TensorFlow's do; they are formed in uint32 so that the wrap is defined.
#ifndef SWIGFLOW_KERNELS_NN_CONV_LOOPS_H_
#define SWIGFLOW_KERNELS_NN_CONV_LOOPS_H_

#include <cstdint>

#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/nn/conv_geometry.h"

namespace swigflow {
namespace kernels {

// out[row, j] = sum over taps t and source channels c of src[map(row, t), c] * b[(t, c), j], for
// the map's rows and j < n. Conv2D (Window over x, b = the filter) and Conv2DBackpropInput
// (Gradient over dy, b = the filter with its last two axes swapped). T: double or int32_t.
template <typename T>
void ConvByTaps(const TapMap& map, const T* src, const T* b, int64_t n, T* out, ThreadPool* pool);

// dw[t, c, oc] = sum over the map's rows of x[map(row, t), c] * dy[row, oc]: Conv2DBackpropFilter
// with the forward windows. One task per tap. T: double.
template <typename T>
void FilterGradientByTaps(const TapMap& windows, const T* x, const T* dy, int64_t out_c, T* dw,
                          ThreadPool* pool);

// Depthwise convolutions: grouped convolutions of one input channel per group (g.in_c == 1,
// g.groups == C, g.out_c == M), TensorFlow's DepthwiseConv2dNative as a Conv2D with a
// [KH, KW, 1, C * M] filter. A group's GEMM would be one column wide, so these loop over the
// channels instead, which are contiguous in NHWC: out[pixel, c * M + m] = sum over taps of
// x[window(pixel, tap), c] * w[tap, c * M + m]. Every element of the result is written.
// T: float, double or int32_t.
template <typename T>
void DepthwiseForward(const ConvGeometry& g, const T* x, const T* w, T* out, ThreadPool* pool);

// dx[pixel, c] = sum over the taps and m of dy[covering pixel, c * M + m] * w[tap, c * M + m].
template <typename T>
void DepthwiseInputGradient(const ConvGeometry& g, const T* dy, const T* w, T* dx,
                            ThreadPool* pool);

// dw[tap, c * M + m] = sum over output pixels of x[window(pixel, tap), c] * dy[pixel, c * M + m].
// One task per block of pixels. T: float or double.
template <typename T>
void DepthwiseFilterGradient(const ConvGeometry& g, const T* x, const T* dy, T* dw,
                             ThreadPool* pool);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_CONV_LOOPS_H_
