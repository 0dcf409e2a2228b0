#include "swigflow/io/zlib_stream.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "swigflow/framework/check.h"

namespace swigflow {
namespace io {
namespace {

// zlib counts in uInt; larger requests are fed in slices of this size.
constexpr size_t kMaxSlice = 1u << 30;

int WindowBits(Compression compression, int window_bits) {
  return compression == Compression::kGzip ? window_bits + 16 : window_bits;
}

const char* FormatName(Compression compression) {
  return compression == Compression::kGzip ? "GZIP" : "ZLIB";
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Status ZlibInputStream::Create(std::unique_ptr<InputStream> input, Compression compression,
                               const ZlibOptions& options, const std::string& path,
                               std::unique_ptr<ZlibInputStream>* stream) {
  if (compression == Compression::kNone) {
    return errors::InvalidArgument("ZlibInputStream needs ZLIB or GZIP compression");
  }
  std::unique_ptr<ZlibInputStream> s(
      new ZlibInputStream(std::move(input), options, path, compression));
  // The largest window reads every stream, whatever window_bits it was written with (zlib raises
  // 8 to 9 when deflating, so a stream written "with 8" needs more than 8 to read). TensorFlow
  // ignores the zlib fields when reading too.
  const int ret = inflateInit2(&s->z_, WindowBits(compression, MAX_WBITS));
  if (ret != Z_OK) {
    return errors::Internal(path, ": inflateInit2 failed (zlib error ", ret, ")");
  }
  s->initialized_ = true;
  *stream = std::move(s);
  return Status::OK();
}

ZlibInputStream::ZlibInputStream(std::unique_ptr<InputStream> input, const ZlibOptions& options,
                                 std::string path, Compression compression)
    : input_(std::move(input)),
      in_(new char[std::clamp<size_t>(options.input_buffer_size, 1, kMaxSlice)]),
      in_capacity_(std::clamp<size_t>(options.input_buffer_size, 1, kMaxSlice)),
      out_(new char[std::clamp<size_t>(options.output_buffer_size, 1, kMaxSlice)]),
      out_capacity_(std::clamp<size_t>(options.output_buffer_size, 1, kMaxSlice)),
      path_(std::move(path)),
      compression_(compression) {}

ZlibInputStream::~ZlibInputStream() {
  if (initialized_) inflateEnd(&z_);
}

Status ZlibInputStream::ReadInput(size_t* got) {
  const size_t kept = z_.avail_in;
  if (kept > 0) std::memmove(in_.get(), z_.next_in, kept);
  *got = 0;
  Status s = input_->Read(in_capacity_ - kept, in_.get() + kept, got);
  z_.next_in = reinterpret_cast<Bytef*>(in_.get());
  z_.avail_in = static_cast<uInt>(kept + *got);
  return s;
}

Status ZlibInputStream::Inflate(bool* progress, char* into, size_t* direct) {
  // Every call offers out_capacity_ bytes of room, into the cache or (the same amount) straight
  // into the reader's memory: the calls, and so where damage is met, do not depend on which.
  char* const out = into != nullptr ? into : out_.get();
  z_.next_out = reinterpret_cast<Bytef*>(out);
  z_.avail_out = static_cast<uInt>(out_capacity_);
  const uInt avail_in = z_.avail_in;
  const int ret = inflate(&z_, Z_NO_FLUSH);
  const size_t produced = out_capacity_ - z_.avail_out;
  SWIGFLOW_DCHECK(produced <= out_capacity_ && z_.avail_in <= avail_in);
  cache_begin_ = 0;
  cache_end_ = into != nullptr ? 0 : produced;
  *direct = into != nullptr ? produced : 0;
  *progress = produced > 0 || z_.avail_in != avail_in || ret == Z_STREAM_END;
  if (z_.avail_in != avail_in) in_member_ = true;
  member_output_ += produced;
  if (ret == Z_STREAM_END) {
    in_member_ = false;
    member_output_ = 0;
    if (compression_ == Compression::kGzip) {
      inflateReset(&z_);  // another member may follow
    } else {
      zlib_stream_ended_ = true;
    }
  } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
    cache_end_ = 0;
    *direct = 0;  // what the failing call produced is not served
    const uint64_t at = input_->Tell() - z_.avail_in;
    return errors::DataLoss("corrupted ", FormatName(compression_), " data at compressed byte ", at,
                            " in ", path_, ": ", z_.msg != nullptr ? z_.msg : "zlib error");
  }
  return Status::OK();
}

Status ZlibInputStream::Read(size_t n, char* dst, size_t* bytes_read) {
  size_t done = 0;
  Status status;
  while (done < n) {
    SWIGFLOW_DCHECK(cache_begin_ <= cache_end_ && cache_end_ <= out_capacity_);
    const size_t copy = std::min(n - done, cache_end_ - cache_begin_);
    std::memcpy(dst + done, out_.get() + cache_begin_, copy);
    cache_begin_ += copy;
    done += copy;
    if (done == n || zlib_stream_ended_) break;
    bool progress = false;
    size_t direct = 0;  // a call with room for all it may produce writes straight into dst
    status = Inflate(&progress, n - done >= out_capacity_ ? dst + done : nullptr, &direct);
    done += direct;
    if (!status.ok()) break;
    if (!progress) {  // inflate needs more input
      size_t got = 0;
      status = ReadInput(&got);
      if (!status.ok()) break;
      if (got == 0) {  // the end of the compressed file
        // Between deflate blocks (where a writer's flush() leaves the file while it is still
        // being written) the data ends quietly, as in TensorFlow; anywhere else in a member it
        // was cut.
        // inflateMark: -65536 when outside any block; data_type bit 64: the last block began.
        const bool between_blocks =
            inflateMark(&z_) == -65536L && (z_.data_type & 64) == 0 && member_output_ > 0;
        if (z_.avail_in > 0 || (in_member_ && !between_blocks)) {
          status = errors::DataLoss("truncated ", FormatName(compression_), " data in ", path_,
                                    ": it ends at compressed byte ", input_->Tell(), " inside a ",
                                    compression_ == Compression::kGzip ? "member" : "stream",
                                    " (missing or short trailer)");
        }
        break;
      }
    }
  }
  produced_ += done;
  *bytes_read = done;
  return status;
}

Status ZlibInputStream::Skip(uint64_t n, uint64_t* skipped) {
  // Decompressed bytes have to be produced to be skipped.
  char scratch[64 << 10];
  uint64_t done = 0;
  while (done < n) {
    size_t got = 0;
    SWIGFLOW_RETURN_IF_ERROR(
        Read(static_cast<size_t>(std::min<uint64_t>(n - done, sizeof(scratch))), scratch, &got));
    done += got;
    if (got == 0) break;
  }
  *skipped = done;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------

Status ZlibOutputStream::Create(std::unique_ptr<OutputStream> file, Compression compression,
                                const ZlibOptions& options, const std::string& path,
                                std::unique_ptr<ZlibOutputStream>* stream) {
  if (compression == Compression::kNone) {
    return errors::InvalidArgument("ZlibOutputStream needs ZLIB or GZIP compression");
  }
  if (options.flush_mode != Z_NO_FLUSH && options.flush_mode != Z_PARTIAL_FLUSH &&
      options.flush_mode != Z_SYNC_FLUSH && options.flush_mode != Z_FULL_FLUSH) {
    return errors::InvalidArgument("invalid flush_mode ", options.flush_mode,
                                   ": expected Z_NO_FLUSH, Z_PARTIAL_FLUSH, Z_SYNC_FLUSH or "
                                   "Z_FULL_FLUSH");
  }
  if (options.seek_block_size > 0 && compression != Compression::kGzip) {
    return errors::InvalidArgument("seek_block_size needs GZIP: a ZLIB stream has no members");
  }
  std::unique_ptr<ZlibOutputStream> s(
      new ZlibOutputStream(std::move(file), options.output_buffer_size, path, options.flush_mode,
                           options.seek_block_size));
  const int ret = deflateInit2(&s->z_, options.compression_level, Z_DEFLATED,
                               WindowBits(compression, options.window_bits), options.mem_level,
                               options.strategy);
  if (ret != Z_OK) {
    return errors::InvalidArgument("invalid ", FormatName(compression),
                                   " options: compression_level=", options.compression_level,
                                   " window_bits=", options.window_bits,
                                   " mem_level=", options.mem_level,
                                   " strategy=", options.strategy);
  }
  s->initialized_ = true;
  s->z_.next_out = reinterpret_cast<Bytef*>(s->buffer_.get());
  s->z_.avail_out = static_cast<uInt>(s->capacity_);
  *stream = std::move(s);
  return Status::OK();
}

ZlibOutputStream::ZlibOutputStream(std::unique_ptr<OutputStream> file, size_t buffer_size,
                                   std::string path, int flush_mode, uint64_t seek_block_size)
    : file_(std::move(file)),
      buffer_(new char[std::clamp<size_t>(buffer_size, 64, kMaxSlice)]),
      capacity_(std::clamp<size_t>(buffer_size, 64, kMaxSlice)),
      path_(std::move(path)),
      flush_mode_(flush_mode),
      seek_block_size_(seek_block_size) {}

ZlibOutputStream::~ZlibOutputStream() {
  if (!closed_) Close().ok();  // best effort; callers that care call Close() themselves
}

// Runs deflate until it has consumed all input and, for Z_SYNC_FLUSH / Z_FINISH, emitted all
// output; full buffers go to the file as they fill.
Status ZlibOutputStream::Deflate(int flush) {
  for (;;) {
    const int ret = deflate(&z_, flush);
    if (ret == Z_STREAM_ERROR) return errors::Internal(path_, ": zlib deflate failed");
    if (z_.avail_out == 0) {
      SWIGFLOW_RETURN_IF_ERROR(file_->Append(buffer_.get(), capacity_));
      z_.next_out = reinterpret_cast<Bytef*>(buffer_.get());
      z_.avail_out = static_cast<uInt>(capacity_);
      continue;
    }
    if (flush == Z_FINISH ? ret == Z_STREAM_END : z_.avail_in == 0) break;
  }
  if (flush == Z_NO_FLUSH) return Status::OK();
  const size_t pending = capacity_ - z_.avail_out;
  z_.next_out = reinterpret_cast<Bytef*>(buffer_.get());
  z_.avail_out = static_cast<uInt>(capacity_);
  return file_->Append(buffer_.get(), pending);
}

Status ZlibOutputStream::Append(const char* data, size_t n) {
  if (closed_) return errors::FailedPrecondition(path_, ": stream is closed");
  while (n > 0) {
    const size_t slice = std::min(n, kMaxSlice);
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z_.avail_in = static_cast<uInt>(slice);
    SWIGFLOW_RETURN_IF_ERROR(Deflate(Z_NO_FLUSH));
    member_fresh_ = false;
    member_input_ += slice;
    data += slice;
    n -= slice;
  }
  return Status::OK();
}

Status ZlibOutputStream::Flush() {
  if (closed_) return errors::FailedPrecondition(path_, ": stream is closed");
  SWIGFLOW_RETURN_IF_ERROR(Deflate(Z_SYNC_FLUSH));
  member_fresh_ = false;
  return file_->Flush();
}

Status ZlibOutputStream::EndRecord() {
  if (seek_block_size_ > 0 && member_input_ >= seek_block_size_) {
    // Z_FINISH writes the member's trailer; after deflateReset the next deflate() starts a new
    // member with its own header, and nothing refers back across the boundary.
    SWIGFLOW_RETURN_IF_ERROR(Deflate(Z_FINISH));
    if (deflateReset(&z_) != Z_OK) return errors::Internal(path_, ": zlib deflateReset failed");
    member_input_ = 0;
    member_fresh_ = true;
    return Status::OK();
  }
  if (flush_mode_ == Z_NO_FLUSH) return Status::OK();
  return Deflate(flush_mode_);
}

Status ZlibOutputStream::Close() {
  if (closed_) return errors::FailedPrecondition(path_, ": stream is closed");
  closed_ = true;
  // A member that just ended is the file's last: no empty member after it.
  Status status = member_fresh_ ? Status::OK() : Deflate(Z_FINISH);
  deflateEnd(&z_);
  initialized_ = false;
  status.Update(file_->Close());
  return status;
}

Status ZlibOutputStream::Abort() {
  if (closed_) return errors::FailedPrecondition(path_, ": stream is closed");
  closed_ = true;
  // Finished all the same, so a local file keeps every whole record; a remote one is discarded
  // anyway. After a write error this fails too, and the file's own Abort() is what counts.
  if (!member_fresh_) Deflate(Z_FINISH).ok();
  deflateEnd(&z_);
  initialized_ = false;
  return file_->Abort();
}

}  // namespace io
}  // namespace swigflow
