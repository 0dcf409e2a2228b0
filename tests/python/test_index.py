"""Index files ("<offset> <length>" lines, as DALI and the tfrecord package write) and
TFRecordFile random access."""

import os
import shutil
import struct
import threading

import numpy as np
import pytest

import swigflow
from swigflow import errors
from swigflow.io import TFRecordFile, TFRecordWriter, create_index

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")


def write(path, records, options=None):
    with TFRecordWriter(path, options) as writer:
        for r in records:
            writer.write(r)


def reference_index(path):
    """What the tfrecord package's tfrecord2idx writes: offset and framed length per record."""
    lines = []
    with open(path, "rb") as f:
        while True:
            start = f.tell()
            header = f.read(8)
            if not header:
                break
            (length,) = struct.unpack("<Q", header)
            f.seek(4 + length + 4, os.SEEK_CUR)
            lines.append(f"{start} {f.tell() - start}\n")
    return "".join(lines)


def test_index_matches_reference_format(tmp_path):
    path = str(tmp_path / "records.tfrecord")
    shutil.copy(os.path.join(GOLDEN, "records.tfrecord"), path)
    assert create_index(path) == 60
    with open(swigflow.io.default_index_path(path)) as f:
        assert f.read() == reference_index(path)
    other = tmp_path / "elsewhere.index"
    assert create_index(path, other) == 60
    assert other.read_text() == reference_index(path)


def test_empty_file_has_empty_index(tmp_path):
    path = tmp_path / "empty.tfrecord"
    write(path, [])
    assert create_index(path) == 0
    assert (tmp_path / ".empty.tfrecord.idx").read_text() == ""
    assert len(TFRecordFile(path)) == 0


@pytest.mark.parametrize("name", ["bad_length_crc.tfrecord", "truncated_mid_record.tfrecord"])
def test_index_of_damaged_framing_is_data_loss(tmp_path, name):
    path = tmp_path / name
    shutil.copy(os.path.join(GOLDEN, name), path)
    with pytest.raises(errors.DataLossError, match=name):
        create_index(path)


def test_random_access(tmp_path):
    records = [b"record %d " % i * (i % 13) for i in range(500)]
    path = tmp_path / "r.tfrecord"
    write(path, records)
    for use_index in (False, True):
        if use_index:
            create_index(path)
        with TFRecordFile(path) as f:
            assert (f.index_path is not None) == use_index
            assert len(f) == 500
            assert f[0] == records[0]
            assert f[-1] == records[-1]
            assert f[np.int64(123)] == records[123]
            assert f[10:20] == records[10:20]
            assert f[::-50] == records[::-50]
            assert list(f) == records
            assert f.offsets[1] == 16 + len(records[0])
            assert np.all(f.lengths == [16 + len(r) for r in records])
            with pytest.raises(IndexError):
                f[500]
            with pytest.raises(IndexError):
                f[-501]
            with pytest.raises(TypeError):
                f["1"]
            with pytest.raises(ValueError):
                f.offsets[0] = 5  # read-only


def test_threads_share_a_file(tmp_path):
    records = [os.urandom(i % 500) for i in range(2000)]
    path = tmp_path / "t.tfrecord"
    write(path, records)
    f = TFRecordFile(path)
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for i in rng.integers(0, len(records), 2000):
            if f[i] != records[i]:
                failures.append(i)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_stale_index_is_detected(tmp_path):
    path = tmp_path / "s.tfrecord"
    write(path, [b"a" * 10, b"b" * 10])
    create_index(path)
    index = swigflow.io.default_index_path(path)
    f = TFRecordFile(path)
    write(path, [b"a" * 11, b"b" * 10])  # rewritten while open: reads check the index entry
    with pytest.raises(errors.DataLossError, match="index says"):
        f[0]
    f = TFRecordFile(path)  # opened again: the stale index is ignored, the file scanned
    assert f.index_path is None and f[0] == b"a" * 11
    write(path, [b"a"])  # shorter than the index describes
    with pytest.raises(errors.DataLossError, match="describes"):
        TFRecordFile(path, index_path=index)


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("0 16\nbogus\n", 2),
        ("0 16\n16\n", 2),
        ("0 -16\n", 1),
        ("0 16 extra\n", 1),
        ("0 8\n", 1),
        ("0 20\n10 20\n", 2),
        ("99999999999999999999 20\n", 1),
    ],
)
def test_malformed_index_names_the_line(tmp_path, content, line):
    path = tmp_path / "m.tfrecord"
    write(path, [b"x" * 4, b"y" * 4])
    index = tmp_path / "m.idx"
    index.write_text(content)
    with pytest.raises(errors.InvalidArgumentError, match=rf"m\.idx:{line}:"):
        TFRecordFile(path, index_path=index)


def test_windows_line_endings_and_tabs_are_accepted(tmp_path):
    path = tmp_path / "w.tfrecord"
    write(path, [b"x" * 4, b"y" * 4])
    index = tmp_path / "w.idx"
    index.write_text("0\t20\r\n20 20")
    assert TFRecordFile(path, index_path=index)[1] == b"y" * 4


def test_damaged_record_is_data_loss_on_access(tmp_path):
    path = str(tmp_path / "bad_data_crc.tfrecord")
    shutil.copy(os.path.join(GOLDEN, "bad_data_crc.tfrecord"), path)
    f = TFRecordFile(path)  # framing is intact: the scan succeeds
    assert len(f) == 60
    assert len(f[58]) > 0
    with pytest.raises(errors.DataLossError, match="corrupted record at 557065"):
        f[59]


def test_compressed_files_are_read_through_a_seek_index(tmp_path):
    path = tmp_path / "c.tfrecord"
    write(path, [b"x", b"yz"], "GZIP")
    with TFRecordFile(path, options="GZIP") as f:  # test_seek_index.py has the rest
        assert f[1] == b"yz" and f.seek_index is not None


def test_missing_files(tmp_path):
    with pytest.raises(errors.NotFoundError):
        TFRecordFile(tmp_path / "none.tfrecord")
    with pytest.raises(errors.NotFoundError):
        create_index(tmp_path / "none.tfrecord")
    path = tmp_path / "r.tfrecord"
    write(path, [b"x"])
    with pytest.raises(errors.NotFoundError, match=r"none\.idx"):
        TFRecordFile(path, index_path=tmp_path / "none.idx")


def test_reading_after_close_raises(tmp_path):
    path = tmp_path / "c.tfrecord"
    write(path, [b"x"])
    with TFRecordFile(path) as f:
        assert f[0] == b"x"
    with pytest.raises(errors.FailedPreconditionError, match=r"TFRecordFile .* is closed"):
        f[0]


def test_default_index_path():
    assert swigflow.io.default_index_path("a/b.tfrecord") == "a/.b.tfrecord.idx"
    assert swigflow.io.default_index_path("s3://b/x/y.tfrecord") == "s3://b/x/.y.tfrecord.idx"
