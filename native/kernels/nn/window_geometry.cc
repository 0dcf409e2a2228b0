#include "swigflow/kernels/nn/window_geometry.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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

Status ExplicitPaddings(const std::string& padding, const std::vector<int64_t>& explicit_paddings,
                        std::vector<int64_t>* pads) {
  pads->assign(8, 0);
  if (padding != "EXPLICIT") {
    if (!explicit_paddings.empty()) {
      return errors::InvalidArgument(
          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    }
    return Status::OK();
  }
  if (explicit_paddings.size() != 8) {
    return errors::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                   explicit_paddings.size());
  }
  for (int64_t p : explicit_paddings) {
    if (p < 0) {
      return errors::InvalidArgument("All elements of explicit_paddings must be nonnegative");
    }
  }
  if (explicit_paddings[0] || explicit_paddings[1] || explicit_paddings[6] ||
      explicit_paddings[7]) {
    return errors::InvalidArgument(
        "Nonzero explicit padding in the batch or depth dimensions is not supported");
  }
  *pads = explicit_paddings;
  return Status::OK();
}

Status CheckInt32Attr(const char* name, const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return errors::InvalidArgument("Attr ", name, " has value ", v, " out of range for an int32");
    }
  }
  return Status::OK();
}

}  // namespace kernels
}  // namespace swigflow
