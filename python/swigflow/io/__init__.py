"""swigflow.io, named like ``tf.io``: TFRecord files (writers, readers, indexes, the shard
cache), Example and SequenceExample parsing, tensor and raw decoding, image decoding (from
swigflow.image), and gfile."""

from swigflow.image.codecs import (
    decode_and_crop_jpeg,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from swigflow.io import gfile, remote
from swigflow.io._checksum import crc32c, masked_crc32c
from swigflow.io.compressed import decode_compressed
from swigflow.io.index import TFRecordFile, create_index, default_index_path
from swigflow.io.parsing import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    decode_json_example,
    parse_example,
    parse_single_example,
)
from swigflow.io.raw import decode_raw
from swigflow.io.scan import RecordDamage, TFRecordScanner
from swigflow.io.schema import infer_spec, spec_from_json, spec_to_json
from swigflow.io.sequence_parsing import parse_sequence_example, parse_single_sequence_example
from swigflow.io.shard_cache import ShardCache
from swigflow.io.tensor_proto import parse_tensor, serialize_tensor
from swigflow.io.tf_record import (
    RecordBuffer,
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordRandomReader,
    TFRecordReader,
    TFRecordWriter,
    tf_record_iterator,
    tf_record_random_reader,
)

# scheme:// paths in the native readers and writers go through fsspec (swigflow.io.remote).
remote.install()

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "RecordBuffer",
    "RecordDamage",
    "ShardCache",
    "SparseFeature",
    "TFRecordCompressionType",
    "TFRecordFile",
    "TFRecordOptions",
    "TFRecordRandomReader",
    "TFRecordReader",
    "TFRecordScanner",
    "TFRecordWriter",
    "VarLenFeature",
    "crc32c",
    "create_index",
    "decode_and_crop_jpeg",
    "decode_compressed",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_json_example",
    "decode_png",
    "decode_raw",
    "default_index_path",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "gfile",
    "infer_spec",
    "is_jpeg",
    "masked_crc32c",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "spec_from_json",
    "spec_to_json",
    "tf_record_iterator",
    "tf_record_random_reader",
]
