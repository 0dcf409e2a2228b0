"""window, group_by_window and bucket_by_sequence_length: elements gathered into windows,
each a dataset."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.data.checks import INFINITE, UNKNOWN, window_arg
from swigflow.data.elements import Failed, apply_fn, call_unpacked, function_name
from swigflow.data.protocol import epoch_elements
from swigflow.data.steps.base import Elements, Replayed, made_dataset
from swigflow.data.steps.batching import padded_batch_spec, padded_shapes_of
from swigflow.data.structure import batched_spec, map_specs
from swigflow.specs import DatasetSpec, UnknownSpec


def _component_datasets(elements, spec):
    """A window of elements as tf.data gives it: a dataset per component of their structure,
    each of its component's spec (None: unknown)."""
    first = elements[0]
    if isinstance(first, dict):
        return {k: _component_datasets([e[k] for e in elements], spec and spec[k]) for k in first}
    if isinstance(first, tuple):
        return tuple(
            _component_datasets([e[i] for e in elements], spec and spec[i])
            for i in range(len(first))
        )
    return Elements(list(elements), spec)


def _window_of(elements, spec):
    """A window, or the first failed element in it (as tf.data, a failed element the stride
    passes over raises nothing)."""
    failed = next((e for e in elements if type(e) is Failed), None)
    return failed if failed is not None else _component_datasets(elements, spec)


class Window(Replayed):
    def __init__(
        self, input_dataset: Any, size: int, shift: int | None, stride: int, drop_remainder: bool
    ) -> None:
        super().__init__(input_dataset)
        self._size, self._shift, self._stride = size, shift, stride
        self._drop = drop_remainder

    def _element_spec(self):
        spec = self._input.element_spec
        return spec if isinstance(spec, UnknownSpec) else map_specs(DatasetSpec, spec)

    def _outputs(self, elements, epoch):
        spec = self._input.element_spec
        spec = None if isinstance(spec, UnknownSpec) else spec
        span = (self._size - 1) * self._stride + 1  # input elements one full window covers
        buffer = []  # elements from the next window's first
        skip = 0  # elements before the next window's first (a shift longer than the span)
        for element in elements:
            if skip:
                skip -= 1
                continue
            buffer.append(element)
            if len(buffer) == span:
                yield _window_of(buffer[:: self._stride], spec)
                skip = max(0, self._shift - len(buffer))
                del buffer[: self._shift]
        while buffer and not self._drop:  # the windows that start before the end
            yield _window_of(buffer[: span : self._stride], spec)
            del buffer[: self._shift]

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1


def _key(value, what):
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise errors.InvalidArgumentError(f"{what} must return a scalar int64, got {value!r}")
    return int(value)


class GroupByWindow(Replayed):
    """Elements grouped by key_func into windows of window_size (or window_size_func(key));
    each full window goes through reduce_func(key, window dataset), whose elements are emitted.
    At the end, the unfinished windows go through it in increasing key order (as in tf.data)."""

    def __init__(
        self,
        input_dataset: Any,
        key_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        window_size_func: Callable[[int], int] | None,
        spec: Any = None,
    ) -> None:
        super().__init__(input_dataset)
        self._key_func, self._reduce, self._size_of = key_func, reduce_func, window_size_func
        self._of_spec = spec  # what reduce_func's datasets give, when the caller knows it

    def _stage_name(self):
        return f"group_by_window({function_name(self._key_func)})"

    def _element_spec(self):
        return super()._element_spec() if self._of_spec is None else self._of_spec

    def _reduced(self, key, window):
        spec = self._input.element_spec
        spec = None if isinstance(spec, UnknownSpec) else spec
        made = apply_fn(self._reduce, (np.int64(key), Elements(window, spec)))
        made = made_dataset(made, "group_by_window's reduce_func")
        if type(made) is Failed:
            yield made
        else:
            yield from epoch_elements(made, 0)

    def _outputs(self, elements, epoch):
        groups = {}
        sizes = {}
        for element in elements:
            if type(element) is Failed:
                yield element
                continue
            key = apply_fn(self._key_func, element)
            try:
                if type(key) is Failed:
                    raise key.error
                key = _key(key, "group_by_window's key_func")
                if key not in sizes:
                    size = _key(self._size_of(np.int64(key)), "window_size_func")
                    if size < 1:
                        raise errors.InvalidArgumentError(
                            f"Window size must be greater than zero, but got {size}."
                        )
                    sizes[key] = size
            except Exception as e:  # for this element only, as a failed map call
                yield Failed(e)
                continue
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._reduced(key, group)
        for key in sorted(groups):
            yield from self._reduced(key, groups[key])

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN


def _window_sizes(window_size, window_size_func):
    if (window_size is None) == (window_size_func is None):
        raise ValueError(
            "Either the `window_size` argument or the `window_size_func` argument must be "
            "specified."
        )
    if window_size is not None:
        size = int(window_size)  # checked per key, at the first element, as tf.data checks it
        return lambda key: size
    return window_size_func


def group_by_window(
    dataset: Any,
    key_func: Callable[..., Any],
    reduce_func: Callable[..., Any],
    window_size: int | None,
    window_size_func: Callable[[int], int] | None,
) -> Any:
    sizes = _window_sizes(window_size, window_size_func)
    return GroupByWindow(dataset, key_func, reduce_func, sizes)


def _bucket_shapes(shapes, boundary):
    """padded_shapes with their unknown dimensions (None or -1) set to boundary - 1."""
    if isinstance(shapes, dict):
        return {k: _bucket_shapes(v, boundary) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_bucket_shapes(v, boundary) for v in shapes)
    return [boundary - 1 if d < 0 else d for d in shapes]


def _sequence_shapes(element, boundary):
    """Without padded_shapes: dimension 0 of every component (the sequence) padded to
    boundary - 1, the others to the longest in the batch."""
    if isinstance(element, dict):
        return {k: _sequence_shapes(v, boundary) for k, v in element.items()}
    if isinstance(element, tuple):
        return tuple(_sequence_shapes(v, boundary) for v in element)
    rank = np.ndim(element) if not isinstance(element, (bytes, str)) else 0
    return [boundary - 1] + [-1] * (rank - 1) if rank else []


def bucket_by_sequence_length(
    dataset: Any,
    element_length_func: Callable[..., Any],
    bucket_boundaries: Sequence[int],
    bucket_batch_sizes: Sequence[int],
    padded_shapes: Any,
    padding_values: Any,
    pad_to_bucket_boundary: bool,
    no_padding: bool,
    drop_remainder: bool,
) -> Any:
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(
            "len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got "
            f"{len(batch_sizes)} and {len(boundaries)}"
        )
    if any(b <= a for a, b in itertools.pairwise(boundaries)):
        raise ValueError(f"bucket_boundaries must be strictly increasing, got {boundaries}")

    def bucket_of(*element):
        element = element[0] if len(element) == 1 else element
        length = _key(call_unpacked(element_length_func, element), "element_length_func")
        if pad_to_bucket_boundary and boundaries and length >= boundaries[-1]:
            raise errors.InvalidArgumentError(
                "When pad_to_bucket_boundary=True, elements must have length < "
                f"max(bucket_boundaries) = {boundaries[-1]}, got {length}."
            )
        return np.int64(sum(1 for b in boundaries if length >= b))

    def batching(key, window):
        size = batch_sizes[key]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            boundary = boundaries[key]  # elements past the last boundary raised in bucket_of
            if shapes is None:
                shapes = _sequence_shapes(next(epoch_elements(window, 0)), boundary)
            else:
                shapes = _bucket_shapes(padded_shapes_of(shapes), boundary)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    # tf.data's spec: the batch dimension unknown, padded dimensions as padded_batch has them
    # (pad_to_bucket_boundary too).
    rows = dataset.element_spec
    spec = batched_spec(rows, None) if no_padding else padded_batch_spec(rows, padded_shapes, None)
    return GroupByWindow(dataset, bucket_of, batching, lambda key: batch_sizes[key], spec)


def window(dataset: Any, size: int, shift: int | None, stride: int, drop_remainder: bool) -> Any:
    """Dataset.window's arguments checked (shift defaults to size), and its step."""
    size = window_arg("size", size)
    shift = size if shift is None else window_arg("shift", shift)
    return Window(dataset, size, shift, window_arg("stride", stride), drop_remainder)
