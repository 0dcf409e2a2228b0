"""Feature specs and their codec: tf.io's spec classes, the native parser's specs made from them,
and the parser's (values, counts) assembled into TensorFlow's results. Used by swigflow.io's
parse functions and by swigflow.data's native pipeline alike.
"""

from __future__ import annotations

import math
import operator
import typing
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import ragged_partitions
from swigflow.tensors import RaggedTensor, SparseTensor

# Feature kinds as the native codec numbers them (swigflow::example::Feature::Kind).
NONE = _pywrap.Feature.Kind_kNone
BYTES = _pywrap.Feature.Kind_kBytes
FLOAT = _pywrap.Feature.Kind_kFloat
INT64 = _pywrap.Feature.Kind_kInt64
KIND_OF_DTYPE = {"string": BYTES, "float32": FLOAT, "int64": INT64}
TF_TYPE_NAME = {BYTES: "string", FLOAT: "float", INT64: "int64"}  # TensorFlow's, by kind
NUMPY_DTYPE: dict[str, np.dtype] = {
    "string": np.dtype(object),
    "float32": np.dtype(np.float32),
    "int64": np.dtype(np.int64),
}
ZERO_OF_DTYPE: dict[str, Any] = {"string": b"", "float32": 0.0, "int64": 0}


def tf_type_name(dtype: Any) -> str:
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


def _dimension(d):
    if d is None:
        return None
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got {d!r}"
        ) from None
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


def _shape(shape):
    """A spec shape as a tuple of ints (None where TensorFlow allows an unknown dimension until
    parse time, and None for no shape): whole numbers only (a float dimension is a TypeError, as
    in TensorFlow), non-negative, and with a product that int64 holds."""
    if shape is None:
        return None
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dims = tuple(_dimension(d) for d in dims)
    if None not in dims and math.prod(dims) > _INT64_MAX:
        raise errors.InvalidArgumentError(
            f"shape {dims} has more elements than int64 can count ({math.prod(dims)})"
        )
    return dims


def _utf8(value):
    """A string spec's default with str values as their UTF-8 bytes (a tf.string's)."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):
        return [_utf8(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "UO":
        return np.vectorize(_utf8, otypes=[object])(value) if value.size else value.astype(object)
    return value


def _default_values(spec):
    """A FixedLenFeature's default as a flat list in its dtype, checked: an int64 feature takes
    whole numbers only (no silent truncation of 1.5)."""
    if spec.dtype == "string":  # an object array: an "S" array would drop trailing NULs
        default = _utf8(spec.default_value)
        value = np.empty(np.shape(default), dtype=object)
        value[...] = default
    else:
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


class FixedLenFeature(
    typing.NamedTuple("FixedLenFeature", [("shape", Any), ("dtype", Any), ("default_value", Any)])
):
    """A feature with exactly ``prod(shape)`` values in every example (``tf.io.FixedLenFeature``).

    A missing feature takes ``default_value``, reshaped to ``shape`` as TensorFlow does (it must
    hold exactly ``prod(shape)`` values: ``[1, 2, 3, 4]`` for shape ``(2, 2)``, never a scalar
    broadcast); without one it is an error. A shape with None dimensions is refused when parsing,
    with TensorFlow's messages.

    Args:
        shape: the values' shape (a list of ints).
        dtype: "int64", "float32" or "string" (or numpy's dtypes of those).
        default_value: the value of a missing feature; None: missing is an error.
    """

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, _shape(shape), _dtype_name(dtype), default_value)


class VarLenFeature(typing.NamedTuple("VarLenFeature", [("dtype", Any)])):
    """Any number of values per example, parsed into a SparseTensor (``tf.io.VarLenFeature``).

    Args:
        dtype: "int64", "float32" or "string".
    """

    def __new__(cls, dtype: Any) -> VarLenFeature:
        return super().__new__(cls, _dtype_name(dtype))


class FixedLenSequenceFeature(
    typing.NamedTuple(
        "FixedLenSequenceFeature",
        [("shape", Any), ("dtype", Any), ("allow_missing", Any), ("default_value", Any)],
    )
):
    """A whole number of ``shape``-sized rows per example, padded to the longest example
    (``tf.io.FixedLenSequenceFeature``). In parse_example it needs ``allow_missing=True``.
    ``default_value`` is the padding: one value (a scalar or a one-element list).

    Args:
        shape: the shape of one row.
        dtype: "int64", "float32" or "string".
        allow_missing: let examples without the feature have no rows.
        default_value: the padding value.
    """

    def __new__(
        cls, shape: Any, dtype: Any, allow_missing: bool = False, default_value: Any = None
    ) -> FixedLenSequenceFeature:
        dims = _shape(shape)
        if dims is not None and 0 in dims:  # a row of no values cannot count rows
            raise ValueError(
                f"FixedLenSequenceFeature dimensions must be positive, got {list(dims)}"
            )
        return super().__new__(cls, dims, _dtype_name(dtype), allow_missing, default_value)


def padding_value(spec: Any) -> Any:
    """A FixedLenSequenceFeature's padding value: TensorFlow reshapes the default to one value."""
    if spec.default_value is None:
        return ZERO_OF_DTYPE[spec.dtype]
    default = _utf8(spec.default_value) if spec.dtype == "string" else spec.default_value
    value = np.asarray(default, dtype=NUMPY_DTYPE[spec.dtype])
    if value.size != 1:
        raise ValueError(
            f"Cannot reshape a tensor with {value.size} elements to shape [] (1 elements): "
            f"the default_value of a FixedLenSequenceFeature is one padding value"
        )
    return value.ravel()[0]


class RaggedFeature(
    typing.NamedTuple(
        "RaggedFeature",
        [
            ("dtype", Any),
            ("value_key", Any),
            ("partitions", Any),
            ("row_splits_dtype", Any),
            ("validate", Any),
        ],
    )
):
    """Any number of values per example, parsed into a RaggedTensor (``tf.io.RaggedFeature``).

    ``value_key`` reads another key than the result's. ``partitions`` (outermost first) split
    each example's values into nested rows, each read from an int64 feature of the example
    (``RaggedFeature.RowSplits(key)``, ``RowLengths``, ``RowStarts``, ``RowLimits``,
    ``ValueRowIds``) or fixed (``UniformRowLength(length)``). The partitions are always checked
    against the values (InvalidArgumentError "Feature rt: values and partitions are not
    aligned"), so ``validate`` is accepted for TensorFlow's sake only. ``row_splits_dtype``
    (int32, TensorFlow's default, or int64) is the dtype of the results' row splits.

    Args:
        dtype: "int64", "float32" or "string".
        value_key: the key the values are read from; None: the result's key.
        partitions: the row partitions, outermost first.
        row_splits_dtype: "int32" or "int64".
        validate: accepted for TensorFlow's sake; partitions are always checked.
    """

    RowSplits: ClassVar[type[ragged_partitions.RowSplits]] = ragged_partitions.RowSplits
    RowLengths: ClassVar[type[ragged_partitions.RowLengths]] = ragged_partitions.RowLengths
    RowStarts: ClassVar[type[ragged_partitions.RowStarts]] = ragged_partitions.RowStarts
    RowLimits: ClassVar[type[ragged_partitions.RowLimits]] = ragged_partitions.RowLimits
    ValueRowIds: ClassVar[type[ragged_partitions.ValueRowIds]] = ragged_partitions.ValueRowIds
    UniformRowLength: ClassVar[type[ragged_partitions.UniformRowLength]] = (
        ragged_partitions.UniformRowLength
    )

    def __new__(
        cls,
        dtype: Any,
        value_key: str | None = None,
        partitions: Sequence[Any] = (),
        row_splits_dtype: Any = "int32",
        validate: bool = False,
    ) -> RaggedFeature:
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key!r}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        partitions = tuple(ragged_partitions.check_partition(p) for p in partitions)
        try:
            splits_dtype = np.dtype(row_splits_dtype)
        except TypeError:
            splits_dtype = None
        if splits_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise ValueError(
                f"Argument `row_splits_dtype` must be int32 or int64; got {row_splits_dtype!r}"
            )
        return super().__new__(
            cls, _dtype_name(dtype), value_key, partitions, splits_dtype.name, bool(validate)
        )


class SparseFeature(
    typing.NamedTuple(
        "SparseFeature",
        [
            ("index_key", Any),
            ("value_key", Any),
            ("dtype", Any),
            ("size", Any),
            ("already_sorted", Any),
        ],
    )
):
    """A SparseTensor assembled from an index feature per dimension and a value feature
    (``tf.io.SparseFeature``): value ``i`` of an example sits at ``[example, idx0[i], idx1[i],
    ...]`` of a ``[batch, *size]`` SparseTensor.

    ``index_key`` is a key, or a list of keys (one per dimension); ``size`` is then an int, or a
    list of as many. Indices are sorted in row-major order unless ``already_sorted``. Each
    example needs as many indices in every index feature as it has values
    (InvalidArgumentError otherwise). As in TensorFlow, indices are not checked against
    ``size``; ``SparseTensor.to_dense`` refuses one outside it.

    Args:
        index_key: the index feature's key, or a list of keys (one per dimension).
        value_key: the value feature's key.
        dtype: "int64", "float32" or "string".
        size: the dense size: an int, or a list of as many as index keys.
        already_sorted: the indices are already in row-major order.
    """

    def __new__(
        cls,
        index_key: str | Sequence[str],
        value_key: str | None,
        dtype: Any,
        size: int,
        already_sorted: bool = False,
    ) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, _dtype_name(dtype), size, already_sorted)

    def index_keys(self) -> tuple[str, ...]:
        """The index keys as a tuple, one per dimension."""
        return (self.index_key,) if isinstance(self.index_key, str) else tuple(self.index_key)

    def sizes(self) -> tuple[int, ...]:
        """The dense sizes as a tuple, one per index key."""
        return (self.size,) if isinstance(self.index_key, str) else tuple(self.size)


def _check_sparse_feature(spec):
    if not spec.index_key:
        raise ValueError(f"Missing index_key for SparseFeature {spec}.")
    if not spec.value_key:
        raise ValueError(f"Missing value_key for SparseFeature {spec}.")
    keys = spec.index_keys()
    if not all(isinstance(k, str) and k for k in keys):
        raise ValueError(f"SparseFeature index keys must be non-empty strings, got {keys!r}")
    single = isinstance(spec.index_key, str)
    sizes = spec.size
    if single and (isinstance(sizes, bool) or not isinstance(sizes, (int, np.integer))):
        raise TypeError(f"vocab_size has to be a Python int. Found {type(sizes)}")
    if not single:
        if not isinstance(sizes, (list, tuple)):
            raise TypeError(f"vocab_size has to be a list of Python ints. Found {type(sizes)}")
        if len(sizes) != len(keys):
            raise ValueError(f"SparseFeature has {len(keys)} index keys but {len(sizes)} sizes")
    for size in spec.sizes():
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"SparseFeature sizes must be non-negative ints, got {spec.size!r}")


def check_shape(key: str, spec: Any) -> None:
    """TensorFlow's parse-time checks of a dense spec's shape."""
    shape = spec.shape
    if isinstance(spec, FixedLenFeature):
        if shape is None:
            raise ValueError(f"Missing shape for feature {key}.")
        if shape and shape[0] is None and None not in shape[1:]:
            raise ValueError(
                f"First dimension of shape for feature {key} unknown. Consider using "
                "FixedLenSequenceFeature."
            )
    elif shape is None:
        raise ValueError(f"Missing shape for feature {key}.")
    if None in shape:
        raise ValueError(
            f"All dimensions of shape for feature {key} need to be known but received "
            f"{tuple(shape)}."
        )


_SPEC_TYPES = (
    FixedLenFeature,
    VarLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
)


def check_features(features: Any) -> None:
    """ValueError/TypeError, with TensorFlow's messages, for a features dict parse_example
    cannot take."""
    ParsePlan(features)


def _sparse(values, counts, batch):
    rows = np.repeat(np.arange(batch, dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    cols = np.arange(len(values), dtype=np.int64) - np.repeat(starts, counts)
    return SparseTensor(np.stack([rows, cols], axis=1), values, [batch, int(counts.max(initial=0))])


def _sparse_feature(key, spec, indices, values, batch):
    """A SparseFeature's SparseTensor from its index reads and its value read."""
    values, counts = values
    columns = []
    for index_key, (index, index_counts) in zip(spec.index_keys(), indices):
        if not np.array_equal(index_counts, counts):
            example = int(np.flatnonzero(index_counts != counts)[0])
            raise errors.InvalidArgumentError(
                f"Feature {key}: example {example} has {index_counts[example]} values in "
                f"{index_key} but {counts[example]} in {spec.value_key}; a SparseFeature needs "
                "one index per value"
            )
        columns.append(index)  # not checked against size, as in TensorFlow (to_dense checks)
    rows = np.repeat(np.arange(batch, dtype=np.int64), counts)
    indices = np.stack([rows, *columns], axis=1).astype(np.int64).reshape(-1, 1 + len(columns))
    if not spec.already_sorted:  # row-major order, equal indices kept in their order
        order = np.lexsort(indices.T[::-1])
        indices, values = indices[order], values[order]
    return SparseTensor(indices, values, [batch, *spec.sizes()])


def _ragged(key, spec, values, partitions, batch):
    values, counts = values
    result, rows = ragged_partitions.partitioned(key, spec.partitions, values, counts, partitions)
    ragged = RaggedTensor.from_row_lengths(result, rows)
    return ragged_partitions.with_splits_dtype(ragged, np.dtype(spec.row_splits_dtype))


def _sequence(spec, padding, values, counts, batch):
    row_size = math.prod(spec.shape)
    rows = counts // row_size if row_size else np.zeros_like(counts)
    out = np.full(
        (batch, int(rows.max(initial=0)), *spec.shape),
        padding,
        dtype=NUMPY_DTYPE[spec.dtype],
    )
    total = int(rows.sum())
    if total:
        example = np.repeat(np.arange(batch), rows)
        within = np.arange(total) - np.repeat(np.cumsum(rows) - rows, rows)
        out[example, within] = values.reshape(total, *spec.shape)
    return out


def _unique(keys):
    return list(dict.fromkeys(keys))


class ParsePlan:
    """How a features dict is parsed: the native parser's specs, and how each feature's result
    is made from what they return.

    Fixed-length and sequence features get a native spec each. Every other key is read raw (its
    values and a count per example) once, however many features use it: a VarLenFeature's key,
    a SparseFeature's index and value keys, a RaggedFeature's value and partition keys.
    TensorFlow's rules on keys hold: dense, sparse and ragged keys are disjoint, and a key is
    read with one dtype (ValueError otherwise, with TensorFlow's messages).
    """

    def __init__(self, features: Any) -> None:
        if not isinstance(features, dict) or not features:
            raise ValueError("features must be a non-empty dict of feature specs")
        self.features: dict[str, Any] = dict(features)
        # The extension's own handle of a new FeatureSpecVector (the flat functions take it).
        self.specs: Any = _pywrap.flat.new_FeatureSpecVector()
        self.count = 0  # specs appended
        self._dense = {}  # key -> native spec index
        self._raw = {}  # key -> (native spec index, dtype)
        self._builders = []  # (key, builder(parsed, batch))
        groups = {"dense": [], "sparse": [], "ragged": []}
        for key, spec in features.items():
            if not isinstance(spec, _SPEC_TYPES):
                raise TypeError(f"unsupported feature spec for {key!r}: {spec!r}")
            if isinstance(spec, (FixedLenFeature, FixedLenSequenceFeature)):
                builder = self._plan_dense(key, spec)
                groups["dense"].append(key)
            elif isinstance(spec, VarLenFeature):
                read = self._read(key, spec.dtype)
                builder = self._sparse_builder(read)
                groups["sparse"].append(key)
            elif isinstance(spec, SparseFeature):
                _check_sparse_feature(spec)
                indices = [self._read(k, "int64") for k in spec.index_keys()]
                value = self._read(spec.value_key, spec.dtype)
                builder = self._sparse_feature_builder(key, spec, indices, value)
                groups["sparse"] += [*spec.index_keys(), spec.value_key]
            else:
                value_key = spec.value_key or key
                value = self._read(value_key, spec.dtype)
                partitions = [
                    None if isinstance(p, RaggedFeature.UniformRowLength) else p.key
                    for p in spec.partitions
                ]
                reads = [None if k is None else self._read(k, "int64") for k in partitions]
                builder = self._ragged_builder(key, spec, value, reads)
                groups["ragged"] += [value_key, *(k for k in partitions if k is not None)]
            self._builders.append((key, builder))
        self._check_disjoint(groups)

    def _plan_dense(self, key, spec):
        check_shape(key, spec)
        sequence = isinstance(spec, FixedLenSequenceFeature)
        if sequence and not spec.allow_missing:
            raise ValueError(
                "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
            )
        defaults = None
        if not sequence and spec.default_value is not None:
            defaults = _default_values(spec)
        index = self._add(key, _SPEC_TYPE[type(spec)], spec.dtype, spec.shape, defaults)
        self._dense[key] = index
        if sequence:
            padding = padding_value(spec)  # checked once, here
            return lambda parsed, batch: _sequence(spec, padding, *parsed[index], batch)
        return lambda parsed, batch: parsed[index][0].reshape((batch, *spec.shape))

    def _read(self, key, dtype):
        """The native spec index reading `key` raw as `dtype`, shared by every feature."""
        if key in self._raw:
            index, known = self._raw[key]
            if known != dtype:
                raise ValueError(
                    f"Conflicting type <dtype: '{dtype}'> vs <dtype: '{known}'> for feature {key}."
                )
            return index
        index = self._add(key, _SPEC_TYPE[VarLenFeature], dtype)
        self._raw[key] = (index, dtype)
        return index

    def _add(self, key, spec_type, dtype, shape=(), defaults=None):
        """Appends a native FeatureSpec (a plan is made on every parse_example call: one native
        call per feature); its index."""
        kind = KIND_OF_DTYPE[dtype]
        if defaults is None:
            _pywrap.AppendFeatureSpec(self.specs, key, spec_type, kind, list(shape))
        else:  # the default's field by name, through the extension's own setters
            flat = _pywrap.flat
            native = flat.new_FeatureSpec()
            flat.FeatureSpec_key_set(native, key)
            flat.FeatureSpec_type_set(native, spec_type)
            flat.FeatureSpec_dtype_set(native, kind)
            flat.FeatureSpec_SetShape(native, list(shape))
            flat.FeatureSpec_has_default_set(native, True)
            setter = {"string": "bytes", "float32": "float"}.get(dtype, "int64")
            getattr(flat, f"FeatureSpec_default_{setter}_set")(native, defaults)
            flat.FeatureSpecVector_append(self.specs, native)
        self.count += 1
        return self.count - 1

    @staticmethod
    def _sparse_builder(index):
        return lambda parsed, batch: _sparse(*parsed[index], batch)

    @staticmethod
    def _sparse_feature_builder(key, spec, indices, value):
        return lambda parsed, batch: _sparse_feature(
            key, spec, [parsed[i] for i in indices], parsed[value], batch
        )

    @staticmethod
    def _ragged_builder(key, spec, value, reads):
        return lambda parsed, batch: _ragged(
            key, spec, parsed[value], [None if i is None else parsed[i] for i in reads], batch
        )

    @staticmethod
    def _check_disjoint(groups):
        dense, sparse, ragged = (_unique(groups[g]) for g in ("dense", "sparse", "ragged"))
        for (name_a, a), (name_b, b) in (
            (("Dense", dense), ("sparse", sparse)),
            (("Dense", dense), ("ragged", ragged)),
            (("Ragged", ragged), ("sparse", sparse)),
        ):
            both = set(a) & set(b)
            if both:
                raise ValueError(
                    f"{name_a} and {name_b} keys must not intersect; {name_a.lower()}_keys: {a}, "
                    f"{name_b}_keys: {b}, intersection: {both}"
                )

    def dense_index(self, key: str) -> int:
        """The native spec index of a fixed-length feature."""
        return self._dense[key]

    def raw_index(self, key: str) -> int:
        """The native spec index that reads `key` raw ((values, counts) per example): a
        VarLenFeature's or RaggedFeature's key."""
        return self._raw[key][0]

    def assemble(self, parsed: Any, batch: Any, passthrough: Any = None) -> dict[str, Any]:
        """``{key: result}`` for a batch of `batch` examples from the native parser's output
        (one (values, counts) per spec): arrays, SparseTensors and RaggedTensors, as
        tf.io.parse_example's. The `passthrough` feature's native output is taken as it is
        (the pipeline's decoded images)."""
        return {
            key: parsed[self._dense[key]] if key == passthrough else build(parsed, batch)
            for key, build in self._builders
        }


# swigflow::example::FeatureSpec::Type of the natively parsed spec classes.
_SPEC_TYPE = {
    FixedLenFeature: _pywrap.FeatureSpec.Type_kFixedLen,
    VarLenFeature: _pywrap.FeatureSpec.Type_kVarLen,
    FixedLenSequenceFeature: _pywrap.FeatureSpec.Type_kFixedLenSequence,
}


def drop_batch_dimension(value: Any) -> Any:
    """The result for one example out of a batch-of-one result: arrays lose their first
    dimension, SparseTensors their first index column, RaggedTensors their outer level."""
    if isinstance(value, SparseTensor):
        return SparseTensor(value.indices[:, 1:], value.values, value.dense_shape[1:])
    if isinstance(value, RaggedTensor):
        return value.values
    return value[0]


def parsed_spec(features: Any, batch: Any) -> dict[str, Any]:
    """The element spec (swigflow.specs) of parse_example's result for `features`: a dict with
    a first dimension of `batch` rows (an int, or None when unknown) in every value."""
    from swigflow.specs import RaggedTensorSpec, SparseTensorSpec, TensorSpec

    found = {}
    for key, spec in features.items():
        dtype = NUMPY_DTYPE[spec.dtype]
        if isinstance(spec, FixedLenFeature):
            found[key] = TensorSpec((batch, *spec.shape), dtype)
        elif isinstance(spec, FixedLenSequenceFeature):
            inner = (None,) if spec.shape is None else tuple(spec.shape)
            found[key] = TensorSpec((batch, None, *inner), dtype)
        elif isinstance(spec, VarLenFeature):
            found[key] = SparseTensorSpec((batch, None), dtype)
        elif isinstance(spec, SparseFeature):
            found[key] = SparseTensorSpec((batch, *spec.sizes()), dtype)
        else:  # RaggedFeature: a ragged dimension per partition, and the values'
            levels = 1 + len(spec.partitions)
            shape = (batch,) + (None,) * levels
            found[key] = RaggedTensorSpec(shape, dtype, levels, spec.row_splits_dtype)
    return found
