"""TFDS feature connectors, read from ``features.json`` and decoded as TFDS decodes them.

A TFDS dataset stores each example as a ``tf.train.Example``; ``features.json`` says how. Every
connector here mirrors one of ``tfds.features``: it knows how its values were serialized (the
keys, dtypes and shapes of its Example features) and how ``builder.as_dataset`` turns them back
into numpy values. The rules, from TFDS 4.9 (``example_parser.py``, ``features/*.py``):

- A FeaturesDict flattens into leaves (sorted keys joined with ``/``); a Sequence adds a
  leading dimension to every leaf under it (its *sequence rank*); a Dataset (RLDS steps) is a
  Sequence whose leaves decode into a nested dataset.
- A leaf's values are stored as int64 (integers and bools), float32 (floats) or bytes, in one
  flat list per key; one unknown dimension is restored by reshaping, several by the ragged
  ``key/ragged_flat_values`` + ``key/ragged_row_lengths_<i>`` keys, or for a Tensor of several
  unknown dimensions by its ``bytes``/``zlib`` encoding with a ``key/shape`` beside it.
- Then the values are cast back to the leaf's dtype and decoded by the connector (images from
  PNG/JPEG, encoded tensors from their raw bytes, ...).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import json
import math
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.image import codecs as _codecs
from swigflow.io import feature_spec
from swigflow.tensors import RaggedTensor

_PREFIX = "tensorflow_datasets.core.features."
_OBJECT = np.dtype(object)  # strings: bytes objects, as TensorFlow's string tensors give them


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """What a leaf holds (as ``tfds.features.TensorInfo``): shape (None where unknown), numpy
    dtype (object for strings), how many Sequence levels wrap it, whether it is inside a
    Dataset, and its default value (optional tensors).

    Args:
        shape: a tuple of dimensions, None where unknown.
        dtype: the numpy dtype (object for strings).
        sequence_rank: how many Sequence levels wrap the leaf.
        dataset_lvl: how many Dataset levels wrap it.
        default_value: the value of a missing optional tensor.
        optional: whether the tensor may be missing.
    """

    shape: tuple[int | None, ...]
    dtype: np.dtype
    sequence_rank: int = 0
    dataset_lvl: int = 0
    default_value: object = None
    optional: bool = False

    def with_length(self, length: int | None) -> TensorInfo:
        """This info inside a Sequence of `length` (None: variable).

        Args:
            length: the Sequence's length, or None.

        Returns:
            A TensorInfo with a leading dimension and one more sequence level.
        """
        return dataclasses.replace(
            self, shape=(length, *self.shape), sequence_rank=self.sequence_rank + 1
        )


def _dtype(name):
    """A features.json dtype name as numpy's ("string" is object)."""
    if name == "string":
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError:
        raise errors.UnimplementedError(f"dtype {name!r} is not supported") from None


def _shape(proto):
    """A features.json shape ({"dimensions": ["-1", "3"]}) as a tuple, None for -1."""
    dims = (proto or {}).get("dimensions", [])
    return tuple(None if int(d) == -1 else int(d) for d in dims)


def _dtype_name(dtype):
    return "string" if dtype == _OBJECT else np.dtype(dtype).name


def _serialized_kind(dtype):
    """The Example list a dtype is stored in: int64 (integers, bools), float32 or string."""
    if dtype == _OBJECT or dtype.kind in "SU":
        return "string"
    if dtype.kind in "biu":
        return "int64"
    if dtype.kind == "f":
        return "float32"
    raise errors.UnimplementedError(f"TFDS cannot store {dtype} in a tf.train.Example")


def _empty(shape, dtype):
    """An empty sequence's decoded value: unknown dimensions become 0."""
    return np.zeros(tuple(0 if d is None else d for d in shape), dtype)


def _scalar(array):
    """A 0-d result as TensorFlow's ``.numpy()`` gives it: a numpy scalar (bytes for strings)."""
    return array[()] if isinstance(array, np.ndarray) and array.ndim == 0 else array


class FeatureConnector:
    """The base of every connector: its name in features.json and the tree it belongs to.

    Args:
        doc: the feature's documentation (features.json's "description").
    """

    python_class_name = None

    def __init__(self, doc: Any = None) -> None:
        self.doc: Any = doc

    # --- the tree -------------------------------------------------------------------------

    def _leaves(self, path):
        """(path, leaf connector) for every leaf below this one, sorted as TFDS flattens."""
        return [(path, self)]

    @property
    def shape(self) -> Any:
        return self.tensor_info().shape

    @property
    def dtype(self) -> Any:
        return self.tensor_info().dtype

    @property
    def np_dtype(self) -> np.dtype:
        return self.dtype

    def tensor_info(self) -> Any:
        """The TensorInfo of what decoding returns."""
        raise NotImplementedError

    def serialized_info(self) -> Any:
        """The TensorInfo (or {name: TensorInfo}) of what the Example stores."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """A JSON-able description: class, shape, dtype and the connector's own fields."""
        info = self.tensor_info()
        return {
            "class": type(self).__name__,
            "shape": list(info.shape),
            "dtype": _dtype_name(info.dtype),
        }

    # --- decoding (rank 0: one value; rank 1: a sequence of them; more: ragged) ---------

    def decode_example(self, value: Any) -> Any:
        """Decodes one example's stored value of this feature.

        Args:
            value: the parsed value.

        Returns:
            The decoded value.
        """
        return _scalar(value)

    def decode_batch_example(self, values: Any) -> Any:
        """Decodes the stored values of a batch of examples.

        Args:
            values: the parsed values, stacked along a first dimension.

        Returns:
            The decoded values, stacked.
        """
        return values

    def decode_ragged_example(self, ragged: Any) -> Any:
        """Decodes the values of a variable-length Sequence, keeping its row splits.

        Args:
            ragged: a RaggedTensor of parsed values.

        Returns:
            A RaggedTensor of the decoded values.
        """
        return _map_flat_values(self.decode_batch_example, ragged)

    def __repr__(self) -> str:
        info = self.tensor_info()
        return f"{type(self).__name__}(shape={info.shape}, dtype={_dtype_name(info.dtype)})"


def _map_flat_values(fn, ragged):
    if isinstance(ragged.values, RaggedTensor):
        return RaggedTensor(_map_flat_values(fn, ragged.values), ragged.row_splits)
    return RaggedTensor(fn(ragged.values), ragged.row_splits)


class Tensor(FeatureConnector):
    """``tfds.features.Tensor``: an array of a fixed dtype; unknown dimensions are restored from
    the stored values, and the ``bytes``/``zlib`` encodings store the raw array bytes.

    Args:
        shape: the array's shape, None for unknown dimensions.
        dtype: its dtype.
        encoding: "none" (the values as the Example's list), "bytes" or "zlib" (the raw array
            bytes, zlib-compressed for the latter).
        optional: whether the value may be missing.
        minimum: the smallest value (documentation only).
        maximum: the largest value (documentation only).
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "tensor_feature.Tensor"

    def __init__(
        self,
        *,
        shape: Any,
        dtype: Any,
        encoding: str = "none",
        optional: bool = False,
        minimum: Any = None,
        maximum: Any = None,
        doc: Any = None,
    ) -> None:
        super().__init__(doc)
        self._shape = tuple(shape)
        self._dtype = np.dtype(dtype)
        self._encoding = (encoding or "none").lower()
        if self._encoding not in ("none", "bytes", "zlib"):
            raise errors.UnimplementedError(f"Tensor encoding {encoding!r} is not supported")
        self._optional = bool(optional)
        self.minimum: Any = minimum
        self.maximum: Any = maximum
        if self._dtype == _OBJECT and self._encoding != "none":
            raise errors.InvalidArgumentError("a string Tensor cannot have an encoding")

    @property
    def encoding(self) -> str:
        return self._encoding

    @property
    def optional(self) -> bool:
        return self._optional

    def _encoded(self):
        return self._encoding != "none"

    def _dynamic(self):
        return self._shape.count(None) > 1

    def _default_value(self):
        if not self._optional:
            return None
        dtype = self._dtype
        if dtype == _OBJECT:
            value = b""
        elif dtype.kind in "iu":
            value = np.iinfo(dtype).min
        elif dtype.kind == "f":
            value = np.finfo(dtype).min
        elif dtype.kind == "b":
            value = False
        else:
            raise errors.UnimplementedError(f"no default value for {dtype}")
        return value if not self._shape else np.full(self._shape, value, dtype=dtype)

    def tensor_info(self) -> Any:
        return TensorInfo(
            self._shape, self._dtype, default_value=self._default_value(), optional=self._optional
        )

    def serialized_info(self) -> Any:
        default = self._default_value()
        if self._encoded():
            value = TensorInfo((), np.dtype(object), default_value=default, optional=self._optional)
        else:
            value = TensorInfo(
                self._shape, self._dtype, default_value=default, optional=self._optional
            )
        if self._dynamic():
            shape = TensorInfo((len(self._shape),), np.dtype(np.int32), optional=self._optional)
            return {"shape": shape, "value": value}
        return value

    def _value_and_shape(self, data):
        if self._dynamic():
            value, stored = data["value"], np.asarray(data["shape"])
            shape = tuple(int(s) if d is None else d for s, d in zip(stored, self._shape))
            return value, shape
        return data, tuple(-1 if d is None else d for d in self._shape)

    def _from_bytes(self, raw, shape):
        raw = bytes(raw)
        if self._encoding == "zlib":
            try:
                raw = zlib.decompress(raw)
            except zlib.error as e:
                raise errors.DataLossError(f"zlib-encoded tensor does not inflate: {e}") from None
        itemsize = self._dtype.itemsize
        if len(raw) % itemsize:
            raise errors.InvalidArgumentError(
                f"Input to DecodeRaw has length {len(raw)} that is not a multiple of "
                f"{itemsize}, the size of {self._dtype.name}"
            )
        array = np.frombuffer(raw, dtype=self._dtype.newbyteorder("<"))
        try:
            return array.astype(self._dtype, copy=False).reshape(shape)
        except ValueError:
            raise errors.InvalidArgumentError(
                f"Input to reshape is a tensor with {array.size} values, but the requested "
                f"shape is {list(shape)}"
            ) from None

    def decode_example(self, value: Any) -> Any:
        """Decodes one stored value: reshaped, and its bytes read for the bytes/zlib encodings.

        Args:
            value: the parsed value.

        Returns:
            The array (a numpy scalar for shape ()).

        Raises:
            InvalidArgumentError: the value does not fit the shape.
        """
        if not self._encoded():
            return _scalar(value)
        data, shape = self._value_and_shape(value)
        return _scalar(self._from_bytes(_scalar(data), shape))

    def decode_batch_example(self, values: Any) -> Any:
        """Decodes the stored values of a batch of examples.

        Args:
            values: the parsed values, stacked.

        Returns:
            The arrays, stacked.
        """
        if not self._encoded() and not self._dynamic():
            return values
        return _decode_each(self, values, self._shape)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        if self._encoded():
            out["encoding"] = self._encoding
        if self._optional:
            out["optional"] = True
        return out


def _decode_each(feature, values, shape):
    """decode_example of each element of a sequence, stacked (an empty sequence keeps the
    known dimensions, as TFDS's empty-sequence output)."""
    if isinstance(values, dict):
        n = len(next(iter(values.values())))
        rows = [feature.decode_example({k: v[i] for k, v in values.items()}) for i in range(n)]
    else:
        n = len(values)
        rows = [feature.decode_example(values[i]) for i in range(n)]
    if not rows:
        return _empty((0, *shape), feature.dtype)
    try:
        return np.stack([np.asarray(r) for r in rows])
    except ValueError:
        raise errors.InvalidArgumentError(
            f"{type(feature).__name__} values of a sequence have different shapes: "
            f"{[np.shape(r) for r in rows]}"
        ) from None


class Scalar(Tensor):
    """``tfds.features.Scalar``: a Tensor of shape ().

    Args:
        dtype: the value's dtype.
        optional: whether the value may be missing.
        doc: the feature's documentation.
        **kwargs: more arguments for Tensor.
    """

    python_class_name = _PREFIX + "scalar.Scalar"

    def __init__(
        self, dtype: Any, *, optional: bool = False, doc: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(shape=(), dtype=dtype, optional=optional, doc=doc, **kwargs)


class ClassLabel(Tensor):
    """``tfds.features.ClassLabel``: an int64 label, with names from ``<feature>.labels.txt``.

    Args:
        num_classes: the number of classes, when they have no names.
        names: the classes' names, in label order.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "class_label_feature.ClassLabel"

    def __init__(
        self,
        *,
        num_classes: int | None = None,
        names: collections.abc.Sequence[str] | None = None,
        doc: Any = None,
    ) -> None:
        super().__init__(shape=(), dtype=np.int64, doc=doc)
        if names is not None:
            names = [str(n) for n in names]
            if num_classes is not None and num_classes != len(names):
                raise errors.DataLossError(
                    f"ClassLabel has {num_classes} classes but {len(names)} names"
                )
            num_classes = len(names)
        self._num_classes = num_classes
        self._names = names

    @property
    def num_classes(self) -> int | None:
        return self._num_classes

    @property
    def names(self) -> list[str] | None:
        if self._names is not None:
            return list(self._names)
        return [str(i) for i in range(self._num_classes or 0)]

    def int2str(self, int_value: int) -> str:
        """The name of class `int_value`.

        Args:
            int_value: a label.

        Returns:
            Its name (or its number's text when the classes have no names).

        Raises:
            ValueError: the label is out of range.
        """
        index = int(int_value)
        if self._num_classes is not None and not 0 <= index < self._num_classes:
            raise ValueError(f"Invalid integer class label {index}")
        return self.names[index] if self._names is not None else str(index)

    def str2int(self, str_value: str) -> int:
        """The class of name `str_value` (a number's text when the classes have no names).

        Args:
            str_value: a class name.

        Returns:
            Its label.

        Raises:
            ValueError: no class has that name.
        """
        name = str_value.decode("utf-8") if isinstance(str_value, bytes) else str(str_value)
        if self._names is not None:
            try:
                return self._names.index(name)
            except ValueError:
                pass
        try:
            index = int(name)
        except ValueError:
            raise ValueError(f"Invalid string class label {name}") from None
        if self._num_classes is not None and not 0 <= index < self._num_classes:
            raise ValueError(f"Invalid string class label {name}")
        return index

    def load_names(self, path: str) -> None:
        """Reads the names file at `path` (one name a line), when it exists.

        Args:
            path: the names file (local path or fsspec URL).
        """
        from swigflow.io import gfile

        try:
            with gfile.GFile(path, "rb") as f:
                text = f.read().decode("utf-8")
        except errors.NotFoundError:
            return
        names = [line.strip() for line in text.split("\n") if line.strip()]
        if self._num_classes is not None and len(names) != self._num_classes:
            raise errors.DataLossError(
                f"{path} has {len(names)} class names but features.json says {self._num_classes}"
            )
        self._names = names
        self._num_classes = len(names)

    def describe(self) -> dict[str, Any]:
        return dict(super().describe(), num_classes=self._num_classes, names=self.names)

    def __repr__(self) -> str:
        return f"ClassLabel(shape=(), dtype=int64, num_classes={self._num_classes})"


class Text(Tensor):
    """``tfds.features.Text``: a UTF-8 string, returned as bytes (as TFDS's as_numpy).

    Args:
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "text_feature.Text"

    def __init__(self, doc: Any = None) -> None:
        super().__init__(shape=(), dtype=object, doc=doc)

    def __repr__(self) -> str:
        return "Text(shape=(), dtype=string)"


class BBoxFeature(Tensor):
    """``tfds.features.BBoxFeature``: float32 [ymin, xmin, ymax, xmax], relative.

    Args:
        bbox_format: the box format TFDS recorded (kept as given; the values are read as stored).
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "bounding_boxes.BBoxFeature"

    def __init__(self, *, bbox_format: str = "REL_YXYX", doc: Any = None) -> None:
        super().__init__(shape=(4,), dtype=np.float32, doc=doc)
        self.bbox_format: Any = bbox_format


class Audio(Tensor):
    """``tfds.features.Audio`` stored as raw samples. A file format (wav, flac, ...) stores
    encoded files, which need a codec this library does not have: reading one raises
    UnimplementedError.

    Args:
        shape: the samples' shape ([length] or [length, channels]).
        dtype: the samples' dtype.
        file_format: None (raw samples) or the encoded files' format (not decodable here).
        sample_rate: the sample rate (documentation only).
        encoding: as Tensor's.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "audio_feature.Audio"

    def __init__(
        self,
        *,
        shape: Any,
        dtype: Any,
        file_format: str | None = None,
        sample_rate: int | None = None,
        encoding: str = "none",
        doc: Any = None,
    ) -> None:
        self.file_format: Any = file_format or None
        self.sample_rate: Any = sample_rate
        super().__init__(shape=shape, dtype=dtype, encoding=encoding, doc=doc)

    def serialized_info(self) -> Any:
        if self.file_format:
            return TensorInfo((), np.dtype(object))
        return super().serialized_info()

    def decode_example(self, value: Any) -> Any:
        """Decodes one example's samples.

        Args:
            value: the parsed value.

        Returns:
            The samples.

        Raises:
            UnimplementedError: the audio is stored as encoded files.
        """
        if self.file_format:
            raise errors.UnimplementedError(
                f"Audio stored as {self.file_format} files needs an audio codec; decode the "
                "bytes yourself with decoders={'<feature>': SkipDecoding()}"
            )
        return super().decode_example(value)

    def decode_batch_example(self, values: Any) -> Any:
        """Decodes the samples of a batch of examples.

        Args:
            values: the parsed values, stacked.

        Returns:
            The samples, stacked.
        """
        if self.file_format:
            return self.decode_example(values)
        return super().decode_batch_example(values)


class Image(FeatureConnector):
    """``tfds.features.Image``: a PNG or JPEG (or GIF/BMP) decoded to [height, width, channels]
    at its own size, as ``tf.image.decode_image(channels=shape[-1], dtype=dtype)``; float32
    images are 4-channel PNGs holding the float's bytes.

    Args:
        shape: (height, width, channels), None where unknown.
        dtype: the pixels' dtype (uint8, uint16, or float32 stored as 4-channel PNGs).
        encoding_format: "png" or "jpeg" (documentation; the data says which).
        use_colormap: accepted for TFDS's sake (display only).
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "image_feature.Image"

    def __init__(
        self,
        *,
        shape: Any = None,
        dtype: Any = np.uint8,
        encoding_format: str | None = None,
        use_colormap: bool = False,
        doc: Any = None,
    ) -> None:
        super().__init__(doc)
        self._shape = tuple(shape) if shape else (None, None, 3)
        self._dtype = np.dtype(dtype)
        if self._dtype not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)):
            raise errors.UnimplementedError(f"images of dtype {self._dtype} are not supported")
        self.encoding_format: Any = encoding_format or None
        self.use_colormap: Any = bool(use_colormap)

    def tensor_info(self) -> Any:
        return TensorInfo(self._shape, self._dtype)

    def serialized_info(self) -> Any:
        return TensorInfo((), np.dtype(object))

    def decode_example(self, value: Any) -> Any:
        """Decodes one encoded image.

        Args:
            value: the encoded bytes.

        Returns:
            The image array.

        Raises:
            InvalidArgumentError: the image does not decode, or its shape does not match.
        """
        contents = _scalar(value)
        if self._dtype == np.float32:
            image = _codecs.decode_image(contents, channels=4, dtype=np.uint8)
            image = np.ascontiguousarray(image).view("<f4").astype(np.float32, copy=False)
        else:
            channels = self._shape[-1] or 0
            image = _codecs.decode_image(contents, channels=channels, dtype=self._dtype)
        if image.ndim != len(self._shape) or any(
            d is not None and d != s for d, s in zip(self._shape, image.shape)
        ):
            raise errors.InvalidArgumentError(
                f"decoded image of shape {image.shape} does not match the feature's {self._shape}"
            )
        return image

    def decode_batch_example(self, values: Any) -> Any:
        """Decodes a batch of encoded images of one shape.

        Args:
            values: the encoded bytes, stacked.

        Returns:
            The images, stacked.
        """
        return _decode_each(self, values, self._shape)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        if self.encoding_format:
            out["encoding_format"] = self.encoding_format
        return out


class LabeledImage(Image):
    """``tfds.features.LabeledImage``: a segmentation mask, an Image whose pixels are classes.

    Args:
        num_classes: the number of classes, when they have no names.
        names: the classes' names.
        **kwargs: the Image's arguments.
    """

    python_class_name = _PREFIX + "labeled_image.LabeledImage"

    def __init__(
        self,
        *,
        num_classes: int | None = None,
        names: collections.abc.Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.labels: Any = ClassLabel(num_classes=num_classes, names=names)

    @property
    def num_classes(self) -> int | None:
        return self.labels.num_classes

    @property
    def names(self) -> list[str] | None:
        return self.labels.names

    def load_names(self, path: str) -> None:
        """Reads the classes' names file at `path`, when it exists.

        Args:
            path: the names file (local path or fsspec URL).
        """
        self.labels.load_names(path)

    def describe(self) -> dict[str, Any]:
        return dict(super().describe(), num_classes=self.num_classes, names=self.names)


class FeaturesDict(FeatureConnector):
    """``tfds.features.FeaturesDict``: a dict of connectors, nested by ``/`` in the Example.

    Args:
        features: a dict of feature name to FeatureConnector.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "features_dict.FeaturesDict"

    def __init__(self, features: Any, doc: Any = None) -> None:
        super().__init__(doc)
        self._features = dict(features)
        self._plan = None  # deserialize_example*'s decode plan

    def __getitem__(self, key: str) -> Any:
        feature = self
        for part in key.split("/"):
            feature = feature._features[part]
        return feature

    def __contains__(self, key: str) -> bool:
        try:
            self[key]
        except (KeyError, AttributeError):
            return False
        return True

    def keys(self) -> Any:
        return self._features.keys()

    def items(self) -> Any:
        return self._features.items()

    def values(self) -> Any:
        return self._features.values()

    def __len__(self) -> int:
        return len(self._features)

    def __iter__(self) -> Iterator[str]:
        return iter(self._features)

    def _leaves(self, path):
        out = []
        for key in sorted(self._features):
            out.extend(self._features[key]._leaves((*path, key)))
        return out

    def leaves(self) -> Any:
        """[(key, connector)] of every leaf, keys ``/``-joined as in the Example, sorted as TFDS
        flattens them (a Sequence's leaves under their own keys; a Dataset is one leaf)."""
        return [
            ("/".join(path), leaf.leaf if isinstance(leaf, _InSequence) else leaf)
            for path, leaf in self._leaves(())
        ]

    def tensor_info(self) -> Any:
        return {k: f.tensor_info() for k, f in self._features.items()}

    def serialized_info(self) -> Any:
        return {k: f.serialized_info() for k, f in self._features.items()}

    @property
    def shape(self) -> Any:
        return {k: f.shape for k, f in self._features.items()}

    @property
    def dtype(self) -> Any:
        return {k: f.dtype for k, f in self._features.items()}

    def describe(self) -> dict[str, Any]:
        return {
            "class": type(self).__name__,
            "children": {k: f.describe() for k, f in sorted(self._features.items())},
        }

    def deserialize_example_np(self, serialized: Any, *, decoders: Any = None) -> Any:
        """One serialized tf.train.Example decoded as TFDS's numpy path does
        (``features.deserialize_example_np``).

        Args:
            serialized: the serialized Example (bytes).
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.

        Returns:
            A dict of decoded values.
        """
        return self.deserialize_examples_np([serialized], decoders=decoders)[0]

    def deserialize_examples_np(self, serialized: Any, *, decoders: Any = None) -> Any:
        """Serialized Examples decoded as deserialize_example_np, parsed in one native call.

        Args:
            serialized: a sequence of serialized Examples.
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.

        Returns:
            A list of dicts of decoded values.
        """
        return _decode_records(self, serialized, decoders, numpy_path=True)

    def deserialize_example(self, serialized: Any, *, decoders: Any = None) -> Any:
        """One serialized Example decoded as ``as_dataset`` decodes it (numpy scalars, ragged
        values as RaggedTensor).

        Args:
            serialized: the serialized Example (bytes).
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.

        Returns:
            A dict of decoded values.
        """
        return _decode_records(self, [serialized], decoders, numpy_path=False)[0]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {f!r}" for k, f in sorted(self._features.items()))
        return f"{type(self).__name__}({{{inner}}})"


class Translation(FeaturesDict):
    """``tfds.features.Translation``: one Text per language.

    Args:
        languages: the language codes, one Text each.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "translation_feature.Translation"

    def __init__(self, languages: collections.abc.Sequence[str] | None, doc: Any = None) -> None:
        self.languages: Any = sorted(languages)
        super().__init__({lang: Text() for lang in self.languages}, doc)

    def describe(self) -> dict[str, Any]:
        return dict(super().describe(), languages=list(self.languages))


class Sequence(FeatureConnector):
    """``tfds.features.Sequence``: `length` (None: any number) values of the inner feature,
    each leaf stored with one more leading dimension.

    Args:
        feature: the inner FeatureConnector (or a dict of them).
        length: the number of values; None: variable.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "sequence_feature.Sequence"

    def __init__(self, feature: Any, length: int | None = None, doc: Any = None) -> None:
        super().__init__(doc)
        self.feature: Any = feature
        self._length = length

    @property
    def length(self) -> int | None:
        return self._length

    def __getitem__(self, key: str) -> Any:
        return self.feature[key]

    def _leaves(self, path):
        return [(p, _InSequence(leaf, self._length)) for p, leaf in self.feature._leaves(path)]

    def tensor_info(self) -> Any:
        return _map_info(self.feature.tensor_info(), lambda i: i.with_length(self._length))

    def serialized_info(self) -> Any:
        return _map_info(self.feature.serialized_info(), lambda i: i.with_length(self._length))

    def describe(self) -> dict[str, Any]:
        return {
            "class": type(self).__name__,
            "length": self._length,
            "feature": self.feature.describe(),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.feature!r}, length={self._length})"


class TranslationVariableLanguages(Sequence):
    """``tfds.features.TranslationVariableLanguages``: a sequence of {"language",
    "translation"} texts, sorted by language then text.

    Args:
        languages: the allowed language codes; None: any.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "translation_feature.TranslationVariableLanguages"

    def __init__(
        self, languages: collections.abc.Sequence[str] | None = None, doc: Any = None
    ) -> None:
        self.languages: Any = sorted(languages or [])
        super().__init__(FeaturesDict({"language": Text(), "translation": Text()}), doc=doc)

    def describe(self) -> dict[str, Any]:
        return dict(super().describe(), languages=list(self.languages))


class Video(Sequence):
    """``tfds.features.Video``: frames, each an encoded image, decoded to [frames, h, w, c].

    Args:
        shape: (frames, height, width, channels), None where unknown.
        dtype: the frames' dtype.
        encoding_format: the frames' image format ("png" or "jpeg").
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "video_feature.Video"

    def __init__(
        self,
        shape: Any,
        dtype: Any = np.uint8,
        encoding_format: str | None = "png",
        doc: Any = None,
    ) -> None:
        shape = tuple(shape)
        frame = Image(shape=shape[1:], dtype=dtype, encoding_format=encoding_format)
        super().__init__(frame, length=shape[0], doc=doc)

    def describe(self) -> dict[str, Any]:
        info = self.tensor_info()
        return dict(super().describe(), shape=list(info.shape), dtype=_dtype_name(info.dtype))

    def __repr__(self) -> str:
        info = self.tensor_info()
        return f"Video(shape={info.shape}, dtype={_dtype_name(info.dtype)})"


class Dataset(Sequence):
    """``tfds.features.Dataset`` (RLDS ``steps``): decoded into a nested
    :class:`swigflow.data.Dataset` of the inner feature's values, so
    ``ds.flat_map(lambda episode: episode["steps"])`` works as with tf.data.

    Args:
        feature: the inner FeatureConnector (or a dict of them): one step.
        length: the number of steps; None: variable.
        doc: the feature's documentation.
    """

    python_class_name = _PREFIX + "dataset_feature.Dataset"

    def _leaves(self, path):
        return [(path, self)]  # decoded whole: the steps' leaves stay together

    def tensor_info(self) -> Any:
        return _map_info(super().tensor_info(), _in_dataset)

    def serialized_info(self) -> Any:
        return _map_info(super().serialized_info(), _in_dataset)

    def decode_steps(self, flat: Mapping[str, Any], decoders: Any = None) -> Any:
        """The nested dataset of the steps from their deserialized values ({key under the
        Dataset: array with a leading steps dimension}); each step decodes when it is read.

        Args:
            flat: a dict of key under the Dataset to an array with a leading steps dimension.
            decoders: a dict (nested like the features) of swigflow.datasets.decode.Decoder objects,
                e.g. {"image": SkipDecoding()} to keep the encoded bytes.

        Returns:
            A swigflow.data.Dataset of the decoded steps.
        """
        from swigflow.data import Dataset as _Data

        counts = {len(value) for value in flat.values()}
        if len(counts) != 1:
            raise errors.InvalidArgumentError(
                f"the steps' features have different lengths: {sorted(counts)}"
            )
        plan = _DecodePlan(self.feature)
        step = functools.partial(_decode_step, plan, flat, decoders)
        return _Data.range(counts.pop()).map(step)


def _decode_step(plan, flat, decoders, index):
    return plan.decode({k: v[int(index)] for k, v in flat.items()}, decoders)


def _in_dataset(info):
    return dataclasses.replace(info, dataset_lvl=info.dataset_lvl + 1)


def _map_info(info, fn):
    if isinstance(info, dict):
        return {k: _map_info(v, fn) for k, v in info.items()}
    return fn(info)


class _InSequence:
    """A leaf under `levels` Sequences: its shape, and how it decodes by sequence rank."""

    def __init__(self, leaf, length):
        self.leaf: Any = leaf.leaf if isinstance(leaf, _InSequence) else leaf
        self.lengths: Any = (length, *(leaf.lengths if isinstance(leaf, _InSequence) else ()))


# --- features.json ------------------------------------------------------------------------------


def _tensor_kwargs(content):
    return {
        "shape": _shape(content.get("shape")),
        "dtype": _dtype(content.get("dtype", "float32")),
        "encoding": content.get("encoding", "none"),
        "optional": bool(content.get("optional", False)),
    }


def _from_tensor(content):
    return Tensor(**_tensor_kwargs(content))


def _from_scalar(content):
    kwargs = _tensor_kwargs(content)
    if kwargs.pop("shape") != ():
        raise errors.DataLossError("a Scalar feature with a shape")
    return Scalar(kwargs.pop("dtype"), **kwargs)


def _from_class_label(content):
    n = content.get("numClasses")
    return ClassLabel(num_classes=None if n is None else int(n))


def _from_text(content):
    if content.get("encoder") or content.get("encoderConfig"):
        raise errors.UnimplementedError("Text with an encoder (deprecated in TFDS)")
    return Text()


def _image_kwargs(content):
    return {
        "shape": _shape(content.get("shape")) or None,
        "dtype": _dtype(content.get("dtype", "uint8")),
        "encoding_format": content.get("encodingFormat") or None,
    }


def _from_image(content):
    return Image(**_image_kwargs(content), use_colormap=bool(content.get("useColormap", False)))


def _from_labeled_image(content):
    n = (content.get("label") or {}).get("numClasses")
    return LabeledImage(num_classes=None if n is None else int(n), **_image_kwargs(content))


def _from_bbox(content):
    return BBoxFeature(bbox_format=content.get("bboxFormat", "REL_YXYX"))


def _from_audio(content):
    return Audio(
        shape=_shape(content.get("shape")),
        dtype=_dtype(content.get("dtype", "int64")),
        file_format=content.get("fileFormat") or content.get("file_format"),
        sample_rate=int(content["sampleRate"]) if content.get("sampleRate") else None,
        encoding=content.get("encoding", "none"),
    )


def _from_video(content):
    return Video(
        shape=_shape(content.get("shape")),
        dtype=_dtype(content.get("dtype", "uint8")),
        encoding_format=content.get("encodingFormat") or "png",
    )


def _from_sequence(content, cls=Sequence):
    length = content.get("length")
    length = None if length is None or int(length) == -1 else int(length)
    return cls(from_json(content["feature"]), length=length)


def _from_dataset(content):
    return _from_sequence(content, Dataset)


def _from_features_dict(content):
    children = {}
    for key, value in content.get("features", {}).items():
        try:
            children[key] = from_json(value)
        except (errors.DataLossError, errors.UnimplementedError) as e:
            inner = getattr(e, "feature_path", None)
            path = key if inner is None else f"{key}/{inner}"
            reason = getattr(e, "reason", e.message)
            error = type(e)(f"feature {path}: {reason}")
            error.feature_path, error.reason = path, reason  # for the enclosing dicts
            raise error from None
    return FeaturesDict(children)


def _from_translation(content):
    return Translation(content.get("languages", []))


def _from_translation_var(content):
    return TranslationVariableLanguages(content.get("languages", []))


# pythonClassName -> (the key of its content in features.json, the builder). TFDS's aliases
# (older module paths of the same classes) are listed with them.
_BUILDERS = {
    "features_dict.FeaturesDict": ("featuresDict", _from_features_dict),
    "tensor_feature.Tensor": ("tensor", _from_tensor),
    "feature.Tensor": ("tensor", _from_tensor),
    "scalar.Scalar": ("tensor", _from_scalar),
    "class_label_feature.ClassLabel": ("classLabel", _from_class_label),
    "text_feature.Text": ("text", _from_text),
    "image_feature.Image": ("image", _from_image),
    "labeled_image.LabeledImage": ("image", _from_labeled_image),
    "bounding_boxes.BBoxFeature": ("boundingBox", _from_bbox),
    "audio_feature.Audio": ("audio", _from_audio),
    "video_feature.Video": ("video", _from_video),
    "sequence_feature.Sequence": ("sequence", _from_sequence),
    "dataset_feature.Dataset": ("sequence", _from_dataset),
    "translation_feature.Translation": ("translation", _from_translation),
    "translation_feature.TranslationVariableLanguages": ("translation", _from_translation_var),
}


def from_json(value: Any) -> FeatureConnector:
    """The connector tree of a features.json object (``{"pythonClassName": ..., <kind>:
    {...}}``). A class this library cannot decode raises UnimplementedError naming it.

    Args:
        value: a parsed features.json object.

    Returns:
        The root FeatureConnector.

    Raises:
        UnimplementedError: a feature class this library cannot decode.
    """
    if not isinstance(value, dict) or "pythonClassName" not in value:
        raise errors.DataLossError(f"not a TFDS feature: {json.dumps(value)[:200]}")
    name = value["pythonClassName"]
    short = name[len(_PREFIX) :] if name.startswith(_PREFIX) else None
    if short not in _BUILDERS:
        raise errors.UnimplementedError(
            f"{name} is not a TFDS feature connector swigflow can decode (a custom connector "
            "needs its own code: read the records with swigflow.data.TFRecordDataset)"
        )
    key, build = _BUILDERS[short]
    if key not in value:
        raise errors.DataLossError(f"{name} without its {key!r} content")
    return build(value[key])


def load_class_names(features: Any, directory: str) -> None:
    """Reads every ClassLabel's and LabeledImage's names file in `directory` (TFDS names them
    after the feature: ``a-b.c.labels.txt`` for key ``c`` under ``a/b``).

    Args:
        features: the root FeatureConnector.
        directory: the dataset's version directory (local path or fsspec URL).
    """
    from swigflow.io import gfile

    def visit(feature, name):
        if isinstance(feature, (ClassLabel, LabeledImage)):
            feature.load_names(gfile.join(directory, f"{name}.labels.txt"))
        elif isinstance(feature, Sequence):
            visit(feature.feature, name)
        elif isinstance(feature, FeaturesDict) and not isinstance(
            feature, (Translation, TranslationVariableLanguages)
        ):
            for child, sub in feature.items():
                child = child.replace("/", ".")
                visit(sub, child if name is None else "-".join([*name.split("/"), child]))

    visit(features, None)


# --- the decode plan: Example features in, nested numpy values out ------------------------------


class _Leaf:
    """One leaf of the tree: where it nests, the flat Example keys it reads, and its sequence
    rank."""

    def __init__(self, path, feature):
        self.path: Any = path
        lengths = ()
        if isinstance(feature, _InSequence):
            feature, lengths = feature.leaf, feature.lengths
        self.feature: Any = feature
        self.rank: Any = 0 if isinstance(feature, Dataset) else len(lengths)
        info = feature.serialized_info()
        for length in reversed(lengths):
            info = _map_info(info, lambda i, n=length: i.with_length(n))
        name = "/".join(path)
        self.key: Any = name
        self.infos: Any = {}  # flat key -> TensorInfo
        if isinstance(info, dict):
            for sub, sub_info in _flatten_info(info):
                self.infos[f"{self.key}/{sub}"] = sub_info
        else:
            self.infos[self.key] = info


def _flatten_info(info, prefix=""):
    for k in sorted(info):
        v = info[k]
        if isinstance(v, dict):
            yield from _flatten_info(v, f"{prefix}{k}/")
        else:
            yield f"{prefix}{k}", v


class _DecodePlan:
    """How the examples of a feature tree are parsed (one parse spec) and decoded."""

    def __init__(self, features):
        self.features: Any = features
        self.leaves: Any = [_Leaf(p, f) for p, f in features._leaves(())]
        self.infos: Any = {}
        for leaf in self.leaves:
            self.infos.update(leaf.infos)
        self._parse_plan = None  # the native parse plan and the value makers, built on first use
        self._steps_for = None  # (decoders, _steps(decoders)) of the last call

    def __getstate__(self):  # native specs and closures are rebuilt in the other process
        state = dict(self.__dict__)
        state.update(_parse_plan=None, _steps_for=None, _makers=None, _direct=None)
        return state

    def decode_records(self, records, decoders=None, numpy_path=False, pool=None):
        """Serialized Examples decoded into TFDS's values, one nested dict each. One native call
        parses them and makes each key's value per example, cast to its leaf's dtype (Python
        scalars on the numpy path). `pool` (an executor): decode the examples on its threads
        when there is decoding to do (images and encodings decode without the GIL)."""
        from swigflow.io import parsing

        if self._parse_plan is None:
            self._prepare()
        rows = parsing.parse_example_rows(records, self._parse_plan, self._row_dtypes, numpy_path)
        steps = self._steps(decoders)
        decode = functools.partial(self._example, steps, numpy_path)
        if pool is not None and len(rows) > 1 and any(d is not _PLAIN for _, _, d in steps):
            return list(pool.map(decode, rows))
        return [decode(row) for row in rows]

    def _prepare(self):
        """The native parse plan, the dtype each native spec's values come in, and how each
        flat key's value is made from an example's values (_value_maker)."""
        plan = feature_spec.ParsePlan(self.parse_spec())
        dtypes = [None] * plan.count
        self._makers, self._direct = {}, {}
        for key, info in self.infos.items():
            maker, direct = _value_maker(plan, key, info, dtypes)
            self._makers[key] = maker
            if direct is not None:
                self._direct[key] = direct
        self._row_dtypes = dtypes
        self._dicts = sorted({leaf.path[:k] for leaf in self.leaves
                              for k in range(1, len(leaf.path))})  # fmt: skip
        self._parse_plan = plan

    def _example(self, steps, numpy_path, row):
        nodes = {(): {}}
        for path in self._dicts:
            nodes[path] = nodes[path[:-1]][path[-1]] = {}
        for leaf, parent, decoder in steps:
            if decoder is _PLAIN:
                direct = self._direct.get(leaf.key)
                value = row[direct] if direct is not None else self._makers[leaf.key](row)
            else:
                flat = {key: self._makers[key](row) for key in leaf.infos}
                value = self._decode_leaf(leaf, flat, decoder, numpy_path)
            nodes[parent][leaf.path[-1]] = value
        return nodes[()]

    def _steps(self, decoders):
        """(leaf, parent path, its decoder or _PLAIN) for each leaf: _PLAIN where the parsed
        value is the decoded one (plain tensors without an encoding or a custom decoder).
        Kept for the last `decoders` object."""
        cached = self._steps_for
        if cached is not None and cached[0] is decoders:
            return cached[1]
        steps = []
        for leaf in self.leaves:
            decoder = _decoder_at(decoders, leaf.path)
            plain = (
                decoder is None
                and leaf.rank <= 1
                and type(leaf.feature) in _PLAIN_TYPES
                and not leaf.feature._encoded()
                and not leaf.feature._dynamic()
            )
            steps.append((leaf, leaf.path[:-1], _PLAIN if plain else decoder))
        self._steps_for = (decoders, steps)
        return steps

    def parse_spec(self):
        """{Example key: swigflow.io spec}: fixed shapes as FixedLenFeature, one unknown
        dimension or a ragged one as RaggedFeature (the example's own values, reshaped later)."""
        spec = {}
        for key, info in self.infos.items():
            kind = _serialized_kind(info.dtype)
            if all(d is not None for d in info.shape):
                default = info.default_value
                if default is not None:
                    default = np.asarray(default).astype(feature_spec.NUMPY_DTYPE[kind])
                spec[key] = feature_spec.FixedLenFeature(info.shape, kind, default)
            elif info.shape.count(None) == 1 or info.sequence_rank <= 1:
                spec[key] = feature_spec.RaggedFeature(kind, row_splits_dtype="int64")
            else:
                spec[f"{key}/ragged_flat_values"] = feature_spec.RaggedFeature(
                    kind, row_splits_dtype="int64"
                )
                for k in range(info.sequence_rank - 1):
                    spec[f"{key}/ragged_row_lengths_{k}"] = feature_spec.RaggedFeature(
                        "int64", row_splits_dtype="int64"
                    )
        return spec

    def decode(self, flat, decoders=None, numpy_path=False):
        """The nested decoded example from deserialized flat values ({flat key: value}).
        numpy_path: as TFDS's data sources return them (decode_example_np): shape () values as
        Python scalars (bytes for strings), ragged values as nested lists of arrays."""
        result = {}
        for leaf in self.leaves:
            decoder = _decoder_at(decoders, leaf.path)
            _put(result, leaf.path, self._decode_leaf(leaf, flat, decoder, numpy_path))
        return result

    @staticmethod
    def _decode_leaf(leaf, flat, decoder, numpy_path):
        if isinstance(leaf.feature, Dataset):
            sub = {k[len(leaf.key) + 1 :]: flat[k] for k in leaf.infos}
            if decoder is not None and not isinstance(decoder, dict):
                return decoder.decode_example(sub)
            return leaf.feature.decode_steps(sub, decoder)
        value = _leaf_value(leaf, flat)
        fn = leaf.feature if decoder is None else _setup(decoder, leaf.feature)
        try:
            if leaf.rank == 0:
                value = fn.decode_example(value)
            elif leaf.rank == 1:
                value = fn.decode_batch_example(value)
            else:
                value = fn.decode_ragged_example(value)
        except errors.OpError as e:
            raise type(e)(f"feature {'/'.join(leaf.path)}: {e.message}") from None
        return _numpy_path_value(value) if numpy_path else value


_PLAIN = object()  # a leaf whose parsed value is its decoded value
_PLAIN_TYPES = (Tensor, Scalar, ClassLabel, Text, BBoxFeature)


def _value_maker(plan, key, info, dtypes):
    """make(row) -> the value of flat key `key` in one example, from ParseExampleRows's values
    (row[j]: native spec j's), shaped as TFDS's _deserialize_single_field restores them; and the
    spec index when that value is row[j] as it is (else None). Fills dtypes[j], the dtype spec j's
    values come in: the leaf's, or float32 for float16 leaves (cast here, as numpy rounds)."""
    dtype = info.dtype
    native = np.dtype(np.float32) if dtype == np.float16 else dtype
    half = dtype == np.float16
    if all(d is not None for d in info.shape):
        j = plan.dense_index(key)
        dtypes[j] = native
        if not half:
            return (lambda row: row[j]), j
        if not info.shape:
            return (
                lambda row: (
                    np.float16(row[j])
                    if isinstance(row[j], np.generic)
                    else float(np.float16(row[j]))
                ),
                None,
            )
        return (lambda row: row[j].astype(np.float16)), None
    if info.sequence_rank > 1 and info.shape.count(None) > 1:
        j = plan.raw_index(f"{key}/ragged_flat_values")
        dtypes[j] = native
        lengths = [plan.raw_index(f"{key}/ragged_row_lengths_{k}")
                   for k in range(info.sequence_rank - 1)]  # fmt: skip
        for k in lengths:
            dtypes[k] = np.dtype(np.int64)
        inner = info.shape[info.sequence_rank :]

        def ragged(row):
            flat = _rows_of(key, row[j], inner)
            return _nested_ragged(key, flat.astype(np.float16) if half else flat,
                                  [row[k] for k in lengths])  # fmt: skip

        return ragged, None
    if info.shape.count(None) > 1:
        raise errors.UnimplementedError(
            f"feature {key}: several unknown dimensions without an encoding"
        )
    j = plan.raw_index(key)
    dtypes[j] = native
    inner = tuple(d for d in info.shape if d is not None)
    target = None if info.shape[0] is None else tuple(-1 if d is None else d for d in info.shape)
    if not inner and not half:
        return (lambda row: row[j]), j

    def raw(row):
        values = _rows_of(key, row[j], inner)
        if half:
            values = values.astype(np.float16)
        return values if target is None else _reshape(key, values, target)

    return raw, None


def _rows_of(key, values, inner):
    """An example's values of a key read raw as rows of the `inner` shape."""
    if not inner:
        return values
    size = math.prod(inner)
    if len(values) % size:
        raise errors.InvalidArgumentError(
            f"Feature {key}: {len(values)} values do not fit the shape "
            f"[-1, {', '.join(map(str, inner))}]"
        )
    return values.reshape(-1, *inner)


def _numpy_path_value(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, RaggedTensor):
        return [_numpy_path_value(value[i]) for i in range(len(value))]
    return value


def _leaf_value(leaf, flat):
    if len(leaf.infos) == 1 and leaf.key in leaf.infos:
        return flat[leaf.key]
    value = {}
    for key in leaf.infos:
        _put(value, tuple(key[len(leaf.key) + 1 :].split("/")), flat[key])
    return value


def _setup(decoder, feature):
    setup = getattr(decoder, "setup", None)
    if setup is not None:
        setup(feature=feature)
    return decoder


def _decoder_at(decoders, path):
    node = decoders
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _put(tree, path, value):
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def _reshape(key, values, shape):
    if isinstance(values, bytes):  # np.asarray would make it an 'S' array, losing end NULs
        values = np.array(values, dtype=object)
    values = np.asarray(values)
    target = tuple(-1 if d is None else d for d in shape)
    try:
        return values.reshape(target)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Feature {key}: {values.size} values do not fit the shape {list(shape)}"
        ) from None


def _nested_ragged(key, flat, lengths):
    """A RaggedTensor of `flat` rows split by nested row lengths (outermost first)."""
    values = flat
    for row_lengths in reversed(lengths):
        row_lengths = np.asarray(row_lengths, np.int64)
        if row_lengths.size and (row_lengths.min() < 0 or row_lengths.sum() != len(values)):
            raise errors.InvalidArgumentError(
                f"Feature {key}: row lengths {row_lengths.tolist()} do not fit {len(values)} rows"
            )
        if not row_lengths.size and len(values):
            raise errors.InvalidArgumentError(f"Feature {key}: values without row lengths")
        values = RaggedTensor.from_row_lengths(values, row_lengths)
    return values


def _decode_records(features, serialized, decoders, numpy_path):
    if features._plan is None:  # built on first use: the tree is complete by then
        features._plan = _DecodePlan(features)
    return features._plan.decode_records(serialized, decoders, numpy_path)


def decode_plan(features: Any) -> tuple[Any, Any]:
    """The parse spec and decoder of a feature tree (swigflow.datasets.reading uses it).

    Args:
        features: the root FeatureConnector.

    Returns:
        (parse spec, decoder function) for the serialized Examples.
    """
    return _DecodePlan(features)
