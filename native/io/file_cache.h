// Files opened by number for random access, at most `capacity` at once: the least recently used
// is closed first. Reading records at computed offsets over thousands of files then needs a
// bounded number of descriptors, and a file read in runs (interleave order) is opened once.
#ifndef SWIGFLOW_IO_FILE_CACHE_H_
#define SWIGFLOW_IO_FILE_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"

namespace swigflow {
namespace io {

class FileCache {
 public:
  // path(i): the path of file i.
  FileCache(std::function<const std::string&(uint32_t)> path, size_t capacity);

  FileCache(const FileCache&) = delete;
  FileCache& operator=(const FileCache&) = delete;

  // File i, opened if it is not open. Thread-safe. An evicted file stays open until its last
  // holder lets go.
  Status Get(uint32_t i, std::shared_ptr<const RandomAccessFile>* file);

  // Files opened so far (a file evicted and needed again counts again).
  int64_t opens() const { return opens_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::shared_ptr<const RandomAccessFile> file;
    std::list<uint32_t>::iterator used;  // its place in lru_
  };

  const std::function<const std::string&(uint32_t)> path_;
  const size_t capacity_;
  std::mutex mu_;
  std::list<uint32_t> lru_;                      // most recently used first; guarded by mu_
  std::unordered_map<uint32_t, Entry> entries_;  // guarded by mu_
  std::atomic<int64_t> opens_{0};
};

}  // namespace io
}  // namespace swigflow

#endif  // SWIGFLOW_IO_FILE_CACHE_H_
