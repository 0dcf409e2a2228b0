"""cache(): the first complete pass's elements kept in memory or in a file
(swigflow.data.cache_format), and given by every later pass and iterator."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from collections.abc import Callable, Iterator
from typing import Any

from swigflow import errors, io
from swigflow.data import cache_format
from swigflow.data.checks import check_count, state_fields
from swigflow.data.elements import Failed
from swigflow.data.protocol import iterate
from swigflow.data.steps.base import UnchangedStructure
from swigflow.data.steps.slicing import Skip
from swigflow.io.gfile import PathOrFile


class FileCache:
    """One pass's elements in a file of cache_format: written to a temporary file, synced, then
    renamed to `path` only when the pass is complete (a partial pass never looks like a cache).
    A temporary file left by a killed pass on this host is removed by the next writer."""

    def __init__(self, path: PathOrFile, compression: str | None = None) -> None:
        self.path = path
        self.compression = compression  # of the TFRecord file: None, "GZIP" or "ZLIB"

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def read(self, start: int) -> Iterator[Any]:
        records = io.tf_record_iterator(self.path, self.compression)
        try:
            header = next(records, None)
        except errors.DataLossError:  # not even one intact record
            header = b""
        if header is None:
            raise errors.DataLossError(f"the cache file {self.path} is empty: it was cut")
        if header != cache_format.HEADER:
            raise errors.DataLossError(
                f"{self.path} is not a swigflow cache file of this version (an older swigflow's "
                "pickle, or another file): delete it to cache the pass again"
            )
        index = 0
        for record in records:
            count = cache_format.read_count(record, self.path)
            if count is not None:
                if count != index or next(records, None) is not None:
                    raise errors.DataLossError(
                        f"the cache file {self.path} is damaged: its trailer counts {count} "
                        f"elements, the file holds {index} before it"
                    )
                return
            if index >= start:
                yield cache_format.decode(record, self.path, index)
            index += 1
        raise errors.DataLossError(
            f"the cache file {self.path} is cut after {index} elements: its trailer is missing"
        )

    def _temporary_prefix(self):
        return f"{os.path.basename(self.path)}.tmp-{socket.gethostname()}-"

    def _remove_stale_temporaries(self, directory):
        """Temporary files of this cache whose writer (a process on this host) is gone."""
        prefix = self._temporary_prefix()
        for name in os.listdir(directory):
            if not name.startswith(prefix):
                continue
            pid = name[len(prefix) :].split("-", 1)[0]
            if not pid.isdigit():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(directory, name))
            except (PermissionError, OverflowError):
                pass  # another user's live process, or not a pid: leave it

    def writer(self) -> tuple[Callable[[Any], None], Callable[[], None]]:
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        self._remove_stale_temporaries(directory)
        temporary = os.path.join(
            directory, f"{self._temporary_prefix()}{os.getpid()}-{secrets.token_hex(4)}"
        )
        writer = io.TFRecordWriter(temporary, self.compression)
        writer.write(cache_format.HEADER)
        count = [0]

        def add(element):
            writer.write(cache_format.encode(element))
            count[0] += 1

        def finish(complete):
            try:
                if complete:
                    writer.write(cache_format.trailer(count[0]))
                writer.close()
                if complete:
                    sync(temporary)
                    os.replace(temporary, self.path)
                    sync(directory)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)

        return add, finish


def sync(path: PathOrFile) -> None:
    """fsync a file or folder, so that a rename after it never exposes unwritten data."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _MemoryCache:
    def __init__(self):
        self.elements = None

    def exists(self):
        return self.elements is not None

    def read(self, start):
        return iter(self.elements[start:])

    def writer(self):
        elements = []

        def finish(complete):
            if complete:
                self.elements = elements

        return elements.append, finish


class Cache(UnchangedStructure):
    """The first complete pass's elements, kept (in memory, or in a file) and given by every
    later pass and iterator of this dataset. A pass that stops early caches nothing; an
    element that fails is raised in that pass and not kept, so the cache holds the pass's other
    elements, as in tf.data. The state says whether the pass reads the cache, and how far it
    is."""

    def __init__(self, input_dataset: Any, filename: str, compression: str | None = None) -> None:
        super().__init__(input_dataset)
        filename = os.fspath(filename)
        self._filename = filename
        self._compression = compression
        store = FileCache(filename + ".swigflow_cache", compression) if filename else None
        self._store = store or _MemoryCache()

    def _stage_name(self):
        return "cache" if not self._filename else "cache(file)"

    def _generate(self, state, epoch):
        if state is None:
            state = {"cached": int(self._store.exists()), "index": 0, "input": None}
        start = state["index"]
        if state["cached"]:
            if self._store.exists():
                elements = self._store.read(start)
            else:  # a memory cache this process never filled: the input again, from the start
                skipped = Skip(self._input, start)
                elements = (element for element, _ in iterate(skipped, None, epoch))
            for index, element in enumerate(elements, start + 1):
                yield element, {"cached": 1, "index": index, "input": None}
            return
        index = start
        add, finish = self._store.writer() if index == 0 else (None, None)
        # With a known cardinality the cache is complete at the last element, before the
        # reader asks past it, as in tf.data: an iterator that reads every element and stops
        # there still fills it.
        total = self._input._cardinality() if finish is not None else -1
        complete = False
        try:
            for element, position in iterate(self._input, state["input"], epoch):
                index += 1
                if add is not None and type(element) is not Failed:
                    add(element)
                if finish is not None and index == total:
                    finish(True)
                    finish = None
                yield element, {"cached": 0, "index": index, "input": position}
            complete = True
        finally:
            if finish is not None:
                finish(complete)

    def _check_state(self, state, where):
        if state is not None:
            cached, _, inner = state_fields(state, where, cached=0, index=0, input=None)
            check_count(cached, f"{where}['cached']", 0, 1)
            if not cached:
                self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        return self._input._cardinality()

    def _reshard(self, num_shards, index):
        raise TypeError("cannot split a cached dataset between workers: cache after splitting")
