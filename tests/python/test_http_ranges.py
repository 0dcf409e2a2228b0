"""HTTP(S) range reads on the calling thread (swigflow.io.http_ranges): which file systems take
that path, and what it must survive that aiohttp handled for it: idle connections the server
closed, redirects, TLS, and blocks dropped while their request is running. Servers on
127.0.0.1, started by each test."""

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import http_store
import pytest
from http_store import CountingHandler, RangeHandler, SlowBodyHandler

import swigflow as sf
from swigflow.io import gfile, http_ranges

fsspec = pytest.importorskip("fsspec", reason="the remote extra (swigflow[remote]) is missing")
aiohttp = pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")


def _write(path, count, size):
    records = [(f"{i}-".encode() * size)[:size] for i in range(count)]
    with sf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return records


@pytest.fixture
def counted(monkeypatch):
    """The number of get_range calls made (the calling thread's path taken)."""
    calls = []
    original = http_ranges.get_range

    def get_range(*args, **kwargs):
        calls.append(args[1:3])
        return original(*args, **kwargs)

    monkeypatch.setattr(http_ranges, "get_range", get_range)
    return calls


@pytest.fixture
def store(tmp_path):
    server, base = http_store.start(tmp_path)
    yield tmp_path, base
    server.shutdown()


def test_plain_http_is_read_on_the_calling_thread_and_configured_clients_through_fsspec(
    store, counted, monkeypatch
):
    root, base = store
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 256 << 10)
    records = _write(root / "a.tfrecord", 2000, 1000)  # 2 MB: several blocks
    url = f"{base}/a.tfrecord"
    fs, _ = gfile.filesystem(url)
    assert http_ranges.eligible(fs) == gfile.STALL_TIMEOUT_S
    assert list(sf.io.tf_record_iterator(url)) == records
    assert len(counted) >= 8
    # Options this path does not reproduce (authentication, a whole-request deadline, a
    # client of the user's) keep the reads on fsspec's aiohttp client, and they still arrive.
    for options in (
        {"client_kwargs": {"headers": {"Authorization": "Basic dXNlcjpzZWNyZXQ="}}},
        {"client_kwargs": {"timeout": aiohttp.ClientTimeout(total=60)}},
        {"get_client": lambda **kwargs: aiohttp.ClientSession(**kwargs)},
    ):
        other = fsspec.filesystem("http", **options)
        assert http_ranges.eligible(other) is None
    monkeypatch.setitem(fsspec.config.conf, "http", {"client_kwargs": {"trust_env": True}})
    counted.clear()
    fs, _ = gfile.filesystem(url)
    assert http_ranges.eligible(fs) is None
    assert list(sf.io.tf_record_iterator(url)) == records
    assert not counted


class _ClosesAfterEachHandler(RangeHandler):
    """HTTP/1.1 answers that do not say Connection: close, each connection closed after its
    first answer all the same: what a store's idle timeout does to a pooled connection."""

    protocol_version = "HTTP/1.1"

    def send_head(self):
        with self.server.lock:
            self.server.requests = getattr(self.server, "requests", 0) + 1
        self.close_connection = True
        return super().send_head()


def test_a_pooled_connection_the_server_closed_is_replaced_without_a_retry(
    tmp_path, counted, monkeypatch
):
    """Every block after the first goes out on a pooled connection that the server has closed:
    each is sent again on a new one at once, not counted as a failed attempt."""
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 64 << 10)
    monkeypatch.setattr(gfile, "READ_AHEAD_BLOCKS", 1)  # one block at a time
    monkeypatch.setattr(gfile, "READ_ATTEMPTS", 1)  # a retry would fail the read
    records = _write(tmp_path / "i.tfrecord", 400, 1000)
    server, base = http_store.start(tmp_path, _ClosesAfterEachHandler)
    try:
        assert list(sf.io.tf_record_iterator(f"{base}/i.tfrecord")) == records
        blocks = len(counted)
        assert blocks >= 6
        # The server saw each block's request once (a resend went out only where the first
        # try was answered by the closed connection, never a request the server had read).
        assert server.requests >= blocks
    finally:
        server.shutdown()


class _RedirectingHandler(RangeHandler):
    """/moved/NAME answers 302 to /NAME; /loop answers 302 to itself."""

    def send_head(self):
        if self.path.startswith("/moved/"):
            self.send_response(302)
            self.send_header("Location", self.path.removeprefix("/moved"))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return super().send_head()


def test_redirects_are_followed_and_a_loop_of_them_is_an_error(tmp_path, counted, monkeypatch):
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 128 << 10)
    records = _write(tmp_path / "r.tfrecord", 500, 1000)
    server, base = http_store.start(tmp_path, _RedirectingHandler)
    try:
        assert list(sf.io.tf_record_iterator(f"{base}/moved/r.tfrecord")) == records
        assert counted  # on the calling thread's path, each range redirected
        with pytest.raises(http_ranges.StatusError, match="more than 10 redirects"):
            http_ranges.get_range(
                f"{base}/loop",
                0,
                10,
                http_ranges.Pin({"size": 10}),
                {},
                5.0,
                http_ranges.Requests(),
            )
    finally:
        server.shutdown()


class _SlowAfterFirstHandler(http_store.SlowBodyHandler):
    """Slow bodies (640 KB/s) but for a range from byte 0, on kept-alive connections."""

    protocol_version = "HTTP/1.1"
    first_range_fast = True


def test_blocks_dropped_by_a_jump_abort_their_running_requests(tmp_path, monkeypatch):
    """A reader that jumps elsewhere drops the blocks it had requested ahead: their requests,
    running on the pool, are shut down at once rather than sent to the end (memory the budget
    no longer counts)."""
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 1 << 20)  # 1.6 s per block
    records = _write(tmp_path / "j.tfrecord", 60, 100_000)
    server, base = http_store.start(tmp_path, _SlowAfterFirstHandler)
    server.sending = 0
    try:
        url = f"{base}/j.tfrecord"
        index = tmp_path / "j.index"
        sf.io.create_index(url, str(index))
        gfile.read_ahead_memory(reset_peak=True)
        f = sf.io.TFRecordFile(url, index_path=str(index))
        assert f[0] == records[0]  # read in order from the start: blocks requested ahead
        time.sleep(0.2)
        assert server.sending >= 2  # on their way (1.6 s each)
        assert f[55] == records[55]  # a jump: every block ahead dropped
        # Held now: at most the block record 55 is in (its payload is read on in order).
        assert gfile.read_ahead_memory().held <= gfile.READ_BLOCK_SIZE
        deadline = time.monotonic() + 1.0
        while server.sending and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.sending == 0
    finally:
        server.shutdown()


HTTPS_READ = """
import http.server, ssl, sys, threading
sys.path.insert(0, sys.argv[2])
import http_store
import swigflow as sf

root, cert, key = sys.argv[1], sys.argv[3], sys.argv[4]
server = http_store._Server(
    ("127.0.0.1", 0), lambda *a, **k: http_store.RangeHandler(*a, directory=root, **k)
)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"https://localhost:{server.server_address[1]}/t.tfrecord"
from swigflow.io import gfile
gfile.READ_BLOCK_SIZE = 64 << 10
print(sum(len(r) for r in sf.io.tf_record_iterator(url)), flush=True)
"""


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_with_certificate_checks(tmp_path):
    """TLS on this path: a certificate the process trusts (SSL_CERT_FILE) is read through; an
    untrusted one fails, and is not retried as a transient fault."""
    records = _write(tmp_path / "t.tfrecord", 300, 1000)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    here = os.path.dirname(os.path.abspath(http_store.__file__))
    script = tmp_path / "https_read.py"
    script.write_text(textwrap.dedent(HTTPS_READ))
    command = [sys.executable, str(script), str(tmp_path), here, str(cert), str(key)]
    trusted = subprocess.run(
        command, env={**os.environ, "SSL_CERT_FILE": str(cert)}, capture_output=True, text=True
    )
    assert trusted.returncode == 0, trusted.stderr
    assert int(trusted.stdout) == sum(len(r) for r in records)
    untrusted = subprocess.run(
        command, env={**os.environ, "SSL_CERT_FILE": os.devnull}, capture_output=True, text=True
    )
    assert untrusted.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr or "certificate" in untrusted.stderr


def test_stop_shuts_down_a_stalled_request_and_every_later_one_fails(tmp_path):
    """Requests.abort() from another thread: a thread blocked on a body that never comes
    returns at once with Aborted, and so does every later request (a parent's abort reaches
    its children)."""

    class Stalls(RangeHandler):
        def copyfile(self, source, outputfile):
            outputfile.write(source.read(10))
            outputfile.flush()
            time.sleep(5)

    _write(tmp_path / "s.tfrecord", 10, 1000)
    server, base = http_store.start(tmp_path, Stalls)
    try:
        parent = http_ranges.Requests()
        child = http_ranges.Requests(parent)
        raised = []

        def read():
            try:
                http_ranges.get_range(
                    f"{base}/s.tfrecord", 0, 5000, http_ranges.Pin({"size": 10160}), {}, 30.0, child
                )
            except Exception as e:
                raised.append(e)

        thread = threading.Thread(target=read)
        thread.start()
        time.sleep(0.3)
        start = time.monotonic()
        parent.abort()
        thread.join(5)
        assert time.monotonic() - start < 1
        assert [type(e) for e in raised] == [http_ranges.Aborted]
        with pytest.raises(http_ranges.Aborted):
            http_ranges.get_range(
                f"{base}/s.tfrecord", 0, 10, http_ranges.Pin({"size": 10160}), {}, 30.0, child
            )
    finally:
        server.shutdown()


class _KeepAliveHandler(CountingHandler):
    """CountingHandler (20 ms per request) keeping connections open (HTTP/1.1)."""

    protocol_version = "HTTP/1.1"


def test_a_forked_child_opens_connections_of_its_own(tmp_path, monkeypatch):
    """Kept-alive connections stay with the process that opened them: a forked child (a
    DataLoader worker) reads on new ones while the parent reads on its own (sharing a socket,
    the two would take each other's answers)."""
    monkeypatch.setattr(gfile, "READ_BLOCK_SIZE", 32 << 10)
    records = _write(tmp_path / "f.tfrecord", 600, 1000)
    server, base = http_store.start(tmp_path, _KeepAliveHandler)
    url = f"{base}/f.tfrecord"
    try:
        assert list(sf.io.tf_record_iterator(url)) == records  # connections now pooled
        pid = os.fork()
        if pid == 0:  # the child: a clean exit status only if every record arrived
            ok = all(list(sf.io.tf_record_iterator(url)) == records for _ in range(3))
            os._exit(0 if ok else 1)
        try:
            for _ in range(3):  # at the same time as the child
                assert list(sf.io.tf_record_iterator(url)) == records
            assert _exit_code(pid, within_s=60) == 0
        finally:
            with contextlib.suppress(OSError):  # a child stuck on a shared socket
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    finally:
        server.shutdown()


def _exit_code(pid, within_s):
    """The child's exit code, or None if it is still running after `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    return None


class _KeptAliveSlowHandler(SlowBodyHandler):
    protocol_version = "HTTP/1.1"  # connections kept alive between answers


@pytest.mark.parametrize("extra", [-1, 0, 1, 2, 5000, 2 * http_ranges.LOW_WATER + 17])
def test_a_body_read_in_low_water_steps_never_waits_for_bytes_that_never_come(tmp_path, extra):
    """Bodies trickled at 640 KB/s, of sizes around where the low-water mark comes off (the
    mark plus the response's own buffer): each arrives whole well within a 3 s timeout, where
    a mark above what is left to come would stall it until the timeout; and so does the
    connection's next, small answer, which no mark left over may hold back."""
    size = http_ranges.LOW_WATER + io.DEFAULT_BUFFER_SIZE + extra
    data = os.urandom(size + 100)
    (tmp_path / "f").write_bytes(data)
    server, base = http_store.start(tmp_path, _KeptAliveSlowHandler)
    pin = http_ranges.Pin({"size": len(data)})
    requests = http_ranges.Requests()
    try:
        for start, end in ((0, size), (size, size + 100)):  # the second on the same connection
            began = time.monotonic()
            got = http_ranges.get_range(f"{base}/f", start, end, pin, {}, 3.0, requests)
            assert bytes(got) == data[start:end]
            # 64 KiB every 100 ms: the time the body takes to come, plus a margin.
            assert time.monotonic() - began < 0.1 * ((end - start) // 65536 + 1) + 1.0
    finally:
        server.shutdown()
