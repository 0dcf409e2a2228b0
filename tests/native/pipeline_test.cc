#include "swigflow/data/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "swigflow/data/bounded_queue.h"
#include "swigflow/data/chunk.h"
#include "swigflow/data/file_readers.h"
#include "swigflow/example/example.h"
#include "swigflow/io/file_system.h"
#include "swigflow/io/record_index.h"
#include "swigflow/io/record_writer.h"
#include "tests/native/lending_files.h"
#include "tests/native/test_files.h"

namespace swigflow {
namespace data {
namespace {

using ::swigflow::testing::TempPath;

// `files` files; file f holds records "f:0", "f:1", ... (counts[f] of them).
std::vector<SourceFile> MakeFiles(const std::string& name, const std::vector<int>& counts,
                                  bool indexed) {
  std::vector<SourceFile> files;
  for (size_t f = 0; f < counts.size(); ++f) {
    SourceFile file;
    file.path = TempPath(name + "-" + std::to_string(f));
    std::unique_ptr<io::RecordWriter> writer;
    EXPECT_TRUE(io::RecordWriter::Create(file.path, io::RecordOptions(), &writer).ok());
    for (int r = 0; r < counts[f]; ++r) {
      const std::string record = std::to_string(f) + ":" + std::to_string(r);
      EXPECT_TRUE(writer->WriteRecord(record.data(), record.size()).ok());
    }
    EXPECT_TRUE(writer->Close().ok());
    if (indexed) {
      io::RecordIndex index;
      EXPECT_TRUE(io::ScanRecords(file.path, &index).ok());
      file.offsets.assign(index.offsets.begin(), index.offsets.end());
      file.indexed = true;
    }
    files.push_back(std::move(file));
  }
  return files;
}

struct Outcome {
  std::vector<std::vector<std::string>> elements;
  std::vector<std::pair<int64_t, int64_t>> states;
  Status end;
  std::vector<io::RecordDamage> damages;

  std::vector<std::string> Records() const {
    std::vector<std::string> all;
    for (const auto& e : elements) all.insert(all.end(), e.begin(), e.end());
    return all;
  }
};

Outcome RunAll(const PipelineOptions& options, size_t max_elements = SIZE_MAX) {
  Outcome run;
  std::unique_ptr<Pipeline> pipeline;
  run.end = Pipeline::Create(options, &pipeline);
  if (!run.end.ok()) return run;
  while (run.elements.size() < max_elements) {
    std::unique_ptr<Element> e;
    run.end = pipeline->Next(&e);
    if (!run.end.ok()) break;
    run.elements.emplace_back(e->records.begin(), e->records.end());
    run.states.emplace_back(e->epoch, e->position);
  }
  run.damages = pipeline->TakeDamages();
  return run;
}

PipelineOptions Options(std::vector<SourceFile> files) {
  PipelineOptions o;
  o.files = std::move(files);
  return o;
}

TEST(PipelineTest, InterleavesLikeTfDataAndIndexedFilesGiveTheSameOrder) {
  const std::vector<int> counts = {5, 1, 0, 3, 4};
  PipelineOptions streaming = Options(MakeFiles("interleave", counts, false));
  streaming.cycle_length = 2;
  streaming.block_length = 2;
  const Outcome run = RunAll(streaming);
  EXPECT_TRUE(errors::IsOutOfRange(run.end)) << run.end.ToString();
  // Slots (0, 1): 0:0 0:1 | 1:0 (1 ends on its next turn) | 0:2 0:3 | 1 ends, 2 opens and is
  // empty | 0:4, then 0 ends | 3:0 3:1 (3 opened in slot 1) | 4 opens in slot 0 ...
  EXPECT_EQ(run.Records(),
            (std::vector<std::string>{"0:0", "0:1", "1:0", "0:2", "0:3", "0:4", "3:0", "3:1", "4:0",
                                      "4:1", "3:2", "4:2", "4:3"}));
  PipelineOptions indexed = streaming;
  indexed.files = MakeFiles("interleave", counts, true);
  EXPECT_EQ(RunAll(indexed).Records(), run.Records());
}

// Thousands of files, mostly tiny, some of several chunks, some empty: the streaming order (read
// ahead by the FileReaders) equals the order computed from the index files, for several cycles.
TEST(PipelineTest, ManySmallAndSomeBigFilesInterleaveExactly) {
  std::vector<int> counts;
  for (int f = 0; f < 2000; ++f) counts.push_back(f % 97 == 5 ? 1100 : f % 7);  // 0..6, or big
  const std::vector<SourceFile> streaming_files = MakeFiles("many", counts, false);
  const std::vector<SourceFile> indexed_files = MakeFiles("many", counts, true);
  for (int cycle : {1, 3, 16}) {
    for (int block : {1, 4}) {
      PipelineOptions streaming = Options(streaming_files);
      streaming.cycle_length = cycle;
      streaming.block_length = block;
      streaming.batch_size = 100;
      const Outcome run = RunAll(streaming);
      ASSERT_TRUE(errors::IsOutOfRange(run.end)) << run.end.ToString();
      PipelineOptions indexed = streaming;
      indexed.files = indexed_files;
      const Outcome computed = RunAll(indexed);
      ASSERT_EQ(run.Records().size(), computed.Records().size());
      EXPECT_TRUE(run.Records() == computed.Records()) << "cycle " << cycle << " block " << block;
    }
  }
}

// The readers directly, one thread for several open files, big ones among them: a reader never
// waits on a full file while another the consumer needs is unread (that would deadlock).
// open_ahead (remote files: the next files opened whatever is queued) changes when files start,
// never what is read.
class FileReadersTest : public ::testing::TestWithParam<size_t> {};
INSTANTIATE_TEST_SUITE_P(OpenAhead, FileReadersTest, ::testing::Values(0, 3));

TEST_P(FileReadersTest, OneThreadServesEveryOpenFile) {
  const std::vector<int> counts = {1100, 1300, 0, 2, 900, 1, 1, 1, 700};
  const std::vector<SourceFile> files = MakeFiles("readers", counts, false);
  FileReaders readers([&](uint32_t i) -> const std::string& { return files[i].path; },
                      io::RecordOptions(), true, /*threads=*/1, /*open_ahead=*/GetParam(),
                      /*counters=*/nullptr, /*take_wait_ns=*/nullptr, NewChunkBuffers());
  for (int round = 0; round < 2; ++round) {  // the threads carry over to the next sequence
    std::vector<uint32_t> order = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    readers.Begin(order, 3);
    // Three files open at once, one chunk from each in turn (what stalls a thread-per-queue
    // design whose queues fill).
    std::vector<size_t> open = {0, 1, 2};
    size_t next = 3;
    std::vector<int> seen(counts.size(), 0);
    Chunk chunk;  // one for every file: each Take hands the last one back to the readers
    while (!open.empty()) {
      for (size_t i = 0; i < open.size();) {
        ASSERT_TRUE(readers.Take(open[i], &chunk));
        ASSERT_TRUE(chunk.status.ok()) << chunk.status.ToString();
        for (size_t r = 0; r < chunk.size(); ++r) {
          const int f = static_cast<int>(open[i]);
          EXPECT_EQ(chunk.payload(r), std::to_string(f) + ":" + std::to_string(seen[f]));
          EXPECT_EQ(chunk.entries[r].file, static_cast<uint32_t>(f));
          ++seen[f];
        }
        if (!chunk.end) {
          ++i;
          continue;
        }
        readers.Release(open[i]);
        if (next < order.size()) {
          open[i++] = next++;
        } else {
          open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
    }
    readers.End();
    EXPECT_EQ(seen, counts);
  }
}

// A missing file among many fails where the sequence reaches it, after the records before it,
// although the readers opened it well ahead.
TEST(PipelineTest, AMissingFileFailsInItsPlace) {
  std::vector<SourceFile> files = MakeFiles("missing", std::vector<int>(40, 2), false);
  files[30].path += ".gone";
  PipelineOptions o = Options(files);
  o.cycle_length = 1;
  const Outcome run = RunAll(o);
  EXPECT_TRUE(errors::IsNotFound(run.end)) << run.end.ToString();
  EXPECT_NE(run.end.message().find(".gone"), std::string::npos);
  EXPECT_EQ(run.Records().size(), 60u);
}

TEST(PipelineTest, ShuffledEpochsHoldEveryRecordOnceAndDependOnlyOnTheSeed) {
  for (bool indexed : {false, true}) {
    PipelineOptions o = Options(MakeFiles("shuffle", {40, 25, 31, 7}, indexed));
    o.cycle_length = 3;
    o.shuffle_buffer = 16;
    o.global_shuffle = indexed;
    o.seed = 42;
    o.epochs = 3;
    o.batch_size = 10;
    const Outcome run = RunAll(o);
    ASSERT_TRUE(errors::IsOutOfRange(run.end)) << run.end.ToString();
    const std::vector<std::string> all = run.Records();
    ASSERT_EQ(all.size(), 3u * 103);
    std::vector<std::vector<std::string>> epochs(3);
    for (size_t i = 0; i < all.size(); ++i) epochs[i / 103].push_back(all[i]);
    for (auto& epoch : epochs) {
      std::set<std::string> unique(epoch.begin(), epoch.end());
      EXPECT_EQ(unique.size(), 103u);
    }
    EXPECT_NE(epochs[0], epochs[1]);  // reshuffled each epoch
    EXPECT_EQ(RunAll(o).Records(), all);
    o.seed = 43;
    EXPECT_NE(RunAll(o).Records(), all);
  }
}

TEST(PipelineTest, ShardsPartitionRecordsExactly) {
  for (bool indexed : {false, true}) {
    for (bool shard_files : {false, true}) {
      for (int shards : {2, 3, 7}) {  // 7 > 4 files: records are sharded even with shard_files
        const auto files = MakeFiles("shard", {9, 4, 12, 5}, indexed);
        std::multiset<std::string> seen;
        for (int s = 0; s < shards; ++s) {
          PipelineOptions o = Options(files);
          o.num_shards = shards;
          o.shard_index = s;
          o.shard_files = shard_files;
          o.shuffle_buffer = 5;
          o.seed = 1;
          o.cycle_length = 2;
          const Outcome run = RunAll(o);
          ASSERT_TRUE(errors::IsOutOfRange(run.end));
          for (const auto& r : run.Records()) seen.insert(r);
        }
        EXPECT_EQ(seen.size(), 30u) << indexed << " " << shards;
        EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 30u);
      }
    }
  }
}

// Without shard_files, shard s holds records s, s + n, ... of the unsharded order (tf.data's
// shard); with it and enough files, the records of files s, s + n, ... in their own order.
TEST(PipelineTest, ShardByRecordIsEveryNthRecord) {
  for (bool indexed : {false, true}) {
    const auto files = MakeFiles("nth", {9, 4, 12, 5}, indexed);
    PipelineOptions whole = Options(files);
    whole.cycle_length = 3;
    const std::vector<std::string> all = RunAll(whole).Records();
    ASSERT_EQ(all.size(), 30u);
    for (int shards : {2, 3}) {
      for (int s = 0; s < shards; ++s) {
        PipelineOptions o = whole;
        o.num_shards = shards;
        o.shard_index = s;
        std::vector<std::string> expected;
        for (size_t k = s; k < all.size(); k += shards) expected.push_back(all[k]);
        EXPECT_EQ(RunAll(o).Records(), expected) << indexed << " " << shards << " " << s;

        o.shard_files = true;
        std::vector<SourceFile> mine;
        for (size_t f = s; f < files.size(); f += shards) mine.push_back(files[f]);
        PipelineOptions by_file = Options(mine);
        by_file.cycle_length = 3;
        EXPECT_EQ(RunAll(o).Records(), RunAll(by_file).Records()) << indexed << " " << shards;
      }
    }
  }
}

TEST(PipelineTest, ResumingFromAnyElementContinuesExactly) {
  for (bool indexed : {false, true}) {
    PipelineOptions o = Options(MakeFiles("resume", {23, 17, 30}, indexed));
    o.cycle_length = 2;
    o.shuffle_buffer = 12;
    o.seed = 7;
    o.epochs = 2;
    o.batch_size = 8;
    o.batch_across_epochs = true;
    const Outcome whole = RunAll(o);
    ASSERT_TRUE(errors::IsOutOfRange(whole.end));
    for (size_t k = 0; k < whole.elements.size(); ++k) {
      PipelineOptions resumed = o;
      resumed.start_epoch = whole.states[k].first;
      resumed.start_position = whole.states[k].second;
      const Outcome rest = RunAll(resumed);
      ASSERT_TRUE(errors::IsOutOfRange(rest.end));
      std::vector<std::vector<std::string>> expected(whole.elements.begin() + k + 1,
                                                     whole.elements.end());
      // Batches restart at the checkpoint, so compare records, not batch boundaries.
      std::vector<std::string> want, got = rest.Records();
      for (const auto& e : expected) want.insert(want.end(), e.begin(), e.end());
      EXPECT_EQ(got, want) << indexed << " " << k;
    }
  }
}

void Corrupt(const std::string& path, size_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c;
  f.read(&c, 1);
  c ^= 1;
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

TEST(PipelineTest, DamagePolicies) {
  for (bool indexed : {false, true}) {
    // Records "1:r" are 3 bytes, framed in 19: corrupt the payload of record 1:2.
    auto files = MakeFiles("damage", {3, 6}, indexed);
    Corrupt(files[1].path, 2 * 19 + 12 + 1);
    PipelineOptions o = Options(files);
    o.cycle_length = 2;

    Outcome run = RunAll(o);
    EXPECT_TRUE(errors::IsDataLoss(run.end)) << run.end.ToString();
    EXPECT_NE(run.end.message().find(files[1].path), std::string::npos);
    EXPECT_EQ(run.Records(), (std::vector<std::string>{"0:0", "1:0", "0:1", "1:1", "0:2"}));

    o.on_error = OnError::kSkipRecord;
    run = RunAll(o);
    EXPECT_TRUE(errors::IsOutOfRange(run.end));
    EXPECT_EQ(run.Records(),
              (std::vector<std::string>{"0:0", "1:0", "0:1", "1:1", "0:2", "1:3", "1:4", "1:5"}));
    ASSERT_EQ(run.damages.size(), 1u);
    EXPECT_EQ(run.damages[0].kind, io::RecordDamage::Kind::kDataCrc);
    EXPECT_NE(run.damages[0].message.find(files[1].path), std::string::npos);

    o.on_error = OnError::kSkipFile;
    run = RunAll(o);
    EXPECT_TRUE(errors::IsOutOfRange(run.end));
    EXPECT_EQ(run.Records(), (std::vector<std::string>{"0:0", "1:0", "0:1", "1:1", "0:2"}));
  }
}

TEST(PipelineTest, ParsesBatches) {
  SourceFile file;
  file.path = TempPath("parse");
  std::unique_ptr<io::RecordWriter> writer;
  ASSERT_TRUE(io::RecordWriter::Create(file.path, io::RecordOptions(), &writer).ok());
  for (int i = 0; i < 10; ++i) {
    example::Example ex;
    ex.features["id"].SetKind(example::Feature::Kind::kInt64);
    ex.features["id"].int64_list = {i};
    std::string bytes;
    example::SerializeExample(ex, &bytes);
    ASSERT_TRUE(writer->WriteRecord(bytes.data(), bytes.size()).ok());
  }
  ASSERT_TRUE(writer->WriteRecord("\x0a\x05", 2).ok());  // not an Example
  ASSERT_TRUE(writer->Close().ok());
  PipelineOptions o = Options({file});
  o.batch_size = 4;
  o.parse = true;
  example::FeatureSpec spec;
  spec.key = "id";
  spec.type = example::FeatureSpec::Type::kFixedLen;
  spec.dtype = example::Feature::Kind::kInt64;
  o.specs = {spec};
  std::unique_ptr<Pipeline> pipeline;
  ASSERT_TRUE(Pipeline::Create(o, &pipeline).ok());
  std::vector<int64_t> ids;
  Status s;
  for (;;) {
    std::unique_ptr<Element> e;
    s = pipeline->Next(&e);
    if (!s.ok()) break;
    ids.insert(ids.end(), e->parsed[0].int64s.begin(), e->parsed[0].int64s.end());
  }
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(errors::IsInvalidArgument(s)) << s.ToString();
  EXPECT_EQ(pipeline->Next(nullptr).code(), s.code());  // sticky
}

TEST(PipelineTest, StopsCleanlyMidEpochAndEndsRepeatingNothing) {
  PipelineOptions o = Options(MakeFiles("stop", {2000, 2000, 2000}, false));
  o.cycle_length = 3;
  o.epochs = -1;
  EXPECT_EQ(RunAll(o, 3).elements.size(), 3u);  // destroyed with readers mid-file

  PipelineOptions empty = Options(MakeFiles("empty", {0, 0}, false));
  empty.epochs = -1;
  EXPECT_TRUE(errors::IsOutOfRange(RunAll(empty).end));
}

TEST(PipelineTest, RecordsPerEpochAndBadOptions) {
  std::unique_ptr<Pipeline> pipeline;
  PipelineOptions o = Options(MakeFiles("count", {4, 6}, true));
  o.num_shards = 3;
  o.shard_index = 1;
  ASSERT_TRUE(Pipeline::Create(o, &pipeline).ok());
  EXPECT_EQ(pipeline->RecordsPerEpoch(), 3);  // records 1, 4, 7 of 10

  o.shard_index = 3;
  EXPECT_TRUE(errors::IsInvalidArgument(Pipeline::Create(o, &pipeline)));
  PipelineOptions unindexed = Options(MakeFiles("count", {4}, false));
  unindexed.global_shuffle = true;
  EXPECT_TRUE(errors::IsFailedPrecondition(Pipeline::Create(unindexed, &pipeline)));
}

// Stats count every record and file once, and each stage's times add up to its life.
TEST(PipelineStatsTest, CountsRecordsFilesAndTimes) {
  for (bool indexed : {false, true}) {
    PipelineOptions o = Options(MakeFiles(indexed ? "stats-i" : "stats", {40, 7, 0, 300}, indexed));
    o.cycle_length = 2;
    o.batch_size = 16;
    std::unique_ptr<Pipeline> p;
    ASSERT_TRUE(Pipeline::Create(o, &p).ok());
    std::unique_ptr<Element> e;
    int64_t records = 0, elements = 0;
    while (p->Next(&e).ok()) {
      records += static_cast<int64_t>(e->size());
      ++elements;
    }
    const PipelineStats s = p->Stats();
    ASSERT_EQ(s.stages.size(), 2u);
    const StageStats& read = s.stages[0];
    const StageStats& assemble = s.stages[1];
    EXPECT_EQ(read.name, "read");
    EXPECT_EQ(read.records, 347);
    EXPECT_EQ(read.files, 4);  // read whole either way: indexes only serve reads at offsets
    EXPECT_EQ(assemble.records, records);
    EXPECT_EQ(assemble.elements, elements);
    EXPECT_EQ(s.delivered, elements);
    int64_t bytes = 0;
    for (int f : {0, 1, 3}) {
      for (int r = 0; r < (f == 0 ? 40 : f == 1 ? 7 : 300); ++r) {
        bytes += static_cast<int64_t>((std::to_string(f) + ":" + std::to_string(r)).size());
      }
    }
    EXPECT_EQ(read.bytes, bytes);
    // The assembler has ended: its three times are its whole life, no more.
    const int64_t life = assemble.busy_ns + assemble.input_wait_ns + assemble.output_wait_ns;
    EXPECT_GT(life, 0);
    EXPECT_LE(life, s.elapsed_ns);
    ASSERT_EQ(s.queues.size(), 1u);
    EXPECT_EQ(s.queues[0].name, "assemble");
    EXPECT_EQ(s.queues[0].capacity, 2);
  }
}

TEST(PipelineStatsTest, QueueCountsBlockedTimeAndFill) {
  BoundedQueue<int> q(2);
  EXPECT_TRUE(q.Push(1));
  EXPECT_TRUE(q.Push(2));
  std::thread producer([&] { EXPECT_TRUE(q.Push(3)); });  // blocks: the queue is full
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // A wait still in progress counts up to now.
  EXPECT_GE(q.GetStats().push_wait_ns, 40'000'000);
  int item;
  EXPECT_TRUE(q.Pop(&item));
  producer.join();
  EXPECT_TRUE(q.Pop(&item));
  EXPECT_TRUE(q.Pop(&item));
  const auto s = q.GetStats();
  EXPECT_GE(s.push_wait_ns, 40'000'000);
  EXPECT_EQ(s.pop_wait_ns, 0);                         // never blocked: each pop found an item
  EXPECT_NEAR(s.mean_fill, (2 + 2 + 1) / 3.0, 1e-12);  // held when each pop came
}

// Every element of a pipeline's epoch, taken whole: the pipeline is gone when this returns.
Status TakeAll(const PipelineOptions& o, std::vector<std::unique_ptr<Element>>* elements) {
  std::unique_ptr<Pipeline> pipeline;
  SWIGFLOW_RETURN_IF_ERROR(Pipeline::Create(o, &pipeline));
  for (;;) {
    std::unique_ptr<Element> e;
    const Status s = pipeline->Next(&e);
    if (errors::IsOutOfRange(s)) return Status::OK();
    SWIGFLOW_RETURN_IF_ERROR(s);
    elements->push_back(std::move(e));
  }
}

// Whether every byte of `record` lies in one of `buffers`, which are strings (local files: a
// chunk's buffer, or an element's own).
bool LiesIn(std::string_view record, const std::vector<std::shared_ptr<const void>>& buffers) {
  for (const auto& held : buffers) {
    const auto* b = static_cast<const std::string*>(held.get());
    if (b != nullptr && record.data() >= b->data() &&
        record.data() + record.size() <= b->data() + b->size()) {
      return true;
    }
  }
  return false;
}

// Elements refer to the chunks their records lie in, and keep them alive: every record is read
// after the pipeline is gone (ASan would see a chunk freed under it), and most records are not
// copied. Sharding by record copies them instead (holding a chunk for one record in n would
// keep n times the bytes), into exactly the element's own bytes, as does `contiguous`; the
// shuffle buffer's records own their bytes.
TEST(PipelineTest, ElementsHoldTheirRecordsAfterThePipelineIsGone) {
  const std::vector<int> counts = {700, 300, 0, 1, 900};
  const auto files = MakeFiles("held", counts, false);
  PipelineOptions whole = Options(files);
  whole.cycle_length = 3;
  whole.batch_size = 100;
  const std::vector<std::string> expected = RunAll(whole).Records();
  ASSERT_EQ(expected.size(), 1901u);

  struct Case {
    int shards;
    int buffer;
    bool contiguous;
  };
  for (const Case c : {Case{1, 0, false}, Case{3, 0, false}, Case{1, 50, false}, Case{1, 0, true},
                       Case{1, 50, true}}) {
    PipelineOptions o = whole;
    o.num_shards = c.shards;
    o.shuffle_buffer = c.buffer;
    o.contiguous = c.contiguous;
    std::vector<std::unique_ptr<Element>> elements;
    ASSERT_TRUE(TakeAll(o, &elements).ok());
    std::multiset<std::string> seen;
    std::vector<std::string> in_order;
    for (const auto& e : elements) {
      ASSERT_EQ(e->files.size(), e->size());
      ASSERT_EQ(e->offsets.size(), e->size());
      size_t bytes = 0;
      for (std::string_view r : e->records) {
        EXPECT_TRUE(LiesIn(r, e->held)) << r;
        seen.emplace(r);
        in_order.emplace_back(r);
        bytes += r.size();
      }
      EXPECT_EQ(e->bytes(), bytes);
      if (c.shards > 1 || c.contiguous) {  // copied: the records end to end in one buffer
        ASSERT_EQ(e->held.size(), 1u);
        const auto* own = static_cast<const std::string*>(e->held[0].get());
        EXPECT_EQ(own->size(), bytes);
        size_t at = 0;
        for (std::string_view r : e->records) {
          EXPECT_EQ(r.data(), own->data() + at);
          at += r.size();
        }
      } else if (c.buffer > 0) {  // each record its own bytes
        EXPECT_EQ(e->held.size(), e->size());
      } else {  // left in their chunks: a reference to each (at most two per slot here)
        EXPECT_LE(e->held.size(), 2u * 3);
      }
    }
    if (c.shards > 1) {
      std::vector<std::string> shard0;
      for (size_t k = 0; k < expected.size(); k += c.shards) shard0.push_back(expected[k]);
      EXPECT_EQ(in_order, shard0);
    } else if (c.buffer > 0) {
      EXPECT_EQ(seen, std::multiset<std::string>(expected.begin(), expected.end()));
    } else {
      EXPECT_EQ(in_order, expected);
    }
  }
}

// Records a remote reader lends are left where they lie, in its blocks: the elements hold the
// blocks their records lie in (each read after the pipeline is gone: ASan would see a block
// freed under it), the blocks go when the elements do, and the records are those of the files
// read locally, in order.
TEST(PipelineTest, ElementsHoldTheBlocksARemoteReaderLent) {
  // Records of a few bytes: some straddle two blocks. The scanner reads such a record through
  // its buffer (then copied into the chunk, as local files' are), and takes the records after
  // it where they lie again. (It once read 64 KiB past a straddling record and went on from its
  // buffer to the end of the file: ~800 of these records were lent, the first block of each.)
  const auto fs = std::make_shared<testing::LendingFileSystem>(4096);
  io::SetRemoteFileSystem(fs);
  const std::vector<int> counts = {700, 300, 0, 1, 900, 20000};  // the last ~430 KB
  PipelineOptions local = Options(MakeFiles("lent", counts, false));
  local.cycle_length = 3;
  local.batch_size = 100;
  const std::vector<std::string> expected = RunAll(local).Records();
  PipelineOptions remote = local;
  for (SourceFile& f : remote.files) f.path = "lend://" + f.path;
  std::vector<std::unique_ptr<Element>> elements;
  ASSERT_TRUE(TakeAll(remote, &elements).ok());
  std::vector<std::string> in_order;
  size_t lent = 0;
  for (const auto& e : elements) {
    for (std::string_view r : e->records) {
      lent += fs->LiesInABlock(r);
      in_order.emplace_back(r);
    }
  }
  EXPECT_EQ(in_order, expected);
  EXPECT_GT(lent, expected.size() * 19 / 20) << lent;  // all but those straddling two blocks
  EXPECT_GT(fs->live(), 0u);
  elements.clear();
  EXPECT_EQ(fs->live(), 0u);
  io::SetRemoteFileSystem(nullptr);
}

TEST(PipelineTest, RecordsOfALentBlockGoOnWhileTheReaderWaitsForTheNext) {
  // A reader at the end of the block it was lent hands on the records it took from there before
  // it reads on (which may wait for the store): the consumer has them while the next block is
  // still to come, and the finished chunk lets go of the block once its last record is taken.
  constexpr uint64_t kBlock = 4096;
  const auto fs = std::make_shared<testing::LendingFileSystem>(kBlock);
  io::SetRemoteFileSystem(fs);
  PipelineOptions o = Options(MakeFiles("held", {1000}, false));
  size_t whole_in_first = 0;  // records "0:r" framed in 16 more bytes, wholly in block 0
  for (uint64_t end = 0; whole_in_first < 1000; ++whole_in_first) {
    end += 16 + 2 + std::to_string(whole_in_first).size();
    if (end > kBlock) break;
  }
  o.files[0].path = "lend://" + o.files[0].path;
  o.batch_size = 1;
  fs->HoldBack(kBlock);
  std::unique_ptr<Pipeline> pipeline;
  ASSERT_TRUE(Pipeline::Create(o, &pipeline).ok());
  std::vector<std::string> got;
  for (;;) {
    std::unique_ptr<Element> e;
    const Status s = pipeline->NextFor(&e, 1000);
    if (errors::IsDeadlineExceeded(s)) break;  // the reader waits for block 1
    ASSERT_TRUE(s.ok()) << s.ToString();
    got.emplace_back(e->records.at(0));
  }
  EXPECT_EQ(got.size(), whole_in_first);
  EXPECT_EQ(fs->live(), 0u);  // block 0: neither the reader nor a taken chunk holds it
  fs->Release();
  for (;;) {
    std::unique_ptr<Element> e;
    const Status s = pipeline->Next(&e);
    if (!s.ok()) {
      EXPECT_TRUE(errors::IsOutOfRange(s)) << s.ToString();
      break;
    }
    got.emplace_back(e->records.at(0));
  }
  ASSERT_EQ(got.size(), 1000u);
  for (size_t r = 0; r < got.size(); ++r) EXPECT_EQ(got[r], "0:" + std::to_string(r));
  pipeline.reset();
  io::SetRemoteFileSystem(nullptr);
}

TEST(ChunkBuffersTest, BuffersComeBackWhenTheLastHolderLetsGo) {
  auto pool = ChunkBuffers::Create(/*max_bytes=*/3000, /*max_buffer=*/2000);
  std::shared_ptr<std::string> a = pool->Get();
  a->assign(1000, 'a');
  const std::string* a_memory = a.get();
  std::shared_ptr<const std::string> element_ref = a;  // an element still holds it
  a.reset();
  EXPECT_EQ(pool->idle_bytes(), 0u);
  element_ref.reset();  // the last holder: back to the pool, empty, its memory kept
  EXPECT_GE(pool->idle_bytes(), 1000u);
  std::shared_ptr<std::string> again = pool->Get();
  EXPECT_EQ(again.get(), a_memory);
  EXPECT_TRUE(again->empty());
  EXPECT_GE(again->capacity(), 1000u);
  EXPECT_EQ(pool->idle_bytes(), 0u);

  // Too large a buffer goes back to the allocator, as does one past the idle bound.
  std::shared_ptr<std::string> huge = pool->Get();
  huge->reserve(5000);
  huge.reset();
  EXPECT_EQ(pool->idle_bytes(), 0u);
  std::vector<std::shared_ptr<std::string>> many;
  for (int i = 0; i < 4; ++i) {
    many.push_back(pool->Get());
    many.back()->reserve(1500);
  }
  many.clear();
  EXPECT_LE(pool->idle_bytes(), 3000u);
  EXPECT_GT(pool->idle_bytes(), 0u);

  // A buffer outliving everything else that refers to the pool still returns to it safely.
  std::shared_ptr<std::string> last = pool->Get();
  last->assign("still here");
  pool.reset();
  EXPECT_EQ(*last, "still here");
  last.reset();
}

}  // namespace
}  // namespace data
}  // namespace swigflow
