#include "swigflow/example/parse.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "swigflow/example/wire.h"
#include "swigflow/framework/thread_pool.h"

namespace swigflow {
namespace example {

using wire::Reader;
using wire::WireType;

size_t ParsedFeature::size(Feature::Kind dtype) const {
  switch (dtype) {
    case Feature::Kind::kBytes:
      return bytes.size();
    case Feature::Kind::kFloat:
      return floats.size();
    default:
      return int64s.size();
  }
}

namespace {

const char* TypeName(Feature::Kind kind) {  // TensorFlow's names in its messages
  switch (kind) {
    case Feature::Kind::kBytes:
      return "string";
    case Feature::Kind::kFloat:
      return "float";
    case Feature::Kind::kInt64:
      return "int64";
    case Feature::Kind::kNone:
      break;
  }
  return "none";
}

// The list's name in TensorFlow's stride message: "bytes", where TypeName says "string".
const char* ListName(Feature::Kind kind) {
  return kind == Feature::Kind::kBytes ? "bytes" : TypeName(kind);
}

std::string_view View(const Reader& r) { return std::string_view(r.pos(), r.remaining()); }

// "[3]", "[2, 2]" or "[]", as Python prints a list (TensorFlow's messages show shapes so).
std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

// "[?,2,1]": a FixedLenSequenceFeature's output shape as TensorFlow prints it (rows unknown).
std::string SequenceShapeText(const std::vector<int64_t>& row_shape) {
  std::string text = "[?";
  for (int64_t d : row_shape) text += "," + std::to_string(d);
  return text + "]";
}

// The lists of one Feature message: the kind of the last list field seen and the bytes of every
// list of that kind (protobuf merge: lists of the same kind append, another kind replaces).
struct FeatureView {
  Feature::Kind kind = Feature::Kind::kNone;
  std::vector<std::string_view> lists;  // capacity kept across entries: no allocation per entry

  // Adds the Feature message bytes in `r` (a map entry's value may come in several pieces).
  bool Add(Reader r) {
    while (!r.done()) {
      uint32_t field;
      WireType type;
      if (!r.ReadTag(&field, &type)) return false;
      if (field >= 1 && field <= 3 && type == wire::kLengthDelimited) {
        Reader list(nullptr, nullptr, nullptr);
        if (!r.ReadDelimited(&list)) return false;
        const auto list_kind = static_cast<Feature::Kind>(field);
        if (list_kind != kind) lists.clear();
        kind = list_kind;
        lists.push_back(View(list));
      } else if (!r.Skip(field, type)) {
        return false;
      }
    }
    return true;
  }
};

// Appends the values of the list messages in `view` to `out`; false if malformed.
bool DecodeLists(const FeatureView& view, const char* origin, ParsedFeature* out) {
  for (std::string_view list : view.lists) {
    Reader r(list.data(), list.data() + list.size(), origin);
    while (!r.done()) {
      uint32_t field;
      WireType type;
      if (!r.ReadTag(&field, &type)) return false;
      if (field != 1) {
        if (!r.Skip(field, type)) return false;
        continue;
      }
      Reader sub(nullptr, nullptr, nullptr);
      switch (view.kind) {
        case Feature::Kind::kBytes:
          if (type != wire::kLengthDelimited) {
            if (!r.Skip(field, type)) return false;
            break;
          }
          if (!r.ReadDelimited(&sub)) return false;
          out->bytes.push_back(View(sub));
          break;
        case Feature::Kind::kFloat:
          if (type == wire::kLengthDelimited) {
            if (!r.ReadDelimited(&sub) || sub.remaining() % 4 != 0) return false;
            if (sub.remaining() == 0) break;  // memcpy into an empty vector's null data is UB
            const size_t old = out->floats.size();
            out->floats.resize(old + sub.remaining() / 4);
            std::memcpy(out->floats.data() + old, sub.pos(), sub.remaining());  // little endian
          } else if (type == wire::kFixed32) {
            uint32_t bits;
            if (!r.ReadFixed32(&bits)) return false;
            float value;
            std::memcpy(&value, &bits, sizeof(value));
            out->floats.push_back(value);
          } else if (!r.Skip(field, type)) {
            return false;
          }
          break;
        case Feature::Kind::kInt64: {
          uint64_t value;
          if (type == wire::kLengthDelimited) {
            if (!r.ReadDelimited(&sub)) return false;
            while (!sub.done()) {
              if (!sub.ReadVarint(&value)) return false;
              out->int64s.push_back(static_cast<int64_t>(value));
            }
          } else if (type == wire::kVarint) {
            if (!r.ReadVarint(&value)) return false;
            out->int64s.push_back(static_cast<int64_t>(value));
          } else if (!r.Skip(field, type)) {
            return false;
          }
          break;
        }
        case Feature::Kind::kNone:
          break;
      }
    }
  }
  return true;
}

void Truncate(ParsedFeature* out, Feature::Kind dtype, size_t size) {
  switch (dtype) {
    case Feature::Kind::kBytes:
      out->bytes.resize(size);
      break;
    case Feature::Kind::kFloat:
      out->floats.resize(size);
      break;
    default:
      out->int64s.resize(size);
  }
}

class BatchParser {
 public:
  BatchParser(const std::vector<FeatureSpec>& specs, const std::vector<std::string>* names)
      : specs_(specs),
        names_(names),
        start_(specs.size()),
        present_(specs.size()),
        mismatch_(specs.size()) {
    for (size_t s = 0; s < specs.size(); ++s) {
      auto it = std::find_if(keys_.begin(), keys_.end(),
                             [&](const auto& k) { return k.first == specs[s].key; });
      if (it == keys_.end()) it = keys_.insert(keys_.end(), {specs[s].key, {}});
      it->second.push_back(static_cast<int>(s));
    }
    if (keys_.size() > kLinearKeys) by_key_.insert(keys_.begin(), keys_.end());
  }

  // Appends the features of serialized[begin, end) to *out, one ParsedFeature per spec. When
  // `reserve_records` > 0, the outputs are sized for that many records after the first one.
  Status Parse(const std::vector<std::string_view>& serialized, size_t begin, size_t end,
               size_t reserve_records, std::vector<ParsedFeature>* out) {
    out->resize(specs_.size());
    for (size_t i = begin; i < end; ++i) {
      SWIGFLOW_RETURN_IF_ERROR(ParseOne(serialized[i], i, out));
      if (i == begin && reserve_records > 0) Reserve(reserve_records, out);
    }
    return Status::OK();
  }

  // Sizes every output for `records` records like the first one (plus slack), so that growing
  // them rarely copies: records of one dataset tend to look alike.
  void Reserve(size_t records, std::vector<ParsedFeature>* out) const {
    for (size_t s = 0; s < specs_.size(); ++s) {
      ParsedFeature& p = (*out)[s];
      const size_t want = p.size(specs_[s].dtype) * records + records / 8 + 16;
      switch (specs_[s].dtype) {
        case Feature::Kind::kBytes:
          p.bytes.reserve(want);
          break;
        case Feature::Kind::kFloat:
          p.floats.reserve(want);
          break;
        default:
          p.int64s.reserve(want);
      }
      p.counts.reserve(records);
    }
  }

 private:
  // The specs reading `key`, or null. A few keys are compared in turn (lengths first), which
  // beats hashing every key of every record.
  const std::vector<int>* Find(std::string_view key) const {
    if (keys_.size() <= kLinearKeys) {
      for (const auto& k : keys_) {
        if (k.first.size() == key.size() &&
            std::memcmp(k.first.data(), key.data(), key.size()) == 0) {
          return &k.second;
        }
      }
      return nullptr;
    }
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : &it->second;
  }

  std::string Prefix(size_t index) const {
    return "Name: " + (names_ != nullptr ? (*names_)[index] : std::string("<unknown>")) + ", ";
  }

  Status Malformed(size_t index, const Reader& at) const {
    return errors::InvalidArgument(Prefix(index), "Index: ", index,
                                   ". malformed Example: invalid protobuf wire data at byte ",
                                   at.offset());
  }

  Status ParseOne(std::string_view record, size_t index, std::vector<ParsedFeature>* out) {
    for (size_t s = 0; s < specs_.size(); ++s) {
      start_[s] = (*out)[s].size(specs_[s].dtype);
      present_[s] = false;
      mismatch_[s] = Feature::Kind::kNone;
    }
    const char* origin = record.data();
    Reader example(record.data(), record.data() + record.size(), origin);
    while (!example.done()) {
      uint32_t field;
      WireType type;
      if (!example.ReadTag(&field, &type)) return Malformed(index, example);
      if (field != 1 || type != wire::kLengthDelimited) {
        if (!example.Skip(field, type)) return Malformed(index, example);
        continue;
      }
      Reader features(nullptr, nullptr, nullptr);
      if (!example.ReadDelimited(&features)) return Malformed(index, example);
      SWIGFLOW_RETURN_IF_ERROR(ParseFeatures(features, index, origin, out));
    }
    return Finish(index, out);
  }

  Status ParseFeatures(Reader features, size_t index, const char* origin,
                       std::vector<ParsedFeature>* out) {
    while (!features.done()) {
      uint32_t field;
      WireType type;
      if (!features.ReadTag(&field, &type)) return Malformed(index, features);
      if (field != 1 || type != wire::kLengthDelimited) {
        if (!features.Skip(field, type)) return Malformed(index, features);
        continue;
      }
      Reader entry(nullptr, nullptr, nullptr);
      if (!features.ReadDelimited(&entry)) return Malformed(index, features);
      // Map entry {key = 1; value = 2}, either order; repeated value fields merge.
      std::string_view key;
      view_.kind = Feature::Kind::kNone;
      view_.lists.clear();
      while (!entry.done()) {
        uint32_t entry_field;
        WireType entry_type;
        if (!entry.ReadTag(&entry_field, &entry_type)) return Malformed(index, entry);
        Reader sub(nullptr, nullptr, nullptr);
        if (entry_field == 1 && entry_type == wire::kLengthDelimited) {
          if (!entry.ReadDelimited(&sub)) return Malformed(index, entry);
          key = View(sub);
        } else if (entry_field == 2 && entry_type == wire::kLengthDelimited) {
          if (!entry.ReadDelimited(&sub)) return Malformed(index, entry);
          if (!view_.Add(sub)) return Malformed(index, sub);
        } else if (!entry.Skip(entry_field, entry_type)) {
          return Malformed(index, entry);
        }
      }
      const std::vector<int>* wanted = Find(key);
      if (wanted == nullptr) continue;  // not requested: its values are never decoded
      for (int s : *wanted) {
        const FeatureSpec& spec = specs_[s];
        ParsedFeature* parsed = &(*out)[s];
        Truncate(parsed, spec.dtype, start_[s]);  // the last entry of a key wins
        present_[s] = view_.kind != Feature::Kind::kNone;
        mismatch_[s] = Feature::Kind::kNone;
        if (!present_[s]) continue;
        if (view_.kind != spec.dtype) {
          mismatch_[s] = view_.kind;  // reported by Finish, in the order of the specs
          continue;
        }
        if (!DecodeLists(view_, origin, parsed)) {
          return errors::InvalidArgument(Prefix(index), "Index: ", index,
                                         ". malformed Example: invalid protobuf wire data in "
                                         "feature ",
                                         spec.key);
        }
      }
    }
    return Status::OK();
  }

  // Per-example checks and bookkeeping once the whole record was read. Problems are reported
  // for the first feature in the order of the specs, so the error does not depend on the order
  // of the entries in the record.
  Status Finish(size_t index, std::vector<ParsedFeature>* out) {
    for (size_t s = 0; s < specs_.size(); ++s) {
      const FeatureSpec& spec = specs_[s];
      ParsedFeature* parsed = &(*out)[s];
      if (mismatch_[s] != Feature::Kind::kNone) {
        return errors::InvalidArgument(
            Prefix(index), "Key: ", spec.key, ", Index: ", index,
            ".  Data types don't match. Data type: ", TypeName(mismatch_[s]),
            " but expected type: ", TypeName(spec.dtype));
      }
      const int64_t count = static_cast<int64_t>(parsed->size(spec.dtype) - start_[s]);
      switch (spec.type) {
        case FeatureSpec::Type::kFixedLen:
          if (!present_[s]) {
            if (!spec.has_default) {
              return errors::InvalidArgument(Prefix(index), "Feature: ", spec.key,
                                             " (data type: ", TypeName(spec.dtype),
                                             ") is required but could not be found.");
            }
            AppendDefault(spec, parsed);
          } else if (count != spec.row_size) {
            return errors::InvalidArgument(Prefix(index), "Key: ", spec.key, ", Index: ", index,
                                           ".  Number of ", TypeName(spec.dtype),
                                           " values != expected.  Values size: ", count,
                                           " but output shape: ", ShapeText(spec.shape));
          }
          break;
        case FeatureSpec::Type::kFixedLenSequence:
          if ((spec.row_size == 0 && count > 0) || (spec.row_size > 0 && count % spec.row_size)) {
            return errors::InvalidArgument(
                Prefix(index), "Key: ", spec.key, ", Index: ", index, ".  Number of ",
                ListName(spec.dtype), " values is not a multiple of stride length. Saw ", count,
                " values but output shape is: ", SequenceShapeText(spec.shape));
          }
          parsed->counts.push_back(count);
          break;
        default:
          parsed->counts.push_back(count);
      }
    }
    return Status::OK();
  }

  static void AppendDefault(const FeatureSpec& spec, ParsedFeature* parsed) {
    switch (spec.dtype) {
      case Feature::Kind::kBytes:
        for (const auto& v : spec.default_bytes) parsed->bytes.emplace_back(v);
        break;
      case Feature::Kind::kFloat:
        parsed->floats.insert(parsed->floats.end(), spec.default_float.begin(),
                              spec.default_float.end());
        break;
      default:
        parsed->int64s.insert(parsed->int64s.end(), spec.default_int64.begin(),
                              spec.default_int64.end());
    }
  }

  const std::vector<FeatureSpec>& specs_;
  const std::vector<std::string>* names_;
  static constexpr size_t kLinearKeys = 16;
  std::vector<std::pair<std::string_view, std::vector<int>>> keys_;  // distinct keys, spec order
  std::unordered_map<std::string_view, std::vector<int>> by_key_;    // the same, when many
  std::vector<size_t> start_;  // per spec: its values' size when the current record began
  std::vector<bool> present_;  // per spec: the current record has the feature (with a kind)
  std::vector<Feature::Kind> mismatch_;  // per spec: the wrong kind the record has, if any
  FeatureView view_;                     // scratch, reused across entries
};

void Append(ParsedFeature* to, ParsedFeature&& from) {
  to->int64s.insert(to->int64s.end(), from.int64s.begin(), from.int64s.end());
  to->floats.insert(to->floats.end(), from.floats.begin(), from.floats.end());
  to->bytes.insert(to->bytes.end(), from.bytes.begin(), from.bytes.end());
  to->counts.insert(to->counts.end(), from.counts.begin(), from.counts.end());
}

// Checks made once per batch, before any record is read.
Status CheckBatch(const std::vector<std::string_view>& serialized,
                  const std::vector<FeatureSpec>& specs, const std::vector<std::string>* names) {
  for (const auto& spec : specs) {
    const size_t defaults =
        spec.default_bytes.size() + spec.default_float.size() + spec.default_int64.size();
    if (spec.has_default && defaults != static_cast<size_t>(spec.row_size)) {
      return errors::InvalidArgument("default value of ", spec.key, " has ", defaults,
                                     " values, its shape ", ShapeText(spec.shape), " needs ",
                                     spec.row_size);
    }
  }
  if (names != nullptr && names->size() != serialized.size()) {
    return errors::InvalidArgument("got ", names->size(), " example names for ", serialized.size(),
                                   " examples");
  }
  return Status::OK();
}

// Concatenates parts[0..] in order into *out (parts are emptied).
void Concatenate(std::vector<std::vector<ParsedFeature>>* parts, std::vector<ParsedFeature>* out) {
  *out = std::move((*parts)[0]);
  for (size_t p = 1; p < parts->size(); ++p) {
    for (size_t s = 0; s < out->size(); ++s) Append(&(*out)[s], std::move((*parts)[p][s]));
  }
}

}  // namespace

Status ParseExampleBatch(const std::vector<std::string_view>& serialized,
                         const std::vector<FeatureSpec>& specs,
                         const std::vector<std::string>* names, int num_threads,
                         std::vector<ParsedFeature>* out, ThreadPool* pool) {
  SWIGFLOW_RETURN_IF_ERROR(CheckBatch(serialized, specs, names));
  // Contiguous parts, one per thread, concatenated in order: the result never depends on the
  // number of threads, and the first error in record order is the one reported.
  constexpr size_t kMinRecordsPerThread = 256;
  const size_t n = serialized.size();
  const size_t parts =
      std::max<size_t>(1, std::min<size_t>(std::max(num_threads, 1), n / kMinRecordsPerThread));
  std::vector<std::vector<ParsedFeature>> results(parts);
  std::vector<Status> statuses(parts);
  auto work = [&](size_t p) {
    BatchParser parser(specs, names);
    const size_t begin = n * p / parts, end = n * (p + 1) / parts;
    statuses[p] = parser.Parse(serialized, begin, end, end - begin, &results[p]);
  };
  if (pool == nullptr) pool = ThreadPool::Default();
  pool->ParallelFor(static_cast<int64_t>(parts), [&](int64_t p) { work(static_cast<size_t>(p)); });
  for (const Status& s : statuses) SWIGFLOW_RETURN_IF_ERROR(s);
  Concatenate(&results, out);
  return Status::OK();
}

Status ParseExampleBatchStreaming(
    const std::vector<std::string_view>& serialized, const std::vector<FeatureSpec>& specs,
    const std::vector<std::string>* names, size_t part_records,
    const std::function<Status(size_t begin, const StringParts& strings)>& consume,
    std::vector<ParsedFeature>* out) {
  SWIGFLOW_RETURN_IF_ERROR(CheckBatch(serialized, specs, names));
  const size_t n = serialized.size();
  part_records = std::max<size_t>(part_records, 1);
  const size_t parts = (n + part_records - 1) / part_records;
  // Each part's strings, copied out of `out` (which the producer keeps growing) so that the
  // consumer never reads a vector being reallocated.
  std::vector<StringParts> strings(parts, StringParts(specs.size()));
  std::vector<Status> statuses(parts);
  out->clear();

  // The producer publishes parts in order: parts [0, done) of `strings` and `statuses` are
  // final and never touched again, so the consumer reads them without the lock. Only the
  // producer touches `out` until it is joined.
  std::atomic<size_t> done{0};
  std::atomic<bool> cancelled{false};
  std::mutex mu;  // with cv, only for a consumer that waited long enough to sleep
  std::condition_variable cv;
  std::thread producer([&] {
    BatchParser parser(specs, names);
    std::vector<size_t> before(specs.size());
    for (size_t p = 0; p < parts && !cancelled.load(std::memory_order_relaxed); ++p) {
      const size_t begin = p * part_records;
      for (size_t s = 0; s < specs.size() && p > 0; ++s) before[s] = (*out)[s].bytes.size();
      statuses[p] =
          parser.Parse(serialized, begin, std::min(n, begin + part_records), p == 0 ? n : 0, out);
      if (statuses[p].ok()) {
        for (size_t s = 0; s < specs.size(); ++s) {
          const auto& bytes = (*out)[s].bytes;
          strings[p][s].assign(bytes.begin() + before[s], bytes.end());
        }
      }
      done.store(p + 1, std::memory_order_release);
      {
        std::lock_guard<std::mutex> lock(mu);
      }  // a sleeper either saw `done` or gets woken
      cv.notify_one();
      if (!statuses[p].ok()) return;
    }
  });
  // A part takes tens of microseconds; waking from a futex costs about as much on a VM, so the
  // consumer spins a little before it sleeps.
  auto wait_for = [&](size_t parts_done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    for (int spins = 0; done.load(std::memory_order_acquire) < parts_done; ++spins) {
      if (spins % 64 == 63 && std::chrono::steady_clock::now() > give_up) {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return done.load(std::memory_order_acquire) >= parts_done; });
        return;
      }
      std::this_thread::yield();
    }
  };
  Status status;
  for (size_t p = 0; p < parts && status.ok(); ++p) {
    wait_for(p + 1);
    status = statuses[p];
    if (status.ok()) status = consume(p * part_records, strings[p]);
  }
  cancelled.store(true, std::memory_order_relaxed);
  producer.join();
  if (!status.ok()) {
    out->clear();
  } else {
    out->resize(specs.size());  // an empty batch parsed nothing
  }
  return status;
}

}  // namespace example
}  // namespace swigflow
