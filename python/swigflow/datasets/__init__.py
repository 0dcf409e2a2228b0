"""swigflow.datasets: read TensorFlow Datasets (TFDS) prepared datasets without TensorFlow.

Named like TFDS, so that reading code ports by changing an import::

    import swigflow.datasets as tfds

    ds, info = tfds.load("mnist", split="train[:10%]", data_dir="gs://bucket/tfds",
                         with_info=True)
    for example in ds.batch(64):        # numpy values, as tfds.as_numpy gives them
        ...
    info.features["label"].names
    source = tfds.data_source("mnist", split="test")   # random access, TFRecord included

Reads ``dataset_info.json``, ``features.json`` and the shards (TFRecord; ArrayRecord through the
optional ``array_record`` package) from any local path or fsspec URL, decodes every feature
connector of TFDS 4.9 as ``tfds.as_numpy(builder.as_dataset(...))`` returns it, and resolves
TFDS's split language to the same examples in the same order. Neither tensorflow nor
tensorflow_datasets is imported. See docs/tfds.md.
"""

from __future__ import annotations

from typing import Any

from swigflow.datasets import decode, features
from swigflow.datasets.builder import (
    ReadOnlyBuilder,
    builder,
    builder_from_directories,
    builder_from_directory,
    data_source,
    default_data_dir,
    load,
)
from swigflow.datasets.data_source import DataSource
from swigflow.datasets.info import DatasetInfo, SplitInfo, Version
from swigflow.datasets.reading import InputContext, ReadConfig
from swigflow.datasets.splits import (
    ReadInstruction,
    Split,
    even_splits,
    split_for_jax_process,
)


def as_numpy(dataset: Any) -> Any:
    """``tfds.as_numpy``: swigflow's datasets already give numpy values, so this returns an
    iterable over `dataset` (or the same structure of iterables for a dict/list/tuple of
    datasets); numpy values pass through.

    Args:
        dataset: a Dataset, a dict / list / tuple of them, or numpy values.

    Returns:
        An iterable over the dataset's elements, or the same structure of them.
    """
    from swigflow.data import Dataset

    if isinstance(dataset, Dataset):
        return dataset.as_numpy_iterator()
    if isinstance(dataset, dict):
        return {k: as_numpy(v) for k, v in dataset.items()}
    if isinstance(dataset, (list, tuple)):
        return type(dataset)(as_numpy(v) for v in dataset)
    return dataset


__all__ = [
    "DataSource",
    "DatasetInfo",
    "InputContext",
    "ReadConfig",
    "ReadInstruction",
    "ReadOnlyBuilder",
    "Split",
    "SplitInfo",
    "Version",
    "as_numpy",
    "builder",
    "builder_from_directories",
    "builder_from_directory",
    "data_source",
    "decode",
    "default_data_dir",
    "even_splits",
    "features",
    "load",
    "split_for_jax_process",
]
