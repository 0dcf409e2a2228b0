"""DatasetInfo: what ``dataset_info.json`` and ``features.json`` of a prepared TFDS dataset say.

Read without TensorFlow Datasets. Numbers in ``dataset_info.json`` are protobuf's JSON form of
int64 (strings); every field is checked as it is read, and a file that does not parse or lacks
what reading needs raises DataLossError naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from swigflow import errors
from swigflow.datasets import features as features_lib
from swigflow.datasets import splits as splits_lib
from swigflow.io import gfile

DEFAULT_FILEPATH_TEMPLATE = "{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}"
# TFDS's file formats and the suffix their shards carry.
FILE_FORMATS = {
    "tfrecord": "tfrecord",
    "array_record": "array_record",
    "parquet": "parquet",
    "riegeli": "riegeli",
}
_VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


class Version:
    """A dataset version, ``major.minor.patch`` (``tfds.core.Version``), ordered.

    Args:
        version: "major.minor.patch", or a Version.

    Raises:
        ValueError: the text is not a version.
    """

    def __init__(self, version: Any) -> None:
        if isinstance(version, Version):
            version = str(version)
        match = _VERSION_RE.match(str(version))
        if not match:
            raise ValueError(f"Invalid version {version!r}: expected 'x.y.z'")
        self.major: int
        self.minor: int
        self.patch: int
        self.major, self.minor, self.patch = (int(g) for g in match.groups())

    @property
    def tuple(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    def __repr__(self) -> str:
        return f"Version('{self}')"

    def __eq__(self, other: object) -> bool:
        try:
            return self.tuple == Version(other).tuple
        except ValueError:
            return NotImplemented

    def __lt__(self, other: Any) -> bool:
        return self.tuple < Version(other).tuple

    def __le__(self, other: Any) -> bool:
        return self.tuple <= Version(other).tuple

    def __gt__(self, other: Any) -> bool:
        return self.tuple > Version(other).tuple

    def __ge__(self, other: Any) -> bool:
        return self.tuple >= Version(other).tuple

    def __hash__(self) -> int:
        return hash(self.tuple)

    @staticmethod
    def is_valid(text: Any) -> bool:
        """Whether `text` is a version ("major.minor.patch").

        Args:
            text: the text (or anything str() turns into one).

        Returns:
            True or False.
        """
        return bool(_VERSION_RE.match(str(text)))


class SplitInfo:
    """One split: its name, example count, and shards (``tfds.core.SplitInfo``).

    Args:
        name: the split's name.
        shard_lengths: the number of examples in each shard.
        num_bytes: the split's size.
        filepaths: the shards' paths, in order.
    """

    def __init__(
        self, name: str, shard_lengths: Sequence[int], num_bytes: int, filepaths: Sequence[str]
    ) -> None:
        self.name: str = name
        self.shard_lengths: Any = list(shard_lengths)
        self.num_bytes: Any = num_bytes
        self.filepaths: Any = list(filepaths)

    @property
    def num_examples(self) -> int:
        return sum(self.shard_lengths)

    @property
    def num_shards(self) -> int:
        return len(self.shard_lengths)

    @property
    def filenames(self) -> list[str]:
        return [p.rsplit("/", 1)[-1] for p in self.filepaths]

    @property
    def file_instructions(self) -> list[Any]:
        return splits_lib.file_instructions(
            0, self.num_examples, self.filepaths, self.shard_lengths
        )

    def __repr__(self) -> str:
        return f"<SplitInfo num_examples={self.num_examples}, num_shards={self.num_shards}>"


class SplitDict(dict[str, "SplitInfo"]):
    """{name: SplitInfo}; indexing with a split expression gives its sub-split."""

    def __getitem__(self, key: Any) -> Any:
        if str(key) in self.keys():
            return super().__getitem__(str(key))
        if not self:
            raise KeyError(
                f"Trying to access `splits[{key!r}]` but `splits` is empty. This likely "
                "indicates the dataset has not been generated yet."
            )
        return SubSplitInfo(key, splits_lib.resolve(key, self))

    @property
    def total_num_examples(self) -> int:
        return sum(s.num_examples for s in self.values())


class SubSplitInfo:
    """A split expression's records (``info.splits["train[:10%]"]``)."""

    def __init__(self, name: str, file_instructions: list[Any]) -> None:
        self.name: str = name
        self.file_instructions: Any = file_instructions

    @property
    def num_examples(self) -> int:
        return sum(f.num_examples for f in self.file_instructions)

    @property
    def filepaths(self) -> list[str]:
        return [f.filename for f in self.file_instructions]

    def __repr__(self) -> str:
        return f"<SubSplitInfo {self.name!r} num_examples={self.num_examples}>"


def _int(value, what, path):
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise errors.DataLossError(f"{path}: {what} is not a number: {value!r}") from None
    if number < 0:
        raise errors.DataLossError(f"{path}: {what} is negative: {number}")
    return number


def _read_json(path):
    try:
        with gfile.GFile(path, "rb") as f:
            raw = f.read()
    except errors.NotFoundError:
        raise errors.NotFoundError(f"{path} not found: is this a prepared TFDS dataset?") from None
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise errors.DataLossError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise errors.DataLossError(f"{path} does not hold a JSON object")
    return value


def shard_path(
    directory: str,
    template: str,
    dataset: str,
    split: str,
    file_format: str,
    index: int,
    count: int,
) -> str:
    """The path of shard `index` of `count` (TFDS's naming.ShardedFileTemplate)."""
    digits = max(len(str(count)), 5)
    index_text = f"{index:0{digits}d}"
    count_text = f"{count:0{digits}d}"
    mapping = {
        "DATASET": dataset,
        "SPLIT": split,
        "FILEFORMAT": FILE_FORMATS.get(file_format, file_format),
        "SHARD_INDEX": index_text,
        "NUM_SHARDS": count_text,
        "SHARD_X_OF_Y": f"{index_text}-of-{count_text}",
    }
    try:
        relative = template.format(**mapping)
    except (KeyError, IndexError, ValueError):
        raise errors.DataLossError(
            f"unknown placeholders in filepathTemplate {template!r}"
        ) from None
    return gfile.join(directory, relative)


class DatasetInfo:
    """``tfds.core.DatasetInfo`` of a prepared dataset directory.

    Args:
        data_dir: the version directory holding dataset_info.json (local path or fsspec URL).

    Raises:
        NotFoundError: there is no dataset_info.json.
    """

    def __init__(self, data_dir: str | None) -> None:
        self.data_dir: str = gfile.as_path(data_dir).rstrip("/")
        info_path = gfile.join(self.data_dir, "dataset_info.json")
        raw = _read_json(info_path)
        self._raw = raw
        self.name: str = raw.get("name")
        if not isinstance(self.name, str) or not self.name:
            raise errors.DataLossError(f"{info_path}: no dataset name")
        self.config_name: Any = raw.get("configName") or ""
        self.config_description: Any = raw.get("configDescription") or None
        try:
            self.version: Any = Version(raw.get("version", ""))
        except ValueError as e:
            raise errors.DataLossError(f"{info_path}: {e}") from None
        self.description: str = raw.get("description", "")
        urls = (raw.get("location") or {}).get("urls") or []
        self.homepage: str = (
            urls[0] if urls else f"https://www.tensorflow.org/datasets/catalog/{self.name}"
        )
        self.citation: str = raw.get("citation", "")
        self.release_notes: Any = dict(raw.get("releaseNotes") or {})
        self.module_name: Any = raw.get("moduleName")
        self.disable_shuffling: Any = bool(raw.get("disableShuffling", False))
        file_format = raw.get("fileFormat") or "tfrecord"
        if file_format not in FILE_FORMATS:
            raise errors.UnimplementedError(f"{info_path}: unknown file format {file_format!r}")
        self.file_format: Any = file_format
        self.download_size: Any = _int(raw.get("downloadSize", 0), "downloadSize", info_path)
        self.supervised_keys: Any = _supervised_keys(raw.get("supervisedKeys"), info_path)
        self.splits: Any = SplitDict()
        for split in raw.get("splits") or []:
            self._add_split(split, info_path)
        features_path = gfile.join(self.data_dir, "features.json")
        try:
            self.features: Any = features_lib.from_json(_read_json(features_path))
        except errors.DataLossError as e:
            raise errors.DataLossError(f"{features_path}: {e.message}") from None
        except errors.UnimplementedError as e:
            raise errors.UnimplementedError(f"{features_path}: {e.message}") from None
        if not isinstance(self.features, features_lib.FeaturesDict):
            self.features = features_lib.FeaturesDict({"": self.features})
        features_lib.load_class_names(self.features, self.data_dir)

    def _add_split(self, raw, info_path):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise errors.DataLossError(f"{info_path}: a split without a name")
        name = raw["name"]
        lengths = [
            _int(n, f"a shard length of split {name!r}", info_path)
            for n in raw.get("shardLengths") or []
        ]
        template = raw.get("filepathTemplate") or DEFAULT_FILEPATH_TEMPLATE
        paths = [
            shard_path(self.data_dir, template, self.name, name, self.file_format, i, len(lengths))
            for i in range(len(lengths))
        ]
        num_bytes = _int(raw.get("numBytes", 0), f"numBytes of split {name!r}", info_path)
        if name in self.splits:
            raise errors.DataLossError(f"{info_path}: split {name!r} is listed twice")
        dict.__setitem__(self.splits, name, SplitInfo(name, lengths, num_bytes, paths))

    @property
    def full_name(self) -> str:
        parts = [self.name] + ([self.config_name] if self.config_name else []) + [str(self.version)]
        return "/".join(parts)

    @property
    def dataset_size(self) -> int:
        return sum(s.num_bytes for s in self.splits.values())

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary: every field above and the feature tree."""
        return {
            "name": self.name,
            "full_name": self.full_name,
            "config_name": self.config_name,
            "version": str(self.version),
            "description": self.description,
            "homepage": self.homepage,
            "citation": self.citation,
            "file_format": self.file_format,
            "supervised_keys": list(self.supervised_keys) if self.supervised_keys else None,
            "splits": {
                name: {
                    "num_examples": s.num_examples,
                    "num_shards": s.num_shards,
                    "shard_lengths": list(s.shard_lengths),
                    "num_bytes": s.num_bytes,
                    "filenames": s.filenames,
                }
                for name, s in self.splits.items()
            },
            "features": self.features.describe(),
        }

    def __repr__(self) -> str:
        splits = ", ".join(f"'{n}': {s.num_examples}" for n, s in self.splits.items())
        return (
            f"tfds.core.DatasetInfo(\n    name='{self.name}',\n    full_name='{self.full_name}',"
            f'\n    description="""{self.description}""",\n    homepage=\'{self.homepage}\','
            f"\n    data_dir='{self.data_dir}',\n    file_format={self.file_format},"
            f"\n    features={self.features!r},\n    supervised_keys={self.supervised_keys},"
            f"\n    splits={{{splits}}},\n)"
        )


def _supervised_keys(raw, path):
    """supervisedKeys as a tuple (input, output[, weights]): TFDS writes {"tuple": {"items":
    [{"featureKey": k}, ...]}} (nested "dict"s possible); older files {"input", "output"}."""
    if not raw:
        return None
    if "input" in raw and "output" in raw:
        return (raw["input"], raw["output"])

    def nest(node):
        if "featureKey" in node:
            return node["featureKey"]
        if "tuple" in node:
            return tuple(nest(item) for item in node["tuple"].get("items", []))
        if "dict" in node:
            return {k: nest(v) for k, v in node["dict"].get("dict", {}).items()}
        raise errors.DataLossError(f"{path}: unreadable supervisedKeys {raw!r}")

    keys = nest(raw)
    return keys if isinstance(keys, tuple) else (keys,)
