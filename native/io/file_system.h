// Which file a path names: local paths and file:// URLs are POSIX files; any other
// scheme://... URL (s3://, gs://, http://, memory://...) goes to the one remote file system the
// Python package registers, backed by fsspec. Without one, such a URL is UNIMPLEMENTED, never
// "No such file or directory".
#ifndef SWIGFLOW_IO_FILE_SYSTEM_H_
#define SWIGFLOW_IO_FILE_SYSTEM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"

namespace swigflow {
namespace io {

class RemoteFileSystem {
 public:
  virtual ~RemoteFileSystem() = default;

  // Opens `url` for reading; *size (when not null) is its size at the open.
  virtual Status OpenRead(const std::string& url, std::unique_ptr<RandomAccessFile>* file,
                          uint64_t* size) = 0;

  // Opens `url` for writing. Its contents appear only when Close() returns OK, where the backend
  // allows (a temporary name renamed, an upload committed): a failed write, or one never closed,
  // leaves no file that looks complete.
  virtual Status OpenWrite(const std::string& url, std::unique_ptr<OutputStream>* file) = 0;

  // Abandons the reads of the files opened in read group `group` (below): a read waiting on
  // the store fails with CANCELLED as soon as it can, and so does every later one.
  virtual void CancelReads(uint64_t group) {}

  // Forgets read group `group`: its owner is gone and no thread opens files in it any more.
  // Until then a cancelled group stays cancelled, so that a file whose open was under way
  // when CancelReads ran is abandoned too.
  virtual void EndReadGroup(uint64_t group) {}
};

// Opens `copy_path`, a local copy of remote `url` (a shard cache's, which a remote file system
// may answer an open with), to be read natively under the URL's name. Damage found in it
// (RandomAccessFile::Reported) deletes the copy, so that the next open fetches the object
// again, and the report names the copy.
Status OpenCachedCopy(const std::string& url, std::string copy_path,
                      std::unique_ptr<RandomAccessFile>* file, uint64_t* size);

// Replaces the remote file system (null: none). Files already open keep theirs.
void SetRemoteFileSystem(std::shared_ptr<RemoteFileSystem> fs);

// Read groups: the remote files a thread opens belong to the group set on it, so that the
// owner of several reader threads (a pipeline) can abandon their reads at once when it stops,
// rather than wait for a stalled store. 0 is no group.
uint64_t NewReadGroup();
void SetThreadReadGroup(uint64_t group);
uint64_t ThreadReadGroup();
// RemoteFileSystem::CancelReads(group) and EndReadGroup(group) on the remote file system, if
// there is one.
void CancelReads(uint64_t group);
void EndReadGroup(uint64_t group);

// The scheme of "scheme://rest" (lower case), or "" for a local path. A scheme is a letter
// followed by letters, digits, '+', '-' or '.' (RFC 3986).
std::string UrlScheme(const std::string& path);

// The local path of a local path or file:// URL ("file:///tmp/x" -> "/tmp/x"); false for any
// other URL.
bool LocalPath(const std::string& path, std::string* local);

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_FILE_SYSTEM_H_
