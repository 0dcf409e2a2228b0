// Double-precision convolutions over the same tap maps as the float paths: plain loops, one
// block of output rows per task, so no two threads write one element and results do not depend
// on the thread count. Correct and exact to double rounding, not tuned (as Dgemm).
#ifndef SWIGFLOW_KERNELS_NN_CONV_DOUBLE_H_
#define SWIGFLOW_KERNELS_NN_CONV_DOUBLE_H_

#include <cstdint>

#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/nn/conv_geometry.h"

namespace swigflow {
namespace kernels {

// out[row, j] = sum over taps t and source channels c of src[map(row, t), c] * b[(t, c), j], for
// the map's rows and j < n. Conv2D (Window over x, b = the filter) and Conv2DBackpropInput
// (Gradient over dy, b = the filter with its last two axes swapped).
void ConvByTaps(const TapMap& map, const double* src, const double* b, int64_t n, double* out,
                ThreadPool* pool);

// dw[t, c, oc] = sum over the map's rows of x[map(row, t), c] * dy[row, oc]: Conv2DBackpropFilter
// with the forward windows. One task per tap.
void FilterGradientByTaps(const TapMap& windows, const double* x, const double* dy, int64_t out_c,
                          double* dw, ThreadPool* pool);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_CONV_DOUBLE_H_
