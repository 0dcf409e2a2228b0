"""Damaged files (plain, ZLIB, GZIP) read exactly as TensorFlow 2.21 reads them: the same records
before the error and the same error class. The files and TensorFlow's outcomes were made by
tests/testdata/make_tf_damage.py."""

import json
import os

import pytest

import swigflow
from swigflow import errors

DAMAGE = os.path.join(os.path.dirname(__file__), "..", "testdata", "tf_damage")
with open(os.path.join(DAMAGE, "MANIFEST.json")) as f:
    CASES = json.load(f)["cases"]


# Where TensorFlow ends quietly on a cut file, swigflow returns the same records and then
# raises (docs/differences.md): the compressed data stops inside a trailer, so
# the file is known to be incomplete.
CUT_TRAILERS = {
    "gzip_cut_before_trailer.tfrecord",
    "gzip_cut_in_trailer.tfrecord",
    "zlib_cut_in_trailer.tfrecord",
}


def expected(name):
    case = CASES[name]
    if name in CUT_TRAILERS:
        assert case["error"] is None  # what TensorFlow does
        return case["records_before_error"], "DataLossError"
    return case["records_before_error"], case["error"]


def outcome(records):
    count = 0
    try:
        for _ in records:
            count += 1
    except errors.OpError as e:
        return count, type(e).__name__, e
    return count, None, None


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_records_and_error_as_tensorflow(name):
    case = CASES[name]
    path = os.path.join(DAMAGE, name)
    count, error, exception = outcome(swigflow.io.tf_record_iterator(path, case["compression"]))
    assert (count, error) == expected(name)
    if exception is not None:
        assert name in exception.message


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_agree_with_iteration(name):
    case = CASES[name]
    reader = swigflow.io.TFRecordReader(os.path.join(DAMAGE, name), case["compression"])

    def records():
        while batch := reader.read_batch(7):
            yield from batch

    count, error, _ = outcome(records())
    assert (count, error) == expected(name)
