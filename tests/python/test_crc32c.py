"""swigflow.io.crc32c / masked_crc32c: known vectors, TensorFlow's files, buffers, GIL."""

import array
import os
import struct
import threading
import zlib

import numpy as np
import pytest
from gil import assert_releases_gil

import swigflow
from swigflow import pywrap_swigflow

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")


def test_check_value():
    assert swigflow.io.crc32c(b"123456789") == 0xE3069283
    assert swigflow.io.crc32c(b"") == 0


def test_extends_like_concatenation():
    data = os.urandom(1000)
    for cut in (0, 1, 8, 999, 1000):
        assert swigflow.io.crc32c(data[cut:], swigflow.io.crc32c(data[:cut])) == swigflow.io.crc32c(
            data
        )


def test_is_not_zlib_crc32():
    # CRC-32C, not the IEEE polynomial that zlib.crc32 computes.
    assert swigflow.io.crc32c(b"123456789") != zlib.crc32(b"123456789")


def test_masked_crc_definition():
    for data in (b"", b"a", os.urandom(77)):
        crc = swigflow.io.crc32c(data)
        expected = ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
        assert swigflow.io.masked_crc32c(data) == expected
        assert pywrap_swigflow.Crc32cUnmask(expected) == crc


def _golden_records(path):
    """(header bytes, stored header crc, payload, stored payload crc) of each framed record."""
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    while offset < len(data):
        header = data[offset : offset + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[offset + 8 : offset + 12])
        payload = data[offset + 12 : offset + 12 + length]
        (payload_crc,) = struct.unpack("<I", data[offset + 12 + length : offset + 16 + length])
        yield header, header_crc, payload, payload_crc
        offset += 16 + length


@pytest.mark.parametrize(
    "name", ["records.tfrecord", "examples.tfrecord", "sequence_examples.tfrecord"]
)
def test_matches_crcs_tensorflow_wrote(name):
    count = 0
    for header, header_crc, payload, payload_crc in _golden_records(os.path.join(GOLDEN, name)):
        assert swigflow.io.masked_crc32c(header) == header_crc
        assert swigflow.io.masked_crc32c(payload) == payload_crc
        count += 1
    assert count == {"records.tfrecord": 60, "examples.tfrecord": 50}.get(name, 5)


@pytest.mark.parametrize(
    "make",
    [
        bytes,
        bytearray,
        memoryview,
        lambda b: array.array("B", b),
        lambda b: np.frombuffer(b, dtype=np.uint8).copy(),
        lambda b: np.frombuffer(b, dtype=np.uint32).reshape(2, -1),
    ],
    ids=["bytes", "bytearray", "memoryview", "array", "ndarray", "ndarray2d"],
)
def test_accepts_any_contiguous_buffer(make):
    data = bytes(range(64))
    assert swigflow.io.crc32c(make(data)) == swigflow.io.crc32c(data)


def test_rejects_non_buffers_and_bad_crc():
    with pytest.raises(TypeError):
        swigflow.io.crc32c("text is not bytes")
    with pytest.raises(TypeError):
        swigflow.io.crc32c(None)
    with pytest.raises(TypeError):
        swigflow.io.crc32c(b"x", crc=1.5)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        swigflow.io.crc32c(b"x", crc=-1)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        swigflow.io.crc32c(b"x", crc=1 << 32)


def test_rejects_non_contiguous_array():
    strided = np.arange(64, dtype=np.uint8)[::2]
    with pytest.raises((ValueError, BufferError, TypeError), match="contiguous"):
        swigflow.io.crc32c(strided)


def test_threads_agree():
    buffers = [os.urandom(1 << 16) for _ in range(8)]
    expected = [swigflow.io.crc32c(b) for b in buffers]
    results = [None] * len(buffers)

    def work(i):
        for _ in range(20):
            results[i] = swigflow.io.crc32c(buffers[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(buffers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def test_releases_the_gil():
    """Another Python thread keeps running while one thread is inside a long native CRC."""
    assert_releases_gil(lambda: swigflow.io.crc32c(bytes(256 << 20)))
