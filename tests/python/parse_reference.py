"""A slow, straightforward parse_example over swigflow.train's decoder: the oracle that the C++
fast path (swigflow.io.parse_example) is checked against. It was the first implementation of
TensorFlow's semantics and is kept for that purpose only."""

import math

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io.feature_spec import (
    KIND_OF_DTYPE,
    NUMPY_DTYPE,
    TF_TYPE_NAME,
    ZERO_OF_DTYPE,
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    tf_type_name,
)
from swigflow.tensors import RaggedTensor, SparseTensor


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
    if kind != KIND_OF_DTYPE[dtype]:
        raise errors.InvalidArgumentError(
            f"{_prefix(names, index)}Key: {key}, Index: {index}.  Data types don't match. "
            f"Data type: {TF_TYPE_NAME[kind]} but expected type: {tf_type_name(dtype)}"
        )
    return values


def _array(values, dtype):
    array = np.empty(len(values), dtype=NUMPY_DTYPE[dtype])
    array[:] = values
    return array


def _stride_message(names, i, key, spec, count):
    kind = "bytes" if spec.dtype == "string" else {"float32": "float"}.get(spec.dtype, spec.dtype)
    shape = ",".join(["?", *map(str, spec.shape)])
    return (
        f"{_prefix(names, i)}Key: {key}, Index: {i}.  Number of {kind} values is not a multiple "
        f"of stride length. Saw {count} values but output shape is: [{shape}]"
    )


def _parse_fixed(key, spec, decoded, names, first_index=0):
    size = math.prod(spec.shape)
    default = None
    if spec.default_value is not None:
        default = np.reshape(  # TensorFlow reshapes a default; it never broadcasts one
            np.asarray(spec.default_value, dtype=NUMPY_DTYPE[spec.dtype]), spec.shape
        )
    out = np.empty((len(decoded), *spec.shape), dtype=NUMPY_DTYPE[spec.dtype])
    for i, example in enumerate(decoded, start=first_index):
        values = _values(example, key, spec.dtype, names, i)
        if values is None:
            if default is None:
                raise errors.InvalidArgumentError(
                    f"{_prefix(names, i)}Feature: {key} (data type: {tf_type_name(spec.dtype)}) "
                    "is required but could not be found."
                )
            out[i - first_index, ...] = default  # element-wise, also into object arrays
        elif len(values) != size:
            raise errors.InvalidArgumentError(
                f"{_prefix(names, i)}Key: {key}, Index: {i}.  Number of "
                f"{tf_type_name(spec.dtype)} values != expected.  Values size: "
                f"{len(values)} but output shape: {list(spec.shape)}"
            )
        else:
            out[i - first_index, ...] = _array(values, spec.dtype).reshape(spec.shape)
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
        raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
    row_size = math.prod(spec.shape)
    rows = _rows(key, None, spec.dtype, decoded, names)
    for i, r in enumerate(rows):
        if (row_size == 0 and r) or (row_size and len(r) % row_size):
            raise errors.InvalidArgumentError(_stride_message(names, i, key, spec, len(r)))
    counts = [len(r) // row_size if row_size else 0 for r in rows]
    fill = ZERO_OF_DTYPE[spec.dtype] if spec.default_value is None else spec.default_value
    out = np.full(
        (len(rows), max(counts, default=0), *spec.shape), fill, dtype=NUMPY_DTYPE[spec.dtype]
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


def check_features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature specs")
    for key, spec in features.items():
        if type(spec) not in _PARSERS:
            raise TypeError(f"unsupported feature spec for {key!r}: {spec!r}")


def _validate(features, decoded, names):
    """Raises the first problem: the first record in order, and within it the first feature in
    the order of the spec (the rule the C++ parser documents)."""
    for i, example in enumerate(decoded):
        for key, spec in features.items():
            read_key = (spec.value_key or key) if isinstance(spec, RaggedFeature) else key
            values = _values(example, read_key, spec.dtype, names, i)
            if isinstance(spec, FixedLenFeature):
                _parse_fixed(key, spec, [example], names, first_index=i)
            elif isinstance(spec, FixedLenSequenceFeature) and values is not None:
                row_size = math.prod(spec.shape)
                if (row_size == 0 and values) or (row_size and len(values) % row_size):
                    raise errors.InvalidArgumentError(
                        _stride_message(names, i, key, spec, len(values))
                    )


def reference_parse_example(serialized, features, example_names=None, name=None):
    """swigflow.io.parse_example's contract, computed the plain way (see the module doc)."""
    del name
    check_features(features)
    names = None if example_names is None else list(example_names)
    decoded = _decode_all(serialized, names)
    _validate(features, decoded, names)
    return {key: _PARSERS[type(spec)](key, spec, decoded, names) for key, spec in features.items()}
