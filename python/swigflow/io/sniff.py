"""The compression of a TFRecord file, told from its first bytes (for readers not told one)."""

from __future__ import annotations

import os

from swigflow import errors
from swigflow.io import gfile
from swigflow.io._checksum import masked_crc32c
from swigflow.io.gfile import PathOrFile


def file_head(path: PathOrFile, n: int) -> bytes:
    """The first n bytes of a local regular file or a URL; b"" for anything else: a pipe or
    device cannot be read twice, and sniffing would eat its first bytes."""
    local = gfile.local_path(path)
    if local is None:
        with gfile.GFile(path, "rb") as f:
            return f.read(n)
    if not os.path.isfile(local):
        return b""
    with open(local, "rb") as f:
        return f.read(n)


def sniff_compression(path: PathOrFile) -> str:
    """The compression of the file at ``path``: "GZIP", "ZLIB" or "" (none), from its first 12
    bytes. A valid TFRecord header means uncompressed, whatever else it looks like; then GZIP's
    magic bytes; then a valid zlib header (deflate, check bits). A file that cannot be read, or
    is not a regular file, gives "": its reader reports the problem."""
    try:
        head = file_head(path, 12)
    except (OSError, errors.OpError):
        return ""
    if len(head) == 12 and masked_crc32c(head[:8]) == int.from_bytes(head[8:], "little"):
        return ""
    if head[:2] == b"\x1f\x8b":
        return "GZIP"
    if len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0:
        return "ZLIB"  # deflate method, valid header check bits
    return ""
