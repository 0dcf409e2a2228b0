// swigflow.data's native pipeline for Python (python/swigflow/data/records.py). Python fills a
// swigflow::data::PipelineOptions by field name (data.i wraps it); elements come back as raw
// records or as parse_example's (values, counts) per spec.
#ifndef SWIGFLOW_SWIG_PY_PIPELINE_H_
#define SWIGFLOW_SWIG_PY_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swig/py_runtime.h"
#include "swigflow/data/pipeline.h"

namespace swigflow {
namespace python {

// Appends the files to read: `paths` is a list of paths (str, bytes or os.PathLike, encoded as
// the OS expects); `offsets` is None, or a list as long of, per file, the int64 array of its
// record offsets from its index file, or (a compressed file) the bytes of its seek index, which
// the caller checked against the file. One call for every file: a call per file cost as much as
// a small file's read. None, or null with an exception set.
PyObject* AddSourceFiles(data::PipelineOptions* options, PyObject* paths, PyObject* offsets);

// data::Permutation(n, seed) into `permutation` (an int64 array in Python).
void Permutation(size_t n, unsigned long long seed, std::vector<int64_t>* permutation);

// One running pipeline; swigflow.data's iterators own one each (not shared between threads).
class PyPipeline {
 public:
  static Status Create(const data::PipelineOptions& options, std::unique_ptr<PyPipeline>* pipeline);
  // Stops and joins the pipeline's threads (call without the GIL), then releases the remote
  // blocks they let go of.
  ~PyPipeline();

  // (payload, records, epoch, position) of the next element, None at the end. payload:
  // parse_example's [(values, counts)] per spec when parsing, else the records as a list of
  // bytes.
  PyObject* Next();

  // Next() for records without a bytes object each: payload is (data, ends), a read-only uint8
  // array holding the records end to end (the element's own buffer with
  // PipelineOptions::contiguous, which the array keeps alive; else a copy) and the n + 1 int64
  // boundaries of the records in it.
  PyObject* NextView();

  // Damage skipped since the last call: [(kind, offset, message)].
  PyObject* TakeDamages();

  long long RecordsPerEpoch() const { return pipeline_->RecordsPerEpoch(); }

  // data::PipelineStats as a dict: elapsed_ns, consumer_wait_ns, delivered, and lists of dicts
  // "stages" (the fields of StageStats) and "queues" (those of QueueStats).
  PyObject* Stats() const;

 private:
  enum class Payload { kParsed, kBytes, kView };

  PyPipeline(std::unique_ptr<data::Pipeline> pipeline, const data::PipelineOptions& options);

  // Waits in slices of 100 ms, checking for signals in between: Ctrl-C interrupts a pipeline
  // blocked on a slow or stuck reader (KeyboardInterrupt).
  PyObject* NextAs(Payload kind);
  PyObject* ParsedToPyList(data::Element* e);

  std::unique_ptr<data::Pipeline> pipeline_;
  const bool parsing_;
  const std::vector<example::FeatureSpec> specs_;
  const int64_t image_spec_;  // the spec whose bytes are decoded images, or -1
  const image::BatchDecodeOptions image_options_;
};

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_PIPELINE_H_
