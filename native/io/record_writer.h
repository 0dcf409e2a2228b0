// Writes TFRecord files: uncompressed output is byte-identical to TensorFlow's.
#ifndef SWIGFLOW_IO_RECORD_WRITER_H_
#define SWIGFLOW_IO_RECORD_WRITER_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/record_options.h"

namespace swigflow {
namespace io {

// Thread-safe: concurrent calls are serialised, so records never interleave.
class RecordWriter {
 public:
  // Creates or truncates `path`.
  static Status Create(const std::string& path, const RecordOptions& options,
                       std::unique_ptr<RecordWriter>* writer);
  // Closes if Close() was not called (errors are then lost).
  ~RecordWriter();

  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // After any write, flush or close error (a full disk) the writer is failed: the file may end
  // in a partial record, so every later call returns an error naming the first failure, and
  // Close() closes the file but still returns that error, never OK.
  Status WriteRecord(const char* record, size_t n);
  // Makes every record written so far readable from the file.
  Status Flush();
  // Flushes and closes; writing afterwards fails with FAILED_PRECONDITION. After a failure the
  // file is aborted instead (OutputStream::Abort: a remote file never appears).
  Status Close();
  // Closes without completing the file (OutputStream::Abort), for a job that failed before
  // writing all it meant to.
  Status Abort();

  bool closed() {
    std::lock_guard<std::mutex> lock(mu_);
    return output_ == nullptr;
  }
  const std::string& path() const { return path_; }

 private:
  RecordWriter(std::string path, std::unique_ptr<OutputStream> output)
      : path_(std::move(path)), output_(std::move(output)) {}
  Status Closed() const;
  // Records the first failure (mu_ held) and returns s.
  Status Fail(Status s);
  // The error every call returns once failed (mu_ held).
  Status Failed() const;

  const std::string path_;
  std::mutex mu_;
  std::unique_ptr<OutputStream> output_;  // null once closed; guarded by mu_
  Status failure_;                        // the first write error; guarded by mu_
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_RECORD_WRITER_H_
