"""The row partitions of ``tf.io.RaggedFeature`` and the RaggedTensors built from them.

A partition describes how the values of one feature split into rows, outermost partition first:
``RowSplits``, ``RowLengths``, ``RowStarts``, ``RowLimits`` and ``ValueRowIds`` read an int64
feature of their own; ``UniformRowLength`` is a fixed length. Each example (or each step of a
feature list) is partitioned on its own, so its partition numbers are local to it (its row
splits start at 0).

Everything here works on a whole batch at once, in numpy: the values of all units back to back
with a count per unit, and each partition feature the same way. Every partition is checked
against the values it splits, whatever ``validate`` says: a RaggedTensor whose splits do not
match its values would index outside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.tensors import RaggedTensor


class RowSplits(NamedTuple):
    """Row boundaries read from the int64 feature `key` (``tf.RaggedTensor.from_row_splits``)."""

    key: str


class RowLengths(NamedTuple):
    """Row lengths read from the int64 feature `key`."""

    key: str


class RowStarts(NamedTuple):
    """Row starts read from the int64 feature `key`."""

    key: str


class RowLimits(NamedTuple):
    """Row ends read from the int64 feature `key`."""

    key: str


class ValueRowIds(NamedTuple):
    """The row of each value, read from the int64 feature `key`."""

    key: str


class UniformRowLength(NamedTuple):
    """Rows of `length` values each."""

    length: int


PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)

# Row ids may name rows far past the last value (empty rows); more rows than this, 2 GiB of
# splits, are refused instead of allocated.
MAX_ROWS_FROM_IDS = 1 << 28


def check_partition(partition: Any) -> Any:
    """`partition`, checked: one of the six types, with a string key or a positive length."""
    if not isinstance(partition, PARTITION_TYPES):
        names = ", ".join(t.__name__ for t in PARTITION_TYPES)
        raise TypeError(
            f"Argument `partitions` must hold RaggedFeature partitions ({names}); got: "
            f"{partition!r} with type {type(partition)}"
        )
    if isinstance(partition, UniformRowLength):
        length = partition.length
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length <= 0:
            raise ValueError(f"UniformRowLength length must be a positive int, got {length!r}")
    elif not isinstance(partition.key, str) or not partition.key:
        raise ValueError(f"{type(partition).__name__} key must be a non-empty string")
    return partition


def _segment_sums(x, counts):
    sums = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=sums[1:])
    totals = np.concatenate(([0], np.cumsum(x, dtype=np.int64)))
    return totals[sums[1:]] - totals[sums[:-1]]


class _Units:
    """Where each partition value sits: its unit, whether it starts or ends its unit."""

    def __init__(self, counts):
        self.counts: Any = counts
        self.unit: Any = np.repeat(np.arange(len(counts)), counts)
        ends = np.cumsum(counts)
        self.first: Any = np.zeros(int(ends[-1]) if len(ends) else 0, dtype=bool)
        self.last: Any = np.zeros_like(self.first)
        present = counts > 0
        self.first[(ends - counts)[present]] = True
        self.last[(ends - 1)[present]] = True


def _row_lengths(partition, values, counts, items):
    """(row lengths of all units back to back, rows per unit) of one partition feature, checked
    against `items`, the number of values (or inner rows) each unit's rows must cover.

    Returns None for the reason when they do not fit together."""
    values = np.asarray(values, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    at = _Units(counts)
    present = counts > 0
    if np.any(items[~present] != 0) and not isinstance(partition, ValueRowIds):
        return None, "a unit has values but no partition"
    if isinstance(partition, RowLengths):
        if np.any(values < 0) or np.any(values > np.repeat(items, counts)):
            return None, "row lengths out of range"
        if np.any(_segment_sums(values, counts) != items):
            return None, "row lengths do not add up to the number of values"
        return values, counts
    if isinstance(partition, ValueRowIds):
        if np.any(counts != items):
            return None, "not one row id per value"
        step = np.diff(values)
        if np.any(values < 0) or np.any(step[~at.first[1:]] < 0):
            return None, "row ids must be non-negative and sorted"
        rows = np.zeros(len(counts), dtype=np.int64)
        rows[at.unit[at.last]] = values[at.last] + 1
        if rows.sum() > MAX_ROWS_FROM_IDS:
            return None, f"row ids make {rows.sum()} rows, more than {MAX_ROWS_FROM_IDS}"
        offsets = np.cumsum(rows) - rows
        global_ids = values + offsets[at.unit]
        return np.bincount(global_ids, minlength=int(rows.sum())).astype(np.int64), rows
    # Splits, starts and limits are positions in the unit's values: sorted, within [0, items].
    step = np.diff(values)
    if np.any(step[~at.first[1:]] < 0):
        return None, "row partition positions must be sorted"
    unit_items = items[at.unit]
    if np.any(values < 0) or np.any(values > unit_items):
        return None, "row partition positions out of range"
    if isinstance(partition, RowSplits):
        if np.any(values[at.first] != 0) or np.any(values[at.last] != unit_items[at.last]):
            return None, "row splits must start at 0 and end at the number of values"
        return values[~at.first] - values[~at.last], np.maximum(counts - 1, 0)
    if isinstance(partition, RowStarts):
        if np.any(values[at.first] != 0):
            return None, "row starts must start at 0"
        following = np.where(at.last, unit_items, np.roll(values, -1))
        return following - values, counts
    # RowLimits
    if np.any(values[at.last] != unit_items[at.last]):
        return None, "row limits must end at the number of values"
    previous = np.where(at.first, 0, np.roll(values, 1))
    return values - previous, counts


def partitioned(
    key: str, partitions: Sequence[Any], values: Any, counts: Any, reads: Any
) -> tuple[Any, Any]:
    """The values of every unit split by `partitions`, innermost first.

    Args:
      key: the feature's name, for messages.
      partitions: the RaggedFeature's partitions, outermost first.
      values: all units' values back to back (a 1-D array); counts: values per unit.
      reads: per partition, the (values, counts) of its feature (None for UniformRowLength).

    Returns:
      (result, rows): all units' rows back to back (a RaggedTensor, or an array with one more
      dimension per innermost UniformRowLength) and the number of rows of each unit.
    """
    result = values
    items = np.asarray(counts, dtype=np.int64)
    for partition, read in zip(reversed(partitions), reversed(reads)):
        if isinstance(partition, UniformRowLength):
            length = partition.length
            if np.any(items % length):
                raise misaligned(key, f"a unit's size is not a multiple of the row length {length}")
            if isinstance(result, RaggedTensor):
                result = RaggedTensor.from_uniform_row_length(result, length)
            else:
                result = result.reshape(-1, length, *result.shape[1:])
            items = items // length
        else:
            lengths, rows = _row_lengths(partition, *read, items)
            if lengths is None:
                raise misaligned(key, rows)
            result = RaggedTensor.from_row_lengths(result, lengths)
            items = rows
    return result, items


def misaligned(key: str, why: Any) -> Exception:
    """The error for partitions that do not fit their values (TensorFlow's words, and why)."""
    return errors.InvalidArgumentError(
        f"Feature {key}: values and partitions are not aligned ({why})"
    )


def with_splits_dtype(ragged: Any, dtype: DTypeLike) -> Any:
    """`ragged` with every row_splits in `dtype` (int32 or int64), refusing splits int32 cannot
    hold."""
    if not isinstance(ragged, RaggedTensor):
        return ragged
    splits = ragged.row_splits
    if dtype == np.int32 and len(splits) and splits[-1] > np.iinfo(np.int32).max:
        raise errors.InvalidArgumentError(
            f"{splits[-1]} values are too many for int32 row splits; use row_splits_dtype=int64"
        )
    values = with_splits_dtype(ragged.values, dtype)
    return RaggedTensor(values, splits.astype(dtype, copy=False), ragged.uniform_row_length)
