"""tf.data.experimental's helpers that swigflow.data has."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow.data.checks import AUTOTUNE, INFINITE, UNKNOWN
from swigflow.data.protocol import element_at


def at(dataset: Any, index: int) -> Any:
    """tf.data.experimental.at: the element at `index` of `dataset`, read directly, without
    iterating up to it. Steps with random access: range, from_tensor_slices, from_tensors,
    map, batch, shuffle (the order a first iterator gives), repeat, take, skip, shard, zip,
    concatenate, enumerate, prefetch and with_options; others raise UnimplementedError.

    Raises:
      OutOfRangeError: index is outside [0, cardinality).
      FailedPreconditionError: the dataset is infinite.
      UnimplementedError: a step has no random access (filter, interleave, a TFRecordDataset).

    Args:
        dataset: a Dataset whose steps all have random access.
        index: the element's index.

    Returns:
        The element.
    """
    return element_at(dataset, index)


def parse_example_dataset(
    features: Any, num_parallel_calls: int | None = 1, deterministic: bool | None = None
) -> Callable[[Any], Any]:
    """``ds.apply(parse_example_dataset(features))``: parses batches of serialized Examples, as
    ``tf.data.experimental.parse_example_dataset`` (fused into the native pipeline).

    Args:
        features: a dict of feature specs, as Dataset.parse takes.
        num_parallel_calls: accepted for tf.data's signature; the native pipeline sets it.
        deterministic: accepted for tf.data's signature; the order is the input's.

    Returns:
        A function of a Dataset, for Dataset.apply.
    """
    del num_parallel_calls, deterministic
    return lambda dataset: dataset.parse(features)


def group_by_window(
    key_func: Callable[..., Any],
    reduce_func: Callable[..., Any],
    window_size: int | None = None,
    window_size_func: Callable[[int], int] | None = None,
) -> Callable[[Any], Any]:
    """``ds.apply(group_by_window(...))``: Dataset.group_by_window.

    Args:
        key_func: as Dataset.group_by_window's.
        reduce_func: as Dataset.group_by_window's.
        window_size: as Dataset.group_by_window's.
        window_size_func: as Dataset.group_by_window's.

    Returns:
        A function of a Dataset, for Dataset.apply.
    """
    return lambda dataset: dataset.group_by_window(
        key_func, reduce_func, window_size, window_size_func
    )


def bucket_by_sequence_length(
    element_length_func: Callable[..., Any],
    bucket_boundaries: Sequence[int],
    bucket_batch_sizes: Sequence[int],
    padded_shapes: Any = None,
    padding_values: Any = None,
    pad_to_bucket_boundary: bool = False,
    no_padding: bool = False,
    drop_remainder: bool = False,
) -> Callable[[Any], Any]:
    """``ds.apply(bucket_by_sequence_length(...))``: Dataset.bucket_by_sequence_length.

    Args:
        element_length_func: as Dataset.bucket_by_sequence_length's.
        bucket_boundaries: as Dataset.bucket_by_sequence_length's.
        bucket_batch_sizes: as Dataset.bucket_by_sequence_length's.
        padded_shapes: as Dataset.bucket_by_sequence_length's.
        padding_values: as Dataset.bucket_by_sequence_length's.
        pad_to_bucket_boundary: as Dataset.bucket_by_sequence_length's.
        no_padding: as Dataset.bucket_by_sequence_length's.
        drop_remainder: as Dataset.bucket_by_sequence_length's.

    Returns:
        A function of a Dataset, for Dataset.apply.
    """
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder,
    )  # fmt: skip


def dense_to_ragged_batch(
    batch_size: int, drop_remainder: bool = False, row_splits_dtype: DTypeLike = np.int64
) -> Callable[[Any], Any]:
    """``ds.apply(dense_to_ragged_batch(...))``: Dataset.ragged_batch.

    Args:
        batch_size: as Dataset.ragged_batch's.
        drop_remainder: as Dataset.ragged_batch's.
        row_splits_dtype: as Dataset.ragged_batch's.

    Returns:
        A function of a Dataset, for Dataset.apply.
    """
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def get_structure(dataset_or_iterator: Any) -> Any:
    """tf.data.experimental.get_structure: the element_spec of a dataset or iterator.

    Args:
        dataset_or_iterator: a Dataset or an Iterator.

    Returns:
        The element_spec.

    Raises:
        TypeError: the argument is neither.
    """
    spec = getattr(dataset_or_iterator, "element_spec", None)
    if spec is None:
        raise TypeError(
            "`dataset_or_iterator` must be a `tf.data.Dataset` or tf.data.Iterator object, but "
            f"got {type(dataset_or_iterator)}."
        )
    return spec


def scan(initial_state: Any, scan_func: Callable[..., Any]) -> Callable[[Any], Any]:
    """``ds.apply(scan(...))``: Dataset.scan.

    Args:
        initial_state: as Dataset.scan's.
        scan_func: as Dataset.scan's.

    Returns:
        A function of a Dataset, for Dataset.apply.
    """
    return lambda dataset: dataset.scan(initial_state, scan_func)


INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "at",
    "bucket_by_sequence_length",
    "dense_to_ragged_batch",
    "get_structure",
    "group_by_window",
    "parse_example_dataset",
    "scan",
]
