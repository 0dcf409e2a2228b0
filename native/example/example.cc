#include "swigflow/example/example.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "swigflow/example/wire.h"

namespace swigflow {
namespace example {

using wire::Reader;
using wire::WireType;

void Feature::SetKind(Kind new_kind) {
  if (kind == new_kind) return;
  bytes_list.clear();
  float_list.clear();
  int64_list.clear();
  kind = new_kind;
}

size_t Feature::size() const {
  switch (kind) {
    case Kind::kBytes:
      return bytes_list.size();
    case Kind::kFloat:
      return float_list.size();
    case Kind::kInt64:
      return int64_list.size();
    case Kind::kNone:
      break;
  }
  return 0;
}

bool Feature::operator==(const Feature& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::kBytes:
      return bytes_list == other.bytes_list;
    case Kind::kFloat:  // bitwise, as serialized: NaN equals itself, -0.0 differs from 0.0
      return float_list.size() == other.float_list.size() &&
             (float_list.empty() || std::memcmp(float_list.data(), other.float_list.data(),
                                                float_list.size() * sizeof(float)) == 0);
    case Kind::kInt64:
      return int64_list == other.int64_list;
    case Kind::kNone:
      break;
  }
  return true;
}

// --- Parsing -----------------------------------------------------------------------------------
//
// Each Merge* function reads one message from a Reader over exactly its bytes, merging into its
// output, and returns false at the first malformed byte (recorded in Parse::failed_at).

namespace {

struct Parse {
  const char* what;  // "Example" or "SequenceExample"
  size_t failed_at = 0;

  bool Fail(const Reader& r) {
    failed_at = r.offset();
    return false;
  }
  Status Error() const {
    return errors::InvalidArgument("malformed ", what, ": invalid protobuf wire data at byte ",
                                   failed_at);
  }
};

// Reads the next field header; false at the end of the message or on a malformed tag.
bool NextField(Reader* r, uint32_t* field, WireType* type, bool* ok, Parse* p) {
  if (r->done()) return false;
  if (!r->ReadTag(field, type)) {
    *ok = p->Fail(*r);
    return false;
  }
  return true;
}

bool MergeBytesList(Reader r, std::vector<std::string>* values, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    if (field == 1 && type == wire::kLengthDelimited) {
      Reader value(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&value)) return p->Fail(r);
      values->emplace_back(value.pos(), value.remaining());
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

bool MergeFloatList(Reader r, std::vector<float>* values, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    if (field == 1 && type == wire::kLengthDelimited) {  // packed
      Reader packed(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&packed) || packed.remaining() % 4 != 0) return p->Fail(r);
      const size_t old = values->size();
      values->resize(old + packed.remaining() / 4);
      for (size_t i = old; i < values->size(); ++i) {
        uint32_t bits = 0;
        packed.ReadFixed32(&bits);  // cannot fail: the length is a multiple of 4
        std::memcpy(&(*values)[i], &bits, sizeof(bits));
      }
    } else if (field == 1 && type == wire::kFixed32) {  // unpacked
      uint32_t bits;
      if (!r.ReadFixed32(&bits)) return p->Fail(r);
      float value;
      std::memcpy(&value, &bits, sizeof(bits));
      values->push_back(value);
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

bool MergeInt64List(Reader r, std::vector<int64_t>* values, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    uint64_t value;
    if (field == 1 && type == wire::kLengthDelimited) {  // packed
      Reader packed(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&packed)) return p->Fail(r);
      while (!packed.done()) {
        if (!packed.ReadVarint(&value)) return p->Fail(packed);
        values->push_back(static_cast<int64_t>(value));  // int64: two's complement, no zigzag
      }
    } else if (field == 1 && type == wire::kVarint) {  // unpacked
      if (!r.ReadVarint(&value)) return p->Fail(r);
      values->push_back(static_cast<int64_t>(value));
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

bool MergeFeature(Reader r, Feature* feature, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    if (field >= 1 && field <= 3 && type == wire::kLengthDelimited) {
      Reader list(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&list)) return p->Fail(r);
      feature->SetKind(static_cast<Feature::Kind>(field));  // another member replaces the last
      const bool merged = field == 1   ? MergeBytesList(list, &feature->bytes_list, p)
                          : field == 2 ? MergeFloatList(list, &feature->float_list, p)
                                       : MergeInt64List(list, &feature->int64_list, p);
      if (!merged) return false;
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

bool MergeFeatureList(Reader r, std::vector<Feature>* features, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    if (field == 1 && type == wire::kLengthDelimited) {
      Reader sub(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&sub)) return p->Fail(r);
      features->emplace_back();
      if (!MergeFeature(sub, &features->back(), p)) return false;
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

// One map entry {key = 1; value = 2}, fields in either order; then map[key] = value (the last
// entry of a key wins). MergeValue merges a value message into a Value.
template <typename Map, typename MergeValue>
bool MergeMapEntry(Reader r, Map* map, MergeValue merge_value, Parse* p) {
  std::string key;
  typename Map::mapped_type value{};
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    Reader sub(nullptr, nullptr, nullptr);
    if (field == 1 && type == wire::kLengthDelimited) {
      if (!r.ReadDelimited(&sub)) return p->Fail(r);
      key.assign(sub.pos(), sub.remaining());
    } else if (field == 2 && type == wire::kLengthDelimited) {
      if (!r.ReadDelimited(&sub)) return p->Fail(r);
      if (!merge_value(sub, &value, p)) return false;
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  if (!ok) return false;
  (*map)[key] = std::move(value);
  return true;
}

// A message whose only field is `map<string, V> = 1` (Features, FeatureLists).
template <typename Map, typename MergeValue>
bool MergeMap(Reader r, Map* map, MergeValue merge_value, Parse* p) {
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, p)) {
    if (field == 1 && type == wire::kLengthDelimited) {
      Reader entry(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&entry)) return p->Fail(r);
      if (!MergeMapEntry(entry, map, merge_value, p)) return false;
    } else if (!r.Skip(field, type)) {
      return p->Fail(r);
    }
  }
  return ok;
}

bool MergeFeatures(Reader r, FeatureMap* features, Parse* p) {
  return MergeMap(r, features, MergeFeature, p);
}

}  // namespace

Status ParseExample(const char* data, size_t size, Example* example) {
  example->features.clear();
  Parse p{"Example"};
  Reader r(data, data + size, data);
  uint32_t field;
  WireType type;
  bool ok = true;
  while (NextField(&r, &field, &type, &ok, &p)) {
    if (field == 1 && type == wire::kLengthDelimited) {
      Reader sub(nullptr, nullptr, nullptr);
      if (!r.ReadDelimited(&sub)) {
        ok = p.Fail(r);
        break;
      }
      if (!MergeFeatures(sub, &example->features, &p)) {
        ok = false;
        break;
      }
    } else if (!r.Skip(field, type)) {
      ok = p.Fail(r);
      break;
    }
  }
  if (ok) return Status::OK();
  example->features.clear();
  return p.Error();
}

Status ParseSequenceExample(const char* data, size_t size, SequenceExample* example) {
  example->context.clear();
  example->feature_lists.clear();
  Parse p{"SequenceExample"};
  Reader r(data, data + size, data);
  uint32_t field;
  WireType type;
  bool ok = true;
  while (ok && NextField(&r, &field, &type, &ok, &p)) {
    Reader sub(nullptr, nullptr, nullptr);
    if ((field == 1 || field == 2) && type == wire::kLengthDelimited) {
      if (!r.ReadDelimited(&sub)) {
        ok = p.Fail(r);
      } else if (field == 1) {
        ok = MergeFeatures(sub, &example->context, &p);
      } else {
        ok = MergeMap(sub, &example->feature_lists, MergeFeatureList, &p);
      }
    } else if (!r.Skip(field, type)) {
      ok = p.Fail(r);
    }
  }
  if (ok) return Status::OK();
  example->context.clear();
  example->feature_lists.clear();
  return p.Error();
}

// --- Serializing -------------------------------------------------------------------------------
//
// Sizes first, so every length prefix is written before its message without temporary buffers.

namespace {

using wire::VarintSize;

size_t DelimitedSize(size_t body) { return 1 + VarintSize(body) + body; }  // 1-byte tag

size_t ListBodySize(const Feature& f) {
  size_t body = 0;
  switch (f.kind) {
    case Feature::Kind::kBytes:
      for (const auto& v : f.bytes_list) body += DelimitedSize(v.size());
      return body;
    case Feature::Kind::kFloat:
      return f.float_list.empty() ? 0 : DelimitedSize(4 * f.float_list.size());
    case Feature::Kind::kInt64:
      for (int64_t v : f.int64_list) body += VarintSize(static_cast<uint64_t>(v));
      return f.int64_list.empty() ? 0 : DelimitedSize(body);
    case Feature::Kind::kNone:
      break;
  }
  return 0;
}

size_t FeatureBodySize(const Feature& f) {
  return f.kind == Feature::Kind::kNone ? 0 : DelimitedSize(ListBodySize(f));
}

void WriteHeader(uint32_t field, size_t body_size, std::string* out) {
  wire::WriteTag(field, wire::kLengthDelimited, out);
  wire::WriteVarint(body_size, out);
}

void WriteFeatureBody(const Feature& f, std::string* out) {
  if (f.kind == Feature::Kind::kNone) return;
  WriteHeader(static_cast<uint32_t>(f.kind), ListBodySize(f), out);
  switch (f.kind) {
    case Feature::Kind::kBytes:
      for (const auto& v : f.bytes_list) {
        WriteHeader(1, v.size(), out);
        out->append(v);
      }
      break;
    case Feature::Kind::kFloat:
      if (f.float_list.empty()) break;
      WriteHeader(1, 4 * f.float_list.size(), out);
      for (float v : f.float_list) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(bits >> (8 * i)));
      }
      break;
    case Feature::Kind::kInt64: {
      if (f.int64_list.empty()) break;
      size_t packed = 0;
      for (int64_t v : f.int64_list) packed += VarintSize(static_cast<uint64_t>(v));
      WriteHeader(1, packed, out);
      for (int64_t v : f.int64_list) wire::WriteVarint(static_cast<uint64_t>(v), out);
      break;
    }
    case Feature::Kind::kNone:
      break;
  }
}

size_t FeatureListBodySize(const std::vector<Feature>& list) {
  size_t body = 0;
  for (const auto& f : list) body += DelimitedSize(FeatureBodySize(f));
  return body;
}

void WriteFeatureListBody(const std::vector<Feature>& list, std::string* out) {
  for (const auto& f : list) {
    WriteHeader(1, FeatureBodySize(f), out);
    WriteFeatureBody(f, out);
  }
}

size_t EntryBodySize(const std::string& key, size_t value_body) {
  return DelimitedSize(key.size()) + DelimitedSize(value_body);
}

// Field `field` holding a Features or FeatureLists message, whose body is its one map field:
// entries {key = 1; value = 2}, each as field 1, in key order (std::map), so the output is
// canonical. Written only when the map has entries.
template <typename Map, typename ValueBodySize, typename WriteValueBody>
void WriteMap(uint32_t field, const Map& map, ValueBodySize value_body_size,
              WriteValueBody write_value_body, std::string* out) {
  if (map.empty()) return;
  size_t body = 0;
  for (const auto& [key, value] : map) {
    body += DelimitedSize(EntryBodySize(key, value_body_size(value)));
  }
  WriteHeader(field, body, out);
  for (const auto& [key, value] : map) {
    const size_t value_body = value_body_size(value);
    WriteHeader(1, EntryBodySize(key, value_body), out);
    WriteHeader(1, key.size(), out);
    out->append(key);
    WriteHeader(2, value_body, out);
    write_value_body(value, out);
  }
}

}  // namespace

void SerializeExample(const Example& example, std::string* out) {
  WriteMap(1, example.features, FeatureBodySize, WriteFeatureBody, out);
}

void SerializeSequenceExample(const SequenceExample& example, std::string* out) {
  WriteMap(1, example.context, FeatureBodySize, WriteFeatureBody, out);
  WriteMap(2, example.feature_lists, FeatureListBodySize, WriteFeatureListBody, out);
}

}  // namespace example
}  // namespace swigflow
