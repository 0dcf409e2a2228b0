#include "swigflow/data/record_sources.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/framework/thread_pool.h"
#include "swigflow/io/file.h"
#include "swigflow/io/file_system.h"
#include "swigflow/io/record_reader.h"

namespace swigflow {
namespace data {

namespace {

// Slots of an interleave over `files` files: cycle_length, no more than there are files.
size_t CycleSlots(int cycle_length, size_t files) {
  return static_cast<size_t>(std::max(1, std::min<int>(cycle_length, static_cast<int>(files))));
}

}  // namespace

// --- InterleavedFiles ---------------------------------------------------------------------------

InterleavedFiles::InterleavedFiles(const PipelineOptions& o, FileReaders* readers,
                                   std::vector<uint32_t> files)
    : options_(o),
      readers_(readers),
      file_count_(files.size()),
      slots_(CycleSlots(o.cycle_length, files.size())) {
  readers_->Begin(std::move(files), slots_.size());
  for (auto& slot : slots_) Open(&slot);
}

InterleavedFiles::~InterleavedFiles() { readers_->End(); }

bool InterleavedFiles::Next(Record* record, Status* status) {
  if (finished_ != nullptr) {  // the record it gave last is the caller's no longer
    finished_->chunk.LetGoOfPayloads();
    finished_ = nullptr;
  }
  for (;;) {
    if (open_ == 0 && next_file_ >= file_count_) return false;
    OpenFile& slot = slots_[current_];
    if (!slot.open) Open(&slot);
    if (slot.open) {
      Status s;
      if (NextInSlot(&slot, record, &s)) {
        if (++taken_ >= options_.block_length) Advance();
        return true;
      }
      if (!s.ok()) {
        *status = s;
        return false;
      }
      slot.open = false;  // (taking its last chunk released the file)
      --open_;
    }
    Advance();
  }
}

// The slot's next record (true), or false at the end of its file with *status set when reading
// failed.
bool InterleavedFiles::NextInSlot(OpenFile* slot, Record* record, Status* status) {
  while (slot->next >= slot->chunk.size()) {
    if (slot->chunk.end) {
      *status = slot->chunk.status;
      return false;
    }
    if (!readers_->Take(slot->k, &slot->chunk)) {
      *status = errors::Cancelled("pipeline stopped");
      return false;
    }
    slot->next = 0;
  }
  slot->chunk.Get(slot->next++, record);
  if (slot->next >= slot->chunk.size()) finished_ = slot;
  return true;
}

void InterleavedFiles::Open(OpenFile* slot) {
  if (next_file_ >= file_count_) return;
  slot->open = true;
  slot->k = next_file_++;
  slot->chunk.Clear();  // its memory goes back to the readers with the next Take
  slot->next = 0;
  ++open_;
}

void InterleavedFiles::Advance() {
  taken_ = 0;
  current_ = (current_ + 1) % slots_.size();
}

// --- The computed order -------------------------------------------------------------------------

std::vector<RecordSlot> InterleaveOrder(const PipelineOptions& o,
                                        const std::vector<uint32_t>& files) {
  struct Open {
    bool used = false;
    uint32_t file = 0;
    uint32_t next = 0;
  };
  std::vector<RecordSlot> order;
  std::vector<Open> slots(CycleSlots(o.cycle_length, files.size()));
  size_t next_file = 0;
  size_t open = 0;
  auto open_slot = [&](Open* slot) {
    if (next_file >= files.size()) return;
    *slot = {true, files[next_file++], 0};
    ++open;
  };
  for (Open& slot : slots) open_slot(&slot);
  size_t current = 0;
  int taken = 0;
  auto advance = [&] {
    taken = 0;
    current = (current + 1) % slots.size();
  };
  while (open > 0 || next_file < files.size()) {
    Open& slot = slots[current];
    if (!slot.used) open_slot(&slot);
    if (slot.used) {
      if (slot.next < o.files[slot.file].offsets.size()) {
        order.push_back({slot.file, slot.next++});
        if (++taken >= o.block_length) advance();
        continue;
      }
      slot.used = false;
      --open;
    }
    advance();
  }
  return order;
}

int IndexedWorkers(int cycle_length) { return std::clamp(cycle_length, 1, 8); }

// --- IndexedRecords -----------------------------------------------------------------------------

IndexedRecords::IndexedRecords(const PipelineOptions& o, std::vector<RecordSlot> order,
                               io::FileCache* files, StageCounters* counters,
                               std::atomic<int64_t>* pop_wait_ns,
                               std::shared_ptr<ChunkBuffers> buffers)
    : options_(o),
      order_(std::move(order)),
      files_(files),
      counters_(counters),
      pop_wait_ns_(pop_wait_ns),
      buffers_(std::move(buffers)) {
  const size_t chunks = (order_.size() + kChunkRecords - 1) / kChunkRecords;
  const size_t workers = std::max<size_t>(
      1, std::min<size_t>(IndexedWorkers(o.cycle_length), std::max<size_t>(chunks, 1)));
  for (size_t w = 0; w < workers; ++w) {
    queues_.push_back(std::make_unique<BoundedQueue<Chunk>>(kChunksAhead));
  }
  try {
    for (size_t w = 0; w < workers; ++w) threads_.emplace_back([this, w] { Run(w); });
  } catch (...) {  // a thread could not start: stop the others before the members go
    Stop();
    throw;
  }
}

IndexedRecords::~IndexedRecords() { Stop(); }

bool IndexedRecords::Next(Record* record, Status* status) {
  while (next_ >= chunk_.size()) {
    if (!chunk_.status.ok()) {  // after the records read before the failure
      *status = chunk_.status;
      return false;
    }
    if (taken_chunks_ * kChunkRecords >= order_.size()) return false;
    const int64_t start = counters_ != nullptr ? NowNs() : 0;
    const bool popped = queues_[taken_chunks_ % queues_.size()]->Pop(&chunk_);
    if (counters_ != nullptr) AddTo(pop_wait_ns_, NowNs() - start);
    if (!popped) {
      *status = errors::Cancelled("pipeline stopped");
      return false;
    }
    if (!chunk_.status.ok()) {
      *status = chunk_.status;
      return false;
    }
    ++taken_chunks_;
    next_ = 0;
  }
  chunk_.Get(next_++, record);
  return true;
}

void IndexedRecords::Stop() {
  for (auto& q : queues_) q->Close();
  for (auto& t : threads_) t.join();
}

// A C++ exception (out of memory) ends the worker's data with its Status.
void IndexedRecords::Run(size_t worker) {
  SetCurrentThreadName("sf-read");
  const Status s = CatchExceptions([&] {
    Read(worker);
    return Status::OK();
  });
  if (!s.ok()) {
    Chunk chunk;
    chunk.status = s;
    queues_[worker]->Push(std::move(chunk));
  }
}

void IndexedRecords::Read(size_t worker) {
  const size_t workers = queues_.size();
  std::shared_ptr<const io::RandomAccessFile> file;
  uint32_t file_index = 0;
  std::string payload;
  for (size_t c = worker; c * kChunkRecords < order_.size(); c += workers) {
    const int64_t start = counters_ != nullptr ? NowNs() : 0;
    Chunk chunk;
    chunk.Prepare(buffers_.get());
    const size_t end = std::min(order_.size(), (c + 1) * kChunkRecords);
    for (size_t i = c * kChunkRecords; i < end && chunk.status.ok(); ++i) {
      const RecordSlot& slot = order_[i];
      if (file == nullptr || file_index != slot.file) {  // runs of one file: one lookup
        file_index = slot.file;
        chunk.status = files_->Get(slot.file, &file);
        if (!chunk.status.ok()) break;
      }
      const SourceFile& source = options_.files[slot.file];
      const uint64_t offset = source.offsets[slot.record];
      Status s =
          source.seek_index == nullptr
              ? io::ReadRecordAt(*file, offset, &payload)
              : io::ReadSeekRecord(*file, *source.seek_index, offset,
                                   source.seek_index->records.lengths[slot.record], &payload);
      if (errors::IsDataLoss(s)) {
        chunk.AddDamage(slot.file, Damage(offset, s));
      } else if (!s.ok()) {
        chunk.status = s;
        break;
      } else {
        chunk.Add(slot.file, offset, payload);
      }
    }
    if (counters_ != nullptr) {
      AddTo(&counters_->busy_ns, NowNs() - start);
      AddTo(&counters_->elements, 1);
      AddTo(&counters_->records, static_cast<int64_t>(chunk.size()));
      AddTo(&counters_->bytes, static_cast<int64_t>(chunk.bytes()));
    }
    if (!queues_[worker]->Push(std::move(chunk))) return;
  }
}

io::RecordDamage IndexedRecords::Damage(uint64_t offset, const Status& s) {
  io::RecordDamage d;
  const std::string& m = s.message();
  d.kind = m.find("data CRC") != std::string::npos     ? io::RecordDamage::Kind::kDataCrc
           : m.find("length CRC") != std::string::npos ? io::RecordDamage::Kind::kLengthCrc
                                                       : io::RecordDamage::Kind::kTruncated;
  d.offset = offset;
  d.resume = offset;
  d.records_before = 0;
  d.message = m;
  return d;
}

// --- Sizing -------------------------------------------------------------------------------------

// One reader per file read at once (cycle_length), but no more than the cores (at least 2, 16
// at most): a reader never waits on the consumer, so more threads than cores only add switches
// unless reads block on a device. Measured on 2 cores, 8,192 files of 15 records and
// cycle_length 4: 2 readers read 8-10% faster than 4.
int Readers(int cycle_length, bool remote) {
  // A local read keeps a core busy; a remote one mostly waits on the network (the file system
  // reads ahead on threads of its own), so every file of the cycle gets a reader.
  const int cores = std::max(2, ThreadPool::Default()->num_threads());
  return std::clamp(remote ? cycle_length : std::min(cycle_length, cores), 1, 16);
}

int OpenAhead(int cycle_length) { return std::clamp(cycle_length, 1, 16); }

bool AnyRemote(const PipelineOptions& o) {
  std::string local;
  return std::any_of(o.files.begin(), o.files.end(),
                     [&](const SourceFile& f) { return !io::LocalPath(f.path, &local); });
}

bool AllIndexed(const PipelineOptions& o) {
  return std::all_of(o.files.begin(), o.files.end(), [](const SourceFile& f) { return f.indexed; });
}

// 128, or a quarter of the descriptors this process may have when that is fewer (the rest of
// the program needs some).
size_t OpenFilesCached() {
  struct rlimit limit;
  size_t cached = 128;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    cached = std::min<size_t>(cached, limit.rlim_cur / 4);
  }
  return std::max<size_t>(cached, 4);
}

}  // namespace data
}  // namespace swigflow
