"""Finding prepared TFDS datasets (``data_dir/name[/config]/version``) and reading them:
``builder``, ``builder_from_directory``, ``builder_from_directories``, ``load`` and
``data_source``, as TFDS's read-only builder resolves them. Nothing is ever downloaded or
prepared: a dataset that is not on disk raises NotFoundError saying where it was looked for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from swigflow import errors
from swigflow.datasets import reading
from swigflow.datasets.data_source import DataSource
from swigflow.datasets.info import DatasetInfo, SplitDict, SplitInfo, Version
from swigflow.io import gfile

_NAME_RE = re.compile(
    r"^(?P<name>[\w.-]+)(/(?P<config>[\w.+-]+))?(:(?P<version>[\w.*]+))?$"
)  # name[/config][:version]


def default_data_dir() -> str:
    """``TFDS_DATA_DIR``, else ``~/tensorflow_datasets`` (TFDS's default)."""
    return os.environ.get("TFDS_DATA_DIR") or os.path.join(
        os.path.expanduser("~"), "tensorflow_datasets"
    )


class ReadOnlyBuilder:
    """A prepared dataset directory (``tfds.builder`` / ``builder_from_directory``): its
    ``info``, and its splits as datasets (``as_dataset``) or random-access sources
    (``as_data_source``).

    Args:
        info: the DatasetInfo of the prepared directory.
    """

    def __init__(self, info: Any) -> None:
        self.info: Any = info

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def version(self) -> Any:
        return self.info.version

    @property
    def data_dir(self) -> str:
        return self.info.data_dir

    @property
    def builder_config(self) -> Any:
        return self.info.config_name

    def download_and_prepare(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to do: the dataset is already prepared (swigflow never downloads).

        Args:
            *args: accepted for TFDS's signature; unused.
            **kwargs: accepted for TFDS's signature; unused.
        """
        del args, kwargs

    def as_dataset(
        self,
        split: Any = None,
        *,
        batch_size: int | None = None,
        shuffle_files: bool = False,
        decoders: Any = None,
        read_config: Any = None,
        as_supervised: bool = False,
    ) -> Any:
        """The split as a :class:`swigflow.data.Dataset` of TFDS's values (``split`` may be a
        split expression, a ReadInstruction, or a list/dict of them, giving a list/dict of
        datasets; None: every split, as a dict). batch_size=-1 gives the whole split as one
        batch of arrays.

        Args:
            split: a split expression ("train[:10%]+test"), a ReadInstruction, or a list / dict of
                them; None: every split, as a dict.
            batch_size: batch the examples; -1: the whole split as one batch of arrays.
            shuffle_files: shuffle the split's files (seeded by read_config.shuffle_seed).
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.
            read_config: a ReadConfig.
            as_supervised: (input, target) pairs, as the dataset's supervised_keys say.

        Returns:
            A swigflow.data.Dataset, or a list / dict of them as `split` is.

        Raises:
            ValueError: a malformed split, or as_supervised without supervised_keys.
        """
        if split is None:
            split = {name: name for name in self.info.splits}

        def one(s):
            ds = reading.as_dataset(
                self.info,
                s,
                shuffle_files=shuffle_files,
                read_config=read_config,
                decoders=decoders,
                as_supervised=as_supervised,
            )
            if batch_size == -1:
                return ds.batch(max(1, _length(ds))).get_single_element()
            return ds.batch(batch_size) if batch_size else ds

        return _map_splits(one, split)

    def as_data_source(self, split: Any = None, *, decoders: Any = None) -> Any:
        """The split's examples by index (len, [i], __getitems__), picklable: see
        :class:`swigflow.datasets.DataSource`. None: every split, as a dict.

        Args:
            split: a split expression ("train[:10%]+test"), a ReadInstruction, or a list / dict of
                them; None: every split, as a dict.
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.

        Returns:
            A DataSource, or a list / dict of them as `split` is.
        """
        if split is None:
            split = {name: name for name in self.info.splits}
        return _map_splits(lambda s: DataSource(self.info, s, decoders=decoders), split)

    def __repr__(self) -> str:
        return f"ReadOnlyBuilder({self.info.full_name!r}, data_dir={self.data_dir!r})"


def _length(ds):
    n = ds.cardinality()
    return n if n > 0 else sum(1 for _ in ds)


def _map_splits(fn, split):
    if isinstance(split, dict):
        return {k: _map_splits(fn, v) for k, v in split.items()}
    if isinstance(split, (list, tuple)):
        return type(split)(_map_splits(fn, s) for s in split)
    return fn(split)


def builder_from_directory(builder_dir: str) -> ReadOnlyBuilder:
    """The dataset prepared in `builder_dir` (``.../name/config/version``; local or any fsspec
    URL).

    Args:
        builder_dir: the version directory (local path or fsspec URL).

    Returns:
        A ReadOnlyBuilder.

    Raises:
        NotFoundError: the directory holds no dataset_info.json.
    """
    return ReadOnlyBuilder(DatasetInfo(builder_dir))


def builder_from_directories(builder_dirs: Sequence[str]) -> ReadOnlyBuilder:
    """One dataset prepared in several directories (e.g. one per split): their splits merged,
    a split's shards in the order of the directories.

    Args:
        builder_dirs: the version directories, in order.

    Returns:
        A ReadOnlyBuilder.
    """
    infos = [DatasetInfo(d) for d in builder_dirs]
    if not infos:
        raise ValueError("builder_from_directories needs at least one directory")
    first = infos[0]
    merged = SplitDict()
    for info in infos:
        if info.name != first.name:
            raise ValueError(f"{info.data_dir} holds {info.name}, not {first.name}")
        for name, split in info.splits.items():
            if name in merged:
                old = dict.__getitem__(merged, name)
                split = SplitInfo(
                    name,
                    old.shard_lengths + split.shard_lengths,
                    old.num_bytes + split.num_bytes,
                    old.filepaths + split.filepaths,
                )
            dict.__setitem__(merged, name, split)
    first.splits = merged
    return ReadOnlyBuilder(first)


def _parse_name(name, config, version):
    match = _NAME_RE.match(name)
    if not match:
        raise ValueError(f"Parsing builder name string {name} failed.")
    if match["config"] and config:
        raise ValueError(f"config given twice: {name!r} and config={config!r}")
    if match["version"] and version:
        raise ValueError(f"version given twice: {name!r} and version={version!r}")
    return match["name"], match["config"] or config, match["version"] or version


def _versions(directory):
    """The version directories of `directory` that hold a dataset, oldest first."""
    try:
        names = gfile.listdir(directory)
    except (errors.NotFoundError, NotADirectoryError, FileNotFoundError):
        return []
    found = []
    for entry in names:
        entry = entry.rstrip("/")
        if Version.is_valid(entry) and gfile.exists(
            gfile.join(directory, entry, "dataset_info.json")
        ):
            found.append(Version(entry))
    return sorted(found)


def _matches(version, pattern):
    if pattern is None:
        return True
    parts = str(pattern).split(".")
    if len(parts) != 3:
        raise ValueError(f"Invalid version {pattern!r}: expected 'x.y.z' (parts may be '*')")
    return all(p == "*" or int(p) == v for p, v in zip(parts, version.tuple))


def _default_config(dataset_dir):
    """The config TFDS wrote as the default (``.config/metadata.json``), if any."""
    import json

    path = gfile.join(dataset_dir, ".config", "metadata.json")
    try:
        with gfile.GFile(path, "rb") as f:
            return json.loads(f.read().decode("utf-8")).get("default_config_name")
    except (errors.NotFoundError, ValueError, UnicodeDecodeError):
        return None


def newest_version_dir(directory: str) -> str | None:
    """The newest prepared version under `directory` (a dataset's or a config's folder; a
    dataset's default config when it has configs), or None."""
    directory = gfile.as_path(directory).rstrip("/")
    candidates = [directory]
    default = _default_config(directory)
    if default:
        candidates.append(gfile.join(directory, default))
    for candidate in candidates:
        versions = _versions(candidate)
        if versions:
            return gfile.join(candidate, str(versions[-1]))
    return None


def find_builder_dir(
    name: str, data_dir: str | None = None, config: str | None = None, version: Any = None
) -> str:
    """``data_dir/name[/config]/version`` of a prepared dataset: the newest version matching
    `version` (``"1.2.0"``, ``"1.*.*"``, None: any), the default config when none is named.
    Raises NotFoundError, listing the configs found, when there is none."""
    name, config, version = _parse_name(name, config, version)
    data_dir = gfile.as_path(data_dir or default_data_dir()).rstrip("/")
    dataset_dir = gfile.join(data_dir, name)
    candidates = []
    if config:
        candidates.append(gfile.join(dataset_dir, config))
    else:
        candidates.append(dataset_dir)
        default = _default_config(dataset_dir)
        if default:
            candidates.append(gfile.join(dataset_dir, default))
    for directory in candidates:
        versions = [v for v in _versions(directory) if _matches(v, version)]
        if versions:
            return gfile.join(directory, str(versions[-1]))
    message = f"Dataset {name} not found in {data_dir}"
    if config:
        message += f" (config {config!r})"
    if version:
        message += f" at version {version}"
    configs = _configs(dataset_dir)
    if configs:
        message += (
            f". A folder for {name!r} exists with the configs: {', '.join(configs)}; name one "
            f"as '{name}/<config>'"
        )
    message += (
        ". swigflow reads datasets that TFDS prepared and never downloads: prepare it with "
        "TFDS (tfds.builder(name).download_and_prepare()) or copy it under data_dir"
    )
    raise errors.NotFoundError(message)


def _configs(dataset_dir):
    try:
        entries = gfile.listdir(dataset_dir)
    except (errors.NotFoundError, NotADirectoryError, FileNotFoundError):
        return []
    out = []
    for entry in sorted(e.rstrip("/") for e in entries):
        if (
            not entry.startswith(".")
            and not Version.is_valid(entry)
            and _versions(gfile.join(dataset_dir, entry))
        ):
            out.append(entry)
    return out


def builder(
    name: str,
    *,
    data_dir: str | None = None,
    config: str | None = None,
    version: Any = None,
    try_gcs: bool = False,
    **kwargs: Any,
) -> ReadOnlyBuilder:
    """The prepared dataset `name` (``"mnist"``, ``"mnist:3.*.*"``, ``"ds/config:1.0.0"``)
    under `data_dir` (default: ``TFDS_DATA_DIR`` or ``~/tensorflow_datasets``; any fsspec URL).

    Args:
        name: the dataset's name, with an optional ``/config`` and ``:version`` (which may end in
            ``*`` wildcards).
        data_dir: the directory of prepared datasets (local path or fsspec URL).
        config: the config's name, when `name` has none; None: the default config.
        version: the version, when `name` has none; None: the newest.
        try_gcs: accepted for TFDS's signature; unused.
        **kwargs: file_format is accepted and ignored; anything else raises TypeError.

    Returns:
        A ReadOnlyBuilder.

    Raises:
        NotFoundError: no such prepared dataset under data_dir.
    """
    del try_gcs
    kwargs.pop("file_format", None)
    if kwargs:
        raise TypeError(f"builder() got unexpected arguments: {sorted(kwargs)}")
    return builder_from_directory(find_builder_dir(name, data_dir, config, version))


def load(
    name: str,
    *,
    split: Any = None,
    data_dir: str | None = None,
    batch_size: int | None = None,
    shuffle_files: bool = False,
    download: bool = True,
    as_supervised: bool = False,
    decoders: Any = None,
    read_config: Any = None,
    with_info: bool = False,
    builder_kwargs: dict[str, Any] | None = None,
    download_and_prepare_kwargs: dict[str, Any] | None = None,
    as_dataset_kwargs: dict[str, Any] | None = None,
    try_gcs: bool = False,
) -> Any:
    """``tfds.load``: the prepared dataset's split(s) as :class:`swigflow.data.Dataset`
    (and its info when with_info=True). `download` is accepted and ignored: nothing is
    downloaded, and a dataset not on disk raises NotFoundError.

    Args:
        name: as builder()'s.
        split: a split expression ("train[:10%]+test"), a ReadInstruction, or a list / dict of
            them; None: every split, as a dict.
        data_dir: as builder()'s.
        batch_size: as ReadOnlyBuilder.as_dataset's.
        shuffle_files: as ReadOnlyBuilder.as_dataset's.
        download: accepted and ignored.
        as_supervised: as ReadOnlyBuilder.as_dataset's.
        decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
            e.g. {"image": SkipDecoding()} to keep the encoded bytes.
        read_config: a ReadConfig.
        with_info: also return the DatasetInfo.
        builder_kwargs: more arguments for builder().
        download_and_prepare_kwargs: accepted and ignored.
        as_dataset_kwargs: more arguments for as_dataset().
        try_gcs: accepted for TFDS's signature; unused.

    Returns:
        The dataset(s), or (dataset(s), info) with with_info.
    """
    del download, download_and_prepare_kwargs, try_gcs
    b = builder(name, data_dir=data_dir, **(builder_kwargs or {}))
    kwargs = dict(as_dataset_kwargs or {})
    kwargs.setdefault("shuffle_files", shuffle_files)
    kwargs.setdefault("read_config", read_config)
    ds = b.as_dataset(
        split=split, batch_size=batch_size, as_supervised=as_supervised, decoders=decoders, **kwargs
    )
    return (ds, b.info) if with_info else ds


def data_source(
    name: str,
    *,
    split: Any = None,
    data_dir: str | None = None,
    decoders: Any = None,
    builder_kwargs: dict[str, Any] | None = None,
    download: bool = True,
    try_gcs: bool = False,
) -> Any:
    """``tfds.data_source``: random access to a prepared dataset's split(s), TFRecord
    included.

    Args:
        name: as builder()'s.
        split: a split expression ("train[:10%]+test"), a ReadInstruction, or a list / dict of
            them; None: every split, as a dict.
        data_dir: as builder()'s.
        decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
            e.g. {"image": SkipDecoding()} to keep the encoded bytes.
        builder_kwargs: more arguments for builder().
        download: accepted and ignored.
        try_gcs: accepted for TFDS's signature; unused.

    Returns:
        A DataSource, or a list / dict of them as `split` is.
    """
    del download, try_gcs
    b = builder(name, data_dir=data_dir, **(builder_kwargs or {}))
    return b.as_data_source(split, decoders=decoders)
