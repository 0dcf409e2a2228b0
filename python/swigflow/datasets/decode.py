"""Custom decoding, as ``tfds.decode``: ``decoders={"image": SkipDecoding()}`` keeps a
feature's stored value (an image's encoded bytes), for swigflow's batched
:meth:`swigflow.data.Dataset.decode_images` or your own decoder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Decoder:
    """Decodes one feature's stored value instead of its connector (``tfds.decode.Decoder``).
    ``self.feature`` is the connector it replaces; decode_example gets the stored value (one
    value, or a sequence's values)."""

    def __init__(self) -> None:
        self.feature: Any = None

    def setup(self, *, feature: Any) -> None:
        """Binds the decoder to the feature it decodes (TFDS calls it before decoding).

        Args:
            feature: the FeatureConnector this decoder replaces.
        """
        self.feature = feature

    def decode_example(self, serialized: Any) -> Any:
        """Decodes one stored value; subclasses implement it.

        Args:
            serialized: the value as parsed from the Example (bytes or an array).

        Returns:
            The decoded value.
        """
        raise NotImplementedError

    def decode_batch_example(self, serialized: Any) -> Any:
        """Decodes the stored values of a batch (by default as decode_example does).

        Args:
            serialized: the parsed values, stacked.

        Returns:
            The decoded values.
        """
        return self.decode_example(serialized)

    def decode_ragged_example(self, serialized: Any) -> Any:
        """Decodes the values of a Sequence (by default as decode_example does).

        Args:
            serialized: the parsed values, ragged.

        Returns:
            The decoded values.
        """
        return self.decode_example(serialized)


class SkipDecoding(Decoder):
    """Returns the stored value as it is (``tfds.decode.SkipDecoding``)."""

    def decode_example(self, serialized: Any) -> Any:
        """Returns `serialized` unchanged.

        Args:
            serialized: the value as parsed from the Example.

        Returns:
            `serialized`.
        """
        return serialized


class _FnDecoder(Decoder):
    def __init__(self, fn, args, kwargs):
        super().__init__()
        self._fn, self._args, self._kwargs = fn, args, kwargs

    def decode_example(self, serialized):
        return self._fn(serialized, self.feature, *self._args, **self._kwargs)


def make_decoder(output_dtype: Any = None) -> Callable[..., Any]:
    """Makes a Decoder from a function ``fn(serialized, feature, *args, **kwargs)``
    (``tfds.decode.make_decoder``).

    Args:
        output_dtype: accepted for TFDS's signature; unused.

    Returns:
        A decorator turning ``fn`` into a factory of Decoders: ``fn(*args, **kwargs)`` then
        makes a Decoder calling ``fn(serialized, feature, *args, **kwargs)``.
    """
    del output_dtype

    def wrap(fn):
        def factory(*args, **kwargs):
            return _FnDecoder(fn, args, kwargs)

        return factory

    return wrap
