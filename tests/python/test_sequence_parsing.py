"""parse_sequence_example / parse_single_sequence_example against TensorFlow 2.21's recorded
results and errors (tests/testdata/make_tf_sequence.py wrote them)."""

import json
import os

import numpy as np
import pytest

import swigflow
from swigflow import errors
from swigflow.io import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    parse_sequence_example,
    parse_single_sequence_example,
)

DATA = os.path.join(os.path.dirname(__file__), "..", "testdata", "tf_sequence")
with open(os.path.join(DATA, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)
CASES = MANIFEST["cases"]
RECORDS = list(swigflow.io.tf_record_iterator(os.path.join(DATA, "sequence_examples.tfrecord")))


def spec(entry):
    kind, *args = entry
    if kind == "FixedLen":
        shape, dtype, default = args
        return FixedLenFeature(shape, dtype, None if default is None else bytes.fromhex(default))
    if kind == "FixedLenSequence":
        shape, dtype, allow_missing, default = args
        return FixedLenSequenceFeature(shape, dtype, allow_missing, default)
    if kind == "VarLen":
        return VarLenFeature(args[0])
    return RaggedFeature(args[0])


CONTEXT = {k: spec(v) for k, v in MANIFEST["specs"]["context"].items()}
SEQUENCE = {k: spec(v) for k, v in MANIFEST["specs"]["sequence"].items()}


def encode_values(array):
    array = np.asarray(array)
    if array.dtype == object or array.dtype.kind == "S":  # a scalar string is plain bytes
        return [bytes(v).hex() for v in array.ravel()]
    if array.dtype == np.float32:
        return [v.tobytes().hex() for v in array.ravel()]
    return [int(v) for v in array.ravel()]


def encode(value):
    """Our result in the generator's JSON layout."""
    if isinstance(value, swigflow.SparseTensor):
        return {
            "indices": value.indices.tolist(),
            "values": encode_values(value.values),
            "dense_shape": value.dense_shape.tolist(),
        }
    if isinstance(value, swigflow.RaggedTensor):
        return {
            "values": encode_values(value.flat_values),
            "nested_row_splits": [s.tolist() for s in value.nested_row_splits],
        }
    return {"shape": list(np.shape(value)), "values": encode_values(value)}


def tf_words(message):
    return message.split("}} ", 1)[-1].split(" [Op:")[0]


def test_batch_equals_tensorflow():
    context, sequence, lengths = parse_sequence_example(RECORDS, CONTEXT, SEQUENCE)
    expected = CASES["batch"]["result"]
    assert {k: encode(v) for k, v in context.items()} == expected["context"]
    assert {k: encode(v) for k, v in sequence.items()} == expected["sequence"]
    assert {k: encode(v) for k, v in lengths.items()} == expected["lengths"]


@pytest.mark.parametrize("index", range(3))
def test_single_equals_tensorflow(index):
    context, sequence = parse_single_sequence_example(RECORDS[index], CONTEXT, SEQUENCE)
    expected = CASES[f"single_{index}"]["result"]
    assert {k: encode(v) for k, v in context.items()} == expected["context"]
    assert {k: encode(v) for k, v in sequence.items()} == expected["sequence"]


@pytest.mark.parametrize(
    ("case", "records", "context", "sequence"),
    [
        ("missing_required_list", RECORDS, None, {"tokens": FixedLenSequenceFeature([2], "int64")}),
        (
            "wrong_row_size",
            RECORDS[:1],
            None,
            {"tokens": FixedLenSequenceFeature([3], "int64", allow_missing=True)},
        ),
        (
            "wrong_type",
            RECORDS[:1],
            None,
            {"tokens": FixedLenSequenceFeature([2], "float32", allow_missing=True)},
        ),
        ("missing_required_context", RECORDS, {"name": FixedLenFeature([], "string")}, None),
    ],
)
def test_errors_equal_tensorflow(case, records, context, sequence):
    expected = CASES[case]
    with pytest.raises(errors.OpError) as info:
        parse_sequence_example(records, context, sequence)
    assert type(info.value).__name__ == expected["error"]
    assert info.value.message == tf_words(expected["message"])


def test_bad_specs_and_inputs():
    with pytest.raises(TypeError, match="FixedLenSequenceFeature, VarLenFeature or RaggedFeature"):
        parse_sequence_example(RECORDS, None, {"x": FixedLenFeature([], "int64")})
    with pytest.raises(ValueError, match="at least one"):
        parse_sequence_example(RECORDS)
    with pytest.raises(TypeError, match="parse_single_sequence_example"):
        parse_sequence_example(RECORDS[0], None, {"x": VarLenFeature("int64")})
    with pytest.raises(errors.InvalidArgumentError, match=r"Index: 1\. malformed SequenceExample"):
        parse_sequence_example([RECORDS[0], b"\x12\x80"], None, {"x": VarLenFeature("int64")})


def test_ragged_rows_can_be_indexed():
    _, sequence, _ = parse_sequence_example(RECORDS, None, {"tags": RaggedFeature("string")})
    tags = sequence["tags"]
    assert tags.to_list() == [[[b"x"], [], [b"y", b"z"]], [], [[b"w"]]]
    assert tags[0].to_list() == [[b"x"], [], [b"y", b"z"]]
