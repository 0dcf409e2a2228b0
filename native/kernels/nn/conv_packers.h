// The GEMM operands of a convolution read from its source on the fly, a sliver at a time, so no
// im2col matrix is ever stored. Both walk a TapMap: forward windows (TapMap::Window) and input
// gradients (TapMap::Gradient) are the same packer over different maps.
#ifndef SWIGFLOW_KERNELS_NN_CONV_PACKERS_H_
#define SWIGFLOW_KERNELS_NN_CONV_PACKERS_H_

#include <cstdint>

#include "swigflow/kernels/gemm/gemm.h"
#include "swigflow/kernels/nn/conv_geometry.h"

namespace swigflow {
namespace kernels {

// [pixel, (ky, kx, c)]: row `pixel` of the map's grid holds the source's channels at each of its
// taps, zero where a tap reads nothing. The left operand of Conv2D (Window over x) and of
// Conv2DBackpropInput (Gradient over dy).
class TapRows : public PackedSource {
 public:
  TapRows(const TapMap& map, const float* src) : map_(map), src_(src) {}
  void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const override;

 private:
  const TapMap map_;
  const float* src_;
};

// The transpose, [(ky, kx, c), pixel]: the left operand of Conv2DBackpropFilter (Window over x).
class TapColumns : public PackedSource {
 public:
  TapColumns(const TapMap& map, const float* src) : map_(map), src_(src) {}
  void Pack(int64_t i0, int64_t p0, int64_t mc, int64_t kc, int mr, float* dst) const override;

 private:
  const TapMap map_;
  const float* src_;
};

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_CONV_PACKERS_H_
