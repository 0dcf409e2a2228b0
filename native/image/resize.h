// tf.image.resize (TensorFlow 2's half-pixel-centre semantics) and the store step of the native
// decode pipeline: resampling, an optional per-channel affine (x * scale + bias) and an output
// layout and type, in one pass over the source.
//
// Methods and what TensorFlow runs for them (values agree to float32 rounding):
//   bilinear, bicubic (antialias=False): resize_bilinear / resize_bicubic with
//     half_pixel_centers; bicubic is Keys' cubic (a = -0.5) at TF's 1/1024 quantized phases,
//     edge taps dropped and the rest renormalized;
//   area: resize_area (box averaging with fractional edge coverage);
//   nearest: not here (numpy indexing keeps the input dtype exactly);
//   lanczos3, lanczos5, gaussian, mitchellcubic, and any method with antialias=True:
//     scale_and_translate, whose kernel is widened by the downscaling factor when antialiasing.
#ifndef SWIGFLOW_IMAGE_RESIZE_H_
#define SWIGFLOW_IMAGE_RESIZE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/image/image.h"

namespace swigflow {
namespace image {

enum class ResizeMethod : int {
  kBilinear = 0,
  kBicubic = 1,
  kArea = 2,
  kLanczos3 = 3,
  kLanczos5 = 4,
  kGaussian = 5,
  kMitchellCubic = 6,
};

// The weights of one output index along one axis: input indices [start, start + weights.size()).
struct Taps {
  std::vector<int64_t> start;
  std::vector<int32_t> count;
  std::vector<float> weights;  // count[i] weights per output i, back to back
  std::vector<size_t> offset;  // where output i's weights begin
};

// The taps of resizing `in_size` samples to `out_size` along one axis.
Status ComputeTaps(ResizeMethod method, bool antialias, int64_t in_size, int64_t out_size,
                   Taps* taps);

enum class SampleType : int { kUint8 = 0, kUint16 = 1, kFloat32 = 2 };

// A source region: `height` x `width` pixels of `channels` at data, rows `row_stride` elements
// apart.
struct ImageRef {
  const void* data = nullptr;
  SampleType type = SampleType::kUint8;
  int64_t height = 0, width = 0, row_stride = 0;
  int channels = 0;
};

// Where the result goes: element (y, x, c) at data + y*y_stride + x*x_stride + c*c_stride (so
// HWC, CHW or anything between), as x * scale[c] + bias[c] (empty: 1 and 0). uint8 output rounds
// to nearest and saturates.
struct OutputRef {
  void* data = nullptr;
  SampleType type = SampleType::kFloat32;
  int64_t height = 0, width = 0;
  int64_t y_stride = 0, x_stride = 0, c_stride = 1;
  std::vector<float> scale, bias;
};

Status Resize(const ImageRef& in, ResizeMethod method, bool antialias, const OutputRef& out);

// The store step of a fast JPEG decode (JpegDecoder::DecodePlanes): `window` (full-resolution
// pixels) of an image given as its Y, Cb, Cr planes (count 3) or its gray plane (count 1),
// resized bilinearly with half-pixel centres, each plane on its own sampling grid, then
// converted to `channels` (3: RGB with libjpeg's coefficients; 1: Y) before the store. Chroma is
// interpolated between its samples, where libjpeg would replicate them or triangle-filter them
// to full resolution first, and nothing is rounded between the colour conversion and the
// resize: values are within a few levels of decoding to RGB and then resizing.
Status ResizePlanes(const Plane* planes, int count, const Window& window, int channels,
                    const OutputRef& out);

// Whether ResizePlanes runs on vector kernels here (AVX2 and up). Without them (SSE2) it is
// slower than decoding to RGB and Resize.
bool ResizePlanesVectorized();

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_RESIZE_H_
