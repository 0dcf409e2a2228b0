#include "swigflow/io/file_system.h"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace swigflow {
namespace io {
namespace {

std::mutex remote_mu;
std::shared_ptr<RemoteFileSystem>& Remote() {
  static auto* remote = new std::shared_ptr<RemoteFileSystem>();  // never destroyed: see below
  return *remote;
}

// The remote file system, or UNIMPLEMENTED naming the scheme. Open files hold their own
// reference, so replacing it (or process exit) never pulls it from under a reader.
// A copy, so that a call on it runs outside the lock.
std::shared_ptr<RemoteFileSystem> CurrentRemote() {
  std::lock_guard<std::mutex> lock(remote_mu);
  return Remote();
}

Status GetRemote(const std::string& url, std::shared_ptr<RemoteFileSystem>* fs) {
  *fs = CurrentRemote();
  if (*fs != nullptr) return Status::OK();
  return errors::Unimplemented("File system scheme '", UrlScheme(url), "' not implemented (file: '",
                               url,
                               "'): remote paths are opened through fsspec, which the swigflow "
                               "Python package registers (pip install swigflow[remote])");
}

// A shard cache's local copy of a remote object, answering to the object's URL.
class CachedCopy : public RandomAccessFile {
 public:
  explicit CachedCopy(std::string url) : RandomAccessFile(std::move(url)) {}

  Status Open(std::string copy_path, uint64_t* size) {
    return LocalFile::Open(std::move(copy_path), &copy_, size);
  }
  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    return copy_->Read(offset, n, dst, bytes_read);
  }
  Status Size(uint64_t* size) const override { return copy_->Size(size); }
  void AdviseSequential() const override { copy_->AdviseSequential(); }

 protected:
  Status Damaged(Status s) const override {
    const std::string& copy = copy_->path();
    const bool deleted = unlink(copy.c_str()) == 0 || errno == ENOENT;
    return Status(s.code(), s.message() + "; these bytes came from the shard cache's copy " + copy +
                                (deleted ? ", now deleted: the next read fetches the object again"
                                         : ", which could not be deleted: delete it"));
  }

 private:
  std::unique_ptr<RandomAccessFile> copy_;
};

}  // namespace

Status OpenCachedCopy(const std::string& url, std::string copy_path,
                      std::unique_ptr<RandomAccessFile>* file, uint64_t* size) {
  auto copy = std::make_unique<CachedCopy>(url);
  SWIGFLOW_RETURN_IF_ERROR(copy->Open(std::move(copy_path), size));
  *file = std::move(copy);
  return Status::OK();
}

void SetRemoteFileSystem(std::shared_ptr<RemoteFileSystem> fs) {
  std::lock_guard<std::mutex> lock(remote_mu);
  Remote() = std::move(fs);
}

namespace {
thread_local uint64_t thread_read_group = 0;
}  // namespace

uint64_t NewReadGroup() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void SetThreadReadGroup(uint64_t group) { thread_read_group = group; }

uint64_t ThreadReadGroup() { return thread_read_group; }

void CancelReads(uint64_t group) {
  const std::shared_ptr<RemoteFileSystem> fs = CurrentRemote();
  if (fs != nullptr && group != 0) fs->CancelReads(group);
}

void EndReadGroup(uint64_t group) {
  const std::shared_ptr<RemoteFileSystem> fs = CurrentRemote();
  if (fs != nullptr && group != 0) fs->EndReadGroup(group);
}

std::string UrlScheme(const std::string& path) {
  // A scheme starts with a letter: an absolute path (the common case) is known at once.
  if (path.empty() || !std::isalpha(static_cast<unsigned char>(path[0]))) return "";
  const size_t colon = path.find("://");
  if (colon == std::string::npos) return "";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
    scheme += static_cast<char>(std::tolower(c));
  }
  return scheme;
}

bool LocalPath(const std::string& path, std::string* local) {
  const std::string scheme = UrlScheme(path);
  if (scheme.empty()) {
    *local = path;
    return true;
  }
  if (scheme != "file") return false;
  *local = path.substr(sizeof("file://") - 1);
  return true;
}

Status RandomAccessFile::Open(const std::string& path, std::unique_ptr<RandomAccessFile>* file,
                              uint64_t* size) {
  std::string local;
  if (LocalPath(path, &local)) return LocalFile::Open(std::move(local), file, size);
  std::shared_ptr<RemoteFileSystem> fs;
  SWIGFLOW_RETURN_IF_ERROR(GetRemote(path, &fs));
  return fs->OpenRead(path, file, size);
}

Status OpenWritable(const std::string& path, size_t buffer_size,
                    std::unique_ptr<OutputStream>* file) {
  std::string local;
  if (LocalPath(path, &local)) {
    std::unique_ptr<WritableFile> writable;
    SWIGFLOW_RETURN_IF_ERROR(WritableFile::Create(local, buffer_size, &writable));
    *file = std::move(writable);
    return Status::OK();
  }
  std::shared_ptr<RemoteFileSystem> fs;
  SWIGFLOW_RETURN_IF_ERROR(GetRemote(path, &fs));
  return fs->OpenWrite(path, file);
}

}  // namespace io
}  // namespace swigflow
