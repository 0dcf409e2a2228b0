"""TFRecord files: options, writer and sequential readers, named like ``tf.io``."""

from __future__ import annotations

import collections
import os
import types
import zlib
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import numpy as np
from google.protobuf import message

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile
from swigflow.io.gfile import PathOrFile

# Readers hand out a fresh bytes object per record. glibc returns freed heap memory to the system
# so eagerly that reading 100 KiB records then page-faults on every one (twice the cost of the
# read itself), so the process keeps up to this much freed memory instead (native/framework/
# memory.h). SWIGFLOW_RETAIN_FREED_MEMORY=0, or any MALLOC_*_ tuning of your own, leaves the
# allocator as it is.
RETAINED_FREED_MEMORY = 64 << 20
_MALLOC_ENV = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_")
if os.environ.get("SWIGFLOW_RETAIN_FREED_MEMORY", "1") != "0" and not any(
    name in os.environ for name in _MALLOC_ENV
):
    _pywrap.RetainFreedMemory(RETAINED_FREED_MEMORY)

# Records fetched per native call when iterating: enough to make the call overhead negligible,
# small enough to keep memory flat.
_ITER_RECORDS = 1024
_ITER_BYTES = 4 << 20


class TFRecordCompressionType:
    """Compression of a TFRecord file, as ``tf.compat.v1.io.TFRecordCompressionType``."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {
    None: "",
    "": "",
    "ZLIB": "ZLIB",
    "GZIP": "GZIP",
    TFRecordCompressionType.NONE: "",
    TFRecordCompressionType.ZLIB: "ZLIB",
    TFRecordCompressionType.GZIP: "GZIP",
}
_COMPRESSION = {
    "": _pywrap.Compression_kNone,
    "ZLIB": _pywrap.Compression_kZlib,
    "GZIP": _pywrap.Compression_kGzip,
}


def compression_name(compression_type: str | int | None) -> str:
    # Only None, str and int: True and 1.0 compare equal to 1 (ZLIB) but mean nothing here.
    if not isinstance(compression_type, (type(None), str, int)) or isinstance(
        compression_type, bool
    ):
        compression_type = object()
    try:
        return _NAMES[compression_type]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown compression type {compression_type!r}: expected None, '', 'ZLIB' or "
            "'GZIP' (TensorFlow would silently read such a file as uncompressed)"
        ) from None


# The file name suffix swigflow's writers give each compression, and the suffixes readers take
# as naming one (".zz" was the Ray sink's for ZLIB before this table; still read).
COMPRESSION_SUFFIXES = types.MappingProxyType({"": "", "GZIP": ".gz", "ZLIB": ".zlib"})
_NAMED_BY = (("GZIP", (".gz", ".gzip")), ("ZLIB", (".zlib", ".zz")))


def compression_from_name(path: PathOrFile) -> str:
    """ "GZIP" or "ZLIB" when ``path``'s name ends in one of their suffixes, else None."""
    name = os.fsdecode(os.fspath(path)).lower()
    for compression, suffixes in _NAMED_BY:
        if name.endswith(suffixes):
            return compression
    return None


# A seek block size that balances random reads against compression (TFRecordOptions), and the
# largest one.
SEEK_BLOCK_SIZE = 64 << 10
MAX_SEEK_BLOCK_SIZE = 1 << 40


def _check_int(name, value, low, high):
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value}")


class TFRecordOptions:
    """How a TFRecord file is compressed, as ``tf.io.TFRecordOptions``.

    Args:
      compression_type: ``None`` or ``""`` (uncompressed), ``"ZLIB"`` or ``"GZIP"`` (the whole
        file is one compressed stream), or a :class:`TFRecordCompressionType` value.
      flush_mode: zlib flush after each record (``zlib.Z_NO_FLUSH`` by default;
        ``Z_PARTIAL_FLUSH``, ``Z_SYNC_FLUSH`` or ``Z_FULL_FLUSH``).
      input_buffer_size: bytes of compressed input read at a time (default 256 KiB).
      output_buffer_size: bytes of compressed output buffered before writing (default 256 KiB).
      window_bits: zlib window, 8..15 (default 15).
      compression_level: -1 (zlib's default, 6) or 0..9.
      compression_method: only ``zlib.DEFLATED``.
      mem_level: zlib memory level, 1..9 (default 9, TensorFlow's).
      compression_strategy: ``zlib.Z_DEFAULT_STRATEGY`` .. ``zlib.Z_FIXED``.
      seek_block_size: GZIP only, a swigflow extension: write the file as a chain of
        independent GZIP members, each ending at the first record boundary after this many
        uncompressed bytes (the idea of BGZF). TensorFlow and every GZIP reader read it as one
        stream; with its seek index (:func:`swigflow.io.create_index`) a random read inflates
        one member at most. Smaller blocks read faster at random and compress a little worse
        (``SEEK_BLOCK_SIZE``, 64 KiB, is a balance). None: one stream, as TensorFlow writes.

    Raises:
      ValueError: an unknown compression type (TensorFlow ignores it) or a value out of range.
    """

    compression_type_map: types.MappingProxyType[int, str] = types.MappingProxyType(
        {
            TFRecordCompressionType.ZLIB: "ZLIB",
            TFRecordCompressionType.GZIP: "GZIP",
            TFRecordCompressionType.NONE: "",
        }
    )

    def __init__(
        self,
        compression_type: str | int | None = None,
        flush_mode: int | None = None,
        input_buffer_size: int | None = None,
        output_buffer_size: int | None = None,
        window_bits: int | None = None,
        compression_level: int | None = None,
        compression_method: int | None = None,
        mem_level: int | None = None,
        compression_strategy: int | None = None,
        seek_block_size: int | None = None,
    ) -> None:
        if isinstance(compression_type, TFRecordOptions):  # as TensorFlow: its type only
            compression_type = compression_type.compression_type
        self.compression_type: str = compression_name(compression_type)
        _check_int("flush_mode", flush_mode, zlib.Z_NO_FLUSH, zlib.Z_FULL_FLUSH)
        _check_int("input_buffer_size", input_buffer_size, 1, 1 << 30)
        _check_int("output_buffer_size", output_buffer_size, 64, 1 << 30)
        _check_int("window_bits", window_bits, 8, 15)
        _check_int("compression_level", compression_level, -1, 9)
        _check_int("compression_method", compression_method, zlib.DEFLATED, zlib.DEFLATED)
        _check_int("mem_level", mem_level, 1, 9)
        _check_int("compression_strategy", compression_strategy, 0, zlib.Z_FIXED)
        _check_int("seek_block_size", seek_block_size, 1, MAX_SEEK_BLOCK_SIZE)
        if seek_block_size is not None and self.compression_type != "GZIP":
            raise ValueError(
                "seek_block_size needs compression_type='GZIP' (members are GZIP's; a ZLIB "
                "stream has none)"
            )
        self.flush_mode: int | None = flush_mode
        self.input_buffer_size: int | None = input_buffer_size
        self.output_buffer_size: int | None = output_buffer_size
        self.window_bits: int | None = window_bits
        self.compression_level: int | None = compression_level
        self.compression_method: int | None = compression_method
        self.mem_level: int | None = mem_level
        self.compression_strategy: int | None = compression_strategy
        self.seek_block_size: int | None = seek_block_size

    @classmethod
    def get_compression_type_string(cls, options: TFRecordOptions | str | int | None) -> str:
        """``""``, ``"ZLIB"`` or ``"GZIP"`` for options, a compression type, or ``None``.

        Args:
            options: a TFRecordOptions, a compression type, or None.

        Returns:
            "", "ZLIB" or "GZIP".

        Raises:
            ValueError: an unknown compression type.
        """
        if isinstance(options, cls):
            return options.compression_type
        return compression_name(options)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v is not None and v != "")
        return f"TFRecordOptions({fields})"


def record_bytes(record: Any) -> Any:
    """``record`` as the payload of a TFRecord, for the parsers' slow path: a protobuf message
    (an Example, ...) serialized deterministically, as TFRecordWriter.write serializes one (map
    keys sorted, so equal messages give equal bytes), a str as its UTF-8 bytes (a tf.string
    value), anything else as it is."""
    if isinstance(record, message.Message):
        return record.SerializeToString(deterministic=True)
    if isinstance(record, str):
        return record.encode()
    return record


def as_options(options: TFRecordOptions | str | int | None) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(compression_type=options)


# TFRecordOptions' fields and the swigflow::io::ZlibOptions fields they set; a field left at
# None keeps the C++ default (TensorFlow's).
_ZLIB_FIELDS = {
    "compression_level": "compression_level",
    "window_bits": "window_bits",
    "mem_level": "mem_level",
    "compression_strategy": "strategy",
    "flush_mode": "flush_mode",
    "input_buffer_size": "input_buffer_size",
    "output_buffer_size": "output_buffer_size",
    "seek_block_size": "seek_block_size",
}


def native_options(options: TFRecordOptions | str | int | None) -> Any:
    """The swigflow::io::RecordOptions of TFRecordOptions or a compression type."""
    options = as_options(options)
    native = _pywrap.RecordOptions()
    native.compression = _COMPRESSION[options.compression_type]
    for field, native_field in _ZLIB_FIELDS.items():
        value = getattr(options, field)
        if value is not None:
            setattr(native.zlib, native_field, value)
    return native


class TFRecordWriter:
    """Writes records to a TFRecord file, as ``tf.io.TFRecordWriter``.

    ::

        with swigflow.io.TFRecordWriter("data.tfrecord", "GZIP") as writer:
            writer.write(example.SerializeToString())

    After :meth:`close`, or when a ``with`` block is left normally, the file holds exactly the
    records written, each whole. A ``with`` block left by an exception calls :meth:`abort`
    instead: a URL's file then never appears (a local file keeps the records written).
    Uncompressed output is byte-identical to TensorFlow's. Writing happens without the GIL;
    threads may share one writer (records never interleave).

    Args:
      path: the file to create or truncate: a path or URL (str, bytes or os.PathLike; see
        :mod:`swigflow.io.gfile`), or an open binary file object to write into.
      options: a :class:`TFRecordOptions` or a compression type (``"GZIP"``, ...).

    Raises:
      NotFoundError, PermissionDeniedError, ...: the file cannot be created.
    """

    def __init__(
        self, path: PathOrFile, options: TFRecordOptions | str | int | None = None
    ) -> None:
        native = native_options(options)
        self._path = gfile.as_path(path)
        self._writer = _pywrap.RecordWriter.Create(self._path, native)
        # One native call per record: the bound method replaces the documented one below.
        self.write = _pywrap.method(self._writer, "WriteRecord")

    def write(self, record: Any) -> None:
        """Appends ``record``: bytes or any bytes-like object (bytearray, memoryview, ...), or a
        protobuf message such as a swigflow.train.Example, serialized deterministically.

        Raises:
          TypeError: ``record`` is neither (e.g. a ``str``: encode it first).
          FailedPreconditionError: the writer is closed.
          ResourceExhaustedError, ...: the write failed (a full disk). The writer is then
            failed: every later write, flush and close raises that error again, since the
            file may end in a partial record.

        Args:
            record: bytes, a bytes-like object, or a protobuf message.
        """
        self._writer.WriteRecord(record)

    def flush(self) -> None:
        """Makes every record written so far readable by other readers of the file."""
        self._writer.Flush()

    def close(self) -> None:
        """Flushes and closes the file. Closing again does nothing. Raises if any write,
        flush or the close itself failed: the file is then incomplete."""
        if not self._writer.closed():
            self._writer.Close()

    def abort(self) -> None:
        """Closes without completing the file, for a job that failed part way: a file written
        to a URL is discarded (an earlier file of that name stays as it was); a local file keeps
        the records written. Aborting a closed writer does nothing."""
        self._writer.Abort()

    @property
    def path(self) -> str:
        return self._path

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def __repr__(self) -> str:
        state = "closed" if self._writer.closed() else "open"
        return f"<TFRecordWriter {self._path!r} ({state})>"


class ClosedHandle:
    """Stands in for a native object after close(): every use raises FailedPreconditionError."""

    def __init__(self, owner: str, path: PathOrFile) -> None:
        self._message = f"{owner} for {path} is closed"

    def __getattr__(self, name: str) -> Callable[..., NoReturn]:
        def closed(*args: Any) -> NoReturn:
            raise errors.FailedPreconditionError(self._message)

        return closed


class RecordBuffer:
    """Records read without a copy each (``TFRecordReader.read_batch(copy=False)``).

    Attributes:
      data: a read-only uint8 array holding every payload back to back.
      ends: int64 boundaries, ``len(self) + 1`` of them: record i is
        ``data[ends[i]:ends[i + 1]]``.

    ``buffer[i]`` is that record as a memoryview (no copy); ``len()`` counts records, and an
    empty buffer (the end of the file) is false.

    Args:
        data: the payloads back to back (a uint8 array).
        ends: the int64 boundaries.
    """

    __slots__ = ("data", "ends")

    def __init__(self, data: np.ndarray, ends: np.ndarray) -> None:
        self.data: np.ndarray = data
        self.ends: np.ndarray = ends

    def __len__(self) -> int:
        return len(self.ends) - 1

    def __getitem__(self, i: int) -> memoryview:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"record {i} out of range for {n} records")
        i %= n
        return memoryview(self.data[self.ends[i] : self.ends[i + 1]])

    def __iter__(self) -> Iterator[memoryview]:
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return f"<RecordBuffer: {len(self)} records, {len(self.data)} bytes>"


class TFRecordReader:
    """Reads the records of one TFRecord file in order, a batch at a time or one by one.

    Iterating yields each record as ``bytes``. :meth:`read_batch` returns many records from a
    single native call: the fast path for pipelines. Reading and CRC checks happen without the
    GIL, so threads reading different files run in parallel.

    Damage raises :class:`~swigflow.errors.DataLossError` ("corrupted record at N in PATH ...",
    "truncated record at N in PATH ...") after the records before it were returned, as
    TensorFlow does; a header cut short at the very end of the file ends the data quietly, as
    in TensorFlow.

    Args:
      path: the file: a path or URL (str, bytes or os.PathLike; see :mod:`swigflow.io.gfile`),
        or an open binary file object.
      options: a :class:`TFRecordOptions` or a compression type (``"GZIP"``, ...).
      offset: where to start; must be where a record starts (see :attr:`offset`).
    """

    def __init__(
        self, path: PathOrFile, options: TFRecordOptions | str | int | None = None, offset: int = 0
    ) -> None:
        native = native_options(options)
        self._path = gfile.as_path(path)
        self._reader = _pywrap.PyRecordReader.Open(self._path, native)
        if offset:
            self.seek(offset)

    def read_batch(
        self, max_records: int = 1024, max_bytes: int = 16 << 20, copy: bool = True
    ) -> list[bytes] | RecordBuffer:
        """Up to ``max_records`` records (fewer once ``max_bytes`` of payload are read, never
        zero while records remain).

        With ``copy=True``, a list of bytes, ``[]`` at the end of the file. With
        ``copy=False``, a :class:`RecordBuffer`: the payloads back to back in one read-only
        numpy array, without a bytes object each (an empty buffer at the end). Its memory is
        reused by a later call only once nothing refers to it any more, so it stays valid for
        as long as you hold it (or a view of it).

        Args:
            max_records: the most records to read.
            max_bytes: stop once this many payload bytes are read.
            copy: bytes per record (True) or one RecordBuffer (False).

        Returns:
            A list of bytes, or a RecordBuffer.

        Raises:
            DataLossError: damaged data, after the records before it were returned.
        """
        if max_records < 1 or max_bytes < 1:
            raise ValueError("max_records and max_bytes must be positive")
        if copy:
            return self._reader.ReadBatch(max_records, max_bytes)
        view = self._reader.ReadBatchView(max_records, max_bytes)
        if view is None:
            return RecordBuffer(np.empty(0, np.uint8), np.zeros(1, np.int64))
        return RecordBuffer(*view)

    def __iter__(self) -> Iterator[bytes]:
        read = _pywrap.method(self._reader, "ReadBatch")
        while True:
            batch = read(_ITER_RECORDS, _ITER_BYTES)
            if not batch:
                return
            yield from batch

    def seek(self, offset: int) -> None:
        """Continues at ``offset``, which must be where a record starts. In ZLIB/GZIP files
        offsets count decompressed bytes, and seeking backwards decompresses from the start.

        Args:
            offset: where a record starts.

        Raises:
            DataLossError: no record starts there (at the next read).
        """
        self._reader.Seek(offset)

    @property
    def offset(self) -> int:
        """Where the next record starts (after the last record returned)."""
        return self._reader.Offset()

    @property
    def path(self) -> str:
        return self._path

    def close(self) -> None:
        """Releases the file; later reads raise FailedPreconditionError."""
        self._reader = ClosedHandle("TFRecordReader", self._path)

    def __enter__(self) -> TFRecordReader:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<TFRecordReader {self._path!r}>"


def tf_record_iterator(
    path: PathOrFile, options: TFRecordOptions | str | int | None = None
) -> Iterator[bytes]:
    """Yields the records of a TFRecord file as bytes, as ``tf.compat.v1.io.tf_record_iterator``.

    As TensorFlow's, the iterator can be used to follow a file that is still being written
    (TensorBoard-style): after StopIteration, next() returns records appended since; after a
    DataLossError for a record cut short, next() tries that record again.

    Raises:
      NotFoundError: no such file.
      DataLossError: damaged data, after the records before the damage were yielded.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
        options: a TFRecordOptions, a compression type ("", "ZLIB", "GZIP") or None.
    """
    return _RecordIterator(path, options)


class _RecordIterator:
    """tf_record_iterator's iterator, which can go on where TensorFlow's can: after the end
    (StopIteration), a later next() returns records appended to the file since; after a
    truncated or damaged record (DataLossError), a later next() reads that record again, so it
    is returned once a writer has finished it (or raises again)."""

    def __init__(self, path, options):
        self._reader = TFRecordReader(path, options)
        self._records = collections.deque()
        self._retry = False  # the last read ended (end of data or damage): seek back first

    def __iter__(self):
        return self

    def __next__(self):
        if not self._records:
            reader = self._reader
            if self._retry:
                reader.seek(reader.offset)  # clears the sticky end or error
                self._retry = False
            try:
                self._records.extend(reader.read_batch(_ITER_RECORDS, _ITER_BYTES))
            except errors.DataLossError:
                self._retry = True
                raise
            if not self._records:
                self._retry = True
                raise StopIteration
        return self._records.popleft()

    def close(self):
        self._reader.close()


class TFRecordRandomReader:
    """Reads single records at given offsets, as ``tf.compat.v1.io.tf_record_random_reader``.

    ``read(offset)`` returns ``(record, next_offset)``; offsets are where records start (0, then
    each ``next_offset``). In ZLIB/GZIP files offsets count decompressed bytes, and reading
    before the previous offset decompresses from the start.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
        options: a TFRecordOptions, a compression type ("", "ZLIB", "GZIP") or None.

    Raises:
        NotFoundError: no such file.
    """

    def __init__(
        self, path: PathOrFile, options: TFRecordOptions | str | int | None = None
    ) -> None:
        self._reader = TFRecordReader(path, options)

    def read(self, offset: int) -> tuple[bytes, int]:
        """(the record at ``offset``, the offset of the next record).

        Raises:
          IndexError: ``offset`` is the end of the file (or past it).
          DataLossError: no intact record starts at ``offset``.
          FailedPreconditionError: the reader is closed.

        Args:
            offset: where a record starts.

        Returns:
            (record bytes, next offset).
        """
        reader = self._reader
        reader.seek(offset)
        records = reader.read_batch(1)
        if not records:
            raise IndexError(f"Out of range at reading offset {offset} of {reader.path!r}")
        return records[0], reader.offset

    def close(self) -> None:
        """Releases the file; later reads raise FailedPreconditionError."""
        self._reader.close()

    def __enter__(self) -> TFRecordRandomReader:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<TFRecordRandomReader {self._reader.path!r}>"


def tf_record_random_reader(
    path: PathOrFile, options: TFRecordOptions | str | int | None = None
) -> TFRecordRandomReader:
    """A :class:`TFRecordRandomReader` over ``path``, as TensorFlow's function of that name.

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
        options: a TFRecordOptions, a compression type ("", "ZLIB", "GZIP") or None.

    Returns:
        A TFRecordRandomReader.
    """
    return TFRecordRandomReader(path, options)
