// TFRecord framing, shared by the writer and the readers.
//
//   record := uint64 length (little endian)
//             uint32 masked_crc32c(length bytes)
//             byte   payload[length]
//             uint32 masked_crc32c(payload)
//
// No file header and no record count: a file is records back to back, and ending exactly at a
// record boundary is the only clean end. The damage messages start with TensorFlow's own words
// ("corrupted record at N", "truncated record at N", with N as TensorFlow computes it) and add
// the file, which TensorFlow leaves out.
#ifndef SWIGFLOW_IO_RECORD_FORMAT_H_
#define SWIGFLOW_IO_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "swigflow/framework/status.h"
#include "swigflow/io/crc32c.h"

namespace swigflow {
namespace io {
namespace record_format {

constexpr size_t kLengthSize = 8;
constexpr size_t kHeaderSize = kLengthSize + 4;
constexpr size_t kFooterSize = 4;
constexpr size_t kFramingSize = kHeaderSize + kFooterSize;

inline void EncodeFixed32(uint32_t value, char* dst) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(value >> (8 * i));
}
inline void EncodeFixed64(uint64_t value, char* dst) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(value >> (8 * i));
}
inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t{u[0]} | (uint32_t{u[1]} << 8) | (uint32_t{u[2]} << 16) | (uint32_t{u[3]} << 24);
}
inline uint64_t DecodeFixed64(const char* p) {
  return uint64_t{DecodeFixed32(p)} | (uint64_t{DecodeFixed32(p + 4)} << 32);
}

// Fills header[kHeaderSize] for a payload of `length` bytes.
inline void EncodeHeader(uint64_t length, char* header) {
  EncodeFixed64(length, header);
  EncodeFixed32(crc32c::Mask(crc32c::Value(header, kLengthSize)), header + kLengthSize);
}

// The payload length of a header whose CRC matches; false for a corrupted header.
inline bool DecodeHeader(const char* header, uint64_t* length) {
  if (crc32c::Mask(crc32c::Value(header, kLengthSize)) != DecodeFixed32(header + kLengthSize)) {
    return false;
  }
  *length = DecodeFixed64(header);
  return true;
}

// Whether a payload of `length` bytes and its footer fit between `start` and `size` (no overflow
// for lying lengths).
inline bool Fits(uint64_t length, uint64_t start, uint64_t size) {
  return size >= start && size - start >= kFooterSize && size - start - kFooterSize >= length;
}

inline bool PayloadMatches(const char* payload, size_t n, const char* footer) {
  return crc32c::Mask(crc32c::Value(payload, n)) == DecodeFixed32(footer);
}

// The compression whose stream `data` (at least 2 bytes) starts like: "GZIP" for its magic
// bytes, "ZLIB" for a valid zlib header (deflate, window <= 32K, check bits), else null.
inline const char* LooksCompressed(const char* data) {
  const auto cmf = static_cast<unsigned char>(data[0]), flg = static_cast<unsigned char>(data[1]);
  if (cmf == 0x1f && flg == 0x8b) return "GZIP";
  if ((cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 == 0) return "ZLIB";
  return nullptr;
}

// The kind of file whose first kHeaderSize bytes are `data`, by its magic bytes, when it is
// one a TFRecord path is often given by mistake (an image, a table, an archive), else null.
inline const char* LooksLikeOtherFormat(const char* data) {
  struct Magic {
    const char* name;
    size_t at;
    std::string_view bytes;
  };
  static constexpr Magic kMagics[] = {
      {"JPEG", 0, std::string_view("\xff\xd8\xff", 3)},
      {"PNG", 0, std::string_view("\x89PNG\r\n\x1a\n", 8)},
      {"GIF", 0, "GIF8"},
      {"WebP", 8, "WEBP"},
      {"Parquet", 0, "PAR1"},
      {"ZIP", 0, std::string_view("PK\x03\x04", 4)},
      {"NumPy .npy", 0, std::string_view("\x93NUMPY", 6)},
  };
  for (const Magic& m : kMagics) {
    if (std::string_view(data + m.at, m.bytes.size()) == m.bytes) return m.name;
  }
  return nullptr;
}

// The record starting at `offset` has a header whose CRC does not match. `header`, when given,
// is what an uncompressed reader found there: at the start of a file that begins like GZIP or
// ZLIB data, the message says which compression_type to pass; like an image, a table or an
// archive, that it is not a TFRecord file.
inline Status CorruptedHeader(const std::string& path, uint64_t offset,
                              const char* header = nullptr) {
  const char* other = header != nullptr && offset == 0 ? LooksLikeOtherFormat(header) : nullptr;
  if (other != nullptr) {
    return errors::DataLoss("not a TFRecord file: ", path, " holds ", other,
                            " data (its first bytes are no record header)");
  }
  const char* compression = header != nullptr && offset == 0 ? LooksCompressed(header) : nullptr;
  if (compression != nullptr) {
    return errors::DataLoss("corrupted record at ", offset, " in ", path,
                            " (length CRC mismatch): the file starts like ", compression,
                            " data; pass compression_type='", compression, "'");
  }
  return errors::DataLoss("corrupted record at ", offset, " in ", path, " (length CRC mismatch)");
}

// The payload of the record starting at `offset` does not match its CRC. Like TensorFlow, the
// position reported is the payload's.
inline Status CorruptedPayload(const std::string& path, uint64_t offset) {
  return errors::DataLoss("corrupted record at ", offset + kHeaderSize, " in ", path,
                          " (data CRC mismatch)");
}

// The record starting at `offset` announces `length` payload bytes but the data ends first.
inline Status TruncatedRecord(const std::string& path, uint64_t offset, uint64_t length,
                              uint64_t available) {
  return errors::DataLoss("truncated record at ", offset, " in ", path, ": ", length,
                          " payload bytes and a 4-byte CRC expected, ", available, " bytes left");
}

// The payload of a whole framed record of `framed_length` bytes read at `offset` (`framed`),
// once its header CRC, the length an index gave for it and its payload CRC check out.
// Checks the header (kHeaderSize bytes) of a record an index says is `framed_length` bytes long:
// readers check it before reading the payload, so a lying index costs no payload-sized read.
inline Status CheckIndexedHeader(const char* header, uint64_t framed_length, uint64_t offset,
                                 const std::string& path) {
  uint64_t length = 0;
  if (framed_length < kFramingSize || !DecodeHeader(header, &length)) {
    return CorruptedHeader(path, offset);
  }
  if (length != framed_length - kFramingSize) {
    return errors::DataLoss("index says the record at ", offset, " in ", path, " has ",
                            framed_length, " bytes but it has ", length + kFramingSize,
                            " (was the file rewritten after its index?)");
  }
  return Status::OK();
}

inline Status CheckFramedRecord(const char* framed, uint64_t framed_length, uint64_t offset,
                                const std::string& path, std::string* payload) {
  SWIGFLOW_RETURN_IF_ERROR(CheckIndexedHeader(framed, framed_length, offset, path));
  const uint64_t length = framed_length - kFramingSize;
  const char* data = framed + kHeaderSize;
  if (!PayloadMatches(data, length, data + length)) return CorruptedPayload(path, offset);
  payload->assign(data, length);
  return Status::OK();
}

}  // namespace record_format
}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_FORMAT_H_
