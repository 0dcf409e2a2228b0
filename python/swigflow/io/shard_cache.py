"""A local cache of whole remote shards, as Mosaic Streaming keeps one: the first read of an
object streams it to the reader and to disk at once; later reads, by this process or any other
on the machine, open the local copy, which the native layer reads at local-disk speed.

Layout of a cache directory: one file per cached object, named by a digest of its URL, version
(ETag, generation or modification time) and size, so a changed object is a new entry; files
being written are NAME.part-PID-N and never read (those of processes that died are removed,
and those being written count in the budget); ``.url-DIGEST`` names a URL's latest entry and
its size (ShardCache(revalidate=False) reads it); ``.lock`` serializes eviction. An entry
appears by an atomic rename once every byte arrived in order and the count matched the size
the store reported: a reader that stops early, jumps, or fails leaves nothing. Records carry
their own CRCs, which every read checks: the native layer reads a copy as io::CachedCopy, so
damage found in it is reported naming the copy, which is deleted, and the next read fetches the
object again.

Eviction is least recently used (an entry's modification time is touched when it is opened)
down to the byte budget, when an entry is added. An object larger than the budget is not
cached. An object whose store names no version (no ETag, generation or modification time) is
not cached unless revalidate=False: a same-size rewrite could not be told from the copy. A
cache directory that cannot be written is not used (a warning says so once); reads go to the
store. Several processes share a directory safely:
names are unique per writer, renames are atomic, eviction holds ``fcntl.flock`` on ``.lock``.

The cache used for a URL is the one a dataset registered for it (``TFRecordDataset(...,
cache_dir=...)``), else the default from ``SWIGFLOW_CACHE_DIR`` (byte budget
``SWIGFLOW_CACHE_MAX_BYTES``, a size such as ``50GB``; ``SWIGFLOW_CACHE_REVALIDATE=0`` for
ShardCache's revalidate=False), else none. The variables are read when a remote file is
opened; a bad value fails that read, naming the variable.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import fcntl
import hashlib
import itertools
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from swigflow import errors, settings
from swigflow.io import read_ahead

CACHE_DIR_ENV = "SWIGFLOW_CACHE_DIR"
CACHE_MAX_BYTES_ENV = "SWIGFLOW_CACHE_MAX_BYTES"
CACHE_REVALIDATE_ENV = "SWIGFLOW_CACHE_REVALIDATE"  # "0": read copies without asking
PREFETCH_SHARDS = 2  # objects after the one opened, in the dataset's order, fetched ahead
PREFETCH_THREADS = 2

_PART = ".part-"
_LOCK = ".lock"
_names = itertools.count()


def version(info: Mapping[str, Any]) -> str:
    """Which version of an object `info` (fsspec's) describes, as the store says it: its ETag,
    generation or modification time; "" when none is given. Copies are keyed by it."""
    keys = (
        "ETag",
        "etag",
        "generation",
        "VersionId",
        "mtime",
        "LastModified",
        "Last-Modified",  # fsspec's HTTP file system: the header's own name
        "updated",
        "created",
    )
    for key in keys:
        if info.get(key) is not None:
            return f"{key}={info[key]}"
    return ""


def _digest(url, version, size):
    h = hashlib.blake2b(digest_size=16)
    for part in (url, str(version), str(size)):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


class ShardCache:
    """Whole objects cached under `directory`, at most `max_bytes` (None: no limit).

    revalidate=True (the default) asks the store for an object's version and size the first
    time a dataset opens it, and reads the copy only if they are the copy's. The dataset's
    later epochs and iterators read that copy without asking again while the cache holds it:
    a dataset sees each cached object as it was when first read (a new dataset asks again).
    With False, the latest copy of a URL is read without asking: no request at all, for
    objects that never change once written (Mosaic Streaming's assumption for its shards).

    Args:
        directory: the cache's local directory (made if missing).
        max_bytes: the most the copies may take; None: no limit.
        revalidate: check an object's version with the store before its copy is read.
    """

    def __init__(
        self, directory: Any, max_bytes: int | None = None, revalidate: bool = True
    ) -> None:
        self.directory: str = os.path.abspath(os.fspath(directory))
        if max_bytes is not None and int(max_bytes) < 0:
            raise ValueError(f"max_bytes must be >= 0 or None, got {max_bytes}")
        self.max_bytes: int | None = None if max_bytes is None else int(max_bytes)
        self.revalidate: bool = bool(revalidate)
        with contextlib.suppress(OSError):  # one that cannot be made is reported when used
            os.makedirs(self.directory, exist_ok=True)
        self._lock = threading.Lock()
        self._prefetching = {}  # url -> its _Download in flight
        # url -> its entries being written (_Writer), and readers opening it (reading())
        self._writing = collections.Counter()
        self._pool = read_ahead.DaemonPool(PREFETCH_THREADS, "swigflow-shard-prefetch")
        self._unwritable = False  # warned once: entries cannot be written here
        self._warned_unversioned = False

    def trusts(self, url: str, version: str | None) -> bool:
        """Whether copies of an object of `version` (version()) can stand for it: the store
        named a version, or revalidate=False (objects never change). Warns once if not.

        Args:
            url: the object's URL.
            version: its version as the store gave it (ETag, generation, ...), or None.

        Returns:
            True or False.
        """
        if version or not self.revalidate:
            return True
        with self._lock:
            warn, self._warned_unversioned = not self._warned_unversioned, True
        if warn:
            warnings.warn(
                f"swigflow: {url} is not cached in {self.directory}: its store gives no "
                "version (ETag, generation or modification time) to tell a rewritten object "
                "from the copy by. ShardCache(..., revalidate=False) caches objects that never "
                "change.",
                RuntimeWarning,
                stacklevel=3,
            )
        return False

    def keeps(self, url: str, version: str | None, size: int) -> bool:
        """Whether a copy of this object would be kept: it fits the budget and the directory
        takes writes (trusts() said yes).

        Args:
            url: the object's URL.
            version: its version.
            size: its size in bytes.

        Returns:
            True or False.
        """
        return not self._unwritable and (self.max_bytes is None or size <= self.max_bytes)

    def writer(self, url: str, version: str | None, size: int) -> Any:
        """A new entry's _Writer, or None when the directory takes no writes (warned once).

        Args:
            url: the object's URL.
            version: its version.
            size: its size in bytes.

        Returns:
            A writer of the entry, or None.
        """
        try:
            writer = _Writer(self, url, self.entry(url, version, size), size)
        except OSError as e:
            with self._lock:
                warn, self._unwritable = not self._unwritable, True
            if warn:
                warnings.warn(
                    f"swigflow: the shard cache {self.directory} cannot be written ({e}); "
                    "remote files are read from the store without it",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return None
        with self._lock:
            self._writing[url] += 1
        return writer

    @contextlib.contextmanager
    def reading(self, url: str) -> Iterator[None]:
        """While entered, a reader is opening `url` (and copies it as it reads, if no copy or
        download turns up): prefetch() starts no download of it meanwhile.

        Args:
            url: the object's URL.
        """
        with self._lock:
            self._writing[url] += 1
        try:
            yield
        finally:
            self._written(url)

    def _written(self, url):
        """A _Writer of `url` finished or was abandoned, or a reader opened it."""
        with self._lock:
            self._writing[url] -= 1
            if not self._writing[url]:
                del self._writing[url]

    def __repr__(self) -> str:
        return (
            f"ShardCache({self.directory!r}, max_bytes={self.max_bytes}, "
            f"revalidate={self.revalidate})"
        )

    def _pointer(self, url):
        """The file naming the latest copy of `url` (hidden from eviction by its dot)."""
        return os.path.join(self.directory, f".url-{_digest(url, '', '')}")

    def latest(self, url: str) -> str | None:
        """The path of the latest complete copy of `url` whatever its version, or None (for
        revalidate=False: no request to the store). A copy whose size is not the size the
        store reported when it was written is not complete: it is removed. Touches the copy.

        Args:
            url: the object's URL.

        Returns:
            A local path, or None.
        """
        try:
            with open(self._pointer(url)) as f:
                name, _, size = f.read().strip().partition(" ")
            path = os.path.join(self.directory, os.path.basename(name))
            if not size.isdigit() or os.stat(path).st_size != int(size):
                self.remove(path)
                return None
            os.utime(path)
        except OSError:
            return None
        return path

    def remove(self, path: str) -> None:
        """Deletes entry `path` (a damaged or short copy), so the next read fetches anew.

        Args:
            path: the entry's local path.
        """
        with contextlib.suppress(OSError):
            os.unlink(path)

    def entry(self, url: str, version: str | None, size: int) -> str:
        """The path an object's copy has (whether or not it is there yet).

        Args:
            url: the object's URL.
            version: its version.
            size: its size in bytes.

        Returns:
            A local path.
        """
        return os.path.join(self.directory, _digest(url, version, size))

    def lookup(
        self,
        url: str,
        version: str | None,
        size: int,
        stall_s: float | None,
        abandoned: Callable[[], bool] | None = None,
    ) -> str | None:
        """The path of a complete copy of the object, or None; touches the copy (least
        recently used goes first). A prefetch of it in flight is waited for while its bytes
        arrive; one silent for `stall_s` seconds is stopped (None: the caller reads from the
        store). One that failed raises its error: it was retried already. abandoned() (if
        given) true: the reader stopped, so the wait ends with CancelledError.

        Args:
            url: the object's URL.
            version: its version.
            size: its size in bytes.
            stall_s: how long a silent prefetch is waited for; None: not at all.
            abandoned: a function returning True once the reader has stopped.

        Returns:
            A local path, or None.

        Raises:
            CancelledError: the reader stopped while waiting.
            OpError: the prefetch failed.
        """
        path = self.entry(url, version, size)
        with self._lock:
            pending = self._prefetching.get(url)
        if pending is not None and not pending.wait(stall_s, abandoned):
            pending.stop()
            return None
        try:
            if os.stat(path).st_size != size:
                return None
            os.utime(path)
        except OSError:
            return None
        return path

    def tee(self, url: str, version: str | None, size: int, reader: Any) -> Any:
        """`reader` (read_at(offset, buffer), size) whose bytes, read in order from the start,
        are also written to the cache, the entry appearing when the last arrived; `reader`
        itself where no copy is kept (see keeps).

        Args:
            url: the object's URL.
            version: its version.
            size: its size in bytes.
            reader: a (read_at(offset, buffer), size) pair.

        Returns:
            A reader of the same form.
        """
        if not self.keeps(url, version, size):
            return reader
        writer = self.writer(url, version, size)
        return reader if writer is None else _TeeReader(reader, writer)

    def prefetch(self, url: str, describe: Callable[[], Any], block_size: int) -> None:
        """Downloads the object into the cache in the background, `block_size` bytes a request,
        unless it is on its way: a download in flight, or a reader's copy being written (a
        pipeline may open a file before the one whose open prefetches it). describe() gives
        its (version, size, fetch(start, end) -> bytes, abort() -> None: fails the fetches in
        flight); it runs on the download's thread (it may ask the store).

        Args:
            url: the object's URL.
            describe: a function returning (version, size, fetch, abort), as above.
            block_size: the bytes of one request.
        """
        with self._lock:
            if url in self._prefetching or url in self._writing:
                return  # on its way: downloaded, or copied by a reader that opened it first
            download = self._prefetching[url] = _Download()
        download.future = self._pool.submit(self._download, url, describe, block_size, download)

    def stop_prefetches(self, urls: Iterable[str]) -> None:
        """Stops the downloads of `urls` in flight (their dataset ended): nothing waits on a
        silent store for them, and no partial copy stays.

        Args:
            urls: the objects' URLs.
        """
        with self._lock:
            downloads = [self._prefetching.get(url) for url in urls]
        for download in downloads:
            if download is not None:
                download.stop()

    def _download(self, url, describe, block_size, download):
        try:
            version, size, fetch, download.abort = describe()
            path = self.entry(url, version, size)
            with self._lock:  # a reader that opened it meanwhile copies it as it reads
                copied = url in self._writing
            if download.stopped or copied or os.path.exists(path):
                return
            if not self.keeps(url, version, size):
                return
            writer = self.writer(url, version, size)
            if writer is None:
                return
            try:
                for start in range(0, size, block_size):
                    if download.stopped:
                        return
                    writer.write(start, fetch(start, min(size, start + block_size)))
                    download.written = writer.written
                writer.finish()
            finally:
                writer.abandon()  # nothing once finished
        finally:
            with self._lock:
                if self._prefetching.get(url) is download:
                    del self._prefetching[url]

    def evict(self, keep: str | None = None) -> None:
        """Removes the files being written by processes that are gone, then the least recently
        used entries until the cache, files being written included, holds at most max_bytes
        (never `keep`, the entry just added).

        Args:
            keep: an entry's path never removed; None: none.
        """
        with open(os.path.join(self.directory, _LOCK), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries, writing = [], 0
            for name in os.listdir(self.directory):
                path = os.path.join(self.directory, name)
                if name.startswith("."):
                    continue
                with contextlib.suppress(OSError):
                    if _PART in name:
                        if _writer_alive(name):
                            writing += os.stat(path).st_size
                        else:
                            os.unlink(path)
                        continue
                    st = os.stat(path)
                    entries.append((st.st_mtime, name, st.st_size))
            if self.max_bytes is None:
                return
            total = writing + sum(size for _, _, size in entries)
            for _, name, size in sorted(entries):
                if total <= self.max_bytes:
                    break
                path = os.path.join(self.directory, name)
                if path == keep:
                    continue
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                total -= size


class _Download:
    """A prefetch in flight: its Future, the bytes it wrote, and how to stop it."""

    def __init__(self):
        self.future = None
        self.written = 0
        self.stopped = False
        self.abort = None  # set once described: fails its fetches in flight

    def stop(self):
        self.stopped = True
        if self.abort is not None:
            self.abort()

    def wait(self, stall_s, abandoned=None):
        """Waits for the download to end; False if it was silent for `stall_s` seconds.
        Raises UnavailableError if it failed so (it was retried already), CancelledError once
        abandoned() is true; a download that failed otherwise, or was stopped, is just over."""
        while self.future is None:  # set right after it was registered
            time.sleep(0.001)
        written, since = self.written, time.monotonic()
        while True:
            if abandoned is not None and abandoned():
                raise errors.CancelledError("the read was abandoned (its reader stopped)")
            try:
                self.future.result(timeout=0.1)
                return True
            except concurrent.futures.TimeoutError:
                if self.written != written:
                    written, since = self.written, time.monotonic()
                elif time.monotonic() - since > stall_s:
                    return False
            except errors.UnavailableError:
                if self.stopped:
                    return True
                raise  # retried as much as a read would be: the read would fail the same
            except Exception:
                return True


def _writer_alive(name):
    """Whether the process writing part file `name` (NAME.part-PID-N) still runs."""
    pid = name.rsplit(_PART, 1)[1].split("-")[0].split(".")[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        pass
    return True


class _Writer:
    """An entry being written in order: a temporary file renamed into place by finish() once
    `size` bytes arrived, and made the URL's latest copy; abandon() removes it otherwise."""

    def __init__(self, cache, url, path, size):
        self._cache, self._url, self._path, self._size = cache, url, path, size
        self._temp = f"{path}{_PART}{os.getpid()}-{next(_names)}"
        self._file = open(self._temp, "wb")  # noqa: SIM115 - closed by finish() or abandon()
        self.written = 0
        self._counted = True  # in cache._writing until finished or abandoned

    def write(self, offset, data):
        if offset != self.written:
            raise errors.InternalError(f"shard cache: write at {offset}, expected {self.written}")
        self._file.write(data)
        self.written += len(data)

    def finish(self):
        if self.written != self._size:
            raise errors.DataLossError(
                f"shard cache: {self.written} bytes arrived of the {self._size} the store reported"
            )
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._temp, self._path)
        self._file = None
        pointer = self._cache._pointer(self._url)
        with open(f"{self._temp}.url", "w") as f:
            f.write(f"{os.path.basename(self._path)} {self._size}")
        os.replace(f"{self._temp}.url", pointer)
        self._uncount()
        self._cache.evict(keep=self._path)

    def _uncount(self):
        if self._counted:
            self._counted = False
            self._cache._written(self._url)

    def abandon(self):
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            with contextlib.suppress(OSError):
                os.unlink(self._temp)
            self._file = None
        self._uncount()


class _TeeReader:
    """A remote reader whose in-order bytes also go to a cache entry (see ShardCache.tee). A
    read that jumps ahead ends the copy; reads of bytes already copied leave it going."""

    def __init__(self, reader, writer):
        self._reader = reader
        self._writer = writer
        self._lock = threading.Lock()
        self.size = reader.size

    def read_at(self, offset, buffer):
        n = self._reader.read_at(offset, buffer)
        with self._lock:
            writer = self._writer
            if writer is None or offset + n <= writer.written:
                return n
            try:
                if offset > writer.written:
                    raise errors.OutOfRangeError("the reader jumped ahead")
                skip = writer.written - offset
                writer.write(writer.written, memoryview(buffer)[skip:n])
                if writer.written == self.size:
                    writer.finish()
                    self._writer = None
            except Exception:  # the copy is given up; the read itself succeeded
                writer.abandon()
                self._writer = None
        return n

    def close(self):
        with self._lock:
            if self._writer is not None:
                self._writer.abandon()
                self._writer = None

    def cancel(self):
        """Abandons the reads (the reader's cancel()) and the copy: nothing partial stays."""
        self._reader.cancel()
        self.close()

    def __del__(self):
        self.close()


# url -> the active registrations [(cache, its dataset's URLs, next start, asked, known)]
_registered = {}
_default = {}  # (directory, max_bytes, revalidate) -> ShardCache made from the environment
_registry_lock = threading.Lock()


def as_cache(cache_dir: Any) -> ShardCache | None:
    """`cache_dir` (a directory or a ShardCache) as a ShardCache, or None."""
    if cache_dir is None or isinstance(cache_dir, ShardCache):
        return cache_dir
    return ShardCache(cache_dir)


@contextlib.contextmanager
def registered(urls: Iterable[str], cache: Any, ahead: int = 1, known: Any = None) -> Any:
    """While entered, reads of `urls` (remote ones, in the order a dataset opens them, `ahead`
    at a time) go through `cache`, and opening one fetches the PREFETCH_SHARDS objects opened
    after those. The latest registration of a URL wins while it lasts; on leaving, downloads
    of URLs no registration holds any more are stopped.

    `known` (a dict the caller keeps: a dataset's own) remembers what the store said of each
    URL across registrations: see described()."""
    urls = list(urls)
    entries = []
    asked = {}  # what the store said of each URL while registered
    known = {} if known is None else known
    with _registry_lock:
        for i, url in enumerate(urls):
            entry = (cache, urls, i + max(1, int(ahead)), asked, known)
            _registered.setdefault(url, []).append(entry)
            entries.append((url, entry))
    try:
        yield
    finally:
        unwanted = []  # no dataset reads these now: their downloads in flight are stopped
        with _registry_lock:
            for url, entry in entries:
                active = _registered[url]
                active.remove(entry)
                if not active:
                    del _registered[url]
                    unwanted.append(url)
        cache.stop_prefetches(unwanted)


def _active(url):
    with _registry_lock:
        found = _registered.get(url)
        return found[-1] if found else None


def for_url(url: str) -> ShardCache | None:
    """The cache reads of `url` go through, or None."""
    found = _active(url)
    if found is not None:
        return found[0]
    directory = os.environ.get(CACHE_DIR_ENV)
    if not directory:
        return None
    limit = settings.size(CACHE_MAX_BYTES_ENV, None)
    revalidate = settings.flag(CACHE_REVALIDATE_ENV, True)
    key = (directory, limit, revalidate)
    with _registry_lock:
        if key not in _default:
            _default[key] = ShardCache(directory, limit, revalidate)
        return _default[key]


def following(url: str, count: int = PREFETCH_SHARDS) -> list[str]:
    """The URLs a registered dataset opens next after those open with `url`."""
    found = _active(url)
    if found is None:
        return []
    _, urls, start, _, _ = found
    return list(urls[start : start + count])


def described(url: str, describe: Callable[[], Any]) -> Any:
    """describe() (what the store says of `url`: fsspec's info), asked once per registration
    of the URL, and not again by a later registration with the same `known` while the cache
    holds the copy of the version it described: a dataset reads each object it cached as it
    was when the dataset first asked, in every later epoch and iterator, with no request."""
    found = _active(url)
    if found is None:
        return describe()
    cache, _, _, asked, known = found
    with _registry_lock:
        info = asked.get(url)
        earlier = known.get(url) if info is None else None
    if info is None and earlier is not None and _holds(cache, url, earlier):
        info = earlier
    if info is None:
        info = describe()
    with _registry_lock:
        asked[url] = known[url] = info
    return info


def _holds(cache, url, info):
    size = info.get("size")
    return size is not None and os.path.isfile(cache.entry(url, version(info), size))
