// JPEG decoding and encoding on libjpeg-turbo, with tf.io.decode_jpeg's options and results.
//
// Decoding matches TensorFlow's: the same library, the same IDCT (INTEGER_FAST by default, as
// TensorFlow's "" dct_method), the same upsampling and colour conversions, so the pixels are
// equal. Bad input never crashes and never allocates without bound: libjpeg's fatal errors come
// back as INVALID_ARGUMENT, the pixel limit (image.h) is checked before any allocation, and a
// progressive file may have at most kMaxScans scans (each scan costs a full pass).
#ifndef SWIGFLOW_IMAGE_JPEG_H_
#define SWIGFLOW_IMAGE_JPEG_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/image/image.h"

namespace swigflow {
namespace image {

enum class DctMethod : int {
  kIntegerFast = 0,      // libjpeg's JDCT_IFAST: TensorFlow's default ("")
  kIntegerAccurate = 1,  // JDCT_ISLOW: Pillow's, and TensorFlow's "INTEGER_ACCURATE"
  kFloat = 2,            // JDCT_FLOAT
};

struct JpegDecodeOptions {
  int channels = 0;  // 0: the file's (1 for grayscale, else 3); 1 or 3
  // The IDCT scales the image by scale_num / scale_denom: tf's `ratio` r is 1/r; libjpeg-turbo
  // supports M/8 for M in 1..16. Cheaper than decoding at full size and resizing.
  int scale_num = 1;
  int scale_denom = 1;
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float acceptable_fraction = 1.0f;  // rows that must decode when recovering truncated data
  DctMethod dct_method = DctMethod::kIntegerFast;
  bool crop = false;  // decode only `window`, in the decoded (scaled) image: rows outside it are
  Window window;  // skipped, columns cropped by iMCU where the library can (decode_and_crop_jpeg)
};

constexpr int kMaxScans = 1000;

// Decodes one JPEG. Reusable: Start() may be called again for the next image.
class JpegDecoder {
 public:
  JpegDecoder();
  ~JpegDecoder();
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;

  // Reads the header of `data` (which must stay valid until Decode returns). *shape: the stored
  // image (channels: the file's components, 4 for CMYK).
  Status Start(const void* data, size_t size, Shape* shape);
  // The shape Decode will produce with `options`, before any crop.
  Status OutputShape(const JpegDecodeOptions& options, Shape* shape);
  // Decodes into memory from `allocate`; *shape is the result's.
  Status Decode(const JpegDecodeOptions& options, const Allocator& allocate, Shape* shape);
  // Decodes the components as stored, for a caller that resamples them anyway: no upsampling and
  // no colour conversion (libjpeg's raw data), so the chroma planes stay at their own sampling.
  // YCbCr files give Y, Cb, Cr (Y alone when options.channels is 1), grayscale files one plane,
  // at options' scale and IDCT. With options.crop only the rows down to the window's bottom are
  // decoded (columns are not cropped). The planes live in the decoder until the next Start.
  // UNIMPLEMENTED, with the decoder still ready for Decode, for what the planes cannot describe:
  // CMYK/YCCK/RGB files, sampling ratios other than 1, 2 or 4, try_recover_truncated.
  Status DecodePlanes(const JpegDecodeOptions& options, std::vector<Plane>* planes);

  struct State;  // libjpeg's structures (jpeg.cc)

 private:
  std::unique_ptr<State> state_;
};

// One-call forms.
Status DecodeJpeg(const void* data, size_t size, const JpegDecodeOptions& options,
                  const Allocator& allocate, Shape* shape);
Status ReadJpegShape(const void* data, size_t size, Shape* shape);

struct JpegEncodeOptions {
  int quality = 95;  // 0..100
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;  // 4:2:0 when true, else 4:4:4
  int density_unit = 1;             // 0 none, 1 dots per inch, 2 dots per cm
  int x_density = 300;
  int y_density = 300;
  std::string xmp_metadata;  // written as an APP1 XMP segment when not empty
};

// Encodes `shape.channels` (1 or 3) channel pixels.
Status EncodeJpeg(const uint8_t* pixels, const Shape& shape, size_t row_stride,
                  const JpegEncodeOptions& options, std::string* out);

}  // namespace image
}  // namespace swigflow

#endif  // SWIGFLOW_IMAGE_JPEG_H_
