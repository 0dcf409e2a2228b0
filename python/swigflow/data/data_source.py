"""TFRecordDataSource: random access by index over the records of many TFRecord files.

The source that index-based loaders take: PyTorch's map-style datasets (any sampler,
``DistributedSampler`` included, and DataLoader workers), and Grain's ``RandomAccessDataSource``
(``__len__`` and ``__getitem__``). One global index numbers every record of every file in order;
a batch of reads (``__getitems__``) is one native call that reads in parallel without the GIL.
"""

from __future__ import annotations

import bisect
import operator
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import gfile, parsing
from swigflow.io.index import TFRecordFile, without_index_files
from swigflow.io.tf_record import compression_name


class TFRecordDataSource:
    """The records of `paths` by index: ``source[i]`` is record i of all files in order.

    ::

        source = swigflow.data.TFRecordDataSource(sorted(glob.glob("train-*")), spec=spec)
        len(source), source[7], source.__getitems__([3, 1, 4])
        loader = torch.utils.data.DataLoader(source, batch_size=64, num_workers=2,
                                             sampler=DistributedSampler(source))

    Args:
      paths: TFRecord files (a path, or a list of them); index files among them are skipped.
      spec: a feature spec (as for ``parse_example``): each record is returned parsed, TF-exact;
        None returns the serialized bytes.
      compression_type: None or "" (uncompressed), "GZIP" or "ZLIB". A compressed file is read
        through its seek index (``swigflow index``; see :func:`swigflow.io.create_index`): a
        record is inflated from the seek point before it, at most one member of a file written
        with ``TFRecordOptions(seek_block_size=...)``.
      index_paths: an index file per path (``swigflow index``); by default ``PATH.idx`` is used
        when it still describes its file, and a file without one is scanned once (a compressed
        one inflated once, its seek index kept in memory and pickled with the source).

    Every read checks its CRCs and its index entry. The source pickles without its open files
    (a DataLoader or Grain worker reopens them on its first read), so it crosses into worker
    processes; the files must be reachable there by the same paths.
    """

    def __init__(
        self,
        paths: Any,
        spec: Any = None,
        compression_type: str | None = None,
        index_paths: Any = None,
    ) -> None:
        compression = compression_name(compression_type)
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        paths = [gfile.as_path(p) for p in paths]
        if index_paths is None:
            paths = without_index_files(paths)
            index_paths = [None] * len(paths)
        elif len(index_paths) != len(paths):
            raise ValueError(f"{len(paths)} paths but {len(index_paths)} index_paths")
        self._paths = paths
        self._spec = None if spec is None else dict(spec)
        offsets, lengths, ends = [], [], []
        self._seek_indexes = []  # per file: its seek index (bytes) when compressed
        for path, index_path in zip(paths, index_paths):
            with TFRecordFile(path, index_path, compression) as records:
                offsets.append(records.offsets)
                lengths.append(records.lengths)
                self._seek_indexes.append(records.seek_index)
            ends.append((ends[-1] if ends else 0) + len(offsets[-1]))
        empty = np.zeros(0, np.int64)
        self._offsets = np.concatenate(offsets) if offsets else empty
        self._lengths = np.concatenate(lengths) if lengths else empty
        self._file_of = np.repeat(np.arange(len(paths), dtype=np.int64), np.diff([0, *ends]))
        self._ends = ends  # record count before the end of each file
        self._files = None  # opened on the first read, in each process
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offsets)

    def __getitem__(self, index: int) -> Any:
        i = operator.index(index)
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"record {index} out of range for {n} records")
        return self._read(np.array([i % n], np.int64))[0]

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        """The records at `indices` (a list, in that order): one native call, parallel reads."""
        picks = np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(self)
        bad = (picks < -n) | (picks >= n)
        if bad.any():
            raise IndexError(f"record {int(picks[bad][0])} out of range for {n} records")
        return self._read(picks % n if n else picks)

    def _read(self, picks):
        files = self._file_of[picks]
        with self._lock:  # threads share the source: each file is added once, to its own slot
            if self._files is None:
                self._files, self._slots = _pywrap.PyRecordFiles(), np.full(len(self._paths), -1)
                self._read_many = _pywrap.method(self._files, "ReadMany")
                self._opened = 0
            for f in np.unique(files[self._slots[files] < 0]):
                seek = self._seek_indexes[f]
                if seek is None:
                    self._files.Add(self._paths[f])
                else:
                    self._files.AddSeekable(self._paths[f], seek, self._paths[f])
                self._slots[f] = self._opened
                self._opened += 1
            read_many, slots = self._read_many, self._slots[files]
        records = read_many(
            np.ascontiguousarray(slots, np.int64),
            np.ascontiguousarray(self._offsets[picks]),
            np.ascontiguousarray(self._lengths[picks]),
        )
        if self._spec is None:
            return records
        try:
            return _parsed_rows(records, self._spec)
        except errors.InvalidArgumentError:  # parsed again, each record named (errors only)
            names = [self._name(int(i)) for i in picks]
            return _parsed_rows(records, self._spec, names)

    def _name(self, index):
        path, k = self.file_and_position(index)
        return f"{path} record {k} (offset {int(self._offsets[index])})"

    def file_and_position(self, index: int) -> tuple[str, int]:
        """(path, record number within that file) of record `index`.

        Args:
            index: a record's index in the source (negative counts from the end).

        Returns:
            (path, record number within that file).
        """
        i = operator.index(index) % len(self)
        f = bisect.bisect_right(self._ends, i)
        return self._paths[f], i - (self._ends[f - 1] if f else 0)

    @property
    def paths(self) -> list[str]:
        return list(self._paths)

    @property
    def record_counts(self) -> list[int]:
        """The number of records of each file, in the order of `paths`."""
        return np.diff([0, *self._ends]).tolist()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_files"] = None  # native handles stay in their process
        for name in ("_slots", "_opened", "_lock", "_read_many"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<TFRecordDataSource: {len(self)} records in {len(self._paths)} files>"


def _parsed_rows(records, spec, names=None):
    """Each record parsed with `spec`: one batched parse, split into rows when every feature
    comes back dense; else one parse per record (sparse and ragged values keep their types).
    `names`, one per record, name them in errors."""
    if not records:
        return []
    batch = parsing.parse_example(records, spec, names)
    if all(isinstance(v, np.ndarray) for v in batch.values()):
        return [{k: v[i] for k, v in batch.items()} for i in range(len(records))]
    if names is None:
        names = [None] * len(records)
    return [parsing.parse_single_example(r, spec, n) for r, n in zip(records, names)]
