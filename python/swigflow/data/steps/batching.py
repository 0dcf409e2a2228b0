"""batch, padded_batch, unbatch and rebatch."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.data.checks import INFINITE, UNKNOWN, state_fields
from swigflow.data.elements import (
    Failed,
    empty_rows,
    length_of,
    ragged_rows,
    slice_of,
    stack,
    stacked,
)
from swigflow.data.protocol import check_index, iterate
from swigflow.data.steps.base import Replayed, Unary
from swigflow.data.structure import (
    batched_spec,
    flat_specs,
    leading_dimensions,
    map_specs,
    pack_like,
    ragged_batched_spec,
    ragged_of,
    ragged_rank_for,
    row_splits_dtype_of,
    spec_of,
    unbatched_spec,
)
from swigflow.specs import RaggedTensorSpec, TensorShape, TensorSpec, UnknownSpec


class Batch(Unary):
    """batch(); subclasses change how a batch's elements become one (_combine)."""

    def __init__(self, input_dataset: Any, size: int, drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        self._size = size
        self._drop = drop_remainder

    def _stage_name(self):
        return f"batch({self._size})"

    def _generate(self, state, epoch):
        batch = []
        for element, position in iterate(self._input, state, epoch):
            if type(element) is Failed:  # as in tf.data: the error, and the partial batch is lost
                batch = []
                yield element, position
                continue
            batch.append(element)
            if len(batch) == self._size:
                yield self._combine(batch), position
                batch = []
        if batch and not self._drop:
            yield self._combine(batch), position

    def _combine(self, elements):
        return stacked(elements)

    def _batch_dimension(self):
        """The batches' first dimension in the spec: known when every batch is full."""
        return self._size if self._drop else None

    def _element_spec(self):
        return batched_spec(self._input.element_spec, self._batch_dimension())

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _get(self, index):
        check_index(self, index)
        start = index * self._size
        stop = min(start + self._size, self._input._cardinality())
        elements = [self._input._get(i) for i in range(start, stop)]
        failed = next((e for e in elements if type(e) is Failed), None)
        return failed if failed is not None else self._combine(elements)


def _rows(element):
    """The slices of a batched element along its first dimension."""
    if type(element) is Failed:
        return [element]
    return [slice_of(element, i) for i in range(length_of(element))]


class Unbatch(Unary):
    """Resuming re-reads the batch the state was in (the position before it is kept). With
    batches of a size the spec knows, the length is known and rows are read at random."""

    def __init__(self, input_dataset: Any) -> None:
        super().__init__(input_dataset)
        self.element_spec  # noqa: B018 - ValueError now for components that cannot unbatch

    def _element_spec(self):
        return unbatched_spec(self._input.element_spec)

    def _rows_per_element(self):
        spec = self._input.element_spec
        found = set() if isinstance(spec, UnknownSpec) else leading_dimensions(spec)
        return found.pop() if len(found) == 1 else None

    def _cardinality(self):
        n, rows = self._input._cardinality(), self._rows_per_element()
        if n == INFINITE or n == 0:
            return n
        return n * rows if n > 0 and rows is not None else UNKNOWN

    def _get(self, index):
        rows = self._rows_per_element()
        if rows is None:
            raise errors.FailedPreconditionError(
                "Random access of an UnbatchDataset needs batches of a known size (batch with "
                "drop_remainder=True)."
            )
        check_index(self, index)
        element = self._input._get(index // rows)
        return element if type(element) is Failed else slice_of(element, index % rows)

    def _generate(self, state, epoch):
        before, skip = (None, 0) if state is None else (state["before"], state["row"])
        for element, position in iterate(self._input, before, epoch):
            rows = _rows(element)
            for row in range(skip, len(rows)):
                done = row + 1 == len(rows)
                yield (
                    rows[row],
                    {"before": position if done else before, "row": 0 if done else row + 1},
                )
            skip = 0
            before = position

    def _check_state(self, state, where):
        if state is not None:
            before, _ = state_fields(state, where, before=None, row=0)
            self._input._check_state(before, f"{where}['before']")


def _pad_value(default, dtype):
    if default is not None:
        return default
    return b"" if dtype is object or dtype == np.dtype(object) else np.zeros((), dtype)[()]


def _shape_list(shape):
    """A padded shape as a list, -1 for the dimensions padded to the longest in the batch;
    raises as tf.data does for what is not a shape."""
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    dims = list(shape)
    if any(isinstance(d, (list, tuple, np.ndarray)) for d in dims):
        raise ValueError(
            f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, but its shape was "
            f"{np.shape(shape)}."
        )
    for d in dims:
        if d is not None and not isinstance(d, (int, np.integer)):
            raise TypeError(
                f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, but its element "
                f"type was {np.asarray(d).dtype}."
            )
    dims = [-1 if d is None else int(d) for d in dims]
    if any(d < -1 for d in dims):
        raise errors.InvalidArgumentError(
            f"padded_batch: padded shape {dims} has a dimension below -1 (-1 pads to the longest "
            "element)"
        )
    return dims


def padded_shapes_of(shapes: Any) -> Any:
    """padded_shapes checked and normalized: a structure (dict or tuple) of shape lists or
    None (every dimension padded to the longest)."""
    if shapes is None:
        return None
    if isinstance(shapes, dict):
        return {k: padded_shapes_of(v) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(padded_shapes_of(v) for v in shapes)
    return _shape_list(shapes)


def _padded_component(values, shape, padding_value):
    arrays = [
        np.array(v, dtype=object) if isinstance(v, (bytes, str)) else np.asarray(v) for v in values
    ]
    ranks = {a.ndim for a in arrays}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            f"padded_batch: the elements of a batch have different ranks {sorted(ranks)}"
        )
    rank = ranks.pop()
    longest = [max(a.shape[d] for a in arrays) for d in range(rank)]
    if shape is None:
        target = longest
    else:
        if len(shape) != rank:
            raise ValueError(_incompatible(shape, TensorShape(arrays[0].shape)))
        if any(d >= 0 and n > d for d, n in zip(shape, longest)):
            raise errors.DataLossError("Attempted to pad to a smaller size than the input element.")
        target = [n if d < 0 else d for d, n in zip(shape, longest)]
    dtype = np.result_type(*arrays) if arrays[0].dtype != object else object
    out = np.full((len(arrays), *target), _pad_value(padding_value, dtype), dtype=dtype)
    for i, a in enumerate(arrays):
        out[(i, *(slice(0, n) for n in a.shape))] = a
    return out


def _padded(elements, shapes, values):
    first = elements[0]
    if isinstance(first, dict):
        return {
            k: _padded(
                [e[k] for e in elements],
                None if shapes is None else shapes[k],
                values[k] if isinstance(values, dict) else values,
            )
            for k in first
        }
    if isinstance(first, tuple):
        return tuple(
            _padded(
                [e[i] for e in elements],
                None if shapes is None else shapes[i],
                values[i] if isinstance(values, tuple) else values,
            )
            for i in range(len(first))
        )
    return _padded_component(elements, shapes, values)


def _incompatible(padded, shape):
    padded = TensorShape([None if d < 0 else d for d in padded])
    return (
        f"The padded shape {padded} is not compatible with the shape {shape} of the "
        "corresponding input component."
    )


def _padded_spec(spec, shapes, batch, index):
    """padded_batch()'s spec of a structure; ValueError, as tf.data's, for a padded shape
    that cannot hold its component or structures that differ. `index` counts components."""
    if isinstance(spec, UnknownSpec):
        return spec
    if isinstance(spec, (dict, tuple)):
        keys = list(spec) if isinstance(spec, dict) else range(len(spec))
        if isinstance(spec, dict):
            same = isinstance(shapes, dict) and set(shapes) == set(spec)
        else:
            same = isinstance(shapes, tuple) and len(shapes) == len(spec)
        if shapes is not None and not same:
            raise ValueError(
                f"padded_shapes {shapes!r} do not have the structure of the elements {spec!r}"
            )
        parts = [_padded_spec(spec[k], None if shapes is None else shapes[k], batch, index)
                 for k in keys]  # fmt: skip
        return dict(zip(keys, parts)) if isinstance(spec, dict) else pack_like(spec, parts)
    index[0] += 1
    if type(spec) is not TensorSpec:
        raise TypeError(f"padded_batch pads dense components only, got {spec!r}")
    if shapes is None:
        if spec.shape.rank is None:
            raise ValueError(
                "You must provide `padded_shapes` argument because component "
                f"{index[0] - 1} has unknown rank."
            )
        padded = spec.shape
    else:
        padded = TensorShape([None if d < 0 else d for d in shapes])
        known = spec.shape.rank is not None
        if known and (
            len(shapes) != spec.shape.rank
            or any(d >= 0 and n is not None and d < n for d, n in zip(shapes, spec.shape.dims))
        ):
            raise ValueError(_incompatible(shapes, spec.shape))
    return TensorSpec(TensorShape([batch]).concatenate(padded), spec.dtype)


def padded_batch_spec(spec: Any, padded_shapes: Any, batch: Any) -> Any:
    """The spec of padded_batch(padded_shapes) batches of elements of `spec`, `batch` rows
    (None: unknown); ValueError as padded_batch() raises it."""
    return _padded_spec(spec, padded_shapes_of(padded_shapes), batch, [0])


class PaddedBatch(Batch):
    """batch() with every component padded to its padded shape (-1 or None: the longest in the
    batch) with its padding value (0, False or b"" unless given)."""

    def __init__(
        self, input_dataset: Any, size: int, shapes: Any, values: Any, drop_remainder: bool
    ) -> None:
        super().__init__(input_dataset, size, drop_remainder)
        self._shapes, self._values = padded_shapes_of(shapes), values
        self.element_spec  # noqa: B018 - ValueError now for padded shapes that cannot fit

    def _element_spec(self):
        spec = self._input.element_spec
        return _padded_spec(spec, self._shapes, self._batch_dimension(), [0])

    def _stage_name(self):
        return f"padded_batch({self._size})"

    def _combine(self, elements):
        try:
            return _padded(elements, self._shapes, self._values)
        except (errors.OpError, ValueError) as e:
            return Failed(e)


class Rebatch(Replayed):
    """The input's rows (every element split along its first dimension) batched again, batch
    i of batch_sizes[i % len(batch_sizes)] rows. A batch of 0 rows is given as soon as the one
    before it is complete; a ragged component's batches stay ragged."""

    def __init__(self, input_dataset: Any, sizes: Any, drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        self._sizes, self._drop = sizes, drop_remainder
        self._static = self._static_batch_size()  # checks the input's structure too

    def _outputs(self, elements, epoch):
        sizes, spec = self._sizes, self._input.element_spec
        rows, turn, started = [], 0, False
        for element in elements:
            if type(element) is Failed:
                yield element
                continue
            if not started:  # batches of 0 rows before the first row
                started = True
                if isinstance(spec, UnknownSpec):  # after a Python function: the values say
                    spec = spec_of(element)
                while sizes[turn % len(sizes)] == 0:
                    yield empty_rows(element)
                    turn += 1
            for i in range(length_of(element)):
                rows.append(slice_of(element, i))
                if len(rows) == sizes[turn % len(sizes)]:
                    yield _rebatched(rows, spec)
                    rows, turn = [], turn + 1
                    while sizes[turn % len(sizes)] == 0:
                        yield empty_rows(element)
                        turn += 1
        if rows and not self._drop:
            yield _rebatched(rows, spec)

    def _static_batch_size(self):
        """tf.data's static batch dimension: the batch size when there is one and no batch can
        fall short (drop_remainder, or every component's known batch dimension a multiple of
        it), else None. ValueError with tf.data's words for scalar components or known batch
        dimensions that differ."""
        spec = self._input.element_spec
        if isinstance(spec, UnknownSpec):
            return None
        leading = []
        for s in flat_specs(spec):
            shape = getattr(s, "shape", None)
            if shape is not None and shape.rank == 0:
                raise ValueError(
                    "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a "
                    "dataset with scalar elements. Fix the issue by adding the `batch` "
                    "transformation to the dataset."
                )
            if shape is not None and shape.rank is not None and shape[0] is not None:
                leading.append(shape[0])
        if len(set(leading)) > 1:
            raise ValueError(
                "Invalid `input_dataset.` The batch dimension of component 0 is "
                f"{leading[0]}, while the batch dimension of component i is {np.array(leading)}."
            )
        if len(set(self._sizes)) != 1:
            return None
        size = self._sizes[0]
        if self._drop:
            return size
        if not leading or (size and leading[0] % size):
            return None
        return size

    def _element_spec(self):
        def component(s):
            if isinstance(s, RaggedTensorSpec):
                shape = TensorShape([self._static]).concatenate(s.shape[1:])
                return RaggedTensorSpec(shape, s.dtype, s.ragged_rank, s.row_splits_dtype)
            return s.unbatch().batch(self._static)

        return map_specs(component, self._input.element_spec)

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN


def _rebatched(rows, spec):
    """Rows of one structure as a batch; the rows of a ragged component as a RaggedTensor."""
    if isinstance(spec, dict):
        return {k: _rebatched([r[k] for r in rows], spec[k]) for k in rows[0]}
    if isinstance(spec, tuple):
        return pack_like(rows[0], [_rebatched([r[i] for r in rows], s) for i, s in enumerate(spec)])
    if isinstance(spec, RaggedTensorSpec):
        return ragged_rows(rows, spec.row_splits_dtype)
    return stacked(rows)


def rebatch(dataset: Any, batch_size: int, drop_remainder: bool) -> Any:
    """Dataset.rebatch: one batch size, or a list of them used in turn (sizes of 0 give batches
    of 0 rows, as tf.data's)."""
    sizes = np.asarray(batch_size)
    if sizes.ndim > 1:
        raise ValueError(
            "Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. Received "
            f"`batch_sizes` of rank {sizes.ndim}."
        )
    sizes = [int(n) for n in sizes.reshape(-1)]
    if not sizes:
        raise errors.InvalidArgumentError("rebatch needs at least one batch size")
    if any(n < 0 for n in sizes):
        raise errors.InvalidArgumentError(f"rebatch: batch sizes must be >= 0, got {sizes}")
    if not any(sizes):
        # tf.data gives batches of 0 rows without end here, whatever the input holds.
        raise errors.InvalidArgumentError(
            f"rebatch: every batch size is 0 ({sizes}), so no batch would ever take a row"
        )
    return Rebatch(dataset, sizes, drop_remainder)


def _ragged_stacked(elements, spec, row_splits_dtype):
    """Elements of one structure batched as ragged_batch batches them (see RaggedBatch)."""
    first = elements[0]
    unknown = isinstance(spec, UnknownSpec)
    if isinstance(first, dict):
        return {
            k: _ragged_stacked([e[k] for e in elements], spec if unknown else spec[k],
                               row_splits_dtype)
            for k in first
        }  # fmt: skip
    if isinstance(first, tuple):
        parts = [
            _ragged_stacked([e[i] for e in elements], spec if unknown else spec[i],
                            row_splits_dtype)
            for i in range(len(first))
        ]  # fmt: skip
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    rank = ragged_rank_for(spec, first)
    if rank == 0:
        return stack(elements)
    arrays = [np.asarray(e) for e in elements]
    ranks = {a.ndim for a in arrays}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            f"ragged_batch: the elements of a batch have different ranks {sorted(ranks)}"
        )
    return ragged_of(arrays, rank, row_splits_dtype)


class RaggedBatch(Batch):
    """batch() where each component whose spec has unknown dimensions becomes a
    swigflow.RaggedTensor, ragged up to its spec's last unknown dimension (tf.data's rule,
    structure.ragged_rank_for); other components batch densely."""

    def __init__(
        self, input_dataset: Any, size: int, drop_remainder: bool, row_splits_dtype: DTypeLike
    ) -> None:
        super().__init__(input_dataset, size, drop_remainder)
        self._row_splits_dtype = row_splits_dtype_of(row_splits_dtype).name

    def _stage_name(self):
        return f"ragged_batch({self._size})"

    def _element_spec(self):
        spec = self._input.element_spec
        return ragged_batched_spec(spec, self._batch_dimension(), self._row_splits_dtype)

    def _combine(self, elements):
        try:
            return _ragged_stacked(elements, self._input.element_spec, self._row_splits_dtype)
        except errors.OpError as e:
            return Failed(e)
