"""``tf.io.parse_sequence_example`` and ``parse_single_sequence_example``: context features like
parse_example, per-step features from the feature lists, with TensorFlow's results and errors.

The context of a SequenceExample is field 1 of type Features, exactly as an Example's features,
so it is parsed by parse_example's C++ path directly. Feature lists are assembled from the C++
decoder (a slower path than parse_example's; the rules are TensorFlow's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import ragged_partitions
from swigflow.io.feature_spec import (
    KIND_OF_DTYPE,
    NUMPY_DTYPE,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    check_shape,
    drop_batch_dimension,
    padding_value,
    tf_type_name,
)
from swigflow.io.parsing import parse_example
from swigflow.io.tf_record import record_bytes
from swigflow.tensors import RaggedTensor, SparseTensor

_SEQUENCE_SPECS = (FixedLenSequenceFeature, VarLenFeature, RaggedFeature)


def _name(names, i):
    return names[i] if names is not None else "<unknown>"


def _parse_context(serialized, context_features, names):
    if not context_features:
        return {}
    try:
        return parse_example(serialized, context_features, names)
    except errors.InvalidArgumentError as e:
        # TensorFlow's sequence parser words this one error without the example's name.
        message = e.message
        if "is required but could not be found" in message and message.startswith("Name: "):
            message = message.split(", ", 1)[1]
        raise errors.InvalidArgumentError(message) from None


def _steps(lists, key, dtype, names, i):
    """The values of each step of feature list `key` in example i (None when it is missing)."""
    steps = lists.get(key)
    if steps is None:
        return None
    want = KIND_OF_DTYPE[dtype]
    out = []
    for t, (kind, values) in enumerate(steps):
        if kind not in (0, want):
            raise errors.InvalidArgumentError(
                f"Name: {_name(names, i)}, Feature list: {key}, Index: {t}.  Data types don't "
                f"match. Expected type: {tf_type_name(dtype)}"
            )
        out.append(values)
    return out


def _values(rows, dtype):
    array = np.empty(len(rows), dtype=NUMPY_DTYPE[dtype])
    array[:] = rows
    return array


def _dense_sequence(key, spec, per_example, names):
    row_size = math.prod(spec.shape)
    for i, steps in enumerate(per_example):
        if steps is None and not spec.allow_missing:
            raise errors.InvalidArgumentError(
                f"Name: {_name(names, i)}, Feature list '{key}' is required but could not be "
                "found.  Did you mean to include it in feature_list_dense_missing_assumed_empty "
                "or feature_list_dense_defaults?"
            )
        total = sum(len(values) for values in steps or ())
        if total % row_size:  # TensorFlow checks the total first, then each step
            raise errors.InvalidArgumentError(
                f"Feature list '{key}' has an unexpected number of values.  Total values size: "
                f"{total} is not consistent with output shape: "
                f"[{','.join(['?', *map(str, spec.shape)])}]"
            )
        for t, values in enumerate(steps or ()):
            if len(values) != row_size:
                raise errors.InvalidArgumentError(
                    f"Name: {_name(names, i)}, Key: {key}, Index: {t}.  Number of values != "
                    f"expected.  values size: {len(values)} but output shape: {list(spec.shape)}"
                )
    lengths = np.array([len(s or ()) for s in per_example], dtype=np.int64)
    out = np.full(
        (len(per_example), int(lengths.max(initial=0)), *spec.shape),
        padding_value(spec),
        dtype=NUMPY_DTYPE[spec.dtype],
    )
    for i, steps in enumerate(per_example):
        if steps:
            out[i, : len(steps)] = _values([v for s in steps for v in s], spec.dtype).reshape(
                len(steps), *spec.shape
            )
    return out, lengths


def _sparse_sequence(spec, per_example):
    indices, values = [], []
    max_steps = max_values = 0
    for i, steps in enumerate(per_example):
        steps = steps or ()
        max_steps = max(max_steps, len(steps))
        for t, step in enumerate(steps):
            max_values = max(max_values, len(step))
            indices.extend((i, t, j) for j in range(len(step)))
            values.extend(step)
    return SparseTensor(
        np.array(indices, dtype=np.int64).reshape(-1, 3),
        _values(values, spec.dtype),
        [len(per_example), max_steps, max_values],
    )


def _ragged_sequence(key, spec, lists, names):
    """A RaggedFeature over feature lists: examples, then steps, then the partitions' rows
    (each step partitioned on its own), then values."""
    value_key = spec.value_key or key
    steps = [_steps(found, value_key, spec.dtype, names, i) or [] for i, found in enumerate(lists)]
    flat_steps = [step for s in steps for step in s]
    counts = np.array([len(step) for step in flat_steps], dtype=np.int64)
    values = _values([v for step in flat_steps for v in step], spec.dtype)
    reads = []
    for partition in spec.partitions:
        if isinstance(partition, RaggedFeature.UniformRowLength):
            reads.append(None)
            continue
        flat = []
        for i, found in enumerate(lists):
            partition_steps = _steps(found, partition.key, "int64", names, i)
            if partition_steps is None:
                partition_steps = [[]] * len(steps[i])
            if len(partition_steps) != len(steps[i]):
                raise ragged_partitions.misaligned(
                    key,
                    f"{len(steps[i])} steps of {value_key} but {len(partition_steps)} of "
                    f"{partition.key} in example {i}",
                )
            flat += partition_steps
        reads.append(
            (
                np.array([v for step in flat for v in step], dtype=np.int64),
                np.array([len(step) for step in flat], dtype=np.int64),
            )
        )
    result, rows = ragged_partitions.partitioned(key, spec.partitions, values, counts, reads)
    per_step = RaggedTensor.from_row_lengths(result, rows)
    out = RaggedTensor.from_row_lengths(per_step, [len(s) for s in steps])
    return ragged_partitions.with_splits_dtype(out, np.dtype(spec.row_splits_dtype))


def _check_specs(context_features, sequence_features):
    for key, spec in (context_features or {}).items():
        if isinstance(spec, FixedLenSequenceFeature):
            raise ValueError(f"context feature {key!r} cannot be a FixedLenSequenceFeature")
    for key, spec in (sequence_features or {}).items():
        if not isinstance(spec, _SEQUENCE_SPECS):
            raise TypeError(
                f"sequence feature {key!r} must be a FixedLenSequenceFeature, VarLenFeature or "
                f"RaggedFeature, not {type(spec).__name__}"
            )
        if isinstance(spec, FixedLenSequenceFeature):
            check_shape(key, spec)
            padding_value(spec)
    if not context_features and not sequence_features:
        raise ValueError("at least one of context_features and sequence_features is required")


def parse_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_names: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a batch of serialized SequenceExamples, as ``tf.io.parse_sequence_example``.

    Returns:
      ``(context, feature_lists, lengths)``: context results as parse_example gives them;
      per-step results: FixedLenSequenceFeature as ``[batch, max_steps, *shape]`` arrays padded
      with the default (or zeros), VarLenFeature as 3-D SparseTensors ``[batch, step, value]``,
      RaggedFeature as RaggedTensors over examples then steps; ``lengths[key]`` the number of
      steps of each FixedLenSequenceFeature per example.

    Raises:
      InvalidArgumentError: as TensorFlow: missing required lists or context features, wrong
        types or row sizes, malformed records.

    Args:
        serialized: a list or 1-D array of serialized SequenceExamples.
        context_features: a dict of feature specs for the context.
        sequence_features: a dict of FixedLenSequenceFeature, VarLenFeature or RaggedFeature
            for the feature lists.
        example_names: the examples' names for error messages.
        name: accepted for TensorFlow's signature; unused.
    """
    del name
    _check_specs(context_features, sequence_features)
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError("parse_sequence_example expects a list; use parse_single_sequence_example")
    records = [
        record_bytes(r)
        for r in (serialized.ravel() if isinstance(serialized, np.ndarray) else serialized)
    ]
    names = None if example_names is None else [str(n) for n in example_names]
    context = _parse_context(records, context_features, names)
    lists = []
    for i, record in enumerate(records):
        try:
            lists.append(_pywrap.DecodeSequenceExample(record)[1])
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(
                f"Name: {_name(names, i)}, Index: {i}. {e.message}"
            ) from None
    parsed, lengths = {}, {}
    for key, spec in (sequence_features or {}).items():
        if isinstance(spec, RaggedFeature):
            parsed[key] = _ragged_sequence(key, spec, lists, names)
            continue
        per_example = [_steps(found, key, spec.dtype, names, i) for i, found in enumerate(lists)]
        if isinstance(spec, FixedLenSequenceFeature):
            parsed[key], lengths[key] = _dense_sequence(key, spec, per_example, names)
        else:
            parsed[key] = _sparse_sequence(spec, per_example)
    return context, parsed, lengths


def parse_single_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_name: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses one serialized SequenceExample, as ``tf.io.parse_single_sequence_example``.

    Returns:
      ``(context, feature_lists)`` without the batch dimension: dense lists ``[steps, *shape]``,
      VarLen lists as 2-D SparseTensors ``[step, value]``, Ragged lists as RaggedTensors over
      steps.

    Args:
        serialized: one serialized SequenceExample (bytes).
        context_features: a dict of feature specs for the context.
        sequence_features: a dict of FixedLenSequenceFeature, VarLenFeature or RaggedFeature
            for the feature lists.
        example_name: the example's name for error messages.
        name: accepted for TensorFlow's signature; unused.

    Raises:
        InvalidArgumentError: as parse_sequence_example.
    """
    names = None if example_name is None else [example_name]
    context, parsed, _ = parse_sequence_example(
        [serialized], context_features, sequence_features, names, name
    )
    return (
        {key: drop_batch_dimension(value) for key, value in context.items()},
        {key: drop_batch_dimension(value) for key, value in parsed.items()},
    )
