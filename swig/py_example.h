// tf.train.Example / SequenceExample codec and parse_example's fast path for Python
// (python/swigflow/io/example_codec.py, io/parsing.py, io/sequence_parsing.py).
//
// The codec translates between bytes and plain Python values: a feature is (kind, values) with
// kind a swigflow::example::Feature::Kind and values a list of bytes, floats or ints. Parse specs
// are swigflow::example::FeatureSpec structs, which Python fills by field name.
#ifndef SWIGFLOW_SWIG_PY_EXAMPLE_H_
#define SWIGFLOW_SWIG_PY_EXAMPLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "swig/py_runtime.h"
#include "swigflow/example/example.h"
#include "swigflow/example/parse.h"

namespace swigflow {
namespace python {

// {key: (kind, values)} of a serialized Example; InvalidArgumentError if malformed.
PyObject* DecodeExample(const char* data, size_t n);

// (context, {key: [(kind, values), ...]}) of a serialized SequenceExample.
PyObject* DecodeSequenceExample(const char* data, size_t n);

// Canonical bytes of an Example given as {key: (kind, values)}.
PyObject* EncodeExample(PyObject* features);

// Canonical bytes of n Examples given by columns: a list of (key, kind, values, splits), where
// values is a 1-D array (float32 for kFloat, int64 for kInt64, objects holding bytes for
// kBytes) and splits the n + 1 int64 bounds of each row's values in it (a row with none has an
// empty Feature of that kind). Returns a list of n bytes objects. Encoding runs without the GIL.
PyObject* EncodeExampleColumns(PyObject* columns, long long n);

// Appends to `specs` a FeatureSpec of `key`, spec type `type` (a FeatureSpec::Type), feature
// kind `kind` (a Feature::Kind) and `shape` (FeatureSpec::SetShape's), without a default: a parse
// plan's one call per feature, made on every parse_example call (setting each field through the
// wrapper's setters took six). InvalidArgumentError for a type or kind out of range.
Status AppendFeatureSpec(std::vector<example::FeatureSpec>* specs, const std::string& key, int type,
                         int kind, std::vector<int64_t> shape);

// parse_example's fast path: [(values, counts)] per spec, values as numpy arrays (objects
// holding bytes for strings), counts per example (empty for FixedLen: row_size each).
// `names`: None or one str per record.
PyObject* ParseExampleBatch(PyObject* serialized, const std::vector<example::FeatureSpec>& specs,
                            PyObject* names, int num_threads);

// parse_example's results split per example, for callers that want one example at a time
// (swigflow.datasets): [[value per spec] per record]. dtypes: a numpy dtype per spec, the
// value's (int64 specs: bool or an integer type, cast as numpy casts; float32 specs: float32 or
// float64; strings: object). A FixedLen spec of shape () gives a numpy scalar of that dtype
// (python_scalars: a Python bool, int or float) or bytes; other FixedLen specs an array of
// their shape; VarLen specs a 1-D array of the example's values. FixedLenSequence specs are
// not taken.
PyObject* ParseExampleRows(PyObject* serialized, const std::vector<example::FeatureSpec>& specs,
                           PyObject* dtypes, bool python_scalars, int num_threads);

// (values, counts) of one parsed spec, as ParseExampleBatch returns them. Numbers go to numpy
// without a copy; strings become bytes objects, unless `objects` already holds them (then the
// array takes them over).
PyObject* ParsedToPy(const example::FeatureSpec& spec, example::ParsedFeature* parsed,
                     std::vector<PyObject*>* objects);

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_EXAMPLE_H_
