// swigflow.image's codecs and transforms (native/image/) for Python (python/swigflow/image/,
// data/images.py). Python checks arguments, names them like tf.image, and builds the options
// structs; every function here holds the GIL only to read its inputs and wrap its result.
#ifndef SWIGFLOW_SWIG_PY_IMAGE_H_
#define SWIGFLOW_SWIG_PY_IMAGE_H_

#include "swig/py_runtime.h"
#include "swigflow/image/batch.h"
#include "swigflow/image/gif.h"
#include "swigflow/image/jpeg.h"
#include "swigflow/image/png.h"

namespace swigflow {
namespace python {

// decode_jpeg / decode_and_crop_jpeg: a uint8 [h, w, c] array.
PyObject* ImageDecodeJpeg(PyObject* contents, const image::JpegDecodeOptions& options);

// decode_png: uint8 or uint16 (options.bit_depth 16) [h, w, c].
PyObject* ImageDecodePng(PyObject* contents, const image::PngDecodeOptions& options);

// decode_gif: a uint8 [frames, h, w, 3] array of every frame, or the first frame's [h, w, 3]
// when first_frame_only.
PyObject* ImageDecodeGif(PyObject* contents, bool first_frame_only);

// (format, height, width, channels) of encoded bytes, without decoding; format an
// image::Format (kUnknown: not JPEG or PNG, height etc. then 0).
PyObject* ImageReadShape(PyObject* contents);

// encode_jpeg / encode_png of a C-contiguous [h, w, c] array (uint8; PNG also uint16).
PyObject* ImageEncodeJpeg(PyObject* image, const image::JpegEncodeOptions& options);
PyObject* ImageEncodePng(PyObject* image, int compression);

// tf.image.resize's interpolating methods (resize.h) on an HWC or NHWC array; float32 out.
PyObject* ImageResize(PyObject* images, long long height, long long width, int method,
                      bool antialias);

// sample_distorted_bounding_box's window (y, x, h, w); boxes: a list of (ymin, xmin, ymax, xmax).
PyObject* ImageSampleDistortedBoundingBox(long long height, long long width, PyObject* boxes,
                                          const image::DistortOptions& options,
                                          unsigned long long seed);

// decode_images on the Python path: a list of encoded images to one array (see
// data/images.py). Image i is record position + i of the epoch: image::ImageSeed(seed, epoch,
// position + i), as on the native pipeline.
PyObject* ImageDecodeBatch(PyObject* contents, unsigned long long seed, long long epoch,
                           long long position, const image::BatchDecodeOptions& options);

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_IMAGE_H_
