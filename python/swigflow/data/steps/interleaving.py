"""interleave and flat_map: steps whose function makes a dataset of each element, and their
fusion into one native dataset when that function makes TFRecordDatasets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from swigflow.data.checks import INFINITE, UNKNOWN, check_not_past_end, state_fields
from swigflow.data.dataset import Dataset
from swigflow.data.elements import Failed, apply_fn, function_name
from swigflow.data.protocol import iterate
from swigflow.data.records import fuse_interleave
from swigflow.data.steps.base import Unary, made_dataset


class Interleave(Unary):
    """tf.data's interleave in Python: the order is deterministic; with num_parallel_calls the
    sub-datasets are still iterated in turn. Resuming replays (exact, not free)."""

    def __init__(
        self,
        input_dataset: Any,
        fn: Any,
        cycle_length: int | None,
        block_length: int | None,
        num_parallel_calls: int | None,
    ) -> None:
        super().__init__(input_dataset)
        self._fn = fn
        self._cycle = cycle_length
        self._block = block_length
        self._parallel = num_parallel_calls is not None

    def _cardinality(self):
        # tf.data's: only the parallel interleave of an endless input is known to be endless.
        infinite = self._parallel and self._input._cardinality() == INFINITE
        return INFINITE if infinite else UNKNOWN

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, emitted=0)

    def _generate(self, state, epoch):
        skip = 0 if state is None else state["emitted"]
        inputs = (e for e, _ in iterate(self._input, None, epoch))
        slots = [None] * self._cycle
        emitted = 0
        exhausted = False

        def open_slot():
            nonlocal exhausted
            if exhausted:
                return None
            try:
                element = next(inputs)
            except StopIteration:
                exhausted = True
                return None
            dataset = apply_fn(self._fn, element)
            if type(dataset) is Failed:
                return iter([dataset])  # the slot yields the error, then the next input
            if not isinstance(dataset, Dataset):
                raise TypeError(
                    "The `map_func` argument must return a `Dataset` object. Got "
                    f"{type(dataset).__name__}: {dataset!r}"
                )
            return iter(e for e, _ in iterate(dataset, None, epoch))

        current = 0  # slots are opened as the cycle reaches them, as in tf.data
        while any(slot is not None for slot in slots) or not exhausted:
            if slots[current] is None:
                slots[current] = open_slot()
            if slots[current] is not None:
                for taken, element in enumerate(slots[current], 1):
                    emitted += 1
                    if emitted > skip:
                        yield element, {"emitted": emitted}
                    if taken >= self._block:
                        break
                else:
                    slots[current] = None
            current = (current + 1) % self._cycle
        check_not_past_end(skip, emitted, "emitted")


class FlatMap(Unary):
    """map_func's datasets one after the other. The state is the input's position before the
    element being expanded and the position inside its dataset."""

    def __init__(self, input_dataset: Any, fn: Any) -> None:
        super().__init__(input_dataset)
        self._fn = fn

    def _stage_name(self):
        return f"flat_map({function_name(self._fn)})"

    def _generate(self, state, epoch):
        before, inner = (None, None) if state is None else (state["before"], state["inner"])
        for element, position in iterate(self._input, before, epoch):
            made = made_dataset(apply_fn(self._fn, element), "flat_map's function")
            if type(made) is Failed:
                yield made, {"before": position, "inner": None}
            else:
                made._check_state(inner, "the iterator state's flat_map position ['inner']")
                for sub, sub_position in iterate(made, inner, epoch):
                    yield sub, {"before": before, "inner": sub_position}
            before, inner = position, None

    def _check_state(self, state, where):
        if state is not None:
            before, _ = state_fields(state, where, before=None, inner=None)
            self._input._check_state(before, f"{where}['before']")


def interleaved(
    input_dataset: Any,
    map_func: Callable[..., Any],
    cycle_length: int | None,
    block_length: int | None,
    num_parallel_calls: int | None,
) -> Any:
    """input_dataset.interleave(map_func, ...): one native dataset when map_func makes plain
    TFRecordDatasets (records.fuse_interleave), else an Interleave step."""
    fused = fuse_interleave(input_dataset, map_func, cycle_length, block_length)
    if fused is not None:
        return fused
    return Interleave(input_dataset, map_func, cycle_length, block_length, num_parallel_calls)


def flat_mapped(input_dataset: Any, map_func: Callable[..., Any]) -> Any:
    """input_dataset.flat_map(map_func), fused as interleaved() is (an interleave of one slot
    is a concatenation)."""
    fused = fuse_interleave(input_dataset, map_func, 1, 1)
    return fused if fused is not None else FlatMap(input_dataset, map_func)
