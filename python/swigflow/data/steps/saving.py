"""save, load and snapshot: a dataset's elements kept in a directory across programs.

A saved dataset is a directory of shard files, each in swigflow.data.cache_format (a TFRecord
file: a header, one record per element, a trailer counting them; GZIP or ZLIB on request), and
swigflow_save.json, written last (synced, then renamed into place) naming the shards and their
counts. A save that fails or is interrupted leaves no metadata, so it is never loaded as
complete. Not tf.data's format: TensorFlow cannot load it, nor swigflow TensorFlow's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from swigflow import errors, specs
from swigflow.data.checks import check_count
from swigflow.data.dataset import Dataset
from swigflow.data.elements import call_unpacked
from swigflow.data.protocol import fingerprint_of
from swigflow.data.steps.base import Elements
from swigflow.data.steps.caching import Cache, FileCache, sync
from swigflow.data.structure import common_spec
from swigflow.io.gfile import PathOrFile

METADATA = "swigflow_save.json"
FORMAT = "swigflow-save"
VERSION = 1
COMPRESSIONS = (None, "GZIP", "ZLIB")


def compression_of(compression: str | None, what: Any) -> str | None:
    """tf.data's compression argument as a TFRecord compression (None, "GZIP" or "ZLIB")."""
    if compression in ("", "AUTO"):
        return None  # tf.data's AUTO picks Snappy, which swigflow has not: stored as is
    if compression not in COMPRESSIONS:
        raise errors.InvalidArgumentError(
            f"{what}: compression must be None, 'AUTO', 'GZIP' or 'ZLIB', got {compression!r} "
            "(swigflow has no Snappy)"
        )
    return compression


def shard_path(path: PathOrFile, shard: Any) -> str:
    return os.path.join(path, f"shard-{shard:05d}.swigflow_cache")


def _shard_of(shard_func, element):
    shard = call_unpacked(shard_func, element)
    if not (isinstance(shard, (int, np.integer)) or (
        isinstance(shard, np.ndarray) and shard.ndim == 0 and shard.dtype.kind in "iu"
    )) or isinstance(shard, bool) or int(shard) < 0:  # fmt: skip
        raise errors.InvalidArgumentError(
            f"`shard_func` must return a non-negative scalar int64, got {shard!r}"
        )
    return int(shard)


def _write_json(path, value):
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as f:
        json.dump(value, f, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    sync(os.path.dirname(path))


def save(
    dataset: Any,
    path: PathOrFile,
    compression: str | None,
    shard_func: Callable[..., Any] | None,
    checkpoint_args: Any,
) -> None:
    """Writes every element of `dataset` under directory `path` (see Dataset.save)."""
    if checkpoint_args is not None:
        raise errors.UnimplementedError(
            "save: checkpoint_args (a tf.train.Checkpoint) has no swigflow form; a save is "
            "restarted from the beginning"
        )
    path = os.fspath(path)
    compression = compression_of(compression, "save")
    os.makedirs(path, exist_ok=True)
    metadata = os.path.join(path, METADATA)
    if os.path.exists(metadata):  # the directory stops being a saved dataset until this one is
        os.unlink(metadata)
    writers, counts, complete = {}, {}, False
    it = dataset.iterator(stats=False)
    try:
        for element in it:
            shard = 0 if shard_func is None else _shard_of(shard_func, element)
            if shard not in writers:
                writers[shard] = FileCache(shard_path(path, shard), compression).writer()
                counts[shard] = 0
            writers[shard][0](element)
            counts[shard] += 1
        complete = True
    finally:
        it.close()
        for _, finish in writers.values():
            finish(complete)
    kept = {os.path.basename(shard_path(path, shard)) for shard in counts}
    for name in os.listdir(path):  # shards of an earlier save into the same directory
        if name.startswith("shard-") and name.endswith(".swigflow_cache") and name not in kept:
            os.unlink(os.path.join(path, name))
    shards = {str(shard): count for shard, count in sorted(counts.items())}
    spec = specs.to_json(dataset.element_spec)
    _write_json(metadata, dict(format=FORMAT, version=VERSION, compression=compression,
                               shards=shards, element_spec=spec))  # fmt: skip


class SavedShard(Dataset):
    """The elements of one shard file of a saved dataset, of the saved element spec; a state
    counts them."""

    def __init__(
        self, path: PathOrFile, compression: str | None, count: int | None, spec: Any
    ) -> None:
        self._store = FileCache(path, compression)
        self._path, self._count = path, count
        self._saved_spec = spec

    _NOT_IDENTITY = frozenset({"_store", "_saved_spec"})

    def _element_spec(self):
        return self._saved_spec

    def _generate(self, state, epoch):
        start = 0 if state is None else state
        for index, element in enumerate(self._store.read(start), start + 1):
            yield element, index

    def _cardinality(self):
        return self._count

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0, self._count)

    def _signature(self):
        return f"SavedShard({os.path.basename(self._path)})"


def _metadata(path):
    metadata = os.path.join(path, METADATA)
    try:
        with open(metadata) as f:
            found = json.load(f)
    except FileNotFoundError:
        raise errors.NotFoundError(
            f"Could not find metadata file {metadata}: {path} holds no complete saved dataset"
        ) from None
    except (OSError, ValueError) as e:
        raise errors.DataLossError(f"the metadata file {metadata} is unreadable: {e}") from None
    shards = found.get("shards") if isinstance(found, dict) else None
    if (
        found.get("format") != FORMAT
        or found.get("version") != VERSION
        or found.get("compression") not in COMPRESSIONS
        or not isinstance(shards, dict)
        or not all(k.isdigit() and type(v) is int and v >= 0 for k, v in shards.items())
    ):
        raise errors.DataLossError(
            f"{metadata} is not the metadata of a swigflow saved dataset of version {VERSION}"
        )
    try:  # saves before element specs were recorded have none
        found["element_spec"] = specs.from_json(found.get("element_spec", {"unknown": "load"}))
    except ValueError as e:
        raise errors.DataLossError(f"{metadata}: {e}") from None
    return found


def load(
    path: PathOrFile,
    element_spec: Any,
    compression: str | None,
    reader_func: Callable[..., Any] | None,
) -> Any:
    """The dataset saved under `path` (see Dataset.load), of the saved element spec, or of
    `element_spec` when given (TypeError when the saved one is not compatible with it)."""
    path = os.fspath(path)
    found = _metadata(path)
    spec = found["element_spec"]
    if element_spec is not None:
        if common_spec(spec, element_spec) is None:
            raise TypeError(
                f"{path} holds elements of {spec!r}, not compatible with element_spec "
                f"{element_spec!r}"
            )
        spec = element_spec
    stored = found["compression"]
    if compression is not None and compression_of(compression, "load") != stored:
        raise errors.InvalidArgumentError(
            f"{path} was saved with compression {stored!r}, not {compression!r}"
        )
    shards = [
        SavedShard(shard_path(path, int(shard)), stored, count, spec)
        for shard, count in sorted(found["shards"].items(), key=lambda kv: int(kv[0]))
    ]
    if reader_func is not None:
        loaded = reader_func(Elements(shards))
        if not isinstance(loaded, Dataset):
            raise TypeError(f"`reader_func` must return a Dataset, got {loaded!r}")
        return loaded
    if not shards:
        return Elements([], spec)
    loaded = shards[0]
    for shard in shards[1:]:
        loaded = loaded.concatenate(shard)
    return loaded


def snapshot(
    dataset: Any,
    path: PathOrFile,
    compression: str | None,
    reader_func: Callable[..., Any] | None,
    shard_func: Callable[..., Any] | None,
) -> Any:
    """`dataset` kept under directory `path` by its fingerprint (see Dataset.snapshot)."""
    for name, value in (("reader_func", reader_func), ("shard_func", shard_func)):
        if value is not None:
            raise errors.UnimplementedError(
                f"snapshot's {name} is not supported: a snapshot is one file per dataset "
                "(use save(shard_func=...) and load(reader_func=...) for shards)"
            )
    compression = compression_of(compression, "snapshot")
    filename = os.path.join(os.fspath(path), f"snapshot-{fingerprint_of(dataset)}")
    return Cache(dataset, filename, compression)
