"""A TFDS-prepared split as a Ray Data datasource (imports Ray): decoded columns, as
swigflow.datasets decodes them. Use it through :func:`swigflow.ray.read_tfds`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata
from ray.data.extensions import ArrowTensorArray

from swigflow import errors
from swigflow.data import Dataset
from swigflow.datasets import features as features_lib
from swigflow.datasets import splits as splits_lib
from swigflow.io import TFRecordReader
from swigflow.tensors import RaggedTensor

DECODE_BATCH = 256  # records decoded per call; also the rows of a block


class TFDSDatasource(Datasource):
    """The examples of one split of a prepared TFDS dataset (TFRecord files), in file order,
    with the split's files divided between read tasks. Columns are the features' ``/``-joined
    keys: ClassLabel as int64, images as tensors (of each image's own shape when they vary),
    Text as bytes, ragged sequences as nested lists, and a Dataset feature (RLDS steps) as a
    column per step field holding each episode's stacked steps."""

    def __init__(self, builder: Any, split: Any, decoders: Any = None) -> None:
        info = builder.info
        if info.file_format != "tfrecord":
            raise NotImplementedError(
                f"Ray reads TFRecord datasets; {info.name} is {info.file_format}"
            )
        self._name = info.full_name
        self._features = info.features
        self._decoders = decoders
        self._instructions = splits_lib.resolve(split, info.splits)
        if not self._instructions:
            raise ValueError(f"Instruction {self._instructions} corresponds to no data!")
        self._bytes = sum(s.num_bytes for s in info.splits.values()) / max(
            1, sum(s.num_examples for s in info.splits.values())
        )

    def get_name(self) -> str:
        return f"TFDS({self._name})"

    def estimate_inmemory_data_size(self) -> int:
        return int(self._bytes * sum(i.num_examples for i in self._instructions))

    def get_read_tasks(
        self,
        parallelism: Any,
        per_task_row_limit: Any = None,
        data_context: Any = None,
        **kwargs: Any,
    ) -> list[Any]:
        del per_task_row_limit, data_context, kwargs
        count = max(1, min(parallelism, len(self._instructions)))
        groups = np.array_split(np.arange(len(self._instructions)), count)
        tasks = []
        for group in groups:
            instructions = [self._instructions[i] for i in group]
            rows = sum(i.num_examples for i in instructions)
            metadata = BlockMetadata(
                num_rows=rows,
                size_bytes=int(self._bytes * rows),
                input_files=[str(i.filename) for i in instructions],
                exec_stats=None,
            )
            read = _Read(instructions, self._features, self._decoders)
            tasks.append(ReadTask(read, metadata))
        return tasks


class _Read:
    def __init__(self, instructions, features, decoders):
        self._instructions = instructions
        self._features = features
        self._decoders = decoders

    def __call__(self):
        plan = features_lib.decode_plan(self._features)
        for instruction in self._instructions:
            for records in _records(instruction):
                rows = plan.decode_records(records, self._decoders)
                yield to_table(rows)


def _records(instruction):
    """The instruction's records in batches of DECODE_BATCH (the records it skips are read and
    dropped: TFRecord has no index of records here)."""
    path = str(instruction.filename)
    first, end = instruction.skip, instruction.skip + instruction.num_examples
    position = 0
    with TFRecordReader(path) as reader:
        while position < end:
            batch = reader.read_batch(min(end - position, DECODE_BATCH))
            if not batch:
                raise errors.DataLossError(
                    f"{path} has {position} records, but dataset_info.json says "
                    f"{instruction.examples_in_shard}"
                )
            if position + len(batch) > first:
                yield batch[max(0, first - position) :]
            position += len(batch)


def _flat(example, prefix, out):
    for key, value in example.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flat(value, f"{name}/", out)
        elif isinstance(value, Dataset):
            steps = list(value)
            fields = {}
            for step in steps:
                flat = {}
                _flat(step, "", flat)
                for k, v in flat.items():
                    fields.setdefault(k, []).append(v)
            for k, values in fields.items():
                out[f"{name}/{k}"] = _stacked(values)
        else:
            out[name] = value
    return out


def _stacked(values):
    if values and isinstance(values[0], bytes):  # never an "S" array: it drops trailing NULs
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    try:
        return np.stack([np.asarray(v) for v in values])
    except ValueError:
        return np.array(values, dtype=object)


def _column(values):
    first = values[0]
    if isinstance(first, RaggedTensor):
        return pa.array([v.to_list() for v in values])
    if isinstance(first, bytes):
        return pa.array(values, type=pa.binary())
    if isinstance(first, np.ndarray) and first.dtype == object:
        return pa.array([[bytes(x) for x in v.reshape(-1)] for v in values], pa.list_(pa.binary()))
    if isinstance(first, np.generic) or np.ndim(first) == 0:
        return pa.array(np.asarray(values))
    shapes = {np.shape(v) for v in values}
    if len(shapes) == 1:
        return ArrowTensorArray.from_numpy(np.stack(values))
    if np.asarray(first).dtype == np.bool_:  # Ray's variable-shaped tensors hold no bools
        return pa.array([np.asarray(v).tolist() for v in values])
    ragged = np.empty(len(values), dtype=object)
    ragged[:] = values
    return ArrowTensorArray.from_numpy(ragged)


def to_table(rows: Any) -> Any:
    """A pyarrow Table of decoded examples."""
    flat = [_flat(row, "", {}) for row in rows]
    return pa.table({key: _column([r[key] for r in flat]) for key in flat[0]})
