// tf.train.Example and tf.train.SequenceExample, decoded from and encoded to the protobuf wire
// format by hand (no libprotobuf):
//
//   Example         { Features features = 1; }
//   Features        { map<string, Feature> feature = 1; }
//   Feature         { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                                  Int64List int64_list = 3; } }
//   BytesList       { repeated bytes value = 1; }
//   FloatList       { repeated float value = 1 [packed = true]; }
//   Int64List       { repeated int64 value = 1 [packed = true]; }
//   SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
//   FeatureLists    { map<string, FeatureList> feature_list = 1; }
//   FeatureList     { repeated Feature feature = 1; }
//
// Parsing follows protobuf's rules: numbers packed or not, unknown fields skipped, map entry
// fields in either order, the last entry of a key wins, and a message that occurs twice (or
// serialized messages that were concatenated) merges: repeated values append, and setting
// another member of `kind` replaces the previous one. Serializing is canonical: keys sorted,
// numbers packed, so equal messages give equal bytes.
#ifndef SWIGFLOW_EXAMPLE_EXAMPLE_H_
#define SWIGFLOW_EXAMPLE_EXAMPLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "swigflow/framework/status.h"

namespace swigflow {
namespace example {

struct Feature {
  // The values are the field numbers of the oneof members.
  enum class Kind : int { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

  Kind kind = Kind::kNone;
  std::vector<std::string> bytes_list;  // used when kind == kBytes
  std::vector<float> float_list;        // used when kind == kFloat
  std::vector<int64_t> int64_list;      // used when kind == kInt64

  // Makes `kind` the set member, clearing the others (a oneof holds one member).
  void SetKind(Kind new_kind);
  size_t size() const;  // number of values of the set member

  bool operator==(const Feature& other) const;
  bool operator!=(const Feature& other) const { return !(*this == other); }
};

using FeatureMap = std::map<std::string, Feature>;
using FeatureListMap = std::map<std::string, std::vector<Feature>>;

struct Example {
  FeatureMap features;
  bool operator==(const Example& other) const { return features == other.features; }
};

struct SequenceExample {
  FeatureMap context;
  FeatureListMap feature_lists;
  bool operator==(const SequenceExample& other) const {
    return context == other.context && feature_lists == other.feature_lists;
  }
};

// Replaces *example with the message in data[0, size). Malformed bytes are INVALID_ARGUMENT
// ("malformed Example: ... at byte N").
Status ParseExample(const char* data, size_t size, Example* example);
Status ParseSequenceExample(const char* data, size_t size, SequenceExample* example);

// Canonical encoding; appends to *out.
void SerializeExample(const Example& example, std::string* out);
void SerializeSequenceExample(const SequenceExample& example, std::string* out);

}  // namespace example
}  // namespace swigflow

#endif  // SWIGFLOW_EXAMPLE_EXAMPLE_H_
