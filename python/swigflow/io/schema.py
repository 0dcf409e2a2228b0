"""Which features a set of Examples holds, and the parse spec that reads them all: what
``swigflow inspect`` prints, ``Dataset.parse("auto")``, ``swigflow profile --spec auto`` and
``swigflow.ray.read_tfrecords(spec=None)`` use (:func:`infer_spec`); and specs as JSON
(:func:`spec_to_json`, :func:`spec_from_json`), the form ``inspect --json`` prints and
``profile --spec`` and ``parse`` take."""

from __future__ import annotations

import logging
from typing import Any

from google.protobuf import message

from swigflow import errors, train
from swigflow.io.feature_spec import FixedLenFeature, VarLenFeature
from swigflow.io.scan import TFRecordScanner
from swigflow.io.sniff import sniff_compression
from swigflow.io.tf_record import TFRecordReader, compression_name

log: logging.Logger = logging.getLogger("swigflow")

# Records infer_spec reads by default: enough to see every key of a homogeneous dataset.
INFER_RECORDS = 1000

# parse_example's dtype for each kind of Feature (its oneof member without "_list").
DTYPES = {"bytes": "string", "float": "float32", "int64": "int64"}


def decode_example(payload: bytes) -> Any:
    """The Example in ``payload``, or None when protobuf cannot parse it as one."""
    try:
        return train.Example.FromString(payload)
    except message.DecodeError:
        return None


def example_features(example: Any) -> dict[str, Any]:
    """[(key, kind, values)] sorted by key; kind is "bytes", "float", "int64" or None."""
    found = []
    for key, feature in sorted(example.features.feature.items()):
        member = feature.WhichOneof("kind")
        if member is None:
            found.append((key, None, []))
        else:
            found.append((key, member[: -len("_list")], getattr(feature, member).value))
    return found


class FeatureStats:
    """What the records seen hold under one key."""

    def __init__(self) -> None:
        self.kinds = {}  # kind name ("none" for an empty Feature) -> records
        self.present = 0
        self.min_values = None
        self.max_values = 0
        self.example = None  # (kind, first values) of the first record with values

    def add(self, kind: str, values: Any) -> None:
        name = kind or "none"
        self.kinds[name] = self.kinds.get(name, 0) + 1
        self.present += 1
        n = len(values)
        self.min_values = n if self.min_values is None else min(self.min_values, n)
        self.max_values = max(self.max_values, n)
        if self.example is None and values:
            self.example = (kind, values[:3])

    def feature(self, records: Any) -> Any:
        """The spec that reads this key from every one of ``records`` records: FixedLenFeature
        when every record has the same number of values, else VarLenFeature; None (with
        :meth:`why_none`) when the key's kinds are mixed or it never has values."""
        kinds = [k for k in self.kinds if k != "none"]
        if len(kinds) != 1:
            return None
        dtype = DTYPES[kinds[0]]
        if (
            self.present == records
            and "none" not in self.kinds
            and self.min_values == self.max_values
        ):
            return FixedLenFeature([] if self.max_values == 1 else [self.max_values], dtype)
        return VarLenFeature(dtype)

    def why_none(self) -> str | None:
        return "(mixed kinds)" if len(self.kinds) - ("none" in self.kinds) > 1 else "(no values)"


def spec_source(feature: Any) -> str:
    """``feature`` as the source text that makes it: ``FixedLenFeature([3], "float32")``."""
    if isinstance(feature, FixedLenFeature):
        return f'FixedLenFeature({list(feature.shape)}, "{feature.dtype}")'
    return f'VarLenFeature("{feature.dtype}")'


class SchemaScan:
    """Collects :class:`FeatureStats` over records (serialized Examples)."""

    def __init__(self) -> None:
        self.stats = {}
        self.records = 0
        self.not_examples = 0

    def add(self, payload: bytes) -> None:
        self.records += 1
        example = decode_example(payload)
        if example is None:
            self.not_examples += 1
            return
        for key, kind, values in example_features(example):
            self.stats.setdefault(key, FeatureStats()).add(kind, values)

    def features(self) -> dict[str, Any]:
        """{key: spec} for every key a spec can read, sorted by key."""
        found = {key: s.feature(self.records) for key, s in sorted(self.stats.items())}
        return {key: f for key, f in found.items() if f is not None}


def infer_features(records: Any) -> dict[str, Any]:
    """The parse spec ``{key: FixedLenFeature | VarLenFeature}`` that reads every Example in
    ``records`` (an iterable of serialized Examples), as ``swigflow inspect`` reports it. Keys
    whose kinds differ between records, or that never hold a value, are left out."""
    scan = SchemaScan()
    for payload in records:
        scan.add(payload)
    return scan.features()


def infer_spec(
    files: Any,
    compression_type: str | int | None = None,
    max_records: int = INFER_RECORDS,
    on_error: str = "raise",
) -> dict[str, Any]:
    """The parse spec ``{key: FixedLenFeature | VarLenFeature}`` that reads every one of the
    first `max_records` records of `files`, as ``swigflow inspect`` reports it: a key with the
    same number of values in every record is FixedLenFeature, else VarLenFeature.

    Args:
      files: a path or URL, or a list of them, read in order until `max_records`.
      compression_type: "", "ZLIB" or "GZIP" for every file, a list of one per file, or None:
        each file's told from its first bytes.
      max_records: how many records to read (from the first files).
      on_error: "raise"; or "skip_record"/"skip_file": damaged records are skipped, as a read
        under that policy skips them.

    Returns:
      The spec, sorted by key. Keys whose kinds differ between records, or that never hold a
      value, are left out (with a warning).

    Raises:
      InvalidArgumentError: no record holds a tf.train.Example with features.
    """
    files = [files] if isinstance(files, (str, bytes)) or hasattr(files, "__fspath__") else files
    files = list(files)
    if isinstance(compression_type, (list, tuple)):
        compressions = [compression_name(c) for c in compression_type]
    elif compression_type is None:
        compressions = [sniff_compression(f) for f in files]
    else:
        compressions = [compression_name(compression_type)] * len(files)
    scan = SchemaScan()
    for path, compression in zip(files, compressions):
        if scan.records >= max_records:
            break
        if on_error == "raise":
            with TFRecordReader(path, compression) as reader:
                while scan.records < max_records:
                    batch = reader.read_batch(min(1024, max_records - scan.records))
                    if not batch:
                        break
                    for payload in batch:
                        scan.add(payload)
        else:
            for _, payload in TFRecordScanner(path, compression):
                if scan.records >= max_records:
                    break
                scan.add(payload)
    features = scan.features()
    if not features:
        first = files[0] if files else "(no files)"
        raise errors.InvalidArgumentError(
            f"no features to infer from the first {scan.records} records of {first} "
            "(not tf.train.Example?): pass a spec"
        )
    skipped = sorted(set(scan.stats) - set(features))
    if skipped:
        log.warning("no spec inferred for %s (mixed kinds or no values): pass a spec", skipped)
    return features


def spec_to_json(features: Any) -> dict[str, Any]:
    """A parse spec of FixedLenFeature and VarLenFeature as JSON-ready values:
    ``{"key": {"dtype": "int64", "shape": [3]}}``, shape null for VarLenFeature.

    Args:
        features: a dict of feature name to FixedLenFeature or VarLenFeature.

    Returns:
        A dict of JSON-ready values.
    """
    return {
        key: {
            "dtype": f.dtype,
            "shape": list(f.shape) if isinstance(f, FixedLenFeature) else None,
        }
        for key, f in features.items()
    }


def spec_from_json(value: Any) -> dict[str, Any]:
    """The parse spec that :func:`spec_to_json` wrote (a dict, as json.loads gives it).

    Raises:
      InvalidArgumentError: not a non-empty dict of {"dtype": ..., "shape": [...] or null}.

    Args:
        value: a dict, as spec_to_json returns and json.loads gives it.

    Returns:
        A dict of feature name to FixedLenFeature or VarLenFeature.
    """
    if not isinstance(value, dict) or not value:
        raise errors.InvalidArgumentError(
            'a JSON spec is {"key": {"dtype": ..., "shape": [...] or null}, ...}, got '
            f"{value!r:.200}"
        )
    features = {}
    for key, f in value.items():
        if not isinstance(f, dict) or "dtype" not in f:
            raise errors.InvalidArgumentError(f"JSON spec: {key!r} needs a dtype")
        try:
            if f.get("shape") is None:
                features[key] = VarLenFeature(f["dtype"])
            else:
                features[key] = FixedLenFeature(list(f["shape"]), f["dtype"])
        except (TypeError, ValueError) as e:
            raise errors.InvalidArgumentError(f"JSON spec: {key!r}: {e}") from None
    return features
