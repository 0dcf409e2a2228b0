"""``swigflow reshard``: many small files merged (or big ones split) into evenly sized shards,
in order or shuffled with a seed, resumable. The fix ``swigflow profile`` recommends for the
"small files" cause of a starving GPU.

The shards are a function of the inputs and the options only:
  - the records are taken in input order (files as given, records in file order), or with
    --seed in the order of ``swigflow.data.index_shuffle.permutation(records, seed)`` (the
    uniform permutation a global shuffle uses, the same on every machine);
  - n = round(total / --target-size) shards (total: the records' framed bytes), at most one per
    record; record r goes to shard floor(n * (bytes before r + half of r) / total), so shards
    differ in size by at most about one record.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any

import numpy as np

from swigflow import errors, io
from swigflow.cli import (
    CommandError,
    add_compression_option,
    add_seek_block_option,
    compression_of,
    size_arg,
)
from swigflow.cli import progress as _progress
from swigflow.cli import shards as _shards
from swigflow.data import index_shuffle
from swigflow.io import gfile
from swigflow.io.index import FRAMING_BYTES, checked_default_index, scan_records

_PLAN = ".swigflow-reshard.json"  # what a --resume must match


def register(commands: Any) -> None:
    p = commands.add_parser(
        "reshard",
        help="merge small files (or split big ones) into evenly sized shards",
        description="Copies every record of FILES, exactly once, into shards of about "
        "--target-size named PREFIX-NNNNN-of-NNNNN in --output-directory, each with an index "
        "file when uncompressed. Records keep their order, or with --seed are shuffled "
        "uniformly (the same bytes for the same seed on every machine). Each shard is written "
        "whole or not at all; --resume keeps the complete shards of an interrupted run.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--output-directory", required=True, metavar="OUT")
    p.add_argument(
        "--target-size",
        type=size_arg,
        default=256 * 10**6,
        metavar="SIZE",
        help="shard size: 256MB (the default), 1GB, 64MiB, ...",
    )
    p.add_argument("--prefix", default="part", help="shard name prefix (default 'part')")
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="shuffle the records with this seed (uncompressed inputs); default: keep the order",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the complete shards of an interrupted run with the same inputs and options",
    )
    add_compression_option(p, "the shards written", default="none")
    add_seek_block_option(p)
    add_compression_option(p, "FILES", flag="--input-compression")
    _progress.add_option(p)
    p.set_defaults(run=_reshard)


class _Input:
    """One input file: its records' framed lengths, and their offsets when uncompressed."""

    def __init__(self, path, compression):
        self.path: Any = path
        self.compression: Any = compression
        if not compression:
            found = checked_default_index(path)
            offsets, lengths = found if found is not None else scan_records(path)
            self.offsets: Any = np.asarray(offsets, dtype=np.int64)
            self.lengths: Any = np.asarray(lengths, dtype=np.int64)
        else:  # offsets into compressed data mean nothing: read it once for the sizes
            self.offsets = None
            sizes = []
            with io.TFRecordReader(path, compression) as reader:
                while batch := reader.read_batch(4096, copy=False):
                    sizes.extend(len(r) for r in batch)
            self.lengths = np.asarray(sizes, dtype=np.int64) + FRAMING_BYTES


def permutation(n: Any, seed: int | None) -> Any:
    """The --seed order of n records (see the module's docstring)."""
    return index_shuffle.permutation(n, seed)


def plan_shards(lengths: Any, target: Any, order: Any = None) -> Any:
    """Cuts records (framed `lengths`, taken in `order`) into shards of about `target` bytes:
    the start of each shard in `order`, plus its end."""
    lengths = np.asarray(lengths, dtype=np.int64)
    sizes = lengths if order is None else lengths[order]
    total = int(sizes.sum())
    n = max(1, min(len(sizes), round(total / target)))
    middle = np.cumsum(sizes) - sizes / 2
    shard = np.minimum((middle * n / total).astype(np.int64), n - 1)
    changes = np.flatnonzero(np.diff(shard)) + 1  # shards may be skipped by a huge record
    return np.concatenate([[0], changes, [len(sizes)]])


class _Reader:
    """Reads records by their place in the input sequence, keeping files open between calls
    and reading runs of one file in batches."""

    _OPEN = 64  # files kept open

    def __init__(self, inputs):
        self._inputs = inputs
        self._open = {}  # input index -> [reader, next record]

    def read(self, f, first, count):
        """Yields records first .. first + count - 1 of input f."""
        entry = self._open.pop(f, None)
        if entry is not None and entry[1] != first and self._inputs[f].offsets is not None:
            entry[0].seek(int(self._inputs[f].offsets[first]))
            entry[1] = first
        if entry is None or entry[1] != first:  # compressed: read from the start, skip
            if entry is not None:
                entry[0].close()
            src = self._inputs[f]
            offset = 0 if src.offsets is None else int(src.offsets[first])
            entry = [io.TFRecordReader(src.path, src.compression, offset=offset), first]
            if src.offsets is None:
                skip = first
                while skip:
                    skip -= len(entry[0].read_batch(min(skip, 4096), copy=False))
        while len(self._open) >= self._OPEN:
            oldest = next(iter(self._open))
            self._open.pop(oldest)[0].close()
        self._open[f] = entry  # most recently used last
        left = count
        while left:
            batch = entry[0].read_batch(min(left, 1024))
            if not batch:
                raise errors.DataLossError(
                    f"{self._inputs[f].path} ended before record {entry[1]}: it changed while "
                    "it was read"
                )
            entry[1] += len(batch)
            left -= len(batch)
            yield from batch

    def close(self):
        for reader, _ in self._open.values():
            reader.close()
        self._open.clear()


def _runs(values, step):
    """(begin, end) index ranges of the runs in values where each value is the previous + step
    (step 0: equal values, step 1: consecutive ones)."""
    breaks = np.flatnonzero(np.diff(values) != step) + 1
    bounds = np.concatenate([[0], breaks, [len(values)]])
    return [(int(b), int(e)) for b, e in itertools.pairwise(bounds) if e > b]


def _check_outputs(inputs, out_paths):
    """Refuses to write over an input (it would be read after being replaced)."""
    local = {}
    for src in inputs:
        p = gfile.local_path(src.path)
        local[os.path.realpath(p) if p is not None else src.path] = src.path
    for path in out_paths:
        p = gfile.local_path(path)
        key = os.path.realpath(p) if p is not None else path
        if key in local:
            raise CommandError(f"{path} would overwrite the input {local[key]}")


def _reshard(args):
    if args.seed is not None and args.seed < 0:
        raise CommandError("--seed must be at least 0")
    files = list(dict.fromkeys(args.files))
    if len(files) != len(args.files):
        raise CommandError("a file is named twice: its records would be copied twice")
    inputs = [_Input(f, compression_of(f, args.input_compression)) for f in files]
    if args.seed is not None and any(src.compression for src in inputs):
        raise CommandError(
            "--seed reads records in random order: it needs uncompressed inputs (reshard the "
            "compressed ones without --seed first)"
        )
    lengths = np.concatenate([src.lengths for src in inputs]) if inputs else np.zeros(0, np.int64)
    if len(lengths) == 0:
        raise CommandError("the files hold no records")
    starts = np.concatenate([[0], np.cumsum([len(src.lengths) for src in inputs])])
    order = None if args.seed is None else permutation(len(lengths), args.seed)
    bounds = plan_shards(lengths, args.target_size, order)
    count = len(bounds) - 1
    compression = compression_of("", args.compression, sniff=False)
    names = [_shards.shard_name(args.prefix, k, count, compression) for k in range(count)]
    paths = [gfile.join(args.output_directory, n) for n in names]
    _check_outputs(inputs, paths)

    gfile.makedirs(args.output_directory)
    plan = {
        "inputs": [[src.path, len(src.lengths), int(src.lengths.sum())] for src in inputs],
        "target": args.target_size,
        "seed": args.seed,
        "compression": compression,
        "prefix": args.prefix,
    }
    block = args.seek_block_size if compression == "GZIP" else None
    if block is not None:  # (absent otherwise: journals of earlier versions still match)
        plan["seek_block_size"] = block
    journal = _shards.Journal(
        args.output_directory, _PLAN, _shards.digest(plan), args.resume, lambda r: r["records"]
    )
    sequence = order if order is not None else np.arange(len(lengths))
    todo = [k for k in range(count) if names[k] not in journal.shards]
    todo_bytes = sum(int(lengths[sequence[bounds[k] : bounds[k + 1]]].sum()) for k in todo)
    reader = _Reader(inputs)
    start = time.monotonic()
    bar = _progress.Progress(todo_bytes, enabled=_progress.enabled(args), description="reshard")
    try:
        with bar:
            for k in todo:
                ids = sequence[bounds[k] : bounds[k + 1]]
                files_of = np.searchsorted(starts, ids, side="right") - 1
                with _shards.ShardWriter(paths[k], compression, block) as writer:
                    # Runs of consecutive records of one file are read in batches.
                    for fb, fe in _runs(files_of, 0):
                        f = int(files_of[fb])
                        local = ids[fb:fe] - starts[f]
                        for b, e in _runs(local, 1):
                            for record in reader.read(f, int(local[b]), e - b):
                                writer.write(record)
                                bar.update(len(record) + FRAMING_BYTES)
                    writer.commit()
                journal.finished(names[k], {"records": writer.records, "bytes": writer.bytes})
    finally:
        reader.close()
    seconds = time.monotonic() - start
    sizes = [int(lengths[sequence[bounds[k] : bounds[k + 1]]].sum()) for k in range(count)]
    kept = count - len(todo)
    print(
        f"wrote {len(todo):,} shard(s) of {len(lengths):,} records from {len(inputs):,} file(s) "
        f"to {args.output_directory} in {seconds:.1f} s; shard sizes {min(sizes):,}-"
        f"{max(sizes):,} bytes (framed)" + (f"; kept {kept} complete shard(s)" if kept else "")
    )
    return 0
