#include "swigflow/kernels/nn/conv_geometry.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "swigflow/kernels/nn/window_geometry.h"

namespace swigflow {
namespace kernels {

Status MakeConvGeometry(const OpKernelContext& ctx, const std::vector<int64_t>& input,
                        const std::vector<int64_t>& filter, bool empty_filter, ConvGeometry* g) {
  if (ctx.GetString("data_format") != "NHWC") {
    return errors::Unimplemented(
        "The Conv2D op currently only supports the NHWC tensor format on the CPU. The op was "
        "given the format: ",
        ctx.GetString("data_format"));
  }
  if (input.size() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional", ShapeString(input));
  }
  if (filter.size() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ", ShapeString(filter));
  }
  const auto& strides = ctx.GetInts("strides");
  if (strides.size() != 4) {
    return errors::InvalidArgument("Sliding window strides field must specify 4 dimensions");
  }
  if (strides[0] != 1 || strides[3] != 1) {
    return errors::Unimplemented(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  if (strides[1] <= 0 || strides[2] <= 0) {
    return errors::InvalidArgument("Row and column strides should be larger than 0.");
  }
  const auto& dilations = ctx.GetInts("dilations");
  if (dilations.size() != 4) {
    return errors::InvalidArgument("Sliding window dilations field must specify 4 dimensions");
  }
  if (dilations[0] != 1 || dilations[3] != 1) {
    return errors::Unimplemented(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  }
  if (dilations[1] <= 0 || dilations[2] <= 0) {
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  }
  SWIGFLOW_RETURN_IF_ERROR(CheckInt32Attr("strides", strides));
  SWIGFLOW_RETURN_IF_ERROR(CheckInt32Attr("dilations", dilations));
  const std::string& padding = ctx.GetString("padding");
  std::vector<int64_t> pads;
  SWIGFLOW_RETURN_IF_ERROR(ExplicitPaddings(padding, ctx.GetInts("explicit_paddings"), &pads));
  for (int64_t d : input) {
    if (d < 0) return errors::InvalidArgument("negative dimension in input ", ShapeString(input));
  }
  for (int64_t d : filter) {
    if (d < 0 || (d == 0 && !empty_filter)) {
      return errors::InvalidArgument(
          "filter must not have zero elements (i.e. all dimensions must be non-zero): ",
          ShapeString(filter));
    }
  }
  // A filter with fewer input channels than the input groups them (TensorFlow's grouped
  // convolution): group k reads input channels [k * C, (k + 1) * C) and writes output channels
  // [k * OC / groups, (k + 1) * OC / groups).
  int64_t groups = 1;
  if (input[3] != filter[2]) {
    if (input[3] == 0 || filter[2] == 0 || input[3] % filter[2] != 0) {  // not even one group
      return errors::InvalidArgument(
          "input depth must be evenly divisible by filter depth: ", input[3], " vs ", filter[2]);
    }
    groups = input[3] / filter[2];
    if (filter[3] % groups != 0) {
      return errors::InvalidArgument(
          "output depth must be evenly divisible by number of groups: ", filter[3], " vs ", groups);
    }
  }
  *g = ConvGeometry{input[0],           input[1], input[2], filter[2],  filter[0],  filter[1],
                    filter[3] / groups, 0,        0,        strides[1], strides[2], dilations[1],
                    dilations[2],       0,        0,        groups};
  SWIGFLOW_RETURN_IF_ERROR(WindowedOutputSize(g->in_h, g->k_h, g->dil_h, g->stride_h, padding,
                                              pads[2], pads[3], &g->out_h, &g->pad_top));
  SWIGFLOW_RETURN_IF_ERROR(WindowedOutputSize(g->in_w, g->k_w, g->dil_w, g->stride_w, padding,
                                              pads[4], pads[5], &g->out_w, &g->pad_left));
  // Indexes below are int64; keep every product of dimensions far from overflow.
  const double elements = static_cast<double>(g->batch) * g->out_h * g->out_w * g->k_h * g->k_w *
                          std::max(g->in_c, g->out_c) * g->groups;
  const double filter_elements =
      static_cast<double>(g->k_h) * g->k_w * g->in_c * g->out_c * g->groups;
  if (elements > 9e15 || filter_elements > 9e15) {
    return errors::InvalidArgument("convolution too large");
  }
  return Status::OK();
}

bool Is1x1Gemm(const ConvGeometry& g) {
  return g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
         g.pad_left == 0 && g.out_h == g.in_h && g.out_w == g.in_w;
}

TapMap TapMap::Window(const ConvGeometry& g) {
  return TapMap{g.batch,
                g.out_h,
                g.out_w,
                g.k_h,
                g.k_w,
                g.in_c,
                {g.stride_h, g.dil_h, -g.pad_top, 1, g.in_h},
                {g.stride_w, g.dil_w, -g.pad_left, 1, g.in_w}};
}

TapMap TapMap::Gradient(const ConvGeometry& g) {
  return TapMap{g.batch,
                g.in_h,
                g.in_w,
                g.k_h,
                g.k_w,
                g.out_c,
                {1, -g.dil_h, g.pad_top, g.stride_h, g.out_h},
                {1, -g.dil_w, g.pad_left, g.stride_w, g.out_w}};
}

}  // namespace kernels
}  // namespace swigflow
