#include "swigflow/kernels/nn/window_geometry.h"

#include <algorithm>

namespace swigflow {
namespace kernels {

Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                          const std::string& padding, int64_t explicit_before,
                          int64_t explicit_after, int64_t* out, int64_t* pad_before) {
  const int64_t effective = (k - 1) * dilation + 1;
  if (padding == "VALID") {
    *out = (in - effective + stride) / stride;
    *pad_before = 0;
  } else if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (*out - 1) * stride + effective - in);
    *pad_before = needed / 2;
  } else {
    *out = (in + explicit_before + explicit_after - effective + stride) / stride;
    *pad_before = explicit_before;
  }
  if (*out < 0) {
    return errors::InvalidArgument("Computed output size would be negative: ", *out,
                                   " [input_size: ", in, ", effective_filter_size: ", effective,
                                   ", stride: ", stride, "]");
  }
  return Status::OK();
}

}  // namespace kernels
}  // namespace swigflow
