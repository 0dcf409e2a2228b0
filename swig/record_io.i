// TFRecord reading and writing for swigflow.io (python/swigflow/io/tf_record.py, scan.py,
// index.py). RecordOptions and RecordWriter are wrapped as they are; the readers' Python-facing
// adapters live in py_record_io.h.
%{
#include "swig/py_record_io.h"
#include "swigflow/io/record_writer.h"
%}

// --- Arguments and results ---------------------------------------------------------------------

// File paths: str, bytes or os.PathLike, encoded as the OS expects (surrogateescape), so any name
// the file system can hold works.
%typemap(in) const std::string& path (std::string temp),
             const std::string& index_path (std::string temp) {
  if (!swigflow::python::PathFromPy($input, &temp)) SWIG_fail;
  $1 = &temp;
}
%typemap(freearg) const std::string& path, const std::string& index_path "";

// Factories `static Status Open(..., std::unique_ptr<T>* out)` return the new object.
%define SWIGFLOW_UNIQUE_PTR_RESULT(TYPE, NAME)
%typemap(in, numinputs=0) std::unique_ptr<TYPE>* NAME (std::unique_ptr<TYPE> temp) {
  $1 = &temp;
}
%typemap(argout) std::unique_ptr<TYPE>* NAME {
  $result = swigflow::python::AddOutput(
      $result, SWIG_NewPointerObj(temp$argnum.release(), $descriptor(TYPE*), SWIG_POINTER_OWN));
  if ($result == nullptr) SWIG_fail;
}
%enddef

// Record indexes are two int64 arrays, in and out.
%apply std::vector<int64_t>* INT64_ARRAY_OUT {
  std::vector<int64_t>* offsets, std::vector<int64_t>* lengths
};
%apply const std::vector<int64_t>& INT64_ARRAY_IN {
  const std::vector<int64_t>& offsets, const std::vector<int64_t>& lengths
};

// --- Options -----------------------------------------------------------------------------------

// Python sets these by field name (swigflow.io.TFRecordOptions); what it leaves alone keeps the
// C++ default, which is TensorFlow's. Compression's values become Compression_kNone, ...
%ignoreall
%rename("%s") swigflow::io::ZlibOptions;
%rename("%s") swigflow::io::RecordOptions;
%rename("%s", %$isvariable, %$ismember) "";
%include "swigflow/io/zlib_stream.h"
%include "swigflow/io/record_options.h"
%unignoreall

// --- Writer ------------------------------------------------------------------------------------

// A record to write: bytes-like, or a protobuf message (serialized deterministically), so
// TFRecordWriter.write(example) needs no Python-level detour for either.
%typemap(in) (const char* record, size_t n) (swigflow::python::RecordView view) {
  if (!view.Set($input)) SWIG_fail;
  $1 = const_cast<$1_ltype>(view.data());  // SWIG's local drops the const
  $2 = view.size();
}

SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::io::RecordWriter, writer)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::Create)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::WriteRecord)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::Flush)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::Close)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::Abort)
SWIGFLOW_RELEASE_GIL(swigflow::io::RecordWriter::~RecordWriter)

%ignoreall
%rename("%s") swigflow::io::RecordWriter;
%rename("%s") swigflow::io::RecordWriter::~RecordWriter;
%rename("%s") swigflow::io::RecordWriter::Create;
%rename("%s") swigflow::io::RecordWriter::WriteRecord;
%rename("%s") swigflow::io::RecordWriter::Flush;
%rename("%s") swigflow::io::RecordWriter::Close;
%rename("%s") swigflow::io::RecordWriter::Abort;
%rename("%s") swigflow::io::RecordWriter::closed;
%include "swigflow/io/record_writer.h"
%unignoreall

// --- Readers -----------------------------------------------------------------------------------

SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::python::PyRecordReader, reader)
SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::python::PyRecordFile, file)
SWIGFLOW_UNIQUE_PTR_RESULT(swigflow::python::PyRecordScanner, scanner)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyRecordReader::Open)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyRecordReader::Seek)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyRecordFile::Open)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyRecordFiles::Add)
SWIGFLOW_RELEASE_GIL(swigflow::python::PyRecordScanner::Open)
SWIGFLOW_RELEASE_GIL(swigflow::python::CreateIndexFile)
SWIGFLOW_RELEASE_GIL(swigflow::python::ScanRecordIndex)
SWIGFLOW_RELEASE_GIL(swigflow::python::ReadRecordIndex)
SWIGFLOW_RELEASE_GIL(swigflow::python::WriteRecordIndex)

%ignoreall
%rename("%s") swigflow::python::PyRecordReader;
%rename("%s") swigflow::python::PyRecordReader::~PyRecordReader;
%rename("%s") swigflow::python::PyRecordReader::Open;
%rename("%s") swigflow::python::PyRecordReader::ReadBatch;
%rename("%s") swigflow::python::PyRecordReader::ReadBatchView;
%rename("%s") swigflow::python::PyRecordReader::Seek;
%rename("%s") swigflow::python::PyRecordReader::Offset;
%rename("%s") swigflow::python::PyRecordFile;
%rename("%s") swigflow::python::PyRecordFile::Open;
%rename("%s") swigflow::python::PyRecordFile::OpenSeekable;
%rename("%s") swigflow::python::PyRecordFile::Read;
%rename("%s") swigflow::python::PyRecordFiles;
%rename("%s") swigflow::python::PyRecordFiles::PyRecordFiles;
%rename("%s") swigflow::python::PyRecordFiles::~PyRecordFiles;
%rename("%s") swigflow::python::PyRecordFiles::Add;
%rename("%s") swigflow::python::PyRecordFiles::AddSeekable;
%rename("%s") swigflow::python::PyRecordFiles::ReadMany;
%rename("%s") swigflow::python::PyRecordScanner;
%rename("%s") swigflow::python::PyRecordScanner::Open;
%rename("%s") swigflow::python::PyRecordScanner::ReadBatch;
%rename("%s") swigflow::python::PyRecordScanner::TakeDamages;
%rename("%s") swigflow::python::ScanRecordIndex;
%rename("%s") swigflow::python::CreateIndexFile;
%rename("%s") swigflow::python::ReadRecordIndex;
%rename("%s") swigflow::python::WriteRecordIndex;
%rename("%s") swigflow::python::BuildSeekIndex;
%rename("%s") swigflow::python::SeekIndexRecords;
%include "swig/py_record_io.h"
%unignoreall

// --- Remote files ------------------------------------------------------------------------------

// swigflow/io/gfile.py registers its fsspec opener here (see py_file_system.h).
%{
#include "swig/py_file_system.h"
#include "swigflow/io/file_system.h"
%}
%ignoreall
%rename("%s") swigflow::python::SetRemoteOpener;
%include "swig/py_file_system.h"
// The one rule for what is a URL scheme, so gfile and the native layer never disagree.
%rename("%s") swigflow::io::UrlScheme;
%include "swigflow/io/file_system.h"
%unignoreall
