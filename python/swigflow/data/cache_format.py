"""The file format of ``Dataset.cache(filename)``: data only, checked, and complete or refused.

A cache file is a TFRecord file (so every record carries CRC-32C checksums of its length and
bytes) of three kinds of record:

- the first: ``HEADER``, a zero byte and the format's name and version;
- one per element: the element encoded as below;
- the last: ``TRAILER_TAG`` (a zero byte, then a name) followed by the number of elements
  (uint64, little-endian).

A file without its trailer, with a count that disagrees, with any damaged record, or with an
encoding this module does not know raises ``DataLossError`` naming the file and the record. Nothing
in a file is ever executed: unlike a pickle, a cache written by someone else can only hold
values.

An element is a tree of: None, bool, int (int64), float, str, bytes, numpy scalars and arrays (of
booleans, numbers, fixed-width strings, or objects that are themselves encodable values, as
parse_example's bytes arrays), tuples, lists, dicts, and swigflow's SparseTensor and RaggedTensor.
Each value is a one-byte tag, then its fields; lengths and counts are uint64, little-endian.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.io.gfile import PathOrFile
from swigflow.tensors import RaggedTensor, SparseTensor

# Both start with a zero byte, which no element's tag is.
HEADER = b"\x00swigflow.cache.v1"
TRAILER_TAG = b"\x00swigflow.cache.end:"

# Array dtypes a file may name: numpy kinds whose bytes are plain data, and "O" for arrays of
# encoded values. Structured, datetime and void dtypes are refused.
_ARRAY_KINDS = frozenset("biufcSUO")
_MAX_RANK = 32
# Nesting deeper than this is refused when reading (a hostile file could recurse without end).
_MAX_DEPTH = 64

_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")


def trailer(count: int | None) -> bytes:
    return TRAILER_TAG + _U64.pack(count)


def encode(element: Any) -> bytes:
    """The bytes of one element; TypeError for a value the format cannot hold."""
    out = []
    _encode(element, out)
    return b"".join(out)


def _encode(value, out):
    if value is None:
        out.append(b"N")
    elif isinstance(value, np.generic):  # numpy scalars, np.bool_ included, keep their dtype
        _encode_array(np.asarray(value), out, b"g")
    elif isinstance(value, bool):
        out.append(b"T" if value else b"F")
    elif isinstance(value, int):
        try:
            out.append(b"i" + _I64.pack(value))
        except struct.error:
            raise TypeError(f"cache(filename) holds integers of 64 bits, not {value}") from None
    elif isinstance(value, float):
        out.append(b"f" + _F64.pack(value))
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        out.append(b"s" + _U64.pack(len(data)) + data)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        out.append(b"y" + _U64.pack(len(data)) + data)
    elif isinstance(value, np.ndarray):
        _encode_array(value, out, b"a")
    elif isinstance(value, SparseTensor):
        out.append(b"P")
        for part in (value.indices, value.values, value.dense_shape):
            _encode_array(np.asarray(part), out, b"a")
    elif isinstance(value, RaggedTensor):
        out.append(b"R")
        _encode(value.values, out)
        _encode_array(np.asarray(value.row_splits), out, b"a")
        _encode(value.uniform_row_length, out)
    elif type(value) in (tuple, list):
        out.append((b"t" if type(value) is tuple else b"l") + _U64.pack(len(value)))
        for item in value:
            _encode(item, out)
    elif type(value) is dict:
        out.append(b"d" + _U64.pack(len(value)))
        for key, item in value.items():
            _encode(key, out)
            _encode(item, out)
    else:
        raise TypeError(
            f"cache(filename) cannot store a {type(value).__name__}: elements are arrays, "
            "numbers, strings, bytes and tuples, lists and dicts of them (cache() without a "
            "filename keeps any element in memory)"
        )


def _encode_array(array, out, tag):
    if array.dtype.kind not in _ARRAY_KINDS or array.ndim > _MAX_RANK:
        raise TypeError(f"cache(filename) cannot store arrays of {array.dtype}")
    dtype = array.dtype.str.encode("ascii")
    out.append(tag + bytes([len(dtype)]) + dtype + bytes([array.ndim]))
    out.append(b"".join(_U64.pack(d) for d in array.shape))
    if array.dtype.kind == "O":
        for item in array.ravel(order="C"):
            _encode(item, out)
    else:
        out.append(np.ascontiguousarray(array).tobytes())


class _Reader:
    """Decodes one record; every read is bounded by the record's bytes."""

    def __init__(self, data):
        self.data = memoryview(data)
        self.at = 0

    def take(self, n):
        if n < 0 or n > len(self.data) - self.at:
            raise ValueError(f"{n} bytes wanted at byte {self.at}, {len(self.data) - self.at} left")
        chunk = self.data[self.at : self.at + n]
        self.at += n
        return chunk

    def u64(self):
        return _U64.unpack(self.take(8))[0]

    def value(self, depth=0):
        if depth > _MAX_DEPTH:
            raise ValueError(f"values nested more than {_MAX_DEPTH} deep")
        tag = bytes(self.take(1))
        if tag == b"N":
            return None
        if tag in (b"T", b"F"):
            return tag == b"T"
        if tag == b"i":
            return _I64.unpack(self.take(8))[0]
        if tag == b"f":
            return _F64.unpack(self.take(8))[0]
        if tag == b"s":
            return bytes(self.take(self.u64())).decode("utf-8", "surrogatepass")
        if tag == b"y":
            return bytes(self.take(self.u64()))
        if tag in (b"a", b"g"):
            array = self.array(depth)
            return array[()] if tag == b"g" else array
        if tag == b"P":
            parts = [self.expect_array(depth) for _ in range(3)]
            return SparseTensor(*parts)
        if tag == b"R":
            values = self.value(depth + 1)
            splits = self.expect_array(depth)
            uniform = self.value(depth + 1)
            if not isinstance(values, (np.ndarray, RaggedTensor)) or not (
                uniform is None or isinstance(uniform, int)
            ):
                raise ValueError("a RaggedTensor of the wrong parts")
            return RaggedTensor(values, splits, uniform)
        if tag in (b"t", b"l"):
            n = self.bounded_count()
            items = [self.value(depth + 1) for _ in range(n)]
            return tuple(items) if tag == b"t" else items
        if tag == b"d":
            n = self.bounded_count()
            result = {}
            for _ in range(n):
                key = self.value(depth + 1)
                try:
                    result[key] = self.value(depth + 1)
                except TypeError:  # an unhashable key
                    raise ValueError(f"a dict key of type {type(key).__name__}") from None
            return result
        raise ValueError(f"unknown tag {tag!r} at byte {self.at - 1}")

    def bounded_count(self):
        n = self.u64()
        if n > len(self.data) - self.at:  # every item takes at least one byte
            raise ValueError(f"a count of {n} with {len(self.data) - self.at} bytes left")
        return n

    def expect_array(self, depth):
        if bytes(self.take(1)) != b"a":
            raise ValueError("an array expected")
        return self.array(depth)

    def array(self, depth):
        name = bytes(self.take(self.take(1)[0])).decode("ascii")
        try:
            dtype = np.dtype(name)
        except TypeError:
            raise ValueError(f"unknown dtype {name!r}") from None
        if dtype.kind not in _ARRAY_KINDS or dtype.str != name or dtype.fields is not None:
            raise ValueError(f"dtype {name!r} is not one a cache holds")
        rank = self.take(1)[0]
        if rank > _MAX_RANK:
            raise ValueError(f"rank {rank}")
        shape = tuple(self.u64() for _ in range(rank))
        count = 1
        for d in shape:
            count *= d
        left = len(self.data) - self.at
        if dtype.kind == "O":
            if count > left:  # every item takes at least one byte
                raise ValueError(f"{count} items with {left} bytes left")
            array = np.empty(count, dtype=object)
            for i in range(count):
                array[i] = self.value(depth + 1)
            return array.reshape(shape)
        if dtype.itemsize and count > left // dtype.itemsize:
            raise ValueError(f"an array of {shape} {dtype} with {left} bytes left")
        data = self.take(count * dtype.itemsize)
        return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def decode(record: Any, path: PathOrFile, index: int) -> Any:
    """The element in record `index` of the cache file `path` (DataLossError if it is damaged)."""
    reader = _Reader(record)
    try:
        element = reader.value()
        if reader.at != len(reader.data):
            raise ValueError(f"{len(reader.data) - reader.at} bytes after the element")
    except (ValueError, UnicodeDecodeError, OverflowError, MemoryError) as e:
        raise errors.DataLossError(
            f"the cache file {path} is damaged: element {index} does not decode ({e})"
        ) from None
    return element


def read_count(record: Any, path: PathOrFile) -> int | None:
    """The element count of a trailer record, or None when `record` is not a trailer."""
    if not record.startswith(TRAILER_TAG):
        return None
    if len(record) != len(TRAILER_TAG) + 8:
        raise errors.DataLossError(f"the cache file {path} is damaged: a malformed trailer")
    return _U64.unpack(record[len(TRAILER_TAG) :])[0]
