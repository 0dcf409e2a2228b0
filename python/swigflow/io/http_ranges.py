"""Range GETs of HTTP(S) objects on the calling thread, into one buffer per range.

gfile's remote reads of plain HTTP(S) objects (fsspec's http file system, with no client
options beyond its timeout and no request options beyond headers) run here rather than on
aiohttp's event loop: each block is one request on a kept-alive connection whose body the
socket writes straight into the block's buffer (``readinto``, the GIL released while the
kernel copies). On aiohttp the same body went through the event loop chunk by chunk, each
chunk a bytes object and a Python copy; on a 2-core Zen 5, bench/remote_bench.py's first
epoch went from 520 to 911 MB/s (1.34 to 0.87 CPU s/GB) this way.

Connections are pooled per (scheme, host, port) and taken by one request at a time. A request
on a pooled connection that the server had closed meanwhile is sent again once on a new one
(nothing of its answer had arrived). Any other failure closes the connection.
"""

from __future__ import annotations

import collections
import contextlib
import http.client
import io
import os
import socket
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

import numpy as np

# Idle connections kept per (scheme, host, port); more are closed when given back.
MAX_IDLE = 64


class StatusError(OSError):
    """An answer with an HTTP error status (its ``status``, as aiohttp's errors carry one)."""

    def __init__(self, url: Any, status: Any, reason: Any) -> None:
        super().__init__(f"{url}: HTTP {status} {reason}")
        self.status: Any = status


class NotAnAnswer(Exception):
    """An answer that is not the range asked for (``what`` the server sent instead)."""

    def __init__(self, what: Any) -> None:
        super().__init__(what)
        self.what: Any = what


class Aborted(Exception):
    """The request's connection was shut down by abort() (its reader stopped)."""


class Changed(Exception):
    """An answer from another version of the object than the one pinned (``what`` differs)."""

    def __init__(self, what: Any) -> None:
        super().__init__(what)
        self.what: Any = what


def _opaque(etag):
    """An ETag's opaque tag, for the weak comparison (RFC 9110 8.8.3.2): W/"x" matches "x"."""
    return etag[2:] if etag.startswith("W/") else etag


def object_size(status: Any, header: Any) -> int | None:
    """The whole object's size an answer (`status`, `header(name)` -> value or None) gives: a
    206's Content-Range total, a 200's Content-Length (a 200 is the whole object); None where
    it gives none."""
    if status == 206:
        total = (header("Content-Range") or "").rpartition("/")[2].strip()
    else:
        total = (header("Content-Length") or "").strip()
    return int(total) if total.isdigit() else None


class Pin:
    """The version of an object a reader opened, from fsspec's info (its HEAD answer, or what
    a pipeline's first block's answer says: remote._FirstBlock), which every range answer must
    show. A strong ETag is sent as If-Match, so a conforming server
    answers 412 for another version; a weak one cannot be (If-Match compares strongly, so a
    conforming server would refuse every range), nor can a server be trusted to honour it: so
    each answer's ETag, Last-Modified and total size (Content-Range) are compared too."""

    def __init__(self, info: Any) -> None:
        self.size: Any = info.get("size")
        self.etag: Any = info.get("ETag") or None
        self.last_modified: Any = info.get("Last-Modified") or None

    def headers(self) -> dict[str, str]:
        """The conditional request headers that ask for the pinned version."""
        if self.etag is not None:
            return {} if self.etag.startswith("W/") else {"If-Match": self.etag}
        if self.last_modified is not None:
            return {"If-Unmodified-Since": self.last_modified}
        return {}

    def check(self, status: Any, header: Any) -> None:
        """Raises Changed if an answer (`status`, `header(name)` -> value or None) shows another
        version than the pinned one. A validator the answer lacks is not compared."""
        etag = header("ETag")
        if self.etag is not None and etag and _opaque(etag) != _opaque(self.etag):
            raise Changed(f"its ETag is now {etag}, it was {self.etag} when opened")
        modified = header("Last-Modified")
        if self.last_modified is not None and modified and modified != self.last_modified:
            raise Changed(
                f"it was last modified {modified}, it was {self.last_modified} when opened"
            )
        total = object_size(status, header)
        if self.size is not None and total is not None and total != self.size:
            raise Changed(f"it has {total} bytes now, it had {self.size} when opened")


class Unpinned(Pin):
    """No version asked for: the answer's validators are kept (``answer``: its status and
    headers) to be compared, once the version to read is known, with Pin.check."""

    _KEPT = ("ETag", "Last-Modified", "Content-Range", "Content-Length")

    def __init__(self) -> None:
        super().__init__({})
        self.answer: Any = None
        self.answered = threading.Event()  # set once `answer` is

    def check(self, status: Any, header: Any) -> None:
        self.answer = (status, {name: header(name) for name in self._KEPT})
        self.answered.set()


def eligible(fs: Any) -> float | None:
    """The socket timeout to read `fs`'s objects here with, or None when they must go through
    fsspec: a client or request option this module does not reproduce (authentication,
    proxies, a custom client, an SSL context) was configured."""
    from fsspec.implementations import http as fsspec_http  # present: `fs` is one of fsspec's

    if (
        not isinstance(fs, fsspec_http.HTTPFileSystem)
        or fs.get_client is not fsspec_http.get_client
    ):
        return None
    if set(fs.client_kwargs) - {"timeout"} or set(fs.kwargs) - {"headers"}:
        return None
    timeout = fs.client_kwargs.get("timeout")
    if timeout is None:
        return 300.0  # aiohttp's default total timeout
    if timeout.total is not None or timeout.sock_read is None:
        return None  # a deadline for the whole request: only aiohttp keeps that
    return max(timeout.sock_read, timeout.sock_connect or 0)


class _Pool:
    def __init__(self):
        self._lock = threading.Lock()
        self._idle = collections.defaultdict(collections.deque)
        self._context = None

    def take(self, key, timeout, fresh=False):
        """(connection, reused) for key = (scheme, host, port): an idle one unless `fresh`."""
        with self._lock:
            idle = self._idle.get(key)
            if idle and not fresh:
                conn = idle.pop()
                conn.timeout = timeout
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                return conn, True
            if key[0] == "https" and self._context is None:
                self._context = ssl.create_default_context()
        scheme, host, port = key
        if scheme == "https":
            conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._context)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        return conn, False

    def give(self, key, conn):
        with self._lock:
            idle = self._idle[key]
            if len(idle) < MAX_IDLE:
                idle.append(conn)
                return
        conn.close()


_POOL = _Pool()


def _forget_connections():
    # A forked child must not share the parent's kept-alive sockets (both would read one
    # stream): it starts with none, leaving the parent's open for the parent.
    global _POOL
    _POOL = _Pool()


os.register_at_fork(after_in_child=_forget_connections)


class Requests:
    """Requests that abort() fails together: it shuts down the connections of those in flight,
    so that a thread blocked on a stalled body returns at once, and every later one fails
    (Aborted). A parent's abort() aborts its children's requests too."""

    def __init__(self, parent: Any = None) -> None:
        self._lock = threading.Lock()
        self._open = set()
        self._parent = parent
        self._aborted = False

    @property
    def aborted(self) -> bool:
        return self._aborted or (self._parent is not None and self._parent.aborted)

    def _add(self, sock):
        with self._lock:
            if self._aborted:
                raise Aborted()
            self._open.add(sock)

    def _discard(self, sock):
        with self._lock:
            self._open.discard(sock)

    @contextlib.contextmanager
    def running(self, sock: Any) -> Iterator[Any]:
        """Counts a request on socket `sock` in flight (in the parent too) while the block
        runs; what it raises after an abort is Aborted."""
        owners = [self] if self._parent is None else [self, self._parent]
        added = []
        try:
            for owner in owners:
                owner._add(sock)
                added.append(owner)
            yield
        except Exception:
            if self.aborted:
                raise Aborted() from None
            raise
        finally:
            for owner in added:
                owner._discard(sock)

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            socks = list(self._open)
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # a blocked recv returns at once


# Redirects followed (as aiohttp does: a CDN in front of a store answers with them).
MAX_REDIRECTS = 10
_REDIRECTS = frozenset([301, 302, 303, 307, 308])


def _ask(url, headers, timeout, requests):
    """(key, connection, its socket, response) for a GET of `url`, redirects followed. A
    request on a pooled connection that the server had closed meanwhile is sent again on a new
    one (nothing of its answer had arrived). The socket is returned as the connection forgets
    it when the response ends the connection (the response reads it on)."""
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        key = (parts.scheme, parts.hostname, parts.port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn, reused = _POOL.take(key, timeout)
        while True:
            try:
                if requests.aborted:
                    raise Aborted()
                if conn.sock is None:
                    conn.connect()
                sock = conn.sock
                with requests.running(sock):
                    conn.request("GET", target, headers=headers)
                    r = conn.getresponse()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                if not reused:
                    raise
            except BaseException:
                conn.close()
                raise
            conn, reused = _POOL.take(key, timeout, fresh=True)
        location = r.getheader("Location")
        if r.status not in _REDIRECTS or not location:
            return key, conn, sock, r
        conn.close()
        moved = urllib.parse.urljoin(url, location)
        if urllib.parse.urlsplit(moved).netloc != parts.netloc:
            # Credentials stay with the host they were given for (as aiohttp does).
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        url = moved
    raise StatusError(url, r.status, f"more than {MAX_REDIRECTS} redirects")


# What a body read waits to have arrived before its thread wakes (SO_RCVLOWAT, on plain TCP
# sockets): one wake-up, GIL hand-off and Python call per LOW_WATER bytes rather than per TCP
# segment (at 80 MB/s per response, ~30 per 8 MiB block instead of ~200). A stall is then fewer
# than LOW_WATER bytes, rather than none, within the socket timeout.
LOW_WATER = 256 << 10


class _LowWater:
    """Sizes a body's reads, with the socket's low-water mark set to match: the mark is
    LOW_WATER while what is asked leaves at least that much of the body still to arrive beyond
    the response's own buffer, so that no wait is for bytes that never come; the body's end is
    read with no mark (1), which leaves none for the connection's next answer."""

    # What must be left to come: the mark, and the buffer the file object over the socket may
    # already hold of the body.
    _BEYOND = LOW_WATER + io.DEFAULT_BUFFER_SIZE

    def __init__(self, sock):
        self._sock = sock
        self._plain = type(sock) is socket.socket  # not TLS: its socket's bytes are not the body's
        self.mark = 1

    def ask(self, rest, room):
        """How many bytes to ask the response for next, with the body's `rest` bytes to come
        (None: unknown) and `room` bytes free in the buffer."""
        beyond = self._BEYOND
        self._set(LOW_WATER if self._plain and rest is not None and rest > beyond + 1 else 1)
        return room if self.mark == 1 else min(room, rest - beyond)

    def _set(self, mark):
        if mark != self.mark:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, mark)
            self.mark = mark


class Arrival:
    """A body's bytes as they arrive, for a reader that takes them before the whole body is in:
    get_range begins an attempt with its buffer (the version checked) and advances the count of
    its bytes in, reading the body `every` bytes at a time (a read of the body returns only
    once all it asks for is in). A retry begins again with a buffer of its own; bytes taken
    from an earlier attempt stay valid, being the same version's."""

    def __init__(self, every: int) -> None:
        self.every = every
        self._changed = threading.Condition(threading.Lock())
        self._view = None
        self._n = 0
        self._least = 0  # what the waiting reader waits for (0: nobody waits)

    def begin(self, view: memoryview) -> None:
        with self._changed:
            self._view, self._n = view, 0

    def advance(self, n: int) -> None:
        """The attempt's first n bytes are in."""
        with self._changed:
            self._n = n
            if self._least and n >= self._least:
                self._changed.notify_all()

    def wake(self) -> None:
        """Wakes the waiting reader: the request ended (done, failed or cancelled)."""
        with self._changed:
            self._changed.notify_all()

    def wait(self, least: int, timeout: float) -> memoryview | None:
        """The bytes in so far if at least `least` are, else None (after `timeout` seconds, or
        sooner when woken)."""
        with self._changed:
            if self._n < least:
                self._least = least
                self._changed.wait(timeout)
                self._least = 0
            return self._view[: self._n] if self._view is not None and self._n >= least else None


def bytes_to_skip(status: Any, content_range: Any, length: Any, start: int, size: int) -> int:
    """How many bytes of the body answering a GET of bytes [start, ...) of an object of `size`
    bytes come before the range: 0 for a 206 that starts at `start`, `start` for a 200 with the
    whole object (the server ignored Range). Any other answer raises NotAnAnswer."""
    if status == 206:
        first = (content_range or "").removeprefix("bytes ").split("-")[0]
        if first != str(start):
            raise NotAnAnswer(f"sent Content-Range {first}-...")
        return 0
    if status != 200 or length not in (None, size):
        raise NotAnAnswer(f"answered {status} with {length} bytes")
    return start


def get_range(
    url: Any,
    start: int,
    end: Any,
    pin: Any,
    headers: Any,
    timeout: Any,
    requests: Any,
    allocate: Any = None,
    arrival: Arrival | None = None,
) -> memoryview:
    """Bytes [start, end) of the version `pin` (a Pin) of the object at `url`, fewer if the
    body ends early, as a memoryview of a buffer of end - start bytes: `allocate(n)`'s (a
    writable uint8 array of n bytes), np.empty's when None. `arrival` (an Arrival), if given,
    is told of the bytes as they come.

    A 206 must start at `start` (else NotAnAnswer); a 200 (the server ignored Range) must be
    the whole object, whose bytes before `start` are skipped and whose rest is left unread.
    Raises Changed (an answer of another version, or 412), FileNotFoundError (404),
    StatusError (another error status), Aborted, or what the socket raises (TimeoutError past
    `timeout` seconds of silence, ConnectionResetError, ...).
    """
    headers = {**headers, **pin.headers(), "Range": f"bytes={start}-{end - 1}"}
    key, conn, sock, r = _ask(url, headers, timeout, requests)
    reusable = False
    try:
        with requests.running(sock):
            if r.status == 404:
                raise FileNotFoundError(url)
            if r.status == 412:
                raise Changed("HTTP 412: the server says it is no longer the version opened")
            if r.status >= 400:
                raise StatusError(url, r.status, r.reason)
            pin.check(r.status, r.getheader)
            skip = bytes_to_skip(r.status, r.getheader("Content-Range"), r.length, start, pin.size)
            buffer = np.empty(end - start, np.uint8) if allocate is None else allocate(end - start)
            view = memoryview(buffer).cast("B")
            while skip:
                got = r.readinto(view[: min(skip, len(view))])
                if not got:
                    return view[:0]
                skip -= got
            n = 0
            if arrival is not None:
                arrival.begin(view)
            low_water = _LowWater(sock)
            while n < len(view):
                ask = low_water.ask(r.length, len(view) - n)
                if arrival is not None:
                    ask = min(ask, arrival.every)
                got = r.readinto(view[n : n + ask])
                if not got:
                    break
                n += got
                if arrival is not None:
                    arrival.advance(n)
            if n < len(view) and requests.aborted:
                raise Aborted()  # the shut-down socket read as an end
            # A body read to its end was ended with no mark, as the connection's next (small)
            # answer must be read.
            reusable = r.status == 206 and r.length == 0 and not r.will_close
            reusable = reusable and low_water.mark == 1
            return view[:n]
    finally:
        if reusable:
            _POOL.give(key, conn)
        else:
            conn.close()
