"""Parsing serialized tf.train.Example records into arrays: ``tf.io.parse_example`` and friends,
with TensorFlow's feature specs, results and error messages.

Results are numpy arrays (strings as object arrays of bytes), :class:`swigflow.SparseTensor` for
:class:`VarLenFeature` and :class:`swigflow.RaggedTensor` for :class:`RaggedFeature`.
"""

import collections
import math

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.tensors import RaggedTensor, SparseTensor

# Feature kinds as the codec reports them, and TensorFlow's names of the dtypes.
_BYTES, _FLOAT, _INT64 = 1, 2, 3
_KIND_OF_DTYPE = {"string": _BYTES, "float32": _FLOAT, "int64": _INT64}
_TF_TYPE_NAME = {_BYTES: "string", _FLOAT: "float", _INT64: "int64"}
_NUMPY_DTYPE = {
    "string": np.dtype(object),
    "float32": np.dtype(np.float32),
    "int64": np.dtype(np.int64),
}
_ZERO = {"string": b"", "float32": 0.0, "int64": 0}


def _tf_type(dtype):
    """TensorFlow's name of a spec dtype in messages: 'int64', 'float' or 'string'."""
    return _TF_TYPE_NAME[_KIND_OF_DTYPE[dtype]]


def _dtype_name(dtype):
    """'int64', 'float32' or 'string' for the dtype spellings TensorFlow code uses."""
    if isinstance(dtype, str):
        name = {"float": "float32", "bytes": "string", "str": "string"}.get(dtype, dtype)
        if name in _KIND_OF_DTYPE:
            return name
    else:
        try:
            np_dtype = np.dtype(dtype)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            if np_dtype == np.int64:
                return "int64"
            if np_dtype == np.float32:
                return "float32"
            if np_dtype.kind in "SUO":
                return "string"
    raise ValueError(f"unsupported dtype {dtype!r}: expected int64, float32 or string")


def _shape(shape):
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {shape} must be fully defined and non-negative")
    return shape


class FixedLenFeature(collections.namedtuple("FixedLenFeature", "shape dtype default_value")):
    """A feature with exactly ``prod(shape)`` values in every example (``tf.io.FixedLenFeature``).

    A missing feature takes ``default_value`` (broadcast to ``shape``); without one it is an error.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, _shape(shape), _dtype_name(dtype), default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", "dtype")):
    """Any number of values per example, parsed into a SparseTensor (``tf.io.VarLenFeature``)."""

    def __new__(cls, dtype):
        return super().__new__(cls, _dtype_name(dtype))


class FixedLenSequenceFeature(
    collections.namedtuple("FixedLenSequenceFeature", "shape dtype allow_missing default_value")
):
    """A whole number of ``shape``-sized rows per example, padded to the longest example
    (``tf.io.FixedLenSequenceFeature``). In parse_example it needs ``allow_missing=True``."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, _shape(shape), _dtype_name(dtype), allow_missing, default_value)


class RaggedFeature(collections.namedtuple("RaggedFeature", "dtype value_key")):
    """Any number of values per example, parsed into a RaggedTensor (``tf.io.RaggedFeature``
    without partitions). ``value_key`` reads another key than the result's."""

    def __new__(
        cls, dtype, value_key=None, partitions=(), row_splits_dtype=np.int64, validate=False
    ):
        if partitions:
            raise ValueError("RaggedFeature partitions are not supported; use one level of rows")
        if np.dtype(row_splits_dtype) != np.int64:
            raise ValueError("RaggedFeature row_splits_dtype must be int64")
        return super().__new__(cls, _dtype_name(dtype), value_key)


def _prefix(names, index):
    name = names[index] if names is not None else "<unknown>"
    return f"Name: {name}, "


def _decode_all(serialized, names):
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            "parse_example expects a list of serialized examples; use parse_single_example"
        )
    records = list(serialized.ravel() if isinstance(serialized, np.ndarray) else serialized)
    if names is not None and len(names) != len(records):
        raise errors.InvalidArgumentError(
            f"Expected len(example_names) == len(serialized), got {len(names)} and {len(records)}"
        )
    decoded = []
    for i, record in enumerate(records):
        try:
            decoded.append(_pywrap.DecodeExample(record))
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(
                f"{_prefix(names, i)}Index: {i}. {e.message}"
            ) from None
    return decoded


def _values(decoded, key, dtype, names, index):
    """The values of feature `key` in one decoded example, or None if it is missing. A Feature
    with no kind set counts as missing, as in TensorFlow."""
    entry = decoded.get(key)
    if entry is None or entry[0] == 0:
        return None
    kind, values = entry
    if kind != _KIND_OF_DTYPE[dtype]:
        raise errors.InvalidArgumentError(
            f"{_prefix(names, index)}Key: {key}, Index: {index}.  Data types don't match. "
            f"Data type: {_TF_TYPE_NAME[kind]} but expected type: {_tf_type(dtype)}"
        )
    return values


def _array(values, dtype):
    array = np.empty(len(values), dtype=_NUMPY_DTYPE[dtype])
    array[:] = values
    return array


def _parse_fixed(key, spec, decoded, names):
    size = math.prod(spec.shape)
    default = None
    if spec.default_value is not None:
        default = np.broadcast_to(
            np.asarray(spec.default_value, dtype=_NUMPY_DTYPE[spec.dtype]), spec.shape
        )
    out = np.empty((len(decoded), *spec.shape), dtype=_NUMPY_DTYPE[spec.dtype])
    for i, example in enumerate(decoded):
        values = _values(example, key, spec.dtype, names, i)
        if values is None:
            if default is None:
                raise errors.InvalidArgumentError(
                    f"{_prefix(names, i)}Feature: {key} (data type: {_tf_type(spec.dtype)}) "
                    "is required but could not be found."
                )
            out[i, ...] = default  # [i, ...]: element-wise, also into object arrays
        elif len(values) != size:
            raise errors.InvalidArgumentError(
                f"{_prefix(names, i)}Key: {key}, Index: {i}.  Number of "
                f"{_tf_type(spec.dtype)} values != expected.  Values size: "
                f"{len(values)} but output shape: {list(spec.shape)}"
            )
        else:
            out[i, ...] = _array(values, spec.dtype).reshape(spec.shape)
    return out


def _rows(key, value_key, dtype, decoded, names):
    return [
        _values(example, value_key or key, dtype, names, i) or []
        for i, example in enumerate(decoded)
    ]


def _parse_var_len(key, spec, decoded, names):
    rows = _rows(key, None, spec.dtype, decoded, names)
    lengths = [len(r) for r in rows]
    indices = np.array(
        [(i, j) for i, n in enumerate(lengths) for j in range(n)], dtype=np.int64
    ).reshape(-1, 2)
    values = _array([v for r in rows for v in r], spec.dtype)
    return SparseTensor(indices, values, [len(rows), max(lengths, default=0)])


def _parse_sequence(key, spec, decoded, names):
    if not spec.allow_missing:
        raise ValueError(
            f"FixedLenSequenceFeature {key!r} needs allow_missing=True in parse_example "
            "(as in TensorFlow)"
        )
    row_size = math.prod(spec.shape)
    rows = _rows(key, None, spec.dtype, decoded, names)
    for i, r in enumerate(rows):
        if (row_size == 0 and r) or (row_size and len(r) % row_size):
            raise errors.InvalidArgumentError(
                f"{_prefix(names, i)}Key: {key}, Index: {i}.  Number of values is not a multiple "
                f"of the elements per row.  Values size: {len(r)} but row shape: {list(spec.shape)}"
            )
    counts = [len(r) // row_size if row_size else 0 for r in rows]
    fill = _ZERO[spec.dtype] if spec.default_value is None else spec.default_value
    out = np.full(
        (len(rows), max(counts, default=0), *spec.shape), fill, dtype=_NUMPY_DTYPE[spec.dtype]
    )
    for i, r in enumerate(rows):
        if counts[i]:
            out[i, : counts[i]] = _array(r, spec.dtype).reshape(counts[i], *spec.shape)
    return out


def _parse_ragged(key, spec, decoded, names):
    rows = _rows(key, spec.value_key, spec.dtype, decoded, names)
    return RaggedTensor.from_row_lengths(
        _array([v for r in rows for v in r], spec.dtype), [len(r) for r in rows]
    )


_PARSERS = {
    FixedLenFeature: _parse_fixed,
    VarLenFeature: _parse_var_len,
    FixedLenSequenceFeature: _parse_sequence,
    RaggedFeature: _parse_ragged,
}


def _check_features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature specs")
    for key, spec in features.items():
        if type(spec) not in _PARSERS:
            raise TypeError(f"unsupported feature spec for {key!r}: {spec!r}")


def parse_example(serialized, features, example_names=None, name=None):
    """Parses a batch of serialized Examples, as ``tf.io.parse_example``.

    Args:
      serialized: a list (or numpy array) of serialized ``tf.train.Example`` bytes.
      features: ``{key: FixedLenFeature | VarLenFeature | FixedLenSequenceFeature |
        RaggedFeature}``.
      example_names: optional names of the examples, used in error messages.
      name: ignored (TensorFlow's op name).

    Returns:
      ``{key: result}``: numpy arrays ``[batch, *shape]`` for fixed-length features,
      SparseTensor for VarLenFeature, RaggedTensor for RaggedFeature.

    Raises:
      InvalidArgumentError: a required feature is missing, a feature has the wrong type or number
        of values, or a record is not a valid Example (the message names the record).
    """
    del name
    _check_features(features)
    names = None if example_names is None else list(example_names)
    decoded = _decode_all(serialized, names)
    return {key: _PARSERS[type(spec)](key, spec, decoded, names) for key, spec in features.items()}


def parse_single_example(serialized, features, example_names=None, name=None):
    """Parses one serialized Example, as ``tf.io.parse_single_example``: like parse_example
    without the batch dimension (VarLen results are 1-D sparse, Ragged results plain arrays)."""
    names = None if example_names is None else [example_names]
    parsed = parse_example([serialized], features, names, name)
    out = {}
    for key, value in parsed.items():
        if isinstance(value, SparseTensor):
            out[key] = SparseTensor(value.indices[:, 1:], value.values, value.dense_shape[1:])
        elif isinstance(value, RaggedTensor):
            out[key] = value.values
        else:
            out[key] = value[0]
    return out
