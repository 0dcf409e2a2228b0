"""TFDS dataset directories on the command line: ``swigflow inspect DIR`` prints a prepared
dataset's splits, shard counts and feature tree, and ``swigflow show DIR --split train`` draws
its images with their class names (swigflow.datasets reads them; no TensorFlow)."""

from __future__ import annotations

from typing import Any

from swigflow import errors
from swigflow.cli import CommandError
from swigflow.io import gfile
from swigflow.io.gfile import PathOrFile


def builder_at(path: PathOrFile) -> Any:
    """The TFDS dataset prepared in `path` (``.../name/config/version``), or in the newest
    version under `path` (``.../name`` or ``.../name/config``); None when `path` is not a
    directory of either kind."""
    from swigflow.datasets.builder import builder_from_directory, newest_version_dir

    try:
        if not gfile.isdir(path):
            return None
    except errors.OpError:
        return None
    if gfile.exists(gfile.join(path, "dataset_info.json")):
        return builder_from_directory(path)
    newest = newest_version_dir(path)
    return None if newest is None else builder_from_directory(newest)


def _leaf_rows(feature, name, depth, rows):
    from swigflow.datasets import features as f

    pad = "  " * depth
    if isinstance(feature, f.FeaturesDict) and not isinstance(feature, f.Translation):
        if name is not None:
            rows.append((f"{pad}{name}", type(feature).__name__, "", "", ""))
        for key in sorted(feature.keys()):
            _leaf_rows(feature[key], key, depth + (name is not None), rows)
        return
    info = feature.tensor_info() if not isinstance(feature, f.FeaturesDict) else None
    extra = ""
    if isinstance(feature, (f.ClassLabel, f.LabeledImage)):
        names = feature.names
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        extra = f"{feature.num_classes} classes: {shown}"
    elif isinstance(feature, (f.Translation, f.TranslationVariableLanguages)):
        extra = "languages: " + ", ".join(feature.languages)
    elif isinstance(feature, f.Image) and feature.encoding_format:
        extra = feature.encoding_format
    if isinstance(feature, f.Sequence) and not isinstance(feature, (f.Video, f.Dataset)):
        rows.append((f"{pad}{name}", f"Sequence(length={feature.length})", "", "", extra))
        _leaf_rows(feature.feature, "(each)", depth + 1, rows)
        return
    if isinstance(feature, f.Dataset):
        rows.append((f"{pad}{name}", "Dataset (steps)", "", "", extra))
        _leaf_rows(feature.feature, None, depth + 1, rows)
        return
    shape = "" if info is None or isinstance(info, dict) else str(tuple(info.shape))
    dtype = "" if info is None or isinstance(info, dict) else _dtype(info.dtype)
    rows.append((f"{pad}{name}", type(feature).__name__, shape, dtype, extra))


def _dtype(dtype):
    return "string" if dtype.kind == "O" else dtype.name


def inspect(builder: Any, as_json: Any) -> int:
    """Prints the dataset's description; returns the exit status."""
    import json

    info = builder.info
    if as_json:
        print(json.dumps(dict(info.describe(), data_dir=info.data_dir), indent=2))
        return 0
    print(f"{info.full_name} ({info.file_format}) in {info.data_dir}")
    if info.description:
        print(f"  {info.description.strip().splitlines()[0]}")
    total = sum(s.num_examples for s in info.splits.values())
    print(f"\n{total:,} examples in {len(info.splits)} split(s):")
    width = max((len(n) for n in info.splits), default=5)
    for name, split in info.splits.items():
        size = f", {split.num_bytes / 1e6:,.1f} MB" if split.num_bytes else ""
        print(
            f"  {name:<{width}}  {split.num_examples:>10,} examples  "
            f"{split.num_shards:>5} shard(s){size}"
        )
    if info.supervised_keys:
        print(f"\nsupervised keys: {info.supervised_keys}")
    rows = [("feature", "class", "shape", "dtype", "")]
    _leaf_rows(info.features, None, 0, rows)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    print("\nfeatures:")
    for row in rows:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    return 0


def sheet_examples(
    builder: Any, split: Any, image_key: Any, label_key: Any, count: int | None, seed: int | None
) -> list[Any]:
    """(encoded image, label text) for the first `count` examples of `split` (a seeded sample
    of them all with `seed`), and the keys used: the first Image feature and the first
    ClassLabel unless named."""
    from swigflow.cli import first_or_sample
    from swigflow.datasets import decode
    from swigflow.datasets import features as f

    leaves = dict(builder.info.features.leaves())
    if image_key is None:
        image_key = next(
            (k for k, v in leaves.items() if type(v) in (f.Image, f.LabeledImage)), None
        )
        if image_key is None:
            raise CommandError(f"{builder.info.full_name} has no Image feature")
    if image_key not in leaves or not isinstance(leaves[image_key], f.Image):
        raise CommandError(f"{image_key!r} is not an Image feature of {builder.info.full_name}")
    if label_key is None:
        label_key = next((k for k, v in leaves.items() if type(v) is f.ClassLabel), None)
    elif label_key not in leaves:
        raise CommandError(f"{label_key!r} is not a feature of {builder.info.full_name}")
    decoders = _nested(image_key, decode.SkipDecoding())
    try:
        ds = builder.as_dataset(split, decoders=decoders)
    except ValueError as e:  # TFDS's split errors
        raise CommandError(str(e)) from None
    items = ((_at(e, image_key), _label(e, label_key, leaves)) for e in ds)
    return first_or_sample(items, count, seed)


def _nested(key, value):
    out = value
    for part in reversed(key.split("/")):
        out = {part: out}
    return out


def _at(example, key):
    for part in key.split("/"):
        example = example[part]
    return example


def _label(example, key, leaves):
    from swigflow.datasets import features as f

    if key is None:
        return ""
    value = _at(example, key)
    feature = leaves[key]
    if isinstance(feature, f.ClassLabel) and getattr(value, "ndim", 0) == 0:
        return f"{int(value)} {feature.int2str(int(value))}"
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
