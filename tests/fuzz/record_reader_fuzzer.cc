// Fuzz target for everything that parses untrusted bytes in native/io: the sequential and
// random-access record readers (all three compressions), the damage-tolerant scanner, index
// scanning and index-file parsing, and seek indexes over compressed files (building them,
// parsing them, and reading records through them when they lie).
//
// The input is a file's contents; it is served from a memfd, so no disk I/O is involved.
// Invariants: no crash, no hang, no wild allocation (ASan), and only the statuses that damaged
// input may produce.
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swigflow/io/crc32c.h"
#include "swigflow/io/file.h"
#include "swigflow/io/file_system.h"
#include "swigflow/io/record_format.h"
#include "swigflow/io/record_index.h"
#include "swigflow/io/record_reader.h"
#include "swigflow/io/record_scan.h"
#include "swigflow/io/seek_index.h"
#include "tests/native/lending_files.h"

namespace {

using swigflow::Status;
namespace errors = swigflow::errors;
namespace io = swigflow::io;

void Require(bool condition, const Status& status, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken in %s: %s\n", what, status.ToString().c_str());
    abort();
  }
}

bool IsDamage(const Status& s) { return errors::IsOutOfRange(s) || errors::IsDataLoss(s); }

void ReadEverything(const std::string& path, io::Compression compression) {
  io::RecordOptions options;
  options.compression = compression;
  options.zlib.input_buffer_size = 4096;  // small buffers exercise refills
  std::unique_ptr<io::RecordReader> reader;
  Status s = io::RecordReader::Open(path, options, &reader);
  Require(s.ok(), s, "Open");
  io::RecordBatch batch;
  size_t max_records = 1;
  for (;;) {
    s = reader->ReadBatch(max_records, 1000, &batch);
    if (!s.ok()) break;
    Require(!batch.empty(), s, "ReadBatch returned OK and nothing");
    max_records = max_records % 7 + 1;
  }
  Require(IsDamage(s), s, "ReadBatch");
  // Reading on after the end or the damage repeats the same answer.
  uint64_t offset = 0;
  std::string record;
  Require(reader->ReadRecord(&offset, &record) == s, s, "sticky status");
}

// A scanner and a reader over the same data, with small buffers that exercise refills.
void OpenBoth(const std::string& path, io::Compression compression,
              std::unique_ptr<io::RecordScanner>* scanner,
              std::unique_ptr<io::RecordReader>* reader) {
  io::RecordOptions options;
  options.compression = compression;
  options.zlib.input_buffer_size = 4096;
  Status s = io::RecordScanner::Open(path, options, scanner);
  Require(s.ok(), s, "RecordScanner::Open");
  s = io::RecordReader::Open(path, options, reader);
  Require(s.ok(), s, "Open");
}

// Every record and damage a scan finds, its messages without the path.
struct Scan {
  std::vector<std::pair<uint64_t, std::string>> records;
  std::vector<std::string> damages;
};

void AddDamages(const io::RecordScanner& scanner, const std::string& path, Scan* scan) {
  for (const io::RecordDamage& d : scanner.damages()) {
    std::string message = d.message;
    for (size_t at; (at = message.find(path)) != std::string::npos;) message.erase(at, path.size());
    scan->damages.push_back(std::to_string(static_cast<int>(d.kind)) + " " +
                            std::to_string(d.offset) + " " + std::to_string(d.resume) + " " +
                            std::to_string(d.records_before) + " " + message);
  }
}

// The scanner never fails on damage; its intact records are the reader's up to the first
// damage, and its damaged stretches are ordered and inside the data. Returns what it found.
Scan ScanEverything(const std::string& path, io::Compression compression) {
  Scan scan;
  std::unique_ptr<io::RecordScanner> scanner;
  std::unique_ptr<io::RecordReader> reader;
  OpenBoth(path, compression, &scanner, &reader);
  Status s;
  bool reader_ok = true;
  uint64_t last_end = 0;
  for (;;) {
    uint64_t offset;
    std::string record;
    s = scanner->Next(&offset, &record);
    if (!s.ok()) break;
    Require(offset >= last_end, s, "scanner offsets increase");
    last_end = offset + record.size() + 16;
    if (reader_ok && scanner->damages().empty()) {
      uint64_t reader_offset;
      std::string expected;
      reader_ok = reader->ReadRecord(&reader_offset, &expected).ok();
      Require(reader_ok && reader_offset == offset && expected == record, s,
              "scanner agrees with the reader before any damage");
    }
    scan.records.emplace_back(offset, std::move(record));
  }
  Require(errors::IsOutOfRange(s), s, "RecordScanner::Next");
  uint64_t previous = 0;
  for (const io::RecordDamage& d : scanner->damages()) {
    Require(d.offset >= previous && d.resume >= d.offset, s, "damage stretches are ordered");
    previous = d.resume;
  }
  AddDamages(*scanner, path, &scan);
  return scan;
}

Scan ScanAll(const std::string& path, bool stop_at_damage) {
  std::unique_ptr<io::RecordScanner> scanner;
  Status s = io::RecordScanner::Open(path, io::RecordOptions(), &scanner);
  Require(s.ok(), s, "RecordScanner::Open");
  scanner->set_stop_at_damage(stop_at_damage);
  Scan scan;
  for (;;) {
    uint64_t offset;
    std::string record;
    s = scanner->Next(&offset, &record);
    if (!s.ok()) break;
    scan.records.emplace_back(offset, std::move(record));
  }
  Require(errors::IsOutOfRange(s), s, "RecordScanner::Next");
  AddDamages(*scanner, path, &scan);
  return scan;
}

// Records read in place from lent blocks (RecordScanner::NextInPlace), those straddling two
// blocks read through the buffer: the scan finds what a scan of the local file finds, with
// blocks smaller than a header or blocks holding many records (one of them per input for a
// full scan, whose resynchronizing is most of the fuzzer's time).
void ScanInPlace(const std::string& path, const uint8_t* data, size_t size, const Scan& full) {
  const auto bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  for (bool stop : {false, true}) {
    const Scan local = stop ? ScanAll(path, stop) : full;
    for (size_t block : {size_t{7}, size_t{4096}}) {
      if (!stop && block != (size % 2 == 1 ? 7 : 4096)) continue;
      // The fuzz input, lent in blocks of `block` bytes (lending_files.h).
      io::SetRemoteFileSystem(std::make_shared<swigflow::testing::LendingFileSystem>(block, bytes));
      const Scan lent = ScanAll("lend://fuzz", stop);
      Require(lent.records == local.records && lent.damages == local.damages, Status::OK(),
              "a scan in place finds what a local scan finds");
    }
  }
  io::SetRemoteFileSystem(nullptr);
}

// In stop-at-damage mode (what raising pipelines use), the scanner returns exactly the reader's
// records and ends at the first damage, reporting at most one.
void ScanToFirstDamage(const std::string& path, io::Compression compression) {
  std::unique_ptr<io::RecordScanner> scanner;
  std::unique_ptr<io::RecordReader> reader;
  OpenBoth(path, compression, &scanner, &reader);
  scanner->set_stop_at_damage(true);
  Status s;
  for (;;) {
    uint64_t offset;
    std::string record;
    s = scanner->Next(&offset, &record);
    if (!s.ok()) break;
    uint64_t reader_offset;
    std::string expected;
    const Status r = reader->ReadRecord(&reader_offset, &expected);
    Require(r.ok() && reader_offset == offset && expected == record, r,
            "a stopping scanner returns the reader's records");
  }
  Require(errors::IsOutOfRange(s), s, "RecordScanner::Next (stop at damage)");
  // A header cut short by the end of the data is not damage that stops anything (TensorFlow
  // ignores it); besides such, at most one damage is reported.
  size_t stopping = 0;
  for (const io::RecordDamage& d : scanner->damages()) {
    const bool partial_header = d.kind == io::RecordDamage::Kind::kTruncated &&
                                d.resume > d.offset && d.resume - d.offset < 12;
    if (!partial_header) ++stopping;
  }
  Require(stopping <= 1, s, "a stopping scanner reports one damage at most");
}

// Builds a seek index over the data (small spans: many windowed points). When that succeeds,
// every record read through it equals the sequential reader's; then the index, serialized and
// mutated with its CRC made valid again, is refused or gives only true records or damage.
void SeekEverything(const std::string& path, io::Compression compression, const uint8_t* data,
                    size_t size) {
  io::SeekIndex index;
  Status s = io::BuildSeekIndex(path, compression, 4096, &index);
  Require(s.ok() || errors::IsDataLoss(s), s, "BuildSeekIndex");
  if (!s.ok()) return;
  std::unique_ptr<io::RandomAccessFile> file;
  s = io::RandomAccessFile::Open(path, &file);
  Require(s.ok(), s, "RandomAccessFile::Open");
  std::unique_ptr<io::RecordReader> reader;
  io::RecordOptions options;
  options.compression = compression;
  s = io::RecordReader::Open(path, options, &reader);
  Require(s.ok(), s, "Open");
  std::vector<std::string> records;
  for (size_t i = 0; i < index.records.offsets.size(); ++i) {
    uint64_t offset = 0;
    std::string expected, got;
    s = reader->ReadRecord(&offset, &expected);
    Require(s.ok() || errors::IsDataLoss(s), s, "ReadRecord beside a seek index");
    if (!s.ok()) return;  // a payload CRC: the index does not check payloads
    Require(offset == uint64_t(index.records.offsets[i]), s, "seek index offsets");
    s = io::ReadSeekRecord(*file, index, offset, index.records.lengths[i], &got);
    Require(s.ok() && got == expected, s, "ReadSeekRecord equals the sequential reader");
    records.push_back(std::move(expected));
  }
  // Serialized, and mutated from the input's own bytes.
  const std::string good = io::SerializeSeekIndex(index);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  for (int trial = 0; trial < 8; ++trial) {
    std::string bad = good;
    h = h * 1103515245u + 12345u;
    const size_t at = (h >> 8) % (bad.size() - 4);
    bad[at] = static_cast<char>(bad[at] ^ (1u << (h % 8)));
    const uint32_t crc =
        swigflow::crc32c::Mask(swigflow::crc32c::Value(bad.data(), bad.size() - 4));
    io::record_format::EncodeFixed32(crc, &bad[bad.size() - 4]);
    io::SeekIndex mutated;
    s = io::ParseSeekIndex(bad, "mutated", &mutated);
    Require(s.ok() || errors::IsInvalidArgument(s), s, "ParseSeekIndex");
    if (!s.ok()) continue;
    for (size_t i = 0; i < mutated.records.offsets.size(); ++i) {
      std::string got;
      s = io::ReadSeekRecord(*file, mutated, mutated.records.offsets[i], mutated.records.lengths[i],
                             &got);
      Require(s.ok() ? i < records.size() && got == records[i]
                     : errors::IsDataLoss(s) || errors::IsInvalidArgument(s),
              s, "ReadSeekRecord through a mutated index");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  Scan full;  // the uncompressed scan's
  for (io::Compression c :
       {io::Compression::kNone, io::Compression::kZlib, io::Compression::kGzip}) {
    ReadEverything(path, c);
    Scan scan = ScanEverything(path, c);
    if (c == io::Compression::kNone) full = std::move(scan);
    ScanToFirstDamage(path, c);
    if (c != io::Compression::kNone) SeekEverything(path, c, data, size);
  }
  ScanInPlace(path, data, size, full);

  io::RecordIndex index;
  Status s = io::ScanRecords(path, &index);
  Require(s.ok() || errors::IsDataLoss(s), s, "ScanRecords");
  if (s.ok()) {
    // Every indexed record is readable at its offset or reported as damaged payload.
    std::unique_ptr<io::RandomAccessFile> file;
    s = io::RandomAccessFile::Open(path, &file);
    Require(s.ok(), s, "RandomAccessFile::Open");
    std::string record;
    for (size_t i = 0; i < index.offsets.size(); ++i) {
      s = io::ReadRecordAt(*file, index.offsets[i], &record);
      Require(s.ok() || errors::IsDataLoss(s), s, "ReadRecordAt");
      Require(!s.ok() || record.size() + 16 == uint64_t(index.lengths[i]), s, "index length");
    }
  }

  // The same bytes as an index file.
  s = io::ReadIndexFile(path, &index);
  Require(s.ok() || errors::IsInvalidArgument(s), s, "ReadIndexFile");
  io::SeekIndex seek;
  s = io::ReadSeekIndex(path, &seek);
  Require(s.ok() || errors::IsInvalidArgument(s), s, "ReadSeekIndex");

  close(fd);
  return 0;
}
