// Records on their way from the readers to the elements: chunks of consecutive records in one
// buffer, which the elements whose records lie there keep alive (ChunkBuffers), so that a
// record's bytes are copied once between the file and Python (into the Python object), not once
// per stage.
#ifndef SWIGFLOW_DATA_CHUNK_H_
#define SWIGFLOW_DATA_CHUNK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/framework/status.h"
#include "swigflow/io/record_scan.h"

namespace swigflow {
namespace data {

// A pool of chunk buffers. Each buffer comes back here when the last chunk or element holding it
// lets go (on whatever thread), and is filled again: memory that stays with the pipeline, where a
// buffer given back to the allocator is returned to the arena of the thread that made it, and
// another reader's next buffer is memory new to the process, with a page fault per 4 KiB.
// Thread-safe; the buffers keep the pool alive (an element may outlive its pipeline).
class ChunkBuffers : public std::enable_shared_from_this<ChunkBuffers> {
 public:
  // Keeps at most `max_bytes` of idle buffers, none larger than `max_buffer` (a file of huge
  // records): the rest go back to the allocator.
  static std::shared_ptr<ChunkBuffers> Create(size_t max_bytes, size_t max_buffer);

  // An empty buffer, a used one when there is one.
  std::shared_ptr<std::string> Get();

  size_t idle_bytes() const;

 private:
  ChunkBuffers(size_t max_bytes, size_t max_buffer)
      : max_bytes_(max_bytes), max_buffer_(max_buffer) {}
  void Put(std::string* buffer);

  const size_t max_bytes_;
  const size_t max_buffer_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<std::string>> idle_;  // guarded by mu_
  size_t idle_bytes_ = 0;                           // their capacity; guarded by mu_
};

// One record on its way through the pipeline. A damaged one carries its damage instead. Its
// payload lies in a buffer that holder() keeps alive: its source's chunk, or memory the chunk
// refers to (a remote reader's block), lent until the source's next Next (an element that takes
// the record takes a reference to the buffer, not a copy), or its own once it is kept longer
// (the shuffle buffer: Own).
class Record {
 public:
  Record() = default;
  Record(Record&& other) noexcept { *this = std::move(other); }
  Record& operator=(Record&& other) noexcept {
    if (this == &other) return *this;  // the shuffle buffer's last slot, moved onto itself
    payload_ = other.payload_;         // an owned payload lies on the heap: it does not move
    lent_from_ = other.lent_from_;
    owned_ = std::move(other.owned_);
    file = other.file;
    offset = other.offset;
    damage = std::move(other.damage);
    return *this;
  }

  std::string_view payload() const { return payload_; }
  // The buffer the payload lies in: a reference to it keeps the payload valid.
  const std::shared_ptr<const void>& holder() const {
    return lent_from_ != nullptr ? *lent_from_ : owned_;
  }
  // Lends `payload`, bytes of the buffer `*from` (which the caller keeps while the record
  // refers to it).
  void Lend(std::string_view payload, const std::shared_ptr<const void>* from) {
    payload_ = payload;
    lent_from_ = from;
    owned_.reset();
  }
  // Copies the payload into a buffer of the record's own, so that it outlives the source's
  // chunk (and pins no chunk).
  void Own() {
    if (lent_from_ == nullptr) return;
    auto own = std::make_shared<const std::string>(payload_);
    payload_ = *own;
    owned_ = std::move(own);
    lent_from_ = nullptr;
  }

  uint32_t file = 0;
  uint64_t offset = 0;
  std::unique_ptr<io::RecordDamage> damage;  // set on a damaged record (kept small: records move)

 private:
  std::string_view payload_;
  const std::shared_ptr<const void>* lent_from_ = nullptr;
  std::shared_ptr<const void> owned_;
};

// Consecutive records: payloads copied end to end into one buffer of the chunk's own (`data`: a
// reader allocates nothing per record), or left where the file lent them (a remote reader's
// block, kept by a reference in `holders`). Chunks go back to the readers to be filled again,
// in a buffer from the ChunkBuffers; theirs returns there, and a lent block to its reader, when
// the last element whose records lie in it lets go.
struct Chunk {
  struct Entry {
    uint64_t offset = 0;
    const char* lent = nullptr;  // a lent payload's bytes; else it is data[begin, begin + size)
    size_t begin = 0;
    size_t size = 0;
    uint32_t file = 0;
    uint32_t holder = 0;                       // holders[holder] keeps the payload
    std::unique_ptr<io::RecordDamage> damage;  // set on a damaged record, which has no payload
  };
  std::shared_ptr<std::string> data;  // null until the first copied payload, or Prepare
  // What the payloads lie in: `data` (as the first, once there is one), then lent buffers.
  std::vector<std::shared_ptr<const void>> holders;
  std::vector<Entry> entries;
  bool end = false;  // the file (or the worker's share) has no more records
  Status status;     // a failure to read at all (not damage)

  size_t size() const { return entries.size(); }
  // The payloads' bytes.
  size_t bytes() const { return bytes_; }
  // A buffer to copy payloads into from `buffers` (null: the allocator's) if the chunk has none.
  void Prepare(ChunkBuffers* buffers) {
    if (data == nullptr) {
      data = buffers != nullptr ? buffers->Get() : std::make_shared<std::string>();
      data_holder_ = holders.size();
      holders.push_back(data);
    }
  }
  // Appends a copy of `payload`.
  void Add(uint32_t file, uint64_t offset, std::string_view payload) {
    Prepare(nullptr);
    entries.push_back({offset, nullptr, data->size(), payload.size(), file,
                       static_cast<uint32_t>(data_holder_), nullptr});
    data->append(payload);
    bytes_ += payload.size();
  }
  // Refers to `payload` where it lies, in memory `keeper` keeps valid.
  void AddLent(uint32_t file, uint64_t offset, std::string_view payload,
               std::shared_ptr<const void> keeper) {
    if (holders.empty() || holders.back() != keeper) holders.push_back(std::move(keeper));
    entries.push_back({offset, payload.data(), 0, payload.size(), file,
                       static_cast<uint32_t>(holders.size() - 1), nullptr});
    bytes_ += payload.size();
  }
  void AddDamage(uint32_t file, io::RecordDamage damage) {
    const uint64_t offset = damage.offset;
    entries.push_back(
        {offset, nullptr, 0, 0, file, 0, std::make_unique<io::RecordDamage>(std::move(damage))});
  }
  std::string_view payload(size_t i) const {
    const Entry& e = entries[i];
    if (e.lent != nullptr) return std::string_view(e.lent, e.size);
    return e.size == 0 ? std::string_view() : std::string_view(*data).substr(e.begin, e.size);
  }
  // Entry i as a record, its payload lent from here (its damage moves there).
  void Get(size_t i, Record* record) {
    Entry& e = entries[i];
    if (e.damage == nullptr) {
      record->Lend(payload(i), &holders[e.holder]);
    } else {
      record->Lend(std::string_view(), nullptr);
    }
    record->file = e.file;
    record->offset = e.offset;
    record->damage = std::move(e.damage);
  }
  // Lets go of the payloads' buffers of a chunk whose records are all taken (and whose last
  // record is no longer looked at), keeping `end` and `status`: a finished chunk then keeps no
  // remote block from its reader while the consumer waits on another file.
  void LetGoOfPayloads() {
    data.reset();
    holders.clear();
    entries.clear();
    bytes_ = 0;
  }
  // Empty again. The buffers go back to their pools (or readers) once no element refers to them
  // either: the pool's lock orders the last reader of its bytes before the next writer (a chunk
  // that saw itself the only holder and refilled its buffer would not be).
  void Clear() {
    LetGoOfPayloads();
    end = false;
    status = Status::OK();
  }

 private:
  size_t bytes_ = 0;
  size_t data_holder_ = 0;  // holders[data_holder_] is `data`
};

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_CHUNK_H_
