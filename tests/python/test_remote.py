"""Remote paths through fsspec: memory://, file://, a real HTTP server and an S3-compatible server
(moto), all on 127.0.0.1; open file objects; the errors for what cannot be opened."""

import gc
import http.server
import io
import itertools
import json
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import data_util
import http_store
import numpy as np
import pytest
from http_store import CountingHandler, RangeHandler
from s3_store import moto_bucket

import swigflow as sf
from swigflow import errors
from swigflow.io import gfile

fsspec = pytest.importorskip("fsspec", reason="the remote extra (swigflow[remote]) is missing")


def _records(n, size=100):
    return [bytes([i % 251]) * (size + i % 7) for i in range(n)]


def _write_local(path, records, compression=None):
    with sf.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)


@pytest.fixture
def memory():
    fs = fsspec.filesystem("memory")
    root = f"memory://swigflow-test-{os.getpid()}-{threading.get_ident()}"
    yield root
    if fs.exists(root):
        fs.rm(root, recursive=True)


# --- memory:// ---------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_memory_round_trip_is_byte_identical_to_a_local_file(memory, tmp_path, compression):
    records = _records(3000)
    url = f"{memory}/a.tfrecord"
    with sf.io.TFRecordWriter(url, compression) as w:
        for r in records:
            w.write(r)
    _write_local(tmp_path / "a.tfrecord", records, compression)
    with gfile.GFile(url, "rb") as f:
        assert f.read() == (tmp_path / "a.tfrecord").read_bytes()
    assert list(sf.io.tf_record_iterator(url, compression)) == records
    with sf.io.TFRecordReader(url, compression) as r:
        assert r.read_batch(10) == records[:10]


def test_memory_write_appears_only_when_closed(memory):
    fs = fsspec.filesystem("memory")
    url = f"{memory}/b.tfrecord"
    w = sf.io.TFRecordWriter(url)
    w.write(b"x" * (9 << 20))  # more than the native buffer: bytes reach fsspec before close
    w.flush()
    assert not fs.exists(url)
    w.close()
    assert fs.exists(url)
    assert list(sf.io.tf_record_iterator(url)) == [b"x" * (9 << 20)]


def test_memory_write_abandoned_leaves_no_file_and_keeps_the_old_one(memory):
    fs = fsspec.filesystem("memory")
    url = f"{memory}/c.tfrecord"
    with sf.io.TFRecordWriter(url) as w:
        w.write(b"old")
    with pytest.raises(RuntimeError), sf.io.gfile.GFile(url, "wb") as f:
        f.write(b"half a file")
        raise RuntimeError("the job died")
    assert list(sf.io.tf_record_iterator(url)) == [b"old"]
    with pytest.raises(RuntimeError), sf.io.TFRecordWriter(url, "GZIP") as w:
        w.write(b"new" * (5 << 20))  # 15 MB: bytes reached fsspec before the failure
        raise RuntimeError("the job died")
    assert list(sf.io.tf_record_iterator(url)) == [b"old"]
    assert fs.ls(memory, detail=False) == [url.replace("memory://", "/")]


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_a_remote_writer_dropped_without_close_publishes_nothing(memory, tmp_path, compression):
    """Garbage-collected part way (a job that lost its reference, an exception held in a
    traceback), a writer to a URL discards its object; only close() publishes it. A local file
    is completed, as TensorFlow's writers complete it."""
    import gc

    fs = fsspec.filesystem("memory")
    url = f"{memory}/dropped.tfrecord"
    w = sf.io.TFRecordWriter(url, compression)
    for r in _records(3000, size=5000):  # 15 MB: parts reached fsspec before the drop
        w.write(r)
    del w
    gc.collect()
    assert not fs.exists(url)
    local = str(tmp_path / "dropped.tfrecord")
    w = sf.io.TFRecordWriter(local, compression)
    for r in _records(300):
        w.write(r)
    del w
    gc.collect()
    assert list(sf.io.tf_record_iterator(local, compression)) == _records(300)


def test_memory_damage_names_the_url_and_offset(memory):
    url = f"{memory}/d.tfrecord"
    records = _records(10)
    with sf.io.TFRecordWriter(url) as w:
        for r in records:
            w.write(r)
    data = bytearray(fsspec.filesystem("memory").cat(url))
    second = 16 + len(records[0])
    data[second + 12 + 3] ^= 1  # the second record's payload
    fsspec.filesystem("memory").pipe(url, bytes(data))
    it = sf.io.tf_record_iterator(url)
    assert next(it) == records[0]
    with pytest.raises(errors.DataLossError, match=f"corrupted record at {second + 12} in {url}"):
        next(it)


@pytest.mark.parametrize("seed", range(6))
def test_records_read_in_place_from_lent_blocks_match_a_local_scan_whatever_the_damage(
    memory, tmp_path, monkeypatch, seed
):
    """The native scanner checks and returns a remote file's records where they lie in the
    blocks the reader lends, and reads what straddles two blocks, or is damaged, through its
    buffer: with 4 KiB blocks, records of 1-3000 bytes and bytes flipped in headers, payloads
    and footers, the records and the damage found are a local scan's, offsets and messages
    included (the path aside)."""
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 4096)
    rng = random.Random(seed)
    records = [rng.randbytes(rng.randint(1, 3000)) for _ in range(120)]
    local = tmp_path / "damaged.tfrecord"
    _write_local(local, records)
    data = bytearray(local.read_bytes())
    for _ in range(4):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    if seed % 2:
        data = data[: rng.randrange(len(data) // 2, len(data))]  # cut short too
    local.write_bytes(bytes(data))
    url = f"{memory}/damaged.tfrecord"
    fsspec.filesystem("memory").pipe(url, bytes(data))

    def scan(path):
        scanner = sf.io.TFRecordScanner(path)
        got = list(scanner)
        damages = [
            (d.record, d.offset, d.resume, d.kind, d.message.replace(str(path), "<path>"))
            for d in scanner.damages
        ]
        return got, damages

    expected = scan(str(local))
    assert expected[1], "the damage was found"
    assert scan(url) == expected
    assert all(r in records for _, r in expected[0])


def test_dataset_list_files_index_and_parse_over_memory(memory):
    for shard in range(3):
        with sf.io.TFRecordWriter(f"{memory}/train-{shard}.tfrecord") as w:
            for i in range(100):
                w.write(sf.train.example_from_dict({"id": [shard * 100 + i]}))
        sf.io.create_index(f"{memory}/train-{shard}.tfrecord")
    files = sf.data.Dataset.list_files(f"{memory}/train-*.tfrecord", shuffle=False)
    assert [f.rsplit("/", 1)[1] for f in files] == [f"train-{i}.tfrecord" for i in range(3)]
    spec = {"id": sf.io.FixedLenFeature([], "int64")}
    ds = sf.data.TFRecordDataset(list(files)).batch(64).parse(spec)
    ids = np.concatenate([b["id"] for b in ds])
    assert ids.tolist() == list(range(300))
    # Indexed files: a global shuffle reads at offsets, each record exactly once.
    shuffled = sf.data.TFRecordDataset(list(files)).global_shuffle(seed=3).batch(64).parse(spec)
    ids = np.concatenate([b["id"] for b in shuffled])
    assert sorted(ids.tolist()) == list(range(300)) and ids.tolist() != list(range(300))
    records = sf.io.TFRecordFile(f"{memory}/train-1.tfrecord")
    assert records.index_path == f"{memory}/.train-1.tfrecord.idx"
    assert sf.train.Example.FromString(records[7]).features.feature["id"].int64_list.value == [107]


# --- file:// and file objects ------------------------------------------------------------------


def test_file_urls_are_local_files(tmp_path):
    url = f"file://{tmp_path}/e.tfrecord"
    with sf.io.TFRecordWriter(url) as w:
        w.write(b"local")
    assert (tmp_path / "e.tfrecord").exists()
    assert list(sf.io.tf_record_iterator(url)) == [b"local"]
    assert gfile.glob(f"file://{tmp_path}/*.tfrecord") == [url]
    assert gfile.stat(url).length == (tmp_path / "e.tfrecord").stat().st_size
    assert list(sf.data.TFRecordDataset(url)) == [b"local"]
    # And through fsspec's own LocalFileSystem, as another library would write it.
    with fsspec.open(url, "rb") as f:
        assert list(sf.io.tf_record_iterator(f)) == [b"local"]


def test_open_file_objects_are_accepted_wherever_a_path_is(tmp_path):
    buffer = io.BytesIO()
    with sf.io.TFRecordWriter(buffer, "GZIP") as w:
        for r in _records(50):
            w.write(r)
    assert not buffer.closed  # the caller's file: the writer only flushes it
    raw = buffer.getvalue()
    assert raw[:2] == b"\x1f\x8b"
    assert list(sf.io.tf_record_iterator(io.BytesIO(raw), "GZIP")) == _records(50)
    plain = io.BytesIO()
    with sf.io.TFRecordWriter(plain) as w:
        for r in _records(50):
            w.write(r)
    assert len(sf.io.TFRecordFile(io.BytesIO(plain.getvalue()))) == 50
    ds = sf.data.TFRecordDataset([io.BytesIO(plain.getvalue())]).repeat(2)
    assert list(ds) == _records(50) * 2
    (tmp_path / "f.tfrecord").write_bytes(plain.getvalue())
    with open(tmp_path / "f.tfrecord", "rb") as f:
        reader = sf.io.TFRecordReader(f)
        assert reader.path.endswith("/f.tfrecord") and reader.path.startswith("fileobj://")
        assert list(reader) == _records(50)


# --- Python I/O that raises: every call back into Python reports it --------------------------


class _FailingFile(io.RawIOBase):
    """A readable, seekable file over `data` whose reads raise `error` from byte `fail_at` on
    (a dropped connection, a timeout, a disk that went away)."""

    def __init__(self, data, fail_at, error):
        self._data, self._pos, self._fail_at, self._error = data, 0, fail_at, error

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: len(self._data)}[whence]
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer):
        if self._pos >= self._fail_at:
            raise self._error
        n = min(len(buffer), len(self._data) - self._pos, self._fail_at - self._pos)
        buffer[:n] = self._data[self._pos : self._pos + n]
        self._pos += n
        return n


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (OSError("disk gone"), errors.UnknownError),
        (ConnectionResetError("reset by peer"), errors.UnavailableError),
        (TimeoutError("no bytes for 30 s"), errors.UnavailableError),
    ],
)
def test_a_read_that_raises_mid_file_is_an_error_never_an_early_end(error, raised):
    """Before, the binding layer cleared the exception while releasing its buffer, so the reader
    saw a 0-byte read, that is, the end of the file: 0 records and no error."""
    plain = io.BytesIO()
    with sf.io.TFRecordWriter(plain) as w:
        for r in _records(300, size=10_000):  # 3 MB: the failure comes after whole 1 MiB reads
            w.write(r)
    data = plain.getvalue()
    fail_at = 2 << 20
    readers = {
        "tf_record_iterator": lambda f: list(sf.io.tf_record_iterator(f)),
        "TFRecordDataset": lambda f: list(sf.data.TFRecordDataset(f)),
        "TFRecordFile": lambda f: sf.io.TFRecordFile(f)[-1],
    }
    for name, read in readers.items():
        with pytest.raises(raised, match=rf"{type(error).__name__}.*at offset \d+") as caught:
            read(_FailingFile(data, fail_at, error))
        assert str(error) in str(caught.value), name
    got = []
    with pytest.raises(raised):
        for record in sf.io.tf_record_iterator(_FailingFile(data, fail_at, error)):
            got.append(record)
    assert 0 < len(got) < 300 and got == _records(300, size=10_000)[: len(got)]


class _FailingWriter(io.RawIOBase):
    def __init__(self, fail_in):
        self._fail_in = fail_in

    def writable(self):
        return True

    def write(self, buffer):
        if self._fail_in == "write":
            raise OSError("No space left on device")
        return len(buffer)

    def flush(self):
        if self._fail_in == "flush":
            raise OSError("I/O error on flush")


@pytest.mark.parametrize("fail_in", ["write", "flush"])
def test_a_write_that_raises_is_an_error_never_a_success(fail_in):
    """Before, a write whose Python call raised was reported as done."""
    writer = sf.io.TFRecordWriter(_FailingWriter(fail_in))
    with pytest.raises(errors.UnknownError, match=r"No space left|I/O error on flush"):
        for r in _records(20_000, size=1000):  # 20 MB: past the 8 MiB buffer, so write runs
            writer.write(r)
        writer.close()
    with pytest.raises(errors.OpError):  # failed for good, or closed
        writer.write(b"more")


# --- errors --------------------------------------------------------------------------------------


def test_python_and_the_native_layer_read_schemes_alike(tmp_path):
    """gfile.scheme is the native rule (ASCII letters first); a name like 'é://x' is a local
    relative path to both, so the file written there natively is the one gfile finds."""
    cases = {"s3://b/k": "s3", "S3://b": "s3", "http+unix://x": "http+unix", "/tmp/x": "",
             "é://x": "", "1s://x": "", "a b://x": "", "file:///tmp": "file",
             b"gs://x": "gs"}  # fmt: skip
    assert {p: gfile.scheme(p) for p in cases} == cases
    odd = tmp_path / "é:" / "x.tfrecord"  # "é://x.tfrecord" relative to tmp_path
    odd.parent.mkdir()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        _write_local("é://x.tfrecord", [b"a", b"b"])
        assert not gfile.is_remote("é://x.tfrecord") and gfile.exists("é://x.tfrecord")
        assert list(sf.io.tf_record_iterator("é://x.tfrecord")) == [b"a", b"b"]
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("nosuchscheme://bucket/x.tfrecord", "fsspec knows no such scheme"),
        ("gs://bucket/x.tfrecord", "gcsfs"),
    ],
)
def test_unknown_or_uninstalled_schemes_say_what_is_missing(url, why):
    if why == "gcsfs":
        pytest.importorskip  # noqa: B018 - gcsfs is deliberately not installed in CI
        try:
            import gcsfs  # noqa: F401

            pytest.skip("gcsfs is installed here")
        except ImportError:
            pass
    for open_it in (
        lambda: sf.io.tf_record_iterator(url),
        lambda: sf.io.TFRecordWriter(url),
        lambda: list(sf.data.TFRecordDataset(url)),
        lambda: sf.data.Dataset.list_files(url),
    ):
        with pytest.raises(errors.UnimplementedError, match=why) as e:
            open_it()
        assert "No such file" not in str(e.value)
        assert f"scheme '{url.split(':')[0]}'" in str(e.value)


def test_missing_remote_file_is_not_found(memory):
    with pytest.raises(errors.NotFoundError, match="No such file"):
        sf.io.TFRecordReader(f"{memory}/missing.tfrecord")
    with pytest.raises(errors.InvalidArgumentError, match="match at least one file"):
        sf.data.Dataset.list_files(f"{memory}/none-*.tfrecord")


# --- http:// --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_root(tmp_path_factory):
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    root = tmp_path_factory.mktemp("www")

    server, base = http_store.start(root)
    yield root, base
    server.shutdown()


def test_http_reads_records_in_large_ranges(http_root):
    root, base = http_root
    records = _records(20000, size=1000)  # ~20 MB: several READ_BLOCK_SIZE requests
    _write_local(root / "big.tfrecord", records)
    _write_local(root / "big.gz.tfrecord", records[:500], "GZIP")
    assert list(sf.io.tf_record_iterator(f"{base}/big.tfrecord")) == records
    assert list(sf.io.tf_record_iterator(f"{base}/big.gz.tfrecord", "GZIP")) == records[:500]
    ds = sf.data.TFRecordDataset([f"{base}/big.tfrecord"] * 2, num_parallel_reads=2).batch(1000)
    assert sum(len(b) for b in ds) == 40000


def test_abandoned_read_ahead_is_cancelled(tmp_path, monkeypatch):
    """Closing an iterator aborts the blocks its files had requested ahead: the store stops
    sending them at once, instead of finishing responses nobody reads."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 1 << 20)  # 1.6 s per block at 640 KB/s
    records = _records(60, size=100_000)  # 6 MB: blocks 1-3 are read ahead of block 0
    _write_local(tmp_path / "slow.tfrecord", records)

    def handler(*args, **kwargs):
        return http_store.SlowBodyHandler(*args, directory=str(tmp_path), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.lock, server.sending = threading.Lock(), 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/slow.tfrecord"
    try:
        it = iter(sf.data.TFRecordDataset([url]))
        assert next(it) == records[0]
        assert server.sending >= 2  # blocks after the first still on their way
        it.close()
        del it
        gc.collect()
        deadline = time.monotonic() + 1.0  # a block left alone would take 1.6 s
        while server.sending and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.sending == 0
    finally:
        server.shutdown()


class _NoRangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, every GET answered 200 with the whole body: Range is ignored."""

    def log_message(self, *args):
        pass


def test_a_server_that_ignores_ranges_is_read_correctly(tmp_path, monkeypatch):
    """Every block is answered with the whole object (200): the block's bytes are taken at
    their offsets (they were the object's first bytes: a CRC mismatch, DataLossError)."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 64 << 10)  # many blocks, each a whole body
    records = _records(3000, size=300)
    _write_local(tmp_path / "r.tfrecord", records)

    def handler(*args, **kwargs):
        return _NoRangeHandler(*args, directory=str(tmp_path), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/r.tfrecord"
    try:
        assert list(sf.io.tf_record_iterator(url)) == records
        with pytest.raises(errors.NotFoundError, match="No such file"):
            list(sf.io.tf_record_iterator(url.replace("r.tfrecord", "missing")))
    finally:
        server.shutdown()


class _StreamHandler(http.server.BaseHTTPRequestHandler):
    """A body with no Content-Length and no ranges (HTTP/1.0, the end is the connection's),
    written in 1 MiB pieces: what a streaming endpoint sends."""

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.end_headers()

    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        with open(self.server.path, "rb") as f:
            while piece := f.read(1 << 20):
                self.wfile.write(piece)


def test_a_body_without_length_streams_in_bounded_memory(tmp_path, monkeypatch):
    """No Content-Length: the body is spooled to a temporary file in blocks (it was read whole
    into memory, twice over), and every record arrives."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    records = _records(64, size=1 << 20)  # 64 MiB
    path = tmp_path / "stream.tfrecord"
    _write_local(path, records)
    server = http.server.HTTPServer(("127.0.0.1", 0), _StreamHandler)
    server.path = str(path)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/stream.tfrecord"
    try:
        tracemalloc.start()
        count = 0
        for record in sf.io.tf_record_iterator(url):
            assert record == records[count]
            count += 1
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert count == len(records)
        assert peak < 40 << 20, peak  # a few blocks (fsspec buffers some), not the 64 MiB body
        # The disk the spool takes is bounded too: a larger stream is an error, not a full TMPDIR.
        monkeypatch.setenv(gfile.SPOOL_MAX_BYTES_ENV, "32MiB")
        with pytest.raises(errors.ResourceExhaustedError, match="SWIGFLOW_SPOOL_MAX_BYTES"):
            list(sf.io.tf_record_iterator(url))
    finally:
        server.shutdown()


def test_a_file_read_in_order_is_read_ahead_over_several_requests(tmp_path, monkeypatch):
    """After two reads in order, the next blocks are requested at once;
    every record still arrives once, in order; with read-ahead off, one request at a time."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    records = _records(6000, size=1000)
    _write_local(tmp_path / "r.tfrecord", records)
    _write_local(tmp_path / "s.tfrecord", records)

    server, base = http_store.start(tmp_path, CountingHandler)
    url = f"{base}/r.tfrecord"
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 256 << 10)  # ~24 blocks
    try:
        assert list(sf.io.tf_record_iterator(url)) == records
        assert server.most >= 3  # several of the READ_AHEAD_BLOCKS (8) in flight
        ds = sf.data.TFRecordDataset([url, url], num_parallel_reads=2).batch(500)
        got = [r for b in ds for r in b]  # the two files interleaved, record by record
        assert got[::2] == records and got[1::2] == records
        monkeypatch.setattr(gfile, "READ_AHEAD_BLOCKS", 0)
        # Blocks read ahead for the dataset may still be in flight after it ended (issue 50:
        # abandoned read-ahead is not cancelled yet), so this reader reads a file of its own.
        other = url.replace("/r.tfrecord", "/s.tfrecord")
        assert list(sf.io.tf_record_iterator(other)) == records
        assert server.most_of["/s.tfrecord"] == 1
    finally:
        server.shutdown()


def test_a_pipeline_opens_a_file_with_its_first_blocks_get_and_no_head(tmp_path, monkeypatch):
    """A pipeline opens a plain HTTP(S) file by asking for its first block: that GET's answer
    says what the file is (its size in Content-Range, its validators), so no HEAD is sent, and
    the block is asked for once. The next block is pinned to that answer's version."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    records = _records(300, size=1000)  # two blocks of 256 KiB
    _write_local(tmp_path / "r.tfrecord", records)
    seen, lock = [], threading.Lock()

    class Noting(http_store.RangeHandler):
        def send_head(self):
            with lock:
                seen.append((self.command, self.headers.get("Range"), self.headers.get("If-Match")))
            return super().send_head()

        def end_headers(self):
            self.send_header("ETag", '"v1"')
            super().end_headers()

    server, base = http_store.start(tmp_path, Noting)
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 256 << 10)
    try:
        url = f"{base}/r.tfrecord"
        ds = sf.data.TFRecordDataset([url], num_parallel_reads=2)
        assert [r for b in ds.batch(100) for r in b] == records
        size = os.path.getsize(tmp_path / "r.tfrecord")
        assert "HEAD" not in [command for command, _, _ in seen]
        assert [x for x in seen if x[1]] == [  # not the listings' GETs
            ("GET", f"bytes=0-{(256 << 10) - 1}", None),
            ("GET", f"bytes={256 << 10}-{size - 1}", '"v1"'),
        ]
    finally:
        server.shutdown()


def test_an_open_whose_first_block_fails_asks_the_store_and_reads_every_record(
    tmp_path, monkeypatch
):
    """The first block's GET, sent with the open, is answered 503 (once): the open asks what
    the file is with a HEAD instead, the block is asked for again, pinned, and every record
    arrives."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    records = _records(300, size=1000)
    _write_local(tmp_path / "r.tfrecord", records)
    seen, lock = [], threading.Lock()

    class FailingOnce(http_store.RangeHandler):
        def send_head(self):
            first = self.headers.get("Range") == f"bytes=0-{(256 << 10) - 1}"
            with lock:
                seen.append((self.command, self.headers.get("Range")))
                fail = first and seen.count(seen[-1]) == 1
            if fail:
                self.send_error(503)
                return None
            return super().send_head()

    server, base = http_store.start(tmp_path, FailingOnce)
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 256 << 10)
    try:
        ds = sf.data.TFRecordDataset([f"{base}/r.tfrecord"], num_parallel_reads=2)
        assert [r for b in ds.batch(100) for r in b] == records
        first = ("GET", f"bytes=0-{(256 << 10) - 1}")
        ranged = [x for x in seen if x[0] == "HEAD" or x[1]]  # not the listings' GETs
        assert ranged[0] == first and ("HEAD", None) in ranged and ranged.count(first) == 2
    finally:
        server.shutdown()


_LENDING_CHILD = textwrap.dedent(
    """
    import json, sys
    import swigflow as sf
    from swigflow import errors, pywrap_swigflow

    data = open(sys.argv[1], "rb").read()
    BLOCK = 64 << 10
    calls = {"block_at": 0, "read_at": 0}

    class Reader:  # lends blocks of BLOCK bytes; lend(offset, start) says which, if any
        size = len(data)

        def __init__(self, lend):
            self.lend = lend

        def block_at(self, offset):
            calls["block_at"] += 1
            start = self.lend(offset, offset // BLOCK * BLOCK)
            return None if start is None else (start, memoryview(data)[start : start + BLOCK])

        def read_at(self, offset, buffer):
            calls["read_at"] += 1
            n = max(0, min(len(buffer), self.size - offset))
            buffer[:n] = data[offset : offset + n]
            return n

    ways = {
        "lends": lambda offset, start: start if offset < len(data) else None,
        "declines": lambda offset, start: None,
        "lends a block without the offset": lambda offset, start: start + BLOCK,
    }

    class Opener:
        def open_read(self, url, group=0):
            return Reader(ways[url.removeprefix("lend://")])

        def cancel_reads(self, group):
            pass

    pywrap_swigflow.SetRemoteOpener(Opener())
    out = {}
    for way in ways:
        calls.update(block_at=0, read_at=0)
        try:
            got = list(sf.io.tf_record_iterator("lend://" + way))
            out[way] = [len(got), calls["block_at"], calls["read_at"]]
        except errors.OpError as e:
            out[way] = [type(e).__name__, str(e)]
    print(json.dumps(out))
    """
)


def test_a_native_reader_copies_from_lent_blocks_one_python_call_per_block(tmp_path):
    """A remote reader that lends blocks (block_at, as swigflow.io.remote's does with its
    read-ahead blocks): the native reader copies what it reads from them, calling Python once
    per block; one that declines is read as asked (read_at, a call per read); a block that
    does not hold the offset asked for is an InternalError naming the file and offset."""
    path = tmp_path / "r.tfrecord"
    records = _records(1000, size=1000)  # ~1 MB: 16 blocks of 64 KiB
    _write_local(path, records)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", _LENDING_CHILD, str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    got = json.loads(out.stdout.splitlines()[-1])
    blocks = -(-path.stat().st_size // (64 << 10))
    count, block_at, read_at = got["lends"]
    assert count == len(records)
    assert block_at == blocks + 1 and read_at == 1  # + the look past the end
    count, block_at, read_at = got["declines"]
    assert count == len(records) and read_at >= 2 * len(records)  # a header and a payload each
    kind, message = got["lends a block without the offset"]
    assert kind == "InternalError"
    assert "lend://lends a block without the offset: block_at(0) lent bytes [65536, " in message


def test_http_is_read_only_and_missing_files_are_not_found(http_root):
    _, base = http_root
    with pytest.raises(errors.NotFoundError):
        list(sf.io.tf_record_iterator(f"{base}/missing.tfrecord"))
    with pytest.raises(errors.OpError), sf.io.TFRecordWriter(f"{base}/new.tfrecord") as w:
        w.write(b"x")


class _FaultyHandler(RangeHandler):
    """Serves as RangeHandler, but asks the server's `fault(method)` first: "ok", an HTTP
    status to answer with, "cut" (a range body stopped half way, the connection closed) or
    "reset" (the connection closed before any answer)."""

    def send_head(self):
        fault = self.server.fault(self.command)
        if fault == "reset":
            self.close_connection = True
            return None
        if isinstance(fault, int):
            self.send_error(fault)
            return None
        body = super().send_head()
        if fault == "cut" and body is not None:
            self.close_connection = True
            data = body.getvalue()
            return io.BytesIO(data[: len(data) // 2])
        return body


@pytest.fixture
def faulty_http(tmp_path):
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")

    def handler(*args, **kwargs):
        return _FaultyHandler(*args, directory=str(tmp_path), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.fault = lambda method: "ok"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}", server
    server.shutdown()


def test_transient_http_faults_are_retried_and_every_record_arrives_once_in_order(faulty_http):
    """Range GETs answered by turns with a body cut half way, a 500, a 503, a 429 and a closed
    connection, between good answers: every record arrives exactly once and in order (each
    fault retried from the same byte), in the reader and in a pipeline."""
    root, base, server = faulty_http
    records = _records(30000, size=1000)  # ~30 MB: several 8 MiB range requests per pass
    _write_local(root / "f.tfrecord", records)
    schedule = itertools.cycle(["cut", "ok", 500, 503, "ok", "reset", 429, "ok"])
    lock = threading.Lock()

    served = []

    def fault(method):
        if method != "GET":
            return "ok"
        with lock:
            served.append(next(schedule))
            return served[-1]

    server.fault = fault
    assert list(sf.io.tf_record_iterator(f"{base}/f.tfrecord")) == records
    ds = sf.data.TFRecordDataset([f"{base}/f.tfrecord"]).batch(1000)
    assert [r for batch in ds for r in batch] == records
    assert len(served) >= 16 and served.count("ok") < len(served) / 2  # the faults were met


def test_lasting_http_faults_raise_unavailable_naming_the_url_and_offset(faulty_http, monkeypatch):
    root, base, server = faulty_http
    _write_local(root / "f.tfrecord", _records(100))
    url = f"{base}/f.tfrecord"
    monkeypatch.setattr(gfile, "READ_BACKOFF_S", 0.001)
    for lasting in (500, 503, "cut", "reset"):
        server.fault = lambda method, lasting=lasting: lasting if method == "GET" else "ok"
        with pytest.raises(errors.UnavailableError, match=rf"{url}.*6 attempts.*at offset 0"):
            list(sf.io.tf_record_iterator(url))
    # The metadata request too: a server error is no "No such file".
    for status, raised in ((503, errors.UnavailableError), (403, errors.PermissionDeniedError)):
        server.fault = lambda method, status=status: status
        with pytest.raises(raised, match=f"HTTP {status}"):
            list(sf.io.tf_record_iterator(url))
    server.fault = lambda method: 404
    with pytest.raises(errors.NotFoundError):
        list(sf.io.tf_record_iterator(url))


def test_a_stalled_http_response_times_out_and_is_retried(faulty_http, monkeypatch):
    """A server that stops sending fails the request after STALL_TIMEOUT_S (aiohttp would wait
    5 minutes), and the read is retried: one stall costs a timeout, lasting stalls end in
    UnavailableError."""
    root, base, server = faulty_http
    records = _records(100)
    _write_local(root / "s.tfrecord", records)
    monkeypatch.setattr(gfile, "STALL_TIMEOUT_S", 0.5)
    monkeypatch.setattr(gfile, "READ_ATTEMPTS", 3)
    stalls = []

    def stall_first(method):
        if method == "GET" and not stalls:
            stalls.append(1)
            time.sleep(3)  # longer than the timeout
        return "ok"

    server.fault = stall_first
    start = time.monotonic()
    assert list(sf.io.tf_record_iterator(f"{base}/s.tfrecord")) == records
    assert stalls and time.monotonic() - start < 3

    def stall_always(method):
        if method == "GET":
            time.sleep(3)
        return "ok"

    server.fault = stall_always
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError, match="3 attempts"):
        list(sf.io.tf_record_iterator(f"{base}/s.tfrecord"))
    assert time.monotonic() - start < 3 * 0.5 + 2


STALLED_READ = """
import gc, http.server, os, signal, socket, sys, threading, time
import fsspec
import swigflow

root, how, transport = sys.argv[1:4]
with swigflow.io.TFRecordWriter(os.path.join(root, "f.tfrecord")) as w:
    for i in range(100):
        w.write(b"x" * 1000)


class Stalling(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.headers.get("Range"):
            time.sleep(120)  # the body never comes
        return super().do_GET()


def stalling_proxy(host, port):
    # Forwards to host:port, but a ranged GET is never forwarded: its answer never comes.
    listener = socket.create_server(("127.0.0.1", 0))

    def pipe(source, sink, stall):
        try:
            while data := source.recv(65536):
                if stall and data.startswith(b"GET") and b"\\r\\nrange:" in data.lower():
                    time.sleep(120)
                sink.sendall(data)
        except OSError:
            pass

    def serve():
        while True:
            client, _ = listener.accept()
            upstream = socket.create_connection((host, port))
            threading.Thread(target=pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, client, False), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}"


if transport == "s3":  # sys.argv[4]: moto's endpoint, whose bucket holds f.tfrecord
    host, port = sys.argv[4].rsplit("/", 1)[1].split(":")
    endpoint = stalling_proxy(host, int(port))
    fsspec.config.conf["s3"] = {
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
    }
    url = f"s3://{sys.argv[5]}/f.tfrecord"
else:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **k: Stalling(*a, directory=root, **k)
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/f.tfrecord"
    if transport == "aiohttp":  # a client option: reads go through aiohttp's event loop
        fsspec.config.conf["http"] = {"client_kwargs": {"trust_env": False}}
signal.signal(signal.SIGINT, signal.default_int_handler)  # Bazel starts tests with it ignored
sent = []


def interrupt():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)


threading.Timer(1.0, interrupt).start()
name = "finished"
try:
    if how == "reader":
        list(swigflow.io.tf_record_iterator(url))
    elif how == "TFRecordReader":
        for _ in swigflow.io.TFRecordReader(url):
            pass
    else:
        list(swigflow.data.TFRecordDataset([url], num_parallel_reads=2))
except BaseException as e:
    name = type(e).__name__
# The exception's traceback held the reader or the pipeline: it is gone now, and tearing the
# pipeline down must not wait for the stalled request.
gc.collect()
print(name, round(time.monotonic() - sent[0], 2), flush=True)
# Then a normal exit: nothing may wait on the stalled store (before: ~3 minutes, the stall
# timeout times the attempts, as read-ahead work held the interrupted reader).
"""


def _interrupt_a_stalled_read(tmp_path, how, transport, *store):
    import subprocess
    import sys

    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", STALLED_READ, str(tmp_path), how, transport, *store],
        capture_output=True,
        text=True,
        timeout=150,
    )
    took = time.monotonic() - start
    name, seconds = result.stdout.split()
    assert name == "KeyboardInterrupt" and float(seconds) < 1.0, result.stdout + result.stderr
    assert took < 10, (took, result.stderr[-2000:])
    # Nothing is left on fsspec's event loop to be destroyed at exit, and nothing else is said.
    assert "Task was destroyed but it is pending" not in result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


@pytest.mark.parametrize("transport", ["http", "aiohttp"])
@pytest.mark.parametrize("how", ["reader", "TFRecordReader", "pipeline"])
def test_ctrl_c_interrupts_a_stalled_remote_read_as_keyboard_interrupt(tmp_path, how, transport):
    """A server that never sends the body: SIGINT ends the read within a second, and it is a
    KeyboardInterrupt (once it came back from the native layer as UnknownError). A pipeline's
    reader threads, waiting on the store, are let go when the pipeline stops (its read group's
    reads cancelled): before, tearing it down waited for the stalled request (30 s, retried).
    The process then exits at once. `transport`: swigflow's own range requests, or aiohttp's
    (a client option is configured), whose requests run on fsspec's event loop."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    _interrupt_a_stalled_read(tmp_path, how, transport)


# --- s3:// (moto's server) ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def s3_bucket():
    with moto_bucket("swigflow-test") as url:
        yield url


@pytest.mark.parametrize("how", ["reader", "pipeline"])
def test_ctrl_c_interrupts_a_stalled_s3_read(s3_bucket, tmp_path, how):
    """As for http://, with s3fs's requests on fsspec's event loop: moto behind a proxy that
    never forwards a ranged GET (the object's size and listing still answer)."""
    import fsspec

    local = tmp_path / "f.tfrecord"
    _write_local(local, _records(2000, size=1000))
    fsspec.filesystem("s3").put(str(local), f"{s3_bucket}/f.tfrecord")
    endpoint = fsspec.config.conf["s3"]["client_kwargs"]["endpoint_url"]
    _interrupt_a_stalled_read(tmp_path, how, "s3", endpoint, s3_bucket[len("s3://") :])


def test_s3_write_list_read_and_parse(s3_bucket):
    for shard in range(2):
        with sf.io.TFRecordWriter(f"{s3_bucket}/data/part-{shard}.tfrecord", "GZIP") as w:
            for i in range(500):
                w.write(sf.train.example_from_dict({"id": [shard * 500 + i], "x": [1.5] * 4}))
    files = gfile.glob(f"{s3_bucket}/data/part-*.tfrecord")
    assert files == [f"{s3_bucket}/data/part-{i}.tfrecord" for i in range(2)]
    spec = {"id": sf.io.FixedLenFeature([], "int64"), "x": sf.io.FixedLenFeature([4], "float32")}
    ds = sf.data.TFRecordDataset(files, compression_type="GZIP").batch(100).parse(spec)
    batches = list(ds)
    assert np.concatenate([b["id"] for b in batches]).tolist() == list(range(1000))
    assert all((b["x"] == 1.5).all() for b in batches)


def test_s3_large_file_uses_a_multipart_upload_committed_at_close(s3_bucket):
    fs = fsspec.filesystem("s3")
    url = f"{s3_bucket}/big/part.tfrecord"
    records = _records(1500, size=10000)  # 15 MB: two native flushes, a multipart upload
    w = sf.io.TFRecordWriter(url)
    for r in records:
        w.write(r)
    w.flush()
    fs.invalidate_cache()
    assert not fs.exists(url)  # parts uploaded, the object not yet there
    w.close()
    fs.invalidate_cache()
    assert fs.exists(url)
    assert list(sf.io.tf_record_iterator(url)) == records
    # A write that fails is aborted: no object appears.
    failed = f"{s3_bucket}/big/failed.tfrecord"
    with pytest.raises(RuntimeError), gfile.GFile(failed, "wb") as f:
        f.write(b"x" * (6 << 20))
        raise RuntimeError("the job died")
    fs.invalidate_cache()
    assert not fs.exists(failed)


def test_cli_reads_and_writes_urls(memory, capsys):
    from swigflow import cli

    url = f"{memory}/cli.tfrecord"
    with sf.io.TFRecordWriter(url) as w:
        for i in range(7):
            w.write(sf.train.example_from_dict({"id": [i]}))
    assert cli.main(["count", url]) == 0
    assert capsys.readouterr().out.split()[0] == "7"
    assert cli.main(["index", url]) == 0
    assert gfile.exists(sf.io.default_index_path(url))
    assert cli.main(["verify", url]) == 0


def _upload(local_root, url):
    """Copies a local folder tree to `url`, file by file, through gfile."""
    for folder, _, names in os.walk(local_root):
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), local_root)
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            with gfile.GFile(gfile.join(url, *relative.split(os.sep)), "wb") as f:
                f.write(data)


def _build_both_ways(tmp_path, root_url, capsys, *options):
    """Builds the same image folder from a local path to a local folder and from `root_url`
    (where it is uploaded) to root_url/out; returns (local out, URL out) after checking that
    every shard, index and the manifest are the same."""
    from swigflow import cli

    images = tmp_path / "images"
    data_util.make_image_folder(images)
    _upload(images, f"{root_url}/images")
    outs = (str(tmp_path / "out"), f"{root_url}/out")
    for source, out in zip((str(images), f"{root_url}/images"), outs):
        args = ["build-image-dataset", "--train-directory", source, "--output-directory", out]
        assert (
            cli.main([*args, "--train-shards", "3", "--seed", "5", "--no-progress", *options]) == 0
        )
    assert "skipped 1 unreadable image" in capsys.readouterr().out
    local = sorted(os.listdir(outs[0]))
    assert gfile.listdir(outs[1]) == local
    assert ".train-00002-of-00003.idx" in local
    for name in local:
        if name == ".swigflow-build.json":  # the journal: a digest of the input paths
            continue
        with (
            open(os.path.join(outs[0], name), "rb") as f,
            gfile.GFile(f"{outs[1]}/{name}", "rb") as g,
        ):
            mine, theirs = f.read(), g.read()
        if name == "manifest.json":
            mine, theirs = json.loads(mine), json.loads(theirs)
            assert theirs.pop("train_directory") == f"{root_url}/images"
            mine.pop("train_directory")
            for skipped in mine["skipped"] + theirs["skipped"]:
                skipped["file"] = skipped["file"].rsplit("/", 1)[-1]
                skipped.pop("reason")
        assert mine == theirs, name
    return outs


def test_cli_builds_image_datasets_between_urls_byte_for_byte(memory, tmp_path, capsys):
    from swigflow import cli

    _, out = _build_both_ways(tmp_path, memory, capsys)
    # --resume at a URL: a lost shard is written again, the others kept.
    for name in ("train-00001-of-00003", ".train-00001-of-00003.idx"):
        gfile.remove(f"{out}/{name}")
    args = ["build-image-dataset", "--train-directory", f"{memory}/images"]
    args += ["--output-directory", out, "--train-shards", "3", "--seed", "5", "--no-progress"]
    assert cli.main([*args, "--resume"]) == 0
    assert "kept 2 complete shard(s)" in capsys.readouterr().out
    with open(tmp_path / "out" / "train-00001-of-00003", "rb") as f:
        assert gfile.GFile(f"{out}/train-00001-of-00003", "rb").read() == f.read()
    # export-images from URLs to a URL gives back the stored JPEG files as they were.
    shards = gfile.glob(f"{out}/train-*-of-00003")
    assert (
        cli.main(["export-images", *shards, "--output-directory", f"{memory}/x", "--by-class"]) == 0
    )
    assert "wrote 12 images" in capsys.readouterr().out
    assert gfile.listdir(f"{memory}/x") == ["cat", "dog"]
    with open(tmp_path / "images" / "dog" / "dog0.jpg", "rb") as f:
        assert gfile.GFile(f"{memory}/x/dog/dog0.jpg", "rb").read() == f.read()


def test_cli_sniffs_compression_and_repairs_at_urls(memory, capsys):
    from swigflow import cli

    url = f"{memory}/no-suffix"  # GZIP, told by its first bytes, as for a local file
    with sf.io.TFRecordWriter(url, "GZIP") as w:
        for i in range(5):
            w.write(sf.train.example_from_dict({"id": [i]}))
    assert cli.main(["count", url]) == 0
    assert capsys.readouterr().out.split()[0] == "5"
    assert cli.main(["repair", url, "--output", url]) == 1  # never over its own input
    assert "must be a new file" in capsys.readouterr().err
    assert cli.main(["repair", url, "--output", f"{memory}/fixed.tfrecord"]) == 0
    assert "wrote 5 records" in capsys.readouterr().out
    assert list(sf.io.tf_record_iterator(f"{memory}/fixed.tfrecord", "GZIP")) == list(
        sf.io.tf_record_iterator(url, "GZIP")
    )


def test_cli_builds_image_datasets_on_s3(s3_bucket, tmp_path, capsys):
    # Folders on an object store are key prefixes, listed in one request per folder.
    _build_both_ways(tmp_path, f"{s3_bucket}/build", capsys, "--validation-fraction", "0.3")
