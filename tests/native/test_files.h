// Scratch files for the native tests: a path in the test's temporary folder, and whole-file
// reads and writes.
#ifndef SWIGFLOW_TESTS_NATIVE_TEST_FILES_H_
#define SWIGFLOW_TESTS_NATIVE_TEST_FILES_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace swigflow {
namespace testing {

// `name` in $TEST_TMPDIR (Bazel's per-test folder), else /tmp.
inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace testing
}  // namespace swigflow

#endif  // SWIGFLOW_TESTS_NATIVE_TEST_FILES_H_
