// Inception-style random crops: tf.image.sample_distorted_bounding_box's contract on swigflow's
// seeded generator (framework/random.h), and the fixed crops of evaluation.
#ifndef SWIGFLOW_IMAGE_CROP_H_
#define SWIGFLOW_IMAGE_CROP_H_

#include <cstdint>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/image/jpeg.h"

namespace swigflow {
namespace image {

// Normalized coordinates in [0, 1], as tf.image's bounding boxes.
struct BoundingBox {
  float ymin = 0, xmin = 0, ymax = 1, xmax = 1;
};

struct DistortOptions {
  float min_object_covered = 0.1f;
  float min_aspect_ratio = 0.75f;  // width / height of the crop
  float max_aspect_ratio = 1.33f;
  float min_area = 0.05f;  // fraction of the image's area
  float max_area = 1.0f;
  int max_attempts = 100;
};

Status CheckDistortOptions(const DistortOptions& options);

// A crop whose aspect ratio and area fraction are drawn uniformly from their ranges and which
// covers at least min_object_covered of one of `boxes` (chosen uniformly; none: the whole
// image), in pixels of a height x width image. After max_attempts failures, the whole image.
// The same seed gives the same window.
Window SampleDistortedBoundingBox(int64_t height, int64_t width,
                                  const std::vector<BoundingBox>& boxes,
                                  const DistortOptions& options, uint64_t seed);

// tf.image.central_crop's window: the central `fraction` of each side.
Window CentralCrop(int64_t height, int64_t width, double fraction);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_CROP_H_
