"""serialize_tensor, parse_tensor, decode_json_example, SparseFeature and RaggedFeature
partitions against TensorFlow 2.21's recorded behaviour (tests/testdata/tf_tensors, written by
make_tf_tensors.py), plus the cases where swigflow deliberately refuses more than TensorFlow."""

import json
import os

import numpy as np
import pytest
from google.protobuf import descriptor_pb2

import swigflow
from swigflow import errors
from swigflow.io import (
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    decode_json_example,
    parse_example,
    parse_tensor,
    serialize_tensor,
)
from swigflow.tensors import RaggedTensor, SparseTensor
from swigflow.train import Example, example_from_dict

DATA = os.path.join(os.path.dirname(__file__), "..", "testdata", "tf_tensors")
with open(os.path.join(DATA, "MANIFEST.json")) as _f:
    MANIFEST = json.load(_f)


def _array(recorded):
    """The array make_tf_tensors.py serialized, rebuilt from its manifest entry."""
    dtype = np.dtype(recorded["dtype"])
    values = recorded["values"]
    if dtype.kind == "O":
        values = [bytes.fromhex(v) for v in values]
    elif dtype.kind == "c":
        values = [complex(re, im) for re, im in values]
    array = np.empty(len(values), dtype=dtype)
    array[:] = values
    return array.reshape(recorded["shape"])


def test_the_schema_is_tensorflows():
    with open(os.path.join(DATA, "tensor_descriptors.binpb"), "rb") as f:
        theirs = descriptor_pb2.FileDescriptorSet.FromString(f.read())

    def fields(message_type):
        return [(f.name, f.number, f.type, f.label, f.type_name) for f in message_type.field]

    checked = 0
    for file in theirs.file:
        for message_type in file.message_type:
            ours = descriptor_pb2.DescriptorProto()
            full_name = f"{file.package}.{message_type.name}"
            swigflow.proto.POOL.FindMessageTypeByName(full_name).CopyToProto(ours)
            assert fields(ours) == fields(message_type), full_name
            assert [fields(n) for n in ours.nested_type] == [
                fields(n) for n in message_type.nested_type
            ], full_name
            checked += 1
        for enum in file.enum_type:
            ours = swigflow.proto.POOL.FindEnumTypeByName(f"{file.package}.{enum.name}")
            assert [(v.name, v.number) for v in ours.values] == [
                (v.name, v.number) for v in enum.value
            ]
    assert checked == 5  # TensorProto, VariantTensorDataProto, TensorShapeProto,
    # ResourceHandleProto, SerializedDType


@pytest.mark.parametrize("name", sorted(MANIFEST["serialize"]))
def test_serialize_tensor_writes_tensorflows_bytes(name):
    case = MANIFEST["serialize"][name]
    array = _array(case["array"])
    data = serialize_tensor(array)
    assert data.hex() == case["hex"]
    back = parse_tensor(data, array.dtype)
    assert back.shape == array.shape and back.dtype == array.dtype
    assert back.tolist() == array.tolist()


@pytest.mark.parametrize("name", sorted(MANIFEST["parse"]))
def test_parse_tensor_equals_tensorflow(name):
    case = MANIFEST["parse"][name]
    data = bytes.fromhex(case["proto_hex"])
    if "error" in case:
        with pytest.raises(errors.InvalidArgumentError) as info:
            parse_tensor(data, case["out_type"])
        if case["message"].startswith("Type mismatch"):
            assert info.value.message == case["message"].replace(" [Op:ParseTensor]", "")
        else:
            assert info.value.message.startswith("Cannot parse tensor from proto: ")
        return
    out = parse_tensor(data, case["out_type"])
    want = case["result"]
    if "bytes_hex" in want:
        assert [v.hex() for v in out.ravel()] == want["bytes_hex"]
        assert list(out.shape) == want["shape"]
    elif "real" in want:
        assert out.real.tolist() == want["real"] and out.imag.tolist() == want["imag"]
        assert str(out.dtype) == want["dtype"]
    else:
        assert out.tolist() == want["values"]
        assert str(out.dtype) == want["dtype"]


def test_parse_tensor_refuses_what_it_cannot_hold():
    proto = swigflow.proto.message_class("tensorflow.TensorProto")
    huge = proto(dtype=1)
    huge.tensor_shape.dim.add(size=1 << 40)
    huge.float_val.append(1.0)
    with pytest.raises(errors.InvalidArgumentError, match="more than"):
        parse_tensor(huge.SerializeToString(), "float32")
    bfloat16 = proto(dtype=14)
    with pytest.raises(errors.InvalidArgumentError, match="DT_BFLOAT16"):
        parse_tensor(bfloat16.SerializeToString(), "float32")
    with pytest.raises(TypeError):
        parse_tensor(serialize_tensor(np.float32(1)), "no such type")
    # TensorFlow's names of the quantized types read their int_val.
    qint8 = proto(dtype=11, int_val=[-3])
    qint8.tensor_shape.dim.add(size=2)
    assert parse_tensor(qint8.SerializeToString(), "qint8").tolist() == [-3, -3]


@pytest.mark.parametrize("name", sorted(MANIFEST["json"]))
def test_decode_json_example_equals_tensorflow(name):
    case = MANIFEST["json"][name]
    if "error" in case:
        with pytest.raises(errors.InvalidArgumentError, match=r"^Error while parsing JSON: "):
            decode_json_example([case["text"]])
        return
    out = decode_json_example([case["text"]])
    assert out.shape == (1,)
    # TensorFlow's op writes repeated numbers unpacked; swigflow writes them packed, as
    # SerializeToString does (docs/differences.md). The messages are equal.
    theirs = Example.FromString(bytes.fromhex(case["result"]))
    assert Example.FromString(out[0]) == theirs
    assert out[0] == theirs.SerializeToString(deterministic=True)
    assert decode_json_example(case["text"]) == out[0]  # a single text


def _spec(description):
    kind, *args = description
    if kind == "sparse":
        index_key, value_key, dtype, size, already_sorted = args
        return SparseFeature(index_key, value_key, dtype, size, already_sorted=already_sorted)
    if kind == "varlen":
        return VarLenFeature(args[0])
    partition_types = {
        "splits": RaggedFeature.RowSplits,
        "lengths": RaggedFeature.RowLengths,
        "starts": RaggedFeature.RowStarts,
        "limits": RaggedFeature.RowLimits,
        "rowids": RaggedFeature.ValueRowIds,
        "uniform": RaggedFeature.UniformRowLength,
    }
    value_key, partitions, *validate = args
    return RaggedFeature(
        "int64" if kind == "ragged_int64" else "float32",
        value_key,
        partitions=[partition_types[p](a) for p, a in partitions],
        validate=bool(validate and validate[0]),
    )


# TensorFlow builds an invalid RaggedTensor from partitions that do not fit their values unless
# validate=True, and then words the error per partition type; swigflow always checks, with one
# message (README, Differences).
MISALIGNED = {"ragged_splits_too_long_validated", "ragged_lengths_negative_validated",
              "ragged_uniform_not_multiple"}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MANIFEST["features"]))
def test_sparse_and_ragged_features_equal_tensorflow(name):
    case = MANIFEST["features"][name]
    records = [bytes.fromhex(h) for h in case["examples_hex"]]
    spec = {key: _spec(d) for key, d in case["spec"].items()}
    if "error" in case:
        error = getattr(errors, case["error"], None) or {"ValueError": ValueError}[case["error"]]
        with pytest.raises(error) as info:
            parse_example(records, spec)
        message = str(info.value)
        if name in MISALIGNED:
            assert "values and partitions are not aligned" in message
        elif error is ValueError:
            assert message == case["message"]
        else:
            assert "Data types don't match" in message
        return
    out = parse_example(records, spec)
    for key, want in case["result"].items():
        got = out[key]
        if isinstance(got, SparseTensor):
            assert got.indices.tolist() == want["indices"]
            assert got.values.tolist() == want["values"]["values"]
            assert got.dense_shape.tolist() == want["dense_shape"]
        else:
            assert isinstance(got, RaggedTensor)
            assert got.to_list() == want["ragged"]
            assert str(got.shape) == want["shape"]


def test_partitions_that_tensorflow_leaves_invalid_are_refused():
    """Without validate=True TensorFlow returns RaggedTensors whose splits do not fit their
    values (values dropped or rows pointing past them); swigflow refuses them."""
    cases = [
        ({"v": np.float32([1.0])}, [RaggedFeature.RowSplits("s")]),  # values, no splits
        ({"v": np.float32([1.0, 2.0]), "s": [1, 2]}, [RaggedFeature.RowSplits("s")]),  # not at 0
        ({"v": np.float32([1.0, 2.0]), "s": [0, 2, 1, 2]}, [RaggedFeature.RowSplits("s")]),
        ({"v": np.float32([1.0, 2.0]), "s": [1, 0]}, [RaggedFeature.ValueRowIds("s")]),
        ({"v": np.float32([1.0, 2.0]), "s": [0]}, [RaggedFeature.ValueRowIds("s")]),
        ({"v": np.float32([1.0, 2.0, 3.0]), "s": [1, 2]}, [RaggedFeature.RowStarts("s")]),
        ({"v": np.float32([1.0, 2.0, 3.0]), "s": [1, 2]}, [RaggedFeature.RowLimits("s")]),
        ({"v": np.float32([1.0]), "s": [0, 1 << 40]}, [RaggedFeature.ValueRowIds("s")]),
    ]
    for features, partitions in cases:
        record = example_from_dict(features).SerializeToString()
        spec = {"r": RaggedFeature("float32", "v", partitions=partitions)}
        with pytest.raises(errors.InvalidArgumentError, match="Feature r: values and partitions"):
            parse_example([record], spec)


def test_ragged_feature_arguments():
    with pytest.raises(ValueError, match="row_splits_dtype"):
        RaggedFeature("float32", row_splits_dtype="float32")
    with pytest.raises(ValueError, match="must not be empty"):
        RaggedFeature("float32", value_key="")
    with pytest.raises(ValueError, match="positive"):
        RaggedFeature("float32", partitions=[RaggedFeature.UniformRowLength(0)])
    with pytest.raises(TypeError, match="partitions"):
        RaggedFeature("float32", partitions=["s"])
    spec = RaggedFeature("int64", "x", partitions=[RaggedFeature.RowSplits("s")])
    assert spec._fields == ("dtype", "value_key", "partitions", "row_splits_dtype", "validate")
    assert spec.row_splits_dtype == "int32"  # TensorFlow's default


def test_sparse_feature_arguments_and_errors():
    record = example_from_dict({"i": [1, 2], "v": np.float32([1.0])}).SerializeToString()
    with pytest.raises(errors.InvalidArgumentError, match="one index per value"):
        parse_example([record], {"s": SparseFeature("i", "v", "float32", 5)})
    with pytest.raises(TypeError, match="vocab_size"):
        parse_example([record], {"s": SparseFeature("i", "v", "float32", [5, 5])})
    with pytest.raises(ValueError, match="Missing index_key"):
        parse_example([record], {"s": SparseFeature([], "v", "float32", [])})
    sparse = parse_example(
        [example_from_dict({"i": [7], "v": np.float32([1.0])}).SerializeToString()],
        {"s": SparseFeature("i", "v", "float32", 5)},
    )["s"]
    assert sparse.indices.tolist() == [[0, 7]]  # kept, as TensorFlow keeps it
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = \[0,7\] is out of"):
        sparse.to_dense()
