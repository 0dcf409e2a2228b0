"""Image decoding, encoding and transforms, named like ``tf.image`` (and ``tf.io``'s codecs).

Decoding equals TensorFlow 2.21's on the same bytes (the same libjpeg-turbo IDCT and
upsampling); resizing follows TensorFlow 2's half-pixel-centre semantics. Arrays are numpy HWC
(or NHWC for batches), and the GIL is released while pixels are decoded or resampled. For input
pipelines, :meth:`swigflow.data.Dataset.decode_images` runs decode, crop, resize and flip on the
native pipeline's threads.
"""

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
    max_pixels,
    set_max_pixels,
)
from swigflow.image.transforms import (
    ResizeMethod,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    preprocess_input,
    resize,
    sample_distorted_bounding_box,
)

__all__ = [
    "ResizeMethod",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "decode_and_crop_jpeg",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "flip_left_right",
    "flip_up_down",
    "is_jpeg",
    "max_pixels",
    "preprocess_input",
    "resize",
    "sample_distorted_bounding_box",
    "set_max_pixels",
]
