#include "swig/py_image.h"

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/example/parse.h"
#include "swigflow/framework/random.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/image/crop.h"
#include "swigflow/image/image.h"
#include "swigflow/image/resize.h"

namespace swigflow {
namespace python {
namespace {

namespace sfi = swigflow::image;

// Decoded pixels in a vector that the returned array then owns (no copy).
template <typename T>
struct PixelVector {
  std::vector<T> pixels;
  sfi::Allocator Allocator() {
    return [this](const sfi::Shape& shape, size_t* stride) -> void* {
      pixels.resize(static_cast<size_t>(shape.height * shape.width * shape.channels));
      *stride = static_cast<size_t>(shape.width * shape.channels);
      return pixels.data();
    };
  }
  PyObject* Array(const sfi::Shape& shape, int type_num) {
    npy_intp dims[3] = {static_cast<npy_intp>(shape.height), static_cast<npy_intp>(shape.width),
                        static_cast<npy_intp>(shape.channels)};
    return ArrayFromBuffer(std::move(pixels), type_num, 3, dims);
  }
};

// A C-contiguous uint8/uint16/float32 array of rank 3 (HWC) or 4 (NHWC), checked by Python.
bool ImageArray(PyObject* object, PyArrayObject** array, sfi::SampleType* type) {
  if (!PyArray_Check(object)) {
    PyErr_SetString(PyExc_TypeError, "expected a numpy array");
    return false;
  }
  *array = reinterpret_cast<PyArrayObject*>(object);
  if (!PyArray_IS_C_CONTIGUOUS(*array) ||
      (PyArray_NDIM(*array) != 3 && PyArray_NDIM(*array) != 4)) {
    PyErr_SetString(PyExc_ValueError, "expected a C-contiguous HWC or NHWC array");
    return false;
  }
  switch (PyArray_TYPE(*array)) {
    case NPY_UINT8:
      *type = sfi::SampleType::kUint8;
      return true;
    case NPY_UINT16:
      *type = sfi::SampleType::kUint16;
      return true;
    case NPY_FLOAT32:
      *type = sfi::SampleType::kFloat32;
      return true;
    default:
      PyErr_SetString(PyExc_TypeError, "expected uint8, uint16 or float32 pixels");
      return false;
  }
}

}  // namespace

PyObject* ImageDecodeJpeg(PyObject* contents, const image::JpegDecodeOptions& options) {
  BytesView bytes(contents);
  if (!bytes.ok()) return nullptr;
  PixelVector<uint8_t> out;
  sfi::Shape shape;
  const Status s = WithoutGil([&] {
    return sfi::DecodeJpeg(bytes.data(), bytes.size(), options, out.Allocator(), &shape);
  });
  if (!s.ok()) return StatusResult(s);
  return out.Array(shape, NPY_UINT8);
}

PyObject* ImageDecodePng(PyObject* contents, const image::PngDecodeOptions& options) {
  BytesView bytes(contents);
  if (!bytes.ok()) return nullptr;
  sfi::Shape shape;
  Status s;
  if (options.bit_depth == 16) {
    PixelVector<uint16_t> out;
    s = WithoutGil([&] {
      return sfi::DecodePng(bytes.data(), bytes.size(), options, out.Allocator(), &shape);
    });
    return s.ok() ? out.Array(shape, NPY_UINT16) : StatusResult(s);
  }
  PixelVector<uint8_t> out;
  s = WithoutGil(
      [&] { return sfi::DecodePng(bytes.data(), bytes.size(), options, out.Allocator(), &shape); });
  return s.ok() ? out.Array(shape, NPY_UINT8) : StatusResult(s);
}

PyObject* ImageDecodeGif(PyObject* contents, bool first_frame_only) {
  BytesView bytes(contents);
  if (!bytes.ok()) return nullptr;
  sfi::GifImage gif;
  const Status s = WithoutGil(
      [&] { return sfi::DecodeGif(bytes.data(), bytes.size(), first_frame_only, &gif); });
  if (!s.ok()) return StatusResult(s);
  npy_intp dims[4] = {static_cast<npy_intp>(gif.frames), static_cast<npy_intp>(gif.height),
                      static_cast<npy_intp>(gif.width), 3};
  if (first_frame_only) return ArrayFromBuffer(std::move(gif.pixels), NPY_UINT8, 3, dims + 1);
  return ArrayFromBuffer(std::move(gif.pixels), NPY_UINT8, 4, dims);
}

PyObject* ImageReadShape(PyObject* contents) {
  BytesView bytes(contents);
  if (!bytes.ok()) return nullptr;
  const sfi::Format format = sfi::DetectFormat(bytes.data(), bytes.size());
  sfi::Shape shape;
  Status s;
  if (format == sfi::Format::kJpeg) {
    s = sfi::ReadJpegShape(bytes.data(), bytes.size(), &shape);
  } else if (format == sfi::Format::kPng) {
    s = sfi::ReadPngShape(bytes.data(), bytes.size(), &shape);
  }
  if (!s.ok()) return StatusResult(s);
  return Py_BuildValue("(iLLi)", static_cast<int>(format), static_cast<long long>(shape.height),
                       static_cast<long long>(shape.width), shape.channels);
}

PyObject* ImageEncodeJpeg(PyObject* image, const image::JpegEncodeOptions& options) {
  PyArrayObject* array;
  sfi::SampleType type;
  if (!ImageArray(image, &array, &type)) return nullptr;
  const sfi::Shape shape{PyArray_DIM(array, 0), PyArray_DIM(array, 1),
                         static_cast<int>(PyArray_DIM(array, 2))};
  const auto* pixels = static_cast<const uint8_t*>(PyArray_DATA(array));
  std::string out;
  const Status s = WithoutGil([&] {
    return sfi::EncodeJpeg(pixels, shape, static_cast<size_t>(shape.width * shape.channels),
                           options, &out);
  });
  if (!s.ok()) return StatusResult(s);
  return PyBytes_FromStringAndSize(out.data(), static_cast<Py_ssize_t>(out.size()));
}

PyObject* ImageEncodePng(PyObject* image, int compression) {
  PyArrayObject* array;
  sfi::SampleType type;
  if (!ImageArray(image, &array, &type)) return nullptr;
  const sfi::Shape shape{PyArray_DIM(array, 0), PyArray_DIM(array, 1),
                         static_cast<int>(PyArray_DIM(array, 2))};
  const int depth = type == sfi::SampleType::kUint16 ? 16 : 8;
  const void* pixels = PyArray_DATA(array);
  std::string out;
  const Status s = WithoutGil([&] {
    return sfi::EncodePng(pixels, shape, static_cast<size_t>(shape.width * shape.channels), depth,
                          compression, &out);
  });
  if (!s.ok()) return StatusResult(s);
  return PyBytes_FromStringAndSize(out.data(), static_cast<Py_ssize_t>(out.size()));
}

PyObject* ImageResize(PyObject* images, long long height, long long width, int method,
                      bool antialias) {
  PyArrayObject* array;
  sfi::SampleType type;
  if (!ImageArray(images, &array, &type)) return nullptr;
  const bool batched = PyArray_NDIM(array) == 4;
  const int d = batched ? 1 : 0;
  const npy_intp n = batched ? PyArray_DIM(array, 0) : 1;
  sfi::ImageRef in;
  in.type = type;
  in.height = PyArray_DIM(array, d);
  in.width = PyArray_DIM(array, d + 1);
  in.channels = static_cast<int>(PyArray_DIM(array, d + 2));
  in.row_stride = in.width * in.channels;
  npy_intp dims[4] = {n, static_cast<npy_intp>(height), static_cast<npy_intp>(width),
                      static_cast<npy_intp>(in.channels)};
  Ref result(batched ? PyArray_SimpleNew(4, dims, NPY_FLOAT32)
                     : PyArray_SimpleNew(3, dims + 1, NPY_FLOAT32));
  if (result == nullptr) return nullptr;
  sfi::OutputRef out;
  out.type = sfi::SampleType::kFloat32;
  out.height = height;
  out.width = width;
  out.x_stride = in.channels;
  out.y_stride = width * in.channels;
  const size_t element = PyArray_ITEMSIZE(array);
  const auto* src = static_cast<const char*>(PyArray_DATA(array));
  auto* dst = static_cast<float*>(PyArray_DATA(ArrayOf(result)));
  const Status s = WithoutGil([&] {
    for (npy_intp i = 0; i < n; ++i) {
      in.data = src + i * in.height * in.row_stride * element;
      out.data = dst + i * height * width * in.channels;
      SWIGFLOW_RETURN_IF_ERROR(
          sfi::Resize(in, static_cast<sfi::ResizeMethod>(method), antialias, out));
    }
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return result.release();
}

PyObject* ImageSampleDistortedBoundingBox(long long height, long long width, PyObject* boxes,
                                          const image::DistortOptions& options,
                                          unsigned long long seed) {
  std::vector<sfi::BoundingBox> list;
  {
    const FastItems items(boxes, "boxes must be a sequence");
    if (!items.ok()) return nullptr;
    for (Py_ssize_t i = 0; i < items.size(); ++i) {
      sfi::BoundingBox b;
      if (!PyArg_ParseTuple(items.item(i), "ffff", &b.ymin, &b.xmin, &b.ymax, &b.xmax)) {
        return nullptr;
      }
      list.push_back(b);
    }
  }
  const Status s = sfi::CheckDistortOptions(options);
  if (!s.ok()) return StatusResult(s);
  const sfi::Window w = sfi::SampleDistortedBoundingBox(height, width, list, options, seed);
  return Py_BuildValue("(LLLL)", static_cast<long long>(w.y), static_cast<long long>(w.x),
                       static_cast<long long>(w.height), static_cast<long long>(w.width));
}

PyObject* ImageDecodeBatch(PyObject* contents, unsigned long long seed, long long epoch,
                           long long position, const image::BatchDecodeOptions& options) {
  const sfi::BatchDecodeOptions& o = options;
  const Status valid = sfi::CheckBatchDecodeOptions(o);
  if (!valid.ok()) return StatusResult(valid);
  const FastItems items(contents, "contents must be a sequence of bytes");
  if (!items.ok()) return nullptr;
  const Py_ssize_t n = items.size();
  std::vector<std::string_view> views(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    char* data;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(items.item(i), &data, &size) < 0) {
      return nullptr;
    }
    views[static_cast<size_t>(i)] = std::string_view(data, static_cast<size_t>(size));
  }
  const auto shape = sfi::DecodedBatchShape(o, n);
  npy_intp dims[4] = {shape[0], shape[1], shape[2], shape[3]};
  // From the buffer pool: the next batch of this size writes into pages already mapped.
  example::NumberVector<uint8_t> pixels;
  try {
    pixels.resize(static_cast<size_t>(n) * sfi::DecodedImageBytes(o));
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  void* out = pixels.data();
  std::vector<uint64_t> seeds(static_cast<size_t>(n));
  for (size_t i = 0; i < seeds.size(); ++i) {
    seeds[i] = sfi::ImageSeed(seed, epoch, position + static_cast<int64_t>(i));
  }
  std::vector<Status> statuses;
  Status s = WithoutGil([&] {
    sfi::DecodeImageBatch(views, seeds, o, swigflow::ThreadPool::Default(), out, &statuses);
    for (size_t i = 0; i < statuses.size(); ++i) {
      if (!statuses[i].ok()) {
        return Status(statuses[i].code(),
                      statuses[i].message() + " (image " + std::to_string(i) + " of the batch)");
      }
    }
    return Status::OK();
  });
  if (!s.ok()) return StatusResult(s);
  return ArrayFromBuffer(std::move(pixels),
                         o.type == sfi::SampleType::kFloat32 ? NPY_FLOAT32 : NPY_UINT8, 4, dims);
}

}  // namespace python
}  // namespace swigflow
