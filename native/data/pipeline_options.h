// What a Pipeline (pipeline.h, which describes one epoch's steps in order) is asked to do: its
// files, the steps' arguments, the damage policy and where to resume. A header of its own, so
// that the pipeline's parts (record_sources.h) and the bindings (swig/data.i) take the options
// without the pipeline.
#ifndef SWIGFLOW_DATA_PIPELINE_OPTIONS_H_
#define SWIGFLOW_DATA_PIPELINE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swigflow/example/parse.h"
#include "swigflow/image/batch.h"
#include "swigflow/io/record_options.h"
#include "swigflow/io/seek_index.h"

namespace swigflow {
namespace data {

// What to do with damaged records.
enum class OnError : int {
  kRaise = 0,       // deliver the records before the damage, then fail (TensorFlow's behaviour)
  kSkipRecord = 1,  // drop the damaged record, go on with the file (see io::RecordScanner)
  kSkipFile = 2,    // drop the rest of the file
};

struct SourceFile {
  std::string path;
  // The offsets of its records, from its index file; empty when it has none.
  std::vector<uint64_t> offsets;
  bool indexed = false;  // offsets are known (a file may be indexed and empty)
  // A compressed file's seek index: its records are read at offsets through it.
  std::shared_ptr<const io::SeekIndex> seek_index;
};

// The most finished elements a pipeline holds ready (PipelineOptions::prefetch).
constexpr int kMaxPrefetch = 1 << 20;

struct PipelineOptions {
  std::vector<SourceFile> files;
  io::RecordOptions record_options;
  int cycle_length = 1;
  int block_length = 1;
  int64_t num_shards = 1;
  int64_t shard_index = 0;
  // Shard whole files when there are at least num_shards of them (no file is read by two
  // shards); else, as tf.data's shard, every num_shards-th record of the interleaved sequence.
  bool shard_files = false;
  bool global_shuffle = false;
  int64_t shuffle_buffer = 0;  // 0 or 1: no shuffle buffer
  uint64_t seed = 0;
  bool reshuffle_each_iteration = true;
  int64_t epochs = 1;      // < 0: forever
  int64_t batch_size = 0;  // 0: one record per element
  bool drop_remainder = false;
  bool batch_across_epochs = false;  // a batch may hold the end of one epoch and the next's start
  // Each element's records end to end in one buffer of its own (Element::held[0]), copied there
  // by the assembler, for a consumer that wants them as one array; else they are left in the
  // readers' chunks where that is cheaper.
  bool contiguous = false;
  bool parse = false;
  std::vector<example::FeatureSpec> specs;
  // Decode the images of specs[image_spec] (a FixedLen scalar string) after parsing; on_error
  // applies to images that do not decode (kSkipRecord and kSkipFile drop their record).
  bool decode_images = false;
  size_t image_spec = 0;
  image::BatchDecodeOptions image;
  uint64_t image_seed = 0;  // of the random crops and flips
  int prefetch = 2;         // finished elements held ready, at most kMaxPrefetch
  OnError on_error = OnError::kRaise;
  // Clock the readers' work for Stats() (two clock reads per chunk); off, read's busy time is 0.
  bool collect_stats = true;
  int64_t start_epoch = 0;
  int64_t start_position = 0;
};

}  // namespace data
}  // namespace swigflow

#endif  // SWIGFLOW_DATA_PIPELINE_OPTIONS_H_
