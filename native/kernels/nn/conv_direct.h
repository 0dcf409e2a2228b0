// The convolution paths that form no packed left operand: micro-kernel tiles that read windows
// in place (DirectConv, DirectFilterGradient), and col2im for the input gradient of few
// channels (AddWindowGradients). Every output element is summed by one thread in a fixed order:
// deterministic for any number of threads.
#ifndef SWIGFLOW_KERNELS_NN_CONV_DIRECT_H_
#define SWIGFLOW_KERNELS_NN_CONV_DIRECT_H_

#include <cstdint>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/nn/conv_geometry.h"

namespace swigflow {
namespace kernels {

// Whether `channels` are too few to fill register tiles along the channel dimension (the
// machine's KernelConfig::few_channels; 16 unless a config says otherwise): a tap's run of K
// would pay for loading and storing the output tile once per few FMAs (the RGB stem), an MR
// block of channels would be mostly empty, and the input gradient's GEMM would have a handful
// of columns. One threshold for the three uses.
bool FewChannels(int64_t channels, Isa isa);

// Whether DirectConv suits `map` (a forward window, or the input gradient at stride 1): the
// run of K one item reads is not FewChannels (the channels, or a whole window row of them where
// DirectConv merges a row's taps), and since tiles never span two rows, rows must fill them
// well (KernelConfig::min_row_fill_pct: 56 of 56 places for 56-wide rows and 14-row tiles,
// 112 of 112 for the stem's). The packed implicit GEMM is used otherwise.
bool UseDirect(const TapMap& map, Isa isa);

// The right operand of DirectConv, b[(tap, c), oc], stored as [taps, channels, out_c] or, when
// `swapped`, as [taps, out_c, channels]: the filter [KH, KW, C, OC] as the input gradient reads
// it (channels = OC, out_c = C), packed from the filter itself rather than from a copy with its
// last two axes swapped.
struct TapMatrix {
  const float* data;
  bool swapped;
};

// out[pixel, oc] = sum over (tap, c) of src at the pixel's tap times b[(tap, c), oc], for a map
// whose divisors are 1 (a forward window, or the input gradient at stride 1). MR neighbouring
// pixels of one tap are MR source pixels `x.scale` apart, a strided matrix the strided
// micro-kernel reads directly; where a window row's taps are consecutive pixels (undilated
// forward windows, and the input gradient at stride 1 from its leftmost tap), the row is one run
// of k_w * C values read the same way. Tiles that reach into the padding read a copy of the
// line's span with zeros outside it, kept for the output rows that read it next. b is packed
// once per call.
void DirectConv(const TapMap& map, const float* src, const TapMatrix& b, int64_t out_c, float* out,
                Isa isa, ThreadPool* pool);

// dw[(tap, c), oc] = sum over output pixels of x at the pixel's tap times dy there. For one
// output row and one tap, MR consecutive channels of successive pixels are a "stepped" matrix
// of x (steps stride_w * C apart), which the stepped micro-kernel reads directly; dy's rows are
// packed a group at a time and every (tap, channel block) tile sums the group's rows in
// registers (batch-reduce). Work is split over output-channel slivers (then channel blocks);
// with fewer slivers than the machine has cores, dy's rows are split into parts as well, summed
// apart and added in a fixed order, so the result never depends on the number of threads.
//
// With few input channels (FilterGradientBySpans), a tile takes MR consecutive values of a
// filter row's k_w * C instead of a block of channels, read in place from a zero-padded copy of
// each image's rows.
void DirectFilterGradient(const ConvGeometry& g, const float* x, const float* dy, float* dw,
                          Isa isa, ThreadPool* pool);

// Whether DirectFilterGradient reads a few-channel input as spans of filter rows: undilated x
// taps whose row of k_w * C values fills at least one MR-row tile (the RGB stem's 7 x 3 = 21).
bool FilterGradientBySpans(const ConvGeometry& g, Isa isa);

// The input gradient as col2im: a wide GEMM forms each output pixel's window gradient
// dy[pixel, :] . w[(tap, c), :], and the windows are added into dx ([N, H, W, C], zeroed by the
// caller) in pixel order, an image at a time. For few input channels, where the implicit GEMM
// would have a handful of columns (3 for RGB) and waste most of each register tile.
void AddWindowGradients(const ConvGeometry& g, const float* w, const float* dy, float* dx, Isa isa,
                        ThreadPool* pool);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_NN_CONV_DIRECT_H_
