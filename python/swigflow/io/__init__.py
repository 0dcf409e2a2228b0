"""TFRecord input and output, named like ``tf.io``."""

from swigflow.io._checksum import crc32c, masked_crc32c

__all__ = ["crc32c", "masked_crc32c"]
