"""The iteration protocol: what the steps, the sources and the Iterator call on the datasets
they read. Step declares the subclass interface every dataset implements (swigflow.data.Dataset
gives its defaults); the functions here are how the others use it, so that steps import these
and not the face: how a step reads its input (iterate, epoch_elements), random access
(check_index, read_at, element_at, random_access_blocker), what walks a pipeline
(pipeline_steps, reshuffling_steps, split_source, fingerprint_of, check_shardable), and what an
iterator's state is checked by (signature_of, check_state)."""

from __future__ import annotations

import operator
import typing
from collections.abc import Iterator
from typing import Any

from swigflow import errors
from swigflow.data.checks import INFINITE, UNKNOWN
from swigflow.data.elements import Failed
from swigflow.data.seeds import IteratorSeeds


class Step(typing.Protocol):
    """The subclass interface, as the functions below use it; each method's contract is its
    default's docstring in swigflow.data.Dataset."""

    def _iter(self, state, epoch): ...  # (element, state) pairs from `state`, in pass `epoch`
    def _cardinality(self): ...
    def _get(self, index): ...
    def _has_random_access(self): ...
    def _random_access_blocker(self): ...
    def _input_datasets(self): ...
    def _signature(self): ...
    def _fingerprint(self): ...
    def _check_state(self, state, where): ...
    def _check_shardable(self): ...
    def _reshard(self, num_shards, index): ...


def dataset_type(dataset: Any) -> str:
    """A step's name in random-access messages, as tf.data's kernel names: "RepeatDataset"."""
    return type(dataset).__name__.lstrip("_") + "Dataset"


def check_index(dataset: Any, index: int) -> None:
    """Raises as tf.data's random access does for an index `dataset` cannot give: an infinite
    dataset has no random access, an index outside [0, cardinality) is out of range, and an
    unknown cardinality comes from a step without random access, which is named."""
    n = dataset._cardinality()
    if n == UNKNOWN:
        stack = [dataset]
        while stack:  # the outermost step that does not implement _get
            step = stack.pop()
            if not step._has_random_access():
                dataset = step
                break
            stack.extend(reversed(step._input_datasets()))
        raise errors.UnimplementedError(
            f"Random access is not implemented for dataset {dataset_type(dataset)}"
        )
    if n == INFINITE:
        raise errors.FailedPreconditionError(
            f"Dataset of type {dataset_type(dataset)} has infinite cardinality, which does not "
            "support random access."
        )
    if n >= 0 and not 0 <= index < n:
        raise errors.OutOfRangeError(f"Index out of range [0, {n}):{index}")


def read_at(dataset: Any, index: int) -> Any:
    """The element at `index` of `dataset`, read directly: a Failed element as iteration would
    pass it along (for steps built on random access)."""
    return dataset._get(operator.index(index))


def element_at(dataset: Any, index: int) -> Any:
    """The element at `index` of `dataset`, read directly (tf.data.experimental.at)."""
    element = read_at(dataset, index)
    if type(element) is Failed:
        raise element.error
    return element


def pipeline_steps(dataset: Any) -> Iterator[Any]:
    """Every step of `dataset`, each once, from the outermost step in (depth first)."""
    stack, seen = [dataset], set()
    while stack:
        step = stack.pop()
        if id(step) not in seen:
            seen.add(id(step))
            yield step
            stack.extend(reversed(step._input_datasets()))


def random_access_blocker(dataset: Any) -> str | None:
    """None when every step of `dataset` has random access, else the first reason one has not,
    from the outermost step in."""
    reasons = (step._random_access_blocker() for step in pipeline_steps(dataset))
    return next((reason for reason in reasons if reason is not None), None)


def split_source(dataset: Any, num_shards: int, index: int) -> Any:
    """`dataset` with its source split num_shards ways, part `index` (the PyTorch adapter's
    split between DataLoader workers and ranks). Raises when the source cannot be split, or
    when the order of its elements would differ between processes (an unseeded shuffle)."""
    dataset._check_shardable()
    return dataset._reshard(num_shards, index)


def fingerprint_of(dataset: Any) -> Any:
    """The digest of what decides `dataset`'s elements (its iterator states carry it)."""
    return dataset._fingerprint()


def check_shardable(dataset: Any) -> None:
    """Raises ValueError if the order of dataset's elements differs between processes."""
    dataset._check_shardable()


def iterate(dataset: Any, state: Any, epoch: Any) -> Iterator[Any]:
    """(element, state) pairs of `dataset` from `state` (None: the start), in pass `epoch`: how
    a step reads its input."""
    return dataset._iter(state, epoch)


def epoch_elements(dataset: Any, epoch: Any) -> Iterator[Any]:
    """The elements of one pass of `dataset` (its `epoch`-th, for reshuffling)."""
    for element, _ in dataset._iter(None, epoch):
        yield element


def reshuffling_steps(dataset: Any) -> list[Any]:
    """The steps of a pipeline whose seeded shuffles reshuffle per iterator, depth first."""
    steps = pipeline_steps(dataset)
    return [s for s in steps if isinstance(s, IteratorSeeds) and s.reshuffles_per_iterator()]


def signature_of(dataset: Any) -> Any:
    """The pipeline's shape, which a resumed iterator's state must match."""
    return dataset._signature()


def check_state(dataset: Any, state: Any, where: Any) -> None:
    """Raises ValueError naming `where` when `state` is not a position `dataset` yields."""
    dataset._check_state(state, where)
