"""Parsing serialized tf.train.Example records into arrays: ``tf.io.parse_example`` and friends,
with TensorFlow's feature specs, results and error messages.

Results are numpy arrays (strings as object arrays of bytes), :class:`swigflow.SparseTensor` for
:class:`VarLenFeature` and :class:`swigflow.RaggedTensor` for :class:`RaggedFeature`.
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
from google.protobuf import json_format, message

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io.feature_spec import (  # the spec classes are tf.io's, exported from here too
    FixedLenFeature,
    FixedLenSequenceFeature,
    ParsePlan,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    drop_batch_dimension,
)
from swigflow.io.tf_record import record_bytes
from swigflow.train import Example

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "SparseFeature",
    "VarLenFeature",
    "decode_json_example",
    "parse_example",
    "parse_single_example",
]


def parse_example(
    serialized: Any, features: Any, example_names: Any = None, name: str | None = None
) -> dict[str, Any]:
    """Parses a batch of serialized Examples, as ``tf.io.parse_example``.

    Each record is read once in C++, without the GIL, decoding only the requested features;
    large batches are split over the cores (``SWIGFLOW_NUM_THREADS`` limits them).

    Args:
      serialized: a list (or numpy array) of serialized ``tf.train.Example`` bytes (or of
        swigflow.train.Example messages).
      features: ``{key: FixedLenFeature | VarLenFeature | SparseFeature |
        FixedLenSequenceFeature | RaggedFeature}``, or a ``feature_spec.ParsePlan`` made from
        one (checked once, for a caller parsing many batches with the same features).
      example_names: optional names of the examples, used in error messages.
      name: ignored (TensorFlow's op name).

    Returns:
      ``{key: result}``: numpy arrays ``[batch, *shape]`` for fixed-length features,
      SparseTensor for VarLenFeature and SparseFeature, RaggedTensor for RaggedFeature.

    Raises:
      ValueError: specs parse_example cannot take (unknown dimensions, keys used by features of
        different kinds or dtypes), with TensorFlow's messages.
      InvalidArgumentError: a required feature is missing, a feature has the wrong type or number
        of values, a record is not a valid Example (the message names the record), or a
        SparseFeature's indices or a RaggedFeature's partitions do not fit its values.
    """
    del name
    plan = features if isinstance(features, ParsePlan) else ParsePlan(features)
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            "parse_example expects a list of serialized examples; use parse_single_example"
        )
    records = serialized.ravel() if isinstance(serialized, np.ndarray) else serialized
    names = None
    if example_names is not None and len(example_names) > 0:  # [] means none, as in TF
        names = [os.fsdecode(n) if isinstance(n, bytes) else str(n) for n in example_names]
    specs = plan.specs
    try:
        parsed = _pywrap.ParseExampleBatch(records, specs, names, _threads(len(records)))
    except TypeError:
        if not any(isinstance(r, (str, message.Message)) for r in records):
            raise
        # str records are tf.string values (their UTF-8 bytes); Example messages are taken as
        # their serialization. Checked only on this slow path.
        records = [record_bytes(r) for r in records]
        parsed = _pywrap.ParseExampleBatch(records, specs, names, _threads(len(records)))
    return plan.assemble(parsed, len(records))


def parse_example_rows(
    serialized: Any, plan: Any, dtypes: Any, python_scalars: bool = False
) -> list[Any]:
    """parse_example's values split per record, for callers that take one example at a time
    (swigflow.datasets): ``[[value per native spec of plan] per record]``, each cast to its
    numpy dtype in `dtypes` (one per ``plan.specs``; int64 specs to bool or an integer type,
    float32 specs to float32 or float64, strings to object). A fixed-length scalar is a numpy
    scalar (with python_scalars, a Python bool, int or float) or bytes; other fixed-length
    features are arrays of their shape; features read raw (``plan.raw_index``) are 1-D arrays
    of the record's values. `plan` is a ParsePlan without FixedLenSequenceFeatures."""
    records = [r if type(r) is bytes else bytes(r) for r in serialized]
    threads = _threads(len(records))
    return _pywrap.ParseExampleRows(records, plan.specs, dtypes, bool(python_scalars), threads)


def _threads(records):
    """Threads to parse `records` examples with: one for a few, where a pool's hand-offs (and
    asking the system for its CPU count, ~8 us) cost more than the parse."""
    return _pywrap.DefaultThreadCount() if records > 8 else 1


def parse_single_example(
    serialized: Any, features: Any, example_names: Any = None, name: str | None = None
) -> dict[str, Any]:
    """Parses one serialized Example, as ``tf.io.parse_single_example``: like parse_example
    without the batch dimension (VarLen results are 1-D sparse, Ragged results plain arrays).
    A FixedLenFeature with another number of values than its shape holds is reported in
    TensorFlow's single-example words ("Key: a.  Can't parse serialized Example: Some
    int64_list slice was not parsed.").

    Args:
        serialized: one serialized Example (bytes).
        features: a dict of feature name to FixedLenFeature, VarLenFeature, RaggedFeature or
            SparseFeature.
        example_names: the example's name for error messages.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A dict of feature name to array, SparseTensor or RaggedTensor.

    Raises:
        InvalidArgumentError: as TensorFlow: a malformed record, a missing required feature,
            wrong types or sizes.
    """
    names = None if example_names is None else [example_names]
    try:
        parsed = parse_example([serialized], features, names, name)
    except errors.InvalidArgumentError as e:
        single = _single_example_count_error(str(e))
        if single is None:
            raise
        raise errors.InvalidArgumentError(single) from e
    return {key: drop_batch_dimension(value) for key, value in parsed.items()}


# parse_example's count mismatch, which TensorFlow's single-example parser words differently.
_COUNT_MISMATCH = re.compile(
    r"(?:Name: .*?, )?Key: (?P<key>.*), Index: 0\.  Number of (?P<type>int64|float|string) "
    r"values != expected\.  Values size: (?P<size>\d+) but output shape: \[(?P<shape>[^\]]*)\]$"
)


def _single_example_count_error(message):
    """TensorFlow's single-example message for parse_example's count mismatch, else None:
    "Some <kind>_list slice was not parsed.", and "Parsing bytes_list failed." for more strings
    than the shape holds."""
    match = _COUNT_MISMATCH.match(message)
    if match is None:
        return None
    shape = [int(d) for d in match["shape"].split(",") if d.strip()]
    expected = int(np.prod(shape, dtype=np.int64))
    kind = {"int64": "int64_list", "float": "float_list", "string": "bytes_list"}[match["type"]]
    if kind == "bytes_list" and int(match["size"]) > expected:
        reason = "Parsing bytes_list failed."
    else:
        reason = f"Some {kind} slice was not parsed."
    return f"Key: {match['key']}.  Can't parse serialized Example: {reason}"


def decode_json_example(json_examples: Any, name: str | None = None) -> Any:
    """Example protos written as JSON, serialized, as ``tf.io.decode_json_example``.

    Args:
      json_examples: a str or bytes holding one ``tf.train.Example`` in protobuf's JSON mapping
        (``json_format.MessageToJson``), or a list / numpy array of them of any shape.
      name: accepted for TensorFlow's signature; unused.

    Returns:
      The serialized Example (bytes) for one input, else an object array of bytes of the input's
      shape.

    Raises:
      InvalidArgumentError: "Error while parsing JSON: ..." with protobuf's reason.
    """
    del name

    def decode(text):
        try:
            return json_format.Parse(text, Example()).SerializeToString(deterministic=True)
        except json_format.ParseError as e:
            raise errors.InvalidArgumentError(f"Error while parsing JSON: {e}") from None

    if isinstance(json_examples, (str, bytes)):
        return decode(json_examples)
    texts = np.asarray(json_examples, dtype=object)
    out = np.empty(texts.shape, dtype=object)
    for index, text in np.ndenumerate(texts):
        out[index] = decode(text)
    return out
