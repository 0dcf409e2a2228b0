// The cost of a file to swigflow.data's readers, against the system's own cost for it: each file
// of a directory opened, read whole and closed in a plain loop (with and without the fstat the
// readers make), then through io::RecordScanner and data::FileReaders
// (1 and 2 reader threads, the consumer taking every file in order, as the interleave does).
//
//   bazel run -c opt //bench:file_readers_bench -- DIR [ROUNDS]
//
// DIR: a directory of TFRecord files, e.g. pipeline_bench.py's /tmp/pipeline_bench/files_8192.
// Prints microseconds per file, best of ROUNDS (default 7), wall and CPU (all threads).
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "swigflow/data/file_readers.h"

namespace {

using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Cost {
  double wall = 1e30, cpu = 1e30;  // seconds, the best round's
};

template <typename Fn>
Cost Best(int rounds, Fn fn) {
  Cost best;
  for (int r = 0; r < rounds; ++r) {
    const double cpu = CpuSeconds();
    const auto start = Clock::now();
    fn();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    if (wall < best.wall) best = {wall, CpuSeconds() - cpu};
  }
  return best;
}

void Print(const char* what, const Cost& c, size_t files) {
  std::printf("%-46s %6.2f us/file wall  %6.2f us/file CPU\n", what, 1e6 * c.wall / files,
              1e6 * c.cpu / files);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  std::vector<std::string> paths;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') paths.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) {
    std::fprintf(stderr, "no files in %s\n", dir.c_str());
    return 1;
  }
  std::printf("%zu files in %s\n", paths.size(), dir.c_str());

  std::string buffer(1 << 20, '\0');
  Print("open + read + close (the system's cost)",
        Best(rounds,
             [&] {
               for (const std::string& p : paths) {
                 const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
                 if (fd < 0 || pread(fd, &buffer[0], buffer.size(), 0) < 0) std::abort();
                 close(fd);
               }
             }),
        paths.size());

  // What a reader needs of the system: the size too, so that one read takes the whole file and
  // the data is the file as it was at open.
  Print("open + fstat + read + close",
        Best(rounds,
             [&] {
               for (const std::string& p : paths) {
                 const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
                 struct stat st;
                 if (fd < 0 || fstat(fd, &st) != 0 ||
                     pread(fd, &buffer[0], static_cast<size_t>(st.st_size), 0) < 0) {
                   std::abort();
                 }
                 close(fd);
               }
             }),
        paths.size());
  swigflow::io::RecordOptions options;
  std::string spare;
  Print(
      "io::RecordScanner, in this thread",
      Best(
          rounds,
          [&] {
            for (const std::string& p : paths) {
              std::unique_ptr<swigflow::io::RecordScanner> scanner;
              if (!swigflow::io::RecordScanner::Open(p, options, &scanner, std::move(spare)).ok()) {
                std::abort();
              }
              uint64_t offset;
              std::string record;
              while (scanner->Next(&offset, &record).ok()) {
              }
              spare = scanner->TakeBuffer();
            }
          }),
      paths.size());
  std::vector<uint32_t> order(paths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  for (int threads : {1, 2}) {
    swigflow::data::FileReaders readers([&](uint32_t i) -> const std::string& { return paths[i]; },
                                        options, /*stop_at_damage=*/true, threads,
                                        /*open_ahead=*/0, nullptr, nullptr,
                                        swigflow::data::NewChunkBuffers());
    size_t records = 0;
    const Cost cost = Best(rounds, [&] {
      readers.Begin(order, /*active=*/4);
      swigflow::data::Chunk chunk;
      for (size_t k = 0; k < order.size(); ++k) {
        do {
          if (!readers.Take(k, &chunk) || !chunk.status.ok()) std::abort();
          records += chunk.size();
        } while (!chunk.end);  // (which released the file)
      }
      readers.End();
    });
    const std::string what = "FileReaders, " + std::to_string(threads) + " thread(s), 4 active";
    Print(what.c_str(), cost, paths.size());
  }
  return 0;
}
