// swigflow.image's codecs and transforms (native/image/) for python/swigflow/image/ and
// data/images.py: the options structs as they are (Python sets fields by name; the defaults are
// the C++ ones), the enums as constants (Format_kJpeg, DctMethod_..., ResizeMethod_...,
// SampleType_..., BatchDecodeOptions_Crop_...), and py_image.h's functions.
%{
#include "swig/py_image.h"
%}

// JpegEncodeOptions.xmp_metadata from bytes (SWIG's own std::string conversion takes str only).
%typemap(in) const std::string& xmp_metadata (std::string temp) {
  swigflow::python::BytesView view($input);
  if (!view.ok()) SWIG_fail;
  temp.assign(static_cast<const char*>(view.data()), view.size());
  $1 = &temp;
}
%typemap(freearg) const std::string& xmp_metadata "";

// DetectFormat's bytes, as any buffer (base.i's typemap).
%apply (const char* data, size_t n) { (const void* data, size_t size) };

%ignoreall
%rename("%s") swigflow::image::Window;
%rename("%s") swigflow::image::JpegDecodeOptions;
%rename("%s") swigflow::image::JpegEncodeOptions;
%rename("%s") swigflow::image::PngDecodeOptions;
%rename("%s") swigflow::image::DistortOptions;
%rename("%s") swigflow::image::BatchDecodeOptions;
%rename(ImageMaxPixels) swigflow::image::MaxPixels;
%rename(ImageDetectFormat) swigflow::image::DetectFormat;
%rename(ImageSetMaxPixels) swigflow::image::SetMaxPixels;
%rename("%s", %$isvariable, %$ismember) "";
%include "swigflow/image/image.h"
%include "swigflow/image/resize.h"
%include "swigflow/image/crop.h"
%include "swigflow/image/jpeg.h"
%include "swigflow/image/png.h"
%include "swigflow/image/batch.h"
%unignoreall

%ignoreall
%rename("%s") swigflow::python::ImageDecodeJpeg;
%rename("%s") swigflow::python::ImageDecodePng;
%rename("%s") swigflow::python::ImageDecodeGif;
%rename("%s") swigflow::python::ImageReadShape;
%rename("%s") swigflow::python::ImageEncodeJpeg;
%rename("%s") swigflow::python::ImageEncodePng;
%rename("%s") swigflow::python::ImageResize;
%rename("%s") swigflow::python::ImageSampleDistortedBoundingBox;
%rename("%s") swigflow::python::ImageDecodeBatch;
%include "swig/py_image.h"
%unignoreall
