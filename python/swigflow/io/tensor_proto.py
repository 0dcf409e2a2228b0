"""``tf.io.serialize_tensor`` and ``tf.io.parse_tensor``: numpy arrays to and from serialized
``tensorflow.TensorProto`` bytes (swigflow/proto/tensor.proto, TensorFlow's schema), so tensors
stored in TFRecords or Examples by either library read back in the other.

Writing follows TensorFlow: numbers and bools as little-endian ``tensor_content``, strings as
``string_val``. Reading takes every encoding TensorFlow accepts: ``tensor_content``, or a typed
field (``float_val``, ``int_val``, ...) that may be shorter than the tensor, its last value then
repeated (an empty one means zeros).
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np
from google.protobuf import message
from numpy.typing import DTypeLike

from swigflow import errors, proto

TensorProto = proto.message_class("tensorflow.TensorProto")
_DataType = proto.POOL.FindEnumTypeByName("tensorflow.DataType")


def _dt(name):
    return _DataType.values_by_name[name].number


# dtype name -> (DataType, numpy dtype, typed field). The quantized types are integers to numpy;
# their names tell them apart.
_TYPES = {
    "float32": (_dt("DT_FLOAT"), np.float32, "float_val"),
    "float64": (_dt("DT_DOUBLE"), np.float64, "double_val"),
    "int32": (_dt("DT_INT32"), np.int32, "int_val"),
    "uint8": (_dt("DT_UINT8"), np.uint8, "int_val"),
    "int16": (_dt("DT_INT16"), np.int16, "int_val"),
    "int8": (_dt("DT_INT8"), np.int8, "int_val"),
    "string": (_dt("DT_STRING"), object, "string_val"),
    "complex64": (_dt("DT_COMPLEX64"), np.complex64, "scomplex_val"),
    "int64": (_dt("DT_INT64"), np.int64, "int64_val"),
    "bool": (_dt("DT_BOOL"), np.bool_, "bool_val"),
    "qint8": (_dt("DT_QINT8"), np.int8, "int_val"),
    "quint8": (_dt("DT_QUINT8"), np.uint8, "int_val"),
    "qint32": (_dt("DT_QINT32"), np.int32, "int_val"),
    "qint16": (_dt("DT_QINT16"), np.int16, "int_val"),
    "quint16": (_dt("DT_QUINT16"), np.uint16, "int_val"),
    "uint16": (_dt("DT_UINT16"), np.uint16, "int_val"),
    "complex128": (_dt("DT_COMPLEX128"), np.complex128, "dcomplex_val"),
    "float16": (_dt("DT_HALF"), np.float16, "half_val"),
    "uint32": (_dt("DT_UINT32"), np.uint32, "uint32_val"),
    "uint64": (_dt("DT_UINT64"), np.uint64, "uint64_val"),
}
_NAME_OF_DT = {dt: name for name, (dt, _, _) in _TYPES.items()}
_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "bytes": "string"}

# A typed field shorter than its tensor is expanded; a tensor larger than any serialized proto
# (protobuf caps messages at 2 GiB) made from a few values is refused rather than allocated.
_MAX_EXPANDED_BYTES = 1 << 31


def _type_name(dtype):
    """TensorFlow's name of a dtype given as a name ("float32", "qint8", "float") or a numpy
    dtype."""
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
        if name in _TYPES:
            return name
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"unsupported dtype {dtype!r}") from None
    if np_dtype.kind in "SUO":
        return "string"
    for name, (_, numpy_type, _) in _TYPES.items():
        if np.dtype(numpy_type) == np_dtype and not name.startswith("q"):
            return name
    raise TypeError(f"unsupported dtype {dtype!r}")


def _dtype_label(dt):
    """'uint8' for DT_UINT8, and the enum's own name for types numpy lacks (DT_BFLOAT16)."""
    if dt in _NAME_OF_DT:
        return _NAME_OF_DT[dt]
    value = _DataType.values_by_number.get(dt)
    return value.name if value is not None else f"DataType {dt}"


def serialize_tensor(tensor: Any, name: str | None = None) -> bytes:
    """The serialized TensorProto of an array, as ``tf.io.serialize_tensor``.

    Args:
      tensor: a numpy array or anything ``np.asarray`` takes: numbers, bools, or strings
        (bytes, or str taken as UTF-8).
      name: accepted for TensorFlow's signature; unused.

    Returns:
      bytes: numbers and bools in ``tensor_content`` (little-endian), strings in
      ``string_val``, exactly as TensorFlow writes them.
    """
    del name
    array = np.asarray(tensor)
    if array.dtype.kind == "U":
        array = array.astype(object)
    type_name = _type_name(array.dtype)
    dt, numpy_type, _ = _TYPES[type_name]
    out = TensorProto(dtype=dt)
    out.tensor_shape.SetInParent()  # present even for a scalar, as TensorFlow writes it
    for size in array.shape:
        out.tensor_shape.dim.add(size=size)
    if type_name == "string":
        out.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in array.flat)
    else:
        little = np.ascontiguousarray(array, dtype=np.dtype(numpy_type).newbyteorder("<"))
        out.tensor_content = little.tobytes()
    return out.SerializeToString(deterministic=True)


def _scalar_bytes(serialized):
    if isinstance(serialized, str):
        return serialized.encode()
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        return bytes(serialized)
    array = np.asarray(serialized, dtype=object)
    if array.shape != ():
        raise errors.InvalidArgumentError(
            f"Expected `serialized` to be a scalar, got shape: [{','.join(map(str, array.shape))}]"
        )
    return _scalar_bytes(array.item())


def _cannot_parse(reason):
    return errors.InvalidArgumentError(f"Cannot parse tensor from proto: {reason}")


def _shape(tensor_proto):
    if tensor_proto.tensor_shape.unknown_rank:
        if tensor_proto.tensor_shape.dim:
            raise _cannot_parse("a shape of unknown rank has dimensions")
        return ()  # TensorFlow reads it as a scalar
    shape = tuple(d.size for d in tensor_proto.tensor_shape.dim)
    if any(d < 0 for d in shape):
        raise _cannot_parse(f"dimension sizes must be known and non-negative, got {list(shape)}")
    if math.prod(shape) >= 1 << 63:
        raise _cannot_parse(f"shape {list(shape)} has more elements than int64 can count")
    return shape


def _typed_values(tensor_proto, type_name, count):
    """`count` values of a typed field, TensorFlow's way: the field's first `count`, its last
    value repeated when it is shorter, zeros when it is empty."""
    _, numpy_type, field = _TYPES[type_name]
    values = getattr(tensor_proto, field)
    dtype = np.dtype(numpy_type)
    if type_name == "string":
        have = np.empty(min(len(values), count), dtype=object)
        have[:] = list(values[:count])
    elif field in ("scomplex_val", "dcomplex_val"):
        parts = np.asarray(values, dtype=np.float32 if dtype.itemsize == 8 else np.float64)
        pairs = len(parts) // 2
        have = (parts[: 2 * pairs : 2] + 1j * parts[1 : 2 * pairs : 2]).astype(dtype)[:count]
    elif field == "half_val":  # the float16's bit pattern in an int32
        have = np.asarray(values[:count], dtype=np.int64).astype(np.uint16).view(np.float16)
    else:  # int_val holds the narrow integer types: C++'s truncating conversion, as TensorFlow
        have = np.asarray(values[:count], dtype=np.int64 if field == "int_val" else dtype)
        have = have.astype(dtype)
    if len(have) == count:
        return have
    if count * max(dtype.itemsize, 8) > _MAX_EXPANDED_BYTES:
        raise _cannot_parse(
            f"{count} elements from {len(have)} values in {field} would take more than "
            f"{_MAX_EXPANDED_BYTES} bytes"
        )
    out = np.empty(count, dtype=dtype)
    out[: len(have)] = have
    out[len(have) :] = have[-1] if len(have) else (b"" if type_name == "string" else 0)
    return out


def parse_tensor(serialized: Any, out_type: DTypeLike, name: str | None = None) -> np.ndarray:
    """The array a serialized TensorProto holds, as ``tf.io.parse_tensor``.

    Args:
      serialized: one serialized ``tensorflow.TensorProto`` (bytes, or a 0-d array of them).
      out_type: the dtype it must hold: a numpy dtype or TensorFlow's name ("float32",
        "string", "qint8", ...). Strings come back as object arrays of bytes.
      name: accepted for TensorFlow's signature; unused.

    Returns:
      A numpy array of the proto's shape (0-d for a scalar).

    Raises:
      InvalidArgumentError: `serialized` is not a scalar ("Expected `serialized` to be a
        scalar, got shape: [1]") or not a TensorProto ("Could not parse `serialized` as
        TensorProto, base64: ..."), its dtype is not `out_type` ("Type mismatch between parsed
        tensor (uint8) and dtype (uint16)"), or its contents do not make a tensor (a
        ``tensor_content`` of the wrong size, a negative dimension, resources and variants).
    """
    del name
    wanted = _type_name(out_type)
    data = _scalar_bytes(serialized)
    tensor_proto = TensorProto()
    try:
        tensor_proto.ParseFromString(data)
    except message.DecodeError:
        raise errors.InvalidArgumentError(
            "Could not parse `serialized` as TensorProto, base64: "
            + base64.urlsafe_b64encode(data).decode()
        ) from None
    dt = tensor_proto.dtype
    type_name = _NAME_OF_DT.get(dt)
    if type_name is None:
        raise _cannot_parse(f"swigflow has no {_dtype_label(dt)} tensors")
    if type_name != wanted:
        raise errors.InvalidArgumentError(
            f"Type mismatch between parsed tensor ({type_name}) and dtype ({wanted})"
        )
    shape = _shape(tensor_proto)
    count = math.prod(shape)
    dtype = np.dtype(_TYPES[type_name][1])
    content = tensor_proto.tensor_content
    if content and type_name != "string":
        if len(content) != count * dtype.itemsize:
            raise _cannot_parse(
                f"tensor_content has {len(content)} bytes, {list(shape)} {type_name} needs "
                f"{count * dtype.itemsize}"
            )
        flat = np.frombuffer(content, dtype=dtype.newbyteorder("<")).astype(dtype)
    else:
        flat = _typed_values(tensor_proto, type_name, count)
    return flat.reshape(shape)


__all__ = ["parse_tensor", "serialize_tensor"]
