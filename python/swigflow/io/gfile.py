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

This module is the face and the settings of remote reads (READ_BLOCK_SIZE, ...: set them here);
what the native layer calls for a URL (range reads pinned to a version, retries, read-ahead,
the shard cache) is swigflow.io.remote.
"""

from __future__ import annotations

import contextlib
import glob as _glob
import io
import itertools
import os
import shutil
import threading
import uuid
import weakref
from collections.abc import Iterator
from typing import Any, BinaryIO, NamedTuple, Union

from swigflow import errors, settings
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import read_ahead, shard_cache

# Bytes fetched per request from a remote file: large enough that a request's latency is
# amortised, small enough that a reader holds little memory.
READ_BLOCK_SIZE = 8 << 20

# A reader going through a block of a plain HTTP(S) file that is still arriving reads on once
# READ_PIECE_SIZE bytes past where it is are in (or the rest of the block): it takes the first
# half of each block while the rest comes (a block takes ~100 ms at 80 MB/s per response). On
# 6 files of 39 MB behind 30 ms and 80 MB/s (Zen 3, 2 cores), a new process's epoch read 510
# MB/s at 1.89 CPU s/GB with 4 MiB pieces, and 448 MB/s at 2.20 with 1 MiB (each piece a
# wake-up and a Python call, on the GIL the fetch threads need too).
READ_PIECE_SIZE = 4 << 20

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
# plus one block per file being read; within it, what is held grows only as far as readers
# wait (read_ahead.Memory.limit). None: SWIGFLOW_READ_AHEAD_BYTES (a size, as the command line
# writes them: 256MB, 1GiB), read when a remote file is read, else 256 MiB.
READ_AHEAD_BYTES: int | None = None
READ_AHEAD_BYTES_ENV = "SWIGFLOW_READ_AHEAD_BYTES"
DEFAULT_READ_AHEAD_BYTES = 256 << 20


def read_ahead_bytes() -> int:
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
# An HTTP(S) server silent for this long (connecting, or between bytes of a body; on plain
# HTTP, sending fewer than http_ranges.LOW_WATER bytes of a body) fails the request, a
# transient fault retried as above, where aiohttp would wait 5 minutes. Used unless fsspec's
# configuration gives the http file system client_kwargs of its own.
STALL_TIMEOUT_S = 30.0

FILE_OBJECT_SCHEME = "fileobj"

# What a path parameter takes: a local path (str, bytes, os.PathLike), a scheme:// URL, or an
# open binary file object.
PathOrFile = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", BinaryIO]


class FileStatistics(NamedTuple):
    length: int
    is_directory: bool


FileStatistics.__doc__ = """What :func:`stat` tells of a path (``tf.io.gfile.stat``'s fields).

Args:
    length: the size in bytes.
    is_directory: whether it is a directory."""


class DirEntry(NamedTuple):
    name: str
    path: str
    is_directory: bool


DirEntry.__doc__ = """An entry of :func:`scandir`.

Args:
    name: the entry's name in its directory.
    path: its full path or URL.
    is_directory: whether it is a directory."""


def scheme(path: PathOrFile) -> str:
    """The URL scheme of ``path`` in lower case (``"s3"``, ``"file"``), or ``""`` for a local
    path: a letter, then letters, digits, ``+``, ``-`` or ``.`` (ASCII), before ``://``. The
    native layer's rule itself (native/io/file_system.h), so both always agree.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        The scheme, a str.
    """
    return _pywrap.UrlScheme(path)


def is_remote(path: PathOrFile) -> bool:
    """Whether ``path`` is opened through fsspec (a URL whose scheme is not ``file``).

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        True or False.
    """
    return scheme(path) not in ("", "file")


def local_path(path: PathOrFile) -> str | None:
    """The local path of a local path or ``file://`` URL; None for a remote URL.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        A str, or None.
    """
    path = os.fsdecode(os.fspath(path))
    s = scheme(path)
    if s == "":
        return path
    if s == "file":
        return path[len("file://") :]
    return None


def as_path(path: PathOrFile) -> str:
    """``path`` (str, bytes, os.PathLike or an open binary file object) as the str every native
    call takes. A file object becomes a ``fileobj://`` name registered for as long as the
    returned :class:`PathRef` lives; plain paths come back as str.

    Args:
        path: a str, bytes, os.PathLike or open binary file object.

    Returns:
        A str, or a PathRef for a file object.
    """
    if is_file_object(path):
        return FILE_OBJECTS.register(path)
    return os.fsdecode(os.fspath(path))


def names_file_object(path: PathOrFile) -> bool:
    """Whether ``path`` is the name :func:`as_path` gave an open file object.

    Args:
        path: a str.

    Returns:
        True or False.
    """
    return scheme(path) == FILE_OBJECT_SCHEME


def is_file_object(value: Any) -> bool:
    """Whether ``value`` is an open file object rather than a path.

    Args:
        value: anything.

    Returns:
        True or False.
    """
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


# The schemes whose fsspec backend swigflow[remote] installs (s3fs, aiohttp; pkg/setup.py).
_REMOTE_EXTRA_SCHEMES = frozenset({"s3", "s3a", "http", "https"})


def _unsupported(url, why):
    return errors.UnimplementedError(
        f"File system scheme '{scheme(url)}' not implemented (file: '{url}'): {why}"
    )


def filesystem(url: str) -> tuple[Any, str]:
    """(fsspec file system, path within it) for a remote URL.

    Raises:
      UnimplementedError: fsspec, or the backend for the scheme, is not installed, or fsspec
        knows no such scheme.

    Args:
        url: a scheme:// URL.

    Returns:
        (file system, path).
    """
    fsspec = _fsspec()
    s = scheme(url)
    if s not in fsspec.available_protocols():
        raise _unsupported(url, "fsspec knows no such scheme")
    try:
        return fsspec.core.url_to_fs(url, **_default_options(fsspec, s))
    except ImportError as e:  # fsspec's message names the package to install
        extra = " (pip install 'swigflow[remote]')" if s in _REMOTE_EXTRA_SCHEMES else ""
        raise _unsupported(url, f"{e}{extra}") from None


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


def is_transient(e: BaseException) -> bool:
    """Whether exception `e` of a remote call may go away if the call is tried again.

    Args:
        e: an exception.

    Returns:
        True or False.
    """
    status = _http_status(e)
    if status is not None:
        return status == 429 or status >= 500
    if isinstance(e, (ConnectionError, TimeoutError)):
        return True
    name = type(e).__name__
    return any(word in name for word in ("Timeout", "Connect", "Disconnect", "Payload"))


def changed_error(url: str, what: str) -> errors.OpError:
    """The error for an object that is no longer the version a reader opened.

    Args:
        url: the object's URL.
        what: what changed (a few words for the message).

    Returns:
        A DataLossError.
    """
    return errors.FailedPreconditionError(
        f"{url} changed while it was read ({what}); read it again"
    )


def translated(url: str, e: BaseException) -> errors.OpError:
    """The swigflow error for exception `e` of a remote call on ``url``.

    Args:
        url: the URL the call was on.
        e: the exception it raised.

    Returns:
        An OpError subclass instance (NotFoundError, PermissionDeniedError, UnavailableError,
        ...).
    """
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
def translated_errors(url: str) -> Iterator[None]:
    """Raises what a remote call raises as a swigflow error naming ``url``.

    Args:
        url: the URL the calls in the block are on.

    Raises:
        OpError: the translated error of an exception raised in the block.
    """
    try:
        yield
    except errors.OpError:
        raise
    except Exception as e:
        raise translated(url, e) from None


class ReadAheadMemory(NamedTuple):
    held: int
    peak: int
    budget: int


ReadAheadMemory.__doc__ = """What :func:`read_ahead_memory` reports, in bytes.

Args:
    held: the read-ahead blocks held now.
    peak: the most held at once.
    budget: the budget in force (READ_AHEAD_BYTES)."""


def read_ahead_memory(reset_peak: bool = False) -> ReadAheadMemory:
    """A :class:`ReadAheadMemory`: the bytes of read-ahead blocks held now by the process's
    remote readers (requested, or arrived and not yet read past), the most held at once since
    the process started (or since the last ``reset_peak=True``), and the budget in force
    (READ_AHEAD_BYTES).

    Args:
        reset_peak: start the peak anew from what is held now.

    Returns:
        A ReadAheadMemory.
    """
    memory = read_ahead.MEMORY
    found = ReadAheadMemory(memory.held(), memory.peak, read_ahead_bytes())
    if reset_peak:
        memory.reset_peak()
    return found


PENDING_UPLOAD_SCHEMES: frozenset[str] = frozenset(
    ["s3", "s3a", "gs", "gcs", "abfs", "abfss", "az", "oci", "oss"]
)


class Writer:
    """A remote file being written. close() commits it: the pending upload completed, or the
    temporary name renamed. discard() drops it, leaving any earlier file of the name as it was."""

    def __init__(self, url: str) -> None:
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

    def write(self, buffer: Any) -> None:
        with translated_errors(self._url):
            self._file.write(buffer)

    def close(self) -> None:
        with translated_errors(self._url):
            self._file.close()
            if self._temp is None:
                self._file.commit()
            else:
                self._fs.mv(self._temp, self._path)

    def discard(self) -> None:
        with translated_errors(self._url):
            if self._temp is None:
                self._file.discard()
            else:
                self._file.close()
                self._fs.rm(self._temp)


class PathRef(str):
    """The ``fileobj://`` name of a registered file object (a str): the registration lasts as
    long as this object."""

    __slots__ = ("__weakref__",)


class _FileObjects:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._objects = {}
        self._ids = itertools.count()

    def register(self, file: BinaryIO) -> PathRef:
        name = os.path.basename(os.fsdecode(getattr(file, "name", "") or "")) or "file"
        ref = PathRef(f"{FILE_OBJECT_SCHEME}://{next(self._ids)}/{name}")
        key = str(ref)
        with self._lock:
            self._objects[key] = file
        weakref.finalize(ref, self._drop, key)
        return ref

    def _drop(self, key: str) -> None:
        with self._lock:
            self._objects.pop(key, None)

    def get(self, url: str) -> Any:
        with self._lock:
            file = self._objects.get(url)
        if file is None:
            raise errors.NotFoundError(f"{url}: the file object is no longer registered")
        return file


FILE_OBJECTS: _FileObjects = _FileObjects()  # what as_path registered, by name


SPOOL_MAX_BYTES_ENV = "SWIGFLOW_SPOOL_MAX_BYTES"
DEFAULT_SPOOL_MAX_BYTES = 4 << 30


def cached_copy(url: str, cache: Any) -> str | None:
    """The path of `cache`'s complete copy of remote `url` as the store describes it now (one
    request for its version), or None.

    Args:
        url: a remote URL.
        cache: a ShardCache.

    Returns:
        A local path, or None.
    """
    fs, path = filesystem(url)
    with translated_errors(url):
        info = fs.info(path)
    version, size = shard_cache.version(info), info.get("size")
    if size is None or not cache.trusts(url, version):
        return None
    return cache.lookup(url, version, size, STALL_TIMEOUT_S)


# --- tf.io.gfile ---------------------------------------------------------------------------------


def _remote_call(path, fn):
    fs, p = filesystem(path)
    with translated_errors(path):
        return fn(fs, p)


def _dispatched(path, local_fn, remote_fn):
    """local_fn(the local path) for a local path or file:// URL, its OSError as swigflow's
    error; else remote_fn(fs, path in fs) through fsspec, its errors translated."""
    local = local_path(path)
    if local is None:
        return _remote_call(path, remote_fn)
    with _local_errors(local):
        return local_fn(local)


class GFile:
    """A file by path or URL, as ``tf.io.gfile.GFile``: a local file through ``open``, a URL
    through fsspec. Writing to a URL is atomic as described in the module's documentation:
    the file appears when the ``with`` block (or :meth:`close`) completes without error.

    Args:
      name: a path or URL.
      mode: ``"r"``, ``"rb"``, ``"w"``, ``"wb"``, ``"a"``, ``"ab"``.
    """

    def __init__(self, name: PathOrFile, mode: str = "r") -> None:
        self.name: str = os.fsdecode(os.fspath(name))
        self.mode: str = mode
        self._writer = None
        if is_remote(self.name) and any(c in mode for c in "wa"):
            if "a" in mode:
                raise errors.UnimplementedError(f"{self.name}: appending to a URL")
            self._writer = Writer(self.name)
            self._file = io.BufferedWriter(_RawWriter(self._writer), READ_BLOCK_SIZE)
            if "b" not in mode:
                self._file = io.TextIOWrapper(self._file)
            return
        self._file = _dispatched(
            self.name,
            lambda p: open(p, mode),  # noqa: SIM115 - closed by close()
            lambda fs, p: fs.open(p, mode, block_size=READ_BLOCK_SIZE),
        )

    def read(self, n: int = -1) -> Any:
        """Reads up to `n` bytes (or characters in text mode); all that is left when n < 0.

        Args:
            n: how many to read.

        Returns:
            bytes or str.
        """
        with translated_errors(self.name):
            return self._file.read(n)

    def readline(self) -> Any:
        with translated_errors(self.name):
            return self._file.readline()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._file)

    def write(self, data: Any) -> int:
        """Writes `data` (bytes, or str in text mode).

        Args:
            data: what to write.

        Returns:
            The number of bytes or characters written.
        """
        with translated_errors(self.name):
            return self._file.write(data)

    def flush(self) -> None:
        self._file.flush()

    def close(self, _commit: bool = True) -> None:
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

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        self.close(_commit=exc_type is None)

    def __del__(self) -> None:
        if getattr(self, "_writer", None) is not None:
            self.close(_commit=False)  # never closed: the file must not appear


class _RawWriter(io.RawIOBase):
    """Text-mode GFile writes through this into a remote Writer."""

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


def exists(path: PathOrFile) -> bool:
    """Whether ``path`` exists.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        True or False.
    """
    return _dispatched(path, os.path.exists, lambda fs, p: fs.exists(p))


def isdir(path: PathOrFile) -> bool:
    """Whether ``path`` is a directory. An HTTP(S) URL is one when it ends with ``/``: fsspec
    would tell by downloading the page and looking for links, which for a data file is the
    whole file.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        True or False.
    """
    if scheme(path) in ("http", "https"):
        return os.fsdecode(os.fspath(path)).endswith("/")
    return _dispatched(path, os.path.isdir, lambda fs, p: fs.isdir(p))


def stat(path: PathOrFile) -> FileStatistics:
    """A :class:`FileStatistics` (length in bytes, is_directory) for ``path``.

    Raises:
      NotFoundError: no such file.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        A FileStatistics.
    """

    def local(p):
        return FileStatistics(os.stat(p).st_size, os.path.isdir(p))

    def remote(fs, p):
        i = fs.info(p)
        return FileStatistics(int(i.get("size") or 0), i.get("type") == "directory")

    return _dispatched(path, local, remote)


def glob(pattern: str) -> list[str]:
    """The paths matching ``pattern``, sorted; URLs keep their scheme.

    Args:
        pattern: a local glob pattern or a scheme:// URL with one.

    Returns:
        A sorted list of paths or URLs.
    """
    pattern = os.fsdecode(os.fspath(pattern))
    s = scheme(pattern)

    def local(p):
        found = sorted(_glob.glob(p))
        return [f"file://{f}" for f in found] if s == "file" else found

    def remote(fs, p):
        found = sorted(fs.unstrip_protocol(f) if "://" not in f else f for f in fs.glob(p))
        return [f if scheme(f) == s else f"{s}://{f.split('://', 1)[-1]}" for f in found]

    return _dispatched(pattern, local, remote)


def listdir(path: PathOrFile) -> list[str]:
    """The names in directory ``path`` (not full paths), sorted.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        A sorted list of names.

    Raises:
        NotFoundError: no such directory.
    """
    names = _dispatched(path, os.listdir, lambda fs, p: fs.ls(p, detail=False))
    return sorted(n.rstrip("/").rsplit("/", 1)[-1] for n in names)


def scandir(path: PathOrFile) -> list[DirEntry]:
    """The entries of directory ``path`` as :class:`DirEntry` (name, full path or URL,
    is_directory), sorted by name: one listing request on an object store, where
    :func:`listdir` plus :func:`isdir` per name would be one each. A local entry whose type
    cannot be read (a symlink loop) counts as a file.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        A list of DirEntry.

    Raises:
        NotFoundError: no such directory.
    """
    path = os.fsdecode(os.fspath(path))

    def is_dir(entry):
        try:
            return entry.is_dir()
        except OSError:
            return False

    def local(p):
        return [(e.name, is_dir(e)) for e in os.scandir(p)]

    def remote(fs, p):
        listed = {}
        for info in fs.ls(p, detail=True):
            full = info["name"].rstrip("/")
            name = full.rsplit("/", 1)[-1]
            if name and full != p.rstrip("/"):  # some backends list the directory itself
                listed[name] = info.get("type") == "directory"
        return listed.items()

    entries = _dispatched(path, local, remote)
    return [DirEntry(name, join(path, name), d) for name, d in sorted(entries)]


def makedirs(path: PathOrFile) -> None:
    """Creates directory ``path`` and its parents; an existing one is fine. Object stores have
    no directories, so there it does nothing.

    Raises:
      FailedPreconditionError: a file stands where one of the directories would be (as
        TensorFlow's "PATH is not a directory").

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
    """

    def local(p):
        try:
            os.makedirs(p, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            blocking = p
            while blocking and not os.path.exists(blocking):
                blocking = os.path.dirname(blocking)
            raise errors.FailedPreconditionError(f"{blocking} is not a directory") from None

    _dispatched(path, local, lambda fs, p: fs.makedirs(p, exist_ok=True))


def remove(path: PathOrFile) -> None:
    """Deletes file ``path``.

    Raises:
      NotFoundError: no such file.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
    """
    _dispatched(path, os.remove, lambda fs, p: fs.rm_file(p))


def rename(src: PathOrFile, dst: PathOrFile, overwrite: bool = False) -> None:
    """Renames ``src`` to ``dst`` (both local, or both on one remote file system).

    Raises:
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is false.

    Args:
        src: the file's path or URL.
        dst: its new path or URL.
        overwrite: replace an existing `dst`.
    """
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(f"{os.fsdecode(os.fspath(dst))}: already exists")
    local_dst = local_path(dst)
    if (local_path(src) is None) != (local_dst is None) or (
        local_dst is None and scheme(src) != scheme(dst)
    ):
        raise errors.UnimplementedError(f"renaming {src} to {dst}: not one file system")
    _dispatched(
        src,
        lambda p: os.replace(p, local_dst),
        lambda fs, p: fs.mv(p, filesystem(dst)[1]),
    )


def join(path: PathOrFile, *paths: str) -> str:
    """Joins path components with ``/`` (URLs) or the OS separator (local paths).

    Args:
        path: the first component (a local path or URL).
        *paths: the others.

    Returns:
        The joined str.
    """
    path = os.fsdecode(os.fspath(path))
    if is_remote(path):
        for p in paths:
            path = path.rstrip("/") + "/" + os.fsdecode(os.fspath(p)).lstrip("/")
        return path
    return os.path.join(path, *paths)


def copy(src: PathOrFile, dst: PathOrFile, overwrite: bool = False) -> None:
    """Copies file ``src`` to ``dst`` (each a path or URL).

    Args:
        src: the file's path or URL.
        dst: the copy's path or URL.
        overwrite: replace an existing `dst`.

    Raises:
        AlreadyExistsError: `dst` exists and overwrite is false.
        NotFoundError: no such `src`.
    """
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(f"{os.fsdecode(os.fspath(dst))}: already exists")
    with GFile(src, "rb") as fin, GFile(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, READ_BLOCK_SIZE)


# The public API. Writer, FILE_OBJECTS and FILE_OBJECT_SCHEME are for swigflow.io.remote.
__all__ = [
    "DEFAULT_READ_AHEAD_BYTES",
    "DEFAULT_SPOOL_MAX_BYTES",
    "PENDING_UPLOAD_SCHEMES",
    "READ_AHEAD_BLOCKS",
    "READ_AHEAD_BYTES",
    "READ_AHEAD_BYTES_ENV",
    "READ_AHEAD_THREADS",
    "READ_ATTEMPTS",
    "READ_BACKOFF_CAP_S",
    "READ_BACKOFF_S",
    "READ_BLOCK_SIZE",
    "SPOOL_MAX_BYTES_ENV",
    "STALL_TIMEOUT_S",
    "DirEntry",
    "FileStatistics",
    "GFile",
    "PathRef",
    "ReadAheadMemory",
    "as_path",
    "cached_copy",
    "changed_error",
    "copy",
    "exists",
    "filesystem",
    "glob",
    "is_file_object",
    "is_remote",
    "is_transient",
    "isdir",
    "join",
    "listdir",
    "local_path",
    "makedirs",
    "names_file_object",
    "read_ahead_bytes",
    "read_ahead_memory",
    "remove",
    "rename",
    "scandir",
    "scheme",
    "stat",
    "translated",
    "translated_errors",
]
