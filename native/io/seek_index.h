// Random access into GZIP and ZLIB TFRecord files: an index of seek points, so that a record is
// read by inflating from the nearest point before it instead of from the start of the file.
//
// A seek point is a place where inflating can resume (the method of zlib's examples/zran.c):
//   - a member start: a GZIP member header (or the ZLIB stream header at byte 0). Nothing before
//     it is needed. A file written with a seek block size (ZlibOptions::seek_block_size) is a
//     chain of such members, one every block, each ending at a record boundary;
//   - a deflate block boundary inside a member, taken every `span` output bytes: inflating
//     resumes there from the bit position (the byte offset, and the 0-7 bits of the byte before
//     it that belong to the next block) and the member's last 32 KiB of output (the window its
//     back-references can reach).
//
// Index file, version 1 (integers little endian):
//   header, 64 bytes:
//     magic "\x89SFSEEK\n", u32 version, u32 compression (1 ZLIB, 2 GZIP),
//     u64 compressed size (the file's size), u64 uncompressed size,
//     u32 masked CRC32C of the file's first min(size, 64 KiB) bytes, u32 the same of its last,
//     u64 point count, u64 record count, u64 span
//   each point: u64 compressed offset, u64 uncompressed offset, u8 bits, u8 kind (0 block
//     boundary, 1 member start), u16 0, u32 window size, the window
//   each record: u64 framed length (payload + 16); records tile the uncompressed data from 0
//   u32 masked CRC32C of everything before it
// An index is never trusted blindly: its own CRC, every field's range and the order of its
// points and records are checked when it is read (INVALID_ARGUMENT otherwise), and its size and
// edge CRCs against the file before it is used (a stale index: FAILED_PRECONDITION). Every
// record read is still checked against its framing, its CRCs and its indexed length.
#ifndef SWIGFLOW_IO_SEEK_INDEX_H_
#define SWIGFLOW_IO_SEEK_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/record_index.h"
#include "swigflow/io/zlib_stream.h"

namespace swigflow {
namespace io {

// The deflate window: the most output a back-reference reaches.
constexpr size_t kDeflateWindow = 32 << 10;
// Output bytes between block-boundary points unless told otherwise: about 3% of the data in
// windows, and a read inflates half a span on average.
constexpr uint64_t kDefaultSeekSpan = 1 << 20;
// The index format this code writes and reads.
constexpr uint32_t kSeekIndexVersion = 1;

struct SeekPoint {
  enum Kind : uint8_t { kBlockBoundary = 0, kMemberStart = 1 };
  uint64_t in = 0;   // compressed offset where inflating resumes
  uint64_t out = 0;  // uncompressed offset there
  uint8_t bits = 0;  // kBlockBoundary: bits of byte in - 1 that start the next block
  Kind kind = kMemberStart;
  std::string window;  // kBlockBoundary: the member's last <= 32 KiB of output before `out`
};

struct SeekIndex {
  Compression compression = Compression::kGzip;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint32_t head_crc = 0;  // of the file's first and last kEdgeBytes (masked CRC32C)
  uint32_t tail_crc = 0;
  uint64_t span = kDefaultSeekSpan;
  std::vector<SeekPoint> points;  // by offset; points[0] is the member start at (0, 0)
  RecordIndex records;            // uncompressed offsets and framed lengths
};

// Inflates `path` once, recording a point at every member start and at the first block boundary
// `span` (> 0) output bytes after the last point, and every record's framing (headers checked,
// payload CRCs are the readers' job). Damaged or cut data is DATA_LOSS naming the compressed
// offset; the stream must end complete (a file still being written is not indexed).
Status BuildSeekIndex(const std::string& path, Compression compression, uint64_t span,
                      SeekIndex* index);

// The index file's bytes, and the file itself.
std::string SerializeSeekIndex(const SeekIndex& index);
Status WriteSeekIndex(const std::string& index_path, const SeekIndex& index);

// Parses and checks an index (see above); `name` is the file it came from, for messages. Not an
// index of this kind, or a damaged one, is INVALID_ARGUMENT naming it and what is wrong.
Status ParseSeekIndex(const std::string& bytes, const std::string& name, SeekIndex* index);
Status ReadSeekIndex(const std::string& index_path, SeekIndex* index);

// Whether data starts like a seek index (its magic bytes); `n` bytes are given.
bool LooksLikeSeekIndex(const char* data, size_t n);

// Whether `index` still describes `file` (size and edge CRCs): FAILED_PRECONDITION saying what
// differs when not.
Status CheckSeekIndex(const SeekIndex& index, const RandomAccessFile& file);

// Reads the record at uncompressed `offset`, of `framed_length` bytes (from the index), into
// *payload, inflating from the nearest point before it. Thread-safe for a shared index and file.
// Damage is DATA_LOSS as from the sequential readers.
Status ReadSeekRecord(const RandomAccessFile& file, const SeekIndex& index, uint64_t offset,
                      uint64_t framed_length, std::string* payload);

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_SEEK_INDEX_H_
