"""Writes tests/testdata/tf_damage/: damaged TFRecord files and what TensorFlow does with each.

Run once with TensorFlow installed (it is not a dependency of swigflow or of the tests):

    python tests/testdata/make_tf_damage.py

For every file, MANIFEST.json holds the compression, the number of records TensorFlow's
tf.data.TFRecordDataset yields before failing, and the error class it raises (or null).
tests/python/test_tf_damage.py checks that swigflow does exactly the same.
"""

import gzip
import json
import os
import random
import struct
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_damage")
WORDS = b"tensor record example feature label image width height crc zlib gzip".split()


def framed(records):
    """TFRecord framing, written with TensorFlow's own writer."""
    path = os.path.join(OUT, "_plain")
    with tf.io.TFRecordWriter(path) as writer:
        for r in records:
            writer.write(r)
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    return data


def tf_outcome(path, compression):
    n = 0
    try:
        for _ in tf.data.TFRecordDataset(path, compression_type=compression):
            n += 1
    except tf.errors.OpError as e:
        return n, type(e).__name__
    return n, None


def main():
    rng = random.Random(20261121)
    os.makedirs(OUT, exist_ok=True)
    # Text-like payloads: they compress, and decompress to more than TensorFlow's 256 KiB cache.
    records = [b" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 2500))) for _ in range(60)]
    plain = framed(records)
    starts = []
    offset = 0
    while offset < len(plain):
        starts.append(offset)
        offset += 16 + struct.unpack("<Q", plain[offset : offset + 8])[0]

    cases = {}
    for kind, compress in (("GZIP", lambda d: gzip.compress(d, mtime=0)), ("ZLIB", zlib.compress)):
        c = compress(plain)
        ext = kind.lower()
        cases[f"{ext}_cut_third.tfrecord"] = (kind, c[: len(c) // 3])
        cases[f"{ext}_cut_before_trailer.tfrecord"] = (kind, c[:-9])
        cases[f"{ext}_cut_in_trailer.tfrecord"] = (kind, c[:-2])
        for name, at in (
            ("early", len(c) // 10),
            ("middle", len(c) // 2),
            ("late", len(c) * 9 // 10),
        ):
            bad = bytearray(c)
            bad[at] ^= 0x55
            cases[f"{ext}_flipped_{name}.tfrecord"] = (kind, bytes(bad))
        bad = bytearray(c)
        bad[-3] ^= 0xFF
        cases[f"{ext}_flipped_trailer.tfrecord"] = (kind, bytes(bad))
        cases[f"{ext}_trailing_garbage.tfrecord"] = (kind, c + b"not compressed data")
        cases[f"{ext}_two_streams.tfrecord"] = (kind, c + compress(framed(records[:3])))
        co = zlib.compressobj(6, zlib.DEFLATED, 31 if kind == "GZIP" else 15)
        cases[f"{ext}_no_stream_end.tfrecord"] = (
            kind,
            co.compress(plain[: starts[20]]) + co.flush(zlib.Z_SYNC_FLUSH),
        )
    # Uncompressed damage needs no large file: short records keep these small.
    small = framed([r[:200] for r in records])
    starts = [sum(16 + min(len(r), 200) for r in records[:i]) for i in range(len(records))]
    cases["none_zero_padding.tfrecord"] = ("", small + bytes(64))
    cases["none_header_of_next_only.tfrecord"] = ("", small[: starts[30] + 12])
    cases["none_payload_cut.tfrecord"] = ("", small[: starts[30] + 20])
    bad = bytearray(small)
    bad[starts[45] + 3] ^= 1
    cases["none_length_flipped.tfrecord"] = ("", bytes(bad))

    manifest = {"generator": f"tensorflow {tf.__version__}", "cases": {}}
    for name, (kind, data) in sorted(cases.items()):
        path = os.path.join(OUT, name)
        with open(path, "wb") as f:
            f.write(data)
        count, error = tf_outcome(path, kind)
        manifest["cases"][name] = {
            "compression": kind,
            "records_before_error": count,
            "error": error,
        }
        print(f"{name:40s} {count:3d} {error}")
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
