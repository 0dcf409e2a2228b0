// The output size and leading padding of a sliding window along one spatial dimension, as
// TensorFlow computes them for convolutions and pooling alike (GetWindowedOutputSizeVerbose).
#ifndef SWIGFLOW_KERNELS_NN_WINDOW_GEOMETRY_H_
#define SWIGFLOW_KERNELS_NN_WINDOW_GEOMETRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace kernels {

// `in` cells, a window of `k` cells `dilation` apart moved `stride` cells at a time; padding
// "VALID", "SAME" (the odd padding cell goes after: bottom / right) or "EXPLICIT" (with
// explicit_before / explicit_after). INVALID_ARGUMENT when the output would be negative.
Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                          const std::string& padding, int64_t explicit_before,
                          int64_t explicit_after, int64_t* out, int64_t* pad_before);

// The [before, after] padding of each NHWC dimension, 8 values: the explicit_paddings attribute
// when `padding` is "EXPLICIT" (nonnegative, none in batch or depth), else zeros, in which case
// the attribute must be empty. TensorFlow's messages.
Status ExplicitPaddings(const std::string& padding, const std::vector<int64_t>& explicit_paddings,
                        std::vector<int64_t>* pads);

// TensorFlow reads list(int) window attributes (ksize, strides, dilations) as int32: a value
// outside that range is INVALID_ARGUMENT, "Attr strides has value ... out of range for an int32".
Status CheckInt32Attr(const char* name, const std::vector<int64_t>& values);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_WINDOW_GEOMETRY_H_
