"""Index files and random access to TFRecord files.

The index format is the one DALI and the ``tfrecord`` package use: a text line
``"<offset> <length>\\n"`` per record, where ``length`` counts the whole framed record (payload
plus 16 bytes). Indexes address uncompressed files.
"""

import collections.abc
import itertools
import logging
import operator
import os
import re

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile
from swigflow.io.tf_record import ClosedHandle, TFRecordOptions, TFRecordReader

INDEX_SUFFIX = ".idx"
# Bytes of framing around each payload: length, its CRC, and the payload CRC
# (record_format.h's kFramingSize). An index stores payload + FRAMING_BYTES per record.
FRAMING_BYTES = 16

log = logging.getLogger("swigflow.io")


_INDEX_START = re.compile(rb"\d+ \d+\n")


def is_index_file(path):
    """Whether ``path`` is an index file: named ``*.idx`` and empty or starting with an
    ``"<offset> <length>"`` line (no TFRecord file starts so: its first 8 bytes are a binary
    length whose CRC follows). A glob such as ``OUT/train-*`` catches them beside the shards."""
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
    return not head or _INDEX_START.match(head) is not None


def without_index_files(paths):
    """``paths`` less the index files among them, each skipped with a note on the
    "swigflow.io" logger."""
    kept = []
    for path in paths:
        if is_index_file(path):
            log.warning("skipping %s: an index file, not a TFRecord file", os.fsdecode(path))
        else:
            kept.append(path)
    return kept


def default_index_path(path):
    """Where :func:`create_index` puts the index of ``path`` by default: ``path + ".idx"``."""
    return os.fsdecode(os.fspath(path)) + INDEX_SUFFIX


def create_index(path, index_path=None):
    """Writes the index file of an uncompressed TFRecord file.

    Headers and lengths are checked while scanning; payload CRCs are checked when records are
    read.

    Args:
      path: the TFRecord file.
      index_path: where to write the index; ``path + ".idx"`` by default.

    Returns:
      The number of records indexed.

    Raises:
      NotFoundError: no such file.
      DataLossError: the framing is damaged (nothing usable is written in that case).
    """
    index_path = default_index_path(path) if index_path is None else index_path
    offsets, _ = _pywrap.CreateIndexFile(path, index_path)
    return len(offsets)


def write_index(index_path, offsets, lengths):
    """Writes an index file from each record's offset and framed length (payload + 16), for a
    writer that knows them (so the file need not be read again).

    Raises:
      ValueError: offsets and lengths differ in length.
    """
    _pywrap.WriteRecordIndex(os.fsdecode(os.fspath(index_path)), (offsets, lengths))


def index_mismatch(path, offsets, lengths):
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


def checked_default_index(path):
    """(offsets, lengths) from path's default index file, or None when there is none or it no
    longer describes the file (logged as a warning: the caller scans the file instead)."""
    if gfile.names_file_object(path):
        return None
    index_path = default_index_path(path)
    if not gfile.exists(index_path):
        return None
    try:
        offsets, lengths = _pywrap.ReadRecordIndex(index_path)
    except errors.InvalidArgumentError as e:  # malformed: as useless as a stale one
        log.warning("ignoring %s: %s (rebuild it with swigflow index)", index_path, e.message)
        return None
    problem = index_mismatch(path, offsets, lengths)
    if problem is not None:
        log.warning("ignoring %s: %s (rebuild it with swigflow index)", index_path, problem)
        return None
    return offsets, lengths


class TFRecordFile(collections.abc.Sequence):
    """Random access to the records of an uncompressed TFRecord file.

    ::

        records = swigflow.io.TFRecordFile("train.tfrecord")
        len(records), records[0], records[-1], records[10:20]

    Uses the index file (``index_path``, or ``path + ".idx"`` when it exists and still describes
    the file: see :func:`index_mismatch`; a stale one is ignored with a warning) and otherwise
    scans the file's framing once. Every record read is checked against its CRC and its index entry.
    Reads use ``pread`` without the GIL: threads may share one TFRecordFile.

    Args:
      path: the TFRecord file (uncompressed).
      index_path: an index file to use; by default ``path + ".idx"`` if it exists.
      options: only uncompressed options are accepted; given for symmetry with the readers.

    Raises:
      NotFoundError: no such file (or no such explicit index file).
      InvalidArgumentError: a malformed index file, or compressed ``options``.
      DataLossError: damaged framing while scanning, or an explicit index_path that does not
        describe the file.
    """

    def __init__(self, path, index_path=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        self._path = gfile.as_path(path)
        if compression:
            raise errors.InvalidArgumentError(
                f"TFRecordFile needs an uncompressed file; {self._path} is "
                f"read as {compression} (use TFRecordReader or tf_record_iterator)"
            )
        self._file = _pywrap.PyRecordFile.Open(self._path)
        if index_path is not None:  # asked for: it must describe the file
            self._offsets, self._lengths = _pywrap.ReadRecordIndex(index_path)
            problem = index_mismatch(self._path, self._offsets, self._lengths)
            if problem is not None:
                raise errors.DataLossError(
                    f"index {os.fsdecode(os.fspath(index_path))} is stale: {problem}"
                )
        else:
            found = checked_default_index(self._path)
            if found is not None:
                index_path = default_index_path(self._path)
                self._offsets, self._lengths = found
            else:
                self._offsets, self._lengths = _pywrap.ScanRecordIndex(self._path)
        self._index_path = None if index_path is None else os.fsdecode(os.fspath(index_path))
        self._offsets.flags.writeable = False
        self._lengths.flags.writeable = False

    def __len__(self):
        return len(self._offsets)

    def __getitem__(self, key):
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
        return self._file.Read(int(self._offsets[i]), int(self._lengths[i]))

    def __iter__(self):
        # In file order a sequential reader is faster than one pread per record.
        with TFRecordReader(self._path) as reader:
            yield from itertools.islice(reader, len(self))

    @property
    def offsets(self):
        """Each record's byte offset (read-only int64 array)."""
        return self._offsets

    @property
    def lengths(self):
        """Each record's framed length, payload + 16 (read-only int64 array)."""
        return self._lengths

    @property
    def path(self):
        return self._path

    @property
    def index_path(self):
        """The index file used, or None when the file was scanned."""
        return self._index_path

    def close(self):
        """Releases the file; later reads raise FailedPreconditionError."""
        self._file = ClosedHandle("TFRecordFile", self._path)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<TFRecordFile {self._path!r}: {len(self)} records>"
