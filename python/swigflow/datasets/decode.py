"""Custom decoding, as ``tfds.decode``: ``decoders={"image": SkipDecoding()}`` keeps a
feature's stored value (an image's encoded bytes), for swigflow's batched
:meth:`swigflow.data.Dataset.decode_images` or your own decoder."""


class Decoder:
    """Decodes one feature's stored value instead of its connector (``tfds.decode.Decoder``).
    ``self.feature`` is the connector it replaces; decode_example gets the stored value (one
    value, or a sequence's values)."""

    def __init__(self):
        self.feature = None

    def setup(self, *, feature):
        self.feature = feature

    def decode_example(self, serialized):
        raise NotImplementedError

    def decode_batch_example(self, serialized):
        return self.decode_example(serialized)

    def decode_ragged_example(self, serialized):
        return self.decode_example(serialized)


class SkipDecoding(Decoder):
    """Returns the stored value as it is (``tfds.decode.SkipDecoding``)."""

    def decode_example(self, serialized):
        return serialized


class _FnDecoder(Decoder):
    def __init__(self, fn, args, kwargs):
        super().__init__()
        self._fn, self._args, self._kwargs = fn, args, kwargs

    def decode_example(self, serialized):
        return self._fn(serialized, self.feature, *self._args, **self._kwargs)


def make_decoder(output_dtype=None):
    """Makes a Decoder from a function ``fn(serialized, feature, *args, **kwargs)``
    (``tfds.decode.make_decoder``)."""
    del output_dtype

    def wrap(fn):
        def factory(*args, **kwargs):
            return _FnDecoder(fn, args, kwargs)

        return factory

    return wrap
