#include "swigflow/kernels/nn/window_geometry.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace swigflow {
namespace kernels {

namespace {

// Sizes come from tensors' shapes and from attributes (explicit paddings, a backprop's
// input_sizes), so every step is checked: a wrapped int64 would give a plausible small size.
bool Add(int64_t a, int64_t b, int64_t* sum) { return !__builtin_add_overflow(a, b, sum); }
bool Sub(int64_t a, int64_t b, int64_t* difference) {
  return !__builtin_sub_overflow(a, b, difference);
}
bool Mul(int64_t a, int64_t b, int64_t* product) { return !__builtin_mul_overflow(a, b, product); }

}  // namespace

Status WindowedOutputSize(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                          const std::string& padding, int64_t explicit_before,
                          int64_t explicit_after, int64_t* out, int64_t* pad_before) {
  int64_t effective = 0, span = 0, needed = 0;
  bool ok = Mul(k - 1, dilation, &effective) && Add(effective, 1, &effective);
  if (padding == "VALID") {
    ok = ok && Sub(in, effective, &span) && Add(span, stride, &span);
    *out = ok ? span / stride : 0;
    *pad_before = 0;
  } else if (padding == "SAME") {
    ok = ok && Add(in, stride - 1, &span);
    *out = ok ? span / stride : 0;
    ok = ok && Mul(*out - 1, stride, &needed) && Add(needed, effective, &needed) &&
         Sub(needed, in, &needed);
    *pad_before = ok ? std::max<int64_t>(0, needed) / 2 : 0;
  } else {
    ok = ok && Add(in, explicit_before, &span) && Add(span, explicit_after, &span) &&
         Sub(span, effective, &span) && Add(span, stride, &span);
    *out = ok ? span / stride : 0;
    *pad_before = explicit_before;
  }
  if (!ok) {
    return errors::InvalidArgument("Computed output size overflows int64 [input_size: ", in,
                                   ", filter_size: ", k, ", dilation: ", dilation,
                                   ", stride: ", stride, ", padding: ", explicit_before, ", ",
                                   explicit_after, "]");
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
  SWIGFLOW_RETURN_IF_ERROR(CheckInt32Attr("explicit_paddings", explicit_paddings));
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
