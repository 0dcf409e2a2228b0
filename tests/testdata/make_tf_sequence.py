"""Writes tests/testdata/tf_sequence/: SequenceExamples and what TensorFlow's
parse_sequence_example / parse_single_sequence_example return or raise for them.

Run once with TensorFlow installed (not a dependency of swigflow or of its tests):

    python tests/testdata/make_tf_sequence.py

tests/python/test_sequence_parsing.py checks that swigflow gives the same results.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_sequence")


def feature(kind, values):
    if kind == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def sequence_example(context, lists):
    ex = tf.train.SequenceExample()
    for key, (kind, values) in context.items():
        ex.context.feature[key].CopyFrom(feature(kind, values))
    for key, (kind, steps) in lists.items():
        fl = ex.feature_lists.feature_list[key]
        for values in steps:
            fl.feature.add().CopyFrom(feature(kind, values))
    return ex.SerializeToString()


RECORDS = [
    sequence_example(
        {"id": ("int64", [0]), "name": ("bytes", [b"zero"])},
        {
            "tokens": ("int64", [[1, 2], [3, 4], [5, 6]]),
            "words": ("bytes", [[b"a"], [b"b", b"c"]]),
            "scores": ("float", [[0.5], [1.5], [2.5]]),
            "tags": ("bytes", [[b"x"], [], [b"y", b"z"]]),
        },
    ),
    sequence_example(
        {"id": ("int64", [1])},
        {"tokens": ("int64", [[7, 8]]), "words": ("bytes", []), "scores": ("float", [[3.5]])},
    ),
    sequence_example(
        {"id": ("int64", [2]), "name": ("bytes", [b"two"])},
        {
            "words": ("bytes", [[b"d", b"e", b"f"]]),
            "scores": ("float", []),
            "tags": ("bytes", [[b"w"]]),
        },
    ),
]

SPECS = {
    "context": {
        "id": ("FixedLen", [], "int64", None),
        "name": ("FixedLen", [], "string", b"none"),
    },
    "sequence": {
        "tokens": ("FixedLenSequence", [2], "int64", True, None),
        "words": ("VarLen", "string"),
        "scores": ("FixedLenSequence", [], "float32", True, None),
        "tags": ("Ragged", "string"),
    },
}


def tf_spec(spec):
    kind = spec[0]
    dtype = {"int64": tf.int64, "string": tf.string, "float32": tf.float32}
    if kind == "FixedLen":
        return tf.io.FixedLenFeature(spec[1], dtype[spec[2]], default_value=spec[3])
    if kind == "VarLen":
        return tf.io.VarLenFeature(dtype[spec[1]])
    if kind == "Ragged":
        return tf.io.RaggedFeature(dtype[spec[1]])
    return tf.io.FixedLenSequenceFeature(
        spec[1], dtype[spec[2]], allow_missing=spec[3], default_value=spec[4]
    )


def encode(value):
    """JSON for a tf result: dense {shape, values}, sparse {indices, values, dense_shape},
    ragged {values, nested_row_splits}; bytes as hex, floats as float32 bit patterns."""

    def values(array):
        array = np.asarray(array)
        if array.dtype == object or array.dtype.kind == "S":
            return [bytes(v).hex() for v in array.ravel()]
        if array.dtype == np.float32:
            return [v.tobytes().hex() for v in array.ravel()]
        return [int(v) for v in array.ravel()]

    if isinstance(value, tf.SparseTensor):
        return {
            "indices": value.indices.numpy().tolist(),
            "values": values(value.values.numpy()),
            "dense_shape": value.dense_shape.numpy().tolist(),
        }
    if isinstance(value, tf.RaggedTensor):
        return {
            "values": values(value.flat_values.numpy()),
            "nested_row_splits": [s.numpy().tolist() for s in value.nested_row_splits],
        }
    array = np.asarray(value.numpy(), dtype=object if value.dtype == tf.string else None)
    return {"shape": list(array.shape), "values": values(array)}


def run(fn):
    try:
        return {"result": fn()}
    except tf.errors.OpError as e:
        return {"error": type(e).__name__, "message": e.message}
    except ValueError as e:
        return {"error": "ValueError", "message": str(e)}


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "sequence_examples.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for record in RECORDS:
            writer.write(record)
    context = {k: tf_spec(v) for k, v in SPECS["context"].items()}
    sequence = {k: tf_spec(v) for k, v in SPECS["sequence"].items()}
    cases = {}

    def batch():
        c, s, lengths = tf.io.parse_sequence_example(
            tf.constant(RECORDS), context_features=context, sequence_features=sequence
        )
        return {
            "context": {k: encode(v) for k, v in c.items()},
            "sequence": {k: encode(v) for k, v in s.items()},
            "lengths": {k: encode(v) for k, v in lengths.items()},
        }

    def single(i):
        def fn():
            c, s = tf.io.parse_single_sequence_example(
                RECORDS[i], context_features=context, sequence_features=sequence
            )
            return {
                "context": {k: encode(v) for k, v in c.items()},
                "sequence": {k: encode(v) for k, v in s.items()},
            }

        return fn

    cases["batch"] = run(batch)
    for i in range(len(RECORDS)):
        cases[f"single_{i}"] = run(single(i))
    cases["missing_required_list"] = run(
        lambda: tf.io.parse_sequence_example(
            tf.constant(RECORDS),
            sequence_features={
                "tokens": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=False)
            },
        )
    )
    cases["wrong_row_size"] = run(
        lambda: tf.io.parse_sequence_example(
            tf.constant(RECORDS[:1]),
            sequence_features={
                "tokens": tf.io.FixedLenSequenceFeature([3], tf.int64, allow_missing=True)
            },
        )
    )
    cases["wrong_type"] = run(
        lambda: tf.io.parse_sequence_example(
            tf.constant(RECORDS[:1]),
            sequence_features={
                "tokens": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)
            },
        )
    )
    cases["missing_required_context"] = run(
        lambda: tf.io.parse_sequence_example(
            tf.constant(RECORDS), context_features={"name": tf.io.FixedLenFeature([], tf.string)}
        )
    )
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(
            {"generator": f"tensorflow {tf.__version__}", "specs": SPECS, "cases": cases},
            f,
            indent=1,
            sort_keys=True,
            default=lambda b: b.hex(),
        )
        f.write("\n")
    for name, case in cases.items():
        print(name, case.get("error"), (case.get("message") or "")[:160])


if __name__ == "__main__":
    main()
