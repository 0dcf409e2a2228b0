// Where an epoch's records come from, in the interleaved order that tf.data's interleave gives:
// files read in sequence by the FileReaders (InterleavedFiles), or indexed files read at their
// offsets in an order computed from their record counts (InterleaveOrder, IndexedRecords). Both
// give the same records in the same order; the pipeline picks the one that saves work.
#ifndef SWIGFLOW_DATA_RECORD_SOURCES_H_
#define SWIGFLOW_DATA_RECORD_SOURCES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "swigflow/data/bounded_queue.h"
#include "swigflow/data/chunk.h"
#include "swigflow/data/file_readers.h"
#include "swigflow/data/pipeline_options.h"
#include "swigflow/data/pipeline_stats.h"
#include "swigflow/framework/status.h"
#include "swigflow/io/file_cache.h"
#include "swigflow/io/record_scan.h"

namespace swigflow {
namespace data {

// A source of one epoch's records in order.
class Source {
 public:
  virtual ~Source() = default;
  // The next record (true); false at the end, with *status set on failure.
  virtual bool Next(Record* record, Status* status) = 0;
};

// Files read sequentially, interleaved: cycle_length slots, block_length records from each in
// turn; an exhausted slot takes the next file when its turn comes again (tf.data's interleave).
// The reading is the FileReaders' (ahead, in the order the slots take the files).
class InterleavedFiles : public Source {
 public:
  // `files` index options.files; both outlive this source.
  InterleavedFiles(const PipelineOptions& o, FileReaders* readers, std::vector<uint32_t> files);
  ~InterleavedFiles() override;

  bool Next(Record* record, Status* status) override;

 private:
  struct OpenFile {
    bool open = false;
    size_t k = 0;  // the file's place in the sequence
    Chunk chunk;
    size_t next = 0;  // chunk.records[next] is the next record
  };

  bool NextInSlot(OpenFile* slot, Record* record, Status* status);
  void Open(OpenFile* slot);
  void Advance();

  const PipelineOptions& options_;
  FileReaders* const readers_;
  const size_t file_count_;  // in the sequence
  std::vector<OpenFile> slots_;
  size_t next_file_ = 0;
  size_t open_ = 0;
  size_t current_ = 0;
  int taken_ = 0;
  OpenFile* finished_ = nullptr;  // gave its chunk's last record in the last call
};

// Where a record is: file (an index into options.files) and record number in that file.
struct RecordSlot {
  uint32_t file;
  uint32_t record;
};

// The order InterleavedFiles reads indexed `files` in, computed from their record counts by
// taking the same steps (an exhausted file is noticed on its slot's next turn, as there).
std::vector<RecordSlot> InterleaveOrder(const PipelineOptions& o,
                                        const std::vector<uint32_t>& files);

// Workers reading indexed files at their offsets: cycle_length, at most 8.
int IndexedWorkers(int cycle_length);

// Indexed files read at computed positions by worker threads, in the computed order: worker w
// reads chunks w, w + W, ... ahead into its own queue, and the consumer takes them in turn.
class IndexedRecords : public Source {
 public:
  // The workers count their reads in `counters`; the consumer's waits go to `pop_wait_ns`
  // (null: not counted). `o`, `files` and the counters outlive this source. Chunks are filled in
  // buffers from `buffers`.
  IndexedRecords(const PipelineOptions& o, std::vector<RecordSlot> order, io::FileCache* files,
                 StageCounters* counters, std::atomic<int64_t>* pop_wait_ns,
                 std::shared_ptr<ChunkBuffers> buffers);
  ~IndexedRecords() override;

  bool Next(Record* record, Status* status) override;

 private:
  void Stop();
  void Run(size_t worker);
  void Read(size_t worker);
  static io::RecordDamage Damage(uint64_t offset, const Status& s);

  const PipelineOptions& options_;
  const std::vector<RecordSlot> order_;
  io::FileCache* const files_;
  StageCounters* const counters_;
  std::atomic<int64_t>* const pop_wait_ns_;
  const std::shared_ptr<ChunkBuffers> buffers_;
  std::vector<std::unique_ptr<BoundedQueue<Chunk>>> queues_;
  std::vector<std::thread> threads_;
  Chunk chunk_;
  size_t next_ = 0;
  size_t taken_chunks_ = 0;
};

// Reader threads for files read in sequence: one per file read at once, within bounds.
int Readers(int cycle_length, bool remote);
// Remote files opened ahead of those read at once (FileReaders' open_ahead), each with a reader
// thread of its own: a cycle's worth, so that the next cycle's opens overlap this one's reads.
int OpenAhead(int cycle_length);
// Whether any file is read through the registered remote file system.
bool AnyRemote(const PipelineOptions& o);
// Whether every file has its record offsets.
bool AllIndexed(const PipelineOptions& o);
// Indexed files held open at once for reads at their offsets.
size_t OpenFilesCached();

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_RECORD_SOURCES_H_
