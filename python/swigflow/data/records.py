"""TFRecordDataset and the runs of steps the native pipeline (native/data/pipeline.h) performs.

A ``_NativeRecords`` dataset is TFRecord files plus the steps applied to them so far, in the
pipeline's fixed order: shard, global shuffle, shuffle buffer, repeat, batch, parse, decode
images, prefetch.
A transformation that fits that order is absorbed into it; anything else wraps the dataset in a
Python step.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.data import images as _images
from swigflow.data import stats as _stats
from swigflow.data.checks import (
    INFINITE,
    INT64_MAX,
    UNKNOWN,
    autotune_count,
    batch_size_of,
    check_count,
    cpu_count,
    positive_count,
    prefetch_size,
    shard_args,
)
from swigflow.data.dataset import Dataset
from swigflow.data.protocol import check_shardable, epoch_elements
from swigflow.data.seeds import SEED_RANGE, IteratorSeeds, combined, new_seed, seed_bits
from swigflow.data.sources import file_sizes
from swigflow.data.steps.mapping import ParseFn, parsed_spec
from swigflow.io import feature_spec, gfile, schema, shard_cache
from swigflow.io import index as _index
from swigflow.io.tf_record import RecordBuffer, compression_name, native_options
from swigflow.specs import TensorSpec, UnknownSpec

log: logging.Logger = logging.getLogger("swigflow.data")

_ON_ERROR = {
    "raise": _pywrap.OnError_kRaise,
    "skip_record": _pywrap.OnError_kSkipRecord,
    "skip_file": _pywrap.OnError_kSkipFile,
}

_INT_MAX = (1 << 31) - 1

# Steps in the order the native pipeline runs them; a step can be absorbed when no later one
# has been.
_ORDER = [
    "source", "shard", "global_shuffle", "shuffle", "repeat", "batch", "parse", "decode_images",
    "prefetch",
]  # fmt: skip


# swigflow::data::PipelineOptions's defaults, read once: NativeSteps takes its defaults from them.
_DEFAULTS = _pywrap.PipelineOptions()


@dataclasses.dataclass(frozen=True)
class NativeSteps:
    """The arguments of the steps a TFRecordDataset has absorbed (immutable: each absorbed step
    makes a new one with dataclasses.replace, which rejects a misspelt field).

    A field named like a PipelineOptions field is copied into it by name (native_options), and
    takes its default from there; the others are Python's own and named apart.
    """

    cycle_length: int = _DEFAULTS.cycle_length
    block_length: int = _DEFAULTS.block_length
    num_shards: int = _DEFAULTS.num_shards
    shard_index: int = _DEFAULTS.shard_index
    shard_files: bool = _DEFAULTS.shard_files
    global_shuffle: bool = _DEFAULTS.global_shuffle
    shuffle_buffer: int = _DEFAULTS.shuffle_buffer
    reshuffle_each_iteration: bool = _DEFAULTS.reshuffle_each_iteration
    epochs: int = _DEFAULTS.epochs  # of this dataset; an iterator adds the enclosing epochs
    batch_size: int = _DEFAULTS.batch_size
    drop_remainder: bool = _DEFAULTS.drop_remainder
    batch_across_epochs: bool = _DEFAULTS.batch_across_epochs
    prefetch: int = _DEFAULTS.prefetch
    # Python's own. Seeds: None draws one per iterator; the state records what was drawn.
    global_seed: int | None = 0
    buffer_seed: int | None = 0
    plan: feature_spec.ParsePlan | None = None  # built once, when parse() is absorbed
    images: dict | None = None  # decode_images' options (images.image_options) and its key
    decode_seed: int | None = None  # decode_images(seed=...)
    zero_copy: bool = False
    cache: shard_cache.ShardCache | None = None  # remote files' local copies (cache_dir)

    @property
    def features(self) -> dict[str, Any] | None:
        return None if self.plan is None else self.plan.features

    def identity(self) -> dict[str, Any]:
        """The fields that decide the elements (the seeds are carried by each state)."""
        skip = ("global_seed", "buffer_seed", "plan", "cache")
        fields = {f.name: getattr(self, f.name) for f in _FIELDS if f.name not in skip}
        return dict(fields, features=self.features)

    def native_options(self) -> Any:
        """A PipelineOptions with every field named alike copied; the caller sets what each
        iterator decides (files, seeds, epochs, start)."""
        options = _pywrap.PipelineOptions()
        for name in _COPIED:
            setattr(options, name, getattr(self, name))
        return options


_FIELDS = dataclasses.fields(NativeSteps)
_COPIED = tuple(f.name for f in _FIELDS if hasattr(_DEFAULTS, f.name))


def _is_file(value):
    return isinstance(value, (str, bytes, os.PathLike)) or gfile.is_file_object(value)


def _tf_type_name(value):
    """The dtype TensorFlow would give `value` (Python ints are int32, floats float32)."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, int):
        return "int32"
    if isinstance(value, float):
        return "float32"
    return type(value).__name__


def _as_files(filenames):
    if isinstance(filenames, Dataset):
        return filenames
    if _is_file(filenames):
        return [gfile.as_path(filenames)]
    if isinstance(filenames, np.ndarray):
        filenames = filenames.ravel()
        filenames = filenames.tolist() if filenames.dtype.kind in "USO" else list(filenames)
    filenames = list(filenames)
    if all(type(f) is str for f in filenames):  # the usual list of paths: nothing to convert
        return filenames
    for f in filenames:
        if not _is_file(f):
            raise TypeError(
                "The `filenames` argument must contain `tf.string` elements. Got "
                f"`tf.{_tf_type_name(f)}` elements."
            )
    return [gfile.as_path(f) for f in filenames]


def inferred_spec(dataset: Any) -> dict[str, Any]:
    """Dataset.parse("auto")'s spec: swigflow.io.infer_spec over the first records of the
    TFRecordDataset that `dataset` reads through its chain of steps.

    Raises:
      InvalidArgumentError: no TFRecordDataset of known files lies below (pass a spec).
    """
    below = dataset
    while not isinstance(below, _NativeRecords):
        inputs = below._input_datasets()
        if len(inputs) != 1:
            what = "reads no TFRecord files" if not inputs else "has several inputs"
            raise errors.InvalidArgumentError(
                f'parse("auto") infers the spec from the TFRecordDataset it reads, and {below!r} '
                f"{what}: pass a spec"
            )
        below = inputs[0]
    if not isinstance(below._files, list) or not below._files:
        raise errors.InvalidArgumentError(
            'parse("auto") needs the files of the TFRecordDataset below it listed when it is '
            "made (not a dataset of file names): pass a spec"
        )
    files = _index.without_index_files(below._files)
    on_error = "raise" if below._on_error == "raise" else "skip_record"
    return schema.infer_spec(files, below._compression, on_error=on_error)


class _StoreAnswers:
    """What the store said of a dataset's remote files, kept for every iterator of the dataset
    and of those derived from it, so that a later epoch asks nothing: each cached file's
    description (shard_cache.described), the files found without an index file (absence is
    safe to remember: such a file is read without offsets), and the others' record offsets
    (a file rewritten since fails its records' length and CRC checks, never silently)."""

    def __init__(self):
        self.infos = {}
        self.unindexed = set()
        self.offsets = {}  # remote path -> the record offsets its index file gave


class _NativeRecords(Dataset, IteratorSeeds):
    def __init__(self, files, compression, on_error, steps, stage="source", known=None):
        self._files = files  # a list of paths, or a Dataset of them (read each epoch)
        self._compression = compression
        self._on_error = on_error
        self._steps = steps  # NativeSteps
        self._stage = stage
        self._known = _StoreAnswers() if known is None else known

    def _with(self, stage, **changes):
        steps = dataclasses.replace(self._steps, **changes)
        return _NativeRecords(
            self._files, self._compression, self._on_error, steps, stage, self._known
        )

    def _stage_name(self):
        return "TFRecordDataset"

    def _can(self, stage):
        return _ORDER.index(stage) > _ORDER.index(self._stage)

    def _identity(self):
        # The files count with their sizes.
        files = file_sizes(self._files) if isinstance(self._files, list) else self._files
        return dict(super()._identity(), _files=files, _steps=self._steps.identity())

    def _signature(self):
        c = self._steps
        steps = [f"TFRecords({len(self._files) if isinstance(self._files, list) else '*'})"]
        if c.num_shards > 1:
            steps.append(f"shard({c.num_shards},{c.shard_index})")
        if c.global_shuffle:
            steps.append("global_shuffle")
        if c.shuffle_buffer:
            steps.append(f"shuffle({c.shuffle_buffer})")
        if c.epochs != 1:
            steps.append(f"repeat({c.epochs})")
        if c.batch_size:
            steps.append(f"batch({c.batch_size})")
        if c.plan is not None:
            steps.append("parse(" + ",".join(sorted(c.features)) + ")")
        if c.images is not None:
            steps.append(f"decode_images({c.images['key']},{_images.describe(c.images)})")
        return ".".join(steps)

    # --- absorbed transformations ---------------------------------------------------------------

    def shard(self, num_shards, index, name=None):
        """tf.data's shard: record k of the files' interleaved sequence goes to shard
        k % num_shards, read at the shard's own offsets when every file has an index file.
        Every shard reads every file; to give each shard whole files instead, shard the file
        names: ``Dataset.list_files(...).shard(n, i).interleave(TFRecordDataset, ...)`` runs
        natively too."""
        if not self._can("shard") or self._steps.num_shards > 1:
            return super().shard(num_shards, index)
        num_shards, index = shard_args(num_shards, index)
        return self._with("shard", num_shards=num_shards, shard_index=index, shard_files=False)

    def global_shuffle(self, seed=None, reshuffle_each_iteration=True, name=None):
        """A seeded uniform shuffle of all records of all files (of this shard), which tf.data
        cannot do: needs an index file per file (``swigflow index FILE...``)."""
        if not self._can("global_shuffle"):
            raise ValueError("global_shuffle must come right after the TFRecordDataset (or shard)")
        return self._with(
            "global_shuffle",
            global_shuffle=True,
            global_seed=seed,
            reshuffle_each_iteration=bool(reshuffle_each_iteration),
        )

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        if not self._can("shuffle"):
            return super().shuffle(buffer_size, seed, reshuffle_each_iteration)
        if seed is None and not reshuffle_each_iteration:
            seed = new_seed()  # an unseeded fixed order is fixed once, as in tf.data
        return self._with(
            "shuffle",
            shuffle_buffer=positive_count("buffer_size", buffer_size),
            buffer_seed=seed,
            reshuffle_each_iteration=(
                bool(reshuffle_each_iteration) and self._steps.reshuffle_each_iteration
            ),
        )

    def repeat(self, count=None, name=None):
        count = None if count is None or int(count) < 0 else int(count)
        if self._steps.epochs != 1:
            return super().repeat(count)
        # Before a batch, batches run across epochs (as in tf.data); after, each epoch ends
        # with its own last batch. Either way each epoch is shuffled on its own.
        return self._with(
            "repeat" if self._can("repeat") else self._stage,
            epochs=-1 if count is None else count,
            batch_across_epochs=self._can("batch"),
        )

    def batch(
        self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
        name=None,
    ):  # fmt: skip
        if not self._can("batch"):
            return super().batch(batch_size, drop_remainder)
        return self._with(
            "batch",
            batch_size=batch_size_of(batch_size),
            drop_remainder=bool(drop_remainder),
        )

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        if isinstance(map_func, ParseFn) and self._can("parse"):
            return self._with("parse", plan=map_func.plan)
        return super().map(map_func, num_parallel_calls, deterministic)

    def decode_images(
        self, key="image/encoded", size=(224, 224), crop=None, flip=False, channels=3,
        dtype="uint8", layout="NHWC", mean=None, std=None, fast=False, seed=None,
        preprocess=None,
    ):  # fmt: skip
        features = self._steps.features
        if features is not None and key not in features:
            raise _images.missing_key(key, features)
        spec = None if features is None else features.get(key)
        fusable = (
            self._stage == "parse"
            and self._steps.batch_size
            and isinstance(spec, feature_spec.FixedLenFeature)
            and tuple(spec.shape) == ()
            and feature_spec.tf_type_name(spec.dtype) == "string"
        )
        if not fusable:
            return super().decode_images(
                key, size, crop, flip, channels, dtype, layout, mean, std, fast, seed, preprocess
            )
        options = _images.image_options(
            size, crop, flip, channels, dtype, layout, mean, std, fast, preprocess
        )
        options["key"] = key
        return self._with("decode_images", images=options, decode_seed=seed)

    def prefetch(self, buffer_size, name=None):
        # The native pipeline always works ahead (its queues hold at least one element);
        # prefetch(0) only stops it from working further ahead.
        size = min(prefetch_size(buffer_size), _pywrap.kMaxPrefetch)
        return self._with("prefetch" if self._can("prefetch") else self._stage, prefetch=size)

    def ignore_errors(self, log_warning=False, name=None):
        """tf.data's ignore_errors on TFRecord files: the records of a damaged file up to the
        damage, then the next file (on_error="skip_file", which logs file and offset). Errors
        the native pipeline still raises (a missing file) end the dataset. Later steps run in
        Python, so place it after the steps the pipeline absorbs:
        ``TFRecordDataset(files).batch(n).parse(spec).ignore_errors()``."""
        records = self
        if self._on_error == "raise":
            records = _NativeRecords(
                self._files, self._compression, "skip_file", self._steps, self._stage
            )
        return Dataset.ignore_errors(records, log_warning)

    def _input_datasets(self):
        return [self._files] if isinstance(self._files, Dataset) else []

    def _element_spec(self):
        c = self._steps
        if c.zero_copy and c.plan is None:  # RecordBuffers, not arrays
            return UnknownSpec("TFRecordDataset(zero_copy=True)")
        batch = (c.batch_size if c.drop_remainder else None) if c.batch_size else 0
        spec = TensorSpec(() if batch == 0 else (batch,), np.dtype(object))
        if c.plan is not None:
            spec = parsed_spec(c.features, spec)
        if c.images is not None:
            spec = _images.decoded_spec(spec, c.images["key"], c.images)
        return spec

    def reshuffles_per_iterator(self):
        c = self._steps
        shuffles = (c.global_shuffle and c.global_seed is not None) or (
            c.shuffle_buffer > 1 and c.buffer_seed is not None
        )
        return shuffles and c.reshuffle_each_iteration

    def _check_shardable(self):
        if not isinstance(self._files, list):
            check_shardable(self._files)

    def _reshard(self, num_shards, index):
        self._check_shardable()
        n, i = self._steps.num_shards, self._steps.shard_index
        # Shard (n, i) split again m ways is shard i + n * j of n * m, by records as before. An
        # unsharded dataset is split by whole files when there are enough of them (each worker
        # reads only its own files); either way the parts partition shard i.
        whole_files = n == 1 or self._steps.shard_files
        by_file = whole_files and n > 1 and isinstance(self._files, list)
        if by_file and n <= len(self._files) < n * num_shards:  # too few files to split again
            return Dataset.shard(self, num_shards, index)
        return self._with(
            self._stage,
            num_shards=n * num_shards,
            shard_index=i + n * index,
            shard_files=whole_files,
        )

    # --- iteration ------------------------------------------------------------------------------

    def _file_list(self, epoch):
        files = self._files
        if not isinstance(files, list):
            files = [os.fsdecode(os.fspath(f)) for f in epoch_elements(files, epoch)]
            files = _index.without_index_files(files)
        return files

    def _cache_registration(self, files):
        """While entered, the remote files are read through the dataset's shard cache (if any),
        the ones opened next fetched ahead."""
        c = self._steps
        if c.cache is None:
            return contextlib.nullcontext()
        order = files[c.shard_index :: c.num_shards] if c.shard_files else files
        remote = [f for f in order if isinstance(f, str) and gfile.is_remote(f)]
        return shard_cache.registered(
            remote, c.cache, ahead=c.cycle_length, known=self._known.infos
        )

    def _offsets(self, path):
        """Record offsets from path's index file (a compressed file's seek index, as bytes), or
        None (no index, or a stale one)."""
        remote = isinstance(path, str) and gfile.is_remote(path)
        if remote and path in self._known.unindexed:
            return None
        if remote and path in self._known.offsets:
            return self._known.offsets[path]
        if self._compression:
            found = _index.checked_default_seek_index(path, self._compression)
        else:
            found = _index.checked_default_index(path)
            found = None if found is None else found[0]
        if remote:  # asked once per dataset, as the files' versions are (see _StoreAnswers)
            if found is None:
                self._known.unindexed.add(path)
            else:
                self._known.offsets[path] = found
        return found

    def _index_offsets(self, files):
        """Every file's record offsets from its index file, or None. Offsets are used only when
        every file has them, so the first file without an index ends the lookups (a stat, not
        one per file)."""
        offsets = []
        for f in files:
            found = self._offsets(f)
            if found is None and self._steps.global_shuffle and _index.has_default_index(f):
                found = self._rebuilt_offsets(f)  # stale: rebuilt in memory, as TFRecordFile does
            if found is None:
                return None
            offsets.append(found)
        return offsets

    def _rebuilt_offsets(self, path):
        """path's record offsets (a compressed file's seek index) made by reading it once."""
        if self._compression:
            return _index.build_seek_index(path, self._compression)
        return _index.scan_records(path)[0]

    def _generate(self, state, epoch):
        c = self._steps
        epochs = c.epochs
        if state is None:
            seeds = []
            for seed in (c.global_seed, c.buffer_seed):
                if seed is None:
                    seed = new_seed()
                elif c.reshuffle_each_iteration:
                    seed = self.iterator_seed(seed)
                seeds.append(seed)
            state = {"seed": seeds, "epoch": 0, "position": 0}
        files = self._file_list(epoch)
        offsets = self._index_offsets(files)
        # Enclosing repeat()s move the epoch range.
        base = epoch * epochs if epochs > 0 else 0
        options = c.native_options()
        _pywrap.AddSourceFiles(options, files, offsets)
        options.record_options = native_options(self._compression)
        options.on_error = _ON_ERROR[self._on_error]
        options.seed = combined(*state["seed"])  # one native seed for both shuffles
        options.epochs = base + epochs if epochs > 0 else -1
        options.start_epoch = base + state["epoch"]
        options.start_position = state["position"]
        plan, images = c.plan, c.images
        if plan is not None:
            options.parse = True
            options.specs = plan.specs
        if images is not None:
            options.decode_images = True
            options.image_spec = plan.dense_index(images["key"])
            options.image = _images.batch_decode_options(images)
            # Crops and flips: decode_images(seed=...), else the iterator's own seed (so a state
            # resumes them too).
            image_seed = c.decode_seed if c.decode_seed is not None else state["seed"][1]
            options.image_seed = seed_bits(image_seed)
        options.collect_stats = _stats.collecting()
        # zero_copy views each batch as one array: the assembler copies its records into one
        # (on its own thread), rather than the consumer.
        options.contiguous = c.zero_copy and plan is None
        with self._cache_registration(files):
            yield from self._run(options, files, offsets, state, base)

    def _run(self, options, files, offsets, state, base):
        c = self._steps
        plan, images = c.plan, c.images
        pipeline = _pywrap.PyPipeline.Create(options)
        source = _stats.SourceInfo(
            files=files,
            compression=self._compression,
            num_parallel_reads=c.cycle_length,
            indexed=bool(files) and offsets is not None,
            batch_size=c.batch_size,
            parse=plan is not None,
            decode_images=images is not None,
            prefetch=c.prefetch,
        )
        done = _stats.native_stages(source, pipeline)
        try:
            yield from self._elements(pipeline, state, base, plan, images)
        finally:
            if done is not None:
                done()

    def _elements(self, pipeline, state, base, plan, images):
        c = self._steps
        view = c.zero_copy and plan is None
        next_element = _pywrap.method(pipeline, "NextView" if view else "Next")
        damages = _pywrap.method(pipeline, "TakeDamages")
        while True:
            item = next_element()
            for kind, offset, message in damages():
                log.warning("skipped damaged data (%s at %d): %s", kind, offset, message)
            if item is None:
                return
            payload, records, native_epoch, position = item
            position = {"seed": state["seed"], "epoch": native_epoch - base, "position": position}
            if plan is not None:
                image_key = images["key"] if images is not None else None
                parsed = plan.assemble(payload, records, passthrough=image_key)
                if images is not None:
                    parsed = _images.preprocessed(parsed, image_key, images)
                if not c.batch_size:
                    parsed = {k: feature_spec.drop_batch_dimension(v) for k, v in parsed.items()}
                yield parsed, position
            elif view:
                data, ends = payload
                yield (RecordBuffer(data, ends) if c.batch_size else memoryview(data)), position
            elif c.batch_size:
                batch = np.empty(records, dtype=object)
                batch[:] = payload
                yield batch, position
            else:
                yield payload[0], position

    def _check_state(self, state, where):
        if state is None:
            return
        if not isinstance(state, dict) or set(state) != {"seed", "epoch", "position"}:
            raise ValueError(
                f"{where}: expected a dict with ['epoch', 'position', 'seed'], got {state!r}"
            )
        seed = state["seed"]
        if not (isinstance(seed, list) and len(seed) == 2):
            raise ValueError(f"{where}['seed']: expected a list of two ints, got {seed!r}")
        for i, v in enumerate(seed):
            check_count(v, f"{where}['seed'][{i}]", *SEED_RANGE)
        epochs = self._steps.epochs
        last = epochs - 1 if epochs > 0 else INT64_MAX
        check_count(state["epoch"], f"{where}['epoch']", 0, last)
        check_count(state["position"], f"{where}['position']", 0)

    def _cardinality(self):
        c = self._steps
        if not isinstance(self._files, list):
            return UNKNOWN
        counts = []
        for f in self._files:
            offsets = self._offsets(f)
            if offsets is None:
                return INFINITE if c.epochs < 0 else UNKNOWN
            if isinstance(offsets, bytes):  # a compressed file's seek index
                offsets = _index.seek_index_records(offsets, f)[0]
            counts.append(len(offsets))
        n, i = c.num_shards, c.shard_index
        if n > 1 and c.shard_files and len(counts) >= n:
            records = sum(counts[f] for f in range(i, len(counts), n))
        else:
            total = sum(counts)
            records = total // n + (1 if total % n > i else 0)
        if c.epochs < 0:
            return 0 if records == 0 else INFINITE
        size = c.batch_size
        if not size:
            return records * c.epochs
        if c.batch_across_epochs:
            records *= c.epochs
            return records // size if c.drop_remainder else -(-records // size)
        per_epoch = records // size if c.drop_remainder else -(-records // size)
        return per_epoch * c.epochs


def TFRecordDataset(  # noqa: N802 - named like tf.data.TFRecordDataset, which is a class
    filenames: Any,
    compression_type: str | None = None,
    buffer_size: int | None = None,
    num_parallel_reads: int | None = None,
    on_error: str = "raise",
    name: str | None = None,
    zero_copy: bool = False,
    cache_dir: Any = None,
) -> Dataset:
    """The records of TFRecord files, as ``tf.data.TFRecordDataset``: bytes elements.

    Args:
      filenames: a path, a list of paths, or a Dataset of paths (e.g. Dataset.list_files).
      compression_type: "", "ZLIB" or "GZIP".
      buffer_size: ignored (reads are buffered natively).
      num_parallel_reads: files read at once, interleaved one record from each in turn
        (AUTOTUNE: one per core); default 1, one file after the other.
      on_error: "raise" (TensorFlow's behaviour: DataLossError after the records before the
        damage), "skip_record" (drop damaged records) or "skip_file" (drop the rest of a damaged
        file). Skipped damage is logged on the "swigflow.data" logger with file and offset.
      name: ignored.
      zero_copy: records without a bytes object each: a batch is a
        :class:`swigflow.io.RecordBuffer` (every payload in one read-only array, views per
        record), a single record a memoryview. Each element owns its memory: it stays valid as
        long as it is held. Ignored once the records are parsed natively (``.parse``).
      cache_dir: a directory (or a :class:`swigflow.io.ShardCache` with a byte budget) where
        remote files are kept whole once read to the end, by this and every later pass and
        process, which then read the local copy; the files after those open are fetched into
        it ahead. The store is asked for a file's version once per dataset: later epochs and
        iterators of this dataset read the copy as it was then (see ShardCache). Default:
        ``SWIGFLOW_CACHE_DIR`` (see swigflow.io.shard_cache).

    Files with an index file (``FILE.idx``, see ``swigflow index``) give the dataset a length,
    allow :meth:`global_shuffle`, and are read at their offsets when sharding by record.
    """
    del buffer_size, name
    if on_error not in _ON_ERROR:
        raise ValueError(f"on_error must be one of {sorted(_ON_ERROR)}, got {on_error!r}")
    compression = compression_name(compression_type)
    files = _as_files(filenames)
    if num_parallel_reads == 0 and isinstance(files, list) and not files:
        raise ValueError(
            "num_parallel_reads must be positive or AUTOTUNE, got 0, and filenames is an empty "
            "list: did the glob or filter that made it match no file?"
        )
    cycle = autotune_count(num_parallel_reads, cpu_count()) or 1
    # The native counts are int: beyond that, more files than any list holds and more records
    # per block than any file has read exactly as the bound does.
    steps = NativeSteps(
        cycle_length=min(cycle, _INT_MAX),
        zero_copy=bool(zero_copy),
        cache=shard_cache.as_cache(cache_dir),
    )
    if isinstance(files, list):  # a glob's index files, skipped with a note
        files = _index.without_index_files(files)
    return _NativeRecords(files, compression, on_error, steps)


def fuse_interleave(
    files: Any, map_func: Callable[..., Any], cycle_length: int, block_length: int
) -> Dataset | None:
    """files.interleave(f) as one native dataset when f makes a plain TFRecordDataset of its
    file (probed with a placeholder name: constructing a TFRecordDataset reads nothing)."""
    try:
        probe = map_func("probe")
    except Exception:  # any failure: not a TFRecordDataset factory
        return None
    if not isinstance(probe, _NativeRecords) or probe._stage != "source":
        return None
    if probe._files != ["probe"]:
        return None
    steps = dataclasses.replace(
        probe._steps,
        cycle_length=min(cycle_length, _INT_MAX),
        block_length=min(block_length, _INT_MAX),
    )
    return _NativeRecords(files, probe._compression, probe._on_error, steps)
