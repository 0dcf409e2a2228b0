"""Which features a set of Examples holds, and the parse spec that reads them all: what
``swigflow inspect`` prints and ``swigflow.ray.read_tfrecords(spec=None)`` uses."""

from google.protobuf import message

from swigflow import train
from swigflow.io.feature_spec import FixedLenFeature, VarLenFeature

# parse_example's dtype for each kind of Feature (its oneof member without "_list").
DTYPES = {"bytes": "string", "float": "float32", "int64": "int64"}


def decode_example(payload):
    """The Example in ``payload``, or None when protobuf cannot parse it as one."""
    try:
        return train.Example.FromString(payload)
    except message.DecodeError:
        return None


def example_features(example):
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

    def __init__(self):
        self.kinds = {}  # kind name ("none" for an empty Feature) -> records
        self.present = 0
        self.min_values = None
        self.max_values = 0
        self.example = None  # (kind, first values) of the first record with values

    def add(self, kind, values):
        name = kind or "none"
        self.kinds[name] = self.kinds.get(name, 0) + 1
        self.present += 1
        n = len(values)
        self.min_values = n if self.min_values is None else min(self.min_values, n)
        self.max_values = max(self.max_values, n)
        if self.example is None and values:
            self.example = (kind, values[:3])

    def feature(self, records):
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

    def why_none(self):
        return "(mixed kinds)" if len(self.kinds) - ("none" in self.kinds) > 1 else "(no values)"


def spec_source(feature):
    """``feature`` as the source text that makes it: ``FixedLenFeature([3], "float32")``."""
    if isinstance(feature, FixedLenFeature):
        return f'FixedLenFeature({list(feature.shape)}, "{feature.dtype}")'
    return f'VarLenFeature("{feature.dtype}")'


class SchemaScan:
    """Collects :class:`FeatureStats` over records (serialized Examples)."""

    def __init__(self):
        self.stats = {}
        self.records = 0
        self.not_examples = 0

    def add(self, payload):
        self.records += 1
        example = decode_example(payload)
        if example is None:
            self.not_examples += 1
            return
        for key, kind, values in example_features(example):
            self.stats.setdefault(key, FeatureStats()).add(kind, values)

    def features(self):
        """{key: spec} for every key a spec can read, sorted by key."""
        found = {key: s.feature(self.records) for key, s in sorted(self.stats.items())}
        return {key: f for key, f in found.items() if f is not None}


def infer_features(records):
    """The parse spec ``{key: FixedLenFeature | VarLenFeature}`` that reads every Example in
    ``records`` (an iterable of serialized Examples), as ``swigflow inspect`` reports it. Keys
    whose kinds differ between records, or that never hold a value, are left out."""
    scan = SchemaScan()
    for payload in records:
        scan.add(payload)
    return scan.features()
