// Prints the Python wrappers of every op linked into this binary (bazel/gen_op_wrapper.bzl
// links it with one op library, as TensorFlow's tf_gen_op_wrapper_py does).
//
//   python_op_gen [--source=LABEL] [--hidden=Op1,Op2] > gen_lib_ops.py
#include <cstdio>
#include <cstring>
#include <string>

#include "swigflow/framework/op.h"
#include "swigflow/framework/python_op_gen.h"

int main(int argc, char** argv) {
  swigflow::PythonOpGenOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--source=", 0) == 0) {
      options.source = arg.substr(std::strlen("--source="));
    } else if (arg.rfind("--hidden=", 0) == 0) {
      std::string list = arg.substr(std::strlen("--hidden=")) + ",";
      for (size_t start = 0, comma; (comma = list.find(',', start)) != std::string::npos;
           start = comma + 1) {
        if (comma > start) options.hidden.push_back(list.substr(start, comma - start));
      }
    } else {
      std::fprintf(stderr, "usage: %s [--source=LABEL] [--hidden=Op1,Op2]\n", argv[0]);
      return 2;
    }
  }
  auto* registry = swigflow::OpRegistry::Global();
  for (const swigflow::Status& s : registry->TakeDeferredErrors()) {
    std::fprintf(stderr, "op registration failed: %s\n", s.ToString().c_str());
    return 1;
  }
  const auto ops = registry->ListOps();
  for (const std::string& name : options.hidden) {
    if (registry->Find(name) == nullptr) {
      std::fprintf(stderr, "--hidden names %s, which is not registered here\n", name.c_str());
      return 1;
    }
  }
  const std::string source = swigflow::PythonOpWrappers(ops, options);
  return std::fwrite(source.data(), 1, source.size(), stdout) == source.size() ? 0 : 1;
}
