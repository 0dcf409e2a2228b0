#include "swigflow/image/jpeg.h"

#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>

namespace swigflow {
namespace image {

namespace {

// DecodePlanes' components: Y, Cb and Cr.
constexpr int kMaxPlanes = 3;

// Rows per jpeg_read_scanlines: more than an iMCU row (at most 16 with 2x2 chroma), so merged
// upsampling writes its row pairs straight into the output instead of through a spare row.
constexpr int kRowsPerRead = 16;

// libjpeg reports fatal errors through error_exit, which must not return: it longjmps back to
// the setjmp of the call in progress. Only trivially destructible objects live in the frames it
// skips (libjpeg's own, and the callers below up to their setjmp).
struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool out_of_memory;  // libjpeg's allocation failed: the data may well be a valid image
};

[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  err->out_of_memory = cinfo->err->msg_code == JERR_OUT_OF_MEMORY;
  std::longjmp(err->jump, 1);
}

[[noreturn]] void FailWith(j_common_ptr cinfo, const char* message) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  std::snprintf(err->message, sizeof(err->message), "%s", message);
  err->out_of_memory = false;
  std::longjmp(err->jump, 1);
}

void OutputMessage(j_common_ptr) {}  // warnings are counted (num_warnings), not printed

// Reads from memory. At the end of the data it either suspends (fill returns FALSE: the decode
// stops where the data stops, and the caller sees a truncated image) or, when recovering
// truncated files, supplies one fake EOI marker so that libjpeg finishes the image.
struct SourceManager {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool recover;
  bool eoi_inserted;
  bool truncated;  // the data ended before the image did
};

const JOCTET kFakeEoi[2] = {0xFF, JPEG_EOI};

void InitSource(j_decompress_ptr) {}

boolean FillInputBuffer(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<SourceManager*>(cinfo->src);
  src->truncated = true;
  if (!src->recover) return FALSE;  // suspend
  if (src->eoi_inserted) FailWith(reinterpret_cast<j_common_ptr>(cinfo), "JPEG data is truncated");
  src->eoi_inserted = true;
  src->pub.next_input_byte = kFakeEoi;
  src->pub.bytes_in_buffer = 2;
  return TRUE;
}

void SkipInputData(j_decompress_ptr cinfo, long num_bytes) {  // NOLINT(runtime/int): libjpeg's
  auto* src = reinterpret_cast<SourceManager*>(cinfo->src);
  if (num_bytes <= 0) return;
  const size_t n = static_cast<size_t>(num_bytes);
  if (n > src->pub.bytes_in_buffer) {
    // Past the end: leave the buffer empty so the next read reaches FillInputBuffer.
    src->pub.next_input_byte += src->pub.bytes_in_buffer;
    src->pub.bytes_in_buffer = 0;
    return;
  }
  src->pub.next_input_byte += n;
  src->pub.bytes_in_buffer -= n;
}

void TermSource(j_decompress_ptr) {}

// Progressive files may repeat scans without end (each a full pass over the coefficients).
void ProgressMonitor(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  if (reinterpret_cast<j_decompress_ptr>(cinfo)->input_scan_number > kMaxScans) {
    FailWith(cinfo, "JPEG has too many scans");
  }
}

// Out of memory is ResourceExhausted, never "invalid data": a caller that skips bad images
// must not drop a good one because memory ran short.
Status DecodeError(const ErrorManager& err) {
  if (err.out_of_memory)
    return errors::ResourceExhausted("no memory to decode a JPEG: ", err.message);
  return errors::InvalidArgument("Invalid JPEG data: ", err.message);
}

// TensorFlow's CMYK conversion: Adobe writes CMYK inverted, so channel * K / 255 is the RGB value.
void CmykToRgb(const uint8_t* in, int64_t width, uint8_t* out) {
  for (int64_t x = 0; x < width; ++x, in += 4, out += 3) {
    const int k = in[3];
    out[0] = static_cast<uint8_t>(in[0] * k / 255);
    out[1] = static_cast<uint8_t>(in[1] * k / 255);
    out[2] = static_cast<uint8_t>(in[2] * k / 255);
  }
}

}  // namespace

struct JpegDecoder::State {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  SourceManager src;
  jpeg_progress_mgr progress;
  bool created = false;
  bool have_header = false;
  // kRowsPerRead decoded rows, when they cannot go straight to the output.
  std::vector<uint8_t> row;
  // DecodePlanes' samples, and one iMCU row's row pointers into them, per component.
  std::vector<uint8_t> planes[kMaxPlanes];
  std::vector<JSAMPROW> plane_rows[kMaxPlanes];
};

JpegDecoder::JpegDecoder() : state_(new State()) {}

JpegDecoder::~JpegDecoder() {
  if (state_->created) jpeg_destroy_decompress(&state_->cinfo);
}

Status JpegDecoder::Start(const void* data, size_t size, Shape* shape) {
  State* s = state_.get();
  s->have_header = false;
  if (setjmp(s->err.jump)) {
    if (s->created) jpeg_abort_decompress(&s->cinfo);
    return DecodeError(s->err);
  }
  if (!s->created) {
    s->cinfo.err = jpeg_std_error(&s->err.pub);
    s->err.pub.error_exit = ErrorExit;
    s->err.pub.output_message = OutputMessage;
    jpeg_create_decompress(&s->cinfo);
    s->created = true;
    s->progress.progress_monitor = ProgressMonitor;
    s->cinfo.progress = &s->progress;
    s->src.pub.init_source = InitSource;
    s->src.pub.fill_input_buffer = FillInputBuffer;
    s->src.pub.skip_input_data = SkipInputData;
    s->src.pub.resync_to_restart = jpeg_resync_to_restart;
    s->src.pub.term_source = TermSource;
    s->cinfo.src = &s->src.pub;
  }
  jpeg_abort_decompress(&s->cinfo);
  // jpeg_abort frees these modules but leaves their pointers; a decode that does not create them
  // again (merged upsampling makes no colour converter) would have jpeg_skip_scanlines use the
  // freed ones (found by the fuzzer).
  s->cinfo.cconvert = nullptr;
  s->cinfo.cquantize = nullptr;
  s->err.pub.num_warnings = 0;
  s->src.data = static_cast<const JOCTET*>(data);
  s->src.size = size;
  s->src.pub.next_input_byte = s->src.data;
  s->src.pub.bytes_in_buffer = size;
  s->src.recover = false;
  s->src.eoi_inserted = false;
  s->src.truncated = false;
  if (size == 0) return errors::InvalidArgument("Invalid JPEG data: empty input");
  if (jpeg_read_header(&s->cinfo, TRUE) != JPEG_HEADER_OK) {
    jpeg_abort_decompress(&s->cinfo);
    return errors::InvalidArgument("Invalid JPEG data: the header is truncated (", size, " bytes)");
  }
  SWIGFLOW_RETURN_IF_ERROR(CheckPixelLimit("JPEG", s->cinfo.image_height, s->cinfo.image_width));
  shape->height = s->cinfo.image_height;
  shape->width = s->cinfo.image_width;
  shape->channels = s->cinfo.num_components;
  s->have_header = true;
  return Status::OK();
}

namespace {

// The colour space libjpeg decodes into for `channels` output channels; CMYK sources are decoded
// as CMYK and converted here (libjpeg converts CMYK to nothing else).
int OutputComponents(const jpeg_decompress_struct& cinfo, int channels) {
  if (channels == 0) return cinfo.num_components == 1 ? 1 : 3;
  return channels;
}

bool IsCmyk(const jpeg_decompress_struct& cinfo) {
  return cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
}

Status Configure(const JpegDecodeOptions& o, jpeg_decompress_struct* cinfo) {
  if (o.channels != 0 && o.channels != 1 && o.channels != 3) {
    return errors::InvalidArgument("channels must be 0, 1, or 3, got ", o.channels);
  }
  if (o.scale_num < 1 || o.scale_num > 16 || o.scale_denom < 1 || o.scale_denom > 16) {
    return errors::InvalidArgument("unsupported JPEG scale ", o.scale_num, "/", o.scale_denom);
  }
  const int components = OutputComponents(*cinfo, o.channels);
  if (IsCmyk(*cinfo) && components == 1) {
    // libjpeg converts CMYK to nothing else, and TensorFlow refuses this too.
    return errors::InvalidArgument("Invalid JPEG data: cannot decode a CMYK JPEG to 1 channel");
  }
  if (IsCmyk(*cinfo)) {
    cinfo->out_color_space = JCS_CMYK;
  } else {
    cinfo->out_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  }
  cinfo->scale_num = static_cast<unsigned int>(o.scale_num);
  cinfo->scale_denom = static_cast<unsigned int>(o.scale_denom);
  cinfo->do_fancy_upsampling = o.fancy_upscaling ? TRUE : FALSE;
  cinfo->dct_method = o.dct_method == DctMethod::kIntegerAccurate ? JDCT_ISLOW
                      : o.dct_method == DctMethod::kFloat         ? JDCT_FLOAT
                                                                  : JDCT_IFAST;
  return Status::OK();
}

// INVALID_ARGUMENT unless `w` is a non-empty window of a height x width image.
Status CheckWindow(const Window& w, int64_t height, int64_t width) {
  if (w.height <= 0 || w.width <= 0 || w.y < 0 || w.x < 0 || w.y + w.height > height ||
      w.x + w.width > width) {
    return errors::InvalidArgument("Invalid JPEG data or crop window: the crop window [y=", w.y,
                                   ", x=", w.x, ", h=", w.height, ", w=", w.width,
                                   "] is not inside the ", width, "x", height, " image");
  }
  return Status::OK();
}

}  // namespace

Status JpegDecoder::OutputShape(const JpegDecodeOptions& options, Shape* shape) {
  State* s = state_.get();
  if (!s->have_header) return errors::FailedPrecondition("JpegDecoder: no header read");
  if (setjmp(s->err.jump)) {
    jpeg_abort_decompress(&s->cinfo);
    s->have_header = false;
    return DecodeError(s->err);
  }
  SWIGFLOW_RETURN_IF_ERROR(Configure(options, &s->cinfo));
  jpeg_calc_output_dimensions(&s->cinfo);
  shape->height = s->cinfo.output_height;
  shape->width = s->cinfo.output_width;
  shape->channels = OutputComponents(s->cinfo, options.channels);
  return Status::OK();
}

Status JpegDecoder::Decode(const JpegDecodeOptions& options, const Allocator& allocate,
                           Shape* shape) {
  State* s = state_.get();
  if (!s->have_header) return errors::FailedPrecondition("JpegDecoder: no header read");
  s->have_header = false;  // one Decode per Start
  jpeg_decompress_struct* cinfo = &s->cinfo;
  // Set before setjmp, read after a longjmp: volatile keeps them out of registers.
  volatile int64_t rows_done = 0;
  {
    Status status = Configure(options, cinfo);  // calls nothing that longjmps
    if (!status.ok()) {
      jpeg_abort_decompress(cinfo);
      return status;
    }
  }
  if (setjmp(s->err.jump)) {
    jpeg_abort_decompress(cinfo);
    return DecodeError(s->err);
  }
  s->src.recover = options.try_recover_truncated;
  jpeg_calc_output_dimensions(cinfo);
  const int64_t full_height = cinfo->output_height, full_width = cinfo->output_width;
  Window w{0, 0, full_height, full_width};
  if (options.crop) {
    w = options.window;
    const Status inside = CheckWindow(w, full_height, full_width);
    if (!inside.ok()) {
      jpeg_abort_decompress(cinfo);
      return inside;
    }
  }
  const int channels = OutputComponents(*cinfo, options.channels);
  const bool cmyk = IsCmyk(*cinfo);
  *shape = Shape{w.height, w.width, channels};
  size_t stride = 0;
  auto* out = static_cast<uint8_t*>(allocate(*shape, &stride));
  if (out == nullptr) {
    jpeg_abort_decompress(cinfo);
    return errors::ResourceExhausted("no memory for a ", w.width, "x", w.height, " image");
  }
  if (!jpeg_start_decompress(cinfo)) {
    // Suspended: a multi-scan (progressive) file whose data ends before its last scan. The
    // decoder is not ready for output; nothing can be read.
    jpeg_abort_decompress(cinfo);
    return errors::InvalidArgument("Invalid JPEG data: truncated before the last scan");
  }
  JDIMENSION x0 = static_cast<JDIMENSION>(w.x), decoded_width = cinfo->output_width;
  if (options.crop && w.width < full_width) {
    decoded_width = static_cast<JDIMENSION>(w.width);
    jpeg_crop_scanline(cinfo, &x0, &decoded_width);  // widens to iMCU boundaries
  }
  const int64_t skip_x = w.x - static_cast<int64_t>(x0);
  const int decoded_components = cinfo->output_components;
  const bool direct = !cmyk && skip_x == 0 && static_cast<int64_t>(decoded_width) == w.width;
  const size_t row_bytes = static_cast<size_t>(decoded_width) * decoded_components;
  if (!direct) s->row.resize(kRowsPerRead * row_bytes);
  if (w.y > 0 &&
      jpeg_skip_scanlines(cinfo, static_cast<JDIMENSION>(w.y)) < static_cast<JDIMENSION>(w.y)) {
    rows_done = 0;  // the data ended before the window
  } else {
    while (rows_done < w.height) {
      JSAMPROW rows[kRowsPerRead];
      const int want = static_cast<int>(std::min<int64_t>(kRowsPerRead, w.height - rows_done));
      for (int i = 0; i < want; ++i) {
        rows[i] = direct ? out + static_cast<size_t>(rows_done + i) * stride
                         : s->row.data() + i * row_bytes;
      }
      const int got = static_cast<int>(jpeg_read_scanlines(cinfo, rows, want));
      if (got == 0) break;  // suspended: the data ended
      for (int i = 0; i < got && !direct; ++i) {
        uint8_t* dest = out + static_cast<size_t>(rows_done + i) * stride;
        const uint8_t* src = rows[i] + skip_x * decoded_components;
        if (!cmyk) {
          std::memcpy(dest, src, static_cast<size_t>(w.width) * channels);
        } else {
          CmykToRgb(src, w.width, dest);
        }
      }
      rows_done = rows_done + got;
    }
  }
  const int64_t rows = rows_done;
  jpeg_abort_decompress(cinfo);
  if (rows < w.height) {
    const bool acceptable = options.try_recover_truncated &&
                            rows >= static_cast<int64_t>(options.acceptable_fraction * w.height);
    if (!acceptable) {
      return errors::InvalidArgument("Invalid JPEG data: truncated after ", rows, " of ", w.height,
                                     " rows");
    }
    for (int64_t y = rows; y < w.height; ++y) {
      std::memset(out + static_cast<size_t>(y) * stride, 0,
                  static_cast<size_t>(w.width) * channels);
    }
  }
  return Status::OK();
}

namespace {

// A component's sampling relative to the output image at the configured scale (the IDCT may
// scale chroma up itself): 1, 2 or 4 along each axis, else 0 (the planes cannot describe it).
int SamplingRatio(int max_factor, int min_scaled, int factor, int scaled) {
  const int full = max_factor * min_scaled, own = factor * scaled;
  if (own <= 0 || full % own != 0) return 0;
  const int ratio = full / own;
  return ratio == 1 || ratio == 2 || ratio == 4 ? ratio : 0;
}

}  // namespace

Status JpegDecoder::DecodePlanes(const JpegDecodeOptions& options, std::vector<Plane>* planes) {
  State* s = state_.get();
  if (!s->have_header) return errors::FailedPrecondition("JpegDecoder: no header read");
  jpeg_decompress_struct* cinfo = &s->cinfo;
  const bool ycc = cinfo->jpeg_color_space == JCS_YCbCr && cinfo->num_components == 3;
  const bool gray = cinfo->jpeg_color_space == JCS_GRAYSCALE && cinfo->num_components == 1;
  if ((!ycc && !gray) || options.try_recover_truncated) {
    return errors::Unimplemented("JPEG planes: not a YCbCr or grayscale decode");
  }
  // Set before setjmp, read after a longjmp: volatile keeps it out of registers.
  volatile bool started = false;
  if (setjmp(s->err.jump)) {
    jpeg_abort_decompress(cinfo);
    cinfo->raw_data_out = FALSE;
    if (!started) s->have_header = false;
    return DecodeError(s->err);
  }
  SWIGFLOW_RETURN_IF_ERROR(Configure(options, cinfo));
  jpeg_calc_output_dimensions(cinfo);
  const int count = gray || options.channels == 1 ? 1 : 3;
  int ratio[kMaxPlanes][2];
  for (int c = 0; c < count; ++c) {
    const jpeg_component_info& comp = cinfo->comp_info[c];
    ratio[c][0] = SamplingRatio(cinfo->max_v_samp_factor, cinfo->min_DCT_scaled_size,
                                comp.v_samp_factor, comp.DCT_scaled_size);
    ratio[c][1] = SamplingRatio(cinfo->max_h_samp_factor, cinfo->min_DCT_scaled_size,
                                comp.h_samp_factor, comp.DCT_scaled_size);
    if (ratio[c][0] == 0 || ratio[c][1] == 0) {
      return errors::Unimplemented("JPEG planes: unsupported sampling");
    }
  }
  const int64_t height = cinfo->output_height, width = cinfo->output_width;
  int64_t bottom = height;
  if (options.crop) {
    const Window& w = options.window;
    SWIGFLOW_RETURN_IF_ERROR(CheckWindow(w, height, width));
    bottom = w.y + w.height;
  }
  s->have_header = false;  // one decode per Start
  started = true;
  s->src.recover = false;
  cinfo->raw_data_out = TRUE;
  for (int c = count; c < cinfo->num_components; ++c) cinfo->comp_info[c].component_needed = FALSE;
  if (!jpeg_start_decompress(cinfo)) {  // suspended: a progressive file cut before its last scan
    jpeg_abort_decompress(cinfo);
    cinfo->raw_data_out = FALSE;
    return errors::InvalidArgument("Invalid JPEG data: truncated before the last scan");
  }
  // Each jpeg_read_raw_data call gives one iMCU row: v_samp_factor blocks of DCT_scaled_size
  // rows per component, every block of width_in_blocks written in full.
  const int64_t lines_per_row = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
  const int64_t rows_wanted =
      std::min<int64_t>((bottom + lines_per_row - 1) / lines_per_row, cinfo->total_iMCU_rows);
  JSAMPARRAY data[kMaxPlanes] = {};
  size_t stride[kMaxPlanes];
  int block_rows[kMaxPlanes];
  int64_t plane_height[kMaxPlanes], plane_width[kMaxPlanes];  // comp_info dies with the decode
  for (int c = 0; c < count; ++c) {
    const jpeg_component_info& comp = cinfo->comp_info[c];
    plane_height[c] = comp.downsampled_height;
    plane_width[c] = comp.downsampled_width;
    const int64_t padded_blocks =
        (comp.width_in_blocks + comp.h_samp_factor - 1) / comp.h_samp_factor * comp.h_samp_factor;
    stride[c] = static_cast<size_t>(padded_blocks * comp.DCT_scaled_size);
    block_rows[c] = comp.v_samp_factor * comp.DCT_scaled_size;
    s->planes[c].resize(stride[c] * static_cast<size_t>(rows_wanted * block_rows[c]));
    s->plane_rows[c].resize(static_cast<size_t>(block_rows[c]));
    data[c] = s->plane_rows[c].data();
  }
  int64_t rows_done = 0;
  for (; rows_done < rows_wanted; ++rows_done) {
    for (int c = 0; c < count; ++c) {
      uint8_t* first = s->planes[c].data() + rows_done * block_rows[c] * stride[c];
      for (int r = 0; r < block_rows[c]; ++r) data[c][r] = first + r * stride[c];
    }
    if (jpeg_read_raw_data(cinfo, data, static_cast<JDIMENSION>(lines_per_row)) == 0) break;
  }
  jpeg_abort_decompress(cinfo);
  cinfo->raw_data_out = FALSE;
  if (rows_done < rows_wanted) {  // suspended: the data ended
    return errors::InvalidArgument("Invalid JPEG data: truncated after ",
                                   std::min(rows_done * lines_per_row, height), " of ", height,
                                   " rows");
  }
  planes->resize(static_cast<size_t>(count));
  for (int c = 0; c < count; ++c) {
    Plane& p = (*planes)[c];
    p.data = s->planes[c].data();
    p.row_stride = static_cast<int64_t>(stride[c]);
    p.width = plane_width[c];
    p.height = std::min<int64_t>(plane_height[c], rows_done * block_rows[c]);
    p.y_factor = ratio[c][0];
    p.x_factor = ratio[c][1];
  }
  return Status::OK();
}

Status DecodeJpeg(const void* data, size_t size, const JpegDecodeOptions& options,
                  const Allocator& allocate, Shape* shape) {
  JpegDecoder decoder;
  Shape stored;
  SWIGFLOW_RETURN_IF_ERROR(decoder.Start(data, size, &stored));
  return decoder.Decode(options, allocate, shape);
}

Status ReadJpegShape(const void* data, size_t size, Shape* shape) {
  JpegDecoder decoder;
  return decoder.Start(data, size, shape);
}

namespace {

// Collects the compressed bytes in a vector (libjpeg's own memory destination would hand back
// malloc'ed memory that a longjmp could leak).
struct Destination {
  jpeg_destination_mgr pub;
  std::vector<uint8_t>* buffer;
};

constexpr size_t kDestinationChunk = 1 << 16;

void InitDestination(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<Destination*>(cinfo->dest);
  d->buffer->resize(kDestinationChunk);
  d->pub.next_output_byte = d->buffer->data();
  d->pub.free_in_buffer = d->buffer->size();
}

boolean EmptyOutputBuffer(j_compress_ptr cinfo) {  // called when the buffer is full
  auto* d = reinterpret_cast<Destination*>(cinfo->dest);
  const size_t used = d->buffer->size();
  d->buffer->resize(used * 2);
  d->pub.next_output_byte = d->buffer->data() + used;
  d->pub.free_in_buffer = d->buffer->size() - used;
  return TRUE;
}

void TermDestination(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<Destination*>(cinfo->dest);
  d->buffer->resize(d->buffer->size() - d->pub.free_in_buffer);
}

// The encoder's state, outside the setjmp frame.
struct Encoder {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  Destination dest;
  std::vector<uint8_t> buffer;
  std::string xmp;  // the APP1 segment's payload
};

constexpr char kXmpNamespace[] = "http://ns.adobe.com/xap/1.0/";

}  // namespace

Status EncodeJpeg(const uint8_t* pixels, const Shape& shape, size_t row_stride,
                  const JpegEncodeOptions& o, std::string* out) {
  if (shape.channels != 1 && shape.channels != 3) {
    return errors::InvalidArgument("JPEG images have 1 or 3 channels, got ", shape.channels);
  }
  if (shape.height <= 0 || shape.width <= 0 || shape.height > JPEG_MAX_DIMENSION ||
      shape.width > JPEG_MAX_DIMENSION) {
    return errors::InvalidArgument("cannot encode a ", shape.width, "x", shape.height,
                                   " image as JPEG (each side must be 1..", JPEG_MAX_DIMENSION,
                                   ")");
  }
  if (o.quality < 0 || o.quality > 100) {
    return errors::InvalidArgument("quality must be in [0,100], got ", o.quality);
  }
  if (o.density_unit < 0 || o.density_unit > 2 || o.x_density < 0 || o.x_density > 65535 ||
      o.y_density < 0 || o.y_density > 65535) {
    return errors::InvalidArgument("invalid JPEG density");
  }
  auto e = std::make_unique<Encoder>();
  if (!o.xmp_metadata.empty()) {
    e->xmp.assign(kXmpNamespace, sizeof(kXmpNamespace));  // with its NUL
    e->xmp += o.xmp_metadata;
    if (e->xmp.size() > 65533) {
      return errors::InvalidArgument("xmp_metadata is too long for a JPEG segment");
    }
  }
  jpeg_compress_struct* cinfo = &e->cinfo;
  cinfo->err = jpeg_std_error(&e->err.pub);
  e->err.pub.error_exit = ErrorExit;
  e->err.pub.output_message = OutputMessage;
  if (setjmp(e->err.jump)) {
    jpeg_destroy_compress(cinfo);
    return errors::Internal("JPEG encoding failed: ", e->err.message);
  }
  jpeg_create_compress(cinfo);
  e->dest.pub.init_destination = InitDestination;
  e->dest.pub.empty_output_buffer = EmptyOutputBuffer;
  e->dest.pub.term_destination = TermDestination;
  e->dest.buffer = &e->buffer;
  cinfo->dest = &e->dest.pub;
  cinfo->image_width = static_cast<JDIMENSION>(shape.width);
  cinfo->image_height = static_cast<JDIMENSION>(shape.height);
  cinfo->input_components = shape.channels;
  cinfo->in_color_space = shape.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(cinfo);
  cinfo->optimize_coding = o.optimize_size ? TRUE : FALSE;
  if (shape.channels == 3 && !o.chroma_downsampling) {
    for (int c = 0; c < cinfo->num_components; ++c) {
      cinfo->comp_info[c].h_samp_factor = 1;
      cinfo->comp_info[c].v_samp_factor = 1;
    }
  }
  cinfo->density_unit = static_cast<UINT8>(o.density_unit);
  cinfo->X_density = static_cast<UINT16>(o.x_density);
  cinfo->Y_density = static_cast<UINT16>(o.y_density);
  cinfo->write_JFIF_header = TRUE;
  jpeg_start_compress(cinfo, TRUE);
  if (!e->xmp.empty()) {
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(e->xmp.data()),
                      static_cast<unsigned int>(e->xmp.size()));
  }
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + cinfo->next_scanline * row_stride);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  jpeg_destroy_compress(cinfo);
  out->assign(reinterpret_cast<const char*>(e->buffer.data()), e->buffer.size());
  return Status::OK();
}

}  // namespace image
}  // namespace swigflow
