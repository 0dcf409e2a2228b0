#include "swigflow/data/file_readers.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace data {

namespace {

// A reader keeps the previous file's buffer for the next unless it grew this large (a file of
// huge records): then it goes back to the allocator.
constexpr size_t kMaxSpareBuffer = size_t{4} << 20;

// A chunk that outgrows an eighth of kChunkBytes gets its full size at once rather than by
// doubling: each doubling moved what was appended so far into a larger block, memory new to the
// process in a first epoch. A chunk stops past kChunkBytes, so this holds it whenever its last
// record is under a quarter of that; the chunks of small files stay small.
constexpr size_t kChunkReserve = kChunkBytes + kChunkBytes / 4;

void MakeRoom(std::string* data, size_t more) {
  const size_t needed = data->size() + more;
  if (needed > data->capacity() && needed > kChunkBytes / 8) {
    data->reserve(std::max(needed, kChunkReserve));
  }
}

// Taken chunks kept for the readers to fill again (their record entries; buffers come from the
// pool). A reader woken to refill the window reads kWakeBatch files or more, each into a chunk of
// its own: keeping that many means small files are read without allocating.
constexpr size_t kSpareChunks = 2 * FileReaders::kWakeBatch;
constexpr size_t kSpareBytes = kSpareChunks * kChunkRecords * sizeof(Chunk::Entry);

// Idle chunk buffers a pipeline keeps: about what 8 parallel reads have in flight, their chunks
// ahead and those the elements in the queues refer to. A buffer given back to the allocator
// returns to the arena of the thread that made it, so another reader's next buffer is memory new
// to the process, with a page fault per 4 KiB. (bench/remote_bench.py, 8 files: ~55 MiB of buffers
// circulate; a pool of 20 MiB gave as many back as it kept: 86 page faults per MB read, 72 with
// this one.)
constexpr size_t kIdleBufferBytes = size_t{64} << 20;

// The heap memory a chunk holds.
size_t Capacity(const Chunk& chunk) {
  return (chunk.data != nullptr ? chunk.data->capacity() : 0) +
         chunk.entries.capacity() * sizeof(Chunk::Entry);
}

}  // namespace

std::shared_ptr<ChunkBuffers> NewChunkBuffers() {
  return ChunkBuffers::Create(kIdleBufferBytes, kMaxSpareBuffer);
}

FileReaders::FileReaders(std::function<const std::string&(uint32_t)> path,
                         const io::RecordOptions& options, bool stop_at_damage, int threads,
                         size_t open_ahead, StageCounters* counters,
                         std::atomic<int64_t>* take_wait_ns, std::shared_ptr<ChunkBuffers> buffers)
    : path_(std::move(path)),
      options_(options),
      stop_at_damage_(stop_at_damage),
      open_ahead_(open_ahead),
      counters_(counters),
      take_wait_ns_(take_wait_ns),
      buffers_(std::move(buffers)) {
  spares_.reserve(kSpareChunks);
  try {
    for (int t = 0; t < std::max(threads, 1); ++t) threads_.emplace_back([this] { Run(); });
  } catch (...) {  // a thread could not start: stop the others before the members go
    Stop();
    for (auto& t : threads_) t.join();
    throw;
  }
}

FileReaders::~FileReaders() {
  Stop();
  for (auto& t : threads_) t.join();
  io::EndReadGroup(read_group_);  // no thread is left to open a file in it
}

void FileReaders::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    work_.notify_all();
    ready_.notify_all();
  }
  // A thread inside a remote read would finish it first (up to the store's timeout).
  io::CancelReads(read_group_);
}

void FileReaders::Begin(std::vector<uint32_t> files, size_t active) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_ = std::move(files);
    active_ = std::max<size_t>(active, 1);
    next_ = start_next_ = queued_bytes_ = 0;
    window_.clear();
    FillWindow();
  }
  work_.notify_all();
}

void FileReaders::End() {
  std::unique_lock<std::mutex> lock(mu_);
  ending_ = true;
  ready_.wait(lock, [&] { return busy_ == 0; });
  ending_ = false;
  window_.clear();
  files_.clear();
  next_ = start_next_ = queued_bytes_ = 0;
}

void FileReaders::FillWindow(std::map<size_t, Job>::node_type spare) {
  while (next_ < files_.size() && window_.size() < active_ + kFilesAhead) {
    if (spare.empty()) {
      window_[next_].file = files_[next_];
    } else {  // a released job's node: no allocation under the lock
      spare.key() = next_;
      Job& job = spare.mapped();
      job.file = files_[next_];
      job.head = job.count = 0;
      job.started = job.busy = job.done = job.released = false;
      window_.insert(std::move(spare));
      spare = {};
    }
    ++next_;
  }
}

FileReaders::Job* FileReaders::Pick() {
  if (stopped_ || ending_) return nullptr;
  // The first active_ unreleased files include every file the consumer has open.
  size_t i = 0;
  for (auto it = window_.begin(); it != window_.end() && i < active_; ++it, ++i) {
    Job& job = it->second;
    if (job.started && !job.busy && !job.done && !job.released && job.count < kChunksAhead) {
      return &job;
    }
  }
  if (start_next_ >= next_) return nullptr;  // every job in the window is started
  // Jobs not started are the window's last next_ - start_next_, so this one's place is:
  const size_t place = window_.size() - (next_ - start_next_);
  if (place >= active_ + open_ahead_ && queued_bytes_ >= kAheadBytes) {
    over_budget_ = true;
    return nullptr;
  }
  return &window_.find(start_next_)->second;
}

bool FileReaders::Take(size_t k, Chunk* chunk) {
  chunk->Clear();  // before the lock: a buffer elements hold is let go (to its pool, maybe)
  Chunk dropped;   // freed after the lock
  bool wake_reader = false;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = window_.find(k);
  if (it == window_.end()) {  // taken out of order: a bug in the consumer, not in the data
    chunk->Clear();
    chunk->end = true;
    chunk->status = errors::Internal("file ", k, " of the sequence is not being read");
    return true;
  }
  Job& job = it->second;
  if (job.count == 0 && !stopped_) {
    // Readers may all be asleep (they are woken in batches): make sure one comes for it.
    if (!job.busy) work_.notify_one();
    waiting_for_ = k;
    const int64_t start = NowNs();  // only when blocked
    ready_.wait(lock, [&] { return stopped_ || job.count > 0; });
    if (take_wait_ns_ != nullptr) AddTo(take_wait_ns_, NowNs() - start);
    waiting_for_ = kNobody;
  }
  if (stopped_) return false;
  wake_reader = job.count == kChunksAhead;  // its reader stopped for room: there is some now
  Chunk& next = job.chunks[job.head];
  std::swap(*chunk, next);
  Recycle(&next, &dropped);  // the consumer's previous chunk
  job.head = (job.head + 1) % kChunksAhead;
  --job.count;
  queued_bytes_ -= chunk->bytes();
  if (over_budget_ && queued_bytes_ <= kAheadBytes / 2) {  // refill in one batch
    over_budget_ = false;
    wake_reader = true;
  }
  // Its last chunk: the file is released now, saving the consumer's Release a lock.
  if (chunk->end && ReleaseLocked(it)) wake_reader = true;
  lock.unlock();
  if (wake_reader) work_.notify_one();
  return true;
}

void FileReaders::Recycle(Chunk* chunk, Chunk* dropped) {
  const size_t bytes = Capacity(*chunk);
  if (spares_.size() < kSpareChunks && spare_bytes_ + bytes <= kSpareBytes) {
    spare_bytes_ += bytes;
    spares_.push_back(std::move(*chunk));
  } else {
    *dropped = std::move(*chunk);
  }
}

void FileReaders::Release(size_t k) {
  bool wake_reader;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = window_.find(k);
    if (it == window_.end()) return;  // released already, with its last chunk
    wake_reader = ReleaseLocked(it);
  }
  if (wake_reader) work_.notify_one();
}

bool FileReaders::ReleaseLocked(std::map<size_t, Job>::iterator it) {
  Job& job = it->second;
  for (size_t c = 0; c < job.count; ++c) {  // abandoned before its end
    queued_bytes_ -= job.chunks[(job.head + c) % kChunksAhead].bytes();
  }
  if (job.busy) {
    job.released = true;
    FillWindow();
  } else {
    FillWindow(window_.extract(it));
  }
  // Wake a reader once per kWakeBatch files, not per file: a reader reads every file there is
  // room for before it sleeps, so small files are read in batches, without a switch each.
  // Files opened ahead wait on round trips, which a batch would queue up: one per release.
  if (++released_since_wake_ < (open_ahead_ > 0 ? 1 : kWakeBatch)) return false;
  released_since_wake_ = 0;
  return true;
}

void FileReaders::Run() {
  SetCurrentThreadName("sf-read");
  io::SetThreadReadGroup(read_group_);
  std::string spare;  // the last file's buffer, for the next
  Chunk chunk;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    Job* job = nullptr;
    work_.wait(lock, [&] { return stopped_ || (job = Pick()) != nullptr; });
    if (stopped_) return;
    if (!job->started) {
      job->started = true;
      ++start_next_;
    }
    job->busy = true;
    ++busy_;
    if (chunk.entries.capacity() == 0 && !spares_.empty()) {  // no memory of its own
      chunk = std::move(spares_.back());
      spares_.pop_back();
      spare_bytes_ -= Capacity(chunk);
    }
    lock.unlock();
    const int64_t start = counters_ != nullptr ? NowNs() : 0;
    chunk.Clear();
    ReadChunk(job, &chunk, &spare);
    if (counters_ != nullptr) CountChunk(chunk, NowNs() - start);
    lock.lock();

    job->busy = false;
    --busy_;
    job->done = chunk.end;
    if (job->released) {  // what it read is dropped: `chunk` is filled again next time
      for (auto it = window_.begin(); it != window_.end(); ++it) {
        if (&it->second == job) {
          FillWindow(window_.extract(it));
          break;
        }
      }
    } else {
      queued_bytes_ += chunk.bytes();
      std::swap(job->chunks[(job->head + job->count) % kChunksAhead], chunk);
      ++job->count;
    }
    if (waiting_for_ != kNobody || (ending_ && busy_ == 0)) {
      lock.unlock();  // the waiter takes the lock at once: do not make it wait for this one
      ready_.notify_all();
      lock.lock();
    }
  }
}

void FileReaders::CountChunk(const Chunk& chunk, int64_t ns) {
  AddTo(&counters_->busy_ns, ns);
  AddTo(&counters_->elements, 1);
  AddTo(&counters_->records, static_cast<int64_t>(chunk.size()));
  AddTo(&counters_->bytes, static_cast<int64_t>(chunk.bytes()));
}

void FileReaders::ReadChunk(Job* job, Chunk* chunk, std::string* spare) {
  const uint32_t file = job->file;
  // A C++ exception (out of memory) ends the file with its Status instead of std::terminate.
  Status s = CatchExceptions([&] {
    if (job->scanner == nullptr) {
      SWIGFLOW_RETURN_IF_ERROR(
          io::RecordScanner::Open(path_(file), options_, &job->scanner, std::move(*spare)));
      job->scanner->set_stop_at_damage(stop_at_damage_);
      if (counters_ != nullptr) AddTo(&counters_->files, 1);
    }
    std::shared_ptr<const void> keeper;
    for (;;) {
      uint64_t offset;
      std::string_view payload;
      const Status next = job->scanner->Next(&offset, &payload, &keeper);
      for (io::RecordDamage& d : job->scanner->TakeDamages()) chunk->AddDamage(file, std::move(d));
      if (!next.ok()) return next;
      const bool lent = keeper != nullptr;
      if (lent) {  // where the file lent it (a remote reader's block): no copy
        chunk->AddLent(file, offset, payload, std::move(keeper));
      } else {
        chunk->Prepare(buffers_.get());
        MakeRoom(chunk->data.get(), payload.size());
        chunk->Add(file, offset, payload);
      }
      if (chunk->size() >= kChunkRecords || chunk->bytes() >= kChunkBytes) return Status::OK();
      // The chunk ends before a read that may wait for the store: its records go on to the
      // consumer meanwhile, and the block they lie in back to the read-ahead once they are
      // taken, rather than both wait for the next block.
      if (lent && !job->scanner->NextInHand()) return Status::OK();
    }
  });
  if (s.ok()) return;  // more to come
  chunk->end = true;
  if (!errors::IsOutOfRange(s)) chunk->status = s;
  if (job->scanner != nullptr) {  // the file is finished: close it, keep its buffer
    std::string buffer = job->scanner->TakeBuffer();
    if (buffer.capacity() <= kMaxSpareBuffer) *spare = std::move(buffer);
    job->scanner.reset();
  }
}

}  // namespace data
}  // namespace swigflow
