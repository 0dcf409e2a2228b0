#include "swigflow/data/chunk.h"

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace swigflow {
namespace data {

std::shared_ptr<ChunkBuffers> ChunkBuffers::Create(size_t max_bytes, size_t max_buffer) {
  return std::shared_ptr<ChunkBuffers>(new ChunkBuffers(max_bytes, max_buffer));
}

std::shared_ptr<std::string> ChunkBuffers::Get() {
  std::unique_ptr<std::string> buffer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      buffer = std::move(idle_.back());
      idle_.pop_back();
      idle_bytes_ -= buffer->capacity();
    }
  }
  if (buffer == nullptr) buffer = std::make_unique<std::string>();
  // The deleter holds the pool: a buffer outliving the pipeline still has somewhere to go.
  return std::shared_ptr<std::string>(
      buffer.release(), [pool = shared_from_this()](std::string* b) { pool->Put(b); });
}

size_t ChunkBuffers::idle_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_bytes_;
}

void ChunkBuffers::Put(std::string* buffer) {
  std::unique_ptr<std::string> owned(buffer);
  const size_t bytes = owned->capacity();
  if (bytes > max_buffer_) return;
  owned->clear();
  std::lock_guard<std::mutex> lock(mu_);  // (released before `owned` is freed)
  if (idle_bytes_ + bytes > max_bytes_) return;
  try {
    idle_.push_back(std::move(owned));  // (a deleter must not throw: on failure it is freed)
  } catch (const std::bad_alloc&) {
    return;
  }
  idle_bytes_ += bytes;
}

}  // namespace data
}  // namespace swigflow
