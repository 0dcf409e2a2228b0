// tf.train.Example codec and parse_example's fast path for swigflow.io (io/example_codec.py,
// io/parsing.py, io/sequence_parsing.py): py_example.h, plus the parse spec as a struct Python
// fills by field name. (swigflow.train is protobuf's own classes.)
%{
#include "swig/py_example.h"
%}

%include <std_vector.i>

// Feature kinds and spec types are the C++ enums' values: Feature_Kind_kBytes, ...,
// FeatureSpec_Type_kFixedLen, ... in the module.
// Vector members take Python sequences: spec.default_int64 = [1, 2].
%naturalvar std::vector<int64_t>;
%naturalvar std::vector<float>;
%naturalvar std::vector<swigflow::example::FeatureSpec>;
%template(Int64Vector) std::vector<int64_t>;
%template(FloatVector) std::vector<float>;
%template(FeatureSpecVector) std::vector<swigflow::example::FeatureSpec>;

// FeatureSpec.default_bytes from any sequence of bytes-like objects (SWIG's own std::string
// conversion takes str only).
%typemap(in) std::vector<std::string>* default_bytes (std::vector<std::string> temp) {
  if (!swigflow::python::BytesVectorFromPy($input, "default_bytes", &temp)) SWIG_fail;
  $1 = &temp;
}
%typemap(out) std::vector<std::string>* default_bytes {
  $result = swigflow::python::BytesArray(*$1);
}

%ignoreall
%rename("%s") swigflow::example::Feature;
%rename("%s") swigflow::example::FeatureSpec;
%rename("%s") swigflow::example::FeatureSpec::SetShape;
%rename("%s", %$isvariable, %$ismember) "";
%ignore swigflow::example::Feature::bytes_list;
%ignore swigflow::example::Feature::float_list;
%ignore swigflow::example::Feature::int64_list;
%immutable swigflow::example::FeatureSpec::shape;  // SetShape sets row_size with it
// (Not SWIG's sequence conversion, which looks for a proxy's `this` in the list first.)
%apply std::vector<int64_t> INT64_ARRAY_IN { std::vector<int64_t> dims, std::vector<int64_t> shape };
%immutable swigflow::example::FeatureSpec::row_size;
%include "swigflow/example/example.h"
%include "swigflow/example/parse.h"
%unignoreall

%ignoreall
%rename("%s") swigflow::python::DecodeExample;
%rename("%s") swigflow::python::DecodeSequenceExample;
%rename("%s") swigflow::python::EncodeExample;
%rename("%s") swigflow::python::EncodeExampleColumns;
%rename("%s") swigflow::python::AppendFeatureSpec;
%rename("%s") swigflow::python::ParseExampleBatch;
%rename("%s") swigflow::python::ParseExampleRows;
%include "swig/py_example.h"
%unignoreall
