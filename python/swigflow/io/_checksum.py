"""CRC-32C checksums as TFRecord framing uses them."""

from __future__ import annotations

from typing import Any

from swigflow import pywrap_swigflow as _pywrap

_UINT32_MAX = 0xFFFFFFFF


def crc32c(data: Any, crc: int = 0) -> int:
    """The CRC-32C (Castagnoli) of ``data``, continuing from ``crc``.

    Args:
      data: any bytes-like object with a C-contiguous buffer: ``bytes``, ``bytearray``,
        ``memoryview``, a contiguous numpy array (its raw bytes).
      crc: the CRC-32C of the data that precedes ``data``; 0 to start.

    Returns:
      The CRC as an int in [0, 2**32). ``crc32c(b + c) == crc32c(c, crc32c(b))``.

    Raises:
      TypeError: ``data`` does not export a buffer (``str``, say) or ``crc`` is not an int.
      ValueError: ``crc`` is outside [0, 2**32) or ``data`` is not contiguous.
    """
    if not isinstance(crc, int) or isinstance(crc, bool):
        raise TypeError(f"crc must be an int, not {type(crc).__name__}")
    if not 0 <= crc <= _UINT32_MAX:
        raise ValueError(f"crc must be in [0, 2**32), got {crc}")
    return _pywrap.Crc32cExtend(crc, data)


def masked_crc32c(data: Any) -> int:
    """The masked CRC-32C that TFRecord files store for ``data`` (see :func:`crc32c`).

    Args:
        data: a bytes-like object.

    Returns:
        The masked CRC, an int.
    """
    return _pywrap.Crc32cMask(crc32c(data))
