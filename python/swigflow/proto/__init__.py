"""swigflow's protobuf schemas, compiled from the .proto files beside this file: feature.proto
and example.proto (tf.train), tensor.proto and the files it imports (parse_tensor /
serialize_tensor).

The messages keep TensorFlow's full names (``tensorflow.Example``, ...), so their bytes, text
format, JSON and ``Any`` type URLs are TensorFlow's. They live in a descriptor pool of their own,
not protobuf's default pool, where TensorFlow registers its tensorflow/core/example/*.proto: one
pool cannot hold two files defining the same names, so sharing it would make whichever of the two
packages is imported second fail. Protobuf's runtime builds the classes (upb where available):
they are real ``google.protobuf.message.Message`` subclasses with protobuf's speed.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from swigflow.proto import descriptors

POOL = descriptor_pool.DescriptorPool()
for _file in descriptor_pb2.FileDescriptorSet.FromString(descriptors.FILE_DESCRIPTOR_SET).file:
    POOL.Add(_file)


def message_class(full_name: Any) -> Any:
    """The message class of ``full_name`` (e.g. ``"tensorflow.Example"``) in POOL."""
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(full_name))


__all__ = ["POOL", "message_class"]
