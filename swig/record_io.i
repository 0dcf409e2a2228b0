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
  PyObject* encoded = nullptr;
  if (!PyUnicode_FSConverter($input, &encoded)) SWIG_fail;
  temp.assign(PyBytes_AS_STRING(encoded), static_cast<size_t>(PyBytes_GET_SIZE(encoded)));
  Py_DECREF(encoded);
  $1 = &temp;
}
%typemap(freearg) const std::string& path, const std::string& index_path "";

// Factories `static Status Open(..., std::unique_ptr<T>* out)` return the new object.
%define SWIGFLOW_UNIQUE_PTR_RESULT(TYPE, NAME)
%typemap(in, numinputs=0) std::unique_ptr<TYPE>* NAME (std::unique_ptr<TYPE> temp) {
  $1 = &temp;
}
%typemap(argout) std::unique_ptr<TYPE>* NAME {
  Py_DECREF($result);
  $result = SWIG_NewPointerObj(temp$argnum.release(), $descriptor(TYPE*), SWIG_POINTER_OWN);
}
%enddef

// An index result becomes (offsets, lengths), two int64 numpy arrays.
%typemap(in, numinputs=0) swigflow::io::RecordIndex* index (swigflow::io::RecordIndex temp) {
  $1 = &temp;
}
%typemap(argout) swigflow::io::RecordIndex* index {
  Py_DECREF($result);
  PyObject* offsets = swigflow::python::Int64Array(temp$argnum.offsets);
  PyObject* lengths = offsets != nullptr ? swigflow::python::Int64Array(temp$argnum.lengths) : nullptr;
  if (lengths == nullptr) {
    Py_XDECREF(offsets);
    SWIG_fail;
  }
  $result = PyTuple_Pack(2, offsets, lengths);
  Py_DECREF(offsets);
  Py_DECREF(lengths);
}

// An index argument from (offsets, lengths), two sequences of ints of one length.
%typemap(in) const swigflow::io::RecordIndex& index (swigflow::io::RecordIndex temp) {
  PyObject* offsets = nullptr;
  PyObject* lengths = nullptr;
  if (!PyArg_ParseTuple($input, "OO", &offsets, &lengths)) SWIG_fail;
  PyArrayObject* o = reinterpret_cast<PyArrayObject*>(PyArray_FROMANY(offsets, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO));
  if (o == nullptr) SWIG_fail;
  PyArrayObject* l = reinterpret_cast<PyArrayObject*>(PyArray_FROMANY(lengths, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO));
  if (l == nullptr || PyArray_SIZE(o) != PyArray_SIZE(l)) {
    if (l != nullptr) PyErr_SetString(PyExc_ValueError, "offsets and lengths differ in length");
    Py_DECREF(o);
    Py_XDECREF(l);
    SWIG_fail;
  }
  const auto* od = static_cast<const int64_t*>(PyArray_DATA(o));
  const auto* ld = static_cast<const int64_t*>(PyArray_DATA(l));
  temp.offsets.assign(od, od + PyArray_SIZE(o));
  temp.lengths.assign(ld, ld + PyArray_SIZE(l));
  Py_DECREF(o);
  Py_DECREF(l);
  $1 = &temp;
}

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
SWIGFLOW_RELEASE_GIL(swigflow::io::ScanRecords)
SWIGFLOW_RELEASE_GIL(swigflow::io::ReadIndexFile)
SWIGFLOW_RELEASE_GIL(swigflow::io::WriteIndexFile)

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
%rename("%s") swigflow::python::CreateIndexFile;
%rename("%s") swigflow::python::BuildSeekIndex;
%rename("%s") swigflow::python::SeekIndexRecords;
%include "swig/py_record_io.h"
%rename(ScanRecordIndex) swigflow::io::ScanRecords;
%rename(ReadRecordIndex) swigflow::io::ReadIndexFile;
%rename(WriteRecordIndex) swigflow::io::WriteIndexFile;
%include "swigflow/io/record_index.h"
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
