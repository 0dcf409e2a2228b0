"""Remote work dies with its reader: dropping or closing a reader or a dataset cancels its
outstanding requests and downloads within about a second, and a stalled object is not retried
twice over (by the shard cache's prefetch, then by the reader). Servers on 127.0.0.1 that
stall. (Ctrl-C, and the exit after it: test_remote.py.)"""

import socket
import threading
import time

import http_store
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.io import gfile

pytest.importorskip("fsspec", reason="the remote extra (swigflow[remote]) is missing")
pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")


def _write(path, count, size=1000, tag=b"x"):
    records = [tag * size for _ in range(count)]
    with sf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return records


class _StallingHandler(http_store.RangeHandler):
    """Range GETs of a path in `server.stalled` get their headers, then a body that does not
    come for 60 s (but for a range from byte 0 if `server.first_fast`); `server.gets` counts
    GETs per path, `server.open` stalled answers not yet over. The request an open waits
    for (a HEAD, or a pipeline's GET from byte 0: remote._FirstBlock) of a path in
    `server.held` waits for that Event (`server.opens_held` counts them in)."""

    protocol_version = "HTTP/1.1"

    def send_head(self):
        if self.command == "GET":
            with self.server.lock:
                self.server.gets[self.path] = self.server.gets.get(self.path, 0) + 1
        opening = self.command == "HEAD" or self.headers.get("Range", "").startswith("bytes=0-")
        if opening and self.path in self.server.held:  # held until the test lets it go
            self.server.opens_held.release()
            self.server.held[self.path].wait(10)
        return super().send_head()

    def copyfile(self, source, outputfile):
        spec = self.headers.get("Range", "")
        first = self.server.first_fast and spec.startswith("bytes=0-")
        if self.path not in self.server.stalled or not spec or first:
            return super().copyfile(source, outputfile)
        with self.server.lock:
            self.server.open += 1
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # ends early when the client goes away
                time.sleep(0.05)
                try:
                    if self.connection.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b"":
                        break  # the client closed or shut down its end
                except BlockingIOError:
                    continue  # nothing from the client: it is still waiting
        except OSError:
            pass
        finally:
            with self.server.lock:
                self.server.open -= 1
        self.close_connection = True
        return None


@pytest.fixture
def stalling(tmp_path):
    server, base = http_store.start(tmp_path, _StallingHandler)
    server.gets, server.stalled, server.open, server.first_fast = {}, set(), 0, False
    server.held, server.opens_held = {}, threading.Semaphore(0)
    yield tmp_path, server, base
    server.shutdown()


def _wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_stalled_shard_behind_the_cache_is_not_retried_twice_over(stalling, monkeypatch):
    """Two files read one after the other through a cache; the second's body never comes.
    Opening the first starts the second's download; when the dataset opens the second, the
    download, silent for the stall timeout, is stopped, the reader tries READ_ATTEMPTS times,
    and the dataset fails with UnavailableError. Before, the download's attempts and then the
    reader's all ran (2 x 6 x 30 s at the defaults)."""
    root, server, base = stalling
    _write(root / "a.tfrecord", 100)
    _write(root / "b.tfrecord", 100)
    server.stalled.add("/b.tfrecord")
    monkeypatch.setattr(gfile, "STALL_TIMEOUT_S", 0.5)
    monkeypatch.setattr(gfile, "READ_ATTEMPTS", 4)
    monkeypatch.setattr(gfile, "READ_BACKOFF_S", 0.01)
    urls = [f"{base}/a.tfrecord", f"{base}/b.tfrecord"]
    ds = sf.data.TFRecordDataset(urls, cache_dir=str(root / "cache"))
    start = time.monotonic()
    with pytest.raises(errors.UnavailableError, match=r"b\.tfrecord"):
        list(ds)
    took = time.monotonic() - start
    assert took < 6, took  # one stall for the prefetch, four for the reader: ~2.5 s
    # 1 prefetch (+1 if its first attempt timed out just before it was stopped) + 4 reads;
    # before, 4 + 4.
    assert server.gets["/b.tfrecord"] <= 6, server.gets
    assert _wait_until(lambda: server.open == 0, 2), server.open


def test_leaving_a_dataset_stops_its_shard_prefetches(stalling, monkeypatch):
    """The dataset read its first record and stopped: the downloads it started ahead (the next
    files, stalled here) are stopped within a second, and no partial copy is left (the first
    file, one block, was cached whole)."""
    root, server, base = stalling
    records = _write(root / "a.tfrecord", 100)
    for name in ("b", "c"):
        _write(root / f"{name}.tfrecord", 100)
        server.stalled.add(f"/{name}.tfrecord")
    urls = [f"{base}/{n}.tfrecord" for n in "abc"]
    it = iter(sf.data.TFRecordDataset(urls, cache_dir=str(root / "cache")))
    assert next(it) == records[0]
    assert _wait_until(lambda: server.open == 2, 5), server.open  # both prefetches stalled
    it.close()
    del it
    assert _wait_until(lambda: server.open == 0, 1.5), server.open

    def entries():
        return [p.name for p in (root / "cache").iterdir() if not p.name.startswith(".")]

    assert _wait_until(lambda: len(entries()) == 1, 1), entries()  # a.tfrecord's copy alone
    assert ".part-" not in entries()[0]


def test_dropping_a_reader_aborts_its_read_ahead(stalling, monkeypatch):
    """A reader read its first block; the blocks it requested ahead are stalled. Dropping it
    shuts their requests down at once: before, the pool's work held the reader alive, so its
    abort never ran and each request waited out the stall timeout, retried."""
    root, server, base = stalling
    records = _write(root / "s.tfrecord", 8000)  # 8 MB: 8 blocks of 1 MiB, the native read
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 1 << 20)
    server.stalled.add("/s.tfrecord")
    server.first_fast = True
    it = sf.io.tf_record_iterator(f"{base}/s.tfrecord")
    assert next(it) == records[0]
    assert _wait_until(lambda: server.open >= 2, 5), server.open
    del it
    assert _wait_until(lambda: server.open == 0, 1.5), server.open


@pytest.mark.parametrize("parallel", [None, 1])
def test_a_stalled_next_file_does_not_hold_back_the_records_before_it(stalling, parallel):
    """Two small files read one after the other, without a cache; the second's body never
    comes. Every record of the first arrives at once (before: after the second's stall
    timeout, 25 s), although the second is read ahead; then the dataset is dropped, and the
    stalled request ends. (With several files at a time the order is deterministic, as in
    TensorFlow: the first's second record waits for the second's first.)"""
    root, server, base = stalling
    records = _write(root / "a.tfrecord", 20)
    _write(root / "b.tfrecord", 20)
    server.stalled.add("/b.tfrecord")
    urls = [f"{base}/a.tfrecord", f"{base}/b.tfrecord"]
    it = iter(sf.data.TFRecordDataset(urls, num_parallel_reads=parallel))
    start = time.monotonic()
    got = [next(it) for _ in records]
    assert got == records
    assert time.monotonic() - start < 2
    assert _wait_until(lambda: server.open >= 1, 5), server.open  # b's read is stalled
    it.close()
    del it
    assert _wait_until(lambda: server.open == 0, 1.5), server.open


def test_a_file_being_opened_when_the_dataset_stops_is_abandoned_too(stalling):
    """The dataset stops while the next file's open waits for the store's answer to its first
    block's GET, which says what the file is (remote._FirstBlock): the open gives up with the
    stop, without waiting for the answer, and its request is abandoned, so the body stalled
    after the late answer finds nobody reading. Before, the stop waited for the open's
    answer, and the reader then joined its pipeline's reads after they were abandoned and
    waited out the stall."""
    root, server, base = stalling
    records = _write(root / "a.tfrecord", 20)
    _write(root / "b.tfrecord", 20)
    server.stalled.add("/b.tfrecord")
    server.held["/b.tfrecord"] = answer = threading.Event()
    urls = [f"{base}/a.tfrecord", f"{base}/b.tfrecord"]
    it = iter(sf.data.TFRecordDataset(urls, num_parallel_reads=1))
    assert [next(it) for _ in records] == records
    assert server.opens_held.acquire(timeout=5)  # b's open is waiting for its answer
    threading.Timer(2.0, answer.set).start()  # answered well after the stop
    start = time.monotonic()
    it.close()
    assert time.monotonic() - start < 1.5
    del it
    assert _wait_until(answer.is_set, 5)
    assert _wait_until(lambda: server.open == 0, 1.5), server.open
