"""Random access to a TFDS split (``builder.as_data_source``), for PyTorch samplers and Grain:
``len``, ``[i]`` and ``__getitems__``, picklable. Values are what TFDS's data sources return
(its numpy path): shape () values as Python scalars, ragged ones as nested lists; images are
decoded as TensorFlow decodes them (TFDS's numpy path uses PIL or OpenCV, whose JPEG IDCT
differs from TensorFlow's by a few levels).

TFDS reads only ArrayRecord and Parquet at random; a TFRecord split is read here through
swigflow's record indexes (``FILE.idx`` when present and valid, else a scan of each file once).
Record i is the i-th of the split's file instructions taken in order, as TFDS's own data
sources number them.
"""

from __future__ import annotations

import concurrent.futures
import operator
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.data import TFRecordDataSource
from swigflow.data.checks import cpu_count
from swigflow.datasets import features as features_lib
from swigflow.datasets import splits as splits_lib


class DataSource:
    """The decoded examples of one split by index.

    ::

        source = swigflow.datasets.data_source("mnist", split="train", data_dir=d)
        len(source), source[0]["label"], source.__getitems__([5, 2, 7])
        loader = torch.utils.data.DataLoader(source, batch_size=64, num_workers=2)

    Args:
        info: the dataset's DatasetInfo.
        split: a split expression or ReadInstruction.
        decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
            e.g. {"image": SkipDecoding()} to keep the encoded bytes.
    """

    def __init__(self, info: Any, split: Any, decoders: Any = None) -> None:
        self.dataset_info: Any = info
        self.split: Any = split
        self.decoders: Any = decoders
        instructions = splits_lib.resolve(split, info.splits)
        self._plan = features_lib.decode_plan(info.features)
        if info.file_format == "array_record":
            from swigflow.datasets import array_record

            self._records = array_record.source(instructions) if instructions else []
            self._keys = np.arange(sum(i.num_examples for i in instructions), dtype=np.int64)
        elif info.file_format == "tfrecord":
            self._records, self._keys = _tfrecord_source(instructions)
        else:
            raise errors.UnimplementedError(
                f"{info.name}: random access to {info.file_format} files is not supported"
            )

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, index: int) -> Any:
        i = operator.index(index)
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"index {index} out of range for {n} examples")
        return self.__getitems__([i % n])[0]

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        """The examples at `indices`, read in one batch (parallel, without the GIL)."""
        picks = np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(self)
        bad = (picks < -n) | (picks >= n)
        if bad.any():
            raise IndexError(f"index {int(picks[bad][0])} out of range for {n} examples")
        keys = self._keys[picks % n] if n else picks
        if not len(keys):
            return []
        records = self._records.__getitems__(keys.tolist())
        return self._plan.decode_records(records, self.decoders, True, _decode_pool())

    def __iter__(self) -> Iterator[Any]:
        for start in range(0, len(self), 64):
            yield from self.__getitems__(range(start, min(start + 64, len(self))))

    def __repr__(self) -> str:
        return (
            f"DataSource(name={self.dataset_info.name}, split={self.split!r}, "
            f"num_examples={len(self)})"
        )


_POOL = (None, None)  # (process id, executor): threads do not survive a fork


def _decode_pool():
    """This process's decoding threads (one per core), made on first use."""
    global _POOL
    pid, pool = _POOL
    if pid != os.getpid():
        pool = concurrent.futures.ThreadPoolExecutor(cpu_count(), "swigflow-tfds-decode")
        _POOL = (os.getpid(), pool)
    return pool


def _tfrecord_source(instructions):
    """The records of the instructions' files by index, and the key of each example."""
    paths = list(dict.fromkeys(str(i.filename) for i in instructions))
    if not paths:
        return None, np.zeros(0, np.int64)
    source = TFRecordDataSource(paths)
    counts = dict(zip(paths, source.record_counts))
    starts = dict(zip(paths, np.cumsum([0, *source.record_counts[:-1]]).tolist()))
    keys = []
    for instruction in instructions:
        path = str(instruction.filename)
        if counts[path] != instruction.examples_in_shard:
            raise errors.DataLossError(
                f"{path} has {counts[path]} records, but dataset_info.json says "
                f"{instruction.examples_in_shard}"
            )
        first = starts[path] + instruction.skip
        keys.append(np.arange(first, first + instruction.num_examples, dtype=np.int64))
    return source, np.concatenate(keys)
