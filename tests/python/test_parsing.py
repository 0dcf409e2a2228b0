"""swigflow.io.parse_example / parse_single_example: TensorFlow's exact results and errors."""

import os

import numpy as np
import pytest
from golden import GOLDEN, MANIFEST, as_manifest, spec_from_manifest

import swigflow
from swigflow import errors, train
from swigflow.io import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
)

RECORDS = list(swigflow.io.tf_record_iterator(os.path.join(GOLDEN, "examples.tfrecord")))


def test_golden_parse_example_equals_tensorflow():
    spec = {k: spec_from_manifest(v) for k, v in MANIFEST["parse_example"]["spec"].items()}
    result = parse_example(RECORDS, spec)
    expected = MANIFEST["parse_example"]["result"]
    assert sorted(result) == sorted(expected)
    for key, want in expected.items():
        got = result[key]
        if "indices" in want:
            assert isinstance(got, swigflow.SparseTensor)
            assert got.indices.tolist() == want["indices"]
            assert got.dense_shape.tolist() == want["dense_shape"]
            assert as_manifest(got.values, got.values.dtype) == want["values"]
        else:
            assert list(got.shape) == want["shape"]
            assert as_manifest(got, got.dtype) == want["values"]
    assert result["fixed3"].dtype == np.float32
    assert result["id"].dtype == np.int64
    assert result["text"].dtype == object


def test_missing_required_raises_like_tensorflow():
    tf_error = MANIFEST["parse_example_missing_required"]
    tf_class, tf_message = tf_error.split(": ", 1)
    tf_words = tf_message.split("}} ", 1)[1].split(" [Op:")[0]
    with pytest.raises(errors.InvalidArgumentError) as info:
        parse_example(RECORDS, {"optional_label": FixedLenFeature([], "int64")})
    assert type(info.value).__name__ == tf_class
    assert info.value.message == tf_words


def serialized(*dicts):
    return [train.example_from_dict(d).SerializeToString() for d in dicts]


def test_type_and_count_errors_name_key_and_record():
    data = serialized({"x": [1, 2]}, {"x": [1.5]})
    with pytest.raises(errors.InvalidArgumentError) as info:
        parse_example(data, {"x": FixedLenFeature([2], np.int64)})
    assert info.value.message == (
        "Name: <unknown>, Key: x, Index: 1.  Data types don't match. "
        "Data type: float but expected type: int64"
    )
    with pytest.raises(errors.InvalidArgumentError) as info:
        parse_example(data[:1], {"x": FixedLenFeature([3], "int64")}, example_names=["first"])
    assert info.value.message == (
        "Name: first, Key: x, Index: 0.  Number of int64 values != expected.  "
        "Values size: 2 but output shape: [3]"
    )


def test_malformed_record_names_its_index():
    data = [*serialized({"x": 1}), b"\x0a\x80"]
    with pytest.raises(errors.InvalidArgumentError, match=r"Index: 1\. malformed Example"):
        parse_example(data, {"x": VarLenFeature("int64")})


def test_defaults_shapes_and_dtypes():
    data = np.array(serialized({"m": [[1.0, 2.0], [3.0, 4.0]]}, {}), dtype=object)
    out = parse_example(
        data,
        {
            "m": FixedLenFeature([2, 2], "float", default_value=[[0.0, 0.0], [0.0, -1.0]]),
            "s": FixedLenFeature([], np.bytes_, default_value=b"none"),
        },
    )
    assert out["m"].shape == (2, 2, 2)
    assert out["m"][1].tolist() == [[0.0, 0.0], [0.0, -1.0]]
    assert out["s"].tolist() == [b"none", b"none"]
    with pytest.raises(ValueError, match="dtype"):
        FixedLenFeature([], "float64")


def test_feature_without_kind_counts_as_missing():
    empty_kind = train.Example()
    empty_kind.features.feature["x"]  # present, no kind set
    data = [empty_kind.SerializeToString()]
    with pytest.raises(errors.InvalidArgumentError, match="is required but could not be found"):
        parse_example(data, {"x": FixedLenFeature([], "int64")})
    assert parse_example(data, {"x": FixedLenFeature([], "int64", default_value=7)})[
        "x"
    ].tolist() == [7]
    # An empty list is present: with FixedLen([0]) it parses, with FixedLen([]) the count is wrong.
    empty_list = serialized({"x": train.Feature(int64_list=train.Int64List())})
    assert parse_example(empty_list, {"x": FixedLenFeature([0], "int64")})["x"].shape == (1, 0)


def test_var_len_and_ragged():
    data = serialized({"t": [b"a", b"b"]}, {}, {"t": b"c"})
    sparse = parse_example(data, {"t": VarLenFeature("string")})["t"]
    assert sparse.indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    assert sparse.values.tolist() == [b"a", b"b", b"c"]
    assert sparse.dense_shape.tolist() == [3, 2]
    assert sparse.to_dense().tolist() == [[b"a", b"b"], [b"", b""], [b"c", b""]]
    ragged = parse_example(data, {"r": RaggedFeature("string", value_key="t")})["r"]
    assert ragged.row_splits.tolist() == [0, 2, 2, 3]
    assert ragged.to_list() == [[b"a", b"b"], [], [b"c"]]
    with pytest.raises(TypeError, match="partitions"):
        RaggedFeature("int64", partitions=("x",))


def test_fixed_len_sequence_pads_rows():
    data = serialized({"p": [1, 2, 3, 4]}, {"p": [5, 6]}, {})
    spec = {"p": FixedLenSequenceFeature([2], "int64", allow_missing=True, default_value=-1)}
    out = parse_example(data, spec)["p"]
    assert out.tolist() == [[[1, 2], [3, 4]], [[5, 6], [-1, -1]], [[-1, -1], [-1, -1]]]
    with pytest.raises(errors.InvalidArgumentError, match="not a multiple"):
        parse_example(serialized({"p": [1, 2, 3]}), spec)
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        parse_example(data, {"p": FixedLenSequenceFeature([2], "int64")})


def test_parse_single_example_drops_the_batch_dimension():
    record = serialized({"i": 3, "v": [1.0, 2.0], "f": [4, 5], "w": [1.0, 2.0]})[0]
    out = parse_single_example(
        record,
        {
            "i": FixedLenFeature([], "int64"),
            "v": VarLenFeature("float32"),
            "f": FixedLenFeature([2], "int64"),
            "r": RaggedFeature("float32", value_key="w"),
        },
    )
    assert out["i"].shape == () and int(out["i"]) == 3
    assert out["v"].indices.tolist() == [[0], [1]]
    assert out["v"].dense_shape.tolist() == [2]
    assert out["f"].tolist() == [4, 5]
    assert out["r"].tolist() == [1.0, 2.0]


def test_keys_of_different_kinds_are_refused():
    # TensorFlow's rules: dense, sparse and ragged keys are disjoint; a key has one dtype.
    record = serialized({"v": [1.0, 2.0]})
    cases = [
        ({"v": VarLenFeature("float32"), "r": RaggedFeature("float32", value_key="v")},
         "Ragged and sparse keys must not intersect"),
        ({"v": FixedLenFeature([2], "float32"), "r": RaggedFeature("float32", value_key="v")},
         "Dense and ragged keys must not intersect"),
        ({"v": VarLenFeature("float32"), "s": SparseFeature("v", "w", "float32", 3)},
         r"Conflicting type <dtype: 'int64'> vs <dtype: 'float32'> for feature v\."),
    ]  # fmt: skip
    for spec, message in cases:
        with pytest.raises(ValueError, match=message):
            parse_example(record, spec)


def test_bad_arguments():
    with pytest.raises(TypeError, match="parse_single_example"):
        parse_example(b"one record", {"x": VarLenFeature("int64")})
    with pytest.raises(ValueError):
        parse_example([], {})
    with pytest.raises(TypeError, match="unsupported feature spec"):
        parse_example([], {"x": "int64"})


def test_fixed_len_defaults_are_reshaped_never_broadcast():
    # parsing_ops_test.py, checked against TF 2.21: a default holding prod(shape) values is
    # reshaped; any other count is an error, a scalar for a shape of 4 included.
    empty = swigflow.train.Example().SerializeToString()
    spec = {"a": FixedLenFeature((2, 2), "int64", default_value=[1, 2, 3, 4])}
    assert swigflow.io.parse_example([empty], spec)["a"].tolist() == [[[1, 2], [3, 4]]]
    for bad in ([1, 2], 7, [1, 2, 3]):
        spec = {"a": FixedLenFeature((2, 2), "int64", default_value=bad)}
        with pytest.raises(errors.InvalidArgumentError, match="but the requested shape has 4"):
            swigflow.io.parse_example([empty], spec)


def test_str_records_and_empty_example_names_as_tensorflow():
    # parsing_ops_test.py: str values are tf.string (their UTF-8 bytes); example_names=[] is
    # the same as no names.
    record = swigflow.train.example_from_dict({"a": 3, "s": "é".encode()}).SerializeToString()
    spec = {"a": FixedLenFeature([], "int64")}
    as_text = record.decode("utf-8")  # this record's bytes happen to be valid UTF-8
    assert swigflow.io.parse_example([as_text], spec)["a"].tolist() == [3]
    assert swigflow.io.parse_example([record], spec, example_names=[])["a"].tolist() == [3]
    with pytest.raises(TypeError, match="must be bytes"):
        swigflow.io.parse_example([3], spec)


def test_decode_raw_as_tensorflow():
    # Values and messages from TF 2.21 (tf.io.decode_raw).
    decode_raw = swigflow.io.decode_raw
    assert decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], np.int16).tolist() == [
        [1, 2],
        [3, 4],
    ]
    assert decode_raw(b"\x01\x00\x02\x00", np.int16, little_endian=False).tolist() == [256, 512]
    assert decode_raw([b"ab", b"cd"], np.uint8).tolist() == [[97, 98], [99, 100]]
    padded = decode_raw([b"\x01\x00\x02\x00", b"\x03\x00"], np.int16, fixed_length=6)
    assert padded.tolist() == [[1, 2, 0], [3, 0, 0]]
    assert decode_raw(np.float32(1.5).tobytes(), "float32").tolist() == [1.5]
    with pytest.raises(errors.InvalidArgumentError, match="element 1 has size 4 != 2"):
        decode_raw([b"\x01\x00\x02\x00", b"\x03\x00"], np.int16)
    with pytest.raises(errors.InvalidArgumentError, match="length 3 that is not a multiple of 2"):
        decode_raw([b"\x01\x00\x02"], np.int16)
