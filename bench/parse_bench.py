"""parse_example throughput of swigflow against tf.io.parse_example and protobuf, in one run.

    /tmp/bench/bin/python bench/parse_bench.py [--repeats 15]

(with the wheel, tensorflow-cpu and protobuf installed in /tmp/bench, see io_bench.py).
Workload: 20,000 small ImageNet-like examples (a 256-byte image, label, height, width and 64
floats), parsed as one batch and in batches of 1,024. Reported: examples/s and the ratio to
TensorFlow's batch figure measured in the same run.
"""

import argparse
import os

import google.protobuf
import numpy as np
from timing import best_of

import swigflow
from swigflow import train

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None

COUNT = 20_000


def make_examples():
    rng = np.random.default_rng(0)
    records = []
    for i in range(COUNT):
        records.append(
            train.example_from_dict(
                {
                    "image/encoded": rng.integers(0, 256, 256, dtype=np.uint8).tobytes(),
                    "image/class/label": int(rng.integers(1, 1001)),
                    "image/height": 224,
                    "image/width": 224,
                    "image/features": rng.standard_normal(64).astype(np.float32),
                }
            ).SerializeToString()
        )
        del i
    return records


def in_batches(parse, records, size=1024):
    for start in range(0, len(records), size):
        parse(records[start : start + size])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    records = make_examples()
    spec = {
        "image/encoded": swigflow.io.FixedLenFeature([], "string"),
        "image/class/label": swigflow.io.FixedLenFeature([], "int64"),
        "image/height": swigflow.io.FixedLenFeature([], "int64"),
        "image/width": swigflow.io.FixedLenFeature([], "int64"),
        "image/features": swigflow.io.FixedLenFeature([64], "float32"),
    }

    def sf(batch):
        return swigflow.io.parse_example(batch, spec)

    rows = [("swigflow.io.parse_example", "one batch", best_of(args.repeats, sf, records)[0])]
    rows.append(
        (
            "swigflow.io.parse_example",
            "batches of 1024",
            best_of(args.repeats, in_batches, sf, records)[0],
        )
    )
    if tf is not None:
        tf_spec = {
            "image/encoded": tf.io.FixedLenFeature([], tf.string),
            "image/class/label": tf.io.FixedLenFeature([], tf.int64),
            "image/height": tf.io.FixedLenFeature([], tf.int64),
            "image/width": tf.io.FixedLenFeature([], tf.int64),
            "image/features": tf.io.FixedLenFeature([64], tf.float32),
        }
        tensor = tf.constant(records)
        tensors = [tf.constant(records[s : s + 1024]) for s in range(0, COUNT, 1024)]

        def tf_batch(t):
            return tf.io.parse_example(t, tf_spec)

        def tf_batches(ts):
            for t in ts:
                tf.io.parse_example(t, tf_spec)

        def tf_batch_numpy(t):  # what a numpy / PyTorch consumer needs, as swigflow returns
            return {k: v.numpy() for k, v in tf.io.parse_example(t, tf_spec).items()}

        seconds, tf_result = best_of(args.repeats, tf_batch, tensor)
        rows.append(("tf.io.parse_example", "one batch", seconds))
        rows.append(
            (
                "tf.io.parse_example",
                "batches of 1024",
                best_of(args.repeats, tf_batches, tensors)[0],
            )
        )
        rows.append(
            (
                "tf.io.parse_example + .numpy()",
                "one batch",
                best_of(args.repeats, tf_batch_numpy, tensor)[0],
            )
        )

        ours = sf(records)
        for key in spec:
            assert np.array_equal(ours[key], tf_result[key].numpy()), key

        def protobuf_parse(batch):
            return [tf.train.Example.FromString(r) for r in batch]

        rows.append(
            (
                "tf.train.Example.FromString",
                "per example",
                best_of(args.repeats, protobuf_parse, records)[0],
            )
        )

    def sf_messages(batch):
        return [train.Example.FromString(r) for r in batch]

    messages_seconds = best_of(args.repeats, sf_messages, records)[0]
    rows.append(("swigflow.train.Example.FromString", "per example", messages_seconds))
    if tf is not None:  # the same messages, by bytes
        for r in records[:: COUNT // 16]:
            theirs = tf.train.Example.FromString(r).SerializeToString(deterministic=True)
            assert train.Example.FromString(r).SerializeToString(deterministic=True) == theirs

    anchor = next(
        (s for name, how, s in rows if name == "tf.io.parse_example" and how == "one batch"), None
    )
    print(
        f"swigflow {swigflow.__version__}, tensorflow {tf.__version__ if tf else 'not installed'}, "
        f"{os.cpu_count()} CPUs, {COUNT:,} examples, best of {args.repeats}\n"
    )
    print("| parser | how | examples/s | vs tf.io.parse_example (one batch) |")
    print("|---|---|---:|---:|")
    for name, how, seconds in rows:
        ratio = f"{anchor / seconds:.2f}x" if anchor else "n/a"
        print(f"| {name} | {how} | {COUNT / seconds / 1e6:.2f} M | {ratio} |")
    tf_messages = next((s for name, _, s in rows if name == "tf.train.Example.FromString"), None)
    if tf_messages:
        print(
            "\nswigflow.train.Example.FromString vs tf.train.Example.FromString (protobuf "
            f"{google.protobuf.__version__}): {tf_messages / messages_seconds:.2f}x"
        )


if __name__ == "__main__":
    main()
