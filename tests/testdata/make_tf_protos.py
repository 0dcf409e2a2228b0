"""Writes tests/testdata/tf_protos/: TensorFlow's own descriptors of tf.train's messages.

Run once with TensorFlow installed (it is not a dependency of swigflow or of the tests):

    python tests/testdata/make_tf_protos.py

example_descriptors.binpb is a serialized FileDescriptorSet of the files TensorFlow registers
in protobuf's default pool for tf.train.Example (tensorflow/core/example/feature.proto, then
example.proto), exactly as TensorFlow built them. tests/python/test_protobuf_coexistence.py
registers them the same way, standing in for `import tensorflow`: it checks that swigflow.train
loads beside them in either import order and exchanges bytes, text and JSON with their classes.
MANIFEST.json records the TensorFlow and protobuf versions and one Example serialized by TF.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import google.protobuf
import tensorflow as tf
from google.protobuf import descriptor_pb2

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_protos")


def main():
    os.makedirs(OUT, exist_ok=True)
    example_file = tf.train.Example.DESCRIPTOR.file
    files = [*example_file.dependencies, example_file]
    assert [f.name for f in files] == [
        "tensorflow/core/example/feature.proto",
        "tensorflow/core/example/example.proto",
    ], [f.name for f in files]
    descriptor_set = descriptor_pb2.FileDescriptorSet()
    for f in files:
        f.CopyToProto(descriptor_set.file.add())
    with open(os.path.join(OUT, "example_descriptors.binpb"), "wb") as out:
        out.write(descriptor_set.SerializeToString())
    example = tf.train.Example(
        features=tf.train.Features(
            feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[-3, 1 << 40])),
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"\xff\xd8\x00"])),
                "box": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, -0.0, 1e-45])),
                "empty": tf.train.Feature(),
            }
        )
    )
    manifest = {
        "tensorflow": tf.__version__,
        "protobuf": google.protobuf.__version__,
        "files": [f.name for f in files],
        "example_hex": example.SerializeToString(deterministic=True).hex(),
        "example_text": str(example),
    }
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as out:
        json.dump(manifest, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()
