"""Settings from environment variables (``SWIGFLOW_*``), read when the work that needs them
runs, never at import: a bad value fails that work with an error naming the variable, and the
rest of swigflow (local reads, the command line's other commands) goes on working.

Sizes take the command line's syntax: a byte count, or a number with a unit (``256MB``,
``1.5GB``, ``64MiB``; KB, MB, GB, TB are powers of 1000, KiB ... TiB of 1024).
"""

from __future__ import annotations

import math
import os
from typing import Any

from swigflow import errors

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}  # fmt: skip


def parse_size(text: str, minimum: Any = 1) -> int:
    """'256MB', '1.5GB', '64MiB' or a byte count -> bytes, at least `minimum`.

    Raises:
      ValueError: not such a size.
    """
    t = text.strip().lower()
    number = t.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = t[len(number) :].strip()
    try:
        value = float(number) * _UNITS[unit]
    except (ValueError, KeyError):
        raise ValueError(f"not a size: {text!r} (e.g. 256MB, 1GB, 64MiB)") from None
    if not math.isfinite(value) or value >= 2**63:
        raise ValueError(f"not a size: {text!r} (at most 9.2 EB)")
    if value < minimum:
        unit = "byte" if minimum == 1 else "bytes"
        raise ValueError(f"a size must be at least {minimum} {unit}: {text!r}")
    return int(value)


def size(name: str, default: Any, minimum: Any = 0) -> int:
    """The size environment variable `name` gives (unset or empty: `default`).

    Raises:
      InvalidArgumentError: naming the variable, when its value is not a size of at least
        `minimum` bytes.
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return parse_size(text, minimum)
    except ValueError as e:
        raise errors.InvalidArgumentError(f"environment variable {name}={text!r}: {e}") from None


def flag(name: str, default: Any) -> bool:
    """The boolean environment variable `name` gives: 1/true/yes/on or 0/false/no/off, any
    case (unset or empty: `default`).

    Raises:
      InvalidArgumentError: naming the variable, for any other value.
    """
    text = os.environ.get(name, "").strip().lower()
    if not text:
        return default
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise errors.InvalidArgumentError(
        f"environment variable {name}={text!r}: expected 1 or 0 (true/false, yes/no, on/off)"
    )
