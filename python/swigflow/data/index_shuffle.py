"""A keyed pseudo-random permutation of [0, n) that maps any index on its own: what a global
shuffle of a random-access dataset reads its elements through (the role of
tf.random.experimental.index_shuffle in tf.data's global shuffle).

Up to _TABLE_MAX indexes the permutation is a table, :func:`permutation`: the Fisher-Yates
shuffle the native pipeline's global shuffle uses (swigflow::data::Permutation), seeded with the
key; exactly uniform (to the generator's 2^-40 bias), 8 bytes an index. Above that, a balanced
Feistel network permutes [0, 4^h), the smallest such range holding n, and an index that lands at
or above n goes through the network again ("cycle walking") until it lands below n: O(1)
memory. Both steps are bijections, so the result is a permutation of [0, n). The round
function is the splitmix64 finaliser of the round key and the half. (Small Feistel networks are
measurably non-uniform, since a network of 2-bit halves only makes even permutations of its 16
points: hence the table below the threshold, where halves would be short.)
"""

from __future__ import annotations

from typing import Any

from swigflow import pywrap_swigflow as _pywrap
from swigflow.data.seeds import MASK64, splitmix64

_ROUNDS = 6  # enough for the halves to mix into every output bit more than once
_TABLE_MAX = 1 << 22  # a table of at most 32 MiB; above it the halves have 11 bits or more


def permutation(n: Any, seed: int | None) -> Any:
    """0, 1, ..., n - 1 in a uniform random order chosen by `seed` (any int), as an int64 array:
    the same order on every machine, made natively without the GIL."""
    if n < 0:
        raise ValueError(f"the permuted range needs n >= 0, got {n}")
    return _pywrap.Permutation(int(n), int(seed) & MASK64)


class IndexPermutation:
    """permutation(i) for i in [0, n): a bijection of [0, n) chosen by `key` (any int).
    table_max: the largest n given a table (tests lower it to check the network)."""

    def __init__(self, n: Any, key: str, table_max: Any = _TABLE_MAX) -> None:
        if n < 0:
            raise ValueError(f"the permuted range needs n >= 0, got {n}")
        self._n = n
        key = int(key) & MASK64
        self._table = None
        if n <= table_max:
            self._table = permutation(n, key)
            return
        self._half = ((n - 1).bit_length() + 1) // 2
        self._mask = (1 << self._half) - 1
        base = splitmix64(key)
        self._keys = [splitmix64((base + r + 1) & MASK64) for r in range(_ROUNDS)]

    def __len__(self) -> int:
        return self._n

    def __call__(self, i: int) -> int:
        if not 0 <= i < self._n:
            raise IndexError(f"index {i} is outside [0, {self._n})")
        if self._table is not None:
            return int(self._table[i])
        half, mask = self._half, self._mask
        while True:  # ends: i's cycle under the network holds i itself, which is below n
            left, right = i >> half, i & mask
            for k in self._keys:
                left, right = right, left ^ (splitmix64(right ^ k) & mask)
            i = (left << half) | right
            if i < self._n:
                return i


__all__ = ["IndexPermutation", "permutation"]
