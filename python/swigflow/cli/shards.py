"""Writing sets of TFRecord shards the way every swigflow command does (build-image-dataset,
reshard): names ``PREFIX-NNNNN-of-NNNNN``, each shard whole or absent with its index file (a
seek index when compressed), and a journal so that an interrupted run can be resumed."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
from typing import Any

from swigflow import errors, io
from swigflow.cli import CommandError, compression_of
from swigflow.io import gfile
from swigflow.io.gfile import PathOrFile
from swigflow.io.index import FRAMING_BYTES, write_index
from swigflow.io.tf_record import COMPRESSION_SUFFIXES


def shard_name(prefix: Any, index: int, count: int | None, compression: str | None) -> str:
    return f"{prefix}-{index:05d}-of-{count:05d}{COMPRESSION_SUFFIXES[compression]}"


def digest(plan: Any) -> str:
    """A short fingerprint of a JSON-able plan: what a --resume must match."""
    return hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()


def write_atomically(path: PathOrFile, text: str) -> None:
    """Writes a text file that is either whole or absent (or the previous version)."""
    if gfile.is_remote(path):
        with gfile.GFile(path, "w") as f:  # committed on close
            f.write(text)
        return
    temp = f"{path}.tmp"
    with open(temp, "w") as f:
        f.write(text)
    os.replace(temp, path)


class ShardWriter:
    """One shard, written atomically: locally a temporary file renamed into place by
    :meth:`commit`, at a URL an upload committed when complete. Its index file (FILE.idx; a
    seek index when compressed) is written first, so locally the shard appears last. A GZIP
    shard is a chain of members of `seek_block_size` bytes (None: one stream). Leaving the
    ``with`` block without commit (an error) leaves no shard behind."""

    def __init__(
        self, path: PathOrFile, compression: str | None, seek_block_size: int | None = None
    ) -> None:
        self.path: Any = path
        self._compression = compression
        self._remote = gfile.is_remote(path)
        self._temp = path if self._remote else f"{path}.tmp"
        block = seek_block_size if compression == "GZIP" else None
        options = io.TFRecordOptions(compression, seek_block_size=block)
        self._writer = io.TFRecordWriter(self._temp, options)
        self._lengths = []
        self.bytes: Any = 0  # payload bytes written

    @property
    def records(self) -> int:
        return len(self._lengths)

    def write(self, record: Any) -> Any:
        self._writer.write(record)
        self._lengths.append(len(record) + FRAMING_BYTES)
        self.bytes += len(record)

    def commit(self) -> None:
        index_path = io.default_index_path(self.path)
        if not self._compression:
            offsets = list(itertools.accumulate(self._lengths, initial=0))[:-1]
            write_index(index_path, offsets, self._lengths)
        self._writer.close()
        self._writer = None
        if self._compression:  # its seek index needs the finished file: one pass
            io.create_index(self._temp, index_path, self._compression)
        if not self._remote:
            os.replace(self._temp, self.path)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if self._writer is not None:  # not committed: nothing may look complete
            self._writer.abort()
            if not self._remote and os.path.exists(self._temp):
                os.unlink(self._temp)


def shard_is_whole(path: PathOrFile, records: Any) -> bool:
    """Whether a shard is there, whole: every record's CRCs check out and it holds `records`
    records (a truncated or damaged shard must be written again)."""
    if not gfile.exists(path):
        return False
    try:
        scanner = io.TFRecordScanner(path, compression_of(path, None), payloads=False)
        found = sum(1 for _ in scanner)
    except errors.OpError:
        return False
    return not scanner.damages and found == records


class Journal:
    """What a run has finished, in DIRECTORY/NAME: the digest of its inputs and options, and
    each complete shard's result (a dict; ``records_of(result)`` its record count). Rewritten
    atomically after every shard, so an interrupted run can be resumed (a shard renamed into
    place but not yet journaled is written again)."""

    def __init__(
        self,
        directory: Any,
        name: str,
        plan_digest: Any,
        resume: Any,
        records_of: Any,
        what: Any = "the same inputs",
    ) -> None:
        self._path = gfile.join(directory, name)
        self._lock = threading.Lock()
        self.shards: Any = {}
        if resume:
            # No journal (a new folder, or a run killed before its first shard): nothing to
            # resume, so the run starts. A journal of other inputs or options is refused.
            try:
                with gfile.GFile(self._path, "rb") as f:
                    previous = json.loads(f.read())
            except errors.NotFoundError:
                previous = {"digest": plan_digest}
            except ValueError:
                previous = {}
            if previous.get("digest") != plan_digest:
                raise CommandError(
                    f"--resume: the output directory was not built from {what} and options"
                )
            self.shards = {
                name: result
                for name, result in previous.get("shards", {}).items()
                if shard_is_whole(gfile.join(directory, name), records_of(result))
            }
        self._digest = plan_digest
        self._save()

    def finished(self, name: str, result: Any) -> None:
        with self._lock:
            self.shards[name] = result
            self._save()

    def _save(self):
        write_atomically(self._path, json.dumps({"digest": self._digest, "shards": self.shards}))
