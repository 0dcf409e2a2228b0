// Fuzz target for the Example / SequenceExample codec and parse_example's batch parser.
// Invariants: no crash or wild allocation; malformed input is INVALID_ARGUMENT; whatever parses
// survives a round trip (serializing, parsing again and serializing again gives an equal message
// and identical bytes); and the batch parser never calls malformed what the codec decodes.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <string_view>
#include <vector>

#include "swigflow/example/example.h"
#include "swigflow/example/parse.h"

namespace {

namespace ex = swigflow::example;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

template <typename Message, typename ParseFn, typename SerializeFn>
void RoundTrip(const char* data, size_t size, ParseFn parse, SerializeFn serialize) {
  Message message;
  swigflow::Status s = parse(data, size, &message);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s), "parse status");
  if (!s.ok()) return;
  std::string once, twice;
  serialize(message, &once);
  Message back;
  Require(parse(once.data(), once.size(), &back).ok(), "re-parse of our own bytes");
  Require(back == message, "round trip changed the message");
  serialize(back, &twice);
  Require(once == twice, "serialization is not canonical");
}

// Specs over the golden examples' keys, one of each kind of spec.
std::vector<ex::FeatureSpec> Specs() {
  std::vector<ex::FeatureSpec> specs(5);
  specs[0].key = "ints";
  specs[1].key = "fixed3";
  specs[1].type = ex::FeatureSpec::Type::kFixedLen;
  specs[1].dtype = ex::Feature::Kind::kFloat;
  specs[1].shape = {3};
  specs[1].row_size = 3;
  specs[1].has_default = true;
  specs[1].default_float = {0, 0, 0};
  specs[2].key = "text";
  specs[2].type = ex::FeatureSpec::Type::kFixedLen;
  specs[2].dtype = ex::Feature::Kind::kBytes;
  specs[2].shape = {};
  specs[2].has_default = true;
  specs[2].default_bytes = {"none"};
  specs[3].key = "blob";
  specs[3].type = ex::FeatureSpec::Type::kRagged;
  specs[3].dtype = ex::Feature::Kind::kBytes;
  specs[4].key = "floats";
  specs[4].type = ex::FeatureSpec::Type::kFixedLenSequence;
  specs[4].dtype = ex::Feature::Kind::kFloat;
  specs[4].shape = {2};
  specs[4].row_size = 2;
  return specs;
}

void ParseBatch(const char* data, size_t size) {
  static const std::vector<ex::FeatureSpec> specs = Specs();
  const std::string_view record(data, size);
  std::vector<ex::ParsedFeature> parsed;
  swigflow::Status s = ex::ParseExampleBatch({record, record}, specs, nullptr, 1, &parsed);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s), "batch parse status");
  ex::Example example;
  if (ex::ParseExample(data, size, &example).ok()) {
    Require(s.message().find("malformed") == std::string::npos, "batch parser and codec disagree");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  ParseBatch(bytes, size);
  RoundTrip<ex::Example>(bytes, size, ex::ParseExample, ex::SerializeExample);
  RoundTrip<ex::SequenceExample>(bytes, size, ex::ParseSequenceExample,
                                 ex::SerializeSequenceExample);
  return 0;
}
