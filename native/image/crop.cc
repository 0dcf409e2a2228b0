#include "swigflow/image/crop.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "swigflow/framework/random.h"

namespace swigflow {
namespace image {

Status CheckDistortOptions(const DistortOptions& o) {
  if (!(o.min_area > 0 && o.min_area <= o.max_area && o.max_area <= 1)) {
    return errors::InvalidArgument("area_range must be in (0, 1] and increasing, got [", o.min_area,
                                   ", ", o.max_area, "]");
  }
  if (!(o.min_aspect_ratio > 0 && o.min_aspect_ratio <= o.max_aspect_ratio)) {
    return errors::InvalidArgument("aspect_ratio_range must be positive and increasing, got [",
                                   o.min_aspect_ratio, ", ", o.max_aspect_ratio, "]");
  }
  if (!(o.min_object_covered >= 0 && o.min_object_covered <= 1)) {
    return errors::InvalidArgument("min_object_covered must be in [0, 1], got ",
                                   o.min_object_covered);
  }
  if (o.max_attempts < 1) {
    return errors::InvalidArgument("max_attempts must be positive, got ", o.max_attempts);
  }
  return Status::OK();
}

Window SampleDistortedBoundingBox(int64_t height, int64_t width,
                                  const std::vector<BoundingBox>& boxes, const DistortOptions& o,
                                  uint64_t seed) {
  const Window whole{0, 0, height, width};
  if (height <= 0 || width <= 0) return whole;
  Rng rng(seed);
  const double area = static_cast<double>(height) * static_cast<double>(width);
  auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * rng.UniformFloat(); };
  for (int attempt = 0; attempt < o.max_attempts; ++attempt) {
    const BoundingBox box =
        boxes.empty() ? BoundingBox() : boxes[static_cast<size_t>(rng.Uniform(boxes.size()))];
    const double target = area * uniform(o.min_area, o.max_area);
    const double aspect = uniform(o.min_aspect_ratio, o.max_aspect_ratio);
    const int64_t h = std::llround(std::sqrt(target / aspect));
    const int64_t w = std::llround(std::sqrt(target * aspect));
    if (h < 1 || w < 1 || h > height || w > width) continue;
    const int64_t y = static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(height - h + 1)));
    const int64_t x = static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(width - w + 1)));
    // The share of the box inside the crop, in pixels.
    const double by0 = box.ymin * height, by1 = box.ymax * height;
    const double bx0 = box.xmin * width, bx1 = box.xmax * width;
    const double box_area = std::max(0.0, by1 - by0) * std::max(0.0, bx1 - bx0);
    const double iy = std::max(0.0, std::min<double>(y + h, by1) - std::max<double>(y, by0));
    const double ix = std::max(0.0, std::min<double>(x + w, bx1) - std::max<double>(x, bx0));
    const double covered = box_area > 0 ? iy * ix / box_area : 1.0;
    if (covered >= o.min_object_covered) return Window{y, x, h, w};
  }
  return whole;
}

Window CentralCrop(int64_t height, int64_t width, double fraction) {
  // tf.image.central_crop: start = int((size - size * fraction) / 2), size - 2 * start kept.
  const int64_t y = static_cast<int64_t>((height - height * fraction) / 2);
  const int64_t x = static_cast<int64_t>((width - width * fraction) / 2);
  return Window{y, x, height - 2 * y, width - 2 * x};
}

}  // namespace image
}  // namespace swigflow
