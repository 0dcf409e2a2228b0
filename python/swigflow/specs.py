"""Type specs, as TensorFlow's: what a value is (its kind, dtype and shape, None where a
dimension is not known) without the value. A dataset's ``element_spec`` is a structure of them.

swigflow's values are numpy arrays, so a dtype here is a numpy dtype, and strings (arrays of
bytes objects) have ``np.dtype(object)``, printed ``string``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike


def as_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype from a numpy dtype-like or a TF-style name ("string", "tf.float32").

    Args:
        dtype: a numpy dtype-like, a TF-style name, or an object with as_numpy_dtype.

    Returns:
        A numpy dtype.

    Raises:
        TypeError: not a dtype.
    """
    if isinstance(dtype, str):
        name = dtype.removeprefix("tf.")
        dtype = object if name == "string" else name
    elif dtype in (str, bytes):
        dtype = object
    return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))


def dtype_name(dtype: np.dtype) -> str:
    """The dtype's name in specs and messages: numpy's, "string" for object arrays.

    Args:
        dtype: a numpy dtype.

    Returns:
        A str.
    """
    return "string" if dtype == np.dtype(object) else dtype.name


# The names TensorFlow's messages give dtypes where they differ from numpy's.
_TF_TYPE_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def tf_type_name(dtype: DTypeLike) -> str:
    """The name TensorFlow's messages give a dtype ("float", "double", "half", "string",
    "int32", ...).

    Args:
        dtype: a numpy dtype-like.

    Returns:
        A str.
    """
    name = dtype_name(np.dtype(dtype))
    return _TF_TYPE_NAMES.get(name, name)


class TensorShape:
    """A shape that may be partly known: a tuple of ints and None (an unknown dimension), or
    no tuple at all (``TensorShape(None)``: the rank is unknown too).

    Args:
        dims: an iterable of ints and None, a TensorShape, or None (rank unknown).
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[int | None] | TensorShape | None) -> None:
        if isinstance(dims, TensorShape):
            dims = dims._dims
        elif dims is not None:
            dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
            dims = tuple(None if d is None else _dimension(d) for d in dims)
        self._dims = dims

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    @property
    def dims(self) -> tuple[int | None, ...] | None:
        return self._dims

    def as_list(self) -> list[int | None]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def is_compatible_with(self, other: Any) -> bool:
        """Whether a value could have both shapes: unknown ranks or dimensions match anything.

        Args:
            other: a TensorShape or what TensorShape takes.

        Returns:
            True or False.
        """
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims)
        )

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape both are instances of: same rank, each dimension known
        only where both agree.

        Args:
            other: a TensorShape or what TensorShape takes.

        Returns:
            A TensorShape.
        """
        other = TensorShape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(a if a == b else None for a, b in zip(self._dims, other._dims))

    def concatenate(self, other: Any) -> TensorShape:
        """This shape's dimensions, then `other`'s (unknown if either rank is).

        Args:
            other: a TensorShape or what TensorShape takes.

        Returns:
            A TensorShape.
        """
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        return iter(self.as_list())

    def __getitem__(self, key: int | slice) -> Any:
        if self._dims is None:
            return None if isinstance(key, int) else TensorShape(None)
        found = self._dims[key]
        return TensorShape(found) if isinstance(key, slice) else found

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            other = TensorShape(other)
        return isinstance(other, TensorShape) and self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join(str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"


def _dimension(d):
    d = int(d)
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


class TypeSpec:
    """What every spec has: batching and unbatching (the spec of a batch of such values, and
    of a row of one) and a common supertype with another spec (None: none exists)."""

    __slots__ = ()

    def batch(self, batch_size: int | None) -> TypeSpec:
        """The spec of a batch of `batch_size` such values.

        Args:
            batch_size: the batch's size, or None when unknown.

        Returns:
            A TypeSpec.
        """
        raise NotImplementedError

    def unbatch(self) -> TypeSpec:
        raise NotImplementedError

    def most_specific_common_supertype(self, others: Iterable[TypeSpec]) -> TypeSpec | None:
        """The most specific spec every one of this and `others` is an instance of, or None.

        Args:
            others: a list of specs.

        Returns:
            A TypeSpec, or None.
        """
        found = self
        for other in others:
            found = found._merge(other) if found is not None else None
        return found

    def _merge(self, other: TypeSpec) -> TypeSpec | None:
        return self if self == other else None

    def is_compatible_with(self, other: TypeSpec) -> bool:
        """Whether a value could match both specs.

        Args:
            other: a TypeSpec.

        Returns:
            True or False.
        """
        return self._merge(other) is not None

    def __ne__(self, other: object) -> bool:
        return not self == other


class TensorSpec(TypeSpec):
    """A dense array: ``TensorSpec(shape, dtype=float32, name=None)``.

    Args:
        shape: the shape (ints and None).
        dtype: the dtype.
        name: an optional name.
    """

    __slots__ = ("dtype", "name", "shape")
    shape: TensorShape
    dtype: np.dtype
    name: str | None

    def __init__(self, shape: Any, dtype: DTypeLike = np.float32, name: str | None = None) -> None:
        self.shape = TensorShape(shape)
        self.dtype = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, value: Any, name: str | None = None) -> TensorSpec:
        """The spec of an array.

        Args:
            value: an array or Python value.
            name: an optional name.

        Returns:
            A TensorSpec.
        """
        value = np.asarray(value)
        return cls(value.shape, value.dtype, name)

    def batch(self, batch_size: int | None) -> TensorSpec:
        return TensorSpec(TensorShape([batch_size]).concatenate(self.shape), self.dtype)

    def unbatch(self) -> TensorSpec:
        if self.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(self.shape[1:], self.dtype)

    def _merge(self, other: TypeSpec) -> TypeSpec | None:
        if type(other) is not TensorSpec or other.dtype != self.dtype:
            return None
        return TensorSpec(self.shape.most_specific_compatible_shape(other.shape), self.dtype)

    def __eq__(self, other: object) -> bool:
        return type(other) is TensorSpec and (self.shape, self.dtype, self.name) == (
            other.shape,
            other.dtype,
            other.name,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={dtype_name(self.dtype)}, name={self.name!r})"


class SparseTensorSpec(TypeSpec):
    """A swigflow.SparseTensor: its dense shape and its values' dtype.

    Args:
        shape: the dense shape (ints and None), or None.
        dtype: the values' dtype.
    """

    __slots__ = ("dtype", "shape")
    shape: TensorShape
    dtype: np.dtype

    def __init__(self, shape: Any = None, dtype: DTypeLike = np.float32) -> None:
        self.shape = TensorShape(shape)
        self.dtype = as_dtype(dtype)

    def batch(self, batch_size: int | None) -> SparseTensorSpec:
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self.shape), self.dtype)

    def unbatch(self) -> SparseTensorSpec:
        if self.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return SparseTensorSpec(self.shape[1:], self.dtype)

    def _merge(self, other: TypeSpec) -> TypeSpec | None:
        if type(other) is not SparseTensorSpec or other.dtype != self.dtype:
            return None
        return SparseTensorSpec(self.shape.most_specific_compatible_shape(other.shape), self.dtype)

    def __eq__(self, other: object) -> bool:
        return type(other) is SparseTensorSpec and (self.shape, self.dtype) == (
            other.shape,
            other.dtype,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self.shape!r}, {dtype_name(self.dtype)})"


class RaggedTensorSpec(TypeSpec):
    """A swigflow.RaggedTensor: its shape (None for ragged dimensions), values dtype, number of
    ragged dimensions after the first (``ragged_rank``, rank - 1 by default) and row_splits
    dtype. A ragged_rank of 0 describes a dense array; swigflow's values then are numpy arrays.

    Args:
        shape: the shape, None for ragged or unknown dimensions.
        dtype: the values' dtype.
        ragged_rank: the number of ragged dimensions after the first; None: rank - 1.
        row_splits_dtype: int64 or int32.
    """

    __slots__ = ("dtype", "ragged_rank", "row_splits_dtype", "shape")
    shape: TensorShape
    dtype: np.dtype
    ragged_rank: int
    row_splits_dtype: np.dtype

    def __init__(
        self,
        shape: Any = None,
        dtype: DTypeLike = np.float32,
        ragged_rank: int | None = None,
        row_splits_dtype: DTypeLike = np.int64,
    ) -> None:
        self.shape = TensorShape(shape)
        self.dtype = as_dtype(dtype)
        if ragged_rank is None:
            if self.shape.rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = self.shape.rank - 1
        self.ragged_rank = int(ragged_rank)
        if self.shape.rank is not None and not 0 <= self.ragged_rank < max(self.shape.rank, 1):
            raise ValueError(
                f"ragged_rank must be non-negative and less than the rank, got {ragged_rank}"
            )
        self.row_splits_dtype = as_dtype(row_splits_dtype)

    def batch(self, batch_size: int | None) -> RaggedTensorSpec:
        shape = TensorShape([batch_size]).concatenate(self.shape)
        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank + 1, self.row_splits_dtype)

    def unbatch(self) -> RaggedTensorSpec:
        if self.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        if self.ragged_rank == 1:  # rows of a ragged_rank 1 value are dense arrays
            return TensorSpec(self.shape[1:], self.dtype)
        shape = self.shape[1:]
        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank - 1, self.row_splits_dtype)

    def _key(self) -> tuple[Any, ...]:
        return (self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    def _merge(self, other: TypeSpec) -> TypeSpec | None:
        if type(other) is not RaggedTensorSpec or other._key()[1:] != self._key()[1:]:
            return None
        shape = self.shape.most_specific_compatible_shape(other.shape)
        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    def __eq__(self, other: object) -> bool:
        return type(other) is RaggedTensorSpec and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"RaggedTensorSpec({self.shape!r}, {dtype_name(self.dtype)}, {self.ragged_rank}, "
            f"{dtype_name(self.row_splits_dtype)})"
        )


class NoneTensorSpec(TypeSpec):
    """A None component (tf.data keeps None in an element)."""

    __slots__ = ()

    def batch(self, batch_size: int | None) -> NoneTensorSpec:
        return self

    def unbatch(self) -> NoneTensorSpec:
        return self

    def __eq__(self, other: object) -> bool:
        return type(other) is NoneTensorSpec

    def __hash__(self) -> int:
        return hash(NoneTensorSpec)

    def __repr__(self) -> str:
        return "NoneTensorSpec()"


class DatasetSpec(TypeSpec):
    """A dataset as a component (window() elements): its element_spec.

    Args:
        element_spec: the inner dataset's element spec.
        dataset_shape: the shape of the datasets' batch (() for one dataset).
    """

    __slots__ = ("dataset_shape", "element_spec")
    element_spec: Any
    dataset_shape: TensorShape

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec = element_spec
        self.dataset_shape = TensorShape(dataset_shape)

    def batch(self, batch_size: int | None) -> DatasetSpec:
        shape = TensorShape([batch_size]).concatenate(self.dataset_shape)
        return DatasetSpec(self.element_spec, shape)

    def unbatch(self) -> TypeSpec:
        return DatasetSpec(self.element_spec, self.dataset_shape[1:])

    def __eq__(self, other: object) -> bool:
        return type(other) is DatasetSpec and (self.element_spec, self.dataset_shape) == (
            other.element_spec,
            other.dataset_shape,
        )

    def __hash__(self) -> int:
        return hash(self.dataset_shape)

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.dataset_shape!r})"


class UnknownSpec(TypeSpec):
    """An element (or component) whose structure, dtypes and shapes only running the pipeline
    tells: what a Python function returns. TensorFlow traces functions into graphs to learn
    their outputs' specs; swigflow runs them on numpy values, so a step after map(),
    flat_map(), interleave(), scan() or a from_generator() without output_signature has an
    UnknownSpec, compatible with every spec. `made_by` names the step.

    Args:
        made_by: the name of the step whose outputs it describes.
    """

    __slots__ = ("made_by",)
    made_by: str

    def __init__(self, made_by: str) -> None:
        self.made_by = made_by

    def batch(self, batch_size: int | None) -> UnknownSpec:
        return self

    def unbatch(self) -> UnknownSpec:
        return self

    def _merge(self, other: TypeSpec) -> TypeSpec | None:
        return self

    def __eq__(self, other: object) -> bool:
        return type(other) is UnknownSpec and other.made_by == self.made_by

    def __hash__(self) -> int:
        return hash(self.made_by)

    def __repr__(self) -> str:
        return f"UnknownSpec(made_by={self.made_by!r})"


def to_json(spec: Any) -> Any:
    """A structure of specs as JSON-able values (what Dataset.save records; from_json reads
    it back): {"tensor": [shape, dtype]}, {"ragged": [shape, dtype, ragged_rank,
    row_splits_dtype]}, {"sparse": [shape, dtype]}, {"none": []}, {"dataset": spec},
    {"unknown": made_by}, {"dict": {...}} and {"tuple": [...]}; a shape is a list of ints and
    nulls, or null.

    Args:
        spec: a spec, or a dict / tuple of them.

    Returns:
        JSON-able values.
    """
    if isinstance(spec, dict):
        return {"dict": {k: to_json(v) for k, v in spec.items()}}
    if isinstance(spec, tuple):
        return {"tuple": [to_json(v) for v in spec]}
    shape = getattr(spec, "shape", None)
    dims = None if shape is None or shape.rank is None else shape.as_list()
    if type(spec) is TensorSpec:
        return {"tensor": [dims, dtype_name(spec.dtype)]}
    if type(spec) is RaggedTensorSpec:
        splits = dtype_name(spec.row_splits_dtype)
        return {"ragged": [dims, dtype_name(spec.dtype), spec.ragged_rank, splits]}
    if type(spec) is SparseTensorSpec:
        return {"sparse": [dims, dtype_name(spec.dtype)]}
    if type(spec) is NoneTensorSpec:
        return {"none": []}
    if type(spec) is DatasetSpec:
        return {"dataset": to_json(spec.element_spec)}
    if type(spec) is UnknownSpec:
        return {"unknown": spec.made_by}
    raise TypeError(f"not a spec: {spec!r}")


_FROM_JSON = {
    "tensor": lambda v: TensorSpec(*v),
    "ragged": lambda v: RaggedTensorSpec(*v),
    "sparse": lambda v: SparseTensorSpec(*v),
    "none": lambda v: NoneTensorSpec(),
    "dataset": lambda v: DatasetSpec(from_json(v)),
    "unknown": lambda v: UnknownSpec(str(v)),
    "dict": lambda v: {str(k): from_json(x) for k, x in v.items()},
    "tuple": lambda v: tuple(from_json(x) for x in v),
}


def from_json(value: Any) -> Any:
    """The specs to_json wrote; ValueError for anything else.

    Args:
        value: what to_json returned (after a JSON round trip).

    Returns:
        The spec structure.

    Raises:
        ValueError: anything to_json does not write.
    """
    try:
        ((kind, body),) = value.items()
        return _FROM_JSON[kind](body)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a spec written by to_json: {value!r}") from e
