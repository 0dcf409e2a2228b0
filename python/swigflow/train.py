"""tf.train.Example and friends as protobuf messages: TensorFlow's schema, protobuf's classes.

::

    from swigflow import train
    example = train.Example(features=train.Features(feature={
        "label": train.Feature(int64_list=train.Int64List(value=[3])),
        "image": train.Feature(bytes_list=train.BytesList(value=[jpeg_bytes])),
    }))
    data = example.SerializeToString()
    train.Example.FromString(data).features.feature["label"].int64_list.value  # [3]

Each class is the protobuf message of TensorFlow's example.proto / feature.proto (same package,
names and field numbers; built in swigflow's own descriptor pool, see swigflow.proto), so the
whole protobuf API applies (``CopyFrom``, ``MergeFrom``, ``HasField``, ``ByteSize``,
``text_format``, ``json_format``) and ``tf.train.Example.FromString(ours.SerializeToString())``
reads them back exactly, as does the reverse. Batches of records are parsed into arrays by
swigflow.io.parse_example in C++, without these classes.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from google.protobuf import message

from swigflow import proto

BytesList = proto.message_class("tensorflow.BytesList")
FloatList = proto.message_class("tensorflow.FloatList")
Int64List = proto.message_class("tensorflow.Int64List")
Feature = proto.message_class("tensorflow.Feature")
Features = proto.message_class("tensorflow.Features")
FeatureList = proto.message_class("tensorflow.FeatureList")
FeatureLists = proto.message_class("tensorflow.FeatureLists")
Example = proto.message_class("tensorflow.Example")
SequenceExample = proto.message_class("tensorflow.SequenceExample")


def _as_feature(key, value):
    """``value`` when it is a Feature; TensorFlow's (or any pool's) tensorflow.Feature by value."""
    if isinstance(value, Feature):
        return value
    if value.DESCRIPTOR.full_name != Feature.DESCRIPTOR.full_name:
        raise TypeError(f"feature {key!r}: expected a Feature, got {value.DESCRIPTOR.full_name}")
    return Feature.FromString(value.SerializeToString())


def _fill_feature(feature, key, value):
    """Sets ``feature`` from a Python or numpy value, the kind inferred from its items."""
    if isinstance(value, message.Message):
        feature.CopyFrom(_as_feature(key, value))
        return
    if isinstance(value, (bytes, str, bool, numbers.Number, np.generic)):
        value = [value]
    if isinstance(value, (list, tuple)) and any(
        isinstance(v, (list, tuple, np.ndarray)) for v in value
    ):
        value = np.asarray(value)  # nested lists flatten like arrays
    if isinstance(value, np.ndarray):
        items = value.ravel().tolist() if value.dtype.kind in "biuf" else list(value.ravel())
    else:
        items = list(value)
    if not items:
        raise ValueError(f"feature {key!r} is empty: pass a Feature to say which kind it is")
    if all(isinstance(v, (bytes, str, np.bytes_, np.str_)) for v in items):
        feature.bytes_list.value.extend(
            v.encode() if isinstance(v, str) else bytes(v) for v in items
        )
    elif all(isinstance(v, (bool, numbers.Integral, np.integer, np.bool_)) for v in items):
        feature.int64_list.value.extend(int(v) for v in items)
    elif all(isinstance(v, (numbers.Real, np.floating, np.integer)) for v in items):
        feature.float_list.value.extend(float(v) for v in items)
    else:
        raise TypeError(f"cannot infer the kind of feature {key!r} from {value!r}")


def example_from_dict(features: Mapping[str, Any]) -> Example:
    """An Example from ``{key: value}``, the kind inferred from the values.

    bytes and str (encoded as UTF-8) make a bytes_list; bools and integers (Python or numpy) an
    int64_list; floats a float_list. Values may be scalars, lists, tuples or numpy arrays
    (flattened); a Feature (ours or TensorFlow's) is used as it is.

    Raises:
      ValueError: a value is empty (its kind cannot be inferred), or an integer does not fit
        int64.
      TypeError: a value mixes kinds or has none of them.

    Args:
        features: a dict of feature name to value.

    Returns:
        A swigflow.train.Example.
    """
    example = Example()
    example.features.SetInParent()  # present even when empty, as Example(features=Features())
    feature_map = example.features.feature
    for key, value in features.items():
        _fill_feature(feature_map[key], key, value)
    return example


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
