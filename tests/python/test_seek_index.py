"""Random access into GZIP and ZLIB TFRecord files through seek indexes: TFRecordFile,
TFRecordDataSource, global_shuffle and `swigflow index`; files written as chained GZIP members
(seek_block_size), which TensorFlow reads (golden data from make_tf_seekable.py); and stale,
damaged or mismatched indexes refused, never trusted."""

import gzip
import hashlib
import json
import logging
import os
import pathlib
import pickle
import shutil

import numpy as np
import pytest

import swigflow
from swigflow import errors
from swigflow.cli import main as cli_main
from swigflow.data import TFRecordDataSource
from swigflow.io import TFRecordFile, TFRecordOptions, TFRecordWriter, create_index
from swigflow.io.index import is_index_file, without_index_files

TESTDATA = os.path.join(os.path.dirname(__file__), "..", "testdata")
SEEKABLE = os.path.join(TESTDATA, "tf_seekable")
GOLDEN = os.path.join(TESTDATA, "golden")

# (compression, seek_block_size): one stream as TF writes it, and chained GZIP members.
KINDS = [("GZIP", None), ("ZLIB", None), ("GZIP", 2048)]


def make_records(count, seed=0):
    rng = np.random.default_rng(seed)
    return [
        bytes(rng.integers(97, 105, int(rng.integers(0, 1500)), dtype=np.uint8))
        for _ in range(count)
    ]


def write(path, records, compression, block=None):
    options = TFRecordOptions(compression, seek_block_size=block)
    with TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)
    return str(path)


@pytest.mark.parametrize("compression,block", KINDS)
def test_random_reads_with_and_without_an_index_file(tmp_path, compression, block):
    records = make_records(800)
    path = write(tmp_path / "r.tfrecord", records, compression, block)
    order = np.random.default_rng(1).permutation(len(records))
    with TFRecordFile(path, options=compression) as f:  # no index file: built in memory
        assert f.index_path is None and f.compression_type == compression
        assert len(f) == 800
        assert [f[int(i)] for i in order] == [records[i] for i in order]
        assert f[-1] == records[-1] and f[10:20] == records[10:20] and list(f) == records
        assert f.offsets[0] == 0 and np.all(np.diff(f.offsets) == f.lengths[:-1])
    assert create_index(path, span=64 << 10) == 800  # compression told from the first bytes
    index_path = swigflow.io.default_index_path(path)
    assert is_index_file(index_path) and without_index_files([path, index_path]) == [path]
    with TFRecordFile(path, options=compression) as f:
        assert f.index_path == index_path
        assert [f[int(i)] for i in order[:200]] == [records[i] for i in order[:200]]
    # Reading it as another compression is refused, not misread.
    other = "ZLIB" if compression == "GZIP" else "GZIP"
    with pytest.raises(errors.InvalidArgumentError, match="another compression"):
        TFRecordFile(path, index_path, options=other)


def test_members_are_one_stream_to_every_gzip_reader(tmp_path):
    records = make_records(500)
    plain = write(tmp_path / "plain", records, "")
    chained = write(tmp_path / "chained.gz", records, "GZIP", block=4096)
    data = pathlib.Path(chained).read_bytes()
    assert data.count(b"\x1f\x8b\x08") > 50  # many members
    assert gzip.decompress(data) == pathlib.Path(plain).read_bytes()  # Python's gzip reads them all
    assert list(swigflow.io.tf_record_iterator(chained, "GZIP")) == records
    create_index(chained)
    with TFRecordFile(chained, options="GZIP") as f:
        assert f[321] == records[321]
    for bad in ("ZLIB", ""):
        with pytest.raises(ValueError, match="seek_block_size needs compression_type='GZIP'"):
            TFRecordOptions(bad, seek_block_size=4096)
    with pytest.raises(ValueError):
        TFRecordOptions("GZIP", seek_block_size=0)


def test_tensorflow_reads_swigflows_seekable_gzip():
    """Golden: TF 2.21 read members.gzip.tfrecord (swigflow-written, seek_block_size=4096);
    swigflow reads the same records in order, and at random through the committed index."""
    with open(os.path.join(SEEKABLE, "MANIFEST.json")) as f:
        expected = json.load(f)["files"]["members.gzip.tfrecord"]
    assert expected["error"] is None and expected["records"] == 300
    path = os.path.join(SEEKABLE, "members.gzip.tfrecord")

    def digests(rs):
        return [hashlib.sha256(r).hexdigest() for r in rs]

    assert digests(swigflow.io.tf_record_iterator(path, "GZIP")) == expected["sha256"]
    with TFRecordFile(path, options="GZIP") as f:  # the committed version-1 index
        assert f.index_path == path + ".idx"  # committed under the older name, still found
        order = np.random.default_rng(2).permutation(len(f))
        got = {int(i): f[int(i)] for i in order}
        assert digests(got[i] for i in range(len(f))) == expected["sha256"]


def test_tf_written_gzip_with_seek_points(tmp_path):
    """A file TF wrote as one GZIP stream: block-boundary points with windows."""
    path = str(tmp_path / "records.gzip.tfrecord")
    shutil.copy(os.path.join(GOLDEN, "records.gzip.tfrecord"), path)
    expected = list(swigflow.io.tf_record_iterator(path, "GZIP"))
    create_index(path, span=16 << 10)
    size = os.path.getsize(swigflow.io.default_index_path(path))
    assert size > 64 + 4 + 2 * 24 + 16 << 10  # at least one windowed point
    with TFRecordFile(path, options="GZIP") as f:
        order = np.random.default_rng(3).permutation(len(f))
        assert [f[int(i)] for i in order] == [expected[i] for i in order]


def test_stale_damaged_and_foreign_indexes(tmp_path, caplog):
    records = make_records(300)
    path = write(tmp_path / "s.gz", records, "GZIP", block=4096)
    create_index(path)
    index_path = swigflow.io.default_index_path(path)
    good = pathlib.Path(index_path).read_bytes()
    # Damaged: a flipped byte fails the index's CRC.
    damaged = bytearray(good)
    damaged[100] ^= 1
    pathlib.Path(index_path).write_bytes(bytes(damaged))
    with pytest.raises(errors.InvalidArgumentError, match="CRC"):
        TFRecordFile(path, index_path, options="GZIP")
    with (
        caplog.at_level(logging.WARNING, logger="swigflow.io"),
        TFRecordFile(path, options="GZIP") as f,  # the default one is ignored, rebuilt
    ):
        assert f.index_path is None and f[7] == records[7]
    assert "ignoring" in caplog.text and "CRC" in caplog.text
    # Another version.
    newer = bytearray(good)
    newer[8] = 2
    pathlib.Path(index_path).write_bytes(bytes(newer))
    with pytest.raises(errors.InvalidArgumentError, match=r"version 2; this swigflow reads"):
        TFRecordFile(path, index_path, options="GZIP")
    # Stale: the file was appended to, or rewritten with the same size.
    pathlib.Path(index_path).write_bytes(good)
    pathlib.Path(path).write_bytes(pathlib.Path(path).read_bytes() + gzip.compress(b"more"))
    with pytest.raises(errors.DataLossError, match="is stale"):
        TFRecordFile(path, index_path, options="GZIP")
    write(path, records, "GZIP", block=4096)
    data = bytearray(pathlib.Path(path).read_bytes())
    data[4] ^= 1  # the first member's MTIME: same size, other bytes
    pathlib.Path(path).write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match="rewritten"):
        TFRecordFile(path, index_path, options="GZIP")
    # A plain index given for a compressed file, and a seek index for an uncompressed one.
    plain = write(tmp_path / "p", records, "")
    create_index(plain)
    with pytest.raises(errors.InvalidArgumentError, match="not a seek index"):
        TFRecordFile(path, swigflow.io.default_index_path(plain), options="GZIP")
    with pytest.raises(errors.InvalidArgumentError):
        TFRecordFile(plain, index_path)


def test_damaged_data_is_data_loss_naming_the_file(tmp_path):
    records = make_records(1000)  # ~390 KB: its middle lies outside the index's edge CRCs
    path = write(tmp_path / "d.gz", records, "GZIP", block=4096)
    create_index(path)
    data = bytearray(pathlib.Path(path).read_bytes())
    middle = len(data) // 2
    data[middle : middle + 40] = bytes(40)
    # Same size, edges intact: the index still looks current, the reads find the damage.
    pathlib.Path(path).write_bytes(bytes(data))
    with TFRecordFile(path, options="GZIP") as f:
        assert f.index_path is not None
        results = []
        for i in range(len(f)):
            try:
                results.append(f[i] == records[i])
            except errors.DataLossError as e:
                assert "d.gz" in str(e)
                results.append(None)
    assert None in results and all(r is not False for r in results)
    with pytest.raises(errors.DataLossError, match=r"d\.gz"):
        create_index(path, path + ".new")
    assert not os.path.exists(path + ".new")
    pathlib.Path(path).write_bytes(bytes(data[: len(data) // 3]))  # cut
    with pytest.raises(errors.DataLossError, match="truncated"):
        create_index(path, path + ".new")


@pytest.mark.parametrize("compression,block", KINDS)
def test_data_source_over_compressed_files(tmp_path, compression, block):
    counts = [40, 0, 25, 60]
    records, paths = [], []
    for n, count in enumerate(counts):
        part = make_records(count, seed=n)
        records += part
        paths.append(write(tmp_path / f"part-{n}", part, compression, block))
    create_index(paths[0])  # the others are indexed in memory
    source = TFRecordDataSource(paths, compression_type=compression)
    assert len(source) == sum(counts)
    picks = np.random.default_rng(4).permutation(len(source))
    assert source.__getitems__(picks) == [records[i] for i in picks]
    copy = pickle.loads(pickle.dumps(source))  # seek indexes travel with it
    assert copy.__getitems__(picks[:50]) == [records[i] for i in picks[:50]]


@pytest.mark.parametrize("compression,block", KINDS)
def test_global_shuffle_over_seek_indexed_files(tmp_path, compression, block):
    plain_paths, paths, records = [], [], []
    for n in range(3):
        part = make_records(120, seed=10 + n)
        records += part
        plain_paths.append(write(tmp_path / f"plain-{n}", part, ""))
        paths.append(write(tmp_path / f"part-{n}", part, compression, block))
    ds = swigflow.data.TFRecordDataset(paths, compression_type=compression)
    ds = ds.global_shuffle(7, reshuffle_each_iteration=False)
    with pytest.raises(errors.FailedPreconditionError, match="index file for every file"):
        next(iter(ds))
    for p, q in zip(paths, plain_paths):
        create_index(p)
        create_index(q)
    got = list(ds.as_numpy_iterator())
    assert sorted(got) == sorted(records) and got != records
    # The same permutation as over the same records uncompressed.
    plain = swigflow.data.TFRecordDataset(plain_paths).global_shuffle(7, False)
    assert got == list(plain.as_numpy_iterator())
    assert ds.cardinality() == len(records)


def test_resuming_a_compressed_indexed_dataset(tmp_path):
    records = make_records(200)
    path = write(tmp_path / "r.gz", records, "GZIP", block=4096)
    create_index(path)
    ds = swigflow.data.TFRecordDataset(path, compression_type="GZIP").shard(2, 1)
    it = iter(ds)
    first = [next(it) for _ in range(30)]
    state = it.state()
    rest = list(it)
    resumed = ds.iterator(state=state)
    assert list(resumed) == rest
    assert first + rest == records[1::2]


def test_cli_index_and_count(tmp_path, capsys):
    records = make_records(150)
    path = write(tmp_path / "c.tfrecord.gz", records, "GZIP", block=4096)
    assert cli_main(["index", path]) == 0
    assert is_index_file(swigflow.io.default_index_path(path))
    assert cli_main(["count", path]) == 0
    assert "150" in capsys.readouterr().out
    assert (
        cli_main(["count", path, swigflow.io.default_index_path(path)]) == 0
    )  # as a glob gives them: index skipped
    assert "150" in capsys.readouterr().out
