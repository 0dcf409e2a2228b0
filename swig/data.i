// swigflow.data's native pipeline (python/swigflow/data/records.py): PipelineOptions as a struct
// Python fills by field name (its defaults are the C++ ones), and py_pipeline.h's adapter.
%{
#include "swig/py_pipeline.h"
%}

// OnError's values become OnError_kRaise, ...; kMaxPrefetch bounds prefetch.
%ignoreall
%rename("%s") swigflow::data::PipelineOptions;
%rename("%s") swigflow::data::kMaxPrefetch;
%rename("%s", %$isvariable, %$ismember) "";
%ignore swigflow::data::PipelineOptions::files;  // AddSourceFiles
%include "swigflow/data/pipeline_options.h"
%unignoreall

SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::python::PyPipeline, pipeline)
// Without the GIL: the pipeline's threads take it to read remote files (py_file_system.h), so
// starting or joining them while holding it could deadlock.
SWIGFLOW_RELEASE_GIL(swigflow::python::PyPipeline::Create)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyPipeline::~PyPipeline)
SWIGFLOW_RELEASE_GIL(swigflow::python::Permutation)
%apply std::vector<int64_t>* INT64_ARRAY_OUT { std::vector<int64_t>* permutation };

%ignoreall
%rename("%s") swigflow::python::AddSourceFiles;
%rename("%s") swigflow::python::Permutation;
%rename("%s") swigflow::python::PyPipeline;
%rename("%s") swigflow::python::PyPipeline::~PyPipeline;
%rename("%s") swigflow::python::PyPipeline::Create;
%rename("%s") swigflow::python::PyPipeline::Next;
%rename("%s") swigflow::python::PyPipeline::NextView;
%rename("%s") swigflow::python::PyPipeline::TakeDamages;
%rename("%s") swigflow::python::PyPipeline::RecordsPerEpoch;
%rename("%s") swigflow::python::PyPipeline::Stats;
%include "swig/py_pipeline.h"
%unignoreall
