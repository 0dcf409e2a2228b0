"""The native tf.train.Example codec: serialized Examples to and from plain Python values,
with no protobuf message in between (swigflow.train's classes are for building messages; this
is the fast path of the CLI's and Ray's writers).

A feature is ``(kind, values)``: kind is feature_spec's BYTES, FLOAT or INT64, values a list of
bytes, floats or ints. Encoding is canonical (keys sorted, packed numbers), so equal features
give equal bytes.
"""

from __future__ import annotations

from typing import Any

from swigflow import pywrap_swigflow as _pywrap
from swigflow.io.feature_spec import BYTES, FLOAT, INT64


def encode_example(features: Any) -> bytes:
    """The bytes of an Example given as ``{key: (kind, values)}``."""
    return _pywrap.EncodeExample(features)


def decode_example(serialized: Any) -> dict[str, Any]:
    """``{key: (kind, values)}`` of a serialized Example.

    Raises:
      InvalidArgumentError: the bytes are not an Example.
    """
    return _pywrap.DecodeExample(serialized)


def encode_example_columns(columns: Any, n: int) -> list[bytes]:
    """The bytes of n Examples given by columns, encoded without the GIL: a list of n bytes.

    columns: ``[(key, kind, values, splits)]``, values a 1-D array (float32 for FLOAT, int64 for
    INT64, objects holding bytes for BYTES) and splits the n + 1 int64 bounds of each row's
    values in it (a row with none has an empty feature of that kind).
    """
    return _pywrap.EncodeExampleColumns(columns, n)


__all__ = ["BYTES", "FLOAT", "INT64", "decode_example", "encode_example", "encode_example_columns"]
