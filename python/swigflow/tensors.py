"""Tensors as swigflow has them: numpy arrays (``constant``, ``convert_to_tensor``), and the
sparse and ragged results of parsing, shaped like ``tf.sparse.SparseTensor`` and
``tf.RaggedTensor`` but holding numpy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from swigflow import errors
from swigflow.specs import as_dtype, tf_type_name


def constant(
    value: Any,
    dtype: DTypeLike | None = None,
    shape: ArrayLike | None = None,
    name: str | None = None,
) -> np.ndarray:
    """tf.constant: a new array of `value`, reshaped to `shape` when given (a scalar fills it).

    Python values convert as TensorFlow converts them: floats become float32 and ints int32
    (int64 when one does not fit), strings bytes (in an object array, NUL bytes kept), and a
    value `dtype` cannot take exactly (a float for an integer dtype, a string for a number) is
    TypeError. numpy arrays and scalars keep their dtype, or are cast to `dtype` as numpy casts.

    Raises:
      TypeError: `dtype` cannot hold the value.
      ValueError: a nest that is not rectangular, mixed kinds of values (strings and numbers,
        bools and numbers), an integer beyond int64 (or the dtype's range), or None.

    Args:
        value: a Python value, a nest of them, or a numpy array or scalar.
        dtype: the dtype; None: inferred as above.
        shape: the shape; None: the value's.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    target = None if dtype is None else as_dtype(dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.array(value, dtype=target)
    else:
        array = _from_python(value, target)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size != int(np.prod(shape, dtype=np.int64)):
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                f"(converted from {value!r}) has {array.size} elements, but got `shape` {shape} "
                f"with {int(np.prod(shape, dtype=np.int64))} elements)."
            )
        else:
            array = array.reshape(shape)
    return array


def _nest(value):
    """(shape, leaves) of a nest of Python sequences, TensorFlow's ValueError when it is not
    rectangular."""
    if isinstance(value, (str, bytes, np.ndarray, np.generic)) or not (
        hasattr(value, "__len__") and hasattr(value, "__getitem__")
    ):
        return (), [value]
    if type(value) in (list, tuple):
        items = list(value)
    else:
        try:
            items = [value[i] for i in range(len(value))]
        except ValueError as e:  # a negative __len__, as TensorFlow reports it
            raise ValueError(f"{type(e).__name__}: {e}\n") from None
    if set(map(type, items)) <= _PLAIN:  # a row of plain values (the common case): no recursion
        return (len(items),), items
    parts = [_nest(v) for v in items]
    shapes = {p[0] for p in parts}
    if len(shapes) > 1:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    inner = shapes.pop() if parts else ()
    return (len(items), *inner), [leaf for p in parts for leaf in p[1]]


# Python values that are leaves of a nest whatever they hold.
_PLAIN = frozenset({bool, int, float, complex, str, bytes})


def _kind(leaf):
    if isinstance(leaf, (bool, np.bool_)):
        return "bool"
    if isinstance(leaf, (str, bytes)):
        return "string"
    if isinstance(leaf, np.generic):
        return "numpy"
    for kind in (int, float, complex):
        if isinstance(leaf, kind):
            return kind.__name__
    raise ValueError(
        f"Attempt to convert a value ({leaf!r}) with an unsupported type ({type(leaf)}) to a "
        "Tensor."
    )


_OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."


def _from_python(value, target):
    """constant() of a Python value (a scalar or a nest of sequences): TensorFlow's rules."""
    shape, leaves = _nest(value)
    # One leaf of each type tells that type's kind (a pass in C, not a call per leaf).
    kinds = {_kind(next(v for v in leaves if type(v) is t)) for t in set(map(type, leaves))}
    if "numpy" in kinds:  # numpy scalars in a list: numpy's rules, as for arrays
        return np.array(value, dtype=target)
    if len(kinds) > 1 and (kinds & {"string", "bool"}):
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    kind = next((k for k in ("string", "bool", "complex", "float", "int") if k in kinds), None)
    if target is None:
        target = _default_dtype(kind, leaves)
    if kind is not None and not _takes(target, kind):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {tf_type_name(target)}")
    if kind == "string":
        array = np.empty(len(leaves), dtype=object)
        array[:] = [s.encode() if isinstance(s, str) else s for s in leaves]
        return array.reshape(shape)
    if kind == "int":
        leaves = _checked_ints(leaves, target)
    with np.errstate(over="ignore"):  # a float beyond float32 is inf, as in TensorFlow
        return np.array(leaves, dtype=target).reshape(shape)


def _default_dtype(kind, leaves):
    if kind is None or kind == "float":  # an empty nest is float32, as in TensorFlow
        return np.dtype(np.float32)
    if kind == "int":
        if not leaves or (min(leaves) >= -(2**31) and max(leaves) < 2**31):
            return np.dtype(np.int32)
        return np.dtype(np.int64)
    return np.dtype({"string": object, "bool": np.bool_, "complex": np.complex128}[kind])


def _takes(target, kind):
    """Whether a dtype holds Python values of `kind` exactly."""
    if target == np.dtype(object):
        return kind == "string"
    if kind == "string":
        return False
    if target.kind == "b":
        return kind == "bool"
    if target.kind in "iu":
        return kind in ("int", "bool")
    if target.kind == "f" or target.name == "bfloat16":
        return kind in ("int", "bool", "float")
    return True  # complex


def _checked_ints(leaves, target):
    """Python ints as numpy takes them for `target`: within int64 (uint64's range for uint64;
    within float's range for a float dtype), narrower integer dtypes wrapping as in TensorFlow."""
    if target.kind == "f" or target.name == "bfloat16":
        try:
            return [float(v) for v in leaves]
        except OverflowError:
            raise ValueError(_OUT_OF_RANGE) from None
    low, high = (0, 2**64) if target == np.uint64 else (-(2**63), 2**63)
    if leaves and (min(leaves) < low or max(leaves) >= high):
        raise ValueError(_OUT_OF_RANGE)
    if target.kind in "iu" and target.itemsize < 8:
        wide = np.array(leaves, dtype=np.int64)
        return wide.astype(target)
    return leaves


def convert_to_tensor(
    value: Any, dtype: DTypeLike | None = None, name: str | None = None
) -> np.ndarray:
    """tf.convert_to_tensor: an array as it is (no copy) when it has `dtype` (or none is
    asked), else a new one, converted as :func:`constant` converts.

    Args:
        value: an array or Python value.
        dtype: the dtype wanted; None: any.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        TypeError: the value cannot be converted to dtype exactly.
    """
    del name
    if isinstance(value, np.ndarray) and (dtype is None or value.dtype == np.dtype(dtype)):
        return value
    return constant(value, dtype)


class SparseTensor:
    """A sparse array: ``values[i]`` sits at ``indices[i]`` in an array of ``dense_shape``.

    Attributes:
      indices: int64 array ``[nnz, rank]``, in row-major order.
      values: array ``[nnz]`` (int64, float32, or object holding bytes).
      dense_shape: int64 array ``[rank]``.

    Args:
        indices: the indices, [nnz, rank].
        values: the values, [nnz].
        dense_shape: the dense shape, [rank].
    """

    __slots__ = ("dense_shape", "indices", "values")

    def __init__(self, indices: ArrayLike, values: ArrayLike, dense_shape: ArrayLike) -> None:
        self.indices: np.ndarray = np.asarray(indices, dtype=np.int64)
        self.values: np.ndarray = np.asarray(values)
        self.dense_shape: np.ndarray = np.asarray(dense_shape, dtype=np.int64)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.dense_shape)

    def to_dense(self, default_value: Any = None) -> np.ndarray:
        """A dense numpy array, ``default_value`` (0 or b"" by default) where nothing is stored.

        Raises:
          InvalidArgumentError: an index outside ``dense_shape`` (TensorFlow's message).

        Args:
            default_value: the value where nothing is stored.

        Returns:
            A numpy array of dense_shape.
        """
        if default_value is None:
            default_value = b"" if self.values.dtype == object else 0
        dense = np.full(self.shape, default_value, dtype=self.values.dtype)
        if len(self.values):
            outside = np.any((self.indices < 0) | (self.indices >= self.dense_shape), axis=1)
            if np.any(outside):
                i = int(np.flatnonzero(outside)[0])
                raise errors.InvalidArgumentError(
                    f"indices[{i}] = [{','.join(map(str, self.indices[i]))}] is out of bounds: "
                    f"need 0 <= index < [{','.join(map(str, self.dense_shape))}]"
                )
            dense[tuple(self.indices.T)] = self.values
        return dense

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={self.indices.tolist()}, values={self.values.tolist()}, "
            f"dense_shape={self.dense_shape.tolist()})"
        )


class RaggedTensor:
    """Rows of different lengths: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.

    Attributes:
      values: all rows' values back to back: an array (whose dimensions after the first are
        uniform ones), or another RaggedTensor for more ragged dimensions (as
        parse_sequence_example returns: examples, then steps).
      row_splits: int64 (or int32) array ``[nrows + 1]``, starting at 0.
      uniform_row_length: None, or the length every row has (a uniform dimension over ragged
        ones, as ``tf.RaggedTensor.from_uniform_row_length`` makes).

    Args:
        values: the rows' values back to back (an array or a RaggedTensor).
        row_splits: the rows' boundaries, [nrows + 1].
        uniform_row_length: None, or the length every row has.
    """

    __slots__ = ("row_splits", "uniform_row_length", "values")

    def __init__(
        self,
        values: ArrayLike | RaggedTensor,
        row_splits: ArrayLike,
        uniform_row_length: int | None = None,
    ) -> None:
        self.values: np.ndarray | RaggedTensor = (
            values if isinstance(values, RaggedTensor) else np.asarray(values)
        )
        splits = np.asarray(row_splits)
        if splits.dtype not in (np.int32, np.int64):
            splits = splits.astype(np.int64)
        self.row_splits: np.ndarray = splits
        self.uniform_row_length: int | None = uniform_row_length

    @classmethod
    def from_row_lengths(
        cls, values: ArrayLike | RaggedTensor, row_lengths: ArrayLike
    ) -> RaggedTensor:
        """Rows of the lengths given, taken from `values` in turn.

        Args:
            values: the rows' values back to back.
            row_lengths: each row's length.

        Returns:
            A RaggedTensor.
        """
        splits = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        np.cumsum(row_lengths, out=splits[1:])
        return cls(values, splits)

    @classmethod
    def from_uniform_row_length(
        cls, values: ArrayLike | RaggedTensor, uniform_row_length: int
    ) -> RaggedTensor:
        """Rows of ``uniform_row_length`` values each (``len(values)`` must be a multiple).

        Args:
            values: the rows' values back to back.
            uniform_row_length: each row's length.

        Returns:
            A RaggedTensor.
        """
        nvals = len(values)
        if uniform_row_length <= 0 or nvals % uniform_row_length:
            raise ValueError(f"{nvals} values do not make rows of {uniform_row_length}")
        splits = np.arange(0, nvals + 1, uniform_row_length, dtype=np.int64)
        return cls(values, splits, uniform_row_length)

    @property
    def flat_values(self) -> np.ndarray:
        """The innermost values array."""
        return self.values.flat_values if isinstance(self.values, RaggedTensor) else self.values

    @property
    def nested_row_splits(self) -> tuple[np.ndarray, ...]:
        """The row_splits of every ragged dimension, outermost first."""
        inner = self.values.nested_row_splits if isinstance(self.values, RaggedTensor) else ()
        return (self.row_splits, *inner)

    def __len__(self) -> int:
        return len(self.row_splits) - 1

    @property
    def shape(self) -> tuple[int | None, ...]:
        """``(nrows, row length or None, *inner)``, None where a dimension is ragged."""
        return (len(self), self.uniform_row_length, *self.values.shape[1:])

    def __getitem__(self, row: int) -> np.ndarray | RaggedTensor:
        start, stop = self.row_splits[row], self.row_splits[row + 1]
        if isinstance(self.values, RaggedTensor):
            return RaggedTensor._slice(self.values, start, stop)
        return self.values[start:stop]

    @staticmethod
    def _slice(ragged, start, stop):
        """Rows [start, stop) of `ragged` as a RaggedTensor of their own."""
        splits = ragged.row_splits[start : stop + 1]
        base = splits[0]
        if isinstance(ragged.values, RaggedTensor):
            values = RaggedTensor._slice(ragged.values, base, splits[-1])
        else:
            values = ragged.values[base : splits[-1]]
        return RaggedTensor(values, splits - base, ragged.uniform_row_length)

    def to_list(self) -> list[Any]:
        """The rows as nested Python lists."""
        rows = (self[i] for i in range(len(self)))
        return [r.to_list() if isinstance(r, RaggedTensor) else r.tolist() for r in rows]

    def __repr__(self) -> str:
        return f"RaggedTensor({self.to_list()})"
