"""tf.io.decode_compressed: each string inflated (ZLIB, GZIP) or decompressed (ZSTD), numpy
out."""

from __future__ import annotations

import builtins
import re
import zlib
from typing import Any

import numpy as np

from swigflow import errors

# A decompressed string may be at most this long (TensorFlow's ZSTD limit, applied to every
# type here): a small input cannot make the process allocate without bound.
MAX_DECOMPRESSED_BYTES = 1 << 30
_TYPES = ("", "ZLIB", "GZIP", "ZSTD")


def decode_compressed(
    bytes: Any, compression_type: str | int | None = "", name: str | None = None
) -> Any:
    """Decompresses each string of `bytes`, as ``tf.io.decode_compressed``: bytes in, bytes
    out; a list or numpy array of them gives an object array of the same shape.

    compression_type: "" (none: returned as they are), "ZLIB", "GZIP" (members one after
    another are joined, as gzip reads them) or "ZSTD" (needs the optional zstandard package:
    ``pip install swigflow[zstd]``). Each string is handled whole, with the GIL released by
    zlib and zstandard while they work.

    Raises:
      InvalidArgumentError: another compression type, a ZSTD frame without its size or that
        does not decompress, or a result longer than MAX_DECOMPRESSED_BYTES.
      DataLossError: data that does not inflate, or stops before its end (TensorFlow returns
        what was inflated so far; swigflow refuses an incomplete string).
      UnimplementedError: ZSTD without the zstandard package.

    Args:
        bytes: a bytes object, or a list or numpy array of them.
        compression_type: "", "ZLIB", "GZIP" or "ZSTD", as above.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        bytes, or an object array of them of the input's shape.
    """
    del name
    kind = compression_type or ""
    if kind not in _TYPES:
        raise errors.InvalidArgumentError(
            "Only ZLIB, ZSTD, GZIP or NONE are supported compressions"
        )
    single = isinstance(bytes, (builtins.bytes, bytearray, memoryview))
    strings = np.asarray([builtins.bytes(bytes)] if single else bytes, dtype=object)
    decode = {"": builtins.bytes, "ZLIB": _zlib, "GZIP": _gzip, "ZSTD": _zstd}[kind]
    out = np.empty(strings.shape, dtype=object)
    for index, value in np.ndenumerate(strings):
        out[index] = decode(builtins.bytes(value))
    return out.reshape(-1)[0] if single else out


def _inflate(data, wbits, what):
    """(the first stream of data inflated, the bytes after it)."""
    stream = zlib.decompressobj(wbits=wbits)
    try:
        out = stream.decompress(data, MAX_DECOMPRESSED_BYTES + 1)
    except zlib.error as e:
        # "Error -3 while decompressing data: incorrect header check" as zlib's C API says it.
        match = re.match(r"Error (-?\d+) while decompressing data: (.*)", str(e))
        code, reason = match.groups() if match else ("?", str(e))
        raise errors.DataLossError(f"inflate() failed with error {code}: {reason}") from None
    if len(out) > MAX_DECOMPRESSED_BYTES:
        raise _too_large(what)
    if not stream.eof:
        raise errors.DataLossError(
            f"truncated {what} data: the stream stops after {len(data)} bytes, before its end "
            f"({len(out)} bytes inflated)"
        )
    return out, stream.unused_data


def _zlib(data):
    out, _ = _inflate(data, 15, "ZLIB")  # bytes after the stream are ignored, as by TensorFlow
    return out


def _gzip(data):
    parts, total = [], 0
    while True:
        out, data = _inflate(data, 31, "GZIP")
        parts.append(out)
        total += len(out)
        if total > MAX_DECOMPRESSED_BYTES:
            raise _too_large("GZIP")
        if not data.strip(b"\0"):  # the end, or the zero padding some writers leave
            return b"".join(parts)


def _zstd(data):
    try:
        import zstandard
    except ImportError:
        raise errors.UnimplementedError(
            "ZSTD decompression needs the zstandard package (pip install swigflow[zstd])"
        ) from None
    try:
        size = zstandard.frame_content_size(data)
    except zstandard.ZstdError:
        size = -1
    if size < 0:
        raise errors.InvalidArgumentError("Failed to determine decompressed size")
    if size > MAX_DECOMPRESSED_BYTES:
        raise _too_large("ZSTD", size)
    try:
        return zstandard.ZstdDecompressor().decompress(data, max_output_size=max(size, 1))
    except zstandard.ZstdError as e:  # TensorFlow's type and words for a bad frame
        raise errors.InvalidArgumentError(f"Failed to decompress zstd input: {e}") from None


def _too_large(what, size=None):
    stated = f" of {size} bytes" if size is not None else ""
    return errors.InvalidArgumentError(
        f"Decompressed {what} data{stated} exceeds maximum allowed size "
        f"({MAX_DECOMPRESSED_BYTES} bytes)"
    )


__all__ = ["MAX_DECOMPRESSED_BYTES", "decode_compressed"]
