"""TensorFlow's dtype names (``tf.float32``, ``tf.int64``, ``tf.string``, ...) for code that ports
by changing an import.

swigflow's values are numpy arrays, so each name is the numpy dtype itself: ``swigflow.float32``
is ``np.dtype("float32")``, and ``swigflow.string`` is ``np.dtype(object)``, the dtype of arrays
of bytes objects. Every function that takes a dtype also takes numpy's and TensorFlow's names
(``"float32"``, ``"tf.string"``). numpy has no bfloat16: bfloat16 arrays come from ml_dtypes.
"""

import numpy as np

from swigflow.specs import as_dtype

float16: np.dtype = np.dtype(np.float16)
half: np.dtype = float16
float32: np.dtype = np.dtype(np.float32)
float64: np.dtype = np.dtype(np.float64)
double: np.dtype = float64
complex64: np.dtype = np.dtype(np.complex64)
complex128: np.dtype = np.dtype(np.complex128)
int8: np.dtype = np.dtype(np.int8)
int16: np.dtype = np.dtype(np.int16)
int32: np.dtype = np.dtype(np.int32)
int64: np.dtype = np.dtype(np.int64)
uint8: np.dtype = np.dtype(np.uint8)
uint16: np.dtype = np.dtype(np.uint16)
uint32: np.dtype = np.dtype(np.uint32)
uint64: np.dtype = np.dtype(np.uint64)
string: np.dtype = np.dtype(object)
# Named last: from here on `bool` in this module is the dtype.
bool: np.dtype = np.dtype(np.bool_)

__all__ = [
    "as_dtype",
    "bool",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "string",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
