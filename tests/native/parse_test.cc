#include "swigflow/example/parse.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <string_view>
#include <vector>

#include "swigflow/example/example.h"

namespace swigflow {
namespace example {
namespace {

// Record i: "id" int64 [i], "name" bytes ["n<i>"], "tags" bytes with i % 3 values, "x" 2 floats.
std::string MakeRecord(int i) {
  Example ex;
  Feature& id = ex.features["id"];
  id.SetKind(Feature::Kind::kInt64);
  id.int64_list = {i};
  Feature& name = ex.features["name"];
  name.SetKind(Feature::Kind::kBytes);
  name.bytes_list = {"n" + std::to_string(i)};
  Feature& tags = ex.features["tags"];
  tags.SetKind(Feature::Kind::kBytes);
  for (int t = 0; t < i % 3; ++t) tags.bytes_list.push_back("t" + std::to_string(t));
  Feature& x = ex.features["x"];
  x.SetKind(Feature::Kind::kFloat);
  x.float_list = {static_cast<float>(i), -0.5f};
  std::string out;
  SerializeExample(ex, &out);
  return out;
}

std::vector<FeatureSpec> Specs() {
  std::vector<FeatureSpec> specs(4);
  specs[0].key = "id";
  specs[0].type = FeatureSpec::Type::kFixedLen;
  specs[0].dtype = Feature::Kind::kInt64;
  specs[1].key = "name";
  specs[1].type = FeatureSpec::Type::kFixedLen;
  specs[1].dtype = Feature::Kind::kBytes;
  specs[2].key = "tags";
  specs[2].type = FeatureSpec::Type::kVarLen;
  specs[2].dtype = Feature::Kind::kBytes;
  specs[3].key = "x";
  specs[3].type = FeatureSpec::Type::kFixedLen;
  specs[3].dtype = Feature::Kind::kFloat;
  specs[3].shape = {2};
  specs[3].row_size = 2;
  return specs;
}

struct Batch {
  std::vector<std::string> records;
  std::vector<std::string_view> views;
  explicit Batch(int n) {
    for (int i = 0; i < n; ++i) records.push_back(MakeRecord(i));
    for (const auto& r : records) views.emplace_back(r);
  }
};

// What the streaming parse hands the consumer, flattened per spec.
struct Consumed {
  std::vector<size_t> begins;
  std::vector<std::vector<std::string_view>> strings;
};

Status Stream(const Batch& batch, size_t part, Consumed* consumed, std::vector<ParsedFeature>* out,
              size_t fail_at_begin = SIZE_MAX) {
  consumed->strings.assign(Specs().size(), {});
  return ParseExampleBatchStreaming(
      batch.views, Specs(), nullptr, part,
      [&](size_t begin, const StringParts& strings) {
        if (begin == fail_at_begin) return errors::ResourceExhausted("consumer gave up");
        consumed->begins.push_back(begin);
        for (size_t s = 0; s < strings.size(); ++s) {
          auto& all = consumed->strings[s];
          all.insert(all.end(), strings[s].begin(), strings[s].end());
        }
        return Status::OK();
      },
      out);
}

TEST(ParseTest, StreamingEqualsBatchForEveryPartSize) {
  const Batch batch(1000);
  std::vector<ParsedFeature> expected;
  ASSERT_TRUE(ParseExampleBatch(batch.views, Specs(), nullptr, 2, &expected).ok());
  ASSERT_EQ(expected[0].int64s.size(), 1000u);
  EXPECT_EQ(expected[2].counts[4], 1);
  for (size_t part : {1, 7, 256, 999, 1000, 5000}) {
    Consumed consumed;
    std::vector<ParsedFeature> out;
    ASSERT_TRUE(Stream(batch, part, &consumed, &out).ok()) << part;
    ASSERT_EQ(consumed.begins.size(), (1000 + part - 1) / part) << part;
    for (size_t p = 0; p < consumed.begins.size(); ++p) EXPECT_EQ(consumed.begins[p], p * part);
    for (size_t s = 0; s < expected.size(); ++s) {
      EXPECT_EQ(out[s].int64s, expected[s].int64s) << part << " " << s;
      EXPECT_EQ(out[s].floats, expected[s].floats) << part << " " << s;
      EXPECT_EQ(out[s].bytes, expected[s].bytes) << part << " " << s;
      EXPECT_EQ(out[s].counts, expected[s].counts) << part << " " << s;
      EXPECT_EQ(consumed.strings[s], expected[s].bytes) << part << " " << s;
    }
  }
}

TEST(ParseTest, StreamingReportsTheFirstBadRecordAfterConsumingTheParts) {
  Batch batch(1000);
  batch.records[613] = "\x0a\x05";  // Example.features claims 5 bytes, has none
  batch.views[613] = batch.records[613];
  Consumed consumed;
  std::vector<ParsedFeature> out;
  const Status s = Stream(batch, 100, &consumed, &out);
  EXPECT_EQ(s.code(), error::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("Index: 613."), std::string::npos) << s.message();
  EXPECT_EQ(consumed.begins, (std::vector<size_t>{0, 100, 200, 300, 400, 500}));
  EXPECT_TRUE(out.empty());
  std::vector<ParsedFeature> whole;
  EXPECT_EQ(ParseExampleBatch(batch.views, Specs(), nullptr, 2, &whole).message(), s.message());
}

TEST(ParseTest, StreamingStopsOnAConsumerError) {
  const Batch batch(1000);
  Consumed consumed;
  std::vector<ParsedFeature> out;
  const Status s = Stream(batch, 100, &consumed, &out, /*fail_at_begin=*/300);
  EXPECT_EQ(s.code(), error::RESOURCE_EXHAUSTED);
  EXPECT_EQ(consumed.begins, (std::vector<size_t>{0, 100, 200}));
  EXPECT_TRUE(out.empty());
}

TEST(ParseTest, StreamingAnEmptyBatch) {
  const Batch batch(0);
  Consumed consumed;
  std::vector<ParsedFeature> out;
  ASSERT_TRUE(Stream(batch, 100, &consumed, &out).ok());
  EXPECT_TRUE(consumed.begins.empty());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(out[1].bytes.empty());
}

}  // namespace
}  // namespace example
}  // namespace swigflow
