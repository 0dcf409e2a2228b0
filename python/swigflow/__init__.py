"""swigflow: TFRecord I/O and TensorFlow-exact CPU kernels, without TensorFlow.

The API mirrors TensorFlow's names so that code ports by changing an import::

    import swigflow as tf
    tf.io.crc32c(b"123456789")  # 0xE3069283
"""

from swigflow import (
    data,
    errors,
    image,
    io,
    linalg,
    math,
    nn,
    ops,
    quantization,
    sysconfig,
    test,
    train,
)
from swigflow._version import __version__
from swigflow.linalg import matmul
from swigflow.load_library import load_op_library
from swigflow.tensors import RaggedTensor, SparseTensor

__all__ = [
    "RaggedTensor",
    "SparseTensor",
    "__version__",
    "data",
    "errors",
    "image",
    "io",
    "linalg",
    "load_op_library",
    "math",
    "matmul",
    "nn",
    "ops",
    "quantization",
    "sysconfig",
    "test",
    "train",
]
