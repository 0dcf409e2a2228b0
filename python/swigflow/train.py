"""tf.train.Example and friends, without protobuf: the classes, names and behaviour of ``tf.train``.

::

    from swigflow import train
    example = train.Example(features=train.Features(feature={
        "label": train.Feature(int64_list=train.Int64List(value=[3])),
        "image": train.Feature(bytes_list=train.BytesList(value=[jpeg_bytes])),
    }))
    data = example.SerializeToString()
    train.Example.FromString(data).features.feature["label"].int64_list.value  # [3]

As with protobuf messages, ``features.feature[key]`` creates a missing entry, reading an unset
member of a Feature gives an empty list that becomes the Feature's kind once it is changed, float
values are stored as float32 and int64 values are range-checked. Encoding and decoding run in C++;
serialization is canonical (sorted keys), so equal messages give equal bytes.
"""

import math
import numbers
import struct

import numpy as np

from swigflow import pywrap_swigflow as _pywrap
from swigflow.io import feature_spec

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_KINDS = ("bytes_list", "float_list", "int64_list")  # Feature's oneof members
# The native codec's kind of each member, and back.
_KIND_OF_MEMBER = dict(zip(_KINDS, (feature_spec.BYTES, feature_spec.FLOAT, feature_spec.INT64)))
_MEMBER_OF_KIND = {kind: name for name, kind in _KIND_OF_MEMBER.items()}


# --- repeated values ---------------------------------------------------------------------------


class _Values(list):
    """A list of one scalar type; every change is checked and reported to the owner (a Feature
    whose oneof it selects)."""

    __slots__ = ("_on_change",)

    def __init__(self, values=(), on_change=None):
        super().__init__(self._check_all(values))
        self._on_change = on_change

    @classmethod
    def _trusted(cls, values):
        """An instance holding `values` (a list already of the right type) without checks."""
        instance = list.__new__(cls)
        list.extend(instance, values)
        instance._on_change = None
        return instance

    def _changed(self):
        if self._on_change is not None:
            self._on_change()

    def append(self, value):
        super().append(self._check_all([value])[0])
        self._changed()

    def extend(self, values):
        super().extend(self._check_all(values))
        self._changed()

    def insert(self, index, value):
        super().insert(index, self._check_all([value])[0])
        self._changed()

    def __setitem__(self, index, value):
        checked = self._check_all(value if isinstance(index, slice) else [value])
        super().__setitem__(index, checked if isinstance(index, slice) else checked[0])
        self._changed()

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __delitem__(self, index):
        super().__delitem__(index)
        self._changed()

    def pop(self, *args):
        value = super().pop(*args)
        self._changed()
        return value

    def remove(self, value):
        super().remove(value)
        self._changed()

    def clear(self):
        super().clear()
        self._changed()


class _BytesValues(_Values):
    __slots__ = ()

    @staticmethod
    def _check_all(values):
        values = list(values)
        for v in values:
            if not isinstance(v, bytes):
                raise TypeError(
                    f"{v!r} has type {type(v).__name__}, but expected bytes (encode str first)"
                )
        return values


class _FloatValues(_Values):
    __slots__ = ()

    @staticmethod
    def _check_all(values):
        values = list(values)
        for v in values:
            if not isinstance(v, (numbers.Real, np.number)) or isinstance(v, np.complexfloating):
                raise TypeError(f"{v!r} has type {type(v).__name__}, but expected a number")
        if not values:
            return values
        # Stored as float32, like protobuf's float fields; NaN and inf pass through.
        with np.errstate(over="ignore"):
            return np.asarray(values, dtype=np.float32).astype(np.float64).tolist()


class _Int64Values(_Values):
    __slots__ = ()

    @staticmethod
    def _check_all(values):
        out = []
        for v in values:
            if isinstance(v, float) or not isinstance(v, (numbers.Integral, np.integer)):
                raise TypeError(f"{v!r} has type {type(v).__name__}, but expected an integer")
            v = int(v)
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise ValueError(f"Value out of range: {v}")
            out.append(v)
        return out


class _List:
    """Base of BytesList, FloatList and Int64List: one repeated field `value`."""

    __slots__ = ("_value",)
    _values_type = None

    def __init__(self, value=()):
        self._value = self._values_type(value)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, values):
        on_change = self._value._on_change
        self._value = self._values_type(values, on_change)
        self._value._changed()

    def __eq__(self, other):
        return type(other) is type(self) and self._value == other._value

    def __repr__(self):
        return _text(self)


class BytesList(_List):
    """``tf.train.BytesList``: ``value`` is a list of bytes."""

    __slots__ = ()
    _values_type = _BytesValues


class FloatList(_List):
    """``tf.train.FloatList``: ``value`` is a list of floats (stored as float32)."""

    __slots__ = ()
    _values_type = _FloatValues

    def __eq__(self, other):  # bitwise, like the serialized form: NaN == NaN, 0.0 != -0.0
        return type(other) is type(self) and _float_bits(self._value) == _float_bits(other._value)


class Int64List(_List):
    """``tf.train.Int64List``: ``value`` is a list of ints in the int64 range."""

    __slots__ = ()
    _values_type = _Int64Values


_LIST_TYPES = {"bytes_list": BytesList, "float_list": FloatList, "int64_list": Int64List}


def _float_bits(values):
    return struct.pack(f"<{len(values)}f", *values)


# --- Feature -----------------------------------------------------------------------------------


class Feature:
    """``tf.train.Feature``: at most one of ``bytes_list``, ``float_list``, ``int64_list``.

    ``WhichOneof("kind")`` tells which (or None). Reading an unset member returns an empty list;
    changing its values makes it the Feature's kind, replacing the previous one.
    """

    __slots__ = ("_kind", "_member")

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        self._kind = None
        self._member = None
        given = [
            (name, v)
            for name, v in zip(_KINDS, (bytes_list, float_list, int64_list))
            if v is not None
        ]
        if len(given) > 1:
            raise ValueError("a Feature holds at most one of bytes_list, float_list, int64_list")
        if given:
            name, value = given[0]
            if not isinstance(value, _LIST_TYPES[name]):
                raise TypeError(
                    f"{name} must be a {_LIST_TYPES[name].__name__}, not {type(value).__name__}"
                )
            self._set(name, _LIST_TYPES[name](value.value))

    def _set(self, name, member):
        # The set member needs no change callback (changing it changes nothing about the oneof),
        # and having none keeps Features free of reference cycles.
        self._kind = name
        self._member = member
        member._value._on_change = None

    def _get(self, name):
        if self._kind == name:
            return self._member
        # A detached member: changing its values makes it this Feature's kind, as in protobuf.
        member = _LIST_TYPES[name]()
        member._value._on_change = lambda: self._set(name, member)
        return member

    bytes_list = property(lambda self: self._get("bytes_list"), doc="The BytesList member.")
    float_list = property(lambda self: self._get("float_list"), doc="The FloatList member.")
    int64_list = property(lambda self: self._get("int64_list"), doc="The Int64List member.")

    def WhichOneof(self, oneof_group):  # noqa: N802 (protobuf's name)
        """The name of the set member of ``"kind"``, or None."""
        if oneof_group != "kind":
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return self._kind

    def HasField(self, name):  # noqa: N802 (protobuf's name)
        if name not in _KINDS and name != "kind":
            raise ValueError(f'Protocol message has no "{name}" field.')
        return self._kind is not None if name == "kind" else self._kind == name

    def _to_native(self):
        if self._kind is None:
            return (feature_spec.NONE, [])
        return (_KIND_OF_MEMBER[self._kind], list(self._member._value))

    @classmethod
    def _from_native(cls, native):
        """A Feature from decoded (kind, values): the values are already checked, so the public
        constructors' checks are skipped."""
        kind, values = native
        feature = object.__new__(cls)
        feature._kind = None
        feature._member = None
        if kind:
            name = _MEMBER_OF_KIND[kind]
            list_type = _LIST_TYPES[name]
            member = object.__new__(list_type)
            member._value = list_type._values_type._trusted(values)
            feature._set(name, member)
        return feature

    def __eq__(self, other):
        return (
            isinstance(other, Feature)
            and self._kind == other._kind
            and (self._kind is None or self._member == other._member)
        )

    def __repr__(self):
        return _text(self)


# --- maps and messages ---------------------------------------------------------------------------


class _MessageMap(dict):
    """map<string, Message>: a missing key is created on access, as protobuf maps do."""

    __slots__ = ("_value_type",)

    def __init__(self, value_type, items=None):
        super().__init__()
        self._value_type = value_type
        for key, value in (items or {}).items():
            self[key] = value

    def __missing__(self, key):
        value = self[key] = self._value_type()
        return value

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError(f"keys must be str, not {type(key).__name__}")
        if not isinstance(value, self._value_type):
            raise TypeError(
                f"values must be {self._value_type.__name__}, not {type(value).__name__}"
            )
        super().__setitem__(key, value)

    def get_or_create(self, key):
        return self[key]


class _RepeatedFeatures(list):
    """``FeatureList.feature``: a list of Feature with protobuf's ``add()``."""

    __slots__ = ()

    def add(self, **kwargs):
        feature = Feature(**kwargs)
        self.append(feature)
        return feature


class _Message:
    """Serialization and comparison shared by the message classes."""

    __slots__ = ()

    @classmethod
    def FromString(cls, data):  # noqa: N802 (protobuf's name)
        """Parses serialized bytes. Malformed data raises swigflow.errors.InvalidArgumentError."""
        message = cls()
        message.ParseFromString(data)
        return message

    def __eq__(self, other):
        return type(other) is type(self) and self._fields() == other._fields()

    def __repr__(self):
        return _text(self)


class Features(_Message):
    """``tf.train.Features``: ``feature`` maps str keys to Feature."""

    __slots__ = ("feature",)

    def __init__(self, feature=None):
        self.feature = _MessageMap(Feature, feature)

    @classmethod
    def _trusted(cls, features):
        """Features over decoded {str: Feature} without per-entry checks."""
        instance = object.__new__(cls)
        instance.feature = _MessageMap(Feature)
        dict.update(instance.feature, features)
        return instance

    def _fields(self):
        return dict(self.feature)


class Example(_Message):
    """``tf.train.Example``: one ``features`` field."""

    __slots__ = ("_features",)

    def __init__(self, features=None):
        self._features = Features() if features is None else _check(features, Features)

    features = property(lambda self: self._features, doc="The Features of this example.")

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        return _pywrap.EncodeExample({k: f._to_native() for k, f in self._features.feature.items()})

    def ParseFromString(self, data):  # noqa: N802 (protobuf's name)
        decoded = _pywrap.DecodeExample(data)
        self._features = Features._trusted({k: Feature._from_native(v) for k, v in decoded.items()})
        return len(data)

    def _fields(self):
        return self._features._fields()


class FeatureList(_Message):
    """``tf.train.FeatureList``: ``feature`` is a list of Feature."""

    __slots__ = ("feature",)

    def __init__(self, feature=None):
        self.feature = _RepeatedFeatures(_check(f, Feature) for f in (feature or ()))

    def _fields(self):
        return list(self.feature)


class FeatureLists(_Message):
    """``tf.train.FeatureLists``: ``feature_list`` maps str keys to FeatureList."""

    __slots__ = ("feature_list",)

    def __init__(self, feature_list=None):
        self.feature_list = _MessageMap(FeatureList, feature_list)

    def _fields(self):
        return dict(self.feature_list)


class SequenceExample(_Message):
    """``tf.train.SequenceExample``: ``context`` features and ``feature_lists``."""

    __slots__ = ("_context", "_feature_lists")

    def __init__(self, context=None, feature_lists=None):
        self._context = Features() if context is None else _check(context, Features)
        self._feature_lists = (
            FeatureLists() if feature_lists is None else _check(feature_lists, FeatureLists)
        )

    context = property(lambda self: self._context, doc="Features of the whole sequence.")
    feature_lists = property(lambda self: self._feature_lists, doc="Features per step.")

    def SerializeToString(self):  # noqa: N802 (protobuf's name)
        return _pywrap.EncodeSequenceExample(
            {k: f._to_native() for k, f in self._context.feature.items()},
            {
                k: [f._to_native() for f in fl.feature]
                for k, fl in self._feature_lists.feature_list.items()
            },
        )

    def ParseFromString(self, data):  # noqa: N802 (protobuf's name)
        context, lists = _pywrap.DecodeSequenceExample(data)
        self._context = Features._trusted({k: Feature._from_native(v) for k, v in context.items()})
        self._feature_lists = FeatureLists(
            {k: FeatureList([Feature._from_native(f) for f in v]) for k, v in lists.items()}
        )
        return len(data)

    def _fields(self):
        return (self._context._fields(), self._feature_lists._fields())


def _check(value, cls):
    if not isinstance(value, cls):
        raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
    return value


# --- text format (what repr shows, like protobuf's str()) -------------------------------------


def _scalar(value):
    if isinstance(value, bytes):
        return (
            '"'
            + "".join(
                chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:03o}" for b in value
            )
            + '"'
        )
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(float(np.float32(value)))
    return str(value)


def _text(message, indent=0):
    pad = "  " * indent
    lines = []

    def block(name, inner):
        lines.append(f"{pad}{name} {{")
        lines.append(_text(inner, indent + 1))
        lines.append(f"{pad}}}")

    if isinstance(message, _List):
        lines.extend(f"{pad}value: {_scalar(v)}" for v in message.value)
    elif isinstance(message, Feature):
        if message._kind is not None:
            block(message._kind, message._member)
    elif isinstance(message, (Features, FeatureLists)):
        name, mapping = (
            ("feature", message.feature)
            if isinstance(message, Features)
            else ("feature_list", message.feature_list)
        )
        for key in sorted(mapping):
            lines.append(f"{pad}{name} {{")
            lines.append(f'{pad}  key: "{key}"')
            lines.append(f"{pad}  value {{")
            lines.append(_text(mapping[key], indent + 2))
            lines.append(f"{pad}  }}")
            lines.append(f"{pad}}}")
    elif isinstance(message, FeatureList):
        for feature in message.feature:
            block("feature", feature)
    elif isinstance(message, Example):
        if message.features.feature:
            block("features", message.features)
    elif isinstance(message, SequenceExample):
        if message.context.feature:
            block("context", message.context)
        if message.feature_lists.feature_list:
            block("feature_lists", message.feature_lists)
    return "\n".join(line for line in lines if line)


# --- convenience -------------------------------------------------------------------------------


def _infer_feature(key, value):
    if isinstance(value, Feature):
        return value
    if isinstance(value, (bytes, str, bool, numbers.Number, np.generic)):
        value = [value]
    if isinstance(value, (list, tuple)) and any(
        isinstance(v, (list, tuple, np.ndarray)) for v in value
    ):
        value = np.asarray(value)  # nested lists flatten like arrays
    array = np.asarray(value) if not isinstance(value, (list, tuple)) else None
    items = list(value.ravel()) if array is not None else list(value)
    if not items:
        raise ValueError(f"feature {key!r} is empty: pass a Feature to say which kind it is")
    if all(isinstance(v, (bytes, str, np.bytes_, np.str_)) for v in items):
        return Feature(
            bytes_list=BytesList([v.encode() if isinstance(v, str) else bytes(v) for v in items])
        )
    if all(isinstance(v, (bool, numbers.Integral, np.integer, np.bool_)) for v in items):
        return Feature(int64_list=Int64List([int(v) for v in items]))
    if all(isinstance(v, (numbers.Real, np.floating, np.integer)) for v in items):
        return Feature(float_list=FloatList([float(v) for v in items]))
    raise TypeError(f"cannot infer the kind of feature {key!r} from {value!r}")


def example_from_dict(features):
    """An Example from ``{key: value}``, the kind inferred from the values.

    bytes and str (encoded as UTF-8) make a bytes_list; bools and integers (Python or numpy) an
    int64_list; floats an float_list. Values may be scalars, lists, tuples or numpy arrays
    (flattened); a Feature is used as it is.
    """
    return Example(features=Features({k: _infer_feature(k, v) for k, v in features.items()}))


__all__ = [
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "example_from_dict",
]
