// Native TFRecord throughput without Python: separates the C++ cost from the binding's.
//
//   bazel run //bench:record_io_bench -- [DIR]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "swigflow/io/crc32c.h"
#include "swigflow/io/record_reader.h"
#include "swigflow/io/record_writer.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Check(const swigflow::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
}

void Run(const std::string& dir, size_t count, size_t size) {
  std::mt19937_64 rng(0);
  std::string blob(count * size, '\0');
  for (auto& c : blob) c = static_cast<char>(rng());
  const std::string path = dir + "/record_io_bench.tfrecord";
  const double mib = double(count) * size / (1 << 20);
  double best_write = 1e9, best_read = 1e9, best_crc = 1e9;
  for (int repeat = 0; repeat < 3; ++repeat) {
    auto start = Clock::now();
    uint32_t sink = 0;
    for (size_t i = 0; i < count; ++i) sink ^= swigflow::crc32c::Value(&blob[i * size], size);
    best_crc = std::min(best_crc, Seconds(start));
    if (sink == 42) std::printf(" ");

    start = Clock::now();
    std::unique_ptr<swigflow::io::RecordWriter> writer;
    Check(swigflow::io::RecordWriter::Create(path, {}, &writer));
    for (size_t i = 0; i < count; ++i) Check(writer->WriteRecord(&blob[i * size], size));
    Check(writer->Close());
    best_write = std::min(best_write, Seconds(start));

    start = Clock::now();
    std::unique_ptr<swigflow::io::RecordReader> reader;
    Check(swigflow::io::RecordReader::Open(path, {}, &reader));
    swigflow::io::RecordBatch batch;
    size_t n = 0;
    for (;;) {
      swigflow::Status s = reader->ReadBatch(1024, 16 << 20, &batch);
      if (swigflow::errors::IsOutOfRange(s)) break;
      Check(s);
      n += batch.size();
    }
    best_read = std::min(best_read, Seconds(start));
    if (n != count) std::exit(2);
  }
  std::remove(path.c_str());
  std::printf("%zu x %zu B: crc32c %.0f MiB/s, write %.0f MiB/s (%.2f M rec/s), read %.0f MiB/s\n",
              count, size, mib / best_crc, mib / best_write, count / best_write / 1e6,
              mib / best_read);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  std::printf("crc32c implementation: %s\n", swigflow::crc32c::Implementation());
  Run(dir, 200000, 1024);
  Run(dir, 2000, 100 * 1024);
  return 0;
}
