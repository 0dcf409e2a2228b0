"""Reading a TFDS split: the same records in the same order as ``builder.as_dataset``, parsed
and decoded on swigflow's pipeline, and random access over them (``as_data_source``).

as_dataset follows TFDS's reader (``reader.py``): the split's file instructions (a file, how
many records to skip and to take) go through ReadConfig's per-host sharding, the optional
seeded file shuffle, then an interleave of ``cycle_length`` files (16 by default, 1 for
datasets with disable_shuffling) taking ``block_length`` records from each in turn. Whole files
are read by the native pipeline (the interleave runs in C++ threads); files read in part
(a split slice's edges) are skipped and taken record by record. The records are parsed in
batches natively and decoded (images, encodings, casts) by ``decode_threads`` threads.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import functools
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.data import Dataset, TFRecordDataset
from swigflow.data.checks import AUTOTUNE, cpu_count
from swigflow.data.elements import Failed
from swigflow.data.protocol import iterate
from swigflow.data.steps.base import Unary
from swigflow.datasets import features as features_lib
from swigflow.datasets import splits as splits_lib


class _Missing:
    """ReadConfig's "TFDS's default" marker (tfds.ReadConfig's MISSING)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()
_PARSE_BATCH = 64  # records parsed per native call before decoding


@dataclasses.dataclass
class InputContext:
    """Which of `num_input_pipelines` readers this is (``tf.distribute.InputContext``'s
    fields, all ReadConfig reads).

    Args:
        num_input_pipelines: how many readers share the files.
        input_pipeline_id: this reader's index, in [0, num_input_pipelines).
        num_replicas_in_sync: accepted for tf.distribute's sake; unused.
    """

    num_input_pipelines: int = 1
    input_pipeline_id: int = 0
    num_replicas_in_sync: int = 1


@dataclasses.dataclass
class ReadConfig:
    """``tfds.ReadConfig``: how a split is read.

    Args:
        options: accepted for TFDS's sake (a tf.data.Options); unused.
        try_autocache: accepted for TFDS's sake; unused (see cache_dir).
        repeat_filenames: repeat the files forever (the split's dataset is then infinite).
        add_tfds_id: give each example a "tfds_id" (TFDS's ``file.tfrecord-00000-of-00001__7``
            form).
        shuffle_seed: the seed of the file shuffle of ``shuffle_files=True`` (swigflow's
            seeded shuffle: a fixed order for a seed, not TensorFlow's order).
        shuffle_reshuffle_each_iteration: shuffle the files anew on each pass.
        interleave_cycle_length: files read at once (default 16; 1 for datasets that disable
            shuffling).
        interleave_block_length: records taken from each file in turn (default 16).
        input_context: an InputContext (or tf.distribute.InputContext): files are sharded
            between the input pipelines, as TFDS does.
        experimental_interleave_sort_fn: a function reordering the split's file instructions.
        skip_prefetch: accepted for TFDS's sake; unused.
        num_parallel_calls_for_decode: accepted for TFDS's sake (see decode_threads).
        num_parallel_calls_for_interleave_files: accepted for TFDS's sake; unused.
        enable_ordering_guard: raise ValueError when a dataset that disables shuffling would
            be read out of order (shuffled files, or a cycle length other than 1).
        assert_cardinality: raise DataLossError when the split's files hold another number of
            examples than dataset_info.json says.
        override_buffer_size: accepted for TFDS's sake; unused.
        decode_threads: threads decoding examples (swigflow's; AUTOTUNE: one per core).
        cache_dir: swigflow's shard cache for remote data_dirs (a directory or a
            swigflow.io.ShardCache; default SWIGFLOW_CACHE_DIR): shards are kept whole once
            read, and later epochs read the copies (see swigflow.data.TFRecordDataset).
    """

    options: object = None
    try_autocache: bool = True
    repeat_filenames: bool = False
    add_tfds_id: bool = False
    shuffle_seed: int | None = None
    shuffle_reshuffle_each_iteration: bool | None = None
    interleave_cycle_length: int | _Missing = MISSING
    interleave_block_length: int | None = 16
    input_context: object = None
    experimental_interleave_sort_fn: object = None
    skip_prefetch: bool = False
    num_parallel_calls_for_decode: int | None = None
    num_parallel_calls_for_interleave_files: int | None = None
    enable_ordering_guard: bool = True
    assert_cardinality: bool = True
    override_buffer_size: int | None = None
    decode_threads: int = AUTOTUNE
    cache_dir: object = None


def _pipelines(context):
    return int(context.num_input_pipelines), int(context.input_pipeline_id)


def _check_ordered(read_config, cycle_length, shuffle_files):
    problems = []
    if shuffle_files:
        problems.append(
            "Dataset is an ordered dataset ('disable_shuffling=True'), but examples will not "
            "be read in order because `shuffle_files=True`."
        )
    if cycle_length != 1:
        problems.append(
            "Dataset is an ordered dataset ('disable_shuffling=True'), but examples will not "
            "be read in order because `ReadConfig.interleave_cycle_length != 1`."
        )
    if problems and read_config.enable_ordering_guard:
        raise ValueError("\n".join(problems))


def _id_prefixes(instructions):
    """TFDS's tfds_id prefix per file: the basename, or dir/basename when files of several
    directories are read."""
    dirs = {os.path.dirname(i.filename) for i in instructions}
    if len(dirs) == 1:
        return {i.filename: os.path.basename(i.filename) for i in instructions}
    return {i.filename: "/".join(i.filename.rsplit("/", 2)[-2:]) for i in instructions}


def _record_source(instructions, read_config, shuffle_files, disable_shuffling, file_format):
    """The split's serialized records (with their tfds_id when asked), in TFDS's order."""
    if read_config.experimental_interleave_sort_fn is not None:
        instructions = list(read_config.experimental_interleave_sort_fn(instructions))
    cycle = read_config.interleave_cycle_length
    if cycle is MISSING:
        cycle = 1 if disable_shuffling else 16
    if disable_shuffling:
        _check_ordered(read_config, cycle, shuffle_files)
    block = read_config.interleave_block_length or 1
    order = Dataset.range(len(instructions))
    context = read_config.input_context
    if context is not None:
        count, index = _pipelines(context)
        if count > 1 and len(instructions) < count:
            raise ValueError(
                f"Cannot shard the pipeline with given `input_context`.`num_shards="
                f"{len(instructions)}` but `num_input_pipelines={count}`. This means that some "
                "workers won't read any data. To shard the data, you may want to use the "
                "subsplit API instead: https://www.tensorflow.org/datasets/splits"
            )
        order = order.shard(count, index)
    if shuffle_files:
        order = order.shuffle(
            len(instructions),
            seed=read_config.shuffle_seed,
            reshuffle_each_iteration=read_config.shuffle_reshuffle_each_iteration,
        )
    if read_config.repeat_filenames:
        order = order.repeat()
    paths = [os.fspath(i.filename) for i in instructions]
    if file_format == "array_record":
        from swigflow.datasets import array_record

        make = functools.partial(array_record.records_of, instructions)
        return order.interleave(make, cycle_length=cycle, block_length=block)
    partial = any(i.skip > 0 or not i.takes_all for i in instructions)
    records = functools.partial(TFRecordDataset, cache_dir=read_config.cache_dir)
    if read_config.add_tfds_id:
        prefixes = _id_prefixes(instructions)
        make = functools.partial(_records_with_ids, records, instructions, prefixes)
    elif partial:
        make = functools.partial(_partial_records, records, instructions)
    else:
        # A plain TFRecordDataset factory over a dataset of paths: fused into the native
        # pipeline's interleave.
        files = order.map(functools.partial(_path_of, paths))
        return files.interleave(records, cycle_length=cycle, block_length=block)
    return order.interleave(make, cycle_length=cycle, block_length=block)


def _path_of(paths, index):
    return paths[int(index)]


def _partial_records(records, instructions, index):
    instruction = instructions[int(index)]
    records = records(os.fspath(instruction.filename))
    if instruction.skip:
        records = records.skip(instruction.skip)
    if not instruction.takes_all:
        records = records.take(instruction.take)
    return records


def _records_with_ids(records, instructions, prefixes, index):
    instruction = instructions[int(index)]
    records = _partial_records(records, instructions, index)
    prefix = prefixes[instruction.filename]
    ids = Dataset.counter(instruction.skip).map(functools.partial(_tfds_id, prefix))
    return Dataset.zip((ids, records))


def _tfds_id(prefix, position):
    return f"{prefix}__{int(position)}".encode()


class Decoded(Unary):
    """Batches of serialized examples (bytes, or (tfds_id, bytes) pairs) parsed natively and
    decoded into TFDS's values, one example per element. Decoding runs on `threads` threads,
    a batch each, in order. The state is the input's position before the current batch and the
    row within it, as Unbatch's."""

    def __init__(
        self,
        input_dataset: Any,
        plan: Any,
        decoders: Any,
        threads: int,
        expected: int | None,
        split_name: str,
    ) -> None:
        super().__init__(input_dataset)
        self._plan = plan
        self._decoders = decoders
        self._threads = threads
        self._expected = expected  # examples the info promises (None: unchecked)
        self._split = split_name

    def _stage_name(self):
        return "decode_tfds"

    def _cardinality(self):
        return self._expected if self._expected is not None else super()._cardinality()

    def _decode_batch(self, element):
        if type(element) is Failed:
            return element
        ids = None
        if isinstance(element, tuple):
            ids, element = element
        records = list(np.asarray(element, dtype=object).reshape(-1))
        try:
            rows = self._plan.decode_records(records, self._decoders)
            if ids is not None:
                for row, tfds_id in zip(rows, ids):
                    row["tfds_id"] = tfds_id
        except errors.ResourceExhaustedError:
            raise
        except Exception as e:  # this batch's records fail; the pipeline reports them
            return Failed(e)
        return rows

    def _generate(self, state, epoch):
        before, skip = (None, 0) if state is None else (state["before"], state["row"])
        threads = self._threads
        pool = concurrent.futures.ThreadPoolExecutor(threads) if threads > 1 else None
        pending = collections.deque()
        count = 0
        checked = state is None and self._expected is not None
        try:
            source = iterate(self._input, before, epoch)
            exhausted = False
            while True:
                while not exhausted and len(pending) < max(1, 2 * threads):
                    try:
                        element, position = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    job = (
                        pool.submit(self._decode_batch, element)
                        if pool
                        else _Done(self._decode_batch(element))
                    )
                    pending.append((job, position))
                if not pending:
                    break
                job, position = pending.popleft()
                rows = job.result()
                if type(rows) is Failed:
                    yield rows, {"before": position, "row": 0}
                    before = position
                    continue
                for row in range(skip, len(rows)):
                    done = row + 1 == len(rows)
                    count += 1
                    yield (
                        rows[row],
                        {"before": position if done else before, "row": 0 if done else row + 1},
                    )
                skip = 0
                before = position
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        if checked and count != self._expected:
            raise errors.DataLossError(
                f"split {self._split!r} has {count} examples, but dataset_info.json says "
                f"{self._expected}"
            )

    def _check_state(self, state, where):
        if state is not None:
            self._input._check_state(state.get("before"), f"{where}['before']")


class _Done:
    def __init__(self, value):
        self._value = value

    def result(self):
        return self._value


def count_mismatches(instructions: Sequence[Any]) -> list[tuple[str, int, int]]:
    """Files whose record count differs from their shard length: [(path, found, expected)]."""
    from swigflow.io.index import TFRecordFile

    out = []
    for instruction in instructions:
        with TFRecordFile(os.fspath(instruction.filename)) as records:
            found = len(records)
        if found != instruction.examples_in_shard:
            out.append((os.fspath(instruction.filename), found, instruction.examples_in_shard))
    return out


def as_dataset(
    info: Any,
    split: Any,
    *,
    shuffle_files: bool = False,
    read_config: ReadConfig | None = None,
    decoders: Any = None,
    as_supervised: bool = False,
) -> Dataset:
    """One split's Dataset (see the module's docstring)."""
    read_config = read_config or ReadConfig()
    instructions = splits_lib.resolve(split, info.splits)
    if not instructions:
        raise ValueError(f"Instruction {instructions} corresponds to no data!")
    _check_files(instructions)
    records = _record_source(
        instructions, read_config, shuffle_files, info.disable_shuffling, info.file_format
    )
    threads = read_config.decode_threads
    threads = cpu_count() if threads in (None, AUTOTUNE) else max(1, int(threads))
    expected = None
    unsharded = read_config.input_context is None and not read_config.repeat_filenames
    if read_config.assert_cardinality and unsharded:
        expected = sum(i.num_examples for i in instructions)
    plan = features_lib.decode_plan(info.features)
    name = split if isinstance(split, str) else repr(split)
    ds = Decoded(records.batch(_PARSE_BATCH), plan, decoders, threads, expected, name)
    if expected is not None:
        ds = _CountChecked(ds, instructions, name)
    if as_supervised:
        keys = info.supervised_keys
        if not keys:
            raise ValueError(
                f"as_supervised=True but {info.name} does not support a supervised structure."
            )
        ds = ds.map(functools.partial(_supervised, keys))
    return ds


def _supervised(keys, example):
    def pick(key):
        if isinstance(key, dict):
            return {k: pick(v) for k, v in key.items()}
        if isinstance(key, tuple):
            return tuple(pick(k) for k in key)
        return example[key]

    return tuple(pick(k) for k in keys)


class _CountChecked(Unary):
    """Names the shard whose record count disagrees with dataset_info.json when the split's
    count check fails (counting each file only then)."""

    def __init__(self, input_dataset, instructions, split):
        super().__init__(input_dataset)
        self._instructions = instructions
        self._split = split

    def _cardinality(self):
        return self._input._cardinality()

    def _generate(self, state, epoch):
        try:
            yield from iterate(self._input, state, epoch)
        except errors.DataLossError as e:
            if "dataset_info.json says" not in e.message:
                raise
            found = count_mismatches(self._instructions)
            if not found:
                raise
            path, count, expected = found[0]
            raise errors.DataLossError(
                f"{path} has {count} records, but dataset_info.json says {expected} "
                f"(split {self._split!r})"
            ) from None


def _check_files(instructions):
    from swigflow.io import gfile

    for instruction in instructions:
        path = os.fspath(instruction.filename)
        if not gfile.exists(path):
            raise errors.NotFoundError(f"{path} not found: dataset_info.json lists it as a shard")
