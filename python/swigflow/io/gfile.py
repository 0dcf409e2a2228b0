"""Files by path or URL, named like ``tf.io.gfile``.

Every path argument in swigflow (readers, writers, datasets, index files, the command line)
takes:

- a local path, or a ``file://`` URL: read and written natively;
- any other ``scheme://`` URL (``s3://``, ``gs://``, ``http(s)://``, ``memory://``, ...):
  opened through `fsspec <https://filesystem-spec.readthedocs.io>`_ (``pip install
  swigflow[remote]``, plus the backend: s3fs, gcsfs, aiohttp, ...). The native readers pull
  large chunks (:data:`READ_BLOCK_SIZE`) from it, and CRC checks, decompression and parsing
  stay native. Backend settings (endpoints, credentials) come from fsspec's own configuration:
  ``fsspec.config.conf`` or ``FSSPEC_<SCHEME>_<OPTION>`` environment variables;
- an open binary file object, wherever a path is read or written.

Writes to a URL are atomic where the backend allows: an object store's upload is committed only
when the writer closes without error, and other backends write a temporary name that is renamed
into place. A failed write never leaves a file that looks complete.

Unknown schemes, or fsspec or its backend missing, raise
:class:`~swigflow.errors.UnimplementedError` saying what to install, never "No such file".
"""

import asyncio
import atexit
import collections
import concurrent.futures
import contextlib
import functools
import glob as _glob
import io
import itertools
import os
import random
import shutil
import tempfile
import threading
import time
import uuid
import weakref

from swigflow import errors, settings
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import http_ranges, read_ahead, shard_cache

# Bytes fetched per request from a remote file: large enough that a request's latency is
# amortised, small enough that a reader holds little memory.
READ_BLOCK_SIZE = 8 << 20

# A remote file read in order keeps up to READ_AHEAD_BLOCKS blocks of READ_BLOCK_SIZE bytes
# requested ahead of its reader, each its own range request: as many as the measured time a
# block takes to arrive over the time the reader takes per block calls for (read_ahead.Pace).
# Plain HTTP(S) objects and stores without an event loop fetch on a pool of READ_AHEAD_THREADS
# threads shared by every file (32: 8 files read at once keep up to 8 blocks each requested;
# with 16 threads the remote benchmark's first epoch was 10-20% slower); the other stores'
# requests run on their event loop. 0 turns read-ahead off: one block requested at a time,
# when the reader wants it.
READ_AHEAD_BLOCKS = 8
READ_AHEAD_THREADS = 32
# The memory budget of read-ahead: the blocks requested ahead by every remote file of the
# process hold at most READ_AHEAD_BYTES between them, each file at most an equal share. The
# block a reader waits for is always requested, so the bytes held stay under READ_AHEAD_BYTES
# plus one block per file being read. None: SWIGFLOW_READ_AHEAD_BYTES (a size, as the
# command line writes them: 256MB, 1GiB), read when a remote file is read, else 256 MiB.
READ_AHEAD_BYTES = None
READ_AHEAD_BYTES_ENV = "SWIGFLOW_READ_AHEAD_BYTES"
DEFAULT_READ_AHEAD_BYTES = 256 << 20


def read_ahead_bytes():
    """The read-ahead memory budget in force (READ_AHEAD_BYTES)."""
    if READ_AHEAD_BYTES is not None:
        return READ_AHEAD_BYTES
    return settings.size(READ_AHEAD_BYTES_ENV, DEFAULT_READ_AHEAD_BYTES)


# A remote read that fails transiently (a reset, a timeout, a 5xx or 429, a body cut short) is
# tried READ_ATTEMPTS times in all, waiting a jittered READ_BACKOFF_S * 2**k (at most
# READ_BACKOFF_CAP_S) before attempt k + 1; then it raises UnavailableError naming the offset.
READ_ATTEMPTS = 6
READ_BACKOFF_S = 0.05
READ_BACKOFF_CAP_S = 2.0
# An HTTP(S) server silent for this long (connecting, or between bytes of a body) fails the
# request, a transient fault retried as above, where aiohttp would wait 5 minutes. Used unless
# fsspec's configuration gives the http file system client_kwargs of its own.
STALL_TIMEOUT_S = 30.0

_FILE_OBJECT_SCHEME = "fileobj"

FileStatistics = collections.namedtuple("FileStatistics", ["length", "is_directory"])
DirEntry = collections.namedtuple("DirEntry", ["name", "path", "is_directory"])


def scheme(path):
    """The URL scheme of ``path`` in lower case (``"s3"``, ``"file"``), or ``""`` for a local
    path: a letter, then letters, digits, ``+``, ``-`` or ``.`` (ASCII), before ``://``. The
    native layer's rule itself (native/io/file_system.h), so both always agree."""
    return _pywrap.UrlScheme(path)


def is_remote(path):
    """Whether ``path`` is opened through fsspec (a URL whose scheme is not ``file``)."""
    return scheme(path) not in ("", "file")


def local_path(path):
    """The local path of a local path or ``file://`` URL; None for a remote URL."""
    path = os.fsdecode(os.fspath(path))
    s = scheme(path)
    if s == "":
        return path
    if s == "file":
        return path[len("file://") :]
    return None


def as_path(path):
    """``path`` (str, bytes, os.PathLike or an open binary file object) as the str every native
    call takes. A file object becomes a ``fileobj://`` name registered for as long as the
    returned :class:`PathRef` lives; plain paths come back as str."""
    if is_file_object(path):
        return _FILE_OBJECTS.register(path)
    return os.fsdecode(os.fspath(path))


def names_file_object(path):
    """Whether ``path`` is the name :func:`as_path` gave an open file object."""
    return scheme(path) == _FILE_OBJECT_SCHEME


def is_file_object(value):
    """Whether ``value`` is an open file object rather than a path."""
    return hasattr(value, "read") or hasattr(value, "write")


# --- fsspec ------------------------------------------------------------------------------------


def _fsspec():
    try:
        import fsspec
    except ImportError:
        raise errors.UnimplementedError(
            "remote paths need fsspec: pip install 'swigflow[remote]'"
        ) from None
    return fsspec


def _unsupported(url, why):
    return errors.UnimplementedError(
        f"File system scheme '{scheme(url)}' not implemented (file: '{url}'): {why}"
    )


def filesystem(url):
    """(fsspec file system, path within it) for a remote URL.

    Raises:
      UnimplementedError: fsspec, or the backend for the scheme, is not installed, or fsspec
        knows no such scheme.
    """
    fsspec = _fsspec()
    s = scheme(url)
    if s not in fsspec.available_protocols():
        raise _unsupported(url, "fsspec knows no such scheme")
    try:
        return fsspec.core.url_to_fs(url, **_default_options(fsspec, s))
    except ImportError as e:  # fsspec's message names the package to install
        raise _unsupported(url, f"{e} (see pip install 'swigflow[remote]')") from None


def _default_options(fsspec, s):
    """swigflow's defaults for a scheme's file system, where the user's configuration is silent."""
    if s not in ("http", "https") or "client_kwargs" in fsspec.config.conf.get(s, {}):
        return {}
    import aiohttp  # fsspec's http backend: present when the scheme is usable

    stall = aiohttp.ClientTimeout(
        total=None, sock_connect=STALL_TIMEOUT_S, sock_read=STALL_TIMEOUT_S
    )
    return {"client_kwargs": {"timeout": stall}}


def _http_status(e):
    """The HTTP status behind exception `e` (aiohttp's ClientResponseError has one; fsspec's
    HTTP file system wraps any failure of its metadata request in FileNotFoundError), or None."""
    for cause in (e, e.__cause__, e.__context__):
        status = getattr(cause, "status", None)
        if isinstance(status, int):
            return status
    return None


def is_transient(e):
    """Whether exception `e` of a remote call may go away if the call is tried again."""
    status = _http_status(e)
    if status is not None:
        return status == 429 or status >= 500
    if isinstance(e, (ConnectionError, TimeoutError)):
        return True
    name = type(e).__name__
    return any(word in name for word in ("Timeout", "Connect", "Disconnect", "Payload"))


def changed_error(url, what):
    """The error for an object that is no longer the version a reader opened."""
    return errors.FailedPreconditionError(
        f"{url} changed while it was read ({what}); read it again"
    )


def translated(url, e):
    """The swigflow error for exception `e` of a remote call on ``url``."""
    status = _http_status(e)
    if status == 404:
        return errors.NotFoundError(f"{url}: No such file or directory")
    if status is not None:
        if status in (401, 403):
            return errors.PermissionDeniedError(f"{url}: HTTP {status}: permission denied")
        if status == 412:  # If-Match failed: another version than the one being read
            return changed_error(
                url, "HTTP 412: the server says it is no longer the version opened"
            )
        kind = errors.UnavailableError if is_transient(e) else errors.UnknownError
        return kind(f"{url}: HTTP {status}: {e}")
    if isinstance(e, FileNotFoundError):
        return errors.NotFoundError(f"{url}: No such file or directory")
    if isinstance(e, PermissionError):
        return errors.PermissionDeniedError(f"{url}: permission denied ({e})")
    if isinstance(e, IsADirectoryError):
        return errors.FailedPreconditionError(f"{url}: is a directory")
    if isinstance(e, FileExistsError):
        return errors.AlreadyExistsError(f"{url}: already exists")
    kind = errors.UnavailableError if is_transient(e) else errors.UnknownError
    return kind(f"{url}: {type(e).__name__}: {e}")


@contextlib.contextmanager
def translated_errors(url):
    """Raises what a remote call raises as a swigflow error naming ``url``."""
    try:
        yield
    except errors.OpError:
        raise
    except Exception as e:
        raise translated(url, e) from None


# --- What the native layer calls (swig/py_file_system.h) ---------------------------------------


def _retrying(url, expected, attempt_once, reopen=None, attempts=None):
    """attempt_once() -> bytes read, retried as READ_ATTEMPTS says (or `attempts` times in all)
    while it fails transiently or reads fewer than `expected` bytes; `reopen()` runs before each
    retry."""
    attempts = READ_ATTEMPTS if attempts is None else attempts
    for attempt in range(attempts):
        if attempt:
            wait = min(READ_BACKOFF_CAP_S, READ_BACKOFF_S * 2 ** (attempt - 1))
            time.sleep(wait * random.uniform(0.5, 1.0))
        try:
            if attempt and reopen is not None:
                reopen()
            got = attempt_once()
        except Exception as e:
            error = e if isinstance(e, errors.OpError) else translated(url, e)
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


_FETCH_POOL = read_ahead.DaemonPool(READ_AHEAD_THREADS, "sf-fetch")


def _fetch_span(url, ranges, start, end, requests):
    """Bytes [start, end) of `ranges`' object with the retries (a read-ahead block fetched on
    the pool). It holds no reader: a reader dropped meanwhile is freed, and aborts it."""
    return _fetched(url, functools.partial(ranges.fetch, requests=requests), start, end)


_READ_AHEAD_MEMORY = read_ahead.Memory()
_reader_ids = itertools.count()

ReadAheadMemory = collections.namedtuple("ReadAheadMemory", ["held", "peak", "budget"])


def read_ahead_memory(reset_peak=False):
    """A :class:`ReadAheadMemory`: the bytes of read-ahead blocks held now by the process's
    remote readers (requested, or arrived and not yet read past), the most held at once since
    the process started (or since the last ``reset_peak=True``), and the budget in force
    (READ_AHEAD_BYTES)."""
    found = ReadAheadMemory(_READ_AHEAD_MEMORY.held(), _READ_AHEAD_MEMORY.peak, read_ahead_bytes())
    if reset_peak:
        _READ_AHEAD_MEMORY.reset_peak()
    return found


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

    def __init__(self, size, url, file=None, ranges=None):
        self._file = file
        self.size = size
        self._url = url
        self._ranges = ranges
        self._fetch = None if ranges is None else ranges.fetch
        self._lock = threading.Lock()
        self._expected = None  # where the next read starts if the reader goes on in order
        # Read-ahead: block number -> (Future of its bytes, direct, its http_ranges.Requests or
        # None); each block's bytes are counted in _READ_AHEAD_MEMORY under self._id from its
        # request until it is dropped (and its request aborted).
        self._blocks = {}
        self._id = next(_reader_ids)
        self._pace = read_ahead.Pace()
        self._budget = read_ahead_bytes() if ranges is not None else 0
        self._wanted = None  # the block the reader is in
        self._cancelled = False  # cancel(): its pipeline stopped; no read waits any more

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
        if self._fetch is not None and 0 <= offset < self.size:
            with self._lock:
                # A read from the start, or one that follows the last: a reader going through
                # the file in order (a jump elsewhere is a random reader's, read as it asks).
                in_order = offset == 0 or offset == self._expected
                self._expected = offset + n
                if not in_order:
                    self._drop_blocks(None)
            if in_order:
                try:
                    return self._read_ahead(offset, buffer)
                except BaseException:
                    # Blocks ahead of a failed read are not wanted: an error (kept with its
                    # traceback, which holds this reader) must not keep their memory.
                    with self._lock:
                        self._drop_blocks(None)
                    raise
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
            future.cancel()
            if requests is not None:  # running on the pool: cancel() alone would not stop it
                requests.abort()
            start, end = self._span(k)
            _READ_AHEAD_MEMORY.give(self._id, end - start)

    def _span(self, k):
        start = k * READ_BLOCK_SIZE
        return start, min(self.size, start + READ_BLOCK_SIZE)

    def _fetch_block(self, k):
        return _fetched(self._url, self._fetch, *self._span(k))

    def _request_block(self, k, needed):
        """Requests block k, if it is `needed` or the memory budget has room for it (False if
        not), as a request on the store's event loop when it has one (direct: cancel() aborts
        it; tried once), else as _fetch_block, with its retries, on the shared pool. Lock held."""
        start, end = self._span(k)
        if not _READ_AHEAD_MEMORY.take(self._id, end - start, self._budget, needed):
            return False
        future, direct, requests = self._ranges.submit(start, end), True, None
        if future is None:
            requests = self._ranges.new_requests()
            future = _FETCH_POOL.submit(_fetch_span, self._url, self._ranges, start, end, requests)
            direct = False
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

    def _block(self, k):
        """Block k's bytes, with the blocks after it requested."""
        last = (self.size - 1) // READ_BLOCK_SIZE
        while True:
            self._check_cancelled()
            with self._lock:
                if k != self._wanted:
                    self._wanted = k
                    self._pace.wanted()
                self._drop_blocks(k)
                ahead = max(1, self._pace.window(READ_AHEAD_BLOCKS))
                for j in range(k, min(last, k + ahead - 1) + 1):
                    if j not in self._blocks and not self._request_block(j, needed=j == k):
                        break  # the budget is full: the reader will ask again for the next
                future, direct, _ = self._blocks[k]
            try:
                return self._block_bytes(k, future, direct)
            except (concurrent.futures.CancelledError, errors.CancelledError):
                self._check_cancelled()
                continue  # another thread sharing the file moved on and dropped it: ask again

    def _read_ahead(self, offset, buffer):
        done = 0
        n = min(len(buffer), self.size - offset)
        while done < n:
            position = offset + done
            k = position // READ_BLOCK_SIZE
            data = memoryview(self._block(k))
            start = position - k * READ_BLOCK_SIZE
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
PENDING_UPLOAD_SCHEMES = frozenset(["s3", "s3a", "gs", "gcs", "abfs", "abfss", "az", "oci", "oss"])


class _Writer:
    """A remote file being written. close() commits it: the pending upload completed, or the
    temporary name renamed. discard() drops it, leaving any earlier file of the name as it was."""

    def __init__(self, url):
        self._url = url
        self._fs, self._path = filesystem(url)
        with translated_errors(url):
            if scheme(url) in PENDING_UPLOAD_SCHEMES:
                self._temp = None
                self._file = self._fs.open(self._path, "wb", autocommit=False)
            else:
                parent, slash, name = self._path.rpartition("/")
                self._temp = f"{parent}{slash}.{name}.tmp-{uuid.uuid4().hex}"
                self._file = self._fs.open(self._temp, "wb")

    def write(self, buffer):
        with translated_errors(self._url):
            self._file.write(buffer)

    def close(self):
        with translated_errors(self._url):
            self._file.close()
            if self._temp is None:
                self._file.commit()
            else:
                self._fs.mv(self._temp, self._path)

    def discard(self):
        with translated_errors(self._url):
            if self._temp is None:
                self._file.discard()
            else:
                self._file.close()
                self._fs.rm(self._temp)


class _FileObjectReader(_Reader):
    def __init__(self, file, url):
        with translated_errors(url):
            size = file.seek(0, io.SEEK_END)
        super().__init__(size, url, file=file)


class _FileObjectWriter:
    """Writes into a caller's open file: the caller owns (and closes) it."""

    def __init__(self, file, url):
        self._file = file
        self._url = url

    def write(self, buffer):
        with translated_errors(self._url):
            self._file.write(buffer)

    def close(self):
        with translated_errors(self._url):
            self._file.flush()

    def discard(self):
        pass  # nothing to take back from a file the caller gave


class PathRef(str):
    """The ``fileobj://`` name of a registered file object (a str): the registration lasts as
    long as this object."""

    __slots__ = ("__weakref__",)


class _FileObjects:
    def __init__(self):
        self._lock = threading.Lock()
        self._objects = {}
        self._ids = itertools.count()

    def register(self, file):
        name = os.path.basename(os.fsdecode(getattr(file, "name", "") or "")) or "file"
        ref = PathRef(f"{_FILE_OBJECT_SCHEME}://{next(self._ids)}/{name}")
        key = str(ref)
        with self._lock:
            self._objects[key] = file
        weakref.finalize(ref, self._drop, key)
        return ref

    def _drop(self, key):
        with self._lock:
            self._objects.pop(key, None)

    def get(self, url):
        with self._lock:
            file = self._objects.get(url)
        if file is None:
            raise errors.NotFoundError(f"{url}: the file object is no longer registered")
        return file


_FILE_OBJECTS = _FileObjects()


def _version_pin(fs, url, info):
    """The cat_file arguments that read the version of an object `info` describes, where the
    store names versions: a GCS generation, or an S3 version id on a version-aware s3fs
    (``version_aware=True``; a bucket without versioning has none). {} where it cannot."""
    s = scheme(url)
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
        self._http = scheme(url) in ("http", "https")
        self._pin = http_ranges.Pin(info) if self._http else None
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

    def _direct_range(self, start, end, requests):
        """Bytes [start, end) (fewer if the body ends early), read by http_ranges; abort() or
        `requests`' abort() fails them."""
        headers = self._fs.kwargs.get("headers") or {}
        url = str(self._fs.encode_url(self._path))
        try:
            return http_ranges.get_range(
                url, start, end, self._pin, headers, self._timeout, requests or self._requests
            )
        except http_ranges.Changed as e:
            raise changed_error(self._url, e.what) from None
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
        headers = {**(options.pop("headers", None) or {}), **self._pin.headers()}
        headers["Range"] = f"bytes={start}-{end - 1}"
        session = await fs.set_session()
        async with session.get(fs.encode_url(self._path), headers=headers, **options) as r:
            if r.status == 404:
                raise FileNotFoundError(self._url)
            r.raise_for_status()  # 412 included: translated() tells it as a change
            try:
                self._pin.check(r.status, r.headers.get)
            except http_ranges.Changed as e:
                raise changed_error(self._url, e.what) from None
            try:
                skip = http_ranges.bytes_to_skip(
                    r.status, r.headers.get("Content-Range"), r.content_length, start, self._size
                )
            except http_ranges.NotAnAnswer as e:
                raise self._not_an_answer(start, end, e.what) from None
            buffer = bytearray(end - start)
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

    def fetch(self, start, end, requests=None):
        if self._timeout is not None:
            return self._direct_range(start, end, requests)
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
        return changed_error(self._url, f"its {key} {value}, pinned when opened, is gone")

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
SPOOL_MAX_BYTES_ENV = "SWIGFLOW_SPOOL_MAX_BYTES"
DEFAULT_SPOOL_MAX_BYTES = 4 << 30


def _spooled(url, fs, path):
    """A temporary file holding the object's bytes, at most SWIGFLOW_SPOOL_MAX_BYTES of them.

    Raises:
      ResourceExhaustedError: the object is larger.
    """
    most = settings.size(SPOOL_MAX_BYTES_ENV, DEFAULT_SPOOL_MAX_BYTES)
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - the reader owns it
    try:
        with fs.open(path, "rb") as f:
            held = 0
            while block := f.read(READ_BLOCK_SIZE):
                held += len(block)
                if held > most:
                    raise errors.ResourceExhaustedError(
                        f"{url}: the server gives no length, and more than {most} bytes "
                        f"arrived, the most spooled to disk ({SPOOL_MAX_BYTES_ENV})"
                    )
                spool.write(block)
    except BaseException:
        spool.close()
        raise
    return spool


def cached_copy(url, cache):
    """The path of `cache`'s complete copy of remote `url` as the store describes it now (one
    request for its version), or None."""
    fs, path = filesystem(url)
    with translated_errors(url):
        info = fs.info(path)
    version, size = shard_cache.version(info), info.get("size")
    if size is None or not cache.trusts(url, version):
        return None
    return cache.lookup(url, version, size, STALL_TIMEOUT_S)


def _prefetch_following(cache, url):
    """Starts downloads into `cache` of the objects read after `url` (shard_cache.following)."""
    for nxt in shard_cache.following(url):

        def describe(nxt=nxt):
            fs, path = filesystem(nxt)
            with translated_errors(nxt):
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

        cache.prefetch(nxt, describe, READ_BLOCK_SIZE)


class _Opener:
    """The remote file system the native layer calls (swig/py_file_system.h)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._groups = {}  # read group -> WeakSet of its _Readers
        self._stopping = {}  # read group -> Event set when its reads are abandoned
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
        stops: its reader threads must not wait on a stalled store), and the opens under way
        (one waiting for a shard cache's download)."""
        with self._lock:
            readers = list(self._groups.pop(group, ()))
            stopping = self._stopping.pop(group, None)
        if stopping is not None:
            stopping.set()
        for reader in readers:
            reader.cancel()

    def _stopping_event(self, group):
        with self._lock:
            return self._stopping.setdefault(group, threading.Event())

    def open_read(self, url, group=0):
        """A reader of `url` (read_at, size), or the path of a local copy; a remote reader
        joins read group `group` (0: none)."""
        if scheme(url) == _FILE_OBJECT_SCHEME:
            return _FileObjectReader(_FILE_OBJECTS.get(url), url)
        if self._closed:
            raise errors.CancelledError(f"{url}: not opened, the process is exiting")
        cache = shard_cache.for_url(url)
        if cache is not None and not cache.revalidate:
            local = cache.latest(url)
            if local is not None:
                return local  # read natively, the store not asked
        fs, path = filesystem(url)
        with translated_errors(url):
            info = shard_cache.described(url, lambda: fs.info(path))
            size = info.get("size")
            if size is None:
                return _FileObjectReader(_spooled(url, fs, path), url)
            version = shard_cache.version(info)
            if cache is not None and not cache.trusts(url, version):
                cache = None
            if cache is not None:
                _prefetch_following(cache, url)
                abandoned = self._stopping_event(group).is_set if group else None
                local = cache.lookup(url, version, size, STALL_TIMEOUT_S, abandoned)
                if local is not None:
                    return local  # read natively
        reader = _Reader(size, url, ranges=_Ranges(url, fs, path, info))
        with self._lock:
            self._readers.add(reader)
            if group:
                self._groups.setdefault(group, weakref.WeakSet()).add(reader)
        return reader if cache is None else cache.tee(url, version, size, reader)

    def open_write(self, url):
        if scheme(url) == _FILE_OBJECT_SCHEME:
            return _FileObjectWriter(_FILE_OBJECTS.get(url), url)
        return _Writer(url)


_OPENER = _Opener()
_pywrap.SetRemoteOpener(_OPENER)


@atexit.register
def _before_exit():
    # Remote reads abandoned first (a stalled one would never leave), then no native thread
    # may enter Python any more, and those inside are waited for: one still there when the
    # interpreter finalizes would be ended mid-call, aborting the process.
    _OPENER.abandon_all()
    _pywrap.CloseNativeCalls(5000)


# --- tf.io.gfile ---------------------------------------------------------------------------------


def _remote_call(path, fn):
    fs, p = filesystem(path)
    with translated_errors(path):
        return fn(fs, p)


class GFile:
    """A file by path or URL, as ``tf.io.gfile.GFile``: a local file through ``open``, a URL
    through fsspec. Writing to a URL is atomic as described in the module's documentation:
    the file appears when the ``with`` block (or :meth:`close`) completes without error.

    Args:
      name: a path or URL.
      mode: ``"r"``, ``"rb"``, ``"w"``, ``"wb"``, ``"a"``, ``"ab"``.
    """

    def __init__(self, name, mode="r"):
        self.name = os.fsdecode(os.fspath(name))
        self.mode = mode
        local = local_path(self.name)
        if local is not None:
            with _local_errors(local):
                self._file = open(local, mode)  # noqa: SIM115 - closed by close()
            self._writer = None
        elif any(c in mode for c in "wa"):
            if "a" in mode:
                raise errors.UnimplementedError(f"{self.name}: appending to a URL")
            self._writer = _Writer(self.name)
            self._file = io.BufferedWriter(_RawWriter(self._writer), READ_BLOCK_SIZE)
            if "b" not in mode:
                self._file = io.TextIOWrapper(self._file)
        else:
            fs, p = filesystem(self.name)
            with translated_errors(self.name):
                self._file = fs.open(p, mode, block_size=READ_BLOCK_SIZE)
            self._writer = None

    def read(self, n=-1):
        with translated_errors(self.name):
            return self._file.read(n)

    def readline(self):
        with translated_errors(self.name):
            return self._file.readline()

    def __iter__(self):
        return iter(self._file)

    def write(self, data):
        with translated_errors(self.name):
            return self._file.write(data)

    def flush(self):
        self._file.flush()

    def close(self, _commit=True):
        """Closes the file; a URL written to appears now (unless leaving a ``with`` block by an
        exception, which discards it)."""
        writer, self._writer = self._writer, None
        if writer is None:
            self._file.close()
        elif _commit:
            self._file.flush()
            writer.close()
        else:
            writer.discard()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *rest):
        self.close(_commit=exc_type is None)

    def __del__(self):
        if getattr(self, "_writer", None) is not None:
            self.close(_commit=False)  # never closed: the file must not appear


class _RawWriter(io.RawIOBase):
    """Text-mode GFile writes through this into a remote _Writer."""

    def __init__(self, writer):
        self._writer = writer

    def writable(self):
        return True

    def write(self, b):
        self._writer.write(bytes(b))
        return len(b)


def _os_error(path, e):
    codes = {
        FileNotFoundError: errors.NotFoundError,
        NotADirectoryError: errors.NotFoundError,
        PermissionError: errors.PermissionDeniedError,
        IsADirectoryError: errors.FailedPreconditionError,
        FileExistsError: errors.AlreadyExistsError,
    }
    cls = codes.get(type(e), errors.UnknownError)
    return cls(f"{path}: {e.strerror or e}")


@contextlib.contextmanager
def _local_errors(path):
    try:
        yield
    except OSError as e:
        raise _os_error(path, e) from None


def exists(path):
    """Whether ``path`` exists."""
    local = local_path(path)
    if local is not None:
        return os.path.exists(local)
    return _remote_call(path, lambda fs, p: fs.exists(p))


def isdir(path):
    """Whether ``path`` is a directory. An HTTP(S) URL is one when it ends with ``/``: fsspec
    would tell by downloading the page and looking for links, which for a data file is the
    whole file."""
    local = local_path(path)
    if local is not None:
        return os.path.isdir(local)
    if scheme(path) in ("http", "https"):
        return os.fsdecode(os.fspath(path)).endswith("/")
    return _remote_call(path, lambda fs, p: fs.isdir(p))


def stat(path):
    """A :class:`FileStatistics` (length in bytes, is_directory) for ``path``.

    Raises:
      NotFoundError: no such file.
    """
    local = local_path(path)
    if local is not None:
        with _local_errors(local):
            st = os.stat(local)
        return FileStatistics(st.st_size, os.path.isdir(local))

    def info(fs, p):
        i = fs.info(p)
        return FileStatistics(int(i.get("size") or 0), i.get("type") == "directory")

    return _remote_call(path, info)


def glob(pattern):
    """The paths matching ``pattern``, sorted; URLs keep their scheme."""
    pattern = os.fsdecode(os.fspath(pattern))
    local = local_path(pattern)
    if local is not None:
        found = sorted(_glob.glob(local))
        return [f"file://{f}" for f in found] if local != pattern else found
    s = scheme(pattern)

    def matches(fs, p):
        return sorted(fs.unstrip_protocol(f) if "://" not in f else f for f in fs.glob(p))

    found = _remote_call(pattern, matches)
    return [f if scheme(f) == s else f"{s}://{f.split('://', 1)[-1]}" for f in found]


def listdir(path):
    """The names in directory ``path`` (not full paths), sorted."""
    local = local_path(path)
    if local is not None:
        with _local_errors(local):
            return sorted(os.listdir(local))
    names = _remote_call(path, lambda fs, p: fs.ls(p, detail=False))
    return sorted(n.rstrip("/").rsplit("/", 1)[-1] for n in names)


def scandir(path):
    """The entries of directory ``path`` as :class:`DirEntry` (name, full path or URL,
    is_directory), sorted by name: one listing request on an object store, where
    :func:`listdir` plus :func:`isdir` per name would be one each. A local entry whose type
    cannot be read (a symlink loop) counts as a file."""
    path = os.fsdecode(os.fspath(path))
    local = local_path(path)
    if local is not None:

        def is_dir(entry):
            try:
                return entry.is_dir()
            except OSError:
                return False

        with _local_errors(local):
            entries = list(os.scandir(local))
        return sorted(
            (DirEntry(e.name, join(path, e.name), is_dir(e)) for e in entries),
            key=lambda e: e.name,
        )
    _, own = filesystem(path)
    infos = _remote_call(path, lambda fs, p: fs.ls(p, detail=True))
    entries = {}
    for info in infos:
        full = info["name"].rstrip("/")
        name = full.rsplit("/", 1)[-1]
        if name and full != own.rstrip("/"):  # some backends list the directory itself
            entries[name] = DirEntry(name, join(path, name), info.get("type") == "directory")
    return [entries[name] for name in sorted(entries)]


def makedirs(path):
    """Creates directory ``path`` and its parents; an existing one is fine. Object stores have
    no directories, so there it does nothing."""
    local = local_path(path)
    if local is not None:
        os.makedirs(local, exist_ok=True)
        return
    _remote_call(path, lambda fs, p: fs.makedirs(p, exist_ok=True))


def remove(path):
    """Deletes file ``path``.

    Raises:
      NotFoundError: no such file.
    """
    local = local_path(path)
    if local is not None:
        with _local_errors(local):
            os.remove(local)
        return
    _remote_call(path, lambda fs, p: fs.rm_file(p))


def rename(src, dst, overwrite=False):
    """Renames ``src`` to ``dst`` (both local, or both on one remote file system).

    Raises:
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is false.
    """
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(f"{os.fsdecode(os.fspath(dst))}: already exists")
    local_src, local_dst = local_path(src), local_path(dst)
    if local_src is not None and local_dst is not None:
        with _local_errors(local_src):
            os.replace(local_src, local_dst)
        return
    if (local_src is None) != (local_dst is None) or scheme(src) != scheme(dst):
        raise errors.UnimplementedError(f"renaming {src} to {dst}: not one file system")
    _, dst_path = filesystem(dst)
    _remote_call(src, lambda fs, p: fs.mv(p, dst_path))


def join(path, *paths):
    """Joins path components with ``/`` (URLs) or the OS separator (local paths)."""
    path = os.fsdecode(os.fspath(path))
    if is_remote(path):
        for p in paths:
            path = path.rstrip("/") + "/" + os.fsdecode(os.fspath(p)).lstrip("/")
        return path
    return os.path.join(path, *paths)


def copy(src, dst, overwrite=False):
    """Copies file ``src`` to ``dst`` (each a path or URL)."""
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(f"{os.fsdecode(os.fspath(dst))}: already exists")
    with GFile(src, "rb") as fin, GFile(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, READ_BLOCK_SIZE)
