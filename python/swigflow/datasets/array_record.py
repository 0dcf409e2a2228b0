"""ArrayRecord-format TFDS datasets, read through the ``array_record`` package (the optional
extra ``swigflow[array_record]``), imported only when such a dataset is read."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from swigflow.data import Dataset

_BATCH = 256  # records read per call when a file is streamed


def _module():
    try:
        from array_record.python import array_record_data_source
    except ImportError:
        raise ImportError(
            "reading an ArrayRecord dataset needs the array_record package: "
            "pip install 'swigflow[array_record]'"
        ) from None
    return array_record_data_source


def source(instructions: Sequence[Any]) -> Any:
    """An ArrayRecordDataSource over the instructions' records, in order."""
    paths = [f"{i.filename}[{i.skip}:{i.skip + i.num_examples}]" for i in instructions]
    return _module().ArrayRecordDataSource(paths)


def records_of(instructions: Sequence[Any], index: Any) -> Dataset:
    """The records of instruction `index` as a Dataset of bytes (as_dataset's per-file
    stream; TFDS itself reads ArrayRecord only at random)."""
    instruction = instructions[int(index)]
    reader = source([instruction])
    read = functools.partial(_read, reader)
    return Dataset.range(instruction.num_examples).batch(_BATCH).map(read).unbatch()


def _read(reader, keys):
    return np.array(reader.__getitems__([int(k) for k in keys]), dtype=object)
