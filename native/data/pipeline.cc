// The pipeline's stages, each on its own thread: assemble (an epoch's source, sharding by record,
// the damage policies, the shuffle buffer, batches), parse, decode images. The sources are
// record_sources.h's, the shuffles shuffle.h's.
#include "swigflow/data/pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "swigflow/data/bounded_queue.h"
#include "swigflow/data/file_readers.h"
#include "swigflow/data/record_sources.h"
#include "swigflow/data/shuffle.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/io/file_cache.h"

namespace swigflow {
namespace data {

namespace {

struct Output {
  std::unique_ptr<Element> element;
  Status status;  // not OK: the end (OUT_OF_RANGE) or an error, after the elements before it
};

}  // namespace

class Pipeline::Impl {
 public:
  explicit Impl(PipelineOptions options)
      : o_(std::move(options)),
        indexed_(AllIndexed(o_)),
        buffers_(NewChunkBuffers()),
        raw_(std::max(o_.prefetch, 1)),
        parsed_(std::max(o_.prefetch, 1)),
        out_(std::max(o_.prefetch, 1)) {
    auto path = [this](uint32_t i) -> const std::string& { return o_.files[i].path; };
    try {
      if (indexed_) {
        random_files_ = std::make_unique<io::FileCache>(path, OpenFilesCached());
      }
      bool by_record;
      ShardFiles(&by_record);
      read_threads_ = indexed_ && (o_.global_shuffle || (by_record && !Compressed()))
                          ? IndexedWorkers(o_.cycle_length)
                          : Readers(o_.cycle_length, AnyRemote(o_));
      const bool remote = AnyRemote(o_);
      readers_ = std::make_unique<FileReaders>(
          path, o_.record_options, o_.on_error != OnError::kSkipRecord,
          Readers(o_.cycle_length, remote) + (remote ? OpenAhead(o_.cycle_length) : 0),
          remote ? OpenAhead(o_.cycle_length) : 0, o_.collect_stats ? &read_ : nullptr,
          o_.collect_stats ? &assemble_.input_wait_ns : nullptr, buffers_);
      // The stages' pools are their own: sharing one would serialize decoding whenever a parse
      // holds it. They do not spin between jobs, since every core is wanted by another stage.
      const int threads = ThreadPool::Default()->num_threads();
      if (o_.decode_images) {
        decode_pool_ = std::make_unique<ThreadPool>(threads, /*spin=*/false);
        decoder_ = std::thread([this] { DecodeImages(); });
      }
      if (o_.parse) {
        parse_pool_ = std::make_unique<ThreadPool>(threads, /*spin=*/false);
        parser_ = std::thread([this] { Parse(); });
      }
      assembler_ = std::thread([this] { Assemble(); });
    } catch (...) {  // a thread could not start: stop the other before the members go
      Stop();
      throw;
    }
  }

  ~Impl() { Stop(); }

  void Stop() {
    cancelled_ = true;
    if (readers_ != nullptr) readers_->Stop();
    raw_.Close();
    parsed_.Close();
    out_.Close();
    if (assembler_.joinable()) assembler_.join();
    if (parser_.joinable()) parser_.join();
    if (decoder_.joinable()) decoder_.join();
  }

  Status Next(std::unique_ptr<Element>* element, int64_t timeout_ms) {
    Output output;
    if (timeout_ms < 0) {
      if (!out_.Pop(&output)) return errors::Cancelled("pipeline stopped");
    } else {
      bool timed_out = false;
      if (!out_.PopFor(&output, std::chrono::milliseconds(timeout_ms), &timed_out)) {
        if (timed_out) return errors::DeadlineExceeded("no element yet");
        return errors::Cancelled("pipeline stopped");
      }
    }
    if (!output.status.ok()) return output.status;
    *element = std::move(output.element);
    delivered_.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }

  PipelineStats Stats() const {
    const int64_t now = NowNs();
    PipelineStats s;
    s.elapsed_ns = now - start_ns_;
    auto alive = [&](const std::atomic<int64_t>& end) {
      const int64_t e = end.load();
      return (e != 0 ? e : now) - start_ns_;
    };
    auto stage = [](const char* name, const StageCounters& c) {
      StageStats st;
      st.name = name;
      st.busy_ns = c.busy_ns.load(std::memory_order_relaxed);
      st.input_wait_ns = c.input_wait_ns.load(std::memory_order_relaxed);
      st.elements = c.elements.load(std::memory_order_relaxed);
      st.records = c.records.load(std::memory_order_relaxed);
      st.bytes = c.bytes.load(std::memory_order_relaxed);
      st.files = c.files.load(std::memory_order_relaxed);
      return st;
    };
    // A one-thread stage is busy whenever it is not waiting on one side or the other.
    auto one_thread = [&](StageStats st, const std::atomic<int64_t>& end, int64_t output_wait) {
      st.output_wait_ns = output_wait;
      st.busy_ns = std::max<int64_t>(0, alive(end) - st.input_wait_ns - output_wait);
      return st;
    };
    auto queue = [&](const char* name, const BoundedQueue<Output>::Stats& q) {
      QueueStats qs;
      qs.name = name;
      qs.capacity = static_cast<int64_t>(q.capacity);
      qs.size = static_cast<int64_t>(q.size);
      qs.mean_fill = q.mean_fill;
      s.queues.push_back(qs);
    };
    const auto raw = raw_.GetStats();
    const auto parsed = parsed_.GetStats();
    const auto out = out_.GetStats();

    StageStats read = stage("read", read_);
    read.threads = read_threads_;
    if (random_files_ != nullptr) read.files += random_files_->opens();
    // Readers not reading wait for room: they stop once the read-ahead is full.
    read.output_wait_ns = std::max<int64_t>(0, read_threads_ * alive(assemble_end_) - read.busy_ns);
    s.stages.push_back(read);
    const auto& assembled = o_.parse ? raw : out;
    s.stages.push_back(
        one_thread(stage("assemble", assemble_), assemble_end_, assembled.push_wait_ns));
    queue("assemble", assembled);
    if (o_.parse) {
      const auto& done = o_.decode_images ? parsed : out;
      StageStats parse = stage("parse", parse_);
      parse.input_wait_ns = raw.pop_wait_ns;
      parse = one_thread(parse, parse_end_, done.push_wait_ns);
      parse.threads = parse_pool_->num_threads();
      s.stages.push_back(parse);
      queue("parse", done);
    }
    if (o_.decode_images) {
      StageStats decode = stage("decode", decode_);
      decode.input_wait_ns = parsed.pop_wait_ns;
      decode = one_thread(decode, decode_end_, out.push_wait_ns);
      decode.threads = decode_pool_->num_threads();
      s.stages.push_back(decode);
      queue("decode", out);
    }
    s.consumer_wait_ns = out.pop_wait_ns;
    s.delivered = delivered_.load(std::memory_order_relaxed);
    return s;
  }

  std::vector<io::RecordDamage> TakeDamages() {
    std::lock_guard<std::mutex> lock(damages_mu_);
    return std::move(damages_);
  }

  // The seed of one use of the pipeline's seed (a shuffle) in `epoch`.
  uint64_t SeedOf(int64_t epoch, uint64_t stream) const {
    return EpochSeed(o_.seed, o_.reshuffle_each_iteration, epoch, stream);
  }

  // The files of this shard, and whether records (not files) are sharded.
  std::vector<uint32_t> ShardFiles(bool* by_record) const {
    std::vector<uint32_t> files;
    *by_record = o_.num_shards > 1 &&
                 !(o_.shard_files && static_cast<int64_t>(o_.files.size()) >= o_.num_shards);
    for (uint32_t f = 0; f < o_.files.size(); ++f) {
      if (*by_record || o_.num_shards <= 1 || f % o_.num_shards == o_.shard_index) {
        files.push_back(f);
      }
    }
    return files;
  }

  // The order of an epoch's records when every file is indexed (steps 1-5 of pipeline.h);
  // without `shuffled`, steps 1-3 only.
  std::vector<RecordSlot> IndexedOrder(int64_t epoch, bool shuffled = true) const {
    bool by_record;
    std::vector<RecordSlot> order = InterleaveOrder(o_, ShardFiles(&by_record));
    if (by_record) {
      size_t kept = 0;
      for (size_t k = 0; k < order.size(); ++k) {
        if (static_cast<int64_t>(k % o_.num_shards) == o_.shard_index) order[kept++] = order[k];
      }
      order.resize(kept);
    }
    if (!shuffled) return order;
    if (o_.global_shuffle) {
      ShuffleAll(SeedOf(epoch, kGlobalShuffleStream), &order);
    }
    if (o_.shuffle_buffer > 1) {
      ShuffleLikeBuffer(static_cast<size_t>(o_.shuffle_buffer), SeedOf(epoch, kBufferShuffleStream),
                        &order);
    }
    return order;
  }

 private:
  bool Emit(std::unique_ptr<Element> element) {
    AddTo(&assemble_.elements, 1);
    AddTo(&assemble_.records, static_cast<int64_t>(element->size()));
    Output output;
    output.element = std::move(element);
    return o_.parse ? raw_.Push(std::move(output)) : out_.Push(std::move(output));
  }

  void Finish(Status status) {
    Output output;
    output.status = std::move(status);
    if (o_.parse) {
      raw_.Push(std::move(output));
    } else {
      out_.Push(std::move(output));
    }
  }

  // Applies the damage policy to a damaged record; false when the epoch must stop (kRaise).
  bool OnDamage(const Record& record, std::vector<bool>* bad_files, Status* error) {
    const io::RecordDamage& d = *record.damage;
    // A partial header at the very end of a file: TensorFlow ends the file there quietly.
    const bool quiet = d.kind == io::RecordDamage::Kind::kTruncated && d.resume > d.offset &&
                       d.resume - d.offset < 12;
    if (o_.on_error == OnError::kRaise) {
      if (quiet) return true;
      *error = errors::DataLoss(d.message);
      return false;
    }
    if (o_.on_error == OnError::kSkipFile) (*bad_files)[record.file] = true;
    std::lock_guard<std::mutex> lock(damages_mu_);
    damages_.push_back(d);
    if (damages_.back().message.find(o_.files[record.file].path) == std::string::npos) {
      damages_.back().message += " in " + o_.files[record.file].path;
    }
    return true;
  }

  // A C++ exception (out of memory, a reader thread that cannot start) ends the dataset with
  // its Status.
  void Assemble() {
    SetCurrentThreadName("sf-assemble");
    const Status s = CatchExceptions([&] {
      AssembleEpochs();
      return Status::OK();
    });
    if (!s.ok()) Finish(s);
    assemble_end_ = NowNs();
  }

  // One epoch's records in output order: its source, then sharding by record and the damage
  // policies (Pull), then the shuffle buffer (Next).
  struct Epoch {
    Epoch(size_t buffer_size, uint64_t seed, size_t files)
        : buffered(buffer_size > 1), shuffle(buffer_size, seed), bad_files(files, false) {}

    std::unique_ptr<Source> source;
    bool by_record = false;   // shard the interleaved sequence record by record
    bool at_offsets = false;  // the source is the computed order (sharded, shuffled, skipped)
    const bool buffered;
    ShuffleBuffer<Record> shuffle;
    std::vector<bool> bad_files;  // under kSkipFile: files whose rest is dropped
    uint64_t sequence = 0;        // records of the interleaved sequence, for record sharding
    bool any = false;             // the epoch has records (a resumed one had some)
    bool source_done = false;
    Status error;  // what ended the epoch early
  };

  // Epoch `epoch`'s records, resuming after `skip` of them. *position counts the records
  // already passed over (an indexed source drops them before reading anything). Indexed files
  // are read at their offsets only when that saves work (a global shuffle, sharding by record,
  // a skip): reading them whole in order costs a call per file, not one per record, and gives
  // the same order (InterleaveOrder).
  std::unique_ptr<Epoch> StartEpoch(int64_t epoch, int64_t skip, int64_t* position) {
    bool by_record;
    std::vector<uint32_t> files = ShardFiles(&by_record);
    // A compressed record read at its offset inflates from the seek point before it: worth it
    // for a global shuffle only; sharding and resuming read such files in order.
    const bool at_offsets =
        indexed_ && (o_.global_shuffle || (!Compressed() && (by_record || skip > 0)));
    const bool buffered = !at_offsets && o_.shuffle_buffer > 1;
    auto e = std::make_unique<Epoch>(buffered ? static_cast<size_t>(o_.shuffle_buffer) : 1,
                                     SeedOf(epoch, kBufferShuffleStream), o_.files.size());
    e->by_record = by_record;
    e->at_offsets = at_offsets;
    e->any = skip > 0;
    *position = 0;
    if (at_offsets) {
      std::vector<RecordSlot> order = IndexedOrder(epoch);
      const size_t skipped = std::min<size_t>(static_cast<size_t>(skip), order.size());
      order.erase(order.begin(), order.begin() + static_cast<ptrdiff_t>(skipped));
      *position = static_cast<int64_t>(skipped);
      e->source = std::make_unique<IndexedRecords>(
          o_, std::move(order), random_files_.get(), o_.collect_stats ? &read_ : nullptr,
          o_.collect_stats ? &assemble_.input_wait_ns : nullptr, buffers_);
    } else {
      e->source = std::make_unique<InterleavedFiles>(o_, readers_.get(), std::move(files));
    }
    return e;
  }

  // The next record of the source that this shard keeps, after the damage policies; false at
  // the end of the source or on an error (in e->error).
  bool Pull(Epoch* e, Record* record) {
    while (!cancelled_) {
      Status s;
      if (!e->source->Next(record, &s)) {
        if (!s.ok()) e->error = s;
        return false;
      }
      if (record->damage != nullptr) {
        if (!OnDamage(*record, &e->bad_files, &e->error)) return false;
        continue;
      }
      e->any = true;
      if (e->bad_files[record->file]) continue;
      if (!e->at_offsets && e->by_record &&
          static_cast<int64_t>(e->sequence++ % o_.num_shards) != o_.shard_index) {
        continue;
      }
      return true;
    }
    return false;
  }

  // The next record in output order: through the shuffle buffer when there is one; its payload
  // is valid until the next call. After an error the records still buffered are dropped, as
  // tf.data's shuffle drops them.
  bool Next(Epoch* e, Record* record) {
    if (!e->buffered) return Pull(e, record);
    while (!e->source_done && !e->shuffle.full()) {
      Record next;
      if (!Pull(e, &next)) {
        e->source_done = true;
        break;
      }
      next.Own();  // buffered past the source's next record
      e->shuffle.Add(std::move(next));
    }
    if (!e->source_done) {
      Record next;
      if (Pull(e, &next)) {
        next.Own();
        *record = e->shuffle.Take(&next);
      } else {
        e->source_done = true;
        *record = e->shuffle.Take(nullptr);
      }
      return true;
    }
    if (!e->error.ok() || e->shuffle.empty()) return false;
    *record = e->shuffle.Take(nullptr);
    return true;
  }

  // The element being assembled. A record is referenced where it lies (its buffer held), or
  // copied into bytes of the element's own: where holding its chunk would keep many times the
  // record's bytes alive (sharding by record keeps one record in num_shards), and where the
  // consumer wants the records end to end (PipelineOptions::contiguous).
  class Batch {
   public:
    explicit Batch(size_t batch_size) : batch_size_(batch_size) {}

    bool empty() const { return element_ == nullptr || element_->size() == 0; }
    size_t size() const { return element_ == nullptr ? 0 : element_->size(); }

    void Add(const Record& record, bool copy) {
      if (element_ == nullptr) {
        element_ = std::make_unique<Element>();
        const size_t records = std::min<size_t>(batch_size_, 4096);
        element_->records.reserve(records);
        element_->files.reserve(records);
        element_->offsets.reserve(records);
      }
      Element& e = *element_;
      const std::string_view payload = record.payload();
      if (copy) {
        // A batch's copied bytes are about the last one's: reserving them up front saves the
        // string's doublings, each a copy of everything appended so far.
        if (copied_.capacity() == 0) copied_.reserve(expected_copied_);
        copied_at_.push_back({e.records.size(), copied_.size(), payload.size()});
        copied_.append(payload);
        e.records.emplace_back();  // set by Take: copied_ moves while it grows
      } else {
        // One reference per buffer, as far as a look at the last few finds (an interleave takes
        // its files' chunks in turn).
        const std::shared_ptr<const void>& holder = record.holder();
        const size_t look = std::min<size_t>(e.held.size(), kHeldLookBack);
        if (std::find(e.held.end() - static_cast<ptrdiff_t>(look), e.held.end(), holder) ==
            e.held.end()) {
          e.held.push_back(holder);
        }
        e.records.push_back(payload);
      }
      e.files.push_back(record.file);
      e.offsets.push_back(record.offset);
    }

    // The element assembled so far; the next Add starts another.
    std::unique_ptr<Element> Take() {
      if (!copied_at_.empty()) {
        expected_copied_ = copied_.size() + copied_.size() / 8;
        auto own = std::make_shared<const std::string>(std::move(copied_));
        for (const Copied& c : copied_at_) {
          element_->records[c.record] = std::string_view(*own).substr(c.offset, c.size);
        }
        element_->held.push_back(std::move(own));
        copied_ = std::string();
        copied_at_.clear();
      }
      return std::move(element_);
    }

   private:
    static constexpr size_t kHeldLookBack = 16;
    struct Copied {
      size_t record;
      size_t offset;
      size_t size;
    };
    const size_t batch_size_;
    std::unique_ptr<Element> element_;
    std::string copied_;
    std::vector<Copied> copied_at_;
    size_t expected_copied_ = 0;
  };

  // Emits `batch` (if it holds records) as the state (epoch, position); a short last batch is
  // dropped under drop_remainder. False once the pipeline stops.
  bool Flush(Batch* batch, int64_t epoch, int64_t position) {
    if (batch->empty()) return true;
    std::unique_ptr<Element> element = batch->Take();
    if (o_.batch_size > 0 && o_.drop_remainder &&
        element->size() < static_cast<size_t>(o_.batch_size)) {
      return true;
    }
    element->epoch = epoch;
    element->position = position;
    return Emit(std::move(element));
  }

  // Runs the epochs: records into batches (across epochs when batch_across_epochs), each
  // element tagged with the state right after it, then the end or the first error.
  void AssembleEpochs() {
    const size_t batch_size = o_.batch_size > 0 ? static_cast<size_t>(o_.batch_size) : 1;
    Batch batch(batch_size);
    int64_t epoch = o_.start_epoch;
    int64_t position = 0;
    for (; o_.epochs < 0 || epoch < o_.epochs; ++epoch) {
      const int64_t skip = epoch == o_.start_epoch ? o_.start_position : 0;
      std::unique_ptr<Epoch> e = StartEpoch(epoch, skip, &position);
      const bool copy = o_.contiguous || (e->by_record && !e->at_offsets);
      Record record;
      while (Next(e.get(), &record)) {
        if (cancelled_) return;
        if (position++ < skip) continue;  // resuming: emitted before the checkpoint
        batch.Add(record, copy);
        if (batch.size() >= batch_size && !Flush(&batch, epoch, position)) return;
      }
      if (cancelled_) return;
      if (!e->error.ok()) {
        if (Flush(&batch, epoch, position)) Finish(e->error);
        return;
      }
      if (position < skip) {  // never silently resume past the end of the data
        Finish(errors::InvalidArgument("cannot resume after record ", skip, " of epoch ", epoch,
                                       ": the epoch has ", position,
                                       " records (a state from other files?)"));
        return;
      }
      if (!o_.batch_across_epochs && !Flush(&batch, epoch, position)) return;
      if (o_.epochs < 0 && !e->any) break;  // repeating nothing forever would never end
    }
    if (Flush(&batch, epoch - 1, position)) Finish(errors::OutOfRange("end of the dataset"));
  }

  void Parse() {
    SetCurrentThreadName("sf-parse");
    const int threads = parse_pool_->num_threads();
    Output output;
    while (raw_.Pop(&output)) {
      if (output.status.ok()) {
        Element& e = *output.element;
        output.status = CatchExceptions([&] { return ParseElement(&e, threads); });
        if (!output.status.ok()) {
          output.element.reset();
        } else if (e.size() == 0) {
          continue;  // every record of the batch failed to parse and was dropped
        } else {
          AddTo(&parse_.elements, 1);
          AddTo(&parse_.records, static_cast<int64_t>(e.size()));
        }
      }
      const bool last = !output.status.ok();
      BoundedQueue<Output>& next = o_.decode_images ? parsed_ : out_;
      if (!next.Push(std::move(output)) || last) break;
    }
    parse_end_ = NowNs();
  }

  // Decodes the images of one parsed element; applies on_error to those that fail.
  Status DecodeElement(Element* e) {
    const size_t n = e->size();
    const size_t bytes = image::DecodedImageBytes(o_.image);
    const example::ParsedFeature& feature = e->parsed[o_.image_spec];
    if (feature.bytes.size() != n) {
      return errors::InvalidArgument("decode_images needs one image per record");
    }
    std::vector<uint64_t> seeds(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t position = e->position - static_cast<int64_t>(n) + static_cast<int64_t>(i);
      seeds[i] = image::ImageSeed(o_.image_seed, e->epoch, position);
    }
    e->images.resize(n * bytes);
    std::vector<Status> statuses;
    image::DecodeImageBatch(feature.bytes, seeds, o_.image, decode_pool_.get(), e->images.data(),
                            &statuses);
    std::vector<bool> keep(n, true);
    size_t dropped = 0;
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].ok()) continue;
      const std::string& path = o_.files[e->files[i]].path;
      std::string message = statuses[i].message() + " (the image of the record at offset " +
                            std::to_string(e->offsets[i]) + " in " + path + ")";
      // Out of memory is no bad image: it is raised whatever on_error says.
      if (o_.on_error == OnError::kRaise || errors::IsResourceExhausted(statuses[i])) {
        return Status(statuses[i].code(), message);
      }
      NoteDropped(io::RecordDamage::Kind::kUndecodable, e->offsets[i], std::move(message));
      keep[i] = false;
      ++dropped;
    }
    if (dropped == 0) return Status::OK();
    DropRecords(keep, bytes, e);
    // Their parsed features go too: parsed again, cheaper and simpler than cutting every kind of
    // feature.
    if (e->size() == 0) return Status::OK();
    return example::ParseExampleBatch(e->records, o_.specs, nullptr, 1, &e->parsed);
  }

  // Parses one element. When the batch fails to parse, the records that fail alone are found
  // and named (file and offset); on_error then raises the first or drops them all, as for
  // damaged records. A batch that fails only as a whole raises as it is.
  Status ParseElement(Element* e, int threads) {
    Status status = example::ParseExampleBatch(e->records, o_.specs, nullptr, threads, &e->parsed,
                                               parse_pool_.get());
    if (status.ok() || !errors::IsInvalidArgument(status)) return status;
    const size_t n = e->size();
    std::vector<bool> keep(n, true);
    size_t dropped = 0;
    for (size_t i = 0; i < n; ++i) {
      std::vector<example::ParsedFeature> one;
      const Status alone = example::ParseExampleBatch({e->records[i]}, o_.specs, nullptr, 1, &one);
      if (alone.ok()) continue;
      std::string message = alone.message() + " (the record at offset " +
                            std::to_string(e->offsets[i]) + " in " + o_.files[e->files[i]].path +
                            ")";
      if (o_.on_error == OnError::kRaise || !errors::IsInvalidArgument(alone)) {
        return Status(alone.code(), message);
      }
      NoteDropped(io::RecordDamage::Kind::kUnparsable, e->offsets[i], std::move(message));
      keep[i] = false;
      ++dropped;
    }
    if (dropped == 0) return status;
    DropRecords(keep, 0, e);
    e->parsed.clear();
    if (e->size() == 0) return Status::OK();
    return example::ParseExampleBatch(e->records, o_.specs, nullptr, threads, &e->parsed,
                                      parse_pool_.get());
  }

  // Logs an intact record dropped under on_error (an image that does not decode, an Example
  // that does not parse) with the damaged records.
  void NoteDropped(io::RecordDamage::Kind kind, uint64_t offset, std::string message) {
    io::RecordDamage d;
    d.kind = kind;
    d.offset = d.resume = offset;
    d.records_before = 0;
    d.message = std::move(message);
    std::lock_guard<std::mutex> lock(damages_mu_);
    damages_.push_back(std::move(d));
  }

  // Keeps the records of `e` whose `keep` is set: their bytes, files and offsets, and their
  // decoded images (`image_bytes` each; 0 when there are none yet). Parsed features are left
  // for the caller to redo.
  static void DropRecords(const std::vector<bool>& keep, size_t image_bytes, Element* e) {
    size_t kept = 0;
    for (size_t i = 0; i < keep.size(); ++i) {
      if (!keep[i]) continue;
      e->records[kept] = e->records[i];
      e->files[kept] = e->files[i];
      e->offsets[kept] = e->offsets[i];
      if (image_bytes != 0 && kept != i) {
        std::memmove(&e->images[kept * image_bytes], &e->images[i * image_bytes], image_bytes);
      }
      ++kept;
    }
    if (image_bytes != 0) e->images.resize(kept * image_bytes);
    e->records.resize(kept);
    e->files.resize(kept);
    e->offsets.resize(kept);
  }

  void DecodeImages() {
    SetCurrentThreadName("sf-decode");
    Output output;
    while (parsed_.Pop(&output)) {
      if (output.status.ok()) {
        output.status = CatchExceptions([&] { return DecodeElement(output.element.get()); });
        if (!output.status.ok()) {
          output.element.reset();
        } else if (output.element->size() == 0) {
          continue;  // every image of the batch was dropped
        } else {
          AddTo(&decode_.elements, 1);
          AddTo(&decode_.records, static_cast<int64_t>(output.element->size()));
          AddTo(&decode_.bytes, static_cast<int64_t>(output.element->images.size()));
        }
      }
      const bool last = !output.status.ok();
      if (!out_.Push(std::move(output)) || last) break;
    }
    decode_end_ = NowNs();
  }

  const PipelineOptions o_;
  bool Compressed() const { return o_.record_options.compression != io::Compression::kNone; }

  const bool indexed_;
  // Chunk buffers, shared with the elements whose records lie in them (first: those outlive
  // every other member).
  const std::shared_ptr<ChunkBuffers> buffers_;
  std::atomic<bool> cancelled_{false};
  // Statistics (pipeline_stats.h): counters of the stages, and when their threads ended.
  const int64_t start_ns_ = NowNs();
  int read_threads_ = 1;
  StageCounters read_;
  StageCounters assemble_;
  StageCounters parse_;
  StageCounters decode_;
  std::atomic<int64_t> assemble_end_{0};
  std::atomic<int64_t> parse_end_{0};
  std::atomic<int64_t> decode_end_{0};
  std::atomic<int64_t> delivered_{0};
  BoundedQueue<Output> raw_;              // assembled batches waiting to be parsed
  BoundedQueue<Output> parsed_;           // parsed batches waiting for their images to be decoded
  BoundedQueue<Output> out_;              // finished elements
  std::unique_ptr<FileReaders> readers_;  // files read whole, in order
  std::unique_ptr<io::FileCache> random_files_;  // every file indexed: for reads at offsets
  std::mutex damages_mu_;
  std::vector<io::RecordDamage> damages_;    // guarded by damages_mu_
  std::unique_ptr<ThreadPool> decode_pool_;  // with decode_images
  std::unique_ptr<ThreadPool> parse_pool_;   // with parse
  std::thread decoder_;
  std::thread parser_;
  std::thread assembler_;  // last: starts once everything it uses exists
};

size_t Element::bytes() const {
  size_t n = 0;
  for (std::string_view r : records) n += r.size();
  return n;
}

Status Pipeline::Create(PipelineOptions options, std::unique_ptr<Pipeline>* pipeline) {
  if (options.num_shards < 1 || options.shard_index < 0 ||
      options.shard_index >= options.num_shards) {
    return errors::InvalidArgument("shard index ", options.shard_index, " is not in [0, ",
                                   options.num_shards, ")");
  }
  if (options.cycle_length < 1 || options.block_length < 1) {
    return errors::InvalidArgument("cycle_length and block_length must be at least 1");
  }
  if (options.batch_size < 0 || options.shuffle_buffer < 0 || options.start_epoch < 0 ||
      options.start_position < 0) {
    return errors::InvalidArgument("negative batch size, buffer size or start");
  }
  if (options.files.size() >= (uint64_t{1} << 32)) {
    return errors::InvalidArgument("too many files");
  }
  if (options.prefetch < 0 || options.prefetch > kMaxPrefetch) {
    return errors::InvalidArgument("prefetch must be in [0, ", kMaxPrefetch, "], got ",
                                   options.prefetch);
  }
  if (options.on_error != OnError::kRaise && options.on_error != OnError::kSkipRecord &&
      options.on_error != OnError::kSkipFile) {
    return errors::InvalidArgument("invalid on_error ", static_cast<int>(options.on_error));
  }
  if (options.decode_images) {
    if (!options.parse || options.image_spec >= options.specs.size()) {
      return errors::InvalidArgument("decode_images needs parsed records with the image key");
    }
    SWIGFLOW_RETURN_IF_ERROR(image::CheckBatchDecodeOptions(options.image));
  }
  const bool indexed = AllIndexed(options);
  for (const SourceFile& f : options.files) {
    if (f.indexed && (f.seek_index != nullptr) !=
                         (options.record_options.compression != io::Compression::kNone)) {
      return errors::InvalidArgument(
          f.path, ": a compressed file is indexed by a seek index, an uncompressed one by offsets");
    }
  }
  if (options.global_shuffle && !indexed) {
    return errors::FailedPrecondition(
        "a global shuffle needs an index file for every file (swigflow index FILE...)");
  }
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->impl_ = std::make_unique<Impl>(std::move(options));
  if (indexed) {
    p->records_per_epoch_ = static_cast<int64_t>(p->impl_->IndexedOrder(0, false).size());
  }
  *pipeline = std::move(p);
  return Status::OK();
}

Pipeline::~Pipeline() = default;

Status Pipeline::Next(std::unique_ptr<Element>* element) { return NextFor(element, -1); }

Status Pipeline::NextFor(std::unique_ptr<Element>* element, int64_t timeout_ms) {
  if (!final_.ok()) return final_;
  Status s = impl_->Next(element, timeout_ms);
  if (errors::IsDeadlineExceeded(s)) return s;  // nothing yet: not the pipeline's end
  if (!s.ok()) final_ = s;
  return s;
}

std::vector<io::RecordDamage> Pipeline::TakeDamages() { return impl_->TakeDamages(); }

PipelineStats Pipeline::Stats() const { return impl_->Stats(); }

}  // namespace data
}  // namespace swigflow
