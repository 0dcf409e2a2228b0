"""Index files and random access to TFRecord files.

The index format is the one DALI and the ``tfrecord`` package use: a text line
``"<offset> <length>\\n"`` per record, where ``length`` counts the whole framed record (payload
plus 16 bytes). Indexes address uncompressed files.
"""

import collections.abc
import itertools
import operator
import os

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io.tf_record import TFRecordOptions, TFRecordReader, _Closed

INDEX_SUFFIX = ".idx"


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


class TFRecordFile(collections.abc.Sequence):
    """Random access to the records of an uncompressed TFRecord file.

    ::

        records = swigflow.io.TFRecordFile("train.tfrecord")
        len(records), records[0], records[-1], records[10:20]

    Uses the index file (``index_path``, or ``path + ".idx"`` when it exists) and otherwise scans
    the file's framing once. Every record read is checked against its CRC and its index entry.
    Reads use ``pread`` without the GIL: threads may share one TFRecordFile.

    Args:
      path: the TFRecord file (uncompressed).
      index_path: an index file to use; by default ``path + ".idx"`` if it exists.
      options: only uncompressed options are accepted; given for symmetry with the readers.

    Raises:
      NotFoundError: no such file (or no such explicit index file).
      InvalidArgumentError: a malformed index file, or compressed ``options``.
      DataLossError: damaged framing while scanning, or an index that does not fit the file.
    """

    def __init__(self, path, index_path=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        if compression:
            raise errors.InvalidArgumentError(
                f"TFRecordFile needs an uncompressed file; {os.fsdecode(os.fspath(path))} is "
                f"read as {compression} (use TFRecordReader or tf_record_iterator)"
            )
        self._path = os.fsdecode(os.fspath(path))
        self._file = _pywrap.PyRecordFile.Open(path)
        if index_path is None and os.path.exists(default_index_path(path)):
            index_path = default_index_path(path)
        if index_path is None:
            self._offsets, self._lengths = _pywrap.ScanRecordIndex(path)
        else:
            self._offsets, self._lengths = _pywrap.ReadRecordIndex(index_path)
            size = os.path.getsize(path)
            if len(self._offsets) and self._offsets[-1] + self._lengths[-1] > size:
                raise errors.DataLossError(
                    f"index {os.fsdecode(os.fspath(index_path))} describes "
                    f"{self._offsets[-1] + self._lengths[-1]} bytes but {self._path} has {size}"
                )
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
        self._file = _Closed("TFRecordFile", self._path)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<TFRecordFile {self._path!r}: {len(self)} records>"
