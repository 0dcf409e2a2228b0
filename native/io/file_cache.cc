#include "swigflow/io/file_cache.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace swigflow {
namespace io {

FileCache::FileCache(std::function<const std::string&(uint32_t)> path, size_t capacity)
    : path_(std::move(path)), capacity_(std::max<size_t>(capacity, 1)) {}

Status FileCache::Get(uint32_t i, std::shared_ptr<const RandomAccessFile>* file) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(i);
    if (it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.used);
      *file = it->second.file;
      return Status::OK();
    }
  }
  // Opened without the lock, so that other files are served meanwhile. Two threads may open
  // the same file at once: the first to come back is kept.
  std::unique_ptr<RandomAccessFile> opened;
  SWIGFLOW_RETURN_IF_ERROR(RandomAccessFile::Open(path_(i), &opened));
  opens_.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<const RandomAccessFile> shared(std::move(opened));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(i);
  if (it != entries_.end()) {
    *file = it->second.file;
    return Status::OK();
  }
  while (entries_.size() >= capacity_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(i);
  entries_[i] = Entry{shared, lru_.begin()};
  *file = std::move(shared);
  return Status::OK();
}

}  // namespace io
}  // namespace swigflow
