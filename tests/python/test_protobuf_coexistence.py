"""swigflow.train beside TensorFlow's tf.train classes in one process, in both import orders.

TensorFlow's own descriptors (tests/testdata/tf_protos, recorded from TensorFlow 2.21) are
registered in protobuf's default pool under TensorFlow's file names, as `import tensorflow`
does; each order runs in a fresh interpreter. Messages must cross between the two sets of
classes exactly: bytes both ways, text format, JSON, and through swigflow's writer and parser.
"""

import os
import subprocess
import sys

import pytest
from google.protobuf import descriptor_pb2

import swigflow

DATA = os.path.join(os.path.dirname(__file__), "..", "testdata", "tf_protos")

CHECKS = r"""
import json, os, sys

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf import text_format


def import_tensorflow_stand_in():
    with open(os.path.join(sys.argv[2], "example_descriptors.binpb"), "rb") as f:
        files = descriptor_pb2.FileDescriptorSet.FromString(f.read()).file
    pool = descriptor_pool.Default()
    for file in files:
        pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow." + name))
        for name in ("Example", "SequenceExample", "Feature")
    }


if sys.argv[1] == "swigflow_first":
    import swigflow
    tf = import_tensorflow_stand_in()
else:
    tf = import_tensorflow_stand_in()
    import swigflow
train = swigflow.train

assert train.Example is not tf["Example"]
assert train.Example.DESCRIPTOR.full_name == tf["Example"].DESCRIPTOR.full_name
with open(os.path.join(sys.argv[2], "MANIFEST.json")) as f:
    manifest = json.load(f)

# TensorFlow's bytes and text of one Example read by our classes.
theirs = tf["Example"].FromString(bytes.fromhex(manifest["example_hex"]))
ours = train.Example.FromString(bytes.fromhex(manifest["example_hex"]))
assert ours == text_format.Parse(manifest["example_text"], train.Example())
assert ours.SerializeToString(deterministic=True).hex() == manifest["example_hex"]

# Both ways, by bytes, text format and JSON.
assert tf["Example"].FromString(ours.SerializeToString()) == theirs
assert train.Example.FromString(theirs.SerializeToString()) == ours
assert text_format.Parse(text_format.MessageToString(theirs), train.Example()) == ours
assert text_format.Parse(text_format.MessageToString(ours), tf["Example"]()) == theirs
assert json_format.Parse(json_format.MessageToJson(theirs), train.Example()) == ours
assert json_format.Parse(json_format.MessageToJson(ours), tf["Example"]()) == theirs
sequence = train.SequenceExample()
sequence.feature_lists.feature_list["t"].feature.add().float_list.value.extend([1.5, -2.0])
assert tf["SequenceExample"].FromString(sequence.SerializeToString()).SerializeToString() == (
    sequence.SerializeToString()
)

# TensorFlow's messages through swigflow: example_from_dict, the writer and parse_example.
mixed = train.example_from_dict({"label": theirs.features.feature["label"], "x": 1.0})
assert mixed.features.feature["label"] == ours.features.feature["label"]
path = os.path.join(sys.argv[3], "mixed.tfrecord")
with swigflow.io.TFRecordWriter(path) as writer:
    writer.write(theirs)
    writer.write(mixed)
records = list(swigflow.io.tf_record_iterator(path))
assert train.Example.FromString(records[0]) == ours
parsed = swigflow.io.parse_example(
    [theirs, mixed], {"label": swigflow.io.VarLenFeature("int64")}
)
assert parsed["label"].values.tolist() == [-3, 1 << 40, -3, 1 << 40]
print("coexist ok")
"""


@pytest.mark.parametrize("order", ["swigflow_first", "tensorflow_first"])
def test_swigflow_and_tensorflow_protos_in_one_process(order, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run(
        [sys.executable, "-c", CHECKS, order, DATA, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "coexist ok"


def test_our_schema_is_tensorflows():
    """Every message TensorFlow's example.proto and feature.proto define, field for field."""
    with open(os.path.join(DATA, "example_descriptors.binpb"), "rb") as f:
        theirs = descriptor_pb2.FileDescriptorSet.FromString(f.read())

    def fields(message_type):
        return [
            (f.name, f.number, f.type, f.label, f.type_name, f.HasField("oneof_index"))
            for f in message_type.field
        ]

    their_messages = {
        f"{file.package}.{m.name}": m for file in theirs.file for m in file.message_type
    }
    assert len(their_messages) == 9
    for full_name, message_type in their_messages.items():
        ours = descriptor_pb2.DescriptorProto()
        swigflow.proto.POOL.FindMessageTypeByName(full_name).CopyToProto(ours)
        assert fields(ours) == fields(message_type), full_name
        assert [o.name for o in ours.oneof_decl] == [o.name for o in message_type.oneof_decl]
        assert [fields(n) for n in ours.nested_type] == [
            fields(n) for n in message_type.nested_type
        ], full_name  # the map entries
