"""TFRecord files for the swigflow.data tests."""

import os

import swigflow
from swigflow import train


def make_files(directory, counts, index=False):
    """File f holds Examples with id = 1000 * f + r and a blob of r bytes, r < counts[f]; with
    `index`, each gets its index file."""
    paths = []
    for f, count in enumerate(counts):
        path = os.path.join(directory, f"part-{f:03d}.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            for r in range(count):
                example = train.example_from_dict({"id": 1000 * f + r, "blob": b"b" * r})
                w.write(example.SerializeToString())
        if index:
            swigflow.io.create_index(path)
        paths.append(path)
    return paths
