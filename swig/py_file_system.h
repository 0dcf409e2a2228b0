// The remote file system of native/io/file_system.h, backed by Python: swigflow/io/gfile.py
// opens URLs through fsspec and hands back file objects whose methods the native readers and
// writers call. Each call takes the GIL only for the Python call itself; fsspec's network waits
// release it again.
//
// The objects, as gfile.py makes them:
//   opener.open_read(url) -> reader: reader.size (int), reader.read_at(offset, buffer) -> int
//     (fills the writable memoryview `buffer` from `offset`; fewer bytes only at the end), and
//     optionally reader.block_at(offset) -> (start, buffer) or None: the bytes [start, start +
//     len(buffer)) of the file, `offset` among them, which reads are then copied from until one
//     leaves them (None: read_at reads what is asked). The buffer must not change while held.
//   opener.open_write(url) -> writer: writer.write(buffer), writer.close() (commits: the file
//     appears), writer.discard() (drops a file not closed).
// Errors they raise become Statuses: a swigflow.errors.OpError keeps its code and message;
// anything else is UNKNOWN with the exception's type and text.
#ifndef SWIGFLOW_SWIG_PY_FILE_SYSTEM_H_
#define SWIGFLOW_SWIG_PY_FILE_SYSTEM_H_

#include "swig/py_runtime.h"

namespace swigflow {
namespace python {

// Registers `opener` (None: none) as the remote file system for every scheme:// URL other than
// file://.
void SetRemoteOpener(PyObject* opener);

}  // namespace python
}  // namespace swigflow

#endif  // SWIGFLOW_SWIG_PY_FILE_SYSTEM_H_
