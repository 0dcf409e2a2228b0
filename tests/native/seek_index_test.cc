// Seek indexes over GZIP and ZLIB TFRecord files (native/io/seek_index.h): every record read at
// random equals the sequential reader's, for one-stream files (block-boundary points with
// windows) and member-chained files (seek_block_size), and a damaged or stale index or file is
// refused with a clear error, never trusted.
#include "swigflow/io/seek_index.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "swigflow/io/crc32c.h"
#include "swigflow/io/record_format.h"
#include "swigflow/io/record_reader.h"
#include "swigflow/io/record_writer.h"
#include "tests/native/test_files.h"

namespace swigflow {
namespace io {
namespace {

using ::swigflow::testing::Slurp;
using ::swigflow::testing::Spit;
using ::swigflow::testing::TempPath;

// Compressible records of varied sizes (a small alphabet, some long runs), a few large.
std::vector<std::string> Records(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> records;
  for (size_t i = 0; i < count; ++i) {
    const size_t n = i % 97 == 5 ? 70000 + rng() % 5000 : rng() % 2000;
    std::string r(n, '\0');
    for (auto& c : r) c = static_cast<char>('a' + rng() % 12);
    records.push_back(std::move(r));
  }
  return records;
}

void Write(const std::string& path, const std::vector<std::string>& records,
           Compression compression, uint64_t seek_block_size = 0) {
  RecordOptions options;
  options.compression = compression;
  options.zlib.seek_block_size = seek_block_size;
  std::unique_ptr<RecordWriter> writer;
  ASSERT_TRUE(RecordWriter::Create(path, options, &writer).ok());
  for (const auto& r : records) ASSERT_TRUE(writer->WriteRecord(r.data(), r.size()).ok());
  ASSERT_TRUE(writer->Close().ok());
}

std::unique_ptr<RandomAccessFile> Open(const std::string& path) {
  std::unique_ptr<RandomAccessFile> file;
  EXPECT_TRUE(RandomAccessFile::Open(path, &file).ok());
  return file;
}

// Every record read in a shuffled order equals the one written.
void ExpectRandomReads(const std::string& path, const SeekIndex& index,
                       const std::vector<std::string>& records) {
  ASSERT_EQ(index.records.offsets.size(), records.size());
  auto file = Open(path);
  std::vector<size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::string payload;
  for (size_t i : order) {
    const Status s =
        ReadSeekRecord(*file, index, index.records.offsets[i], index.records.lengths[i], &payload);
    ASSERT_TRUE(s.ok()) << i << ": " << s.ToString();
    ASSERT_EQ(payload, records[i]) << i;
  }
}

class SeekIndexTest : public ::testing::TestWithParam<Compression> {};

TEST_P(SeekIndexTest, OneStreamWithWindowedPoints) {
  const auto records = Records(3000, 1);
  const std::string path = TempPath("one_stream.tfrecord");
  Write(path, records, GetParam());
  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, GetParam(), 64 << 10, &index).ok());
  size_t windows = 0;
  for (const SeekPoint& p : index.points) {
    if (p.kind == SeekPoint::kBlockBoundary) {
      ++windows;
      EXPECT_GT(p.window.size(), 0u);
      EXPECT_LE(p.window.size(), kDeflateWindow);
    }
  }
  EXPECT_GT(windows, 10u);  // ~2.9 MB of output, a point per 64 KiB
  EXPECT_EQ(index.points[0].in, 0u);
  ExpectRandomReads(path, index, records);

  // Written and read back, the index is the same and still describes the file.
  const std::string index_path = path + ".idx";
  ASSERT_TRUE(WriteSeekIndex(index_path, index).ok());
  SeekIndex read;
  const Status s = ReadSeekIndex(index_path, &read);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(read.points.size(), index.points.size());
  EXPECT_EQ(read.records.offsets, index.records.offsets);
  EXPECT_EQ(read.records.lengths, index.records.lengths);
  EXPECT_TRUE(CheckSeekIndex(read, *Open(path)).ok());
  ExpectRandomReads(path, read, records);
}

TEST_P(SeekIndexTest, DamagedDataIsDataLoss) {
  const auto records = Records(400, 2);
  const std::string path = TempPath("damaged.tfrecord");
  Write(path, records, GetParam());
  const std::string bytes = Slurp(path);
  SeekIndex index;
  // Cut: no complete stream.
  Spit(path, bytes.substr(0, bytes.size() / 2));
  Status s = BuildSeekIndex(path, GetParam(), 64 << 10, &index);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s.ToString();
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.ToString();
  // Garbage in the middle of the deflate data.
  std::string broken = bytes;
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) broken[i] ^= 0x5a;
  Spit(path, broken);
  s = BuildSeekIndex(path, GetParam(), 64 << 10, &index);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Compressions, SeekIndexTest,
                         ::testing::Values(Compression::kGzip, Compression::kZlib));

TEST(SeekIndex, MemberChainedGzip) {
  const auto records = Records(3000, 3);
  const std::string path = TempPath("members.tfrecord");
  Write(path, records, Compression::kGzip, 16 << 10);
  // Every GZIP reader reads it as one stream.
  std::unique_ptr<RecordReader> reader;
  RecordOptions options;
  options.compression = Compression::kGzip;
  ASSERT_TRUE(RecordReader::Open(path, options, &reader).ok());
  std::string record;
  uint64_t offset = 0;
  for (const auto& r : records) {
    ASSERT_TRUE(reader->ReadRecord(&offset, &record).ok());
    ASSERT_EQ(record, r);
  }
  EXPECT_TRUE(errors::IsOutOfRange(reader->ReadRecord(&offset, &record)));

  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, kDefaultSeekSpan, &index).ok());
  // A member per 16 KiB (or per large record), each a point with no window; members end at
  // record boundaries.
  EXPECT_GT(index.points.size(), 100u);
  for (const SeekPoint& p : index.points) {
    EXPECT_EQ(p.kind, SeekPoint::kMemberStart);
    EXPECT_TRUE(p.window.empty());
    EXPECT_TRUE(std::binary_search(index.records.offsets.begin(), index.records.offsets.end(),
                                   static_cast<int64_t>(p.out)));
  }
  ExpectRandomReads(path, index, records);
}

// Threads share one index and one file (what TFRecordDataSource's parallel reads do); each has
// its own inflater and buffers. Run under TSan in CI.
TEST(SeekIndex, ThreadsShareAnIndexAndAFile) {
  const auto records = Records(1200, 6);
  for (uint64_t block : {uint64_t{0}, uint64_t{1}, uint64_t{8 << 10}}) {
    const std::string path = TempPath("threads.tfrecord");
    Write(path, records, Compression::kGzip, block);
    SeekIndex index;
    ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, 32 << 10, &index).ok());
    auto file = Open(path);
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(t);
        std::string payload;
        for (int k = 0; k < 300; ++k) {
          const size_t i = rng() % records.size();
          const Status s = ReadSeekRecord(*file, index, index.records.offsets[i],
                                          index.records.lengths[i], &payload);
          if (!s.ok() || payload != records[i]) ++wrong[t];
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0)) << "block " << block;
  }
}

// Counts the bytes read through it (a lying index must not cost a read of what it claims).
class CountingFile : public RandomAccessFile {
 public:
  explicit CountingFile(std::unique_ptr<RandomAccessFile> file)
      : RandomAccessFile(file->path()), file_(std::move(file)) {}
  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    const Status s = file_->Read(offset, n, dst, bytes_read);
    read_ += *bytes_read;
    return s;
  }
  Status Size(uint64_t* size) const override { return file_->Size(size); }
  uint64_t read() const { return read_; }

 private:
  std::unique_ptr<RandomAccessFile> file_;
  mutable uint64_t read_ = 0;
};

TEST(SeekIndex, ALyingLengthFailsOnTheHeaderNotAfterInflatingIt) {
  // A small record, then 24 MiB of incompressible ones: an index claiming the first record
  // runs to the end is refused from the record's own header, after the first read.
  std::vector<std::string> records = {"small"};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 24; ++i) {
    std::string r(1 << 20, '\0');
    for (size_t k = 0; k < r.size(); k += 8) {
      const uint64_t v = rng();
      std::memcpy(&r[k], &v, 8);
    }
    records.push_back(std::move(r));
  }
  const std::string path = TempPath("lying.tfrecord");
  Write(path, records, Compression::kGzip);
  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, kDefaultSeekSpan, &index).ok());
  CountingFile file(Open(path));
  std::string payload;
  const Status s = ReadSeekRecord(file, index, 0, index.uncompressed_size, &payload);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s.ToString();
  EXPECT_NE(s.message().find("index says the record at 0"), std::string::npos) << s.ToString();
  EXPECT_LT(file.read(), uint64_t{4} << 20) << "read most of the file before the header";
}

TEST(SeekIndex, SeekBlocksNeedGzip) {
  RecordOptions options;
  options.compression = Compression::kZlib;
  options.zlib.seek_block_size = 1 << 16;
  std::unique_ptr<RecordWriter> writer;
  const Status s = RecordWriter::Create(TempPath("zlib_blocks.tfrecord"), options, &writer);
  EXPECT_TRUE(errors::IsInvalidArgument(s)) << s.ToString();
}

TEST(SeekIndex, EmptyFile) {
  const std::string path = TempPath("empty.tfrecord");
  Write(path, {}, Compression::kGzip, 1 << 16);
  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, kDefaultSeekSpan, &index).ok());
  EXPECT_EQ(index.records.offsets.size(), 0u);
  EXPECT_EQ(index.uncompressed_size, 0u);
  ASSERT_TRUE(WriteSeekIndex(path + ".idx", index).ok());
  SeekIndex read;
  EXPECT_TRUE(ReadSeekIndex(path + ".idx", &read).ok());
}

TEST(SeekIndex, StaleIndexIsRefused) {
  const auto records = Records(300, 4);
  const std::string path = TempPath("stale.tfrecord");
  Write(path, records, Compression::kGzip);
  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, kDefaultSeekSpan, &index).ok());
  const std::string bytes = Slurp(path);
  Spit(path, bytes + "x");  // appended to
  Status s = CheckSeekIndex(index, *Open(path));
  EXPECT_TRUE(errors::IsFailedPrecondition(s)) << s.ToString();
  for (size_t at : {size_t{4}, bytes.size() - 6}) {  // rewritten, same size: first or last bytes
    std::string rewritten = bytes;
    rewritten[at] ^= 1;
    Spit(path, rewritten);
    s = CheckSeekIndex(index, *Open(path));
    EXPECT_TRUE(errors::IsFailedPrecondition(s)) << s.ToString();
  }
  Spit(path, bytes);
  EXPECT_TRUE(CheckSeekIndex(index, *Open(path)).ok());
}

// The index file's own checks: flipped bytes fail its CRC; fields changed with the CRC fixed
// up are refused by the range checks or give records that fail their own CRCs -- a read that
// succeeds returns the true record.
TEST(SeekIndex, MutatedIndexNeverMisleads) {
  const auto records = Records(600, 5);
  const std::string path = TempPath("mutated.tfrecord");
  Write(path, records, Compression::kGzip);
  SeekIndex index;
  ASSERT_TRUE(BuildSeekIndex(path, Compression::kGzip, 32 << 10, &index).ok());
  const std::string index_path = path + ".idx";
  ASSERT_TRUE(WriteSeekIndex(index_path, index).ok());
  const std::string good = Slurp(index_path);
  auto file = Open(path);
  std::mt19937 rng(11);
  int refused = 0, read_ok = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::string bad = good;
    const bool fix_crc = trial % 2 == 1;
    const size_t body = bad.size() - 4;
    for (int k = 0; k < 1 + trial % 3; ++k) {
      // Bias to the header and point fields, where a mutation means most.
      const size_t at = rng() % 3 == 0 ? rng() % std::min<size_t>(body, 64 + 24 * 4) : rng() % body;
      bad[at] = static_cast<char>(rng() % 4 == 0 ? 0xff : bad[at] ^ (1 << (rng() % 8)));
    }
    if (trial % 7 == 0) bad.resize(rng() % bad.size());
    if (fix_crc && bad.size() >= 4) {
      record_format::EncodeFixed32(crc32c::Mask(crc32c::Value(bad.data(), bad.size() - 4)),
                                   &bad[bad.size() - 4]);
    }
    Spit(index_path, bad);
    SeekIndex mutated;
    const Status s = ReadSeekIndex(index_path, &mutated);
    if (!s.ok()) {
      ASSERT_TRUE(errors::IsInvalidArgument(s)) << s.ToString();
      ++refused;
      continue;
    }
    std::string payload;
    for (size_t i = 0; i < mutated.records.offsets.size(); i += 37) {
      const Status r = ReadSeekRecord(*file, mutated, mutated.records.offsets[i],
                                      mutated.records.lengths[i], &payload);
      if (r.ok()) {
        ASSERT_LT(i, records.size());
        ASSERT_EQ(payload, records[i]) << "trial " << trial << " record " << i;
        ++read_ok;
      } else {
        ASSERT_TRUE(errors::IsDataLoss(r) || errors::IsInvalidArgument(r)) << r.ToString();
      }
    }
  }
  EXPECT_GT(refused, 300);
  EXPECT_GT(read_ok, 0);
}

}  // namespace
}  // namespace io
}  // namespace swigflow
