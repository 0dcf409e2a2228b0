"""Remote reads are pinned to the version of the object opened: every range answer is checked
against it, on every path (read ahead, one block at a time, random reads), whatever the server
does with conditional requests: FailedPreconditionError, never a mix of two versions. Servers
on 127.0.0.1 that honour If-Match or ignore it, send strong, weak or no ETags, or only
Last-Modified."""

import email.utils
import http.server
import os
import threading
import zlib

import http_store
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.io import gfile

pytest.importorskip("fsspec", reason="the remote extra (swigflow[remote]) is missing")
pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")

BLOCK = 256 << 10
# Records of exactly one block, framing included (16 bytes): every range starts at a record,
# so bytes of a new version of the same size would frame and check as records (a silent mix).
PAYLOAD = BLOCK - 16


def _versions(n=24):
    old = [bytes([k % 251]) * PAYLOAD for k in range(n)]
    new = [bytes([(k + 100) % 251]) * PAYLOAD for k in range(n)]
    return old, new


def _write(path, records, mtime):
    with sf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    os.utime(path, (mtime, mtime))


class _Handler(http_store.RangeHandler):
    """Serves with the validators `server.validators` names ("etag", "weak", "last-modified"),
    answers 412 to a failed If-Match / If-Unmodified-Since only if `server.honours`, and runs
    `server.after(n)` before answering the n-th GET (n from 1)."""

    send_last_modified = False  # only as `server.validators` says

    def send_head(self):
        path = self.translate_path(self.path)
        self.validators = {}
        if self.command == "GET":
            with self.server.lock:
                self.server.gets += 1
                n = self.server.gets
            self.server.after(n)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                tag = f'"{zlib.crc32(f.read()):08x}"'
            modified = email.utils.formatdate(os.stat(path).st_mtime, usegmt=True)
            if "etag" in self.server.validators:
                self.validators["ETag"] = tag
            if "weak" in self.server.validators:
                self.validators["ETag"] = f"W/{tag}"
            if "last-modified" in self.server.validators:
                self.validators["Last-Modified"] = modified
            if self.server.honours and self._precondition_fails(tag, modified):
                self.send_error(412)
                return None
        return super().send_head()

    def _precondition_fails(self, tag, modified):
        wanted = self.headers.get("If-Match")
        if wanted is not None:  # the strong comparison (RFC 9110): a weak tag never matches
            return wanted.startswith("W/") or wanted != tag or "weak" in self.server.validators
        since = self.headers.get("If-Unmodified-Since")
        return since is not None and since != modified

    def end_headers(self):
        for name, value in getattr(self, "validators", {}).items():
            self.send_header(name, value)
        super().end_headers()


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(validators, honours):
        def handler(*args, **kwargs):
            return _Handler(*args, directory=str(tmp_path), **kwargs)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        server.lock, server.gets, server.after = threading.Lock(), 0, lambda n: None
        server.validators, server.honours = validators, honours
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server, f"http://127.0.0.1:{server.server_address[1]}"

    yield tmp_path, start
    for server in servers:
        server.shutdown()


SERVERS = [
    pytest.param(("etag",), True, id="strong-etag-honoured"),
    pytest.param(("etag",), False, id="strong-etag-ignored"),
    pytest.param(("weak",), True, id="weak-etag-strict-if-match"),
    pytest.param(("weak",), False, id="weak-etag-ignored"),
    pytest.param(("last-modified",), True, id="last-modified-honoured"),
    pytest.param(("last-modified",), False, id="last-modified-ignored"),
    pytest.param((), False, id="no-validator"),
]


@pytest.mark.parametrize("validators, honours", SERVERS)
@pytest.mark.parametrize("blocks", [2, 0], ids=["read-ahead", "no-read-ahead"])
def test_a_rewrite_during_a_read_raises_and_never_mixes(
    serve, monkeypatch, validators, honours, blocks
):
    """The object is replaced by another of the same records' framing after a few ranges were
    served. An unchanged object reads whole; a replaced one fails with FailedPreconditionError
    (with no validator at all, only a change of size can be seen: here the new version is
    larger)."""
    root, start = serve
    old, new = _versions()
    if not validators:
        new = new + new[:2]
    _write(root / "v.tfrecord", old, 1_700_000_000)
    server, base = start(validators, honours)
    url = f"{base}/v.tfrecord"
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", BLOCK)
    monkeypatch.setattr(gfile, "READ_AHEAD_BLOCKS", blocks)
    assert list(sf.io.tf_record_iterator(url)) == old  # weak ETags too: never sent in If-Match

    def rewrite(n):
        if n == 4:
            _write(root / "v.tfrecord", new, 1_700_000_100)

    server.after, server.gets = rewrite, 0
    with pytest.raises(errors.FailedPreconditionError, match="changed while it was read"):
        got = list(sf.io.tf_record_iterator(url))
        pytest.fail(f"read {sum(r in new for r in got)} records of the new version silently")


@pytest.mark.parametrize("validators, honours", SERVERS)
def test_random_reads_are_pinned(serve, monkeypatch, validators, honours):
    root, start = serve
    old, new = _versions()
    if not validators:
        new = new + new[:2]
    _write(root / "v.tfrecord", old, 1_700_000_000)
    _, base = start(validators, honours)
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", BLOCK)
    with sf.io.TFRecordFile(f"{base}/v.tfrecord") as f:
        assert f[5] == old[5]
        _write(root / "v.tfrecord", new, 1_700_000_100)
        with pytest.raises(errors.FailedPreconditionError, match="changed while it was read"):
            f[17]


def test_the_error_says_what_changed(serve, monkeypatch):
    root, start = serve
    old, new = _versions()
    _write(root / "v.tfrecord", old, 1_700_000_000)
    _, base = start(("etag",), False)
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", BLOCK)
    with sf.io.TFRecordFile(f"{base}/v.tfrecord") as f:
        f[0]
        _write(root / "v.tfrecord", new, 1_700_000_100)
        with pytest.raises(errors.FailedPreconditionError) as e:
            f[9]
    assert "v.tfrecord changed while it was read (its ETag is now" in str(e.value)
    assert "when opened" in str(e.value)


@pytest.mark.parametrize("validators, honours", SERVERS)
def test_a_pipelines_reader_reads_the_version_its_first_blocks_answer_shows(
    serve, monkeypatch, validators, honours
):
    """A pipeline's reader opens a file with its first block's GET, whose answer says which
    version is read (swigflow.io.remote._FirstBlock): no HEAD is sent. The object is replaced
    right after that answer: the next block's answer shows the change, and the read fails as
    any change does, after the first block's records only."""
    root, start = serve
    old, new = _versions(4)
    if not validators:
        new = new + new[:2]
    _write(root / "v.tfrecord", old, 1_700_000_000)
    server, base = start(validators, honours)
    heads = []

    replaced = threading.Event()

    class Counted(_Handler):
        def do_HEAD(self):  # noqa: N802 - http.server names it
            heads.append(self.path)
            super().do_HEAD()

        def send_head(self):
            later = self.headers.get("Range", "bytes=0-").partition("-")[0] != "bytes=0"
            if later and not replaced.is_set():  # block 0's answer was the old version's
                _write(root / "v.tfrecord", new, 1_700_000_100)
                replaced.set()
            return super().send_head()

    server.RequestHandlerClass = lambda *a, **k: Counted(*a, directory=str(root), **k)
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", BLOCK)
    got = []
    ds = sf.data.TFRecordDataset([f"{base}/v.tfrecord"], num_parallel_reads=2)
    with pytest.raises(errors.FailedPreconditionError, match="changed while it was read"):
        for r in ds:
            got.append(r)
        pytest.fail(f"read {sum(r in new for r in got)} records of the new version silently")
    assert got == old[: len(got)] and replaced.is_set() and heads == []
