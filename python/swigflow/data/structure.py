"""tf.data's structure rules on element specs (swigflow.specs): the spec of an element, the
common spec of several datasets' elements (concatenate, sample_from_datasets), and the specs of
batched, unbatched and ragged-batched elements, with tf.data's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.specs import (
    DatasetSpec,
    NoneTensorSpec,
    RaggedTensorSpec,
    SparseTensorSpec,
    TensorShape,
    TensorSpec,
    UnknownSpec,
)
from swigflow.tensors import RaggedTensor, SparseTensor

STRING = np.dtype(object)  # bytes components, and arrays of them


def pack_like(like: Any, parts: Any) -> Any:
    """`parts` in the kind of tuple `like` is (a namedtuple stays one)."""
    return type(like)(*parts) if hasattr(like, "_fields") else tuple(parts)


def map_specs(fn: Any, structure: Any) -> Any:
    """fn applied to every spec of a structure (nested dicts and tuples)."""
    if isinstance(structure, dict):
        return {k: map_specs(fn, v) for k, v in structure.items()}
    if isinstance(structure, tuple):
        return pack_like(structure, [map_specs(fn, v) for v in structure])
    return fn(structure)


def flat_specs(structure: Any) -> list[Any]:
    if isinstance(structure, dict):
        return [s for v in structure.values() for s in flat_specs(v)]
    if isinstance(structure, tuple):
        return [s for v in structure for s in flat_specs(v)]
    return [structure]


def spec_of(value: Any) -> Any:
    """The spec of an element (a structure of values as the steps pass them)."""
    if isinstance(value, dict):
        return {k: spec_of(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return pack_like(value, [spec_of(v) for v in value])
    if value is None:
        return NoneTensorSpec()
    if isinstance(value, (bytes, str)):
        return TensorSpec((), STRING)
    if isinstance(value, SparseTensor):
        return SparseTensorSpec(value.dense_shape.tolist(), value.values.dtype)
    if isinstance(value, RaggedTensor):
        splits = value.nested_row_splits
        shape = value.shape[:1] + (None,) * len(splits) + value.flat_values.shape[1:]
        return RaggedTensorSpec(shape, value.flat_values.dtype, len(splits), splits[0].dtype)
    # A dataset, known by its face rather than its class: this module stays below
    # swigflow.data.dataset.
    if hasattr(value, "element_spec"):
        return DatasetSpec(value.element_spec)
    value = np.asarray(value)
    return TensorSpec(value.shape, value.dtype)


def common_spec(a: Any, b: Any) -> Any:
    """The most specific spec both structures' elements have, or None when their structure,
    dict keys, kinds or dtypes differ. Shapes that differ become partly unknown."""
    if isinstance(a, UnknownSpec) or isinstance(b, UnknownSpec):
        return a if isinstance(a, UnknownSpec) else b
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
            return None
        parts = {k: common_spec(a[k], b[k]) for k in a}
        return None if any(p is None for p in parts.values()) else parts
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return None
        parts = [common_spec(x, y) for x, y in zip(a, b)]
        return None if any(p is None for p in parts) else pack_like(a, parts)
    return a.most_specific_common_supertype([b])


def concatenated_spec(first: Any, second: Any) -> Any:
    """concatenate()'s element spec; TypeError with tf.data's words when there is none."""
    found = common_spec(first, second)
    if found is None:
        raise TypeError(f"Incompatible dataset elements:\n  {first!r} vs.   {second!r}")
    return found


def sampled_spec(specs: Any) -> Any:
    """The element spec of choose_from_datasets / sample_from_datasets over inputs of `specs`."""
    found = specs[0]
    for spec in specs[1:]:
        found = common_spec(found, spec)
        if found is None:
            lines = "\n".join(f"Dataset {i} element_spec={s!r}." for i, s in enumerate(specs))
            raise TypeError(
                "Invalid `datasets`. `datasets` must have compatible element specs.\n " + lines
            )
    return found


def batched_spec(spec: Any, batch_size: int) -> Any:
    """The spec of batches of elements of `spec`: batch_size rows, or None (unknown)."""
    return map_specs(lambda s: s.batch(batch_size), spec)


def leading_dimensions(spec: Any) -> Any:
    """The known first dimensions of a structure's components, as a set; ValueError with
    tf.data's words for a scalar component."""
    leading = set()
    for s in flat_specs(spec):
        shape = getattr(s, "shape", None)
        if shape is not None and shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        if shape is not None and shape.rank is not None and shape[0] is not None:
            leading.add(shape[0])
    return leading


def unbatched_spec(spec: Any) -> Any:
    """unbatch()'s element spec; ValueError with tf.data's words for scalar components or known
    leading dimensions that differ."""
    leading = leading_dimensions(spec)
    if len(leading) > 1:
        first, second = sorted(leading)[:2]
        raise ValueError(
            "`unbatch()` is only supported for datasets of elements whose components have a "
            f"matching leading dimension. Encountered both {first} and {second}."
        )
    return map_specs(lambda s: s.unbatch(), spec)


def row_splits_dtype_of(dtype: DTypeLike) -> Any:
    found = np.dtype(dtype)
    if found not in (np.int32, np.int64):
        raise ValueError(f"row_splits_dtype must be int32 or int64, got {found}")
    return found


def ragged_rank_for(spec: Any, value: Any = None) -> int:
    """How many dimensions ragged_batch makes ragged for a component: tf.data's rule, up to
    and including the last unknown dimension of its spec (0: batched dense). For an
    UnknownSpec, every dimension of the value (rank 1 and up)."""
    if isinstance(spec, UnknownSpec):
        return np.ndim(value) if isinstance(value, np.ndarray) else 0
    if type(spec) is not TensorSpec or spec.shape.rank is None or spec.shape.is_fully_defined():
        return 0
    return max(i for i, d in enumerate(spec.shape.dims) if d is None) + 1


def ragged_batched_spec(spec: Any, batch_size: int, row_splits_dtype: DTypeLike) -> Any:
    """ragged_batch()'s element spec."""

    def component(s):
        rank = ragged_rank_for(s)
        if rank == 0:
            return s.batch(batch_size)
        shape = TensorShape([batch_size]).concatenate(s.shape)
        return RaggedTensorSpec(shape, s.dtype, rank, row_splits_dtype)

    return map_specs(component, spec)


def ragged_of(arrays: Any, rank: Any, row_splits_dtype: DTypeLike) -> Any:
    """Arrays of one rank stacked into a RaggedTensor whose first `rank` dimensions after the
    batch's are ragged; the dimensions after those must agree."""
    inner = {a.shape[rank:] for a in arrays}
    if len(inner) != 1:
        raise errors.InvalidArgumentError(
            f"ragged_batch: the dimensions after the first {rank} differ between elements: "
            f"{sorted(inner)}"
        )
    value = np.concatenate([a.reshape((-1, *a.shape[rank:])) for a in arrays])
    for level in reversed(range(rank)):
        lengths = [np.full(int(np.prod(a.shape[:level])), a.shape[level]) for a in arrays]
        lengths = np.concatenate(lengths) if lengths else np.zeros(0, np.int64)
        splits = np.zeros(len(lengths) + 1, dtype=row_splits_dtype)
        np.cumsum(lengths, out=splits[1:])
        value = RaggedTensor(value, splits)
    return value
