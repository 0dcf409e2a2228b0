"""What an iterator state is bound to: a digest of the dataset it was taken from.

A state says where an iterator stood (offsets, counts, seeds); resumed over another dataset of
the same shape it would silently start at a foreign offset. So a state carries the digest of
its dataset, and resuming over a dataset with another digest is refused.

The digest covers what decides the elements: each step's kind and arguments (numbers, strings,
arrays by content, nested specs), the files (local ones with their sizes), and the inputs,
recursively. It
leaves out what a state carries itself (seeds that the state records) and what is made while
iterating (caches, counters). Python functions count by module and qualified name, not by code,
so editing a function's body keeps saved states usable; swapping in another function does not.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import struct
import types
from typing import Any

import numpy as np

_DIGEST_BYTES = 16


def digest(value: Any, fields_of: Any) -> str:
    """32 hex digits digesting `value`. fields_of(v) gives the {name: value} fields of an object
    whose identity is not its attributes (a dataset: its steps' arguments), else None."""
    h = hashlib.blake2b(digest_size=_DIGEST_BYTES)
    _Walker(h, fields_of).value(value)
    return h.hexdigest()


class _Walker:
    """Feeds a value into the hash as tagged, length-prefixed parts, so that no two different
    values can give the same byte stream."""

    def __init__(self, h, fields_of):
        self._h = h
        self._fields_of = fields_of
        self._open = set()  # ids of containers being walked (a cycle is hashed as a back-reference)

    def _part(self, tag, data=b""):
        self._h.update(tag + struct.pack("<Q", len(data)) + data)

    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes, enum.Enum)):
            self._part(b"s", f"{type(v).__name__}:{v!r}".encode("utf-8", "surrogatepass"))
        elif isinstance(v, (np.ndarray, np.generic)):
            self._array(np.asarray(v))
        elif id(v) in self._open:
            self._part(b"c", type(v).__qualname__.encode())
        elif (fields := self._fields_of(v)) is not None:
            # A step by its kind alone, so that moving a step's class keeps saved states.
            self._nested(v, b"D", sorted(fields.items()), type(v).__qualname__.lstrip("_"))
        elif isinstance(v, dict):
            items = sorted(v.items(), key=lambda kv: repr(kv[0]))
            self._nested(v, b"m", [x for kv in items for x in kv])
        elif isinstance(v, (list, tuple, set, frozenset)):
            items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else v
            self._nested(v, b"l", items)
        elif isinstance(v, functools.partial):
            self._nested(v, b"p", [v.func, v.args, v.keywords])
        elif isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
            name = f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', '')}"
            self._part(b"f", name.encode())
        elif hasattr(v, "__dict__"):  # a spec or options object: its kind and its fields
            self._nested(v, b"o", sorted(vars(v).items()))
        else:  # an opaque value (a file object, a lock): only its kind is known
            self._part(b"t", type(v).__qualname__.encode())

    def _nested(self, v, tag, items, kind=None):
        kind = kind or f"{type(v).__module__}.{type(v).__qualname__}"
        self._part(tag, f"{kind}:{len(items)}".encode())
        self._open.add(id(v))
        try:
            for item in items:
                self.value(item)
        finally:
            self._open.discard(id(v))

    def _array(self, a):
        self._part(b"a", f"{a.dtype.str}:{a.shape}".encode())
        if a.dtype.hasobject:
            for x in a.ravel():
                self.value(x)
        elif a.dtype.itemsize:
            self._h.update(np.ascontiguousarray(a).reshape(-1).view(np.uint8).data)
