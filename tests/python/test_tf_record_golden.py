"""Compatibility with TensorFlow 2.21: the golden files it wrote and what it did with them."""

import gzip
import hashlib
import json
import os
import shutil
import zlib

import pytest

import swigflow
from swigflow import errors

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
with open(os.path.join(GOLDEN, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)
PAYLOADS = MANIFEST["files"]["records.tfrecord"]["records"]


def golden(name):
    return os.path.join(GOLDEN, name)


@pytest.mark.parametrize(
    ("name", "compression"),
    [
        ("records.tfrecord", None),
        ("records.gzip.tfrecord", "GZIP"),
        ("records.zlib.tfrecord", "ZLIB"),
    ],
)
def test_reads_exact_payloads(name, compression):
    records = list(swigflow.io.tf_record_iterator(golden(name), compression))
    assert len(records) == len(PAYLOADS) == 60
    for record, expected in zip(records, PAYLOADS):
        assert len(record) == expected["len"]
        assert hashlib.sha256(record).hexdigest() == expected["sha256"]


def test_reads_example_files():
    assert len(list(swigflow.io.tf_record_iterator(golden("examples.tfrecord")))) == 50
    assert len(list(swigflow.io.tf_record_iterator(golden("sequence_examples.tfrecord")))) == 5


def read_payloads():
    return list(swigflow.io.tf_record_iterator(golden("records.tfrecord")))


def test_uncompressed_output_is_byte_identical_to_tensorflow(tmp_path):
    out = tmp_path / "ours.tfrecord"
    with swigflow.io.TFRecordWriter(out) as writer:
        for record in read_payloads():
            writer.write(record)
    with open(golden("records.tfrecord"), "rb") as a:
        assert out.read_bytes() == a.read()


@pytest.mark.parametrize(
    ("compression", "decompress"), [("GZIP", gzip.decompress), ("ZLIB", zlib.decompress)]
)
def test_compressed_output_decompresses_to_tensorflows_bytes(tmp_path, compression, decompress):
    # An independent decoder (Python's zlib) must see exactly TensorFlow's uncompressed stream.
    out = tmp_path / "ours.tfrecord"
    with swigflow.io.TFRecordWriter(out, compression) as writer:
        for record in read_payloads():
            writer.write(record)
    with open(golden("records.tfrecord"), "rb") as a:
        assert decompress(out.read_bytes()) == a.read()


@pytest.mark.parametrize("name", sorted(MANIFEST["corrupt"]))
def test_damaged_files_behave_like_tensorflow(name, tmp_path):
    expected = MANIFEST["corrupt"][name]
    path = str(tmp_path / name)
    shutil.copy(golden(name), path)
    records = []
    raised = None
    try:
        for record in swigflow.io.tf_record_iterator(path):
            records.append(record)
    except errors.OpError as e:
        raised = e
    assert len(records) == expected["records_before_error"]
    for record, payload in zip(records, PAYLOADS):
        assert hashlib.sha256(record).hexdigest() == payload["sha256"]
    if expected["error"] is None:
        assert raised is None
        return
    tf_class, tf_message = expected["error"].split(": ", 1)
    assert type(raised).__name__ == tf_class
    # TensorFlow's own words and offset ("corrupted record at 557065"), then our file path.
    tf_words = tf_message.split("}} ", 1)[1].split("'")[0].split(" [Op:")[0]
    assert raised.message.startswith(tf_words + " in " + path), raised.message


@pytest.mark.parametrize("name", sorted(MANIFEST["corrupt"]))
def test_batches_give_the_same_records_before_the_error(name):
    expected = MANIFEST["corrupt"][name]
    reader = swigflow.io.TFRecordReader(golden(name))
    got = []
    with pytest.raises(errors.DataLossError) if expected["error"] else _no_error():
        while batch := reader.read_batch(7):
            got.extend(batch)
    assert len(got) == expected["records_before_error"]


class _no_error:  # noqa: N801 (used like pytest.raises)
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
