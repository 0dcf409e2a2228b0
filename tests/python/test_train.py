"""swigflow.train: Example / SequenceExample codec against TensorFlow's golden files, and the
behaviour of tf.train's (protobuf) classes."""

import json
import math
import os
import struct

import numpy as np
import pytest

import swigflow
from swigflow import errors, train

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
with open(os.path.join(GOLDEN, "MANIFEST.json")) as f:
    FILES = json.load(f)["files"]


def golden_records(name):
    return list(swigflow.io.tf_record_iterator(os.path.join(GOLDEN, name)))


def expected_values(kind, values):
    if kind == "float":
        return [struct.unpack("<f", bytes.fromhex(v))[0] for v in values]
    if kind == "int64":
        return [int(v) for v in values]
    return [bytes.fromhex(v) for v in values]


def float_bits(values):
    return [struct.pack("<f", v).hex() for v in values]


def test_golden_examples_decode_exactly():
    records = golden_records("examples.tfrecord")
    manifest = FILES["examples.tfrecord"]["examples"]
    assert len(records) == len(manifest) == 50
    for record, expected in zip(records, manifest):
        example = train.Example.FromString(record)
        assert sorted(example.features.feature) == sorted(expected)
        for key, spec in expected.items():
            feature = example.features.feature[key]
            kind = feature.WhichOneof("kind")
            if spec["kind"] is None:
                assert kind is None
                continue
            assert kind == spec["kind"] + "_list"
            values = list(getattr(feature, kind).value)
            if spec["kind"] == "float":  # bit-exact: inf, -0.0, subnormals
                assert float_bits(values) == spec["values"]
            else:
                assert values == expected_values(spec["kind"], spec["values"])


def test_golden_sequence_examples_decode_exactly():
    records = golden_records("sequence_examples.tfrecord")
    manifest = FILES["sequence_examples.tfrecord"]["sequence_examples"]
    for record, expected in zip(records, manifest, strict=True):
        example = train.SequenceExample.FromString(record)
        for key, values in expected["context"].items():
            assert example.context.feature[key].int64_list.value == [int(v) for v in values]
        for key, steps in expected["feature_lists"].items():
            features = example.feature_lists.feature_list[key].feature
            assert [f.int64_list.value for f in features] == [[int(v) for v in s] for s in steps]


@pytest.mark.parametrize("name", ["examples.tfrecord", "sequence_examples.tfrecord"])
def test_round_trip_through_our_writer_and_reader(tmp_path, name):
    cls = train.Example if name == "examples.tfrecord" else train.SequenceExample
    originals = [cls.FromString(r) for r in golden_records(name)]
    path = tmp_path / "ours.tfrecord"
    with swigflow.io.TFRecordWriter(path) as writer:
        for message in originals:
            writer.write(message.SerializeToString())
    again = [cls.FromString(r) for r in swigflow.io.tf_record_iterator(path)]
    assert again == originals
    # Canonical: serializing what we parsed gives the same bytes again.
    assert [m.SerializeToString() for m in again] == [m.SerializeToString() for m in originals]


def test_constructors_and_access_like_tf_train():
    example = train.Example(
        features=train.Features(
            feature={
                "label": train.Feature(int64_list=train.Int64List(value=[3])),
                "image": train.Feature(bytes_list=train.BytesList(value=[b"\xff\xd8"])),
                "box": train.Feature(float_list=train.FloatList(value=[0.5, 0.25])),
            }
        )
    )
    back = train.Example.FromString(example.SerializeToString())
    assert back == example
    assert back.features.feature["label"].int64_list.value == [3]
    assert back.features.feature["image"].WhichOneof("kind") == "bytes_list"
    assert back.features.feature["box"].float_list.value == [0.5, 0.25]
    assert back.features.feature["box"].HasField("float_list")
    assert not back.features.feature["box"].HasField("int64_list")


def test_protobuf_style_mutation():
    example = train.Example()
    feature = example.features.feature["ids"]  # missing keys are created, as in protobuf maps
    assert "ids" in example.features.feature
    assert feature.WhichOneof("kind") is None
    feature.int64_list.value.append(7)  # changing an unset member selects it
    feature.int64_list.value.extend([8, 9])
    assert feature.WhichOneof("kind") == "int64_list"
    assert feature.int64_list.value == [7, 8, 9]
    feature.bytes_list.value.append(b"x")  # another member replaces it
    assert feature.WhichOneof("kind") == "bytes_list"
    assert feature.int64_list.value == []
    seq = train.SequenceExample()
    step = seq.feature_lists.feature_list["tokens"].feature.add()
    step.float_list.value[:] = [1.0, 2.0]
    assert train.SequenceExample.FromString(seq.SerializeToString()) == seq


def test_value_checks():
    assert train.FloatList(value=[0.1]).value[0] == float(np.float32(0.1))  # stored as float32
    assert math.isinf(train.FloatList(value=[1e40]).value[0])
    with pytest.raises(ValueError, match="out of range"):
        train.Int64List(value=[1 << 63])
    assert train.Int64List(value=[-(1 << 63), np.int32(5)]).value == [-(1 << 63), 5]
    with pytest.raises(TypeError):
        train.Int64List(value=[1.5])
    with pytest.raises(TypeError, match="encode str first"):
        train.BytesList(value=["text"])
    with pytest.raises(TypeError):
        train.FloatList(value=["1.0"])
    with pytest.raises(ValueError, match="at most one"):
        train.Feature(int64_list=train.Int64List(), float_list=train.FloatList())
    with pytest.raises(TypeError):
        train.Feature(int64_list=[1, 2])
    with pytest.raises(TypeError):
        train.Features(feature={1: train.Feature()})
    with pytest.raises(ValueError, match="no oneof"):
        train.Feature().WhichOneof("value")


def test_floats_keep_their_bits():
    values = [float("inf"), -0.0, float("nan"), 1e-45]
    example = train.example_from_dict({"f": values})
    back = train.Example.FromString(example.SerializeToString())
    assert float_bits(back.features.feature["f"].float_list.value) == float_bits(values)
    assert back == example  # NaN == NaN bitwise, as serialized
    assert train.FloatList(value=[0.0]) != train.FloatList(value=[-0.0])


def test_malformed_bytes_raise_invalid_argument():
    good = train.example_from_dict({"a": [1, 2, 3]}).SerializeToString()
    for bad in (good[:-1], b"\x0a\x80", b"\x0e", b"\x0a\x05\x0a\x03\x0a\x01"):
        with pytest.raises(errors.InvalidArgumentError, match=r"malformed Example.*at byte"):
            train.Example.FromString(bad)
    with pytest.raises(errors.InvalidArgumentError, match="malformed SequenceExample"):
        train.SequenceExample.FromString(good[:-1])
    with pytest.raises(TypeError):
        train.Example.FromString("not bytes")


def test_concatenated_serializations_merge():
    a = train.example_from_dict({"x": [1], "y": b"a"})
    b = train.example_from_dict({"y": [2.0]})
    merged = train.Example.FromString(a.SerializeToString() + b.SerializeToString())
    assert merged.features.feature["x"].int64_list.value == [1]
    assert merged.features.feature["y"].float_list.value == [2.0]


def test_example_from_dict_infers_kinds():
    example = train.example_from_dict(
        {
            "bytes": b"raw",
            "text": ["héllo", "world"],
            "int": 5,
            "bool": True,
            "floats": (0.5, 1.5),
            "array": np.arange(6, dtype=np.int32).reshape(2, 3),
            "float_array": np.array([1, 2], dtype=np.float32),
            "explicit": train.Feature(float_list=train.FloatList()),
        }
    )
    f = example.features.feature
    assert f["bytes"].bytes_list.value == [b"raw"]
    assert f["text"].bytes_list.value == ["héllo".encode(), b"world"]
    assert f["int"].int64_list.value == [5]
    assert f["bool"].int64_list.value == [1]
    assert f["floats"].float_list.value == [0.5, 1.5]
    assert f["array"].int64_list.value == [0, 1, 2, 3, 4, 5]
    assert f["float_array"].float_list.value == [1.0, 2.0]
    assert f["explicit"].WhichOneof("kind") == "float_list"
    with pytest.raises(ValueError, match="empty"):
        train.example_from_dict({"e": []})
    with pytest.raises(TypeError, match="cannot infer"):
        train.example_from_dict({"mixed": [1, b"x"]})


def test_repr_is_text_format():
    example = train.example_from_dict({"b": b'q"\x00', "a": [1, 2]})
    assert repr(example) == "\n".join(
        [
            "features {",
            "  feature {",
            '    key: "a"',
            "    value {",
            "      int64_list {",
            "        value: 1",
            "        value: 2",
            "      }",
            "    }",
            "  }",
            "  feature {",
            '    key: "b"',
            "    value {",
            "      bytes_list {",
            '        value: "q\\042\\000"',
            "      }",
            "    }",
            "  }",
            "}",
        ]
    )
