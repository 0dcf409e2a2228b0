"""Records what TensorFlow reads back from files swigflow.ray.write_tfrecords writes.

    PYTHONPATH=<swigflow package> /tmp/tfvenv/bin/python tests/testdata/make_tf_ray.py

(tensorflow-cpu 2.21 and ray[data] in that venv). Writes ROWS (below) as a Ray dataset of
BLOCKS blocks, once with one file per block and once with ROWS_PER_FILE rows per file (GZIP),
lists the files as TensorFlow does (tf.io.gfile.glob, sorted), reads them with
tf.data.TFRecordDataset and tf.io.parse_single_example, and writes tf_ray/MANIFEST.json: each
file's SHA-256 and TF's parsed rows in TF's reading order. test_ray.py writes the same dataset
and checks its files are byte for byte those TF read.
"""

import hashlib
import json
import os
import sys
import tempfile

import numpy as np

import swigflow.ray

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_ray")
BLOCKS = 3
ROWS_PER_FILE = 70


def rows():
    """The dataset written: 200 rows of an int, a float vector, a string and a variable list."""
    return [
        {
            "id": i,
            "x": (np.arange(3, dtype=np.float32) + i) / 8,
            "s": f"row-{i}",
            "v": list(range(i % 4)),
        }
        for i in range(200)
    ]


def read_with_tf(pattern, compression):
    import tensorflow as tf

    spec = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "x": tf.io.FixedLenFeature([3], tf.float32),
        "s": tf.io.FixedLenFeature([], tf.string),
        "v": tf.io.VarLenFeature(tf.int64),
    }
    files = sorted(tf.io.gfile.glob(pattern))
    out = []
    for record in tf.data.TFRecordDataset(files, compression_type=compression):
        p = tf.io.parse_single_example(record, spec)
        out.append(
            {
                "id": int(p["id"]),
                "x": [float(v) for v in p["x"].numpy()],
                "s": p["s"].numpy().decode(),
                "v": [int(v) for v in p["v"].values.numpy()],
            }
        )
    return files, out


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    import ray
    import tensorflow as tf

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
    )
    manifest = {"generator": f"tensorflow {tf.__version__}, ray {ray.__version__}"}
    with tempfile.TemporaryDirectory() as d:
        for name, kwargs, compression in [
            ("per_block", {}, ""),
            (
                "per_70_rows_gzip",
                {"num_rows_per_file": ROWS_PER_FILE, "compression_type": "GZIP"},
                "GZIP",
            ),
        ]:
            ds = ray.data.from_items(rows(), override_num_blocks=BLOCKS)
            swigflow.ray.write_tfrecords(ds, os.path.join(d, name), **kwargs)
            suffix = ".tfrecord.gz" if compression else ".tfrecord"  # not the .idx files
            files, read = read_with_tf(os.path.join(d, name, "part-*" + suffix), compression)
            manifest[name] = {
                "files": {os.path.basename(f): sha256(f) for f in files},
                "tf_rows": read,
            }
    ray.shutdown()
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
