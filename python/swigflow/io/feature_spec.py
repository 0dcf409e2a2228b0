"""Feature specs and their codec: tf.io's spec classes, the native parser's specs made from them,
and the parser's (values, counts) assembled into TensorFlow's results. Used by swigflow.io's
parse functions and by swigflow.data's native pipeline alike.
"""

import collections
import math
import operator

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.tensors import RaggedTensor, SparseTensor

# Feature kinds as the native codec numbers them (swigflow::example::Feature::Kind).
NONE = _pywrap.Feature.Kind_kNone
BYTES = _pywrap.Feature.Kind_kBytes
FLOAT = _pywrap.Feature.Kind_kFloat
INT64 = _pywrap.Feature.Kind_kInt64
KIND_OF_DTYPE = {"string": BYTES, "float32": FLOAT, "int64": INT64}
TF_TYPE_NAME = {BYTES: "string", FLOAT: "float", INT64: "int64"}  # TensorFlow's, by kind
NUMPY_DTYPE = {
    "string": np.dtype(object),
    "float32": np.dtype(np.float32),
    "int64": np.dtype(np.int64),
}
ZERO_OF_DTYPE = {"string": b"", "float32": 0.0, "int64": 0}


def tf_type_name(dtype):
    """TensorFlow's name of a spec dtype in messages: 'int64', 'float' or 'string'."""
    return TF_TYPE_NAME[KIND_OF_DTYPE[dtype]]


def _dtype_name(dtype):
    """'int64', 'float32' or 'string' for the dtype spellings TensorFlow code uses."""
    if isinstance(dtype, str):
        name = {"float": "float32", "bytes": "string", "str": "string"}.get(dtype, dtype)
        if name in KIND_OF_DTYPE:
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


_INT64_MAX = (1 << 63) - 1


def _shape(shape):
    """A spec shape as a tuple of ints: whole numbers only (a float dimension is a TypeError, as
    in TensorFlow), non-negative, and with a product that int64 holds."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got {shape!r}"
        ) from None
    if any(d < 0 for d in dims):
        raise ValueError(f"shape {dims} must be fully defined and non-negative")
    if math.prod(dims) > _INT64_MAX:
        raise errors.InvalidArgumentError(
            f"shape {dims} has more elements than int64 can count ({math.prod(dims)})"
        )
    return dims


def _default_values(spec):
    """A FixedLenFeature's default as a flat list in its dtype, checked: an int64 feature takes
    whole numbers only (no silent truncation of 1.5)."""
    value = np.asarray(spec.default_value)
    inexact = value.dtype.kind in "fc" and (
        not np.all(np.isfinite(value)) or np.any(value != np.round(value))
    )
    if spec.dtype == "int64" and inexact:
        raise TypeError(
            f"default_value {spec.default_value!r} cannot be converted to int64 exactly"
        )
    value = np.asarray(value, dtype=NUMPY_DTYPE[spec.dtype])
    wanted = math.prod(spec.shape)
    if value.size != wanted:  # TensorFlow reshapes the default, it never broadcasts it
        raise errors.InvalidArgumentError(
            f"Input to reshape is a tensor with {value.size} values, but the requested shape "
            f"has {wanted}"
        )
    return value.ravel().tolist()


class FixedLenFeature(collections.namedtuple("FixedLenFeature", "shape dtype default_value")):
    """A feature with exactly ``prod(shape)`` values in every example (``tf.io.FixedLenFeature``).

    A missing feature takes ``default_value``, reshaped to ``shape`` as TensorFlow does (it must
    hold exactly ``prod(shape)`` values: ``[1, 2, 3, 4]`` for shape ``(2, 2)``, never a scalar
    broadcast); without one it is an error.
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


# swigflow::example::FeatureSpec::Type of each spec class.
_SPEC_TYPE = {
    FixedLenFeature: _pywrap.FeatureSpec.Type_kFixedLen,
    VarLenFeature: _pywrap.FeatureSpec.Type_kVarLen,
    FixedLenSequenceFeature: _pywrap.FeatureSpec.Type_kFixedLenSequence,
    RaggedFeature: _pywrap.FeatureSpec.Type_kRagged,
}


def check_features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature specs")
    for key, spec in features.items():
        if type(spec) not in _SPEC_TYPE:
            raise TypeError(f"unsupported feature spec for {key!r}: {spec!r}")
        if isinstance(spec, FixedLenSequenceFeature) and not spec.allow_missing:
            raise ValueError(
                f"FixedLenSequenceFeature {key!r} needs allow_missing=True in parse_example "
                "(as in TensorFlow)"
            )


def native_specs(features):
    """The native parser's specs for a features dict, in its order (a FeatureSpecVector)."""
    specs = _pywrap.FeatureSpecVector()
    for key, spec in features.items():
        native = _pywrap.FeatureSpec()
        native.key = (spec.value_key or key) if isinstance(spec, RaggedFeature) else key
        native.type = _SPEC_TYPE[type(spec)]
        native.dtype = KIND_OF_DTYPE[spec.dtype]
        native.SetShape(list(getattr(spec, "shape", ())))
        if isinstance(spec, FixedLenFeature) and spec.default_value is not None:
            native.has_default = True
            values = _default_values(spec)
            if spec.dtype == "string":
                native.default_bytes = values
            elif spec.dtype == "float32":
                native.default_float = values
            else:
                native.default_int64 = values
        specs.append(native)
    return specs


def _dense(spec, values, counts, batch):
    return values.reshape((batch, *spec.shape))


def _sparse(spec, values, counts, batch):
    rows = np.repeat(np.arange(batch, dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    cols = np.arange(len(values), dtype=np.int64) - np.repeat(starts, counts)
    return SparseTensor(np.stack([rows, cols], axis=1), values, [batch, int(counts.max(initial=0))])


def _ragged(spec, values, counts, batch):
    return RaggedTensor.from_row_lengths(values, counts)


def _sequence(spec, values, counts, batch):
    row_size = math.prod(spec.shape)
    rows = counts // row_size if row_size else np.zeros_like(counts)
    fill = ZERO_OF_DTYPE[spec.dtype] if spec.default_value is None else spec.default_value
    out = np.full(
        (batch, int(rows.max(initial=0)), *spec.shape), fill, dtype=NUMPY_DTYPE[spec.dtype]
    )
    total = int(rows.sum())
    if total:
        example = np.repeat(np.arange(batch), rows)
        within = np.arange(total) - np.repeat(np.cumsum(rows) - rows, rows)
        out[example, within] = values.reshape(total, *spec.shape)
    return out


_ASSEMBLE = {
    FixedLenFeature: _dense,
    VarLenFeature: _sparse,
    FixedLenSequenceFeature: _sequence,
    RaggedFeature: _ragged,
}


def assemble(spec, values, counts, batch):
    """The result for `spec` of a batch of `batch` examples from the native parser's
    (values, counts): an array, SparseTensor or RaggedTensor, as tf.io.parse_example's."""
    return _ASSEMBLE[type(spec)](spec, values, counts, batch)


def drop_batch_dimension(value):
    """The result for one example out of a batch-of-one result: arrays lose their first
    dimension, SparseTensors their first index column, RaggedTensors their outer level."""
    if isinstance(value, SparseTensor):
        return SparseTensor(value.indices[:, 1:], value.values, value.dense_shape[1:])
    if isinstance(value, RaggedTensor):
        return value.values
    return value[0]
