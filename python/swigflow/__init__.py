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
    specs,
    sysconfig,
    test,
    train,
)
from swigflow._version import __version__
from swigflow.linalg import matmul
from swigflow.load_library import load_op_library

# TensorFlow's top-level names for what a training step writes (tf.reshape, tf.GradientTape, ...).
from swigflow.math import (
    add,
    add_n,
    argmax,
    argmin,
    broadcast_to,
    cast,
    divide,
    equal,
    exp,
    identity,
    maximum,
    minimum,
    multiply,
    negative,
    one_hot,
    reduce_max,
    reduce_mean,
    reduce_sum,
    reshape,
    sigmoid,
    sqrt,
    square,
    stop_gradient,
    subtract,
    tanh,
    transpose,
    where,
)
from swigflow.ops import GradientTape
from swigflow.specs import (
    RaggedTensorSpec,
    SparseTensorSpec,
    TensorShape,
    TensorSpec,
    TypeSpec,
)
from swigflow.tensors import RaggedTensor, SparseTensor, constant, convert_to_tensor

__all__ = [
    "GradientTape",
    "RaggedTensor",
    "RaggedTensorSpec",
    "SparseTensor",
    "SparseTensorSpec",
    "TensorShape",
    "TensorSpec",
    "TypeSpec",
    "__version__",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "broadcast_to",
    "cast",
    "constant",
    "convert_to_tensor",
    "data",
    "divide",
    "equal",
    "errors",
    "exp",
    "identity",
    "image",
    "io",
    "linalg",
    "load_op_library",
    "math",
    "matmul",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "nn",
    "one_hot",
    "ops",
    "quantization",
    "reduce_max",
    "reduce_mean",
    "reduce_sum",
    "reshape",
    "sigmoid",
    "specs",
    "sqrt",
    "square",
    "stop_gradient",
    "subtract",
    "sysconfig",
    "tanh",
    "test",
    "train",
    "transpose",
    "where",
]
