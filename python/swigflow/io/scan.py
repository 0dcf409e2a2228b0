"""Reading what is left of damaged TFRecord files: every intact record, and where the damage is.

TFRecordReader stops at the first damage, as TensorFlow does. TFRecordScanner goes on past it,
which is what ``swigflow verify`` and ``swigflow repair`` need.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator

from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile
from swigflow.io.gfile import PathOrFile
from swigflow.io.tf_record import TFRecordOptions, native_options


class RecordDamage(typing.NamedTuple):
    """One damaged stretch of a TFRecord file.

    Attributes:
      path: the file.
      record: intact records before the damage: the record number the damage has.
      offset: where the damaged bytes start (in decompressed bytes for ZLIB/GZIP files).
      resume: where intact records start again (the end of the data if they never do).
      kind: ``"length CRC mismatch"``, ``"data CRC mismatch"``, ``"truncated record"`` or
        ``"damaged compressed stream"``.
      message: the error TFRecordReader raises there.

    Args:
        path: the file.
        record: the record number the damage has.
        offset: where the damaged bytes start.
        resume: where intact records start again.
        kind: the kind of damage.
        message: the error TFRecordReader raises there.
    """

    path: str
    record: int
    offset: int
    resume: int
    kind: str
    message: str


class TFRecordScanner:
    """Iterates over the intact records of a possibly damaged TFRecord file.

    Yields ``(offset, payload)`` pairs (``payload`` is None with ``payloads=False``, which only
    checks the CRCs). Damage does not raise: it is collected in :attr:`damages`, complete once
    the iteration ends. A bad payload CRC skips that record; after a bad length CRC the scanner
    looks for the next offset where a whole record checks out; a record cut short by the end of
    the file, or damaged compressed data, ends the scan. Reading runs without the GIL.

    Raises:
      NotFoundError: no such file (and other errors reading the file itself).

    Args:
        path: a local path (str, bytes or os.PathLike) or scheme:// URL.
        options: a TFRecordOptions, a compression type ("", "ZLIB", "GZIP") or None.
        payloads: yield the payloads; False only checks the CRCs.
    """

    _BATCH = 1024

    def __init__(
        self,
        path: PathOrFile,
        options: TFRecordOptions | str | int | None = None,
        payloads: bool = True,
    ) -> None:
        self._path = gfile.as_path(path)
        self._scanner = _pywrap.PyRecordScanner.Open(self._path, native_options(options))
        self._payloads = bool(payloads)
        self.damages = []
        self.records = 0  # intact records yielded so far

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        read = _pywrap.method(self._scanner, "ReadBatch")
        damages = _pywrap.method(self._scanner, "TakeDamages")
        while True:
            batch = read(self._BATCH, self._payloads)
            self.damages.extend(
                RecordDamage(self._path, record, offset, resume, kind, message)
                for kind, offset, resume, record, message in damages()
            )
            if not batch:
                return
            self.records += len(batch)
            yield from batch

    @property
    def path(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"<TFRecordScanner {self._path!r}>"
