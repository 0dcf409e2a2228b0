"""Writes tests/testdata/tf_tensors/: what TensorFlow does with serialized tensors, JSON
Examples, SparseFeatures and RaggedFeature partitions.

Run once with TensorFlow installed (it is not a dependency of swigflow or of the tests):

    python tests/testdata/make_tf_tensors.py

- tensor_descriptors.binpb: TensorFlow's own descriptors of TensorProto and the files it
  imports (tensor_shape.proto, types.proto, resource_handle.proto), for the schema check.
- MANIFEST.json:
  - "serialize": arrays of every numpy-expressible type and tf.io.serialize_tensor's bytes (hex);
  - "parse": tf.io.parse_tensor of hand-built TensorProtos (typed fields shorter or longer than
    the tensor, empty ones, bit patterns, unknown rank), with the values or the error;
  - "json": tf.io.decode_json_example's bytes (hex) or error for JSON texts;
  - "features": tf.io.parse_example results for SparseFeature and RaggedFeature partition specs,
    or the error class and message.
tests/python/test_tensor_proto.py and test_parsing_partitions.py compare swigflow against it.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
from google.protobuf import descriptor_pb2
from tensorflow.core.framework import tensor_pb2

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_tensors")


def _plain(value):
    if isinstance(value, tf.SparseTensor):
        return {
            "indices": value.indices.numpy().tolist(),
            "values": _plain(value.values),
            "dense_shape": value.dense_shape.numpy().tolist(),
        }
    if isinstance(value, tf.RaggedTensor):
        return {"ragged": _plain_list(value.to_list()), "shape": str(value.shape)}
    array = value.numpy()
    if array.dtype == object:
        return {"bytes_hex": [v.hex() for v in array.ravel()], "shape": list(array.shape)}
    if array.dtype.kind == "c":
        return {"real": array.real.tolist(), "imag": array.imag.tolist(), "dtype": str(array.dtype)}
    return {"values": array.tolist(), "dtype": value.dtype.name}


def _array(value):
    """A numpy value as JSON the test rebuilds it from: dtype, shape and values (bytes as hex,
    complex as [real, imag] pairs)."""
    array = np.asarray(value)
    flat = array.ravel()
    if array.dtype == object:
        values = [v.hex() for v in flat]
    elif array.dtype.kind == "c":
        values = [[v.real, v.imag] for v in flat.tolist()]
    else:
        values = flat.tolist()
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": values}


def _plain_list(rows):
    if isinstance(rows, list):
        return [_plain_list(r) for r in rows]
    return rows.hex() if isinstance(rows, bytes) else rows


def _outcome(fn):
    try:
        return {"result": fn()}
    except Exception as e:  # recorded, whatever it is
        return {"error": type(e).__name__, "message": str(e).split("}}")[-1].strip()}


def _descriptors():
    files, seen = [], set()

    def add(file):
        if file.name in seen:
            return
        for dep in file.dependencies:
            add(dep)
        seen.add(file.name)
        files.append(file)

    add(tensor_pb2.TensorProto.DESCRIPTOR.file)
    out = descriptor_pb2.FileDescriptorSet()
    for f in files:
        f.CopyToProto(out.file.add())
    return out.SerializeToString()


SERIALIZE = {
    "float32_scalar": np.float32(3.5),
    "float32_matrix": np.arange(6, dtype=np.float32).reshape(2, 3),
    "float64": np.array([1.5, -2.25]),
    "int8": np.array([-128, 127], np.int8),
    "uint8": np.array([0, 255], np.uint8),
    "int16": np.array([-3, 4], np.int16),
    "uint16": np.arange(3, dtype=np.uint16),
    "int32_empty": np.zeros((0, 3), np.int32),
    "int64": np.array([[1 << 40], [-5]], np.int64),
    "uint32": np.array([1 << 31], np.uint32),
    "uint64": np.array([1 << 63], np.uint64),
    "bool": np.array(True),
    "complex64": np.array([1 + 2j], np.complex64),
    "complex128": np.array([[3 - 4j]], np.complex128),
    "float16": np.array([1.5, -0.0], np.float16),
    "string": np.array([b"a", b"bc", b""], dtype=object),
    "string_scalar": np.array(b"\x00\xff", dtype=object),
}


def _proto(dtype, shape, **fields):
    p = tensor_pb2.TensorProto(dtype=dtype)
    if shape == "unknown":
        p.tensor_shape.unknown_rank = True
    else:
        for size in shape:
            p.tensor_shape.dim.add().size = size
    for name, value in fields.items():
        if isinstance(value, bytes):
            setattr(p, name, value)
        else:
            getattr(p, name).extend(value)
    return p


PARSE = {  # name: (proto, out_type)
    "short_float_val": (_proto(1, [4], float_val=[1.0, 2.0]), tf.float32),
    "no_values": (_proto(1, [4]), tf.float32),
    "long_float_val": (_proto(1, [2], float_val=[1.0, 2.0, 3.0]), tf.float32),
    "short_content": (_proto(1, [2], tensor_content=b"\0" * 4), tf.float32),
    "short_string_val": (_proto(7, [3], string_val=[b"x"]), tf.string),
    "half_val": (_proto(19, [2], half_val=[15360, 16384]), tf.float16),
    "uint8_int_val_wraps": (_proto(4, [2], int_val=[300, 2]), tf.uint8),
    "int8_int_val": (_proto(6, [3], int_val=[-1, 200]), tf.int8),
    "complex_short": (_proto(8, [2], scomplex_val=[1, 2]), tf.complex64),
    "dcomplex": (_proto(18, [1], dcomplex_val=[0.5, -1]), tf.complex128),
    "int64_val": (_proto(9, [2, 2], int64_val=[7]), tf.int64),
    "bool_val": (_proto(10, [3], bool_val=[True, False]), tf.bool),
    "uint64_val": (_proto(23, [1], uint64_val=[(1 << 64) - 1]), tf.uint64),
    "negative_dim": (_proto(1, [-1]), tf.float32),
    "unknown_rank": (_proto(1, "unknown"), tf.float32),
    "scalar_no_values": (_proto(1, []), tf.float32),
    "invalid_dtype": (_proto(0, []), tf.float32),
    "type_mismatch": (_proto(4, [1], int_val=[3]), tf.uint16),
    "content_and_val": (_proto(1, [1], tensor_content=b"\0\0\x80\x3f", float_val=[5]), tf.float32),
}

JSON = {
    "camel": '{"features": {"feature": {"a": {"floatList": {"value": [1, 2]}}}}}',
    "snake": '{"features": {"feature": {"a": {"float_list": {"value": [1, 2]}}}}}',
    "bytes": '{"features": {"feature": {"a": {"bytesList": {"value": ["aGk="]}}}}}',
    "int64_string": '{"features": {"feature": {"a": {"int64List": {"value": ["-3", 4]}}}}}',
    "empty": "{}",
    "bad_syntax": "{]",
    "unknown_field": '{"foo": 1}',
    "wrong_type": '{"features": {"feature": {"a": {"int64List": {"value": ["x"]}}}}}',
}


def _example(d):
    feature = {}
    for key, value in d.items():
        if isinstance(value, tuple):  # ("float", [...])
            kind, values = value
            if kind == "float":
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
            else:
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
        else:
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


SF, RF = tf.io.SparseFeature, tf.io.RaggedFeature
FEATURES = {  # name: (examples, {key: spec} as JSON-able description)
    "sparse_unsorted": ([{"i": [3, 1, 2], "v": ("float", [1, 2, 3])}, {}],
                        {"s": ["sparse", "i", "v", "float32", 5, False]}),
    "sparse_already_sorted": ([{"i": [3, 1], "v": ("float", [1, 2])}],
                              {"s": ["sparse", "i", "v", "float32", 5, True]}),
    "sparse_duplicates": ([{"i": [2, 2], "v": ("float", [1, 3])}],
                          {"s": ["sparse", "i", "v", "float32", 5, False]}),
    "sparse_2d": ([{"i": [1, 0, 1], "j": [2, 2, 0], "v": ("float", [1, 2, 3])}],
                  {"s": ["sparse", ["i", "j"], "v", "float32", [2, 3], False]}),
    "sparse_out_of_range": ([{"i": [7], "v": ("float", [1])}],
                            {"s": ["sparse", "i", "v", "float32", 5, False]}),
    "ragged_lengths_batch": ([{"v": ("float", [1, 2, 3]), "s": [1, 2]},
                              {"v": ("float", [4]), "s": [0, 1]}],
                             {"r": ["ragged", "v", [["lengths", "s"]]]}),
    "ragged_rowids_gap": ([{"v": ("float", [1, 2]), "s": [0, 3]}],
                          {"r": ["ragged", "v", [["rowids", "s"]]]}),
    "ragged_starts": ([{"v": ("float", [1, 2, 3]), "s": [0, 1]}],
                      {"r": ["ragged", "v", [["starts", "s"]]]}),
    "ragged_limits": ([{"v": ("float", [1, 2, 3]), "s": [1, 3]}, {"v": ("float", []), "s": []}],
                      {"r": ["ragged", "v", [["limits", "s"]]]}),
    "ragged_uniform_outer": ([{"v": ("float", [1, 2, 3]), "s": [0, 1, 3]}],
                             {"r": ["ragged", "v", [["uniform", 2], ["splits", "s"]]]}),
    "ragged_uniform_uniform": ([{"v": ("float", [1, 2, 3, 4])}],
                               {"r": ["ragged", "v", [["uniform", 2], ["uniform", 1]]]}),
    "ragged_missing_splits_no_values": ([{"v": ("float", [])}],
                                        {"r": ["ragged", "v", [["splits", "s"]]]}),
    "ragged_splits_too_long_validated": ([{"v": ("float", [1, 2]), "s": [0, 3]}],
                                         {"r": ["ragged", "v", [["splits", "s"]], True]}),
    "ragged_lengths_negative_validated": ([{"v": ("float", [1, 2]), "s": [3, -1]}],
                                          {"r": ["ragged", "v", [["lengths", "s"]], True]}),
    "ragged_uniform_not_multiple": ([{"v": ("float", [1, 2, 3])}],
                                    {"r": ["ragged", "v", [["uniform", 2]]]}),
    "ragged_partition_float": ([{"v": ("float", [1]), "s": ("float", [0, 1])}],
                               {"r": ["ragged", "v", [["splits", "s"]]]}),
    "keys_ragged_and_sparse": ([{"x": [1, 2]}],
                               {"x": ["varlen", "int64"], "r": ["ragged_int64", "x", []]}),
}  # fmt: skip

_PARTITION = {
    "splits": RF.RowSplits,
    "lengths": RF.RowLengths,
    "starts": RF.RowStarts,
    "limits": RF.RowLimits,
    "rowids": RF.ValueRowIds,
    "uniform": RF.UniformRowLength,
}


def tf_spec(description):
    kind, *args = description
    if kind == "sparse":
        index_key, value_key, dtype, size, already_sorted = args
        return SF(index_key, value_key, dtype, size, already_sorted=already_sorted)
    if kind == "varlen":
        return tf.io.VarLenFeature(args[0])
    value_key, partitions, *validate = args
    return RF(
        tf.int64 if kind == "ragged_int64" else tf.float32,
        value_key,
        partitions=[_PARTITION[p](a) for p, a in partitions],
        validate=bool(validate and validate[0]),
    )


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "tensor_descriptors.binpb"), "wb") as out:
        out.write(_descriptors())
    manifest = {
        "tensorflow": tf.__version__,
        "serialize": {
            k: {"array": _array(v), "hex": tf.io.serialize_tensor(v).numpy().hex()}
            for k, v in SERIALIZE.items()
        },
        "parse": {
            name: {
                "proto_hex": proto.SerializeToString().hex(),
                "out_type": out_type.name,
                **_outcome(
                    lambda p=proto, t=out_type: _plain(tf.io.parse_tensor(p.SerializeToString(), t))
                ),
            }
            for name, (proto, out_type) in PARSE.items()
        },
        "json": {
            name: {
                "text": text,
                **_outcome(lambda t=text: tf.io.decode_json_example([t]).numpy()[0].hex()),
            }
            for name, text in JSON.items()
        },
        "features": {
            name: {
                "examples_hex": [_example(e).hex() for e in examples],
                "spec": spec,
                **_outcome(
                    lambda ex=examples, sp=spec: {
                        k: _plain(v)
                        for k, v in tf.io.parse_example(
                            [_example(e) for e in ex], {k: tf_spec(d) for k, d in sp.items()}
                        ).items()
                    }
                ),
            }
            for name, (examples, spec) in FEATURES.items()
        },
    }
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as out:
        json.dump(manifest, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
