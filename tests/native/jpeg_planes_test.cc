// JpegDecoder::DecodePlanes and ResizePlanes (the fast decode step): the planes hold the samples
// libjpeg's own YCbCr decode replicates (every sampling, scale, progressive and restart files,
// crops), unsupported files are refused with the decoder still usable, and ResizePlanes matches
// its float64 definition in every layout and type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "swigflow/image/jpeg.h"
#include "swigflow/image/resize.h"

namespace swigflow {
namespace image {
namespace {

// A smooth colour picture with noise, so every sample of every plane differs.
std::vector<uint8_t> Picture(int height, int width, int channels, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> px(static_cast<size_t>(height) * width * channels);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        const double v = 128 + 90 * std::sin(x / (5.0 + c) + y / 7.0 + c) + (rng() % 31) - 15;
        px[(static_cast<size_t>(y) * width + x) * channels + c] =
            static_cast<uint8_t>(std::fmin(255, std::fmax(0, v)));
      }
    }
  }
  return px;
}

struct Encoding {
  int h_factor = 2, v_factor = 2;  // luma sampling (chroma is 1x1)
  bool gray = false, cmyk = false, progressive = false;
  int restart_rows = 0;
};

// Encodes with libjpeg directly: our encoder only writes 4:2:0 and 4:4:4.
std::string Encode(const std::vector<uint8_t>& px, int height, int width, const Encoding& e) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;  // NOLINT(runtime/int): libjpeg's
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = e.gray ? 1 : e.cmyk ? 4 : 3;
  cinfo.in_color_space = e.gray ? JCS_GRAYSCALE : e.cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 90, TRUE);
  if (!e.gray && !e.cmyk) {
    cinfo.comp_info[0].h_samp_factor = e.h_factor;
    cinfo.comp_info[0].v_samp_factor = e.v_factor;
  }
  if (e.progressive) jpeg_simple_progression(&cinfo);
  cinfo.restart_in_rows = e.restart_rows;
  jpeg_start_compress(&cinfo, TRUE);
  const int row_bytes = width * cinfo.input_components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(px.data() + cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<char*>(buffer), size);
  free(buffer);
  return out;
}

// libjpeg's own decode to YCbCr (or gray) at scale m/8 without fancy upsampling: chroma samples
// replicated over the pixels they cover.
std::vector<uint8_t> LibjpegYcc(const std::string& jpeg, int m, int* height, int* width,
                                int* channels) {
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(jpeg.data()), jpeg.size());
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_YCbCr;
  cinfo.scale_num = m;
  cinfo.scale_denom = 8;
  cinfo.do_fancy_upsampling = FALSE;
  cinfo.dct_method = JDCT_IFAST;
  jpeg_start_decompress(&cinfo);
  *height = cinfo.output_height;
  *width = cinfo.output_width;
  *channels = cinfo.output_components;
  std::vector<uint8_t> out(static_cast<size_t>(*height) * *width * *channels);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out.data() + static_cast<size_t>(cinfo.output_scanline) * *width * *channels;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return out;
}

void ExpectPlanesAreLibjpegs(const std::string& jpeg, int m, int channels, int64_t bottom) {
  SCOPED_TRACE(testing::Message() << "scale " << m << "/8, channels " << channels << ", bottom "
                                  << bottom);
  int height, width, components;
  const std::vector<uint8_t> ycc = LibjpegYcc(jpeg, m, &height, &width, &components);
  JpegDecoder decoder;
  Shape stored;
  ASSERT_TRUE(decoder.Start(jpeg.data(), jpeg.size(), &stored).ok());
  JpegDecodeOptions o;
  o.channels = channels;
  o.scale_num = m;
  o.scale_denom = 8;
  if (bottom < height) {
    o.crop = true;
    o.window = Window{bottom / 2, 1, bottom - bottom / 2, width - 1};
  }
  std::vector<Plane> planes;
  const Status s = decoder.DecodePlanes(o, &planes);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const int count = components == 1 || channels == 1 ? 1 : 3;
  ASSERT_EQ(static_cast<int>(planes.size()), count);
  for (int p = 0; p < count; ++p) {
    const Plane& plane = planes[p];
    ASSERT_GE(plane.height * plane.y_factor, std::min<int64_t>(bottom, height));
    ASSERT_GE(plane.width * plane.x_factor, width);
    ASSERT_LT((plane.width - 1) * plane.x_factor, width);
    for (int64_t y = 0; y < std::min<int64_t>(bottom, height); ++y) {
      for (int64_t x = 0; x < width; ++x) {
        const uint8_t want = ycc[(y * width + x) * components + p];
        const uint8_t got =
            plane.data[(y / plane.y_factor) * plane.row_stride + x / plane.x_factor];
        ASSERT_EQ(got, want) << "plane " << p << " at " << y << ", " << x;
      }
    }
  }
}

TEST(JpegPlanes, HoldLibjpegsSamplesForEverySamplingAndScale) {
  const int height = 45, width = 61;  // partial blocks and MCUs on both edges
  const std::vector<uint8_t> rgb = Picture(height, width, 3, 1);
  const std::vector<uint8_t> gray = Picture(height, width, 1, 2);
  std::vector<std::pair<std::string, Encoding>> files;
  for (auto [h, v] : {std::pair{1, 1}, {2, 1}, {1, 2}, {2, 2}}) {
    Encoding e;
    e.h_factor = h;
    e.v_factor = v;
    files.emplace_back(std::to_string(h) + "x" + std::to_string(v), e);
  }
  Encoding progressive;
  progressive.progressive = true;
  files.emplace_back("progressive", progressive);
  Encoding restarts;
  restarts.restart_rows = 1;
  files.emplace_back("restart markers", restarts);
  Encoding g;
  g.gray = true;
  files.emplace_back("gray", g);
  for (const auto& [name, e] : files) {
    SCOPED_TRACE(name);
    const std::string jpeg = Encode(e.gray ? gray : rgb, height, width, e);
    for (int m : {8, 4, 2, 1}) {
      for (int channels : {0, 1, 3}) ExpectPlanesAreLibjpegs(jpeg, m, channels, height);
      ExpectPlanesAreLibjpegs(jpeg, m, 0, (height * m / 8) / 2 + 1);  // rows to a crop's bottom
      if (HasFatalFailure()) return;
    }
  }
}

TEST(JpegPlanes, RefusesWhatPlanesCannotDescribeAndStaysUsable) {
  const std::vector<uint8_t> cmyk = Picture(20, 24, 4, 3);
  Encoding e;
  e.cmyk = true;
  const std::string jpeg = Encode(cmyk, 20, 24, e);
  JpegDecoder decoder;
  Shape stored;
  ASSERT_TRUE(decoder.Start(jpeg.data(), jpeg.size(), &stored).ok());
  std::vector<Plane> planes;
  EXPECT_TRUE(errors::IsUnimplemented(decoder.DecodePlanes(JpegDecodeOptions(), &planes)));
  std::vector<uint8_t> out;
  Shape shape;
  const Status s = decoder.Decode(
      JpegDecodeOptions(),
      [&](const Shape& sh, size_t* stride) -> void* {
        out.resize(static_cast<size_t>(sh.height * sh.width * sh.channels));
        *stride = static_cast<size_t>(sh.width * sh.channels);
        return out.data();
      },
      &shape);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(shape.channels, 3);

  const std::string rgb = Encode(Picture(20, 24, 3, 4), 20, 24, Encoding());
  ASSERT_TRUE(decoder.Start(rgb.data(), rgb.size(), &stored).ok());
  JpegDecodeOptions recover;
  recover.try_recover_truncated = true;
  EXPECT_TRUE(errors::IsUnimplemented(decoder.DecodePlanes(recover, &planes)));
  EXPECT_TRUE(decoder.DecodePlanes(JpegDecodeOptions(), &planes).ok());
  // One decode per header.
  EXPECT_TRUE(errors::IsFailedPrecondition(decoder.DecodePlanes(JpegDecodeOptions(), &planes)));
}

TEST(JpegPlanes, TruncatedAndBadWindowsAreInvalidArgument) {
  const std::string jpeg = Encode(Picture(64, 64, 3, 5), 64, 64, Encoding());
  JpegDecoder decoder;
  Shape stored;
  std::vector<Plane> planes;
  for (size_t keep : {jpeg.size() / 2, jpeg.size() - 2}) {
    ASSERT_TRUE(decoder.Start(jpeg.data(), keep, &stored).ok());
    const Status s = decoder.DecodePlanes(JpegDecodeOptions(), &planes);
    EXPECT_TRUE(errors::IsInvalidArgument(s)) << s.ToString();
  }
  ASSERT_TRUE(decoder.Start(jpeg.data(), jpeg.size(), &stored).ok());
  JpegDecodeOptions o;
  o.crop = true;
  o.window = Window{10, 10, 60, 20};
  const Status s = decoder.DecodePlanes(o, &planes);
  EXPECT_TRUE(errors::IsInvalidArgument(s)) << s.ToString();
}

// The float64 definition of ResizePlanes: per plane, bilinear with half-pixel centres over the
// window, sample j of a plane centred on pixel (j + 1/2) * factor - 1/2 and clamped to the
// samples the window touches; then libjpeg's YCbCr -> RGB coefficients.
double PlaneValue(const Plane& p, const Window& w, int64_t oh, int64_t ow, int64_t y, int64_t x) {
  double v[2][2];
  int64_t at[2][2];  // [axis][tap]
  double frac[2];
  const int64_t first[2] = {w.y, w.x}, size[2] = {w.height, w.width}, out[2] = {oh, ow},
                o[2] = {y, x}, factor[2] = {p.y_factor, p.x_factor}, plane[2] = {p.height, p.width};
  for (int a = 0; a < 2; ++a) {
    const double pixel = (o[a] + 0.5) * static_cast<double>(size[a]) / static_cast<double>(out[a]) -
                         0.5 + static_cast<double>(first[a]);
    const double pos = (pixel + 0.5) / factor[a] - 0.5;
    const int64_t lo = first[a] / factor[a];
    const int64_t hi = std::min(plane[a] - 1, (first[a] + size[a] - 1) / factor[a]);
    const double f = std::floor(pos);
    frac[a] = pos - f;
    at[a][0] = std::clamp<int64_t>(static_cast<int64_t>(f), lo, hi);
    at[a][1] = std::clamp<int64_t>(static_cast<int64_t>(f) + 1, lo, hi);
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) v[i][j] = p.data[at[0][i] * p.row_stride + at[1][j]];
  }
  const double top = v[0][0] + frac[1] * (v[0][1] - v[0][0]);
  const double bottom = v[1][0] + frac[1] * (v[1][1] - v[1][0]);
  return top + frac[0] * (bottom - top);
}

TEST(ResizePlanes, MatchesTheFloat64DefinitionInEveryLayoutAndType) {
  std::mt19937 rng(11);
  struct Geometry {
    int64_t h, w;   // full-resolution image
    int fy, fx;     // chroma factors
    Window window;  // of the image
    int64_t oh, ow;
  };
  const Geometry geometries[] = {
      {375, 500, 2, 2, {0, 0, 375, 500}, 224, 224},  // the benchmark's shrink
      {45, 61, 2, 1, {3, 5, 40, 50}, 17, 90},        // a crop, widened
      {45, 61, 1, 2, {0, 1, 45, 59}, 30, 31},
      {33, 40, 1, 1, {7, 9, 11, 13}, 50, 8},
      {64, 64, 4, 4, {1, 1, 62, 62}, 20, 20},
      {8, 200, 2, 2, {0, 0, 8, 200}, 3, 33},  // luma too wide for any group: columns
  };
  for (const Geometry& g : geometries) {
    std::vector<std::vector<uint8_t>> data(3);
    Plane planes[3];
    for (int p = 0; p < 3; ++p) {
      Plane& plane = planes[p];
      plane.y_factor = p == 0 ? 1 : g.fy;
      plane.x_factor = p == 0 ? 1 : g.fx;
      plane.height = (g.h + plane.y_factor - 1) / plane.y_factor;
      plane.width = (g.w + plane.x_factor - 1) / plane.x_factor;
      plane.row_stride = plane.width + 5;
      data[p].resize(static_cast<size_t>(plane.height * plane.row_stride));
      for (auto& v : data[p]) v = static_cast<uint8_t>(rng());
      plane.data = data[p].data();
    }
    for (int count : {1, 3}) {
      for (int channels : {1, 3}) {
        for (bool nchw : {false, true}) {
          for (bool flip : {false, true}) {
            for (SampleType type : {SampleType::kUint8, SampleType::kFloat32}) {
              SCOPED_TRACE(testing::Message()
                           << g.w << "x" << g.h << " -> " << g.ow << "x" << g.oh << " planes "
                           << count << " channels " << channels << " nchw " << nchw << " flip "
                           << flip << " float " << (type == SampleType::kFloat32));
              OutputRef r;
              r.type = type;
              r.height = g.oh;
              r.width = g.ow;
              r.c_stride = nchw ? g.oh * g.ow : 1;
              r.y_stride = nchw ? g.ow : g.ow * channels;
              r.x_stride = nchw ? 1 : channels;
              const size_t n = static_cast<size_t>(g.oh * g.ow * channels);
              std::vector<float> out_f(n, -1);
              std::vector<uint8_t> out_u8(n, 7);
              void* base = type == SampleType::kFloat32 ? static_cast<void*>(out_f.data())
                                                        : static_cast<void*>(out_u8.data());
              const size_t element = type == SampleType::kFloat32 ? 4 : 1;
              r.data = base;
              if (flip) {
                r.data = static_cast<char*>(base) + (g.ow - 1) * r.x_stride * element;
                r.x_stride = -r.x_stride;
              }
              if (type == SampleType::kFloat32) {
                for (int c = 0; c < channels; ++c) {
                  r.scale.push_back(0.5f + 0.25f * c);
                  r.bias.push_back(-3.0f + c);
                }
              }
              const Status s = ResizePlanes(planes, count, g.window, channels, r);
              ASSERT_TRUE(s.ok()) << s.ToString();
              for (int64_t y = 0; y < g.oh; ++y) {
                for (int64_t x = 0; x < g.ow; ++x) {
                  const int64_t sx = flip ? g.ow - 1 - x : x;
                  const double l = PlaneValue(planes[0], g.window, g.oh, g.ow, y, sx);
                  double want[3] = {l, l, l};
                  if (count == 3 && channels == 3) {
                    const double cb = PlaneValue(planes[1], g.window, g.oh, g.ow, y, sx) - 128;
                    const double cr = PlaneValue(planes[2], g.window, g.oh, g.ow, y, sx) - 128;
                    want[0] = l + 1.402 * cr;
                    want[1] = l - 0.34414 * cb - 0.71414 * cr;
                    want[2] = l + 1.772 * cb;
                  }
                  for (int c = 0; c < channels; ++c) {
                    const size_t i = static_cast<size_t>(nchw ? (c * g.oh + y) * g.ow + x
                                                              : (y * g.ow + x) * channels + c);
                    if (type == SampleType::kFloat32) {
                      const double v = want[c] * r.scale[c] + r.bias[c];
                      ASSERT_NEAR(out_f[i], v, 1e-3 * (1 + std::fabs(v))) << y << ", " << x;
                    } else {
                      const double v = std::fmin(255, std::fmax(0, want[c]));
                      ASSERT_NEAR(out_u8[i], v, 0.5 + 1e-3) << y << ", " << x << ", " << c;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(ResizePlanes, RefusesBadArguments) {
  uint8_t sample = 0;
  Plane plane{&sample, 1, 1, 1, 1, 1};
  float out = 0;
  OutputRef r;
  r.data = &out;
  r.height = r.width = 1;
  r.y_stride = r.x_stride = 1;
  EXPECT_TRUE(errors::IsInvalidArgument(ResizePlanes(&plane, 2, Window{0, 0, 1, 1}, 3, r)));
  EXPECT_TRUE(errors::IsInvalidArgument(ResizePlanes(&plane, 1, Window{0, 0, 1, 1}, 2, r)));
  EXPECT_TRUE(errors::IsInvalidArgument(ResizePlanes(&plane, 1, Window{0, 0, 0, 1}, 1, r)));
  EXPECT_TRUE(errors::IsInvalidArgument(ResizePlanes(&plane, 1, Window{1, 0, 1, 1}, 1, r)));
  EXPECT_TRUE(ResizePlanes(&plane, 1, Window{0, 0, 1, 1}, 1, r).ok());
}

}  // namespace
}  // namespace image
}  // namespace swigflow
