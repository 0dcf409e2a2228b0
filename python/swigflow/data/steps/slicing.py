"""take, skip, shard, repeat, enumerate, take_while, unique and ignore_errors: steps that
select or count elements."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.data.checks import INFINITE, INT64_MAX, check_count, state_fields
from swigflow.data.elements import Failed
from swigflow.data.protocol import check_index, iterate
from swigflow.data.steps.base import Predicated, Replayed, Unary, UnchangedStructure
from swigflow.data.structure import flat_specs
from swigflow.specs import TensorSpec, UnknownSpec

_LOG = logging.getLogger("swigflow.data")


class Repeat(UnchangedStructure):
    def __init__(self, input_dataset: Any, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        k, inner = (0, None) if state is None else (state["epoch"], state["input"])
        while self._count is None or k < self._count:
            produced = False
            for element, position in iterate(self._input, inner, epoch * (self._count or 1) + k):
                produced = True
                yield element, {"epoch": k, "input": position}
            if not produced and inner is None:
                return  # repeating nothing forever would never end
            k += 1
            inner = None

    def _check_state(self, state, where):
        if state is not None:
            k, inner = state_fields(state, where, epoch=0, input=None)
            if self._count is not None:
                check_count(k, f"{where}['epoch']", 0, self._count - 1)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count is None:
            return 0 if n == 0 else INFINITE
        return n * self._count if n >= 0 else n

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index % self._input._cardinality())

    def _random_access_blocker(self):
        if self._count in (None, 0):  # tf.data's rule for global shuffles
            count = -1 if self._count is None else 0
            return f"`repeat({count})` does not support random access of tf.data datasets."
        return None


class Take(UnchangedStructure):
    def __init__(self, input_dataset: Any, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        taken, inner = (0, None) if state is None else (state["taken"], state["input"])
        if self._count >= 0 and taken >= self._count:
            return
        for element, position in iterate(self._input, inner, epoch):
            if type(element) is not Failed:  # a failed element takes no place (as in tf.data)
                taken += 1
            yield element, {"taken": taken, "input": position}
            if self._count >= 0 and taken >= self._count:
                return

    def _check_state(self, state, where):
        if state is not None:
            taken, inner = state_fields(state, where, taken=0, input=None)
            if self._count >= 0:
                check_count(taken, f"{where}['taken']", 0, self._count)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return min(n, self._count) if n >= 0 else n

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index)


class Skip(UnchangedStructure):
    def __init__(self, input_dataset: Any, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        source = iterate(self._input, None if state is None else state["input"], epoch)
        if state is None:
            if self._count < 0:
                return
            skipped = 0
            while skipped < self._count:
                item = next(source, None)
                if item is None:
                    return
                element, position = item
                if type(element) is Failed:
                    yield element, {"input": position}
                else:
                    skipped += 1
        for element, position in source:
            yield element, {"input": position}

    def _check_state(self, state, where):
        if state is not None:
            (inner,) = state_fields(state, where, input=None)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index + self._count)


class Shard(UnchangedStructure):
    def __init__(self, input_dataset: Any, num_shards: int, index: int) -> None:
        super().__init__(input_dataset)
        self._n = num_shards
        self._i = index

    def _generate(self, state, epoch):
        seen, inner = (0, None) if state is None else (state["seen"], state["input"])
        for element, position in iterate(self._input, inner, epoch):
            if type(element) is Failed:  # every shard reports it; it holds no index
                yield element, {"seen": seen, "input": position}
                continue
            seen += 1
            if (seen - 1) % self._n == self._i:
                yield element, {"seen": seen, "input": position}

    def _check_state(self, state, where):
        if state is not None:
            _, inner = state_fields(state, where, seen=0, input=None)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if n % self._n > self._i else 0)

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index * self._n + self._i)


class Enumerate(Unary):
    def __init__(self, input_dataset: Any, start: int) -> None:
        super().__init__(input_dataset)
        self._start = start

    def _generate(self, state, epoch):
        count, inner = (0, None) if state is None else (state["count"], state["input"])
        for element, position in iterate(self._input, inner, epoch):
            index = np.int64(self._start + count)
            count += 1  # a failed element takes its index, as in tf.data's zip with a range
            out = element if type(element) is Failed else (index, element)
            yield out, {"count": count, "input": position}

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return (TensorSpec((), np.int64), self._input.element_spec)

    def _get(self, index):
        element = self._input._get(index)
        return element if type(element) is Failed else (np.int64(self._start + index), element)

    def _check_state(self, state, where):
        if state is not None:
            count, inner = state_fields(state, where, count=0, input=None)
            check_count(count, f"{where}['count']", 0, INT64_MAX - max(self._start, 0))
            self._input._check_state(inner, f"{where}['input']")


def scalar_bool(value: Any, what: Any) -> bool:
    """`value` as a Python bool when it is a boolean scalar (bool, numpy bool, a 0-d bool
    array), else ValueError with tf.data's words for `what`."""
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == np.bool_ and value.ndim == 0
    ):
        return bool(value)
    raise ValueError(
        f"Invalid `{what}`. `{what}` must return a `tf.bool` scalar tensor but it returned "
        f"{value!r}."
    )


class TakeWhile(Predicated):
    """The elements before the first for which predicate(element) is false. The predicate
    must return a boolean scalar (ValueError otherwise, when it is called: tf.data checks when
    the dataset is made); its exceptions are raised for their element, as in filter."""

    transformation, stage = "TakeWhileDataset", "take_while"

    def _generate(self, state, epoch):
        for element, position, keep in self._verdicts(state, epoch):
            if type(element) is Failed or scalar_bool(keep, "predicate"):
                yield element, position
            else:
                return


_UNIQUE_KINDS = {np.dtype(np.int32), np.dtype(np.int64)}


def check_unique_input(components: Any, dtype: DTypeLike, strings: Any = True) -> None:
    """tf.data's rule for unique(): one component (InvalidArgumentError), of int32, int64 or
    strings (TypeError). A dtype of None is not known yet; an object dtype holds strings when
    `strings` says so."""
    if components != 1:
        raise errors.InvalidArgumentError(
            "UniqueDataset only supports inputs with a single component."
        )
    is_strings = strings and dtype == np.dtype(object)
    if dtype is not None and not is_strings and dtype not in _UNIQUE_KINDS:
        raise TypeError(
            f"`tf.data.Dataset.unique` does not support type <dtype: '{dtype}'> -- only "
            "`tf.int32`, `tf.int64`, and `tf.string` are supported."
        )


def unique_key(element: Any) -> Any:
    """What unique() compares an element by: its kind, shape and values (check_unique_input's
    rules, applied to the element)."""
    if isinstance(element, (dict, tuple)):
        parts = list(element.values()) if isinstance(element, dict) else list(element)
        check_unique_input(len(parts), None)
        return unique_key(parts[0])
    if isinstance(element, (bytes, str)):
        return ("string", (), (element.encode() if isinstance(element, str) else element,))
    array = np.asarray(element)
    if array.dtype == object and all(isinstance(v, (bytes, str)) for v in array.flat):
        flat = tuple(v.encode() if isinstance(v, str) else v for v in array.flat)
        return ("string", array.shape, flat)
    check_unique_input(1, array.dtype, strings=False)
    return (array.dtype.str, array.shape, array.tobytes())


class Unique(Replayed, UnchangedStructure):
    """Each distinct element once, at its first occurrence. A state counts the outputs (the
    elements seen are replayed on resuming). Inputs are checked when the dataset is made as far
    as their spec tells, and each element as it comes."""

    def __init__(self, input_dataset: Any) -> None:
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        if not isinstance(spec, UnknownSpec):
            flat = flat_specs(spec)
            check_unique_input(len(flat), getattr(flat[0], "dtype", None) if flat else None)

    def _outputs(self, elements, epoch):
        seen = set()
        for element in elements:
            if type(element) is Failed:
                yield element
                continue
            key = unique_key(element)
            if key not in seen:
                seen.add(key)
                yield element


class IgnoreErrors(UnchangedStructure):
    """Drops the elements whose computation raised (a failed map or filter call, a batch that
    did not stack), logging each with log_warning. An exception raised by the input itself
    ends it, as a failed Python generator ends tf.data's from_generator (a TFRecordDataset
    instead skips the rest of a damaged file: see TFRecordDataset.ignore_errors)."""

    def __init__(self, input_dataset: Any, log_warning: bool) -> None:
        super().__init__(input_dataset)
        self._log_warning = log_warning

    def _generate(self, state, epoch):
        source = iterate(self._input, state, epoch)
        while True:
            try:
                element, position = next(source)
            except StopIteration:
                return
            except Exception as e:
                self._log(e)
                return
            if type(element) is Failed:
                self._log(element.error)
            else:
                yield element, position

    def _log(self, error):
        if self._log_warning:
            _LOG.warning("Dataset.ignore_errors() ignored: %s: %s", type(error).__name__, error)
