"""Writes tests/testdata/tf_seekable/: seekable GZIP files written by swigflow, and what
TensorFlow reads from them.

Run once with TensorFlow and swigflow both importable (neither needs the other; the tests need
neither TensorFlow nor this script):

    PYTHONPATH=<swigflow's python dir> python tests/testdata/make_tf_seekable.py

Files:
- members.gzip.tfrecord: records written by swigflow with TFRecordOptions("GZIP",
  seek_block_size=4096), a chain of GZIP members ending at record boundaries, and
  members.gzip.tfrecord.idx, its seek index (format version 1) as swigflow wrote it;
- MANIFEST.json: for each file, the number of records TensorFlow's tf.data.TFRecordDataset
  (compression_type="GZIP") yields, the SHA-256 of each, and the error it raises (or null).
tests/python/test_seek_index.py checks that swigflow reads the same records, in order and at
random through the index.
"""

import hashlib
import json
import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf

import swigflow

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_seekable")
WORDS = b"tensor record example feature label image width height crc zlib gzip seek".split()


def records(rng, count):
    """Compressible records of varied sizes, a few longer than a block."""
    out = []
    for i in range(count):
        n = rng.randrange(0, 400) if i % 37 else rng.randrange(5000, 9000)
        out.append(b" ".join(rng.choice(WORDS) for _ in range(n // 6 + 1))[:n])
    return out


def tf_read(path):
    digests, error = [], None
    try:
        for r in tf.data.TFRecordDataset(path, compression_type="GZIP"):
            digests.append(hashlib.sha256(r.numpy()).hexdigest())
    except tf.errors.OpError as e:
        error = type(e).__name__
    return {"records": len(digests), "sha256": digests, "error": error}


def main():
    rng = random.Random(20261128)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "members.gzip.tfrecord")
    options = swigflow.io.TFRecordOptions("GZIP", seek_block_size=4096)
    with swigflow.io.TFRecordWriter(path, options) as w:
        for r in records(rng, 300):
            w.write(r)
    swigflow.io.create_index(path)
    manifest = {
        "tensorflow": tf.__version__,
        "files": {"members.gzip.tfrecord": tf_read(path)},
    }
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
