#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/io/crc32c.h"
#include "swigflow/io/file_system.h"
#include "swigflow/io/input_stream.h"
#include "swigflow/io/record_format.h"
#include "swigflow/io/record_reader.h"
#include "swigflow/io/record_scan.h"
#include "swigflow/io/record_writer.h"
#include "tests/native/test_files.h"

namespace swigflow {
namespace io {
namespace {

using ::swigflow::testing::Slurp;
using ::swigflow::testing::Spit;
using ::swigflow::testing::TempPath;

RecordOptions Options(Compression compression) {
  RecordOptions options;
  options.compression = compression;
  return options;
}

void WriteAll(const std::string& path, const std::vector<std::string>& records,
              const RecordOptions& options) {
  std::unique_ptr<RecordWriter> writer;
  ASSERT_TRUE(RecordWriter::Create(path, options, &writer).ok());
  for (const auto& r : records) ASSERT_TRUE(writer->WriteRecord(r.data(), r.size()).ok());
  ASSERT_TRUE(writer->Close().ok());
}

// Reads until the first non-OK status, which is returned.
Status ReadAll(const std::string& path, const RecordOptions& options,
               std::vector<std::string>* records) {
  std::unique_ptr<RecordReader> reader;
  SWIGFLOW_RETURN_IF_ERROR(RecordReader::Open(path, options, &reader));
  records->clear();
  for (;;) {
    uint64_t offset;
    std::string record;
    Status s = reader->ReadRecord(&offset, &record);
    if (!s.ok()) return s;
    records->push_back(record);
  }
}

std::string RandomBytes(size_t n, std::mt19937_64* rng) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>((*rng)());
  return s;
}

std::vector<std::string> SampleRecords() {
  std::mt19937_64 rng(1);
  std::vector<std::string> records;
  for (size_t n : {0, 1, 255, 256, 65535, 65536, 3 << 20, 7})
    records.push_back(RandomBytes(n, &rng));
  return records;
}

class RoundTrip : public ::testing::TestWithParam<Compression> {};

TEST_P(RoundTrip, RecordsComeBackExactly) {
  const std::string path = TempPath("round_trip");
  const auto records = SampleRecords();
  WriteAll(path, records, Options(GetParam()));
  std::vector<std::string> read;
  Status s = ReadAll(path, Options(GetParam()), &read);
  EXPECT_TRUE(errors::IsOutOfRange(s)) << s;
  EXPECT_EQ(read, records);
}

TEST_P(RoundTrip, BatchesMatchRecordsAndOffsets) {
  const std::string path = TempPath("batches");
  const auto records = SampleRecords();
  WriteAll(path, records, Options(GetParam()));
  std::unique_ptr<RecordReader> reader;
  ASSERT_TRUE(RecordReader::Open(path, Options(GetParam()), &reader).ok());
  RecordBatch batch;
  std::vector<std::string> read;
  uint64_t expected_offset = 0;
  for (;;) {
    Status s = reader->ReadBatch(3, 1 << 30, &batch);
    if (errors::IsOutOfRange(s)) break;
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_LE(batch.size(), 3u);
    for (size_t i = 0; i < batch.size(); ++i) {
      EXPECT_EQ(batch.offset(i), expected_offset);
      read.emplace_back(batch.data() + batch.begin(i), batch.end(i) - batch.begin(i));
      expected_offset += record_format::kFramingSize + read.back().size();
    }
  }
  EXPECT_EQ(read, records);
}

TEST_P(RoundTrip, SeekReturnsToARecord) {
  const std::string path = TempPath("seek");
  const auto records = SampleRecords();
  WriteAll(path, records, Options(GetParam()));
  std::unique_ptr<RecordReader> reader;
  ASSERT_TRUE(RecordReader::Open(path, Options(GetParam()), &reader).ok());
  std::vector<uint64_t> offsets;
  uint64_t offset, length;
  while (reader->SkipRecord(&offset, &length).ok()) offsets.push_back(offset);
  ASSERT_EQ(offsets.size(), records.size());
  for (size_t i : {5, 0, 7, 3}) {
    ASSERT_TRUE(reader->Seek(offsets[i]).ok());
    std::string record;
    ASSERT_TRUE(reader->ReadRecord(&offset, &record).ok());
    EXPECT_EQ(offset, offsets[i]);
    EXPECT_EQ(record, records[i]);
  }
}

TEST_P(RoundTrip, FlushMakesRecordsReadableBeforeClose) {
  const std::string path = TempPath("flush");
  std::unique_ptr<RecordWriter> writer;
  ASSERT_TRUE(RecordWriter::Create(path, Options(GetParam()), &writer).ok());
  ASSERT_TRUE(writer->WriteRecord("first", 5).ok());
  ASSERT_TRUE(writer->WriteRecord("second", 6).ok());
  ASSERT_TRUE(writer->Flush().ok());
  std::vector<std::string> read;
  ReadAll(path, Options(GetParam()), &read);
  EXPECT_EQ(read, (std::vector<std::string>{"first", "second"}));
  ASSERT_TRUE(writer->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(Compressions, RoundTrip,
                         ::testing::Values(Compression::kNone, Compression::kZlib,
                                           Compression::kGzip));

TEST(RecordWriterTest, FramingIsExact) {
  const std::string path = TempPath("framing");
  WriteAll(path, {"", "abc"}, Options(Compression::kNone));
  const std::string bytes = Slurp(path);
  ASSERT_EQ(bytes.size(), 16u + 19u);
  // Empty record: zero length, masked CRC of eight zero bytes, masked CRC of nothing.
  EXPECT_EQ(bytes.substr(0, 8), std::string(8, '\0'));
  EXPECT_EQ(record_format::DecodeFixed32(&bytes[8]), crc32c::Mask(crc32c::Value(bytes.data(), 8)));
  EXPECT_EQ(record_format::DecodeFixed32(&bytes[12]), crc32c::Mask(0));
  EXPECT_EQ(record_format::DecodeFixed64(&bytes[16]), 3u);
  EXPECT_EQ(bytes.substr(28, 3), "abc");
  EXPECT_EQ(record_format::DecodeFixed32(&bytes[31]), crc32c::Mask(crc32c::Value("abc", 3)));
}

TEST(RecordWriterTest, ClosedWriterRefuses) {
  const std::string path = TempPath("closed");
  std::unique_ptr<RecordWriter> writer;
  ASSERT_TRUE(RecordWriter::Create(path, Options(Compression::kGzip), &writer).ok());
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_TRUE(errors::IsFailedPrecondition(writer->WriteRecord("x", 1)));
  EXPECT_TRUE(errors::IsFailedPrecondition(writer->Flush()));
  EXPECT_TRUE(errors::IsFailedPrecondition(writer->Close()));
}

TEST(RecordWriterTest, MissingDirectoryIsNotFound) {
  std::unique_ptr<RecordWriter> writer;
  Status s = RecordWriter::Create(TempPath("no/such/dir/x"), Options(Compression::kNone), &writer);
  EXPECT_TRUE(errors::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("no/such/dir/x"), std::string::npos);
}

TEST(RecordReaderTest, MissingFileIsNotFoundAndDirectoryIsRefused) {
  std::unique_ptr<RecordReader> reader;
  Status s = RecordReader::Open(TempPath("missing.tfrecord"), Options(Compression::kNone), &reader);
  EXPECT_TRUE(errors::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("missing.tfrecord"), std::string::npos);
  s = RecordReader::Open(TempPath(""), Options(Compression::kNone), &reader);
  EXPECT_TRUE(errors::IsFailedPrecondition(s)) << s;
}

TEST(RecordReaderTest, DamageIsReportedLikeTensorFlow) {
  const std::string path = TempPath("damage");
  WriteAll(path, {"", "hello", "world!"}, Options(Compression::kNone));
  const std::string good = Slurp(path);  // records at 0, 16, 37
  std::vector<std::string> read;

  std::string bad = good;
  bad[16 + 8] ^= 1;  // header CRC of record 1
  Spit(path, bad);
  Status s = ReadAll(path, Options(Compression::kNone), &read);
  EXPECT_EQ(read.size(), 1u);
  EXPECT_TRUE(errors::IsDataLoss(s));
  EXPECT_EQ(s.message(), "corrupted record at 16 in " + path + " (length CRC mismatch)");

  bad = good;
  bad[16 + 12] ^= 1;  // payload of record 1: reported at the payload, like TensorFlow
  Spit(path, bad);
  s = ReadAll(path, Options(Compression::kNone), &read);
  EXPECT_EQ(read.size(), 1u);
  EXPECT_EQ(s.message(), "corrupted record at 28 in " + path + " (data CRC mismatch)");

  Spit(path, good.substr(0, good.size() - 3));  // payload CRC of record 2 cut short
  s = ReadAll(path, Options(Compression::kNone), &read);
  EXPECT_EQ(read.size(), 2u);
  EXPECT_TRUE(errors::IsDataLoss(s));
  EXPECT_EQ(s.message().rfind("truncated record at 37 in " + path, 0), 0u) << s;

  Spit(path, good.substr(0, 37 + 5));  // header of record 2 cut short: a quiet end
  s = ReadAll(path, Options(Compression::kNone), &read);
  EXPECT_EQ(read.size(), 2u);
  EXPECT_TRUE(errors::IsOutOfRange(s)) << s;
}

// A file of another kind given as a TFRecord file is named by its magic bytes.
TEST(RecordReaderTest, OtherFormatsAreNamed) {
  const std::string path = TempPath("other_format");
  const std::pair<std::string, std::string> kinds[] = {
      {std::string("\xff\xd8\xff\xe0", 4) + std::string(16, 'j'), "JPEG"},
      {std::string("\x89PNG\r\n\x1a\n", 8) + std::string(16, 'p'), "PNG"},
      {"GIF89a" + std::string(16, 'g'), "GIF"},
      {std::string("RIFF\x10\0\0\0WEBPVP8 ", 16) + std::string(8, 'w'), "WebP"},
      {"PAR1" + std::string(16, 'q'), "Parquet"},
  };
  for (const auto& [bytes, name] : kinds) {
    Spit(path, bytes);
    std::vector<std::string> read;
    const Status s = ReadAll(path, Options(Compression::kNone), &read);
    EXPECT_TRUE(errors::IsDataLoss(s)) << s;
    EXPECT_EQ(s.message(), "not a TFRecord file: " + path + " holds " + name +
                               " data (its first bytes are no record header)");
  }
}

TEST(RecordReaderTest, LyingLengthIsTruncationNotAllocation) {
  const std::string path = TempPath("lying");
  char header[record_format::kHeaderSize];
  record_format::EncodeHeader(uint64_t{1} << 62, header);  // CRC-valid, absurd length
  Spit(path, std::string(header, sizeof(header)) + "tiny");
  std::vector<std::string> read;
  Status s = ReadAll(path, Options(Compression::kNone), &read);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s;
  EXPECT_EQ(s.message().rfind("truncated record at 0", 0), 0u) << s;
  record_format::EncodeHeader(~uint64_t{0}, header);  // would overflow length + footer
  Spit(path, std::string(header, sizeof(header)));
  EXPECT_TRUE(errors::IsDataLoss(ReadAll(path, Options(Compression::kNone), &read)));
}

TEST(RecordReaderTest, BatchDeliversGoodRecordsBeforeTheError) {
  const std::string path = TempPath("batch_damage");
  WriteAll(path, {"a", "b", "c"}, Options(Compression::kNone));
  std::string bytes = Slurp(path);
  bytes[2 * 17 + 12] ^= 1;  // payload of record 2
  Spit(path, bytes);
  std::unique_ptr<RecordReader> reader;
  ASSERT_TRUE(RecordReader::Open(path, Options(Compression::kNone), &reader).ok());
  RecordBatch batch;
  ASSERT_TRUE(reader->ReadBatch(100, 1 << 20, &batch).ok());
  EXPECT_EQ(batch.size(), 2u);
  Status s = reader->ReadBatch(100, 1 << 20, &batch);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s;
  EXPECT_TRUE(batch.empty());
  EXPECT_TRUE(errors::IsDataLoss(reader->ReadBatch(100, 1 << 20, &batch)));  // sticky
}

TEST(RecordReaderTest, ConcatenatedGzipMembersAreOneStream) {
  const std::string a = TempPath("member_a"), b = TempPath("member_b");
  WriteAll(a, {"one", "two"}, Options(Compression::kGzip));
  WriteAll(b, {"three"}, Options(Compression::kGzip));
  const std::string joined = TempPath("members");
  Spit(joined, Slurp(a) + Slurp(b));
  std::vector<std::string> read;
  EXPECT_TRUE(errors::IsOutOfRange(ReadAll(joined, Options(Compression::kGzip), &read)));
  EXPECT_EQ(read, (std::vector<std::string>{"one", "two", "three"}));
}

TEST(RecordReaderTest, CorruptCompressedDataIsDataLoss) {
  const std::string path = TempPath("bad_gzip");
  std::mt19937_64 rng(3);
  WriteAll(path, {RandomBytes(100000, &rng)}, Options(Compression::kGzip));
  std::string bytes = Slurp(path);
  for (size_t i = 20; i < 60; ++i) bytes[i] = static_cast<char>(rng());
  Spit(path, bytes);
  std::vector<std::string> read;
  Status s = ReadAll(path, Options(Compression::kGzip), &read);
  EXPECT_TRUE(errors::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(path), std::string::npos);
}

TEST(RecordReaderTest, ReadRecordAtChecksEverything) {
  const std::string path = TempPath("random_access");
  WriteAll(path, {"zero", "one", "two"}, Options(Compression::kNone));
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(path, &file).ok());
  std::string record;
  ASSERT_TRUE(ReadRecordAt(*file, 20, &record).ok());
  EXPECT_EQ(record, "one");
  EXPECT_TRUE(errors::IsDataLoss(ReadRecordAt(*file, 21, &record)));    // not a record start
  EXPECT_TRUE(errors::IsDataLoss(ReadRecordAt(*file, 1000, &record)));  // cut after indexing
}

// Random damage to valid files of every compression: the reader returns the records before the
// damage and then OUT_OF_RANGE or DATA_LOSS; it never crashes, hangs or allocates wildly (the
// test runs under ASan in CI).
TEST(RecordReaderFuzzTest, MutatedFilesNeverCrash) {
  std::mt19937_64 rng(20261121);
  for (Compression compression : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    const std::string path = TempPath("fuzz_source");
    std::vector<std::string> records;
    for (int i = 0; i < 20; ++i) records.push_back(RandomBytes(rng() % 300, &rng));
    WriteAll(path, records, Options(compression));
    const std::string good = Slurp(path);
    const std::string mutated_path = TempPath("fuzz_mutated");
    for (int iteration = 0; iteration < 400; ++iteration) {
      std::string bytes = good;
      switch (rng() % 4) {
        case 0:  // flip bits
          for (int k = 0; k < 1 + int(rng() % 4); ++k)
            bytes[rng() % bytes.size()] ^= 1 << (rng() % 8);
          break;
        case 1:  // truncate
          bytes.resize(rng() % bytes.size());
          break;
        case 2:  // random bytes over a span
          for (size_t k = rng() % bytes.size(), e = std::min(bytes.size(), k + 16); k < e; ++k)
            bytes[k] = static_cast<char>(rng());
          break;
        case 3: {  // a CRC-valid header with a random length, spliced in
          char header[record_format::kHeaderSize];
          record_format::EncodeHeader(rng() >> (rng() % 64), header);
          bytes.insert(rng() % bytes.size(), header, sizeof(header));
          break;
        }
      }
      Spit(mutated_path, bytes);
      std::vector<std::string> read;
      Status s = ReadAll(mutated_path, Options(compression), &read);
      ASSERT_TRUE(errors::IsOutOfRange(s) || errors::IsDataLoss(s)) << s;
      ASSERT_LE(read.size(), records.size() + 1);
    }
  }
}

// RecordScanner: every intact record of a damaged file, and each damage once.
struct Scan {
  std::vector<std::string> records;
  std::vector<uint64_t> offsets;
  std::vector<RecordDamage> damages;
};

Scan ScanAll(const std::string& path, const RecordOptions& options) {
  Scan scan;
  std::unique_ptr<RecordScanner> scanner;
  EXPECT_TRUE(RecordScanner::Open(path, options, &scanner).ok());
  for (;;) {
    uint64_t offset;
    std::string record;
    Status s = scanner->Next(&offset, &record);
    if (!s.ok()) {
      EXPECT_TRUE(errors::IsOutOfRange(s)) << s.ToString();
      break;
    }
    scan.records.push_back(record);
    scan.offsets.push_back(offset);
  }
  scan.damages = scanner->TakeDamages();
  return scan;
}

// Five records of 100 bytes, each framed in 116: record i starts at 116 * i.
std::vector<std::string> FiveRecords() {
  std::vector<std::string> records;
  for (int i = 0; i < 5; ++i) records.push_back(std::string(100, static_cast<char>('a' + i)));
  return records;
}

TEST(RecordScannerTest, IntactFileHasNoDamage) {
  const std::string path = TempPath("scan_intact");
  WriteAll(path, FiveRecords(), Options(Compression::kNone));
  const Scan scan = ScanAll(path, Options(Compression::kNone));
  EXPECT_EQ(scan.records, FiveRecords());
  EXPECT_EQ(scan.offsets, (std::vector<uint64_t>{0, 116, 232, 348, 464}));
  EXPECT_TRUE(scan.damages.empty());
}

TEST(RecordScannerTest, SkipsABadPayloadAndResyncsAfterABadHeader) {
  const std::string path = TempPath("scan_damaged");
  WriteAll(path, FiveRecords(), Options(Compression::kNone));
  std::string bytes = Slurp(path);
  bytes[116 + 12 + 50] ^= 1;  // record 1's payload
  bytes[348 + 3] ^= 1;        // record 3's length
  Spit(path, bytes);
  const Scan scan = ScanAll(path, Options(Compression::kNone));
  const auto all = FiveRecords();
  EXPECT_EQ(scan.records, (std::vector<std::string>{all[0], all[2], all[4]}));
  EXPECT_EQ(scan.offsets, (std::vector<uint64_t>{0, 232, 464}));
  ASSERT_EQ(scan.damages.size(), 2u);
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kDataCrc);
  EXPECT_EQ(scan.damages[0].offset, 116u);
  EXPECT_EQ(scan.damages[0].resume, 232u);
  EXPECT_EQ(scan.damages[0].records_before, 1u);
  EXPECT_NE(scan.damages[0].message.find("corrupted record at 128 in " + path), std::string::npos);
  EXPECT_EQ(scan.damages[1].kind, RecordDamage::Kind::kLengthCrc);
  EXPECT_EQ(scan.damages[1].offset, 348u);
  EXPECT_EQ(scan.damages[1].resume, 464u);
  EXPECT_EQ(scan.damages[1].records_before, 2u);
}

TEST(RecordScannerTest, GarbageBetweenRecordsIsSkipped) {
  const std::string path = TempPath("scan_garbage");
  WriteAll(path, FiveRecords(), Options(Compression::kNone));
  std::string bytes = Slurp(path);
  bytes.insert(232, std::string(37, '\x5a'));
  Spit(path, bytes);
  const Scan scan = ScanAll(path, Options(Compression::kNone));
  EXPECT_EQ(scan.records, FiveRecords());
  ASSERT_EQ(scan.damages.size(), 1u);
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kLengthCrc);
  EXPECT_EQ(scan.damages[0].offset, 232u);
  EXPECT_EQ(scan.damages[0].resume, 232u + 37);
}

TEST(RecordScannerTest, CutRecordAndStrayHeaderBytesAtTheEnd) {
  const std::string path = TempPath("scan_cut");
  WriteAll(path, FiveRecords(), Options(Compression::kNone));
  const std::string bytes = Slurp(path);
  Spit(path, bytes.substr(0, 464 + 60));
  Scan scan = ScanAll(path, Options(Compression::kNone));
  EXPECT_EQ(scan.records.size(), 4u);
  ASSERT_EQ(scan.damages.size(), 1u);
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kTruncated);
  EXPECT_EQ(scan.damages[0].offset, 464u);
  EXPECT_EQ(scan.damages[0].resume, 464u + 60);
  EXPECT_NE(scan.damages[0].message.find("truncated record at 464"), std::string::npos);

  Spit(path, bytes.substr(0, 464 + 5));
  scan = ScanAll(path, Options(Compression::kNone));
  EXPECT_EQ(scan.records.size(), 4u);
  ASSERT_EQ(scan.damages.size(), 1u);
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kTruncated);
  EXPECT_EQ(scan.damages[0].resume, 469u);
}

TEST(RecordScannerTest, HugeLengthWithAValidCrcIsATruncation) {
  const std::string path = TempPath("scan_huge");
  char header[record_format::kHeaderSize];
  record_format::EncodeHeader(uint64_t{1} << 62, header);
  Spit(path, std::string(header, sizeof(header)) + "tail");
  const Scan scan = ScanAll(path, Options(Compression::kNone));
  EXPECT_TRUE(scan.records.empty());
  ASSERT_EQ(scan.damages.size(), 1u);
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kTruncated);
  EXPECT_EQ(scan.damages[0].resume, 16u);
}

TEST(RecordScannerTest, DamagedCompressedStreamEndsTheScan) {
  const std::string path = TempPath("scan_gzip");
  std::vector<std::string> records;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) records.push_back(RandomBytes(1000, &rng));
  WriteAll(path, records, Options(Compression::kGzip));
  std::string bytes = Slurp(path);
  bytes[bytes.size() / 2] ^= 0x55;
  Spit(path, bytes);
  const Scan scan = ScanAll(path, Options(Compression::kGzip));
  ASSERT_LT(scan.records.size(), records.size());
  for (size_t i = 0; i < scan.records.size(); ++i) EXPECT_EQ(scan.records[i], records[i]);
  ASSERT_FALSE(scan.damages.empty());
  EXPECT_EQ(scan.damages[0].kind, RecordDamage::Kind::kStream);
}

// --- Paths and URLs ------------------------------------------------------------------------------

TEST(FileSystemTest, SchemesFollowRfc3986) {
  EXPECT_EQ(io::UrlScheme("s3://bucket/key"), "s3");
  EXPECT_EQ(io::UrlScheme("HTTPS://host/x"), "https");
  EXPECT_EQ(io::UrlScheme("git+ssh://host/x"), "git+ssh");
  EXPECT_EQ(io::UrlScheme("/tmp/a://b"), "");
  EXPECT_EQ(io::UrlScheme("./s3://x"), "");
  EXPECT_EQ(io::UrlScheme("1s3://x"), "");
  EXPECT_EQ(io::UrlScheme("://x"), "");
  EXPECT_EQ(io::UrlScheme("relative/path"), "");
  EXPECT_EQ(io::UrlScheme("data/x://y"), "");
  EXPECT_EQ(io::UrlScheme(""), "");
  std::string local;
  ASSERT_TRUE(io::LocalPath("file:///tmp/x.tfrecord", &local));
  EXPECT_EQ(local, "/tmp/x.tfrecord");
  ASSERT_TRUE(io::LocalPath("data/x.tfrecord", &local));
  EXPECT_EQ(local, "data/x.tfrecord");
  EXPECT_FALSE(io::LocalPath("s3://bucket/x", &local));
}

TEST(FileSystemTest, FileUrlsAreLocalFiles) {
  const std::string path = TempPath("file_url");
  std::unique_ptr<io::RecordWriter> writer;
  ASSERT_TRUE(io::RecordWriter::Create("file://" + path, io::RecordOptions(), &writer).ok());
  ASSERT_TRUE(writer->WriteRecord("abc", 3).ok());
  ASSERT_TRUE(writer->Close().ok());
  std::unique_ptr<io::RecordReader> reader;
  ASSERT_TRUE(io::RecordReader::Open(path, io::RecordOptions(), &reader).ok());
  uint64_t offset;
  std::string record;
  ASSERT_TRUE(reader->ReadRecord(&offset, &record).ok());
  EXPECT_EQ(record, "abc");
  std::remove(path.c_str());
}

TEST(FileSystemTest, RemoteUrlsWithoutARemoteFileSystemAreUnimplemented) {
  io::SetRemoteFileSystem(nullptr);
  std::unique_ptr<io::RecordReader> reader;
  const Status s = io::RecordReader::Open("gs://bucket/x.tfrecord", io::RecordOptions(), &reader);
  EXPECT_EQ(s.code(), error::UNIMPLEMENTED) << s.ToString();
  EXPECT_NE(s.message().find("scheme 'gs'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("swigflow[remote]"), std::string::npos) << s.message();
  std::unique_ptr<io::RecordWriter> writer;
  EXPECT_EQ(io::RecordWriter::Create("s3://b/x", io::RecordOptions(), &writer).code(),
            error::UNIMPLEMENTED);
}

// A remote file system whose files are local copies that mark the damage they report, as the
// shard cache's copies do (swig/py_file_system.cc): each error is reported once, and only damage.
class CopyFile : public RandomAccessFile {
 public:
  CopyFile(std::string url, std::unique_ptr<RandomAccessFile> copy, int* reports)
      : RandomAccessFile(std::move(url)), copy_(std::move(copy)), reports_(reports) {}
  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    return copy_->Read(offset, n, dst, bytes_read);
  }
  Status Size(uint64_t* size) const override { return copy_->Size(size); }

 protected:
  Status Damaged(Status s) const override {
    ++*reports_;
    return Status(s.code(), s.message() + " [in the copy]");
  }

 private:
  const std::unique_ptr<RandomAccessFile> copy_;
  int* const reports_;
};

class CopyFileSystem : public RemoteFileSystem {
 public:
  CopyFileSystem(std::string local, int* reports) : local_(std::move(local)), reports_(reports) {}
  Status OpenRead(const std::string& url, std::unique_ptr<RandomAccessFile>* file,
                  uint64_t* size) override {
    std::unique_ptr<RandomAccessFile> copy;
    SWIGFLOW_RETURN_IF_ERROR(LocalFile::Open(local_, &copy, size));
    *file = std::make_unique<CopyFile>(url, std::move(copy), reports_);
    return Status::OK();
  }
  Status OpenWrite(const std::string& url, std::unique_ptr<OutputStream>* file) override {
    return errors::Unimplemented(url);
  }

 private:
  const std::string local_;
  int* const reports_;
};

TEST(FileSystemTest, DamageIsReportedByTheFileItWasFoundIn) {
  const std::string path = TempPath("copy");
  WriteAll(path, {"zero", "one", "two"}, Options(Compression::kNone));  // at 0, 20, 39
  std::string bytes = Slurp(path);
  bytes[20 + 12] ^= 1;  // payload of record 1
  Spit(path, bytes);
  int reports = 0;
  SetRemoteFileSystem(std::make_shared<CopyFileSystem>(path, &reports));
  const std::string url = "copy://store/x.tfrecord";

  std::vector<std::string> read;
  Status s = ReadAll(url, Options(Compression::kNone), &read);
  EXPECT_EQ(s.message(), "corrupted record at 32 in " + url + " (data CRC mismatch) [in the copy]");
  EXPECT_EQ(reports, 1);

  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(RandomAccessFile::Open(url, &file).ok());
  std::string record;
  EXPECT_TRUE(ReadRecordAt(*file, 0, &record).ok());
  EXPECT_EQ(reports, 1);  // no damage, no report
  s = ReadIndexedRecordAt(*file, 20, 3 + 16, &record);
  EXPECT_EQ(s.message(), "corrupted record at 32 in " + url + " (data CRC mismatch) [in the copy]");
  EXPECT_EQ(reports, 2);

  std::unique_ptr<RecordScanner> scanner;
  ASSERT_TRUE(RecordScanner::Open(url, Options(Compression::kNone), &scanner).ok());
  uint64_t offset;
  std::string_view view;
  while (scanner->Next(&offset, &view).ok()) {
  }
  ASSERT_EQ(scanner->damages().size(), 1u);
  const std::string& message = scanner->damages()[0].message;
  EXPECT_EQ(message.substr(message.rfind(" [")), " [in the copy]") << message;
  EXPECT_EQ(reports, 3);
  SetRemoteFileSystem(nullptr);
}

// The remote file system answering opens with a shard cache's copy: damage found in the copy
// names it and deletes it (the next open fetches the object again).
class CachedCopyFileSystem : public RemoteFileSystem {
 public:
  explicit CachedCopyFileSystem(std::string copy) : copy_(std::move(copy)) {}
  Status OpenRead(const std::string& url, std::unique_ptr<RandomAccessFile>* file,
                  uint64_t* size) override {
    return OpenCachedCopy(url, copy_, file, size);
  }
  Status OpenWrite(const std::string& url, std::unique_ptr<OutputStream>* file) override {
    return errors::Unimplemented(url);
  }

 private:
  const std::string copy_;
};

TEST(FileSystemTest, DamageInACachedCopyDeletesIt) {
  const std::string path = TempPath("cached_copy");
  WriteAll(path, {"zero", "one", "two"}, Options(Compression::kNone));
  std::string bytes = Slurp(path);
  bytes[20 + 12] ^= 1;  // payload of record 1
  Spit(path, bytes);
  SetRemoteFileSystem(std::make_shared<CachedCopyFileSystem>(path));
  const std::string url = "copy://store/x.tfrecord";
  std::vector<std::string> read;
  const Status s = ReadAll(url, Options(Compression::kNone), &read);
  EXPECT_EQ(read, std::vector<std::string>{"zero"});
  EXPECT_EQ(s.message(), "corrupted record at 32 in " + url +
                             " (data CRC mismatch); these bytes came from the shard cache's copy " +
                             path + ", now deleted: the next read fetches the object again");
  std::ifstream gone(path);
  EXPECT_FALSE(gone.good());
  SetRemoteFileSystem(nullptr);
}

// Bytes in memory, as a remote reader's lent block is; logs each read (offset, size).
class MemoryFile : public RandomAccessFile {
 public:
  MemoryFile(std::string data, bool from_memory, std::vector<std::pair<uint64_t, size_t>>* reads)
      : RandomAccessFile("mem://x"),
        data_(std::move(data)),
        from_memory_(from_memory),
        reads_(reads) {}
  Status Read(uint64_t offset, size_t n, char* dst, size_t* bytes_read) const override {
    reads_->emplace_back(offset, n);
    *bytes_read = offset < data_.size() ? std::min(n, data_.size() - offset) : 0;
    std::copy_n(data_.data() + std::min<uint64_t>(offset, data_.size()), *bytes_read, dst);
    return Status::OK();
  }
  Status Size(uint64_t* size) const override {
    *size = data_.size();
    return Status::OK();
  }
  bool ReadsFromMemory() const override { return from_memory_; }

 private:
  const std::string data_;
  const bool from_memory_;
  std::vector<std::pair<uint64_t, size_t>>* const reads_;
};

TEST(FileInputStreamTest, AFileThatReadsFromMemoryIsNotBuffered) {
  std::string data(3000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  for (const bool from_memory : {false, true}) {
    std::vector<std::pair<uint64_t, size_t>> reads;
    FileInputStream stream(std::make_unique<MemoryFile>(data, from_memory, &reads), 1024);
    std::string got;
    for (const size_t n : {12, 100, 2000, 4, 5000}) {  // the last one runs past the end
      std::string part(n, '?');
      size_t read = 0;
      ASSERT_TRUE(stream.Read(n, &part[0], &read).ok());
      got.append(part, 0, read);
    }
    EXPECT_EQ(got, data);
    if (from_memory) {  // each read straight into the caller's memory, as asked
      const std::vector<std::pair<uint64_t, size_t>> asked = {
          {0, 12}, {12, 100}, {112, 2000}, {2112, 4}, {2116, 5000}};
      EXPECT_EQ(reads, asked);
    } else {  // the small reads refill the buffer (1024 bytes), the large one bypasses it
      ASSERT_GE(reads.size(), 2u);
      EXPECT_EQ(reads[0], std::make_pair(uint64_t{0}, size_t{1024}));
    }
  }
}

}  // namespace
}  // namespace io
}  // namespace swigflow
