"""swigflow.data: a tf.data-style input pipeline, with the hot path in C++ threads.

::

    import swigflow

    ds = (swigflow.data.TFRecordDataset(files, num_parallel_reads=4)
          .shuffle(10_000, seed=1)
          .batch(512)
          .parse({"image": swigflow.io.FixedLenFeature([], "string"),
                  "label": swigflow.io.FixedLenFeature([], "int64")})
          .prefetch(2))
    it = ds.iterator()
    for batch in it:            # {"image": object array of bytes, "label": int64 array}
        ...
    state = it.state()          # JSON-able; ds.iterator(state=state) resumes exactly here

See docs/pipelines.md for what runs natively, sharding, index files, global
shuffles, damage policies and the PyTorch adapter; ``it.stats()`` and ``swigflow.data.profiler``
say what each stage did and why a training loop waits.
"""

from __future__ import annotations

from typing import Any

from swigflow.data import experimental, profiler, stats
from swigflow.data.checks import AUTOTUNE, INFINITE, UNKNOWN
from swigflow.data.data_source import TFRecordDataSource
from swigflow.data.dataset import Dataset
from swigflow.data.iterator import Iterator
from swigflow.data.options import (
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    Options,
    ThreadingOptions,
)
from swigflow.data.records import TFRecordDataset
from swigflow.specs import DatasetSpec, UnknownSpec


def __getattr__(
    name: str,
) -> Any:  # PEP 562: torch and grain are imported only when an adapter is used
    if name == "TorchIterableDataset":
        from swigflow.data.torch import TorchIterableDataset

        return TorchIterableDataset
    if name == "ParseExampleTransform":
        from swigflow.data.grain import ParseExampleTransform

        return ParseExampleTransform
    raise AttributeError(f"module 'swigflow.data' has no attribute {name!r}")


__all__ = [
    "AUTOTUNE",
    "INFINITE",
    "UNKNOWN",
    "AutotuneOptions",
    "Dataset",
    "DatasetSpec",
    "DistributeOptions",
    "Iterator",
    "OptimizationOptions",
    "Options",
    "ParseExampleTransform",
    "TFRecordDataSource",
    "TFRecordDataset",
    "ThreadingOptions",
    "TorchIterableDataset",
    "UnknownSpec",
    "experimental",
    "profiler",
    "stats",
]
