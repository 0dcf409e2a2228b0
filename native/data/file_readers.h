// Reads the files of an epoch ahead of the interleave that consumes them, on a pool of threads
// that lives as long as the pipeline and moves from file to file.
//
// Many small files cost what the system charges for them (open, one read, close) and no more:
//   - no thread is started per file, and no reader waits on a consumer: a file is read in tasks
//     of one chunk, and a reader whose file has enough chunks queued takes another file's task,
//     so a few threads serve any cycle_length;
//   - a small file is read whole in one call (io::RecordScanner reads at most what is left), into
//     the buffer the reader used for the previous file;
//   - the interleave opens its files in list order, so the order they are needed in is known:
//     readers work on the first `window` files not yet released, earliest first, and so open the
//     next files while the current ones are consumed. The order of records is the consumer's
//     business and unchanged.
// Memory is bounded by the window, never by the number of files: each of the first `active`
// unreleased files (those the consumer can have open) holds at most kChunksAhead chunks, each
// later one a single chunk (all of a small file).
//
// Files beyond the active ones are started while fewer than kAheadBytes are queued, so local
// files are read just ahead of the consumer. A remote file's open and first read cost round
// trips instead: the first `open_ahead` files after the active ones are started whatever is
// queued (one chunk each at most), and each release wakes a reader to start the next, so that
// the next files' round trips pass while the current ones are consumed.
#ifndef SWIGFLOW_DATA_FILE_READERS_H_
#define SWIGFLOW_DATA_FILE_READERS_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "swigflow/data/chunk.h"
#include "swigflow/data/pipeline_stats.h"
#include "swigflow/framework/status.h"
#include "swigflow/io/file_system.h"
#include "swigflow/io/record_options.h"
#include "swigflow/io/record_scan.h"

namespace swigflow {
namespace data {

// A chunk ends at whichever comes first.
constexpr size_t kChunkRecords = 256;
constexpr size_t kChunkBytes = 1 << 20;
// Chunks read ahead per open file. Two keep a reader a chunk ahead of the consumer; more only
// hold memory, since the elements now hold chunks too (bench/remote_bench.py, 8 files: 4 cost
// 20 MiB more and 14 more page faults per MB read, for the same throughput).
constexpr size_t kChunksAhead = 2;

// The pool of a pipeline's chunk buffers (file_readers.cc says how much it keeps idle).
std::shared_ptr<ChunkBuffers> NewChunkBuffers();

class FileReaders {
 public:
  // path(i): the i-th file the sequences may name. stop_at_damage: the damage policy drops
  // the rest of a file at its first damage (or raises), so nothing after it is read.
  // open_ahead: files started after the active ones whatever is queued (above). Damage is
  // passed on as damaged records, in order. The readers count their work in `counters` and the
  // consumer's waits in Take in `take_wait_ns` (both outlive this; null: not counted). Chunks
  // are filled in buffers from `buffers` (null: the allocator's).
  FileReaders(std::function<const std::string&(uint32_t)> path, const io::RecordOptions& options,
              bool stop_at_damage, int threads, size_t open_ahead, StageCounters* counters,
              std::atomic<int64_t>* take_wait_ns, std::shared_ptr<ChunkBuffers> buffers);
  ~FileReaders();  // stops and joins every thread, even mid-read

  FileReaders(const FileReaders&) = delete;
  FileReaders& operator=(const FileReaders&) = delete;

  // Starts reading `files` (arguments of path) in that order, `active` of them at once. The
  // previous sequence must have been ended.
  void Begin(std::vector<uint32_t> files, size_t active);
  // Ends the sequence: waits for the readers still on its files and drops what they read.
  void End();

  // The next chunk of the k-th file of the sequence into *chunk, whose previous contents go back
  // to the readers. The last chunk has `end` set, and taking it releases the file. The consumer
  // takes files in order, at most `active` unreleased at once. False once stopped.
  bool Take(size_t k, Chunk* chunk);
  // The consumer is done with the k-th file (abandoned before its end; a no-op after its end).
  void Release(size_t k);

  // Wakes and stops every reader and consumer; Take returns false from now on.
  void Stop();

  // Read-ahead beyond the `active` files: files started, and the bytes queued before another.
  static constexpr size_t kFilesAhead = 256;
  // (Small enough to stay in cache until consumed: reading further ahead only evicts it.)
  static constexpr size_t kAheadBytes = size_t{2} << 20;
  // Released files per reader wake-up: readers sleep once the window is full, and refill it in
  // batches rather than with a switch per file.
  static constexpr size_t kWakeBatch = kFilesAhead / 4;

 private:
  struct Job {
    uint32_t file = 0;
    // Read, not yet taken: chunks[(head + i) % kChunksAhead] for i < count (no allocation).
    Chunk chunks[kChunksAhead];
    size_t head = 0;
    size_t count = 0;
    std::unique_ptr<io::RecordScanner> scanner;  // between a big file's tasks; only its reader
    bool started = false;                        // a reader has read from it
    bool busy = false;                           // a reader is on it
    bool done = false;                           // its last chunk is queued
    bool released = false;                       // released while busy: its reader erases it
  };

  void Run();
  // The job a reader works on next, or null: more of a file the consumer has open, else the
  // next file to start. Takes O(active) steps. Requires mu_.
  Job* Pick();
  // Creates jobs for the next files until the window is full, reusing `spare`'s node when there
  // is one. Requires mu_.
  void FillWindow(std::map<size_t, Job>::node_type spare = {});
  // Drops the job at `it` (or marks it for its reader to drop); true when a reader should be
  // woken to read the files the window gained. Requires mu_.
  bool ReleaseLocked(std::map<size_t, Job>::iterator it);
  void CountChunk(const Chunk& chunk, int64_t ns);
  // Reads the next chunk of `job` into the empty `chunk` (opening its file first); closes the
  // file after the last.
  void ReadChunk(Job* job, Chunk* chunk, std::string* spare);
  // Keeps `chunk` for a reader to fill, if there is room (else it is moved to *dropped, to be
  // freed outside the lock). Requires mu_.
  void Recycle(Chunk* chunk, Chunk* dropped);

  const std::function<const std::string&(uint32_t)> path_;
  const io::RecordOptions options_;
  const bool stop_at_damage_;
  const size_t open_ahead_;
  StageCounters* const counters_;
  std::atomic<int64_t>* const take_wait_ns_;
  const std::shared_ptr<ChunkBuffers> buffers_;
  // The remote files the reader threads open belong to it: Stop() abandons their reads.
  const uint64_t read_group_ = io::NewReadGroup();

  std::mutex mu_;
  std::condition_variable work_;   // readers: a task may be available, or stop
  std::condition_variable ready_;  // consumer and End: a chunk arrived, or a reader finished
  // Guarded by mu_:
  bool stopped_ = false;
  bool ending_ = false;          // End is waiting: readers take no new task
  int busy_ = 0;                 // readers working on a task
  std::vector<uint32_t> files_;  // the sequence
  size_t active_ = 1;
  size_t next_ = 0;           // files_[next_] is the next to get a job
  size_t start_next_ = 0;     // the next job to start (jobs start in order)
  size_t queued_bytes_ = 0;   // in chunks read and not taken
  bool over_budget_ = false;  // a file was not started for kAheadBytes: wake at half of it
  size_t released_since_wake_ = 0;
  size_t released_ = 0;  // files released so far
  static constexpr size_t kNobody = SIZE_MAX;
  size_t waiting_for_ = kNobody;  // the file the consumer waits for
  std::map<size_t, Job> window_;  // unreleased jobs by position in files_, earliest first
  std::vector<Chunk> spares_;  // taken chunks, for readers to fill (reserved: no allocation here)
  size_t spare_bytes_ = 0;     // their Capacity
  std::vector<std::thread> threads_;  // last: start once the members they use exist
};

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_FILE_READERS_H_
