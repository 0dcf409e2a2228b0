"""swigflow.io.decode_compressed against TensorFlow 2.21 (tests/testdata/
make_tf_decode_compressed.py's cases, run with swigflow), tensorflow/python/kernel_tests/
io_ops/decode_compressed_op_test.py's cases, and what swigflow refuses beyond TensorFlow
(incomplete streams, results past the size limit)."""

import json
import os
import re
import sys
import zlib

import generators
import numpy as np
import pytest
from tf_messages import bare

from swigflow import errors, io
from swigflow.io import compressed

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
generator = generators.load("make_tf_decode_compressed")  # the case table
with open(os.path.join(TESTDATA, "tf_decode_compressed", "golden.json")) as f:
    GOLDEN = json.load(f)

zstandard = pytest.importorskip("zstandard")  # requirements/build.txt installs it
ENV = {"IO": io, "zlib": zlib, "gzip_bytes": generator.gzip_bytes, "np": np, "zstd": zstandard}

# TensorFlow 2.21 reads past a ZSTD frame's stated size and fails on the data; its current
# kernel (and decode_compressed_op_test's testDecompressZstdExceedsLimit) refuses the size
# first, as swigflow does.
NEWER_TF = {"zstd_exceeds_limit": "exceeds maximum allowed size"}


def test_every_case_has_golden_data():
    assert set(generator.CASES) == set(GOLDEN) - {"_tensorflow"}


@pytest.mark.parametrize("name", sorted(generator.CASES))
def test_golden(name):
    expected = GOLDEN[name]
    source = generator.CASES[name]
    if "error" in expected:
        with pytest.raises(errors.OpError) as info:
            eval(source, ENV)
        assert type(info.value).__name__ == expected["error"]
        if name in NEWER_TF:
            assert NEWER_TF[name] in str(info.value)
        else:
            assert str(info.value) == bare(expected["message"])
        return
    actual = eval(source, ENV)
    array = np.asarray(actual, dtype=object)
    assert list(array.shape) == expected["value"]["shape"]
    got = [generator.string_key(v) for v in array.reshape(-1)]
    assert got == expected["value"]["values"]
    if not array.shape:
        assert isinstance(actual, bytes)


# --- DecodeCompressedOpTest ----------------------------------------------------------------------


def compress(data, compression_type):
    if not compression_type:
        return data
    if compression_type == "ZLIB":
        return zlib.compress(data)
    if compression_type == "ZSTD":
        return zstandard.compress(data)
    return generator.gzip_bytes(data)


@pytest.mark.parametrize("compression_type", ["ZLIB", "GZIP", "ZSTD", ""])
def test_decompress(compression_type):
    values = [compress(b"AaAA", compression_type), compress(b"bBbb", compression_type)]
    result = io.decode_compressed(values, compression_type=compression_type)
    assert result.shape == (2,)  # testDecompressShapeInference, eagerly
    assert list(result) == [b"AaAA", b"bBbb"]


@pytest.mark.parametrize("compression_type", ["ZLIB", "GZIP", "ZSTD", ""])
def test_decompress_with_raw(compression_type):
    decompressed = io.decode_compressed([compress(b"AaBC", compression_type)], compression_type)
    result = io.decode_raw(decompressed, out_type=np.int16)
    np.testing.assert_array_equal(result, [[ord("A") + ord("a") * 256, ord("B") + ord("C") * 256]])


def test_decompress_zstd_exceeds_limit():
    frame = b"\x28\xb5\x2f\xfd\xc0\x13\x00\x00\x00\x80\x00\x00\x00\x00"  # states 2 GiB
    with pytest.raises(errors.InvalidArgumentError, match="exceeds maximum allowed size"):
        io.decode_compressed([frame], "ZSTD")


# --- beyond TensorFlow ---------------------------------------------------------------------------


@pytest.mark.parametrize("compression_type", ["ZLIB", "GZIP"])
def test_an_incomplete_stream_is_refused_not_returned_in_part(compression_type):
    """TensorFlow returns what inflated before the data stopped; that would be silent loss."""
    data = compress(b"hello world" * 100, compression_type)
    with pytest.raises(errors.DataLossError, match="truncated"):
        io.decode_compressed([data[: len(data) // 2]], compression_type)
    with pytest.raises(errors.DataLossError, match="truncated"):
        io.decode_compressed([data[:-3]], compression_type)  # only the checksum cut


def test_results_past_the_limit_are_refused(monkeypatch):
    """A small input cannot make the process allocate without bound (a 'zip bomb')."""
    monkeypatch.setattr(compressed, "MAX_DECOMPRESSED_BYTES", 1000)
    bomb = zlib.compress(b"\0" * 100_000)
    assert len(bomb) < 200
    with pytest.raises(errors.InvalidArgumentError, match="exceeds maximum allowed size"):
        io.decode_compressed(bomb, "ZLIB")
    with pytest.raises(errors.InvalidArgumentError, match="exceeds maximum allowed size"):
        io.decode_compressed(generator.gzip_bytes(b"\0" * 100_000), "GZIP")
    assert io.decode_compressed(zlib.compress(b"\0" * 1000), "ZLIB") == b"\0" * 1000


def test_gzip_zero_padding_after_the_last_member_is_allowed():
    assert io.decode_compressed(generator.gzip_bytes(b"ab") + b"\0" * 8, "GZIP") == b"ab"


def test_zstd_without_the_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(errors.UnimplementedError, match=re.escape("swigflow[zstd]")):
        io.decode_compressed([b"x"], "ZSTD")
