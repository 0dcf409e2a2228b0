#include "swigflow/example/example.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "swigflow/example/wire.h"

namespace swigflow {
namespace example {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

Example MakeExample() {
  Example ex;
  Feature& ints = ex.features["ints"];
  ints.SetKind(Feature::Kind::kInt64);
  ints.int64_list = {0, 1, -1, std::numeric_limits<int64_t>::min(),
                     std::numeric_limits<int64_t>::max()};
  Feature& floats = ex.features["floats"];
  floats.SetKind(Feature::Kind::kFloat);
  floats.float_list = {1.5f, -0.0f, std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::denorm_min()};
  Feature& bytes = ex.features["bytes"];
  bytes.SetKind(Feature::Kind::kBytes);
  bytes.bytes_list = {"", std::string("\0\xff", 2), "text"};
  ex.features["empty_list"].SetKind(Feature::Kind::kInt64);
  ex.features["no_kind"];
  return ex;
}

TEST(ExampleTest, SerializesToProtobufBytes) {
  // Example{features{feature{key: "a" value{int64_list{value: 1}}}}}, worked out by hand.
  Example ex;
  ex.features["a"].SetKind(Feature::Kind::kInt64);
  ex.features["a"].int64_list = {1};
  std::string out;
  SerializeExample(ex, &out);
  EXPECT_EQ(out, Bytes({0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 'a', 0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01,
                        0x01}));
  std::string empty;
  SerializeExample(Example(), &empty);
  EXPECT_EQ(empty, "");
}

TEST(ExampleTest, RoundTripIsExactAndCanonical) {
  const Example ex = MakeExample();
  std::string once, twice;
  SerializeExample(ex, &once);
  Example back;
  ASSERT_TRUE(ParseExample(once.data(), once.size(), &back).ok());
  EXPECT_EQ(back, ex);
  SerializeExample(back, &twice);
  EXPECT_EQ(once, twice);
  EXPECT_TRUE(std::signbit(back.features["floats"].float_list[1]));
  EXPECT_EQ(back.features["no_kind"].kind, Feature::Kind::kNone);
  EXPECT_EQ(back.features["empty_list"].kind, Feature::Kind::kInt64);
  EXPECT_EQ(back.features["empty_list"].size(), 0u);
}

// A Features map entry for `key` with the given Feature body.
std::string Entry(const std::string& key, const std::string& feature_body, bool value_first) {
  std::string key_field = Bytes({0x0a, static_cast<int>(key.size())}) + key;
  std::string value_field = Bytes({0x12, static_cast<int>(feature_body.size())}) + feature_body;
  std::string body = value_first ? value_field + key_field : key_field + value_field;
  return Bytes({0x0a, static_cast<int>(body.size())}) + body;
}

std::string ExampleOf(const std::string& entries) {
  return Bytes({0x0a, static_cast<int>(entries.size())}) + entries;
}

TEST(ExampleTest, PackedAndUnpackedNumbersAreTheSame) {
  // int64_list {value: [3, -1]} packed, then unpacked.
  const std::string minus_one = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  const std::string packed_ints = Bytes({0x1a, 13, 0x0a, 11, 0x03}) + minus_one;
  const std::string unpacked_ints = Bytes({0x1a, 13, 0x08, 0x03, 0x08}) + minus_one;
  // float_list {value: [1.0]} packed, then unpacked.
  const std::string packed_floats = Bytes({0x12, 6, 0x0a, 4, 0, 0, 0x80, 0x3f});
  const std::string unpacked_floats = Bytes({0x12, 5, 0x0d, 0, 0, 0x80, 0x3f});
  Example a, b;
  const std::string pa =
      ExampleOf(Entry("i", packed_ints, false) + Entry("f", packed_floats, false));
  const std::string pb =
      ExampleOf(Entry("i", unpacked_ints, false) + Entry("f", unpacked_floats, false));
  ASSERT_TRUE(ParseExample(pa.data(), pa.size(), &a).ok());
  ASSERT_TRUE(ParseExample(pb.data(), pb.size(), &b).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.features["i"].int64_list, (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(a.features["f"].float_list, (std::vector<float>{1.0f}));
}

TEST(ExampleTest, EntryFieldsInEitherOrderAndLastKeyWins) {
  const std::string one = Bytes({0x1a, 3, 0x0a, 1, 1});
  const std::string two = Bytes({0x1a, 3, 0x0a, 1, 2});
  const std::string bytes = ExampleOf(Entry("k", one, true) + Entry("k", two, false));
  Example ex;
  ASSERT_TRUE(ParseExample(bytes.data(), bytes.size(), &ex).ok());
  ASSERT_EQ(ex.features.size(), 1u);
  EXPECT_EQ(ex.features["k"].int64_list, (std::vector<int64_t>{2}));
}

TEST(ExampleTest, ConcatenatedMessagesMerge) {
  Example a, b;
  a.features["x"].SetKind(Feature::Kind::kInt64);
  a.features["x"].int64_list = {1};
  a.features["y"].SetKind(Feature::Kind::kBytes);
  a.features["y"].bytes_list = {"a"};
  b.features["y"].SetKind(Feature::Kind::kFloat);
  b.features["y"].float_list = {2.0f};
  std::string bytes;
  SerializeExample(a, &bytes);
  SerializeExample(b, &bytes);
  Example merged;
  ASSERT_TRUE(ParseExample(bytes.data(), bytes.size(), &merged).ok());
  EXPECT_EQ(merged.features["x"], a.features["x"]);
  EXPECT_EQ(merged.features["y"], b.features["y"]);  // map: the later entry replaces
}

TEST(ExampleTest, OneofMembersMergeOrReplace) {
  // One Feature message with int64_list twice (values append) and then bytes_list (replaces).
  const std::string feature = Bytes({0x1a, 3, 0x0a, 1, 7, 0x1a, 3, 0x0a, 1, 8});
  Example ex;
  std::string bytes = ExampleOf(Entry("k", feature, false));
  ASSERT_TRUE(ParseExample(bytes.data(), bytes.size(), &ex).ok());
  EXPECT_EQ(ex.features["k"].int64_list, (std::vector<int64_t>{7, 8}));
  const std::string switched = feature + Bytes({0x0a, 3, 0x0a, 1, 'z'});
  bytes = ExampleOf(Entry("k", switched, false));
  ASSERT_TRUE(ParseExample(bytes.data(), bytes.size(), &ex).ok());
  EXPECT_EQ(ex.features["k"].kind, Feature::Kind::kBytes);
  EXPECT_EQ(ex.features["k"].bytes_list, (std::vector<std::string>{"z"}));
  EXPECT_TRUE(ex.features["k"].int64_list.empty());
}

TEST(ExampleTest, UnknownFieldsOfEveryWireTypeAreSkipped) {
  const std::string unknown = Bytes({0x78, 0x05,                            // 15: varint
                                     0x79, 1,    2,    3,   4, 5, 6, 7, 8,  // 15: fixed64
                                     0x7a, 0x02, 'h',  'i',                 // 15: bytes
                                     0x7d, 1,    2,    3,   4,              // 15: fixed32
                                     0x7b, 0x08, 0x01, 0x7c});              // 15: group {1: 1}
  const std::string feature = unknown + Bytes({0x1a, 3, 0x0a, 1, 9}) + unknown;
  const std::string bytes = unknown + ExampleOf(unknown + Entry("k", feature, false));
  Example ex;
  Status s = ParseExample(bytes.data(), bytes.size(), &ex);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ex.features["k"].int64_list, (std::vector<int64_t>{9}));
}

TEST(ExampleTest, MalformedBytesAreInvalidArgumentWithOffset) {
  const std::string good = ExampleOf(Entry("k", Bytes({0x1a, 3, 0x0a, 1, 9}), false));
  const std::vector<std::string> bad = {
      good.substr(0, good.size() - 1),  // message cut short
      Bytes({0x0a, 0x80}),              // truncated varint length
      Bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}),  // 11-byte varint
      Bytes({0x00, 0x01}),                                                        // field number 0
      Bytes({0x0e}),                                                              // wire type 6
      Bytes({0x0c}),                                               // end group with no group
      Bytes({0x0b, 0x10, 0x01}),                                   // group never closed
      ExampleOf(Entry("k", Bytes({0x12, 3, 0x0a, 1, 0}), false)),  // packed floats: 1 byte
  };
  for (const auto& bytes : bad) {
    Example ex;
    Status s = ParseExample(bytes.data(), bytes.size(), &ex);
    EXPECT_TRUE(errors::IsInvalidArgument(s)) << s;
    EXPECT_NE(s.message().find("malformed Example"), std::string::npos) << s;
    EXPECT_NE(s.message().find("at byte"), std::string::npos) << s;
    EXPECT_TRUE(ex.features.empty());
  }
}

TEST(SequenceExampleTest, RoundTrip) {
  SequenceExample ex;
  ex.context = MakeExample().features;
  auto& tokens = ex.feature_lists["tokens"];
  for (int i = 0; i < 3; ++i) {
    tokens.emplace_back();
    tokens.back().SetKind(Feature::Kind::kInt64);
    tokens.back().int64_list = {i, 10 * i};
  }
  ex.feature_lists["empty"];
  std::string bytes;
  SerializeSequenceExample(ex, &bytes);
  SequenceExample back;
  ASSERT_TRUE(ParseSequenceExample(bytes.data(), bytes.size(), &back).ok());
  EXPECT_EQ(back, ex);
  std::string again;
  SerializeSequenceExample(back, &again);
  EXPECT_EQ(bytes, again);
  // An Example's bytes parse as a SequenceExample's context (same field number and type).
  std::string example_bytes;
  SerializeExample(MakeExample(), &example_bytes);
  ASSERT_TRUE(ParseSequenceExample(example_bytes.data(), example_bytes.size(), &back).ok());
  EXPECT_EQ(back.context, MakeExample().features);
}

}  // namespace
}  // namespace example
}  // namespace swigflow
