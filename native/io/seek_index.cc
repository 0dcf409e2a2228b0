#include "swigflow/io/seek_index.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/framework/check.h"
#include "swigflow/io/crc32c.h"
#include "swigflow/io/record_format.h"

namespace swigflow {
namespace io {
namespace {

using record_format::DecodeFixed32;
using record_format::DecodeFixed64;
using record_format::EncodeFixed32;
using record_format::EncodeFixed64;
using record_format::kFooterSize;
using record_format::kFramingSize;
using record_format::kHeaderSize;

constexpr char kMagic[8] = {'\x89', 'S', 'F', 'S', 'E', 'E', 'K', '\n'};
constexpr size_t kIndexHeaderBytes = 64;
constexpr size_t kPointBytes = 24;  // before its window
constexpr size_t kEdgeBytes = 64 << 10;
// Compressed bytes read at a time while indexing, and the output buffer's size.
constexpr size_t kScanChunk = 256 << 10;
// A random read's first compressed read covers what the index says the record needs (at least
// kMinRead, at most kScanChunk); later reads take kScanChunk.
constexpr uint64_t kMinRead = 4 << 10;
// A GZIP member whose output is at most this is inflated whole by libdeflate (about twice
// zlib's speed); larger ones stream through zlib, with bounded memory.
constexpr uint64_t kWholeMember = 16 << 20;
// A record's buffer grows by at most this much per step, so a lying length costs memory only as
// the data to fill it arrives.
constexpr size_t kGrowth = 16 << 20;

const char* Name(Compression c) { return c == Compression::kGzip ? "GZIP" : "ZLIB"; }

// Window bits that read a member's header: GZIP's or ZLIB's, at the largest window.
int HeaderWindowBits(Compression c) { return c == Compression::kGzip ? MAX_WBITS + 16 : MAX_WBITS; }

// Trailer bytes after the deflate data of a member: GZIP's CRC32 + ISIZE, ZLIB's Adler-32.
uint64_t TrailerBytes(Compression c) { return c == Compression::kGzip ? 8 : 4; }

// An inflater that ends itself.
struct Inflater {
  z_stream z{};
  bool live = false;
  ~Inflater() {
    if (live) inflateEnd(&z);
  }
  Status Init(int window_bits, const std::string& path) {
    const int ret = inflateInit2(&z, window_bits);
    if (ret != Z_OK) return errors::ResourceExhausted(path, ": inflateInit2 failed (", ret, ")");
    live = true;
    return Status::OK();
  }
};

// What a thread's random reads reuse: an inflater (reset, not re-made: its window stays
// allocated), the compressed input buffer and the scratch that output before a record is
// inflated into. Allocating these per read cost more than inflating a small member.
// A buffer that keeps its largest size (no zero-filling when it grows back).
struct Buffer {
  std::unique_ptr<char[]> data;
  size_t capacity = 0;
  char* Get(size_t n) {
    if (n > capacity) {
      data.reset(new char[n]);
      capacity = n;
    }
    return data.get();
  }
};

struct ReadBuffers {
  Inflater inflater;
  int window_bits = 0;
  std::unique_ptr<char[]> in{new char[kScanChunk]};
  std::unique_ptr<char[]> scratch{new char[kScanChunk]};
  libdeflate_decompressor* whole = libdeflate_alloc_decompressor();  // null: out of memory
  Buffer member_in, member_out;

  ReadBuffers() = default;
  ReadBuffers(const ReadBuffers&) = delete;
  ReadBuffers& operator=(const ReadBuffers&) = delete;
  ~ReadBuffers() {
    if (whole != nullptr) libdeflate_free_decompressor(whole);
  }

  Status Reset(int bits, const std::string& path) {
    if (!inflater.live) {
      window_bits = bits;
      return inflater.Init(bits, path);
    }
    window_bits = bits;
    if (inflateReset2(&inflater.z, bits) != Z_OK) {
      return errors::Internal(path, ": inflateReset2 failed");
    }
    inflater.z.avail_in = 0;  // the last read's leftover input is not this one's
    return Status::OK();
  }
};

Status EdgeCrcs(const RandomAccessFile& file, uint64_t size, uint32_t* head, uint32_t* tail) {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(size, kEdgeBytes));
  std::string bytes(n, '\0');
  size_t got = 0;
  const char* ends[2] = {"first", "last"};
  uint32_t* crcs[2] = {head, tail};
  for (int edge = 0; edge < 2; ++edge) {
    SWIGFLOW_RETURN_IF_ERROR(file.Read(edge == 0 ? 0 : size - n, n, &bytes[0], &got));
    if (got != n) {
      return errors::DataLoss(file.path(), " ended while its ", ends[edge], " ", n,
                              " bytes were read (was it truncated?)");
    }
    *crcs[edge] = crc32c::Mask(crc32c::Value(bytes.data(), n));
  }
  return Status::OK();
}

// Follows TFRecord framing over the uncompressed bytes as they are produced, recording each
// record's offset and framed length. Invariant: start_ is where the record being walked starts;
// have_ bytes of its header are in header_, or (have_ == kHeaderSize consumed) skip_ bytes of its
// payload and footer are still to pass.
class FramingWalker {
 public:
  FramingWalker(const std::string& path, RecordIndex* records) : path_(path), records_(records) {}

  Status Feed(const char* data, size_t n) {
    while (n > 0) {
      SWIGFLOW_DCHECK(have_ <= kHeaderSize && (skip_ == 0 || have_ == kHeaderSize));
      SWIGFLOW_DCHECK(records_->offsets.empty() || skip_ > 0 ||
                      static_cast<uint64_t>(records_->offsets.back()) < start_);
      if (skip_ > 0) {
        const size_t k = static_cast<size_t>(std::min<uint64_t>(skip_, n));
        skip_ -= k;
        data += k;
        n -= k;
        if (skip_ == 0) {
          start_ = next_;
          have_ = 0;
        }
        continue;
      }
      const size_t k = std::min(kHeaderSize - have_, n);
      std::memcpy(header_ + have_, data, k);
      have_ += k;
      data += k;
      n -= k;
      if (have_ < kHeaderSize) break;
      uint64_t length = 0;
      if (!record_format::DecodeHeader(header_, &length)) {
        return record_format::CorruptedHeader(path_, start_);
      }
      if (length > UINT64_MAX - kFramingSize - start_ || length + kFramingSize > INT64_MAX) {
        return errors::DataLoss("corrupted record at ", start_, " in ", path_, ": length ", length,
                                " is impossible");
      }
      records_->offsets.push_back(static_cast<int64_t>(start_));
      records_->lengths.push_back(static_cast<int64_t>(length + kFramingSize));
      next_ = start_ + length + kFramingSize;
      skip_ = length + kFooterSize;
    }
    return Status::OK();
  }

  // The data ended: only between records is a clean end.
  Status Finish() const {
    if (skip_ > 0) {
      const uint64_t length = records_->lengths.back() - kFramingSize;
      return record_format::TruncatedRecord(path_, start_, length, length + kFooterSize - skip_);
    }
    if (have_ > 0) {
      return errors::DataLoss("truncated record at ", start_, " in ", path_, ": ", have_,
                              " of the ", kHeaderSize, " header bytes left");
    }
    return Status::OK();
  }

 private:
  const std::string& path_;
  RecordIndex* const records_;
  char header_[kHeaderSize];
  size_t have_ = 0;
  uint64_t skip_ = 0;
  uint64_t start_ = 0;
  uint64_t next_ = 0;
};

void PutPoint(const SeekPoint& p, std::string* out) {
  char fixed[kPointBytes] = {};
  EncodeFixed64(p.in, fixed);
  EncodeFixed64(p.out, fixed + 8);
  fixed[16] = static_cast<char>(p.bits);
  fixed[17] = static_cast<char>(p.kind);
  EncodeFixed32(static_cast<uint32_t>(p.window.size()), fixed + 20);
  out->append(fixed, kPointBytes);
  out->append(p.window);
}

// The record at `offset` from its whole GZIP member `p` (whose end is `next`, or the file's),
// inflated at once by libdeflate. False when that does not apply or does not succeed exactly
// (the caller then streams through zlib, which also reports any damage precisely).
bool ReadFromWholeMember(const RandomAccessFile& file, const SeekIndex& index,
                         std::vector<SeekPoint>::const_iterator p, uint64_t offset,
                         uint64_t framed_length, ReadBuffers* buffers, Status* status,
                         std::string* payload) {
  if (index.compression != Compression::kGzip || p->kind != SeekPoint::kMemberStart ||
      buffers->whole == nullptr) {
    return false;
  }
  const auto next = p + 1;
  const bool last = next == index.points.end();
  if (!last && next->kind != SeekPoint::kMemberStart) return false;
  const uint64_t in_end = last ? index.compressed_size : next->in;
  const uint64_t out_end = last ? index.uncompressed_size : next->out;
  if (offset + framed_length > out_end || out_end - p->out > kWholeMember ||
      in_end - p->in > 2 * kWholeMember) {
    return false;
  }
  // libdeflate inflates all of the member, zlib only up to the record's end; at about 2.5x
  // zlib's speed, libdeflate is the faster when the record ends past 2/5 of the member.
  if ((offset + framed_length - p->out) * 5 < (out_end - p->out) * 2) return false;
  const size_t in_size = static_cast<size_t>(in_end - p->in);
  const size_t out_size = static_cast<size_t>(out_end - p->out);
  char* in = buffers->member_in.Get(in_size);
  char* out = buffers->member_out.Get(std::max<size_t>(out_size, 1));
  size_t got = 0;
  *status = file.Read(p->in, in_size, in, &got);
  if (!status->ok()) return true;
  size_t used = 0, produced = 0;
  const libdeflate_result r =
      libdeflate_gzip_decompress_ex(buffers->whole, in, got, out, out_size, &used, &produced);
  if (r != LIBDEFLATE_SUCCESS || got != in_size || used != in_size || produced != out_size) {
    return false;
  }
  *status = record_format::CheckFramedRecord(out + (offset - p->out), framed_length, offset,
                                             file.path(), payload);
  return true;
}

// BuildSeekIndex on an open file of `size` bytes.
Status BuildFrom(const RandomAccessFile& file, uint64_t size, Compression compression,
                 uint64_t span, SeekIndex* index) {
  const std::string& path = file.path();
  SeekIndex built;
  built.compression = compression;
  built.compressed_size = size;
  built.span = span;
  SWIGFLOW_RETURN_IF_ERROR(EdgeCrcs(file, size, &built.head_crc, &built.tail_crc));
  built.points.emplace_back();  // the first member starts at (0, 0)

  Inflater inflater;
  SWIGFLOW_RETURN_IF_ERROR(inflater.Init(HeaderWindowBits(compression), path));
  z_stream& z = inflater.z;
  const std::unique_ptr<char[]> in(new char[kScanChunk]), out(new char[kScanChunk]);
  FramingWalker walker(path, &built.records);
  uint64_t fed = 0;          // compressed bytes given to zlib
  uint64_t produced = 0;     // uncompressed bytes so far
  bool member_open = false;  // input of a member whose end was not seen was consumed
  bool ended = false;        // ZLIB: the stream's end was seen
  while (!ended) {
    if (z.avail_in == 0) {
      if (fed == size) break;
      size_t got = 0;
      SWIGFLOW_RETURN_IF_ERROR(file.Read(
          fed, static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - fed)), in.get(), &got));
      if (got == 0) break;  // the file shrank: reported as cut below
      z.next_in = reinterpret_cast<Bytef*>(in.get());
      z.avail_in = static_cast<uInt>(got);
      fed += got;
    }
    const uint64_t member_at = fed - z.avail_in;
    if (!member_open && produced > 0 && built.points.back().in != member_at) {
      // Another member starts here (the stream's first is points[0]).
      SeekPoint p;
      p.in = member_at;
      p.out = produced;
      built.points.push_back(std::move(p));
    }
    const uInt avail_in = z.avail_in;
    z.next_out = reinterpret_cast<Bytef*>(out.get());
    z.avail_out = static_cast<uInt>(kScanChunk);
    // Z_BLOCK: return at each block boundary, where a point may be taken.
    const int ret = inflate(&z, Z_BLOCK);
    const size_t n = kScanChunk - z.avail_out;
    if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
      return errors::DataLoss("corrupted ", Name(compression), " data at compressed byte ",
                              fed - z.avail_in, " in ", path, ": ",
                              z.msg != nullptr ? z.msg : "zlib error");
    }
    if (z.avail_in != avail_in) member_open = true;
    if (n == 0 && z.avail_in == avail_in && ret != Z_STREAM_END && z.avail_in > 0) {
      return errors::DataLoss("corrupted ", Name(compression), " data at compressed byte ",
                              fed - z.avail_in, " in ", path, ": inflate made no progress");
    }
    SWIGFLOW_RETURN_IF_ERROR(walker.Feed(out.get(), n));
    produced += n;
    if (ret == Z_STREAM_END) {
      member_open = false;
      if (compression == Compression::kZlib) {
        ended = true;  // bytes after a ZLIB stream are not data (as the sequential reader)
      } else {
        inflateReset(&z);
      }
      continue;
    }
    // data_type: bit 128 at a block boundary, bit 64 when that block was the last; the low 3
    // bits are the unused bits of the last byte consumed.
    const bool boundary = (z.data_type & 128) != 0 && (z.data_type & 64) == 0;
    if (boundary && member_open && produced - built.points.back().out >= span) {
      SeekPoint p;
      p.kind = SeekPoint::kBlockBoundary;
      p.in = fed - z.avail_in;
      p.out = produced;
      p.bits = static_cast<uint8_t>(z.data_type & 7);
      p.window.resize(kDeflateWindow);
      uInt window_size = 0;
      inflateGetDictionary(&z, reinterpret_cast<Bytef*>(&p.window[0]), &window_size);
      p.window.resize(window_size);
      // A boundary at the member's first byte of output has nothing to point back to.
      if (window_size > 0) built.points.push_back(std::move(p));
    }
  }
  if (member_open || (compression == Compression::kZlib && !ended && size > 0)) {
    return errors::DataLoss("truncated ", Name(compression), " data in ", path,
                            ": it ends at compressed byte ", fed, " inside a ",
                            compression == Compression::kGzip ? "member" : "stream",
                            " (a seek index needs the complete file)");
  }
  SWIGFLOW_RETURN_IF_ERROR(walker.Finish());
  built.uncompressed_size = produced;
  *index = std::move(built);
  return Status::OK();
}

}  // namespace

Status BuildSeekIndex(const std::string& path, Compression compression, uint64_t span,
                      SeekIndex* index) {
  if (compression == Compression::kNone) {
    return errors::InvalidArgument("a seek index is for GZIP or ZLIB files; ", path,
                                   " is uncompressed (its index is a plain one)");
  }
  if (span == 0) return errors::InvalidArgument("the seek span must be positive");
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
  SWIGFLOW_RETURN_IF_ERROR(RandomAccessFile::Open(path, &file, &size));
  return file->Reported(BuildFrom(*file, size, compression, span, index));
}

std::string SerializeSeekIndex(const SeekIndex& index) {
  std::string bytes(kIndexHeaderBytes, '\0');
  char* h = &bytes[0];
  std::memcpy(h, kMagic, sizeof(kMagic));
  EncodeFixed32(kSeekIndexVersion, h + 8);
  EncodeFixed32(static_cast<uint32_t>(index.compression), h + 12);
  EncodeFixed64(index.compressed_size, h + 16);
  EncodeFixed64(index.uncompressed_size, h + 24);
  EncodeFixed32(index.head_crc, h + 32);
  EncodeFixed32(index.tail_crc, h + 36);
  EncodeFixed64(index.points.size(), h + 40);
  EncodeFixed64(index.records.lengths.size(), h + 48);
  EncodeFixed64(index.span, h + 56);
  for (const SeekPoint& p : index.points) PutPoint(p, &bytes);
  char word[8];
  for (int64_t length : index.records.lengths) {
    EncodeFixed64(static_cast<uint64_t>(length), word);
    bytes.append(word, 8);
  }
  EncodeFixed32(crc32c::Mask(crc32c::Value(bytes.data(), bytes.size())), word);
  bytes.append(word, 4);
  return bytes;
}

Status WriteSeekIndex(const std::string& index_path, const SeekIndex& index) {
  const std::string bytes = SerializeSeekIndex(index);
  std::unique_ptr<OutputStream> file;
  SWIGFLOW_RETURN_IF_ERROR(OpenWritable(index_path, WritableFile::kDefaultBufferSize, &file));
  SWIGFLOW_RETURN_IF_ERROR(file->Append(bytes.data(), bytes.size()));
  return file->Close();
}

bool LooksLikeSeekIndex(const char* data, size_t n) {
  return n >= sizeof(kMagic) && std::memcmp(data, kMagic, sizeof(kMagic)) == 0;
}

Status ReadSeekIndex(const std::string& index_path, SeekIndex* index) {
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
  SWIGFLOW_RETURN_IF_ERROR(RandomAccessFile::Open(index_path, &file, &size));
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t got = 0;
  SWIGFLOW_RETURN_IF_ERROR(file->Read(0, bytes.size(), &bytes[0], &got));
  bytes.resize(got);
  return ParseSeekIndex(bytes, index_path, index);
}

Status ParseSeekIndex(const std::string& bytes, const std::string& name, SeekIndex* index) {
  auto bad = [&](auto&&... what) { return errors::InvalidArgument(name, ": ", what...); };
  if (!LooksLikeSeekIndex(bytes.data(), bytes.size())) return bad("not a swigflow seek index");
  if (bytes.size() < kIndexHeaderBytes + 4) return bad("cut short (", bytes.size(), " bytes)");
  const char* h = bytes.data();
  const uint32_t version = DecodeFixed32(h + 8);
  if (version != kSeekIndexVersion) {
    return bad("seek index version ", version, "; this swigflow reads version ", kSeekIndexVersion,
               " (rebuild it with swigflow index)");
  }
  const size_t body = bytes.size() - 4;
  if (crc32c::Mask(crc32c::Value(h, body)) != DecodeFixed32(h + body)) {
    return bad("damaged (its CRC does not match)");
  }
  SeekIndex r;
  const uint32_t compression = DecodeFixed32(h + 12);
  if (compression != static_cast<uint32_t>(Compression::kZlib) &&
      compression != static_cast<uint32_t>(Compression::kGzip)) {
    return bad("unknown compression ", compression);
  }
  r.compression = static_cast<Compression>(compression);
  r.compressed_size = DecodeFixed64(h + 16);
  r.uncompressed_size = DecodeFixed64(h + 24);
  r.head_crc = DecodeFixed32(h + 32);
  r.tail_crc = DecodeFixed32(h + 36);
  const uint64_t point_count = DecodeFixed64(h + 40);
  const uint64_t record_count = DecodeFixed64(h + 48);
  r.span = DecodeFixed64(h + 56);
  size_t at = kIndexHeaderBytes;
  // Counts are bounded by the bytes that hold them before anything is allocated.
  if (point_count == 0 || point_count > (body - at) / kPointBytes) {
    return bad(point_count, " seek points do not fit in the file");
  }
  r.points.resize(point_count);
  for (uint64_t i = 0; i < point_count; ++i) {
    if (body - at < kPointBytes) return bad("seek point ", i, " is cut short");
    SeekPoint& p = r.points[i];
    p.in = DecodeFixed64(h + at);
    p.out = DecodeFixed64(h + at + 8);
    p.bits = static_cast<uint8_t>(h[at + 16]);
    const auto kind = static_cast<uint8_t>(h[at + 17]);
    const uint32_t window = DecodeFixed32(h + at + 20);
    at += kPointBytes;
    if (kind > SeekPoint::kMemberStart) return bad("seek point ", i, " has unknown kind ", kind);
    p.kind = static_cast<SeekPoint::Kind>(kind);
    const bool boundary = p.kind == SeekPoint::kBlockBoundary;
    if (window > body - at || window > kDeflateWindow ||
        (boundary && (window == 0 || window > p.out)) || (!boundary && window != 0)) {
      return bad("seek point ", i, " has a window of ", window, " bytes");
    }
    if (p.bits > 7 || (!boundary && p.bits != 0) || (p.bits > 0 && p.in == 0)) {
      return bad("seek point ", i, " starts at bit ", int{p.bits});
    }
    p.window.assign(h + at, window);
    at += window;
    const bool first = i == 0;
    if (first ? (p.in != 0 || p.out != 0 || boundary)
              : (p.in <= r.points[i - 1].in || p.out < r.points[i - 1].out)) {
      return bad("seek point ", i, " is out of order");
    }
    if ((p.in >= r.compressed_size && !(first && r.compressed_size == 0)) ||
        p.out > r.uncompressed_size) {
      return bad("seek point ", i, " lies past the data");
    }
  }
  if (record_count > (body - at) / 8 || (body - at) != record_count * 8) {
    return bad(record_count, " records do not match the ", body - at, " bytes left");
  }
  r.records.offsets.resize(record_count);
  r.records.lengths.resize(record_count);
  uint64_t offset = 0;
  for (uint64_t i = 0; i < record_count; ++i, at += 8) {
    const uint64_t length = DecodeFixed64(h + at);
    if (length < kFramingSize || length > INT64_MAX || length > r.uncompressed_size - offset) {
      return bad("record ", i, " of ", length, " bytes at ", offset, " does not fit");
    }
    r.records.offsets[i] = static_cast<int64_t>(offset);
    r.records.lengths[i] = static_cast<int64_t>(length);
    offset += length;
  }
  if (offset != r.uncompressed_size) {
    return bad("its records cover ", offset, " of ", r.uncompressed_size, " bytes");
  }
  *index = std::move(r);
  return Status::OK();
}

Status CheckSeekIndex(const SeekIndex& index, const RandomAccessFile& file) {
  uint64_t size = 0;
  SWIGFLOW_RETURN_IF_ERROR(file.Size(&size));
  if (size != index.compressed_size) {
    return errors::FailedPrecondition("the seek index describes ", index.compressed_size,
                                      " bytes but ", file.path(), " has ", size);
  }
  uint32_t head = 0, tail = 0;
  SWIGFLOW_RETURN_IF_ERROR(EdgeCrcs(file, size, &head, &tail));
  if (head != index.head_crc || tail != index.tail_crc) {
    return errors::FailedPrecondition(file.path(),
                                      " was rewritten after its seek index was made (its ",
                                      head != index.head_crc ? "first" : "last", " bytes differ)");
  }
  return Status::OK();
}

namespace {

Status ReadSeekRecordUnreported(const RandomAccessFile& file, const SeekIndex& index,
                                uint64_t offset, uint64_t framed_length, std::string* payload) {
  const std::string& path = file.path();
  if (framed_length < kFramingSize || offset > index.uncompressed_size ||
      framed_length > index.uncompressed_size - offset) {
    return errors::InvalidArgument("no record of ", framed_length, " bytes at ", offset, " in ",
                                   path, ": its seek index describes ", index.uncompressed_size,
                                   " bytes");
  }
  const uint64_t end = offset + framed_length;
  // The last point at or before the record, and the first at or after its end: the record lies
  // in the compressed bytes between them.
  const auto by_out = [](uint64_t out, const SeekPoint& p) { return out < p.out; };
  const auto start = std::upper_bound(index.points.begin(), index.points.end(), offset, by_out) - 1;
  const auto stop = std::lower_bound(index.points.begin(), index.points.end(), end,
                                     [](const SeekPoint& p, uint64_t out) { return p.out < out; });
  const SeekPoint& p = *start;
  SWIGFLOW_DCHECK(start >= index.points.begin() && p.out <= offset);  // points[0] is at (0, 0)
  const uint64_t hint = stop == index.points.end() ? index.compressed_size : stop->in + 8;

  thread_local ReadBuffers buffers;
  Status whole;
  if (ReadFromWholeMember(file, index, start, offset, framed_length, &buffers, &whole, payload)) {
    return whole;
  }
  const bool raw = p.kind == SeekPoint::kBlockBoundary;
  SWIGFLOW_RETURN_IF_ERROR(
      buffers.Reset(raw ? -MAX_WBITS : HeaderWindowBits(index.compression), path));
  z_stream& z = buffers.inflater.z;
  if (raw) {
    if (p.bits > 0) {
      char byte = 0;
      size_t got = 0;
      SWIGFLOW_RETURN_IF_ERROR(file.Read(p.in - 1, 1, &byte, &got));
      if (got != 1) return errors::DataLoss(path, " ends before compressed byte ", p.in);
      inflatePrime(&z, p.bits, static_cast<unsigned char>(byte) >> (8 - p.bits));
    }
    inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(p.window.data()),
                         static_cast<uInt>(p.window.size()));
  }
  bool in_raw = raw;          // the member's header and trailer are not zlib's to read
  uint64_t trailer = 0;       // raw: trailer bytes to pass before the next member
  uint64_t next_in = p.in;    // the next compressed byte to read
  uint64_t position = p.out;  // the uncompressed offset of the next byte inflated
  // The first read takes what the index says the record needs; later ones a whole buffer.
  size_t read_size =
      static_cast<size_t>(std::clamp<uint64_t>(hint - std::min(hint, p.in), kMinRead, kScanChunk));
  std::string framed;
  size_t have = 0;
  bool header_checked = false;  // against the index, as soon as it is inflated
  const auto corrupted = [&](const char* why) {
    return errors::DataLoss("corrupted ", Name(index.compression), " data at compressed byte ",
                            next_in - z.avail_in, " in ", path, " (reading the record at ", offset,
                            "): ", why);
  };
  while (have < framed_length) {
    if (z.avail_in == 0) {
      size_t got = 0;
      if (next_in < index.compressed_size) {
        const size_t want =
            static_cast<size_t>(std::min<uint64_t>(read_size, index.compressed_size - next_in));
        SWIGFLOW_RETURN_IF_ERROR(file.Read(next_in, want, buffers.in.get(), &got));
      }
      read_size = kScanChunk;
      if (got == 0) {
        return errors::DataLoss("truncated ", Name(index.compression), " data in ", path,
                                ": it ends at compressed byte ", next_in, " inside the record at ",
                                offset);
      }
      z.next_in = reinterpret_cast<Bytef*>(buffers.in.get());
      z.avail_in = static_cast<uInt>(got);
      next_in += got;
    }
    if (trailer > 0) {
      const uInt k = static_cast<uInt>(std::min<uint64_t>(trailer, z.avail_in));
      z.next_in += k;
      z.avail_in -= k;
      trailer -= k;
      continue;
    }
    char* into;
    size_t room;
    if (position < offset) {  // output before the record is inflated and dropped
      into = buffers.scratch.get();
      room = static_cast<size_t>(std::min<uint64_t>(kScanChunk, offset - position));
    } else {
      if (have == framed.size()) {
        framed.resize(static_cast<size_t>(std::min<uint64_t>(framed_length, have + kGrowth)));
      }
      into = &framed[have];
      room = std::min<size_t>(framed.size() - have, UINT_MAX);
    }
    z.next_out = reinterpret_cast<Bytef*>(into);
    z.avail_out = static_cast<uInt>(room);
    const uInt avail_in = z.avail_in;
    const int ret = inflate(&z, Z_NO_FLUSH);
    const size_t n = room - z.avail_out;
    if (position >= offset) have += n;
    position += n;
    if (!header_checked && have >= record_format::kHeaderSize) {
      // A crafted index (valid CRCs) may claim any length: the stream's own header must agree
      // before the rest is inflated.
      header_checked = true;
      SWIGFLOW_RETURN_IF_ERROR(
          record_format::CheckIndexedHeader(framed.data(), framed_length, offset, path));
    }
    if (ret == Z_STREAM_END) {
      if (index.compression == Compression::kZlib && have < framed_length) {
        return errors::DataLoss("the ZLIB stream of ", path, " ends at uncompressed byte ",
                                position, ", inside the record at ", offset);
      }
      if (in_raw) {  // the member's trailer, then (GZIP) the next member's header
        trailer = TrailerBytes(index.compression);
        in_raw = false;
        inflateReset2(&z, HeaderWindowBits(index.compression));
      } else {
        inflateReset(&z);
      }
      continue;
    }
    if (ret != Z_OK && ret != Z_BUF_ERROR) {
      return corrupted(z.msg != nullptr ? z.msg : "zlib error");
    }
    if (n == 0 && z.avail_in == avail_in && z.avail_in > 0) {
      return corrupted("inflate made no progress");
    }
  }
  return record_format::CheckFramedRecord(framed.data(), framed_length, offset, path, payload);
}

}  // namespace

Status ReadSeekRecord(const RandomAccessFile& file, const SeekIndex& index, uint64_t offset,
                      uint64_t framed_length, std::string* payload) {
  return file.Reported(ReadSeekRecordUnreported(file, index, offset, framed_length, payload));
}

}  // namespace io
}  // namespace swigflow
