"""TFRecord datasets on `Ray Data <https://docs.ray.io/en/latest/data/data.html>`_, read and
written natively (``pip install swigflow[ray]``; Ray is imported only when this is used).

::

    import swigflow.ray

    ds = swigflow.ray.read_tfrecords("s3://bucket/train/")      # a ray.data.Dataset
    ds = ds.map_batches(preprocess)
    swigflow.ray.write_tfrecords(ds, "s3://bucket/train-clean/")

Each read task reads its files (or, for indexed files, its ranges of records) with the native
reader, CRCs checked, and parses them with the C++ ``parse_example``: no TensorFlow anywhere.
Paths take every scheme :mod:`swigflow.io.gfile` does.
"""

from __future__ import annotations

import importlib
from typing import Any

from swigflow.io.tf_record import SEEK_BLOCK_SIZE

_CLASSES = ("TFRecordDatasource", "TFRecordDatasink")


def read_tfrecords(
    paths: Any,
    *,
    spec: Any = None,
    compression_type: str | int | None = None,
    on_error: str = "raise",
    override_num_blocks: Any = None,
    schema_records: Any = None,
    cache_dir: Any = None,
) -> Any:
    """A ``ray.data.Dataset`` of the Examples in ``paths``, one column per feature.

    Args:
      paths: a file, directory (its TFRecord files; index files are skipped) or glob pattern,
        or a list of them; local paths or URLs.
      spec: ``{key: FixedLenFeature | VarLenFeature | ...}`` as for ``parse_example``. None
        infers it as ``swigflow inspect`` does, from the first ``schema_records`` records.
      compression_type: ``"GZIP"``, ``"ZLIB"`` or ``""`` (none) for every file; None tells
        each file's from its first bytes (GZIP's magic, a zlib header), as Ray's own reader
        does, so one read may mix them.
      on_error: ``"raise"`` (a DataLossError naming the file and offset), ``"skip_record"``
        (damaged records are skipped with a warning, the rest is read) or ``"skip_file"``.
      override_num_blocks: the number of read tasks (Ray chooses by default). Indexed
        uncompressed files are split across tasks at record offsets.
      schema_records: records read to infer the spec (default
        :data:`swigflow.ray.sources.SCHEMA_RECORDS`).
      cache_dir: a directory on each node (or a :class:`swigflow.io.ShardCache`) where remote
        files read whole by a task are kept, and read from by later tasks and epochs (see
        ``TFRecordDataset(cache_dir=...)``). Default: the tasks' ``SWIGFLOW_CACHE_DIR``.

    Rows come in file and record order when Ray keeps the order
    (``DataContext.get_current().execution_options.preserve_order = True``); otherwise blocks
    arrive as tasks finish, as from any Ray source.

    Columns: a FixedLenFeature of shape ``[]`` is a scalar column, a larger shape a tensor
    column; a VarLenFeature is a column of 1-D arrays; strings are bytes.
    """
    sources = _sources()
    import ray.data

    source = sources.TFRecordDatasource(
        paths,
        spec=spec,
        compression_type=compression_type,
        on_error=on_error,
        schema_records=schema_records,
        cache_dir=cache_dir,
    )
    return ray.data.read_datasource(source, override_num_blocks=override_num_blocks)


def write_tfrecords(
    dataset: Any,
    path: str,
    *,
    compression_type: str | None = None,
    num_rows_per_file: int | None = None,
    mode: str = "error",
    seek_block_size: int | None = SEEK_BLOCK_SIZE,
) -> list[str]:
    """Writes ``dataset`` (a ``ray.data.Dataset``) as TFRecord files of tf.train.Example under
    the directory ``path``, and returns the files written, in order.

    Each row becomes an Example, encoded natively: integer and bool columns as int64_list,
    floating columns as float_list, bytes and str columns as bytes_list (str as UTF-8);
    array-valued cells give a list of their values (flattened), None an empty list.

    One file per block (or per ``num_rows_per_file`` rows), named
    ``part-TTTTTT-KKKKKK.tfrecord`` so that sorted names are the dataset's order:
    ``TFRecordDataset(Dataset.list_files(path + "/*.tfrecord", shuffle=False))`` reads the rows
    back in order. Each file appears only when complete, with its index file (a seek index
    when compressed, so ``TFRecordDataSource`` and ``global_shuffle`` read them at random). GZIP
    files are chains of independent members of ``seek_block_size`` uncompressed bytes (see
    ``TFRecordOptions``; None writes one stream, as TensorFlow does); TensorFlow and every gzip
    reader read them as one stream.

    ``mode="error"`` (the default) refuses a folder that already holds files with
    ``AlreadyExistsError``: new parts beside an earlier write's would read back as both.
    ``mode="overwrite"`` first removes the files an earlier write made (``part-*.tfrecord*`` and
    their index files), and only those.

    Args:
        dataset: a ray.data.Dataset.
        path: the output directory (local path or URL).
        compression_type: None, "ZLIB" or "GZIP".
        num_rows_per_file: rows per file; None: one file per block.
        mode: "error" or "overwrite", as above.
        seek_block_size: the uncompressed bytes of a GZIP member; None: one stream.

    Returns:
        The paths written, in order.

    Raises:
        AlreadyExistsError: mode "error" and the folder holds files.
    """
    from ray.data import DataContext

    sink = _sources().TFRecordDatasink(
        path,
        compression_type=compression_type,
        num_rows_per_file=num_rows_per_file,
        mode=mode,
        seek_block_size=seek_block_size,
    )
    # File names follow the write tasks' order, which is the dataset's only with order kept.
    options = DataContext.get_current().execution_options
    saved = options.preserve_order
    options.preserve_order = True
    try:
        dataset.write_datasink(sink)
    finally:
        options.preserve_order = saved
    return sink.files_written


def read_tfds(
    name: str | None = None,
    *,
    split: Any,
    data_dir: str | None = None,
    builder_dir: str | None = None,
    decoders: Any = None,
    override_num_blocks: int | None = None,
) -> Any:
    """A ``ray.data.Dataset`` of a split of a dataset TensorFlow Datasets prepared (TFRecord
    files), decoded as :mod:`swigflow.datasets` decodes it, one column per feature (``/``-joined
    keys): ClassLabel as int64, images as tensors, Text as bytes. Name the dataset as
    ``swigflow.datasets.builder`` takes it (`name`, `data_dir`) or by its directory
    (`builder_dir`); `split` in TFDS's split language. Rows come in the split's file order when
    Ray keeps the order; the files are divided between read tasks.

    ::

        ds = swigflow.ray.read_tfds("imagenet2012", split="train[:10%]", data_dir="gs://b/tfds")

    Args:
        name: the dataset's name, as swigflow.datasets.builder takes it.
        split: a split expression or ReadInstruction.
        data_dir: the directory of prepared datasets (local path or URL).
        builder_dir: the dataset's version directory, instead of name and data_dir.
        decoders: as swigflow.datasets.load's.
        override_num_blocks: the number of read tasks; None: Ray's choice.

    Returns:
        A ray.data.Dataset.

    Raises:
        ValueError: both or neither of name and builder_dir.
    """
    from swigflow import datasets

    datasource = _extra(lambda: importlib.import_module("swigflow.ray.datasets"))
    if (name is None) == (builder_dir is None):
        raise ValueError("read_tfds takes a dataset name or a builder_dir, one of them")
    if builder_dir is not None:
        builder = datasets.builder_from_directory(builder_dir)
    else:
        builder = datasets.builder(name, data_dir=data_dir)
    import ray.data

    source = datasource.TFDSDatasource(builder, split, decoders=decoders)
    return ray.data.read_datasource(source, override_num_blocks=override_num_blocks)


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError saying to install the ``ray`` extra."""
    return _extra(lambda: importlib.import_module("ray"))


def _sources():
    return _extra(lambda: importlib.import_module("swigflow.ray.sources"))


def _extra(load):
    try:
        return load()
    except ImportError as e:
        if e.name is not None and e.name.split(".")[0] in ("ray", "pyarrow"):
            raise ImportError(
                f"swigflow.ray needs Ray Data: pip install 'swigflow[ray]' ({e})"
            ) from None
        raise


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        return getattr(_sources(), name)
    raise AttributeError(f"module 'swigflow.ray' has no attribute {name!r}")


__all__ = [
    "TFRecordDatasink",
    "TFRecordDatasource",
    "import_ray",
    "read_tfds",
    "read_tfrecords",
    "write_tfrecords",
]
