// The native part of swigflow.data: TFRecord files in, batches of parsed Examples out, with every
// step on threads of its own (no GIL): parallel reads, sharding, shuffling, batching (records
// left where the readers put them), parsing, prefetching.
//
// One epoch is, in order:
//   1. the files of this shard: all of them, or with shard_files and at least as many files as
//      shards, file j for shard j % num_shards;
//   2. their records interleaved: cycle_length files are read at once, block_length records
//      taken from each in turn; a finished file's slot goes to the next file;
//   3. when files are not sharded, record k of that sequence belongs to shard k % num_shards
//      (tf.data's shard);
//   4. with global_shuffle (every file indexed), a seeded permutation of all of them;
//   5. a shuffle buffer of shuffle_buffer records, drained at the end of the epoch;
// then batches of batch_size records, parsed when specs are given, and their images decoded when
// asked (image::BatchDecodeOptions: one spec's bytes become one array of pixels). Every step is
// deterministic for a seed, and each record of a shard appears exactly once per epoch (damage
// policies aside). Random crops and flips are seeded by (seed, epoch, position in the epoch), so a
// resumed pipeline repeats them.
//
// Resuming: each element carries the state right after it, (epoch, position): the records of
// that epoch emitted so far. A pipeline created with that start skips exactly those records.
// With every file indexed the skip costs nothing (the order is computed, not read); otherwise
// the records are read again and dropped before any parsing.
#ifndef SWIGFLOW_DATA_PIPELINE_H_
#define SWIGFLOW_DATA_PIPELINE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "swigflow/data/pipeline_options.h"
#include "swigflow/data/pipeline_stats.h"
#include "swigflow/example/parse.h"
#include "swigflow/framework/status.h"
#include "swigflow/io/record_scan.h"

namespace swigflow {
namespace data {

// One output element: its records, and their parsed features when parsing.
struct Element {
  // Record i's bytes. They lie where the readers put them, in buffers `held` keeps alive (a
  // chunk's or a remote reader's block, whose other records may belong to other elements), or in
  // bytes of the element's own (also in `held`): records are not copied into the element unless
  // holding their chunk would keep many times their bytes alive (sharding by record), or
  // options.contiguous asks for it (then `held` is that one buffer, the records end to end in it).
  std::vector<std::string_view> records;
  std::vector<std::shared_ptr<const void>> held;
  std::vector<example::ParsedFeature> parsed;  // string views point into the records
  std::vector<uint32_t> files;                 // record i's file (index into options.files)
  std::vector<uint64_t> offsets;               // and its offset there
  // With decode_images: the decoded images, DecodedImageBytes(options.image) each.
  example::NumberVector<uint8_t> images;
  int64_t epoch = 0;     // the state right after this element
  int64_t position = 0;  // records of `epoch` emitted up to and including this element
  size_t size() const { return records.size(); }
  // The records' bytes end to end.
  size_t bytes() const;
};

class Pipeline {
 public:
  static Status Create(PipelineOptions options, std::unique_ptr<Pipeline>* pipeline);
  ~Pipeline();  // stops and joins every thread, even mid-read

  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The next element; OUT_OF_RANGE at the end. An error (damage under kRaise, a parse error)
  // comes after the elements before it, and again on every later call.
  Status Next(std::unique_ptr<Element>* element);
  // Next that waits at most `timeout_ms`: DEADLINE_EXCEEDED when no element came in time (the
  // pipeline is unchanged; call again). Lets a caller check for signals while it waits.
  Status NextFor(std::unique_ptr<Element>* element, int64_t timeout_ms);

  // Damage skipped under kSkipRecord / kSkipFile since the last call.
  std::vector<io::RecordDamage> TakeDamages();

  // What each stage has done so far. Thread-safe; the numbers of stages still running are a
  // moment's snapshot.
  PipelineStats Stats() const;

  // Records per epoch of this shard, when every file is indexed; else -1. Counts records before
  // the damage policies (which only apply once the data is read).
  int64_t RecordsPerEpoch() const { return records_per_epoch_; }

  class Impl;  // the threads (pipeline.cc)

 private:
  Pipeline() = default;

  std::unique_ptr<Impl> impl_;
  int64_t records_per_epoch_ = -1;
  Status final_;  // sticky end or error
};

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_PIPELINE_H_
