"""Index files and random access to TFRecord files.

An uncompressed file's index is in the format DALI and the ``tfrecord`` package use: a text line
``"<offset> <length>\\n"`` per record, where ``length`` counts the whole framed record (payload
plus 16 bytes). A GZIP or ZLIB file's index is a *seek index* (binary, versioned, checked; its
format is in native/io/seek_index.h and docs/tfrecord.md): points where inflating can resume, and
every record's uncompressed offset and length, so a record is read without inflating the file
from its start. Both are told apart by their first bytes.

Where: ``DIR/.NAME.idx`` for ``DIR/NAME`` by default, a hidden name that directory readers
(Ray's skips names starting with ``.`` or ``_``) and the usual globs (``train-*``, ``*``) pass
over, so they never read an index as data. ``NAME.idx`` beside the file (the name DALI's and
the ``tfrecord`` package's tools use, and earlier swigflow versions wrote) is still found.
"""

from __future__ import annotations

import collections.abc
import itertools
import logging
import operator
import os
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile
from swigflow.io.gfile import PathOrFile
from swigflow.io.sniff import sniff_compression
from swigflow.io.tf_record import ClosedHandle, TFRecordOptions, TFRecordReader, native_options

INDEX_SUFFIX = ".idx"
# Bytes of framing around each payload: length, its CRC, and the payload CRC
# (record_format.h's kFramingSize). An index stores payload + FRAMING_BYTES per record.
FRAMING_BYTES = 16

log: logging.Logger = logging.getLogger("swigflow.io")


_INDEX_START = re.compile(rb"\d+ \d+\n")
# A seek index's first bytes (native/io/seek_index.h).
SEEK_INDEX_MAGIC = b"\x89SFSEEK\n"


def is_index_file(path: PathOrFile) -> bool:
    """Whether ``path`` is an index file: named ``*.idx`` and empty, starting with an
    ``"<offset> <length>"`` line (no TFRecord file starts so: its first 8 bytes are a binary
    length whose CRC follows) or a seek index's magic bytes. A glob such as ``OUT/train-*``
    catches them beside the shards."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    name = os.fsdecode(os.fspath(path))
    if not name.endswith(INDEX_SUFFIX):
        return False
    try:
        with gfile.GFile(name, "rb") as f:
            head = f.read(48)
    except (errors.OpError, OSError):
        return False  # unreadable: reading it as a TFRecord file reports why
    return not head or head.startswith(SEEK_INDEX_MAGIC) or _INDEX_START.match(head) is not None


def without_index_files(paths: Any) -> list[Any]:
    """``paths`` less the index files among them, each skipped with a note on the
    "swigflow.io" logger."""
    kept = []
    for path in paths:
        if is_index_file(path):
            log.warning("skipping %s: an index file, not a TFRecord file", os.fsdecode(path))
        else:
            kept.append(path)
    return kept


def default_index_path(path: PathOrFile) -> str:
    """Where :func:`create_index` puts the index of ``DIR/NAME`` by default: ``DIR/.NAME.idx``
    (hidden from directory readers and globs; see the module's documentation).

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.

    Returns:
        The index's path, a str.
    """
    path = os.fsdecode(os.fspath(path))
    parent, slash, name = path.rpartition("/" if gfile.is_remote(path) else os.sep)
    return f"{parent}{slash}.{name}{INDEX_SUFFIX}"


def legacy_index_path(path: PathOrFile) -> str:
    """``path + ".idx"``: where earlier versions, DALI's and the ``tfrecord`` package's tools
    put an index; still found when there is none at default_index_path."""
    return os.fsdecode(os.fspath(path)) + INDEX_SUFFIX


def create_index(
    path: PathOrFile,
    index_path: PathOrFile | None = None,
    compression_type: str | None = None,
    span: int | None = None,
) -> int:
    """Writes the index file of a TFRecord file.

    An uncompressed file gets a plain index (its headers and lengths are checked while
    scanning; payload CRCs when records are read). A GZIP or ZLIB file gets a seek index: the
    file is inflated once, and a seek point is kept at every GZIP member start and, inside a
    member, at the first deflate block boundary every ``span`` bytes of output (with the 32 KiB
    window inflating needs there). A random read then inflates from the point before its record:
    at most one member of a file written with ``TFRecordOptions(seek_block_size=...)``, half a
    span on average in a TF-written one.

    Args:
      path: the TFRecord file.
      index_path: where to write the index; default_index_path(path) (``DIR/.NAME.idx``) by
        default.
      compression_type: None (told from the file's first bytes), "", "ZLIB" or "GZIP".
      span: output bytes between seek points inside a member (default 1 MiB; each point keeps
        a 32 KiB window, so the index is about 3% of the data). Compressed files only.

    Returns:
      The number of records indexed.

    Raises:
      NotFoundError: no such file.
      DataLossError: damaged framing or compressed data, or a cut file (nothing usable is
        written then).
    """
    index_path = default_index_path(path) if index_path is None else index_path
    compression = (
        sniff_compression(path)
        if compression_type is None
        else TFRecordOptions.get_compression_type_string(compression_type)
    )
    if not compression:
        if span is not None:
            gfile.stat(path)  # NotFoundError first: a missing file is not an uncompressed one
            raise ValueError("span applies to the seek index of a GZIP or ZLIB file")
        offsets, _ = _pywrap.CreateIndexFile(path, index_path)
        return len(offsets)
    index = build_seek_index(path, compression, span)
    with gfile.GFile(index_path, "wb") as f:
        f.write(index)
    return len(seek_index_records(index, os.fsdecode(os.fspath(index_path)))[0])


def build_seek_index(
    path: PathOrFile, compression_type: str | None, span: int | None = None
) -> Any:
    """The seek index of a GZIP or ZLIB file, as the bytes of its index file (see
    :func:`create_index`), built in memory."""
    if span is not None and (
        not isinstance(span, int) or isinstance(span, bool) or not 1 <= span <= 1 << 40
    ):
        raise ValueError(f"span must be an int in [1, 2**40], got {span!r}")
    compression = native_options(compression_type).compression
    if compression == native_options(None).compression:
        raise ValueError("a seek index is for GZIP or ZLIB files")
    return _pywrap.BuildSeekIndex(gfile.as_path(path), compression, span or 0)


def read_seek_index(index_path: PathOrFile | None, path: PathOrFile | None = None) -> Any:
    """The bytes of a seek index file, checked (InvalidArgumentError when it is not one, or
    damaged, or too large to be `path`'s)."""
    if path is not None:
        problem = oversized_index(path, index_path, compressed=True)
        if problem is not None:
            raise errors.InvalidArgumentError(f"{os.fsdecode(os.fspath(index_path))}: {problem}")
    with gfile.GFile(index_path, "rb") as f:
        index = f.read()
    name = os.fsdecode(os.fspath(index_path))
    if not index.startswith(SEEK_INDEX_MAGIC):
        raise errors.InvalidArgumentError(
            f"{name} is not a seek index (a compressed file's index is made by swigflow index)"
        )
    _pywrap.SeekIndexRecords(index, name)
    return index


def seek_index_records(index: int, name: str = "seek index") -> Any:
    """(offsets, lengths) of the records a seek index (bytes) describes: uncompressed offsets
    and framed lengths, as a plain index gives them."""
    _, offsets, lengths = _pywrap.SeekIndexRecords(index, name)
    return offsets, lengths


def open_seekable(
    path: PathOrFile, index: int, index_path: PathOrFile | None, compression_type: str | None
) -> Any:
    """A native random-access file over compressed `path` through `index` (bytes), with the
    index's (offsets, lengths). InvalidArgumentError: a malformed index or one for another
    compression; FailedPreconditionError: an index that no longer describes the file."""
    name = os.fsdecode(os.fspath(index_path))
    code, offsets, lengths = _pywrap.SeekIndexRecords(index, name)
    if code != native_options(compression_type).compression:
        raise errors.InvalidArgumentError(
            f"{name} indexes data of another compression than {compression_type}"
        )
    return _pywrap.PyRecordFile.OpenSeekable(path, index, name), offsets, lengths


def existing_index_path(path: PathOrFile) -> str | None:
    """path's index file at its default name, else at its legacy one, when it exists (a file
    object has none), else None."""
    if gfile.names_file_object(path):
        return None
    if gfile.is_remote(path):
        gfile.filesystem(path)  # an unknown scheme or a missing backend is reported for `path`
    for index_path in (default_index_path(path), legacy_index_path(path)):
        try:
            found = gfile.exists(index_path)
        except errors.OpError as e:  # the store failed: name the file the user asked for
            why = e.message.removeprefix(f"{index_path}: ")
            raise type(e)(f"{path}: looking for its index file {index_path}: {why}") from None
        if found:
            return index_path
    return None


def indexed_compression(path: PathOrFile, index_path: PathOrFile | None) -> str | None:
    """ "GZIP" or "ZLIB" when `index_path` (path's own index file, existing_index_path; None:
    it has none) is a seek index, which records the compression of the file it describes, else
    None: how TFRecordFile reads a compressed file it was not told about."""
    if index_path is None:
        return None
    with gfile.GFile(index_path, "rb") as f:
        if f.read(len(SEEK_INDEX_MAGIC)) != SEEK_INDEX_MAGIC:
            return None
    try:
        code, _, _ = _pywrap.SeekIndexRecords(read_seek_index(index_path, path), str(index_path))
    except errors.OpError:  # a damaged one: read as uncompressed, whose errors say so
        return None
    return {_pywrap.Compression_kZlib: "ZLIB", _pywrap.Compression_kGzip: "GZIP"}.get(code)


def has_default_index(path: PathOrFile) -> bool:
    """Whether path has an index file (whether or not it still describes the file)."""
    return existing_index_path(path) is not None


def max_index_bytes(data_bytes: int, compressed: bool) -> int:
    """The most bytes an index of a data file of `data_bytes` can sanely take; a larger one
    is not read (a file swapped in by mistake, or a hostile one, could be gigabytes). A plain
    index holds a line of at most 42 bytes per record of at least 16. A seek index holds a
    32 KiB window per seek point: at the default span, 3% of the output, which stays under 64x
    the file for data that inflates up to 2000x."""
    if compressed:
        return (64 << 20) + 64 * data_bytes
    return 4096 + 42 * (data_bytes // 16 + 1)


def oversized_index(
    path: PathOrFile, index_path: PathOrFile | None, compressed: bool
) -> str | None:
    """Why `index_path` is too large to be `path`'s index (see max_index_bytes), or None.
    Checked where both are local files (two stats); remote ones would cost two requests."""
    local, local_index = gfile.local_path(path), gfile.local_path(index_path)
    if local is None or local_index is None:
        return None
    try:
        size, data = os.stat(local_index).st_size, os.stat(local).st_size
    except OSError:
        return None  # the read that follows says what is missing
    if size <= max_index_bytes(data, compressed):
        return None
    return (
        f"{size} bytes is more than an index of a {data}-byte file can hold "
        f"({max_index_bytes(data, compressed)})"
    )


def checked_default_seek_index(
    path: PathOrFile, compression_type: str | None, index_path: PathOrFile | bool | None = False
) -> Any:
    """The bytes of path's seek index file (at `index_path` when the caller looked for it,
    see existing_index_path), or None when there is none or it no longer describes the file
    (logged as a warning: the caller builds one instead)."""
    if index_path is False:
        index_path = existing_index_path(path)
    if index_path is None:
        return None
    try:
        index = read_seek_index(index_path, path)
        open_seekable(path, index, index_path, compression_type)
    except (errors.InvalidArgumentError, errors.FailedPreconditionError) as e:
        log.warning("ignoring %s: %s (rebuild it with swigflow index)", index_path, e.message)
        return None
    return index


def write_index(index_path: PathOrFile | None, offsets: Any, lengths: Any) -> None:
    """Writes an index file from each record's offset and framed length (payload + 16), for a
    writer that knows them (so the file need not be read again).

    Raises:
      ValueError: offsets and lengths differ in length.
    """
    if len(offsets) != len(lengths):
        raise ValueError(
            f"offsets and lengths differ in length ({len(offsets)} and {len(lengths)})"
        )
    _pywrap.WriteRecordIndex(os.fsdecode(os.fspath(index_path)), offsets, lengths)


def index_mismatch(path: PathOrFile, offsets: Any, lengths: Any) -> str | None:
    """Why an index (offsets and framed lengths) does not describe `path`, or None when it does.

    An index describes a file when its records tile the whole file from offset 0, and the header
    at every offset states the index's length. A file rewritten or appended to after its index
    was made fails one of these (a rewrite of the same size too), so a stale index is never
    trusted. Costs one 8-byte read per record, gathered through a memory map. For a URL only
    the size and tiling are checked here (a request per header would cost more than the read);
    its readers check each record's length and CRC as they read it.
    """
    path = os.fsdecode(os.fspath(path))
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    size = gfile.stat(path).length
    if len(offsets) == 0:
        return None if size == 0 else f"the index is empty but {path} has {size} bytes"
    end = int(offsets[-1] + lengths[-1])
    if end != size:
        return f"the index describes {end} bytes but {path} has {size}"
    if offsets[0] != 0 or np.any(offsets[1:] != offsets[:-1] + lengths[:-1]) or lengths.min() < 16:
        return "the index's records do not follow each other"
    local = gfile.local_path(path)
    if local is None:
        return None
    data = np.memmap(local, dtype=np.uint8, mode="r")
    stated = data[offsets[:, None] + np.arange(8)].copy().view("<u8").ravel()
    bad = np.nonzero(stated.astype(np.int64) + FRAMING_BYTES != lengths)[0]
    if len(bad):
        return f"the record at {int(offsets[bad[0]])} in {path} is not the length the index says"
    return None


def scan_records(path: PathOrFile) -> tuple[Any, Any]:
    """(offsets, lengths) of the records of an uncompressed TFRecord file, from their headers
    alone (no payload is read; C++ without the GIL): int64 arrays, lengths framed.

    Raises:
      DataLossError: a damaged or cut header, naming the file and offset.
    """
    return _pywrap.ScanRecordIndex(path)


def read_index(index_path: PathOrFile | None, path: PathOrFile) -> tuple[Any, Any]:
    """(offsets, lengths) from plain index file `index_path` of `path`.

    Raises:
      InvalidArgumentError: a malformed index, or one too large to be `path`'s.
    """
    problem = oversized_index(path, index_path, compressed=False)
    if problem is not None:
        raise errors.InvalidArgumentError(f"{os.fsdecode(os.fspath(index_path))}: {problem}")
    return _pywrap.ReadRecordIndex(index_path)


def checked_default_index(path: PathOrFile, index_path: PathOrFile | bool | None = False) -> Any:
    """(offsets, lengths) from path's index file (at `index_path` when the caller looked for
    it, see existing_index_path), or None when there is none or it no longer describes the
    file (logged as a warning: the caller scans the file instead)."""
    if index_path is False:
        index_path = existing_index_path(path)
    if index_path is None:
        return None
    try:
        offsets, lengths = read_index(index_path, path)
    except errors.InvalidArgumentError as e:  # malformed: as useless as a stale one
        log.warning("ignoring %s: %s (rebuild it with swigflow index)", index_path, e.message)
        return None
    problem = index_mismatch(path, offsets, lengths)
    if problem is not None:
        log.warning("ignoring %s: %s (rebuild it with swigflow index)", index_path, problem)
        return None
    return offsets, lengths


class TFRecordFile(collections.abc.Sequence[bytes]):
    """Random access to the records of a TFRecord file, uncompressed or GZIP/ZLIB.

    ::

        records = swigflow.io.TFRecordFile("train.tfrecord")
        len(records), records[0], records[-1], records[10:20]
        gz = swigflow.io.TFRecordFile("train.tfrecord.gz", options="GZIP")

    Uses the index file (``index_path``, or ``DIR/.NAME.idx``, else ``NAME.idx``, when it
    exists and still describes the file: see :func:`index_mismatch`; a stale one is ignored
    with a warning) and otherwise
    scans the file once. A compressed file's index is a seek index (:func:`create_index`): a
    record is inflated from the seek point before it, never from the start of the file; without
    an index file one is built in memory (one pass). Every record read is checked against its
    CRC and its index entry. Reads use ``pread`` without the GIL: threads may share one
    TFRecordFile.

    Args:
      path: the TFRecord file.
      index_path: an index file to use; by default the file's own (existing_index_path).
      options: a compression type or :class:`TFRecordOptions`, as ``compression_type``.
      compression_type: ``"GZIP"``, ``"ZLIB"`` or ``""`` (none), the name TFRecordDataset,
        TFRecordDataSource and create_index use. Neither given: the compression the file's
        own seek index records, else none.

    Raises:
      NotFoundError: no such file (or no such explicit index file).
      InvalidArgumentError: a malformed index file, or a seek index for another compression.
      DataLossError: damaged framing or compressed data while scanning, or an explicit
        index_path that does not describe the file.
    """

    def __init__(
        self,
        path: PathOrFile,
        index_path: PathOrFile | None = None,
        options: TFRecordOptions | str | int | None = None,
        compression_type: str | None = None,
    ) -> None:
        compression = TFRecordOptions.get_compression_type_string(options)
        if compression_type is not None:
            named = TFRecordOptions.get_compression_type_string(compression_type)
            if options is not None and named != compression:
                raise ValueError(
                    f"compression_type={compression_type!r} and options={options!r} disagree"
                )
            compression = named
        self._path = gfile.as_path(path)
        # The file's own index, looked for once: it may tell the compression.
        own = existing_index_path(self._path) if index_path is None else None
        if options is None and compression_type is None and index_path is None:
            compression = indexed_compression(self._path, own) or ""
        self._compression = compression
        self._seek_index = None
        if compression:
            self._open_compressed(index_path, own)
            index_path = self._index_path
        else:
            self._file = _pywrap.PyRecordFile.Open(self._path)
            self._read_at = _pywrap.method(self._file, "Read")
            if index_path is not None:  # asked for: it must describe the file
                self._offsets, self._lengths = read_index(index_path, self._path)
                problem = index_mismatch(self._path, self._offsets, self._lengths)
                if problem is not None:
                    raise errors.DataLossError(
                        f"index {os.fsdecode(os.fspath(index_path))} is stale: {problem}"
                    )
            else:
                index_path = own
                found = checked_default_index(self._path, index_path)
                if found is not None:
                    self._offsets, self._lengths = found
                else:
                    index_path = None
                    self._offsets, self._lengths = scan_records(self._path)
        self._index_path = None if index_path is None else os.fsdecode(os.fspath(index_path))
        self._offsets.flags.writeable = False
        self._lengths.flags.writeable = False

    def _open_compressed(self, index_path, own):
        if index_path is not None:  # asked for: it must describe the file
            index = read_seek_index(index_path, self._path)
            try:
                opened = open_seekable(self._path, index, index_path, self._compression)
            except errors.FailedPreconditionError as e:
                raise errors.DataLossError(
                    f"index {os.fsdecode(os.fspath(index_path))} is stale: {e.message}"
                ) from None
        else:
            index_path = own
            index = checked_default_seek_index(self._path, self._compression, index_path)
            if index is None:
                index_path = None
                index = build_seek_index(self._path, self._compression)
            opened = open_seekable(self._path, index, index_path or self._path, self._compression)
        self._file, self._offsets, self._lengths = opened
        self._read_at = _pywrap.method(self._file, "Read")
        self._seek_index = index
        self._index_path = index_path

    def __len__(self) -> int:
        return len(self._offsets)

    def __getitem__(self, key: str) -> Any:
        if isinstance(key, slice):
            return [self._read(i) for i in range(*key.indices(len(self)))]
        i = operator.index(key)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"record {key} out of range for {n} records in {self._path}")
        return self._read(i)

    def _read(self, i):
        return self._read_at(int(self._offsets[i]), int(self._lengths[i]))

    def __iter__(self) -> Iterator[bytes]:
        # In file order a sequential reader is faster than one pread per record.
        with TFRecordReader(self._path, self._compression) as reader:
            yield from itertools.islice(reader, len(self))

    @property
    def offsets(self) -> np.ndarray:
        """Each record's byte offset (read-only int64 array), in the uncompressed data for a
        compressed file."""
        return self._offsets

    @property
    def lengths(self) -> np.ndarray:
        """Each record's framed length, payload + 16 (read-only int64 array)."""
        return self._lengths

    @property
    def path(self) -> str:
        return self._path

    @property
    def index_path(self) -> str | None:
        """The index file used, or None when the file was scanned."""
        return self._index_path

    @property
    def compression_type(self) -> str:
        """ "", "ZLIB" or "GZIP"."""
        return self._compression

    @property
    def seek_index(self) -> Any:
        """A compressed file's seek index, as the bytes of its index file (what
        :func:`create_index` writes); None for an uncompressed file."""
        return self._seek_index

    def close(self) -> None:
        """Releases the file; later reads raise FailedPreconditionError."""
        self._file = ClosedHandle("TFRecordFile", self._path)
        self._read_at = self._file.Read

    def __enter__(self) -> TFRecordFile:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<TFRecordFile {self._path!r}: {len(self)} records>"
