"""What an element is to the steps: nested dicts and tuples of numpy values (or bytes, sparse
and ragged values), how Python values become components (tf.data's dtypes), a Failed element
standing for a user function's exception, and how functions apply to, slice and stack
elements."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.tensors import RaggedTensor, SparseTensor

# Values a map function may never return: they are code, not data (tf.data's tracing refuses
# them when map() is called; swigflow, which runs the function, when it returns one).
_NOT_DATA = (
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    types.GeneratorType,
)


def _python_leaves(value):
    """The leaf types of a (nested) list of Python values, or None if any leaf is numpy's."""
    kinds = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, (np.ndarray, np.generic)):
            return None
        else:
            kinds.add(type(v))
    return kinds


def utf8(value: Any) -> Any:
    """Nested lists of str and bytes with every str encoded."""
    if isinstance(value, list):
        return [utf8(v) for v in value]
    return value.encode() if isinstance(value, str) else value


def as_array(value: Any) -> Any:
    """One component as tf.data converts it (see Dataset.from_tensor_slices)."""
    if isinstance(value, np.ndarray):
        return value
    leaves = _python_leaves(value) if isinstance(value, list) else None
    if leaves and leaves <= {str, bytes}:
        return np.array(utf8(value), dtype=object)
    array = np.asarray(value)
    if leaves is None and not isinstance(value, (bool, int, float)):
        return array  # numpy values keep their dtype
    if array.dtype == np.int64:
        info = np.iinfo(np.int32)
        if array.size == 0 or (array.min() >= info.min and array.max() <= info.max):
            return array.astype(np.int32)
    elif array.dtype == np.float64:
        return array.astype(np.float32)
    return array


def function_name(fn: Any) -> str:
    """A user function's name for statistics and messages."""
    fn = getattr(fn, "func", fn)  # functools.partial
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def call_unpacked(fn: Any, element: Any) -> Any:
    """fn(*element) for a tuple element, else fn(element): how tf.data calls user functions."""
    return fn(*element) if type(element) is tuple else fn(element)


class Failed:
    """An element whose user function raised: passed along in place of the element, it is
    raised by Iterator.__next__ for that element only, and iteration goes on after it (tf.data
    reports a failed map call the same way)."""

    __slots__ = ("error",)

    def __init__(self, error: Any) -> None:
        self.error = error


def apply_fn(fn: Any, element: Any) -> Any:
    """fn applied as tf.data applies a user function; a raised exception becomes a Failed
    element, with StopIteration made InvalidArgumentError (it must never end a dataset)."""
    if type(element) is Failed:
        return element
    try:
        return call_unpacked(fn, element)
    except StopIteration as e:
        error = errors.InvalidArgumentError(
            f"the function raised StopIteration for an element: {e!r}"
        )
        error.__cause__ = e
        return Failed(error)
    except Exception as e:
        return Failed(e)


def _not_data(value):
    """The first part of `value` (a structure) that is code rather than data, else None."""
    if isinstance(value, dict):
        value = tuple(value.values())
    if isinstance(value, (tuple, list)):
        return next((bad for v in value if (bad := _not_data(v)) is not None), None)
    return value if isinstance(value, _NOT_DATA) else None


def _as_components(value):
    """A function's result as tf.data makes it an element: Python numbers, strings and lists
    become arrays (as_array's dtypes); numpy values and other objects stay as they are."""
    kind = type(value)
    if kind is np.ndarray:
        return value
    if kind is dict:
        return {k: _as_components(v) for k, v in value.items()}
    if isinstance(value, tuple):
        parts = [_as_components(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if kind in (list, int, float, bool):
        return as_array(value)
    if kind is str:
        return value.encode()
    return value


def map_output(fn: Any, element: Any) -> Any:
    """apply_fn for map(), with tf.data's rules for what the function returns: a list is a
    tuple of components, Python values become arrays (_as_components), and a result that
    holds code (a class, a function) fails its element with tf.data's TypeError."""
    result = apply_fn(fn, element)
    if type(result) is np.ndarray or type(result) is Failed:
        return result
    bad = _not_data(result)
    if bad is not None:
        message = f"Unsupported return value from function passed to Dataset.map(): {bad}."
        return Failed(TypeError(message))
    if type(result) is list:
        return tuple(_as_components(v) for v in result)
    return _as_components(result)


def component_count(structure: Any) -> int:
    """The number of components of a structure (nested dicts, tuples and lists)."""
    if isinstance(structure, dict):
        return sum(component_count(v) for v in structure.values())
    if isinstance(structure, (tuple, list)):
        return sum(component_count(v) for v in structure)
    return 1


def predicate_failure(transformation: Any, fn: Any, failed: Any, where: Any) -> Any:
    """A predicate's failure as tf.data reports it: the error's own class for swigflow's
    errors, InvalidArgumentError for a Python exception, in tf.data's words ("... with
    iterator: Iterator::Root::...": the pipeline, `where`, from its source to the step), then
    the error and the function, chained to the original."""
    error = failed.error
    kind = type(error) if isinstance(error, errors.OpError) else errors.InvalidArgumentError
    path = "::".join(where.split("."))
    wrapped = kind(
        f"Error in user-defined function passed to {transformation} transformation with "
        f"iterator: Iterator::Root::{path}: {type(error).__name__}: {error} (in "
        f"{function_name(fn)})"
    )
    wrapped.__cause__ = error
    return Failed(wrapped)


def slice_of(tensors: Any, i: int) -> Any:
    if isinstance(tensors, dict):
        return {k: slice_of(v, i) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(slice_of(v, i) for v in tensors)
    if tensors is None:
        return None  # tf.data keeps a None component in every row
    if isinstance(tensors, SparseTensor):
        row = tensors.indices[:, 0] == i
        indices, values = tensors.indices[row, 1:], tensors.values[row]
        return SparseTensor(indices, values, tensors.dense_shape[1:])
    return tensors[i]


def length_of(tensors: Any) -> int | None:
    if isinstance(tensors, dict):
        lengths = {length_of(v) for v in tensors.values()}
    elif isinstance(tensors, tuple):
        lengths = {length_of(v) for v in tensors}
    elif tensors is None:
        return None  # a None component has every length
    elif isinstance(tensors, SparseTensor):
        return int(tensors.dense_shape[0])
    else:
        return len(tensors)
    lengths.discard(None)
    if len(lengths) != 1:
        raise ValueError(f"all components must have the same first dimension, got {lengths}")
    return lengths.pop()


def stack(elements: int | None, _component: Any = None) -> Any:
    """Elements (of one structure) stacked into one; components of different shapes raise
    InvalidArgumentError with tf.data's words. SparseTensors stack into one of the largest
    dense shape, RaggedTensors into one with a ragged dimension more (tf.data's rules)."""
    first = elements[0]
    if isinstance(first, dict):
        return {k: stack([e[k] for e in elements]) for k in first}
    if isinstance(first, tuple):
        return tuple(stack([e[i] for e in elements], i) for i in range(len(first)))
    if first is None:
        return None
    if isinstance(first, (bytes, str)):
        return np.array(elements, dtype=object)
    if isinstance(first, SparseTensor):
        return _stacked_sparse(elements)
    if isinstance(first, RaggedTensor):
        return _stacked_ragged(elements)
    arrays = [np.asarray(e) for e in elements]
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise errors.InvalidArgumentError(
                f"Cannot batch tensors with different shapes in component {_component or 0}. "
                f"First element had shape {shape_text(arrays[0])} and element {i} had shape "
                f"{shape_text(a)}."
            )
    return np.stack(arrays)


def _stacked_sparse(elements):
    ranks = {len(e.dense_shape) for e in elements}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            f"Cannot batch SparseTensors of different ranks {sorted(ranks)}"
        )
    rows = [np.full((len(e.indices), 1), i, np.int64) for i, e in enumerate(elements)]
    indices = np.concatenate([np.hstack([r, e.indices]) for r, e in zip(rows, elements)])
    values = np.concatenate([e.values for e in elements])
    dense_shape = np.max([e.dense_shape for e in elements], axis=0)
    return SparseTensor(indices, values, np.concatenate([[len(elements)], dense_shape]))


def _concatenated_rows(ragged):
    """RaggedTensors of one ragged rank, their rows one after the other in one."""
    splits, offset = [ragged[0].row_splits], ragged[0].row_splits[-1]
    for r in ragged[1:]:
        splits.append(r.row_splits[1:] + offset)
        offset += r.row_splits[-1]
    values = [r.values for r in ragged]
    if isinstance(values[0], RaggedTensor):
        values = _concatenated_rows(values)
    else:
        values = np.concatenate(values)
    return RaggedTensor(values, np.concatenate(splits))


def _stacked_ragged(elements):
    depths = {len(e.nested_row_splits) for e in elements}
    if len(depths) != 1:
        raise errors.InvalidArgumentError(
            f"Cannot batch RaggedTensors of different ragged ranks {sorted(depths)}"
        )
    splits = np.zeros(len(elements) + 1, dtype=elements[0].row_splits.dtype)
    np.cumsum([len(e) for e in elements], out=splits[1:])
    return RaggedTensor(_concatenated_rows(elements), splits)


def ragged_rows(rows: Any, row_splits_dtype: DTypeLike) -> Any:
    """The rows of a ragged component (arrays of one rank whose lengths may differ, or
    RaggedTensors of one ragged rank) as a RaggedTensor of len(rows) rows: rebatch()'s
    batches of ragged rows."""
    if isinstance(rows[0], RaggedTensor):
        return _stacked_ragged(rows)
    arrays = [np.asarray(r) for r in rows]
    splits = np.zeros(len(arrays) + 1, dtype=row_splits_dtype)
    np.cumsum([len(a) for a in arrays], out=splits[1:])
    return RaggedTensor(np.concatenate(arrays), splits)


def empty_rows(tensors: Any) -> Any:
    """`tensors` (one element) with none of its rows: a batch of 0 rows of its kind, shape and
    dtype."""
    if isinstance(tensors, dict):
        return {k: empty_rows(v) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return (
            type(tensors)(*map(empty_rows, tensors))
            if hasattr(tensors, "_fields")
            else tuple(map(empty_rows, tensors))
        )
    if tensors is None:
        return None
    if isinstance(tensors, SparseTensor):
        dense_shape = np.concatenate([[0], tensors.dense_shape[1:]])
        return SparseTensor(tensors.indices[:0], tensors.values[:0], dense_shape)
    if isinstance(tensors, RaggedTensor):
        values = tensors.values
        inner = empty_rows(values) if isinstance(values, RaggedTensor) else values[:0]
        return RaggedTensor(inner, np.zeros(1, tensors.row_splits.dtype))
    return np.asarray(tensors)[:0]


def shape_text(array: Any) -> str:
    return "[" + ",".join(str(n) for n in array.shape) + "]"


def stacked(elements: int | None) -> Any:
    """stack(elements), or the failure to stack them as an element that raises it."""
    try:
        return stack(elements)
    except errors.OpError as e:
        return Failed(e)
