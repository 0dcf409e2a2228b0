// ZLIB and GZIP streams as TFRecord files use them: the whole file is one compressed stream (not
// one per record). A GZIP file may hold several concatenated members; all are read. A ZLIB file
// is one stream (RFC 1950): bytes after its end are not data.
#ifndef SWIGFLOW_IO_ZLIB_STREAM_H_
#define SWIGFLOW_IO_ZLIB_STREAM_H_

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/input_stream.h"

namespace swigflow {
namespace io {

enum class Compression : int { kNone = 0, kZlib = 1, kGzip = 2 };

// zlib parameters; the defaults are TensorFlow's.
struct ZlibOptions {
  int compression_level = Z_DEFAULT_COMPRESSION;
  int window_bits = MAX_WBITS;  // 8..15; GZIP adds 16 itself
  int mem_level = 9;
  int strategy = Z_DEFAULT_STRATEGY;
  // zlib flush after every record (TFRecordOptions.flush_mode); Z_NO_FLUSH lets zlib choose.
  int flush_mode = Z_NO_FLUSH;
  // GZIP only; 0: off. Ends the member at the first record boundary after this many
  // uncompressed bytes and starts the next, so a file is a chain of independent members (the
  // idea of BGZF) that every GZIP reader still reads as one stream, and a random read
  // (seek_index.h) inflates one member at most.
  uint64_t seek_block_size = 0;
  size_t input_buffer_size = 256 << 10;
  size_t output_buffer_size = 256 << 10;
};

// Decompresses `input`. Tell() counts decompressed bytes.
//
// Damaged streams fail exactly where TensorFlow's reader fails, so both deliver the same records
// before the error: decompressed bytes are served from a cache of output_buffer_size bytes that
// is refilled by one inflate() call only when empty, compressed input is read input_buffer_size
// bytes at a time, and an inflate() call that meets damage fails at once (what it produced is
// not served).
//
// Beyond TensorFlow, which can end silently there: an empty GZIP member is read past (as
// Python's gzip does), and data that ends inside a deflate block or a trailer (a cut file) is
// DATA_LOSS once everything before it has been served. Data that ends between blocks, where a
// writer's flush() leaves a file still being written, ends quietly as in TensorFlow.
class ZlibInputStream : public InputStream {
 public:
  static Status Create(std::unique_ptr<InputStream> input, Compression compression,
                       const ZlibOptions& options, const std::string& path,
                       std::unique_ptr<ZlibInputStream>* stream);
  ~ZlibInputStream() override;

  Status Read(size_t n, char* dst, size_t* bytes_read) override;
  Status Skip(uint64_t n, uint64_t* skipped) override;
  uint64_t Tell() const override { return produced_; }

 private:
  ZlibInputStream(std::unique_ptr<InputStream> input, const ZlibOptions& options, std::string path,
                  Compression compression);
  // Appends up to in_capacity_ - avail_in bytes of compressed input after the unconsumed ones.
  Status ReadInput(size_t* got);
  // One inflate() call into the (empty) cache, or into `into` when not null (*direct: the bytes
  // written there); *progress: it produced output, consumed input or ended a member (else it
  // needs more input).
  Status Inflate(bool* progress, char* into, size_t* direct);

  const std::unique_ptr<InputStream> input_;
  const std::unique_ptr<char[]> in_;
  const size_t in_capacity_;
  const std::unique_ptr<char[]> out_;
  const size_t out_capacity_;
  const std::string path_;
  const Compression compression_;
  z_stream z_{};
  bool initialized_ = false;
  bool zlib_stream_ended_ = false;  // ZLIB only: the single stream is complete
  bool in_member_ = false;          // input of an unfinished member or stream was consumed
  uint64_t member_output_ = 0;      // bytes the unfinished member or stream produced so far
  // Invariant: out_[cache_begin_, cache_end_) are decompressed bytes not yet read.
  size_t cache_begin_ = 0;
  size_t cache_end_ = 0;
  uint64_t produced_ = 0;  // bytes handed to readers
};

// Compresses into `file`, which it owns.
class ZlibOutputStream : public OutputStream {
 public:
  static Status Create(std::unique_ptr<OutputStream> file, Compression compression,
                       const ZlibOptions& options, const std::string& path,
                       std::unique_ptr<ZlibOutputStream>* stream);
  ~ZlibOutputStream() override;

  Status Append(const char* data, size_t n) override;
  // Z_SYNC_FLUSH: everything appended so far can be decompressed from the file.
  Status Flush() override;
  // Finishes the stream (Z_FINISH) and closes the file.
  Status Close() override;
  // Applies ZlibOptions::flush_mode, or ends the member after seek_block_size bytes.
  Status EndRecord() override;
  // Finishes the stream if it can, then aborts the file.
  Status Abort() override;
  bool CompletesWhenDropped() const override { return file_->CompletesWhenDropped(); }

 private:
  ZlibOutputStream(std::unique_ptr<OutputStream> file, size_t buffer_size, std::string path,
                   int flush_mode, uint64_t seek_block_size);
  Status Deflate(int flush);

  std::unique_ptr<OutputStream> file_;
  const std::unique_ptr<char[]> buffer_;
  const size_t capacity_;
  const std::string path_;
  const int flush_mode_;
  const uint64_t seek_block_size_;
  z_stream z_{};
  bool initialized_ = false;
  bool closed_ = false;
  uint64_t member_input_ = 0;  // bytes appended to the member being written
  bool member_fresh_ = false;  // a member just ended and nothing was deflated since
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_ZLIB_STREAM_H_
