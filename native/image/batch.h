// The decode step of an input pipeline: a batch of encoded images (JPEG or PNG) to one array of
// [batch, height, width, channels] (or NCHW), uint8 or normalized float32, with the crops and
// flips of training and evaluation. Decoding does as little as the result needs: only the crop
// window's rows and blocks are decoded, and in fast mode the IDCT already scales toward the
// target size.
#ifndef SWIGFLOW_IMAGE_BATCH_H_
#define SWIGFLOW_IMAGE_BATCH_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/image/crop.h"
#include "swigflow/image/resize.h"

namespace swigflow {
namespace image {

struct BatchDecodeOptions {
  enum class Crop : int {
    kNone = 0,    // the whole image, resized
    kCenter = 1,  // tf.image.central_crop(central_fraction), resized (Inception evaluation)
    kRandom = 2,  // sample_distorted_bounding_box's window, resized (Inception training)
  };
  int64_t height = 224;
  int64_t width = 224;
  int channels = 3;  // 1 or 3
  Crop crop = Crop::kNone;
  double central_fraction = 0.875;
  // Random crops as ResNet-50's reference preprocessing: 8-100% of the area, aspect 3/4..4/3.
  DistortOptions distort{0.1f, 0.75f, 1.33f, 0.08f, 1.0f, 100};
  bool flip = false;                     // a random left-right flip, half of the images
  SampleType type = SampleType::kUint8;  // or kFloat32: (pixel / 255 - mean) / std
  bool nchw = false;
  std::vector<float> mean, std;  // per channel (empty: 0 and 1), for float output
  // Fast mode, decoding less where TensorFlow's own options (ratio, fancy_upscaling) allow a
  // trade: libjpeg-turbo's scaled IDCT (the smallest of 1/8, 2/8, 4/8 that keeps the crop at
  // least the target size: the scales with SIMD IDCTs), and JPEG's Y, Cb, Cr planes resampled
  // as stored (ResizePlanes), so no full-size chroma upsampling or colour conversion happens.
  // Pixels differ from the exact step by float rounding with 4:4:4 chroma, by a few levels on
  // average with subsampled chroma. CMYK and other JPEGs decode to RGB without fancy upsampling.
  bool fast = false;
  ResizeMethod method = ResizeMethod::kBilinear;
  bool antialias = false;
};

Status CheckBatchDecodeOptions(const BatchDecodeOptions& options);

// Bytes of one decoded image.
size_t DecodedImageBytes(const BatchDecodeOptions& options);
// The shape of n decoded images: [n, height, width, channels], or [n, channels, height, width].
std::array<int64_t, 4> DecodedBatchShape(const BatchDecodeOptions& options, int64_t n);

// The seed of the image `position` records into epoch `epoch` of a decode_images step seeded
// with `seed`: the one contract for its crops and flips, on the native pipeline and the Python
// path alike, so a seed gives the same augmentations on both.
uint64_t ImageSeed(uint64_t seed, int64_t epoch, int64_t position);

// Decodes one image into `out` (DecodedImageBytes long); `seed` drives its random crop and flip.
Status DecodeImageInto(std::string_view data, uint64_t seed, const BatchDecodeOptions& options,
                       void* out);

// DecodeImageInto for every image, image i at out + i * DecodedImageBytes, in parallel on
// `pool`; (*statuses)[i] is image i's result.
void DecodeImageBatch(const std::vector<std::string_view>& images,
                      const std::vector<uint64_t>& seeds, const BatchDecodeOptions& options,
                      ThreadPool* pool, void* out, std::vector<Status>* statuses);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_BATCH_H_
