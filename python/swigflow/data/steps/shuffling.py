"""shuffle (tf.data's buffer, in Python) and global_shuffle (a seeded permutation of a
random-access dataset's indexes)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from swigflow import errors
from swigflow.data.checks import INFINITE, check_count, check_not_past_end, state_fields
from swigflow.data.elements import Failed
from swigflow.data.index_shuffle import IndexPermutation
from swigflow.data.protocol import check_index, iterate, random_access_blocker, read_at
from swigflow.data.seeds import SEED_RANGE, IteratorSeeds, new_seed, pass_key
from swigflow.data.steps.base import UnchangedStructure


def buffer_shuffled(items: Any, size: int, rng: Any, passthrough: Any) -> Iterator[Any]:
    """tf.data's shuffle buffer over `items`: each comes out drawn at random (rng) from the
    next `size`; items for which passthrough(item) is true come out at once, drawing nothing.
    Iteration and random access both shuffle through this, so they agree."""
    buffer = []
    for item in items:
        if passthrough(item):
            yield item
        elif len(buffer) < size:
            buffer.append(item)
        else:
            i = rng.randrange(len(buffer))
            out, buffer[i] = buffer[i], item
            yield out
    while buffer:
        i = rng.randrange(len(buffer))
        buffer[i], buffer[-1] = buffer[-1], buffer[i]
        yield buffer.pop()


class Shuffle(UnchangedStructure, IteratorSeeds):
    """A Python shuffle buffer, for inputs the native pipeline does not cover. Resuming replays
    the epoch from its start and drops what was already emitted (exact, not free)."""

    _NOT_IDENTITY = frozenset({"_seed"})  # carried by the state

    def __init__(self, input_dataset: Any, size: int, seed: int | None, reshuffle: Any) -> None:
        super().__init__(input_dataset)
        self._size = size
        # Without reshuffling, tf.data fixes an unseeded order when the dataset is made: every
        # epoch and every iterator see the same one.
        self._seed = new_seed() if seed is None and not reshuffle else seed
        self._reshuffle = reshuffle

    def _generate(self, state, epoch):
        if state is None:
            seed = new_seed() if self._seed is None else self._seed
            state = {"seed": self.iterator_seed(seed) if self._reshuffle else seed, "emitted": 0}
        rng = random.Random(f"{state['seed']}:{epoch if self._reshuffle else 0}")
        elements = (element for element, _ in iterate(self._input, None, epoch))
        # Failed elements are raised at once, as tf.data does while filling.
        shuffled = buffer_shuffled(elements, self._size, rng, lambda e: type(e) is Failed)
        emitted = 0
        for out in shuffled:
            emitted += 1
            if emitted > state["emitted"]:
                yield out, {"seed": state["seed"], "emitted": emitted}
        check_not_past_end(state["emitted"], emitted, "emitted")

    def _get(self, index):
        """The element a first iterator gives at `index` (its first epoch's order, from the
        dataset's seed; drawn once per dataset when there is none)."""
        check_index(self, index)
        order = self.__dict__.get("_first_order")
        if order is None:
            seed = self._seed
            if seed is None:
                seed = self.__dict__.setdefault("_random_access_seed", new_seed())
            rng = random.Random(f"{seed}:0")  # the first iterator's seed is the seed itself
            indexes = range(self._input._cardinality())
            order = list(buffer_shuffled(indexes, self._size, rng, lambda i: False))
            self._first_order = order
        return self._input._get(order[index])

    def reshuffles_per_iterator(self) -> bool:
        return self._reshuffle and self._seed is not None

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, seed=SEED_RANGE, emitted=0)

    def _cardinality(self):
        return self._input._cardinality()


class GlobalShuffle(UnchangedStructure, IteratorSeeds):
    """global_shuffle() of a random-access dataset: pass e reads the input at
    IndexPermutation(n, key(seed, e)) of 0, 1, ..., so there is no buffer and a state is the
    seed and a count. The input's random access is checked when the step is made."""

    _NOT_IDENTITY = frozenset({"_seed"})  # carried by the state

    def __init__(self, input_dataset: Any, seed: int | None, reshuffle: Any) -> None:
        super().__init__(input_dataset)
        blocker = random_access_blocker(input_dataset)
        n = input_dataset._cardinality()
        if blocker is None and n < 0:
            length = "infinite" if n == INFINITE else "unknown"
            blocker = f"the dataset's cardinality is {length}."
        if blocker is not None:
            raise errors.FailedPreconditionError(
                "`global_shuffle` requires all upstream transformations be compatible with "
                f"random access. Got: FAILED_PRECONDITION: {blocker}"
            )
        # As shuffle(): without reshuffling, an unseeded order is fixed when the step is made.
        self._seed = new_seed() if seed is None and not reshuffle else seed
        self._reshuffle = reshuffle

    def _stage_name(self):
        return "global_shuffle"

    def _generate(self, state, epoch):
        if state is None:
            seed = new_seed() if self._seed is None else self._seed
            state = {"seed": self.iterator_seed(seed) if self._reshuffle else seed, "next": 0}
        n = self._input._cardinality()
        key = pass_key(state["seed"], epoch if self._reshuffle else 0)
        permutation = IndexPermutation(n, key)
        for i in range(state["next"], n):
            yield read_at(self._input, permutation(i)), {"seed": state["seed"], "next": i + 1}

    def reshuffles_per_iterator(self) -> bool:
        return self._reshuffle and self._seed is not None

    def _check_state(self, state, where):
        if state is not None:
            _, following = state_fields(state, where, seed=SEED_RANGE, next=0)
            check_count(following, f"{where}['next']", 0, self._input._cardinality())

    def _cardinality(self):
        return self._input._cardinality()
