// A remote file system for tests whose files lend their bytes (RandomAccessFile::Lend) the way a
// remote reader lends its read-ahead blocks: in blocks of a fixed size, each block fresh memory,
// freed once the file has moved on to another and no one holds the reference Lend gave with it.
// A view kept past its time is then a use after free (ASan). It counts the blocks alive, and can
// hold reads back from an offset on, as a store yet to answer.
#ifndef SWIGFLOW_TESTS_NATIVE_LENDING_FILES_H_
#define SWIGFLOW_TESTS_NATIVE_LENDING_FILES_H_

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "swigflow/framework/status.h"
#include "swigflow/io/file.h"
#include "swigflow/io/file_system.h"

namespace swigflow {
namespace testing {

class LendingFileSystem : public io::RemoteFileSystem {
 public:
  // Every URL opens `blob`; without one, "lend://" + path opens the local file at path.
  explicit LendingFileSystem(size_t block, std::shared_ptr<const std::string> blob = nullptr)
      : block_(block), blob_(std::move(blob)) {}

  Status OpenRead(const std::string& url, std::unique_ptr<io::RandomAccessFile>* file,
                  uint64_t* size) override {
    std::shared_ptr<const std::string> data = blob_;
    if (data == nullptr) {
      auto bytes = std::make_shared<std::string>();
      std::ifstream in(url.substr(std::string_view("lend://").size()), std::ios::binary);
      bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      data = std::move(bytes);
    }
    if (size != nullptr) *size = data->size();
    file->reset(new File(url, std::move(data), this));
    return Status::OK();
  }
  Status OpenWrite(const std::string& url, std::unique_ptr<io::OutputStream>*) override {
    return errors::Unimplemented(url, ": read only");
  }

  // Reads of bytes at or past `offset` wait until Release().
  void HoldBack(uint64_t offset) {
    std::lock_guard<std::mutex> lock(mu_);
    held_back_ = offset;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_back_ = UINT64_MAX;
    }
    released_.notify_all();
  }

  // The blocks alive now.
  size_t live() const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.size();
  }
  // Whether `bytes` lie in a block alive now.
  bool LiesInABlock(std::string_view bytes) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const char* b : live_) {
      if (bytes.data() >= b && bytes.data() + bytes.size() <= b + block_) return true;
    }
    return false;
  }

 private:
  class File : public io::RandomAccessFile {
   public:
    File(std::string url, std::shared_ptr<const std::string> data, LendingFileSystem* fs)
        : RandomAccessFile(std::move(url)), data_(std::move(data)), fs_(fs) {}

    Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
      // A read past the block lent gives it back first, as a remote reader's does.
      if (lent_ != nullptr && offset + n > lent_start_ + lent_size_) lent_.reset();
      fs_->WaitUntilReleased(offset + n);
      const size_t at = static_cast<size_t>(std::min<uint64_t>(offset, data_->size()));
      *bytes_read = std::min(n, data_->size() - at);
      std::copy_n(data_->data() + at, *bytes_read, dst);
      return Status::OK();
    }
    Status Size(uint64_t* size) const override {
      *size = data_->size();
      return Status::OK();
    }
    bool ReadsFromMemory() const override { return true; }
    bool Holds(uint64_t offset, size_t n) const override {
      if (lent_ == nullptr || offset < lent_start_ || offset - lent_start_ > lent_size_) {
        return false;
      }
      return n <= lent_size_ - (offset - lent_start_);
    }
    Status Lend(uint64_t offset, size_t n, std::string_view* view,
                std::shared_ptr<const void>* keeper) const override {
      *view = {};
      if (keeper != nullptr) keeper->reset();
      if (offset >= data_->size()) return Status::OK();
      const uint64_t start = offset - offset % fs_->block_;
      if (lent_ == nullptr || start != lent_start_) {
        lent_.reset();  // the block before goes first, as a remote reader's does
        fs_->WaitUntilReleased(start + 1);
        lent_size_ = static_cast<size_t>(std::min<uint64_t>(fs_->block_, data_->size() - start));
        lent_ = fs_->NewBlock();
        std::copy_n(data_->data() + start, lent_size_, lent_.get());
        lent_start_ = start;
      }
      const size_t at = static_cast<size_t>(offset - start);
      if (n <= lent_size_ - at) {
        *view = std::string_view(lent_.get() + at, n);
        if (keeper != nullptr) *keeper = lent_;
      }
      return Status::OK();
    }

   private:
    const std::shared_ptr<const std::string> data_;
    LendingFileSystem* const fs_;
    mutable std::shared_ptr<char> lent_;
    mutable uint64_t lent_start_ = 0;
    mutable size_t lent_size_ = 0;
  };

  // Waits while bytes before `end` are held back.
  void WaitUntilReleased(uint64_t end) {
    std::unique_lock<std::mutex> lock(mu_);
    released_.wait(lock, [&] { return end <= held_back_; });
  }

  std::shared_ptr<char> NewBlock() {
    char* block = new char[block_];
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_.insert(block);
    }
    return std::shared_ptr<char>(block, [this](char* b) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        live_.erase(b);
      }
      delete[] b;
    });
  }

  const size_t block_;
  const std::shared_ptr<const std::string> blob_;
  mutable std::mutex mu_;
  std::set<const char*> live_;       // guarded by mu_
  uint64_t held_back_ = UINT64_MAX;  // guarded by mu_
  std::condition_variable released_;
};

}  // namespace testing
}  // namespace swigflow

#endif  // SWIGFLOW_TESTS_NATIVE_LENDING_FILES_H_
