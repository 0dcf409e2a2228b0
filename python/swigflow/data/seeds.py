"""The seed policy of swigflow.data, written once: how seeds are drawn, how an iterator's,
a pass's and the native pipeline's seeds derive from the user's, and the one splitmix64.

A seed a state records is an int64 or a uint64 (SEED_RANGE). Seeds handed to the native
pipeline are 63 bits (SEED_MASK), so they stay non-negative in an int64. Derived seeds mix in a
count times GOLDEN_GAMMA (2^64 divided by the golden ratio, odd), which spreads consecutive counts
over all 64 bits, as splitmix64's own increment does.
"""

from __future__ import annotations

import contextvars
import itertools
import random
from typing import Any

SEED_RANGE = (-(1 << 63), (1 << 64) - 1)  # a seed in a state: an int64 or a uint64
SEED_MASK = (1 << 63) - 1
MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def new_seed() -> int:
    """A fresh seed for an unseeded step: 63 bits from the operating system."""
    return random.SystemRandom().randrange(1 << 63)


def seed_bits(seed: int | None) -> int:
    """A seed as the native pipeline takes it (63 bits); the Python paths use the same bits."""
    return int(seed) & SEED_MASK


def combined(first: Any, second: Any) -> int:
    """One native seed standing for two (the global and the buffer shuffle's)."""
    return (int(first) * GOLDEN_GAMMA ^ int(second)) & SEED_MASK


def pass_key(seed: int | None, epoch: Any) -> int:
    """The key of one pass of a global shuffle; `epoch` is 0 for every pass when it does not
    reshuffle."""
    return (int(seed) * GOLDEN_GAMMA) ^ int(epoch)


def splitmix64(x: int) -> int:
    """splitmix64's output function of a 64-bit int: a bijection with full avalanche."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def draw(key: str, k: Any) -> int:
    """The k-th 64-bit draw (k = 0, 1, ...) of the counter-based stream `key` names: random
    access to any draw, and a state that is only a count."""
    return splitmix64((int(key) + (int(k) + 1) * GOLDEN_GAMMA) & MASK64)


# Seeded shuffles that reshuffle each iteration give each iterator its own order, as tf.data's
# seed generators do: the k-th iterator over a dataset (k = 0, 1, ...) shuffles with the seed
# mixed with k. A new dataset object (a new program, a DataLoader worker) starts again at 0.
# While an iterator runs, this maps id(shuffle step) -> k.
_ITERATIONS = contextvars.ContextVar("swigflow_data_iterations", default=None)


class IterationScope:
    """While entered, the steps of `numbers` ({id(step): k}) are in their k-th iterator. Entered
    around each step of an iterator's work; not shared between threads."""

    __slots__ = ("_numbers", "_token")

    def __init__(self, numbers: Any) -> None:
        self._numbers = numbers

    def __enter__(self) -> None:
        self._token = _ITERATIONS.set(self._numbers)

    def __exit__(self, *exc: Any) -> None:
        _ITERATIONS.reset(self._token)


class IteratorSeeds:
    """Mixin of steps with a seeded shuffle: reshuffles_per_iterator() says whether this step
    has one that reshuffles each iteration; iterator_seed(seed) is that seed for the running
    iterator (the seed itself for the first)."""

    def reshuffles_per_iterator(self) -> bool:
        raise NotImplementedError

    def next_iteration(self) -> int:
        """Counts the iterators made over this step: 0 for the first."""
        counter = self.__dict__.setdefault("_iterations", itertools.count())
        return next(counter)

    def iterator_seed(self, seed: int | None) -> int:
        numbers = _ITERATIONS.get()
        k = 0 if numbers is None else numbers.get(id(self), 0)
        return seed if k == 0 else (int(seed) ^ (k * GOLDEN_GAMMA)) & SEED_MASK
