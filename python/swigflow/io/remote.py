"""The remote layer under gfile: what the native readers and writers call for ``scheme://``
paths (swig/py_file_system.h). Reads are range requests of READ_BLOCK_SIZE bytes, each
pinned to the version opened (http_ranges.Pin, or the store's generation or version id),
retried with backoff, read ahead within a process-wide budget (read_ahead), and cancelled with
their reader; a shard cache's copy is opened instead where one is registered (shard_cache).
The settings (READ_BLOCK_SIZE, READ_ATTEMPTS, STALL_TIMEOUT_S, ...) are gfile's, read when
used. swigflow.io installs the layer (install()) when it is imported.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import io
import itertools
import random
import tempfile
import threading
import time
import weakref
from typing import Any

from swigflow import errors, settings
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile, http_ranges, read_ahead, shard_cache


def _retrying(url, expected, attempt_once, reopen=None, attempts=None):
    """attempt_once() -> bytes read, retried as READ_ATTEMPTS says (or `attempts` times in all)
    while it fails transiently or reads fewer than `expected` bytes; `reopen()` runs before each
    retry."""
    attempts = gfile.READ_ATTEMPTS if attempts is None else attempts
    for attempt in range(attempts):
        if attempt:
            wait = min(gfile.READ_BACKOFF_CAP_S, gfile.READ_BACKOFF_S * 2 ** (attempt - 1))
            time.sleep(wait * random.uniform(0.5, 1.0))
        try:
            if attempt and reopen is not None:
                reopen()
            got = attempt_once()
        except Exception as e:
            error = e if isinstance(e, errors.OpError) else gfile.translated(url, e)
            if not isinstance(error, errors.UnavailableError):
                raise error from None
            continue
        if got >= expected:
            return got
        error = errors.UnavailableError(
            f"{url}: the data ended after {got} of the {expected} bytes expected"
        )
    tries = f"{attempts} attempts" if attempts > 1 else "1 attempt"
    raise errors.UnavailableError(f"{error.message}; gave up after {tries}")


def _fetched(url, fetch, start, end):
    """fetch(start, end)'s bytes [start, end), retried as _retrying says."""
    data = []

    def attempt():
        data[:] = [fetch(start, end)]
        return len(data[0])

    _retrying(url, end - start, attempt)
    return memoryview(data[0])[: end - start]


_FETCH_POOL = read_ahead.DaemonPool(gfile.READ_AHEAD_THREADS, "sf-fetch")
# The buffers HTTP(S) bodies are read into, used again within the read-ahead budget.
_BUFFERS = read_ahead.Buffers(gfile.read_ahead_bytes, lambda: gfile.READ_BLOCK_SIZE)


def _fetch_span(url, ranges, start, end, requests, arrival=None):
    """Bytes [start, end) of `ranges`' object with the retries (a read-ahead block fetched on
    the pool), told to `arrival` as they come. It holds no reader: a reader dropped meanwhile
    is freed, and aborts it."""
    fetch = functools.partial(ranges.fetch, requests=requests, arrival=arrival)
    return _fetched(url, fetch, start, end)


_reader_ids = itertools.count()


class _FirstBlock:
    """Block 0 of a plain HTTP(S) object (http_ranges), asked for as the object is opened: its
    answer says what the object is (described()), so the open asks no HEAD, and the reader's
    first bytes come with the open's round trip. Not pinned (the version is not known yet):
    the answer is compared with the version the open pins before it is used
    (_Reader._adopt_first)."""

    def __init__(self, fs: Any, path: Any, timeout: Any) -> None:
        self.requests = http_ranges.Requests()
        self.unpinned = http_ranges.Unpinned()
        self.asked = time.monotonic()
        self.future = _FETCH_POOL.submit(
            http_ranges.get_range,
            str(fs.encode_url(path)),
            0,
            gfile.READ_BLOCK_SIZE,
            self.unpinned,
            fs.kwargs.get("headers") or {},
            timeout,
            self.requests,
            _BUFFERS.take,
        )

    def described(self, url: str, path: str, stopping: Any) -> dict[str, Any] | None:
        """What the object is, as fsspec's info says it (name, size, type, and the ETag and
        Last-Modified the version is pinned by), from the answer's headers once they are in:
        a 206 with the object's size in Content-Range. None where the answer does not say (an
        error, a 200 from a server ignoring Range): the open then asks the store. Raises
        CancelledError once `stopping()` (the reader's pipeline stopped while it waits)."""
        while not self.unpinned.answered.wait(0.05) and not self.future.done():
            if stopping():
                raise errors.CancelledError(f"{url}: not opened, its pipeline stopped")
        if self.unpinned.answer is None:
            return None
        status, headers = self.unpinned.answer
        size = http_ranges.object_size(status, headers.get) if status == 206 else None
        if size is None:
            return None
        info = {"name": path, "size": size, "type": "file"}
        info.update((name, headers[name]) for name in ("ETag", "Last-Modified") if headers[name])
        return info

    def abandon(self) -> None:
        self.future.cancel()
        self.requests.abort()


class _Reader:
    """A file read at offsets: a caller's `file`, seeked and read under a lock as native
    threads share it, or a remote object read by `ranges` (_Ranges: range requests, each
    pinned to the version opened).

    A read never ends early: fewer bytes than the file's size promises is a fault, not the end.
    A remote read's transient fault is retried (READ_ATTEMPTS, READ_BACKOFF_S); a file
    object's raises at once. A remote file read in order is read ahead: the blocks
    after the one read are requested at once (as many as read_ahead.Pace calls for, within
    READ_AHEAD_BLOCKS and the file's share of READ_AHEAD_BYTES), each retried on its own, and
    blocks no longer wanted are cancelled (on a store with an event loop, the request is
    aborted)."""

    def __init__(self, size, url, file=None, ranges=None, first=None):
        self._file = file
        self.size: Any = size
        self._url = url
        self._ranges = ranges
        self._fetch = None if ranges is None else ranges.fetch
        self._lock = threading.Lock()
        self._expected = None  # where the next read starts if the reader goes on in order
        # Read-ahead: block number -> (Future of its bytes, direct, its http_ranges.Requests or
        # None); each block's bytes are counted in _READ_AHEAD_MEMORY under self._id from its
        # request until it is dropped (and its request aborted).
        self._blocks = {}
        # Block number -> http_ranges.Arrival of a block read on the pool by http_ranges: its
        # bytes as they come (block_at lends them before the whole block is in).
        self._arrivals = {}
        self._id = next(_reader_ids)
        self._pace = read_ahead.Pace()
        self._budget = gfile.read_ahead_bytes() if ranges is not None else 0
        self._wanted = None  # the block the reader is in
        self._refused = False  # a block ahead was not requested: the memory limit was reached
        self._cancelled = False  # cancel(): its pipeline stopped; no read waits any more
        if first is not None:
            self._adopt_first(first)

    def _adopt_first(self, first):
        """Makes `first` (a _FirstBlock) block 0's request: its bytes once its answer shows
        the version opened and the whole block, else block 0 asked for again as any other
        block is (pinned, with the retries)."""
        start, end = self._span(0)
        read_ahead.MEMORY.take(self._id, end - start, self._budget, needed=True)
        block, pin, pace = concurrent.futures.Future(), self._ranges.pin, self._pace
        url, ranges, requests, unpinned, asked = (
            self._url,
            self._ranges,
            first.requests,
            first.unpinned,
            first.asked,
        )

        # Holds neither `first` nor the reader: a Future keeps its callbacks, and a cycle
        # through them would keep the block's buffer from the pool until a collection.
        def settle(f):
            if not block.set_running_or_notify_cancel():
                return  # dropped: the reader started elsewhere, or stopped
            try:
                data = f.result()
                status, headers = unpinned.answer
                pin.check(status, headers.get)
                if len(data) < end - start:
                    raise EOFError(f"{len(data)} bytes")
            except BaseException:
                again = _FETCH_POOL.submit(_fetch_span, url, ranges, start, end, requests)
                again.add_done_callback(functools.partial(_pass_on, block))
                return
            pace.arrived(time.monotonic() - asked)
            block.set_result(data[: end - start])

        first.future.add_done_callback(settle)
        self._blocks[0] = (block, False, requests)

    def _read_once(self, offset, buffer):
        self._file.seek(offset)
        done = 0
        n = len(buffer)
        while done < n:  # readinto may return less than asked before the end
            got = self._file.readinto(buffer[done:])
            if not got:
                break
            done += got
        return done

    def read_at(self, offset, buffer):
        n = len(buffer)
        fetched_ahead = self._fetch is not None and 0 <= offset < self.size
        if fetched_ahead and self._in_order(offset, offset + n):
            with self._dropping_on_error():
                return self._read_ahead(offset, buffer)
        expected = max(0, min(n, self.size - offset))
        if self._fetch is None:  # a caller's file object

            def attempt():
                with self._lock:
                    return self._read_once(offset, buffer)

            return _retrying(self._url, expected, attempt, attempts=1)
        if expected == 0:
            return 0

        def fetched():  # one exact range, pinned to the version opened as blocks are
            self._check_cancelled()
            data = self._fetch(offset, offset + expected)
            m = min(len(data), expected)
            buffer[:m] = memoryview(data)[:m]
            return m

        return _retrying(self._url, expected, fetched)

    def block_at(self, offset):
        """(start, buffer): the read-ahead block holding byte `offset`, for a native reader going
        through the file in order, which copies its reads from there (swig/py_file_system.cc),
        calling here once per block, or per piece of a block still arriving (its bytes from
        `start` in so far: gfile.READ_PIECE_SIZE past `offset`, or to the block's end); None where
        read_at is to read what is asked (a caller's file object, the end of the file, a jump
        elsewhere)."""
        if self._fetch is None or not 0 <= offset < self.size:
            return None
        k = offset // gfile.READ_BLOCK_SIZE
        start, end = self._span(k)
        if not self._in_order(offset, end):  # the reader reads on from the block's end
            return None
        with self._dropping_on_error():
            data = self._block(k, least=min(end, offset + gfile.READ_PIECE_SIZE) - start)
        if len(data) < end - start:  # a piece: the reader reads on from its end
            with self._lock:
                self._expected = start + len(data)
        return start, data

    def _in_order(self, offset, following):
        """Whether a read at `offset` is from the start or follows the last one: a reader going
        through the file in order (a jump elsewhere is a random reader's, read as it asks, and
        drops the blocks read ahead). The next read in order is then at `following`."""
        with self._lock:
            in_order = offset == 0 or offset == self._expected
            self._expected = following
            if not in_order:
                self._drop_blocks(None)
        return in_order

    @contextlib.contextmanager
    def _dropping_on_error(self):
        # Blocks ahead of a failed read are not wanted: an error (kept with its traceback,
        # which holds this reader) must not keep their memory.
        try:
            yield
        except BaseException:
            with self._lock:
                self._drop_blocks(None)
            raise

    def cancel(self):
        """Abandons the reads: one waiting on a block fails at once with CancelledError, and
        so does every later one. Called from another thread, without the lock (a read may hold
        it while it waits on the store)."""
        self._cancelled = True
        if self._ranges is not None:
            self._ranges.abort()
        for future, _, requests in list(self._blocks.values()):
            future.cancel()
            if requests is not None:
                requests.abort()

    def _check_cancelled(self):
        if self._cancelled:
            raise errors.CancelledError(f"{self._url}: the read was abandoned (its reader stopped)")

    def _drop_blocks(self, below):
        """Forgets the read-ahead blocks numbered below `below` (None: all); lock held."""
        for k in [k for k in self._blocks if below is None or k < below]:
            future, _, requests = self._blocks.pop(k)
            self._arrivals.pop(k, None)
            future.cancel()
            if requests is not None:  # running on the pool: cancel() alone would not stop it
                requests.abort()
            start, end = self._span(k)
            read_ahead.MEMORY.give(self._id, end - start)

    def _span(self, k):
        start = k * gfile.READ_BLOCK_SIZE
        return start, min(self.size, start + gfile.READ_BLOCK_SIZE)

    def _fetch_block(self, k):
        return _fetched(self._url, self._fetch, *self._span(k))

    def _request_block(self, k, needed):
        """Requests block k, if it is `needed` or the memory budget has room for it (False if
        not), as a request on the store's event loop when it has one (direct: cancel() aborts
        it; tried once), else as _fetch_block, with its retries, on the shared pool. Lock held."""
        start, end = self._span(k)
        limit = read_ahead.MEMORY.limit(
            self._budget, gfile.READ_BLOCK_SIZE, self._id, self.size - start
        )
        if not read_ahead.MEMORY.take(self._id, end - start, limit, needed):
            self._refused = True
            return False
        future, direct, requests = self._ranges.submit(start, end), True, None
        if future is None:
            requests = self._ranges.new_requests()
            # Told of every quarter piece: the reader waits for about a piece, not two.
            arrival = None if requests is None else http_ranges.Arrival(gfile.READ_PIECE_SIZE // 4)
            future = _FETCH_POOL.submit(
                _fetch_span, self._url, self._ranges, start, end, requests, arrival
            )
            direct = False
            if arrival is not None:
                self._arrivals[k] = arrival
                future.add_done_callback(lambda _: arrival.wake())
        requested, pace = time.monotonic(), self._pace

        def arrived(f):  # runs on the thread that completes (or cancels) the request
            if not f.cancelled() and f.exception() is None:
                pace.arrived(time.monotonic() - requested)

        future.add_done_callback(arrived)
        self._blocks[k] = (future, direct, requests)
        return True

    def _block_bytes(self, k, future, direct):
        """Block k's bytes from its request (CancelledError: the block was dropped). A direct
        request that failed or came back short is fetched again here, with the retries."""
        if not direct:
            while True:  # a fetch on the pool runs on: the reader must not wait past cancel()
                try:
                    return future.result(timeout=0.1)
                except concurrent.futures.TimeoutError:
                    self._check_cancelled()
        start, end = self._span(k)
        try:
            data = self._ranges.checked(future.result(), start, end)
        except concurrent.futures.CancelledError:
            raise
        except Exception:
            self._check_cancelled()
            return self._fetch_block(k)
        if len(data) == end - start:
            return data
        self._check_cancelled()
        return self._fetch_block(k)

    def _block(self, k, least=None):
        """Block k's bytes, with the blocks after it requested; with `least`, those in so far
        once at least `least` are, while the block is still arriving."""
        last = (self.size - 1) // gfile.READ_BLOCK_SIZE
        while True:
            self._check_cancelled()
            with self._lock:
                if k != self._wanted:
                    self._wanted = k
                    self._pace.wanted()
                    if k > 0 and self._late(k):
                        read_ahead.MEMORY.late(self._budget, gfile.READ_BLOCK_SIZE)
                self._drop_blocks(k)
                ahead = max(1, self._pace.window(gfile.READ_AHEAD_BLOCKS))
                for j in range(k, min(last, k + ahead - 1) + 1):
                    if j not in self._blocks and not self._request_block(j, needed=j == k):
                        break  # the budget is full: the reader will ask again for the next
                future, direct, _ = self._blocks[k]
                arrival = self._arrivals.get(k) if least is not None else None
            waiting = None if future.done() else time.monotonic()
            try:
                if arrival is not None:
                    piece = self._arrived(future, arrival, least)
                    if piece is not None:
                        return piece
                return self._block_bytes(k, future, direct)
            except (concurrent.futures.CancelledError, errors.CancelledError):
                self._check_cancelled()
                continue  # another thread sharing the file moved on and dropped it: ask again
            finally:
                if waiting is not None:
                    self._pace.waited(time.monotonic() - waiting)

    def _arrived(self, future, arrival, least):
        """The bytes of a block in so far, once at least `least` are; None once its request has
        ended (its bytes, or its error, are the future's)."""
        while not future.done():
            piece = arrival.wait(least, 0.1)
            if piece is not None:
                return piece
            self._check_cancelled()
        return None

    def _late(self, k):
        """Whether block k, which the reader moves on to, is not there yet while the memory
        limit kept blocks ahead from being requested since the last block. Lock held."""
        refused, self._refused = self._refused, False
        return refused and (k not in self._blocks or not self._blocks[k][0].done())

    def _read_ahead(self, offset, buffer):
        done = 0
        n = min(len(buffer), self.size - offset)
        while done < n:
            position = offset + done
            k = position // gfile.READ_BLOCK_SIZE
            data = memoryview(self._block(k))
            start = position - k * gfile.READ_BLOCK_SIZE
            m = min(n - done, len(data) - start)
            buffer[done : done + m] = data[start : start + m]
            done += m
        return done

    def __del__(self):
        # Nobody reads on: whatever is still being fetched for this reader is abandoned.
        with contextlib.suppress(Exception):
            self.cancel()
            self._drop_blocks(None)


# Object stores whose fsspec files upload in parts and complete the upload only at commit():
# written with autocommit=False, the object appears when the writer closes. Other file systems
# get a temporary name renamed into place (on an object store a rename is a copy).
class _FileObjectReader(_Reader):
    def __init__(self, file, url):
        with gfile.translated_errors(url):
            size = file.seek(0, io.SEEK_END)
        super().__init__(size, url, file=file)


class _FileObjectWriter:
    """Writes into a caller's open file: the caller owns (and closes) it."""

    def __init__(self, file, url):
        self._file = file
        self._url = url

    def write(self, buffer):
        with gfile.translated_errors(self._url):
            self._file.write(buffer)

    def close(self):
        with gfile.translated_errors(self._url):
            self._file.flush()

    def discard(self):
        pass  # nothing to take back from a file the caller gave


def _pass_on(to, f):
    """Settles Future `to` (running) as `f` ended."""
    if f.cancelled():
        to.set_exception(concurrent.futures.CancelledError())
    elif f.exception() is not None:
        to.set_exception(f.exception())
    else:
        to.set_result(f.result())


def _version_pin(fs, url, info):
    """The cat_file arguments that read the version of an object `info` describes, where the
    store names versions: a GCS generation, or an S3 version id on a version-aware s3fs
    (``version_aware=True``; a bucket without versioning has none). {} where it cannot."""
    s = gfile.scheme(url)
    if s in ("gs", "gcs") and info.get("generation"):
        return {"generation": info["generation"]}
    if s in ("s3", "s3a") and getattr(fs, "version_aware", False) and info.get("VersionId"):
        return {"version_id": info["VersionId"]}
    return {}


class _Ranges:
    """Range requests of one object, as `info` (fsspec's) describes it. Every range of an
    HTTP(S) object is asked for, and checked to be, the version described (http_ranges.Pin):
    one that changes meanwhile fails with FailedPreconditionError rather than mixing two
    versions. HTTP(S) bodies are read into one
    buffer of the range's size, never held twice or past what was asked: on the calling thread
    (http_ranges) unless the file system's options need aiohttp (`_http_range`)."""

    def __init__(self, url, fs, path, info):
        self._url, self._fs, self._path = url, fs, path
        self._size = info.get("size")
        self._http = gfile.scheme(url) in ("http", "https")
        self.pin: Any = http_ranges.Pin(info) if self._http else None
        self._version = _version_pin(fs, url, info)
        self._loop = getattr(fs, "loop", None) if getattr(fs, "async_impl", False) else None
        # Plain HTTP(S): ranges read on the calling thread with this socket timeout (None: no).
        self._timeout = http_ranges.eligible(fs) if self._http else None
        self._requests = http_ranges.Requests()

    def abort(self):
        """Fails the requests in flight on the calling thread's path at once, and every later
        one (CancelledError): the reader stopped."""
        self._requests.abort()

    def new_requests(self):
        """What one block's fetch on the pool is aborted by (None: not on this path)."""
        return http_ranges.Requests(self._requests) if self._timeout is not None else None

    def _direct_range(self, start, end, requests, arrival=None):
        """Bytes [start, end) (fewer if the body ends early), read by http_ranges; abort() or
        `requests`' abort() fails them."""
        headers = self._fs.kwargs.get("headers") or {}
        url = str(self._fs.encode_url(self._path))
        try:
            return http_ranges.get_range(
                url,
                start,
                end,
                self.pin,
                headers,
                self._timeout,
                requests or self._requests,
                _BUFFERS.take,
                arrival,
            )
        except http_ranges.Changed as e:
            raise gfile.changed_error(self._url, e.what) from None
        except http_ranges.NotAnAnswer as e:
            raise self._not_an_answer(start, end, e.what) from None
        except http_ranges.Aborted:
            raise errors.CancelledError(
                f"{self._url}: the read was abandoned (its reader stopped)"
            ) from None

    def checked(self, data, start, end):
        """The bytes [start, end) of an answer. A server that ignores Range answers with the
        whole object: the bytes asked for are at their offsets in it. Anything else longer is
        no answer to the request."""
        if len(data) <= end - start:
            return data
        if len(data) != self._size:
            raise self._not_an_answer(start, end, f"sent {len(data)} bytes")
        return memoryview(data)[start:end]

    def _not_an_answer(self, start, end, what):
        return errors.FailedPreconditionError(
            f"{self._url}: asked for bytes [{start}, {end}), the server {what} (the object has "
            f"{self._size} bytes)"
        )

    async def _http_range(self, start, end):
        """Bytes [start, end) (fewer if the body ends early) of the HTTP(S) object, read from
        the body as it arrives into one buffer. A 206 must start at `start`; a 200 (the server
        ignored Range) must be the whole object, whose bytes before `start` are skipped and
        whose rest is left unread."""
        fs = self._fs
        options = dict(fs.kwargs)
        headers = {**(options.pop("headers", None) or {}), **self.pin.headers()}
        headers["Range"] = f"bytes={start}-{end - 1}"
        session = await fs.set_session()
        async with session.get(fs.encode_url(self._path), headers=headers, **options) as r:
            if r.status == 404:
                raise FileNotFoundError(self._url)
            r.raise_for_status()  # 412 included: translated() tells it as a change
            try:
                self.pin.check(r.status, r.headers.get)
            except http_ranges.Changed as e:
                raise gfile.changed_error(self._url, e.what) from None
            try:
                skip = http_ranges.bytes_to_skip(
                    r.status, r.headers.get("Content-Range"), r.content_length, start, self._size
                )
            except http_ranges.NotAnAnswer as e:
                raise self._not_an_answer(start, end, e.what) from None
            buffer = _BUFFERS.take(end - start)
            view, n = memoryview(buffer), 0
            async for chunk in r.content.iter_any():
                if skip >= len(chunk):
                    skip -= len(chunk)
                    continue
                m = min(len(chunk) - skip, len(buffer) - n)
                view[n : n + m] = memoryview(chunk)[skip : skip + m]
                n, skip = n + m, 0
                if n == len(buffer):
                    break
            return view[:n]

    def fetch(self, start, end, requests=None, arrival=None):
        """Bytes [start, end) (fewer if the body ends early); on http_ranges' path, told to
        `arrival` (an http_ranges.Arrival) as they come."""
        if self._timeout is not None:
            return self._direct_range(start, end, requests, arrival)
        if self._http and self._loop is not None:
            import fsspec.asyn  # present: this store is one of fsspec's

            return fsspec.asyn.sync(self._loop, self._http_range, start, end)
        try:
            data = self._fs.cat_file(self._path, start=start, end=end, **self._version)
        except FileNotFoundError:
            if self._version:  # the pinned version is gone: replaced, or deleted
                raise self._gone() from None
            raise
        return self.checked(data, start, end)

    def _gone(self):
        ((key, value),) = self._version.items()
        return gfile.changed_error(self._url, f"its {key} {value}, pinned when opened, is gone")

    def submit(self, start, end):
        """A concurrent Future of the answer's bytes (unchecked), the request running on the
        store's event loop, so that cancel() aborts it; None when the store has no loop or its
        ranges are read on the calling thread (fetch on a pool; abort() aborts them)."""
        if self._loop is None or self._timeout is not None:
            return None
        if self._http:
            request = self._http_range(start, end)
        else:
            request = self._fs._cat_file(self._path, start=start, end=end, **self._version)
        return asyncio.run_coroutine_threadsafe(request, self._loop)


# An object served with no length (a stream) is spooled to a temporary file (TMPDIR) once, in
# blocks, so memory stays bounded whatever the server sends; the disk it takes is bounded by
# SWIGFLOW_SPOOL_MAX_BYTES (a size: 4GiB by default).
def _spooled(url, fs, path):
    """A temporary file holding the object's bytes, at most SWIGFLOW_SPOOL_MAX_BYTES of them.

    Raises:
      ResourceExhaustedError: the object is larger.
    """
    most = settings.size(gfile.SPOOL_MAX_BYTES_ENV, gfile.DEFAULT_SPOOL_MAX_BYTES)
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - the reader owns it
    try:
        with fs.open(path, "rb") as f:
            held = 0
            while block := f.read(gfile.READ_BLOCK_SIZE):
                held += len(block)
                if held > most:
                    raise errors.ResourceExhaustedError(
                        f"{url}: the server gives no length, and more than {most} bytes "
                        f"arrived, the most spooled to disk ({gfile.SPOOL_MAX_BYTES_ENV})"
                    )
                spool.write(block)
    except BaseException:
        spool.close()
        raise
    return spool


def _prefetch_following(cache, url):
    """Starts downloads into `cache` of the objects read after `url` (shard_cache.following)."""
    for nxt in shard_cache.following(url):

        def describe(nxt=nxt):
            fs, path = gfile.filesystem(nxt)
            with gfile.translated_errors(nxt):
                info = shard_cache.described(nxt, lambda: fs.info(path))
            if info.get("size") is None:
                raise errors.UnimplementedError(f"{nxt}: no size to cache it by")
            version = shard_cache.version(info)
            if not cache.trusts(nxt, version):
                raise errors.FailedPreconditionError(f"{nxt}: no version to cache it by")
            ranges = _Ranges(nxt, fs, path, info)
            return (
                version,
                info["size"],
                functools.partial(_fetched, nxt, ranges.fetch),
                ranges.abort,
            )

        cache.prefetch(nxt, describe, gfile.READ_BLOCK_SIZE)


class _Opener:
    """The remote file system the native layer calls (swig/py_file_system.h)."""

    def __init__(self):
        self._lock = threading.Lock()
        # Read group -> WeakSet of its _Readers, and -> Event set when its reads are abandoned;
        # both kept from the group's first open or cancel until end_group(group).
        self._groups = {}
        self._stopping = {}
        self._readers = weakref.WeakSet()  # every remote reader open
        self._closed = False  # abandon_all() ran: the process is exiting

    def abandon_all(self):
        """At exit: abandons every remote read and open under way, and refuses new ones, so
        that no native thread is left waiting on a store inside Python when the interpreter
        finalizes."""
        with self._lock:
            self._closed = True
            readers = list(self._readers)
            stopping = list(self._stopping.values())
        for event in stopping:
            event.set()
        for reader in readers:
            reader.cancel()

    def cancel_reads(self, group):
        """Abandons the reads of every file opened in read group `group` (a pipeline that
        stops: its reader threads must not wait on a stalled store), the opens under way (one
        waiting for a shard cache's download, or for the store's answer) and later ones."""
        with self._lock:
            self._stopping.setdefault(group, threading.Event()).set()
            readers = list(self._groups.get(group, ()))
        for reader in readers:
            reader.cancel()

    def end_group(self, group):
        """Forgets read group `group`: its pipeline is gone, no open is under way in it."""
        with self._lock:
            self._groups.pop(group, None)
            self._stopping.pop(group, None)

    def _stopping_event(self, group):
        with self._lock:
            return self._stopping.setdefault(group, threading.Event())

    def open_read(self, url, group=0):
        """A reader of `url` (read_at, size), or the path of a local copy; a remote reader
        joins read group `group` (0: none)."""
        if gfile.scheme(url) == gfile.FILE_OBJECT_SCHEME:
            return _FileObjectReader(gfile.FILE_OBJECTS.get(url), url)
        if self._closed:
            raise errors.CancelledError(f"{url}: not opened, the process is exiting")
        if group and self._stopping_event(group).is_set():
            raise errors.CancelledError(f"{url}: not opened, its pipeline stopped")
        cache = shard_cache.for_url(url)
        if cache is not None and not cache.revalidate:
            local = cache.latest(url)
            if local is not None:
                return local  # read natively, the store not asked
        with read_ahead.MEMORY.opening():
            return self._open_remote(url, group, cache)

    def _open_remote(self, url, group, cache):
        fs, path = gfile.filesystem(url)
        first = None
        if cache is None and group and gfile.scheme(url) in ("http", "https"):
            timeout = http_ranges.eligible(fs)
            if timeout is not None:  # a pipeline's reader, which starts at 0
                first = _FirstBlock(fs, path, timeout)
        try:
            with gfile.translated_errors(url):
                info = shard_cache.described(
                    url, lambda: self._described(url, fs, path, first, group)
                )
                size = info.get("size")
                if size is None:
                    return _FileObjectReader(_spooled(url, fs, path), url)
                version = shard_cache.version(info)
                if cache is not None and not cache.trusts(url, version):
                    cache = None
            if cache is None:
                ranges = _Ranges(url, fs, path, info)
                reader = _Reader(size, url, ranges=ranges, first=first if size else None)
                if size:
                    first = None  # the reader's now; an empty object's is abandoned below
                return self._joined(reader, group)
        finally:
            if first is not None:
                first.abandon()
        # Read (and copied) by this reader unless its copy or a download is there: a download
        # of it that another file's open would start now is not started (ShardCache.reading).
        with cache.reading(url):
            _prefetch_following(cache, url)
            abandoned = self._stopping_event(group).is_set if group else None
            with gfile.translated_errors(url):
                local = cache.lookup(url, version, size, gfile.STALL_TIMEOUT_S, abandoned)
            if local is not None:
                return local  # read natively
            reader = _Reader(size, url, ranges=_Ranges(url, fs, path, info))
            return self._joined(cache.tee(url, version, size, reader), group)

    def _described(self, url, fs, path, first, group):
        """What the store says of `url` (fsspec's info): from the answer to `first` (a
        _FirstBlock, or None) where it says, else asked (a HEAD on HTTP)."""
        info = None
        if first is not None:
            info = first.described(url, path, self._stopping_event(group).is_set)
        return fs.info(path) if info is None else info

    def _joined(self, reader, group):
        """`reader`, which abandon_all() and cancel_reads(group) now cancel; cancelled at once
        if they ran while it was being opened."""
        with self._lock:
            self._readers.add(reader)
            cancelled = self._closed
            if group:
                self._groups.setdefault(group, weakref.WeakSet()).add(reader)
                cancelled = (
                    cancelled or self._stopping.setdefault(group, threading.Event()).is_set()
                )
        if cancelled:
            reader.cancel()
        return reader

    def open_write(self, url):
        if gfile.scheme(url) == gfile.FILE_OBJECT_SCHEME:
            return _FileObjectWriter(gfile.FILE_OBJECTS.get(url), url)
        return gfile.Writer(url)


_OPENER = _Opener()


def install() -> None:
    """Makes the native layer open ``scheme://`` paths through this module (once, when
    swigflow.io is imported), and abandons remote work at exit."""
    _pywrap.SetRemoteOpener(_OPENER)
    atexit.register(_before_exit)


def _before_exit():
    # Remote reads abandoned first (a stalled one would never leave), then no native thread
    # may enter Python any more, and those inside are waited for: one still there when the
    # interpreter finalizes would be ended mid-call, aborting the process.
    _OPENER.abandon_all()
    _pywrap.CloseNativeCalls(5000)
