"""tf.io.decode_raw: bytes reinterpreted as numbers, numpy out."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors

_TYPES = {
    np.dtype(t)
    for t in (
        np.float16,
        np.float32,
        np.float64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.complex64,
        np.complex128,
        np.bool_,
    )
}  # fmt: skip  -- TensorFlow's out_type list


def decode_raw(
    input_bytes: Any,
    out_type: DTypeLike,
    little_endian: bool = True,
    fixed_length: int | None = None,
    name: str | None = None,
) -> np.ndarray:
    """The bytes of each string as numbers of `out_type`, as ``tf.io.decode_raw``: a string
    gives a 1-D array, a batch of strings (of one length) an array with one more dimension.

    Args:
      input_bytes: bytes, or a list / numpy array of them.
      out_type: a numpy dtype (or its name): float16/32/64, int8/16/32/64, uint8/16,
        complex64/128 or bool.
      little_endian: how the bytes are ordered (ignored for one-byte types).
      fixed_length: when given, every string is cut or zero-padded to this many bytes first.
      name: accepted for TensorFlow's signature; unused.

    Raises:
      InvalidArgumentError: strings of different lengths, or a length that is not a multiple of
        the type's size (TensorFlow's messages).
    """
    del name
    dtype = np.dtype(out_type)
    if dtype not in _TYPES:
        raise TypeError(f"decode_raw cannot decode into {dtype}")
    single = isinstance(input_bytes, (bytes, bytearray, memoryview))
    strings = np.asarray([bytes(input_bytes)] if single else input_bytes, dtype=object)
    flat = [bytes(s) for s in strings.ravel()]
    if fixed_length is not None:
        if fixed_length % dtype.itemsize:
            raise errors.InvalidArgumentError(
                f"fixed_length ({fixed_length}) must be a multiple of the size of out_type "
                f"({dtype.itemsize})"
            )
        flat = [s[:fixed_length].ljust(fixed_length, b"\0") for s in flat]
    if flat:
        width = len(flat[0])
        for i, s in enumerate(flat):
            if len(s) != width:
                raise errors.InvalidArgumentError(
                    "DecodeRaw requires input strings to all be the same size, but element "
                    f"{i} has size {width} != {len(s)}"
                )
        if width % dtype.itemsize:
            raise errors.InvalidArgumentError(
                f"Input to DecodeRaw has length {width} that is not a multiple of "
                f"{dtype.itemsize}, the size of {dtype}"
            )
    else:
        width = fixed_length or 0
    order = "<" if little_endian else ">"
    wire = dtype.newbyteorder(order) if dtype.itemsize > 1 and dtype.kind != "b" else dtype
    values = np.frombuffer(b"".join(flat), dtype=wire).astype(dtype, copy=False)
    out = values.reshape(*strings.shape, width // dtype.itemsize)
    return out[0] if single else out.copy()


__all__ = ["decode_raw"]
