#include "swigflow/io/record_scan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "swigflow/io/record_format.h"
#include "swigflow/io/record_reader.h"

namespace swigflow {
namespace io {

using record_format::kFooterSize;
using record_format::kHeaderSize;

namespace {

constexpr size_t kReadChunk = 1 << 20;
// What a scanner reading in place reads into its buffer at a time while it resynchronizes after
// damage. Otherwise it reads there only what a record straddling two of the file's blocks still
// needs: never bytes past it, which may be still on their way from the store.
constexpr size_t kInPlaceChunk = 64 << 10;
// While resynchronizing, a candidate header claiming more than this (or than the largest intact
// record seen so far, if larger) is taken for noise: checking it would buffer that much. So the
// memory a resync holds is bounded by the file's own records, never by what damage claims.
constexpr uint64_t kMinResyncLimit = uint64_t{64} << 20;

}  // namespace

const char* DamageKindName(RecordDamage::Kind kind) {
  switch (kind) {
    case RecordDamage::Kind::kLengthCrc:
      return "length CRC mismatch";
    case RecordDamage::Kind::kDataCrc:
      return "data CRC mismatch";
    case RecordDamage::Kind::kTruncated:
      return "truncated record";
    case RecordDamage::Kind::kStream:
      return "damaged compressed stream";
    case RecordDamage::Kind::kUndecodable:
      return "undecodable image";
    case RecordDamage::Kind::kUnparsable:
      return "unparsable record";
  }
  return "damage";
}

Status RecordScanner::Open(const std::string& path, const RecordOptions& options,
                           std::unique_ptr<RecordScanner>* scanner, std::string buffer) {
  uint64_t file_size;
  std::unique_ptr<InputStream> stream;
  const RandomAccessFile* file = nullptr;
  // Uncompressed, the file is read straight into the scanner's own buffer: no second buffer.
  RecordOptions direct = options;
  if (options.compression == Compression::kNone) direct.buffer_size = 0;
  SWIGFLOW_RETURN_IF_ERROR(OpenRecordStream(path, direct, &file_size, &stream, &file));
  bool sized = false;
  bool in_place = false;
  if (options.compression != Compression::kNone) {
    file_size = kUnknownSize;
  } else {
    sized = static_cast<const FileInputStream&>(*stream).file().regular();
    in_place = file->ReadsFromMemory();
  }
  scanner->reset(new RecordScanner(path, std::move(stream), file, file_size, sized, in_place,
                                   std::move(buffer)));
  return Status::OK();
}

std::string RecordScanner::TakeBuffer() {
  std::string buffer = std::move(buffer_);
  buffer.clear();
  buffer_.clear();
  head_ = 0;
  base_ = 0;
  ended_ = true;
  return buffer;
}

void RecordScanner::AddDamage(RecordDamage::Kind kind, uint64_t offset, uint64_t resume,
                              std::string message) {
  message = file_->Reported(errors::DataLoss(std::move(message))).message();
  damages_.push_back({kind, offset, resume, records_, std::move(message)});
}

Status RecordScanner::Fill(uint64_t n, uint64_t* available) {
  while (buffer_.size() - head_ < n && !ended_) {
    if (head_ > 0 && head_ >= buffer_.size() / 2) {  // drop consumed bytes, amortized O(1)
      buffer_.erase(0, head_);
      base_ += head_;
      head_ = 0;
    }
    // An uncompressed file's lengths were checked against its size, so n bytes exist. In a
    // compressed stream they may not: grow by at most what is already buffered, so memory stays
    // within twice the data actually there, whatever a header claims.
    const uint64_t least = in_place_ ? (resyncing_ ? kInPlaceChunk : 0) : kReadChunk;
    uint64_t want = std::max<uint64_t>(n - (buffer_.size() - head_), least);
    if (file_size_ == kUnknownSize) {
      want = std::min<uint64_t>(want, std::max<uint64_t>(kReadChunk, buffer_.size()));
    } else if (sized_) {  // the data is the file as it was at Open
      want = std::min<uint64_t>(want, file_size_ - (base_ + buffer_.size()));
    }
    const size_t old = buffer_.size();
    buffer_.resize(old + want);
    size_t got = 0;
    const Status s = stream_->Read(want, &buffer_[old], &got);
    buffer_.resize(old + got);
    if (!s.ok()) {
      if (!errors::IsDataLoss(s)) return s;  // I/O failure: not damage, give up
      ended_ = true;
      const uint64_t end = base_ + buffer_.size();
      stream_damage_ = s;  // reported once the data before it is scanned
      stream_damage_at_ = end;
    } else if (got < want || (sized_ && base_ + buffer_.size() >= file_size_)) {
      ended_ = true;
    }
  }
  *available = std::min<uint64_t>(n, buffer_.size() - head_);
  return Status::OK();
}

Status RecordScanner::SkipToEnd(uint64_t* skipped) {
  *skipped = buffer_.size() - head_;
  base_ += buffer_.size();
  buffer_.clear();
  head_ = 0;
  if (!ended_) {
    uint64_t more = 0;
    const Status s = stream_->Skip(UINT64_MAX, &more);
    ended_ = true;
    base_ += more;
    *skipped += more;
    if (!s.ok()) {
      if (!errors::IsDataLoss(s)) return s;
      stream_damage_ = s;
      stream_damage_at_ = base_;
    }
  }
  return Status::OK();
}

Status RecordScanner::Resync(uint64_t* resumed) {
  // Invariant: every offset before position() has been ruled out, and the bytes before it are
  // consumed, so the buffer holds one read chunk plus at most one candidate record.
  const uint64_t limit = std::max(kMinResyncLimit, largest_record_);
  struct Resyncing {
    bool* on;
    ~Resyncing() { *on = false; }
  } resyncing{&resyncing_};
  resyncing_ = true;
  for (;;) {
    SWIGFLOW_DCHECK(head_ < buffer_.size());  // the byte ruled out is still buffered
    Consume(1);
    uint64_t available;
    SWIGFLOW_RETURN_IF_ERROR(Fill(kHeaderSize, &available));
    if (available < kHeaderSize) {  // no record anywhere after: the rest is lost
      Consume(available);
      *resumed = position();
      return Status::OK();
    }
    uint64_t length;
    if (!record_format::DecodeHeader(at(0), &length) || length > limit) continue;
    if (file_size_ != kUnknownSize &&
        !record_format::Fits(length, position() + kHeaderSize, file_size_)) {
      continue;
    }
    const uint64_t framed = kHeaderSize + length + kFooterSize;
    SWIGFLOW_RETURN_IF_ERROR(Fill(framed, &available));
    if (available == framed &&
        record_format::PayloadMatches(at(kHeaderSize), length, at(kHeaderSize + length))) {
      *resumed = position();
      return Status::OK();
    }
  }
}

Status RecordScanner::StopAtDamage() {
  ended_ = true;
  buffer_.clear();
  head_ = 0;
  return errors::OutOfRange("stopped at the damage in ", path_);
}

Status RecordScanner::Next(uint64_t* offset, std::string* record) {
  std::string_view payload;
  SWIGFLOW_RETURN_IF_ERROR(Next(offset, &payload));
  if (record != nullptr) record->assign(payload);
  return Status::OK();
}

Status RecordScanner::NextInPlace(uint64_t* offset, std::string_view* record,
                                  std::shared_ptr<const void>* keeper, bool* found) {
  *found = false;
  if (!in_place_ || ended_) return Status::OK();
  const uint64_t start = position();
  // Bytes still buffered (what damage made the scan read there) are dropped for a record that
  // lies whole in the block lent now; none is asked for (which may wait on the store).
  if (head_ != buffer_.size() && !file_->Holds(start, kHeaderSize)) return Status::OK();
  std::string_view framed;
  SWIGFLOW_RETURN_IF_ERROR(file_->Lend(start, kHeaderSize, &framed, nullptr));
  uint64_t length;
  if (framed.size() != kHeaderSize || !record_format::DecodeHeader(framed.data(), &length) ||
      !record_format::Fits(length, start + kHeaderSize, file_size_)) {
    return Status::OK();
  }
  const uint64_t size = kHeaderSize + length + kFooterSize;
  SWIGFLOW_RETURN_IF_ERROR(file_->Lend(start, static_cast<size_t>(size), &framed, keeper));
  if (framed.size() != size ||
      !record_format::PayloadMatches(framed.data() + kHeaderSize, length,
                                     framed.data() + kHeaderSize + length)) {
    return Status::OK();
  }
  // Nothing stays buffered: the stream goes on after the record.
  buffer_.clear();
  head_ = 0;
  base_ = start + size;
  static_cast<FileInputStream&>(*stream_).Seek(base_);
  *offset = start;
  *record = framed.substr(kHeaderSize, static_cast<size_t>(length));
  ++records_;
  largest_record_ = std::max(largest_record_, length);
  *found = true;
  return Status::OK();
}

bool RecordScanner::NextInHand() const {
  if (!in_place_ || ended_) return true;
  const uint64_t start = position();
  if (start >= file_size_) return true;  // the end: nothing to fetch
  std::string_view header;
  if (!file_->Holds(start, kHeaderSize) ||
      !file_->Lend(start, kHeaderSize, &header, nullptr).ok() || header.size() != kHeaderSize) {
    return false;
  }
  uint64_t length;
  if (!record_format::DecodeHeader(header.data(), &length) ||
      !record_format::Fits(length, start + kHeaderSize, file_size_)) {
    return true;  // damage, told by Next
  }
  return file_->Holds(start, static_cast<size_t>(kHeaderSize + length + kFooterSize));
}

Status RecordScanner::Next(uint64_t* offset, std::string_view* record,
                           std::shared_ptr<const void>* keeper) {
  bool found = false;
  SWIGFLOW_RETURN_IF_ERROR(NextInPlace(offset, record, keeper, &found));
  if (found) return Status::OK();
  if (keeper != nullptr) keeper->reset();  // the payload is read into buffer_
  for (;;) {
    const uint64_t start = position();
    uint64_t available;
    SWIGFLOW_RETURN_IF_ERROR(Fill(kHeaderSize, &available));
    if (available == 0) {
      if (!stream_damage_.ok()) {
        AddDamage(RecordDamage::Kind::kStream, stream_damage_at_, stream_damage_at_,
                  stream_damage_.message());
        stream_damage_ = Status::OK();
      }
      return errors::OutOfRange("end of ", path_, " at ", start);
    }
    if (available < kHeaderSize) {
      Consume(available);
      AddDamage(RecordDamage::Kind::kTruncated, start, position(),
                "truncated record at " + std::to_string(start) + " in " + path_ + ": " +
                    std::to_string(available) + " bytes of a " + std::to_string(kHeaderSize) +
                    "-byte header end the data (TensorFlow ignores them)");
      continue;
    }
    uint64_t length;
    if (!record_format::DecodeHeader(at(0), &length)) {
      // Worded before Resync moves the buffer: an uncompressed file's first bytes may show a
      // compression the caller did not name.
      const std::string message =
          record_format::CorruptedHeader(path_, start, file_size_ != kUnknownSize ? at(0) : nullptr)
              .message();
      uint64_t resumed = start;
      if (!stop_at_damage_) SWIGFLOW_RETURN_IF_ERROR(Resync(&resumed));
      AddDamage(RecordDamage::Kind::kLengthCrc, start, resumed, message);
      if (stop_at_damage_) return StopAtDamage();
      continue;
    }
    // The header checked out, so `length` is what the writer wrote (a lie would need a CRC
    // collision); if the data is shorter, it was cut.
    // For an uncompressed file the length is checked against the bytes left before any is
    // buffered; compressed data is only read as far as it goes.
    const bool fits = file_size_ == kUnknownSize
                          ? length <= UINT64_MAX - kHeaderSize - kFooterSize
                          : record_format::Fits(length, start + kHeaderSize, file_size_);
    const uint64_t framed = kHeaderSize + length + kFooterSize;
    if (fits) SWIGFLOW_RETURN_IF_ERROR(Fill(framed, &available));
    if (!fits || available < framed) {
      uint64_t left;  // the bytes after the header: Fill stops short only where the data ends
      if (stop_at_damage_) {
        left = fits ? available - kHeaderSize
                    : (file_size_ == kUnknownSize ? 0 : file_size_ - start - kHeaderSize);
      } else {
        SWIGFLOW_RETURN_IF_ERROR(SkipToEnd(&available));
        left = available - kHeaderSize;
      }
      AddDamage(RecordDamage::Kind::kTruncated, start, start + kHeaderSize + left,
                record_format::TruncatedRecord(path_, start, length, left).message());
      if (stop_at_damage_) return StopAtDamage();
      continue;
    }
    if (!record_format::PayloadMatches(at(kHeaderSize), length, at(kHeaderSize + length))) {
      Consume(framed);
      AddDamage(RecordDamage::Kind::kDataCrc, start, position(),
                record_format::CorruptedPayload(path_, start).message());
      if (stop_at_damage_) return StopAtDamage();
      continue;
    }
    *offset = start;
    *record = std::string_view(at(kHeaderSize), length);  // Fill moves nothing until the next call
    Consume(framed);
    ++records_;
    largest_record_ = std::max(largest_record_, length);
    return Status::OK();
  }
}

}  // namespace io
}  // namespace swigflow
