"""What steps are built from: Unary (a step over one input), Predicated (one that judges each
element), Replayed and Elements."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from swigflow.data.checks import check_count, check_not_past_end, state_fields
from swigflow.data.dataset import Dataset
from swigflow.data.elements import Failed, apply_fn, function_name, predicate_failure
from swigflow.data.protocol import iterate


class Unary(Dataset):
    def __init__(self, input_dataset: Any) -> None:
        self._input = input_dataset

    def _signature(self):
        return f"{self._input._signature()}.{type(self).__name__.lstrip('_')}"

    def _reshard(self, num_shards, index):
        clone = copy.copy(self)
        clone._input = self._input._reshard(num_shards, index)
        return clone

    def _check_shardable(self):
        self._input._check_shardable()

    def _check_state(self, state, where):  # steps that keep their input's position
        self._input._check_state(state, where)


class UnchangedStructure(Unary):
    """A step whose elements have its input's structure (tf.data's
    UnaryUnchangedStructureDataset)."""

    def _element_spec(self):
        return self._input.element_spec


class Predicated(UnchangedStructure):
    """A step that judges each element with a predicate (filter, take_while): failed elements
    pass through, and a predicate that raises fails its element in tf.data's words, naming
    `transformation` (the tf.data dataset's name) and the pipeline."""

    transformation = None  # "FilterDataset", ...
    stage = None  # "filter", ...

    def __init__(self, input_dataset: Any, predicate: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _stage_name(self):
        return f"{self.stage}({function_name(self._predicate)})"

    def _verdicts(self, state, epoch):
        """(element, position, verdict) for each input element: the predicate's result, or True
        for a failure (the input's, or the predicate's own), which passes through."""
        for element, position in iterate(self._input, state, epoch):
            if type(element) is Failed:
                yield element, position, True
                continue
            verdict = apply_fn(self._predicate, element)
            if type(verdict) is Failed:
                failure = predicate_failure(
                    self.transformation, self._predicate, verdict, self._signature()
                )
                yield failure, position, True
            else:
                yield element, position, verdict


class Elements(Dataset):
    """A dataset over a list of elements already made (a window, a group), of `spec` (None:
    unknown)."""

    def __init__(self, elements: int | None, spec: Any = None) -> None:
        self._elements = elements
        self._of_spec = spec

    def _element_spec(self):
        return super()._element_spec() if self._of_spec is None else self._of_spec

    def _generate(self, state, epoch):
        for i in range(0 if state is None else state, len(self._elements)):
            yield self._elements[i], i + 1

    def _cardinality(self):
        return len(self._elements)

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0, len(self._elements))

    def _signature(self):
        return f"Elements({len(self._elements)})"


def made_dataset(made: Any, what: Any) -> Any:
    if type(made) is Failed or isinstance(made, Dataset):
        return made
    raise TypeError(
        f"The `map_func` argument must return a `Dataset` object. Got {type(made).__name__}: "
        f"{made!r} ({what})"
    )


class Replayed(Unary):
    """A step whose outputs are computed from the epoch's elements by _outputs(elements, epoch);
    its state counts the outputs emitted."""

    def _outputs(self, elements, epoch):
        raise NotImplementedError

    def _generate(self, state, epoch):
        skip = 0 if state is None else state["emitted"]
        elements = (element for element, _ in iterate(self._input, None, epoch))
        emitted = 0
        for output in self._outputs(elements, epoch):
            emitted += 1
            if emitted > skip:
                yield output, {"emitted": emitted}
        check_not_past_end(skip, emitted, "emitted")

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, emitted=0)
