"""Ray Data's datasource and datasink for TFRecord files of tf.train.Example (imports Ray).

Use them through :func:`swigflow.ray.read_tfrecords` and :func:`swigflow.ray.write_tfrecords`,
or directly with ``ray.data.read_datasource`` and ``Dataset.write_datasink``.
"""

from __future__ import annotations

import itertools
import logging
import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
from ray.data import Datasink, Datasource, ReadTask
from ray.data.block import BlockAccessor, BlockMetadata
from ray.data.extensions import ArrowTensorArray

from swigflow import errors
from swigflow.io import gfile, schema, shard_cache
from swigflow.io.example_codec import BYTES, FLOAT, INT64, encode_example_columns
from swigflow.io.feature_spec import check_features
from swigflow.io.gfile import PathOrFile
from swigflow.io.index import (
    FRAMING_BYTES,
    INDEX_SUFFIX,
    checked_default_index,
    create_index,
    default_index_path,
    write_index,
)
from swigflow.io.parsing import parse_example
from swigflow.io.scan import TFRecordScanner
from swigflow.io.sniff import sniff_compression
from swigflow.io.tf_record import (
    COMPRESSION_SUFFIXES,
    SEEK_BLOCK_SIZE,
    TFRecordOptions,
    TFRecordReader,
    TFRecordWriter,
    compression_name,
)
from swigflow.tensors import RaggedTensor, SparseTensor

log: logging.Logger = logging.getLogger("swigflow.ray")

# Records read on the driver to infer a spec when none is given.
SCHEMA_RECORDS = 10_000
# A block ends after this many records or payload bytes, whichever comes first: large enough
# for parse_example's threads and Ray's per-block overhead, small enough for worker memory.
BLOCK_RECORDS = 65_536
BLOCK_BYTES = 64 << 20
ON_ERROR = ("raise", "skip_record", "skip_file")

_GLOB_CHARS = frozenset("*?[")


def expand_paths(paths: Any) -> list[str]:
    """The TFRecord files named by ``paths``: files, directories (their files, without index
    files and hidden or ``_``-prefixed names), glob patterns; in order, each once."""
    if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__"):
        paths = [paths]
    files = []
    for p in paths:
        if gfile.is_file_object(p):
            raise TypeError("swigflow.ray reads paths or URLs, not open file objects")
        p = gfile.as_path(p)
        if _GLOB_CHARS & set(p.rpartition("://")[2]):
            found = [f for f in gfile.glob(p) if not f.endswith(INDEX_SUFFIX)]
        elif gfile.isdir(p):
            found = [
                gfile.join(p, name)
                for name in gfile.listdir(p)
                if not name.endswith(INDEX_SUFFIX) and name[:1] not in "._"
            ]
        else:
            found = [p]
        if not found:
            raise errors.NotFoundError(f"no TFRecord files match {p}")
        files.extend(found)
    return list(dict.fromkeys(files))


def sniffed_compressions(files: Any, cache: Any = None) -> list[str]:
    """Each file's compression told from its first bytes, as Ray's own reader does: a list may
    mix GZIP, ZLIB and uncompressed files. A remote file with a current copy in `cache` (a
    ShardCache) is told from the copy: no data request."""
    found = []
    for f in files:
        local = gfile.cached_copy(f, cache) if cache is not None and gfile.is_remote(f) else None
        found.append(sniff_compression(local or f))
    return found


# --- reading -------------------------------------------------------------------------------------


def _to_arrow(parsed, features, n):
    """A pyarrow Table of one parsed batch: scalars as columns, larger fixed shapes as Ray
    tensor columns, variable-length values as list columns."""
    columns = {}
    for key in features:
        value = parsed[key]
        if isinstance(value, SparseTensor):
            counts = np.bincount(value.indices[:, 0], minlength=n) if n else np.zeros(0, int)
            columns[key] = _list_array(value.values, counts)
        elif isinstance(value, RaggedTensor):
            if isinstance(value.values, RaggedTensor):  # partitioned: nested lists
                columns[key] = pa.array(value.to_list())
            else:
                columns[key] = _list_array(value.values, np.diff(value.row_splits))
        elif value.ndim == 1:
            columns[key] = pa.array(value, type=pa.binary() if value.dtype == object else None)
        elif value.dtype == object:  # strings of a larger shape: a list per row
            flat = value.reshape(n, -1)
            columns[key] = _list_array(flat.ravel(), np.full(n, flat.shape[1]))
        else:
            columns[key] = ArrowTensorArray.from_numpy(value)
    return pa.table(columns)


def _list_array(values, counts):
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    typ = pa.binary() if values.dtype == object else None
    return pa.LargeListArray.from_arrays(offsets, pa.array(values, type=typ))


def _batches_raise(path, start, rows, compression):
    with TFRecordReader(path, compression, offset=start) as reader:
        left = rows
        while left is None or left > 0:
            batch = reader.read_batch(
                BLOCK_RECORDS if left is None else min(BLOCK_RECORDS, left), BLOCK_BYTES
            )
            if not batch:
                return
            if left is not None:
                left -= len(batch)
            yield batch


def _batches_skip_file(path, compression):
    try:
        yield from _batches_raise(path, 0, None, compression)
    except errors.DataLossError as e:
        log.warning("skipped the rest of %s: %s", path, e.message)


def _batches_skip_record(path, compression):
    scanner = TFRecordScanner(path, compression)
    batch, size, reported = [], 0, 0
    for _, payload in scanner:
        batch.append(payload)
        size += len(payload)
        if len(batch) >= BLOCK_RECORDS or size >= BLOCK_BYTES:
            yield batch
            batch, size = [], 0
        for damage in scanner.damages[reported:]:
            log.warning("skipped damaged data in %s: %s", path, damage.message)
        reported = len(scanner.damages)
    if batch:
        yield batch


def read_units(units: Any, features: Any, on_error: str, cache: Any = None) -> Iterator[Any]:
    """Yields the blocks of ``units``: (path, its compression, start offset, records or None
    for all); remote files through the shard cache `cache` ((directory, max_bytes,
    revalidate), or None)."""
    if cache is None:
        yield from _read_units(units, features, on_error)
        return
    remote = list(dict.fromkeys(u[0] for u in units if gfile.is_remote(u[0])))
    with shard_cache.registered(remote, shard_cache.ShardCache(*cache)):
        yield from _read_units(units, features, on_error)


def _read_units(units, features, on_error):
    for path, compression, start, rows in units:
        if on_error == "skip_record":
            batches = _batches_skip_record(path, compression)
        elif on_error == "skip_file":
            batches = _batches_skip_file(path, compression)
        else:
            batches = _batches_raise(path, start, rows, compression)
        for batch in batches:
            yield _to_arrow(parse_example(batch, features), features, len(batch))


class TFRecordDatasource(Datasource):
    """Reads TFRecord files of tf.train.Example natively (what
    :func:`swigflow.ray.read_tfrecords` reads through).

    Args:
        paths: files, directories or glob patterns (local paths or URLs).
        spec: a dict of feature specs; None infers one.
        compression_type: None (told from each file's first bytes), "", "ZLIB" or "GZIP".
        on_error: "raise", "skip_record" or "skip_file".
        schema_records: how many records the spec is inferred from.
        cache_dir: a shard cache (a directory or swigflow.io.ShardCache) for remote files.
    """

    def __init__(
        self,
        paths: Any,
        *,
        spec: Any = None,
        compression_type: str | int | None = None,
        on_error: str = "raise",
        schema_records: Any = None,
        cache_dir: Any = None,
    ) -> None:
        super().__init__()
        cache = shard_cache.as_cache(cache_dir)  # travels to the tasks as (directory, budget)
        self._cache = (
            None if cache is None else (cache.directory, cache.max_bytes, cache.revalidate)
        )
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
        self._files = expand_paths(paths)
        self._compressions = (
            [compression_name(compression_type)] * len(self._files)
            if compression_type is not None
            else sniffed_compressions(self._files, cache)
        )
        self._on_error = on_error
        self._sizes = [gfile.stat(f).length for f in self._files]
        records = SCHEMA_RECORDS if schema_records is None else int(schema_records)
        if spec is None:
            spec = schema.infer_spec(self._files, self._compressions, records, on_error)
        self._features = dict(spec)
        check_features(self._features)

    @property
    def features(self) -> dict[str, Any]:
        """The spec the rows are parsed with (inferred when none was given)."""
        return dict(self._features)

    def get_name(self) -> str:
        return "SwigflowTFRecord"

    def estimate_inmemory_data_size(self) -> int:
        return sum(self._sizes)

    def _units(self, target):
        """(path, compression, start, rows, bytes) pieces: indexed uncompressed files larger
        than ``target`` bytes are cut at record offsets into pieces of about ``target``
        bytes. Not with a shard cache: a file is cached when one task reads it to its end, so
        each file is one piece, and no index file is fetched."""
        units = []
        for path, compression, size in zip(self._files, self._compressions, self._sizes):
            index = None
            if self._cache is None and not compression and self._on_error == "raise":
                index = checked_default_index(path)
            if index is None:
                units.append((path, compression, 0, None, size))
                continue
            offsets = index[0]
            n = len(offsets)
            pieces = max(1, min(n, math.ceil(size / target)))
            cuts = np.searchsorted(offsets, np.arange(1, pieces) * (size / pieces))
            bounds = [0, *sorted(set(cuts.tolist()) - {0, n}), n]
            for a, b in itertools.pairwise(bounds):
                end = size if b == n else int(offsets[b])
                units.append((path, "", int(offsets[a]), b - a, end - int(offsets[a])))
        return units

    def get_read_tasks(
        self,
        parallelism: Any,
        per_task_row_limit: Any = None,
        data_context: Any = None,
        **kwargs: Any,
    ) -> list[Any]:
        """Ray's Datasource method: the files, cut at record offsets where index files allow,
        divided into about `parallelism` read tasks of consecutive pieces, in order.

        Args:
            parallelism: the number of tasks Ray asks for.
            per_task_row_limit: the most rows a task returns, or None.
            data_context: Ray's DataContext (unused).
            **kwargs: what newer Ray versions pass (unused).

        Returns:
            A list of ray.data.ReadTask.
        """
        parallelism = max(1, int(parallelism))
        total = max(1, sum(self._sizes))
        target = total / parallelism
        units = self._units(target)
        # Consecutive pieces per task, in order: a task is closed before a piece that would take
        # it past `target` by more than half that piece, and the last task takes what is left.
        groups, current, current_bytes = [], [], 0
        for unit in units:
            full = current and current_bytes + unit[4] / 2 > target
            if full and len(groups) < parallelism - 1:
                groups.append(current)
                current, current_bytes = [], 0
            current.append(unit)
            current_bytes += unit[4]
        if current:
            groups.append(current)
        tasks = []
        for group in groups:
            rows = [u[3] for u in group]
            metadata = BlockMetadata(
                num_rows=None if None in rows else sum(rows),
                size_bytes=sum(u[4] for u in group),
                input_files=tuple(dict.fromkeys(u[0] for u in group)),
                exec_stats=None,
            )
            work = [u[:4] for u in group]
            args = (work, self._features, self._on_error, self._cache)
            extra = {} if per_task_row_limit is None else {"per_task_row_limit": per_task_row_limit}
            tasks.append(ReadTask(lambda args=args: read_units(*args), metadata, **extra))
        return tasks


# --- writing -------------------------------------------------------------------------------------


def _cell_values(cell):
    if cell is None:
        return []
    if isinstance(cell, (bytes, str)):
        return [cell]
    if isinstance(cell, np.ndarray):
        return cell.ravel().tolist()
    if isinstance(cell, (list, tuple)):
        return list(np.asarray(cell, dtype=object).ravel()) if cell else []
    return [cell]


def _kind_of(values, key):
    for v in values:
        if isinstance(v, (bytes, str, np.bytes_, np.str_)):
            return BYTES
        if isinstance(v, (bool, int, np.integer, np.bool_)):
            return INT64
        if isinstance(v, (float, np.floating)):
            return FLOAT
        raise TypeError(f"column {key!r}: cannot store a {type(v).__name__} in an Example")
    return None  # no values anywhere: no kind to write them as


def _typed(values, kind):
    if kind == BYTES:
        out = np.empty(len(values), dtype=object)
        out[:] = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
        return out
    return np.asarray(values, dtype=np.int64 if kind == INT64 else np.float32)


def _arrow_kind(typ):
    """The Feature kind of an Arrow column's type (lists by their values' type), or None."""
    while pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        typ = typ.value_type
    if pa.types.is_integer(typ) or pa.types.is_boolean(typ):
        return INT64
    if pa.types.is_floating(typ):
        return FLOAT
    if pa.types.is_string(typ) or pa.types.is_binary(typ) or pa.types.is_large_string(typ):
        return BYTES
    return None


def null_columns(table: Any) -> Any:
    """{column: (cells, kind)} for the columns of an Arrow table that hold nulls. Ray's numpy view
    turns an integer column with nulls into floats with NaN; these columns are written from their
    Python values instead, a null as an empty list, in the kind of the column's type."""
    found = {}
    for name in table.column_names:
        column = table.column(name)
        if column.null_count:
            found[name] = (column.to_pylist(), _arrow_kind(column.type))
    return found


def example_columns(batch: Any, n: Any, nulls: Any = None) -> Any:
    """``batch`` ({column: array}, as Ray's to_numpy gives) as EncodeExampleColumns' columns;
    ``nulls`` (from null_columns) replaces the columns that hold nulls."""
    columns = []
    nulls = nulls or {}
    for key, array in batch.items():
        kind = None
        if key in nulls:
            cells, kind = nulls[key]
            array = np.empty(n, dtype=object)
            for i, cell in enumerate(cells):  # one by one: equal-length lists stay cells
                array[i] = cell
        array = np.asarray(array)
        if array.dtype != object and array.dtype.kind in "biufSU":
            flat = array.reshape(n, -1)
            splits = np.arange(n + 1, dtype=np.int64) * flat.shape[1]
            values = flat.ravel()
            if values.dtype.kind in "SU":
                kind = BYTES
                values = _typed(values.tolist(), kind)
            else:
                kind = FLOAT if values.dtype.kind == "f" else INT64
                values = values.astype(np.float32 if kind == FLOAT else np.int64)
        elif array.dtype == object:
            cells = [_cell_values(c) for c in array]
            counts = np.fromiter((len(c) for c in cells), np.int64, n)
            splits = np.zeros(n + 1, np.int64)
            np.cumsum(counts, out=splits[1:])
            flat = [v for c in cells for v in c]
            kind = kind or _kind_of(flat, key)
            if kind is None:
                # Only nulls and empty lists, of no known type: the feature is left out of
                # these Examples, which TF (and swigflow) read back as empty for a VarLen or
                # Ragged feature of any type, where an empty list of a guessed type would fail
                # a spec of another.
                continue
            values = _typed(flat, kind)
        else:
            raise TypeError(f"column {key!r}: cannot store {array.dtype} values in an Example")
        columns.append((str(key), kind, values, splits))
    return columns


# write_tfrecords' modes: refuse a folder that holds files, or replace the files a write made.
WRITE_MODES = ("error", "overwrite")
# The names a write gives its files (see TFRecordDatasink._name) and their index files: hidden
# (.NAME.idx) now, NAME.idx from earlier versions (".zz": what they named ZLIB files).
WRITTEN_NAME = re.compile(r"\.?part-\d{6}-\d{6}\.tfrecord(\.gz|\.zlib|\.zz)?(\.idx)?")


class TFRecordDatasink(Datasink):
    """Writes rows as tf.train.Example records (what :func:`swigflow.ray.write_tfrecords`
    writes through).

    Args:
        path: the output directory (local path or URL).
        compression_type: None, "ZLIB" or "GZIP".
        num_rows_per_file: rows per file; None: one file per block.
        mode: "error" or "overwrite".
        seek_block_size: the uncompressed bytes of a GZIP member; None: one stream.
    """

    def __init__(
        self,
        path: PathOrFile,
        *,
        compression_type: str | int | None = None,
        num_rows_per_file: Any = None,
        mode: str = "error",
        seek_block_size: int | None = SEEK_BLOCK_SIZE,
    ) -> None:
        if num_rows_per_file is not None and int(num_rows_per_file) < 1:
            raise ValueError(f"num_rows_per_file must be positive, got {num_rows_per_file}")
        if mode not in WRITE_MODES:
            raise ValueError(f"mode must be one of {', '.join(WRITE_MODES)}, got {mode!r}")
        self._path = gfile.as_path(path).rstrip("/")
        self._compression = compression_name(compression_type)
        block = seek_block_size if self._compression == "GZIP" else None
        self._options = TFRecordOptions(self._compression, seek_block_size=block)  # checks it
        self._rows_per_file = None if num_rows_per_file is None else int(num_rows_per_file)
        self._mode = mode
        self.files_written: Any = []

    def get_name(self) -> str:
        return "SwigflowTFRecord"

    def on_write_start(self, schema: Any = None) -> None:
        gfile.makedirs(self._path)
        try:
            existing = gfile.listdir(self._path)
        except errors.NotFoundError:
            if not gfile.is_remote(self._path):
                raise
            existing = []  # object stores have no folders: a new prefix holds nothing yet
        if not existing:
            return
        if self._mode != "overwrite":
            raise errors.AlreadyExistsError(
                f"{self._path} already holds {len(existing)} file(s) (e.g. {sorted(existing)[0]}): "
                "write_tfrecords(..., mode='overwrite') replaces the files an earlier write made"
            )
        for name in existing:  # only what a write made: other files stay
            if WRITTEN_NAME.fullmatch(name):
                gfile.remove(gfile.join(self._path, name))

    @property
    def min_rows_per_write(self) -> int | None:
        return self._rows_per_file

    def _name(self, task, k):
        suffix = ".tfrecord" + COMPRESSION_SUFFIXES[self._compression]
        return gfile.join(self._path, f"part-{task:06d}-{k:06d}{suffix}")

    def write(self, blocks: Any, ctx: Any) -> Any:
        written = []
        state = {"writer": None, "lengths": [], "k": 0}

        def close():
            writer = state["writer"]
            writer.close()
            lengths = np.asarray(state["lengths"], np.int64)
            if not self._compression:
                offsets = np.zeros(len(lengths), np.int64)
                np.cumsum(lengths[:-1], out=offsets[1:])
                write_index(default_index_path(writer.path), offsets, lengths)
            else:  # a seek index needs the finished file: one pass
                create_index(writer.path, default_index_path(writer.path), self._compression)
            written.append((writer.path, len(lengths)))
            state.update(writer=None, lengths=[])

        try:
            for block in blocks:
                accessor = BlockAccessor.for_block(block)
                n = accessor.num_rows()
                if n == 0:
                    continue
                columns = example_columns(accessor.to_numpy(), n, null_columns(accessor.to_arrow()))
                records = encode_example_columns(columns, n)
                i = 0
                while i < n:
                    if state["writer"] is None:
                        name = self._name(ctx.task_idx, state["k"])
                        state["writer"] = TFRecordWriter(name, self._options)
                        state["k"] += 1
                    room = n - i
                    if self._rows_per_file is not None:
                        room = min(room, self._rows_per_file - len(state["lengths"]))
                    for r in records[i : i + room]:
                        state["writer"].write(r)
                        state["lengths"].append(len(r) + FRAMING_BYTES)
                    i += room
                    if self._rows_per_file is None or len(state["lengths"]) == self._rows_per_file:
                        close()
            if state["writer"] is not None:
                close()
        except BaseException:
            if state["writer"] is not None:
                state["writer"].abort()
            raise
        return written

    def on_write_complete(self, write_result: Any) -> None:
        found = [f for returned in write_result.write_returns for f, _ in returned]
        self.files_written = sorted(found)


__all__ = ["TFRecordDatasink", "TFRecordDatasource"]
