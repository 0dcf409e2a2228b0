"""Resizing, cropping, flipping and dtype conversion, named like ``tf.image``; numpy HWC or NHWC
in and out."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap


class ResizeMethod:
    """tf.image.ResizeMethod's names."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# swigflow::image::ResizeMethod (native/image/resize.h).
RESIZE_METHODS = {
    "bilinear": _pywrap.ResizeMethod_kBilinear,
    "bicubic": _pywrap.ResizeMethod_kBicubic,
    "area": _pywrap.ResizeMethod_kArea,
    "lanczos3": _pywrap.ResizeMethod_kLanczos3,
    "lanczos5": _pywrap.ResizeMethod_kLanczos5,
    "gaussian": _pywrap.ResizeMethod_kGaussian,
    "mitchellcubic": _pywrap.ResizeMethod_kMitchellCubic,
}
_NATIVE_TYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))


def _images(images):
    images = np.asarray(images)
    if images.ndim not in (3, 4):
        raise errors.InvalidArgumentError(
            f"'images' must have either 3 or 4 dimensions, got shape {images.shape}"
        )
    return images


def _size(size):
    """tf.image.resize's `size`, checked in its order: ValueError for a value that is not 2
    integers, InvalidArgumentError for a dimension that is not positive."""
    array = np.asarray(size) if size is not None else None
    if array is not None and array.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if array is None or array.dtype.kind not in "iu":
        raise ValueError("'size' must be a 1-D int32 Tensor")
    height, width = (int(v) for v in array)
    if height <= 0 or width <= 0:
        raise errors.InvalidArgumentError(
            f"output dimensions must be positive, got [{height}, {width}]"
        )
    return height, width


def _nearest_indices(in_size, out_size):
    # resize_nearest_neighbor with half-pixel centres: floor((o + 0.5) * scale), clamped.
    scale = np.float32(in_size) / np.float32(out_size)
    centers = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.minimum(np.floor(centers).astype(np.int64), in_size - 1)


def resize(
    images: ArrayLike,
    size: ArrayLike,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """``tf.image.resize``: HWC or NHWC images to `size` = (height, width), TensorFlow 2's
    half-pixel-centre sampling. The result is float32, except with "nearest", which keeps the
    input's dtype. antialias widens the kernel when downscaling (scale_and_translate).

    Raises:
      ValueError: `size` is not 2 integers (TensorFlow's words).
      InvalidArgumentError: a dimension of `size` is not positive.

    Args:
        images: [height, width, channels] or [batch, height, width, channels].
        size: (height, width).
        method: a ResizeMethod value ("bilinear", "nearest", "bicubic", "area", "lanczos3",
            "lanczos5", "gaussian", "mitchellcubic").
        preserve_aspect_ratio: fit within `size`, keeping the aspect ratio.
        antialias: widen the kernel when downscaling.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    images = _images(images)
    height, width = _size(size)
    h, w = images.shape[-3], images.shape[-2]
    if preserve_aspect_ratio:
        scale = min(height / h, width / w)
        height, width = max(1, round(h * scale)), max(1, round(w * scale))
    method = str(method).lower()
    if method in ("nearest", "nearest_neighbor"):
        rows, cols = _nearest_indices(h, height), _nearest_indices(w, width)
        return np.ascontiguousarray(images[..., rows, :, :][..., :, cols, :])
    if method not in RESIZE_METHODS:
        raise errors.InvalidArgumentError(f"Resize method is not implemented: {method}")
    if images.dtype not in _NATIVE_TYPES:
        images = images.astype(np.float32)
    return _pywrap.ImageResize(
        np.ascontiguousarray(images), height, width, RESIZE_METHODS[method], bool(antialias)
    )


def _at_least_3d(image, shape=None):
    """image as an array, checked as tf.image's _AssertAtLeast3DImage checks it (rank 3 or
    more, no empty height, width or channels), its messages naming `shape` (the image's own by
    default)."""
    image = np.asarray(image)
    shape = image.shape if shape is None else shape
    if image.ndim < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if min(image.shape[-3:]) == 0:
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    return image


def _flippable(image):
    """An image for flip_left_right and flip_up_down, checked as tf.image's _flip checks it."""
    image = _at_least_3d(image)
    if image.ndim > 4:
        # TF's own words, its missing space included.
        raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")
    return image


def crop_to_bounding_box(
    image: Any, offset_height: int, offset_width: int, target_height: int, target_width: int
) -> np.ndarray:
    """``tf.image.crop_to_bounding_box``: a view of the window (a numpy slice, no copy).

    Args:
        image: [height, width, channels] or [batch, height, width, channels].
        offset_height: the window's top row.
        offset_width: its left column.
        target_height: its height.
        target_width: its width.

    Returns:
        A numpy view.

    Raises:
        ValueError: a rank other than 3 or 4, or a window outside the image (TensorFlow's
            words).
    """
    image = np.asarray(image)
    if image.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    # Checked as a batch: a single image's shape is named with a batch dimension of 1, as TF's.
    _at_least_3d(image, image.shape if image.ndim == 4 else (1, *image.shape))
    h, w = image.shape[-3], image.shape[-2]
    if offset_width < 0:
        raise ValueError("offset_width must be >= 0.")
    if offset_height < 0:
        raise ValueError("offset_height must be >= 0.")
    if target_width <= 0:
        raise ValueError("target_width must be > 0.")
    if target_height <= 0:
        raise ValueError("target_height must be > 0.")
    if w < target_width + offset_width:
        raise ValueError("width must be >= target + offset.")
    if h < target_height + offset_height:
        raise ValueError("height must be >= target + offset.")
    return image[
        ...,
        offset_height : offset_height + target_height,
        offset_width : offset_width + target_width,
        :,
    ]


def central_crop(image: Any, central_fraction: float) -> np.ndarray:
    """``tf.image.central_crop``: the central `central_fraction` of each side (a view).

    Args:
        image: [height, width, channels] or [batch, height, width, channels].
        central_fraction: in (0, 1].

    Returns:
        A numpy view.

    Raises:
        ValueError: a fraction outside (0, 1], or a rank other than 3 or 4.
    """
    image = _at_least_3d(image)
    if image.ndim > 4:
        raise ValueError(
            f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {image.ndim}."
        )
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    h, w = image.shape[-3], image.shape[-2]
    top = int((h - h * central_fraction) / 2)
    left = int((w - w * central_fraction) / 2)
    return image[..., top : h - top, left : w - left, :]


def flip_left_right(image: Any) -> np.ndarray:
    """``tf.image.flip_left_right`` (a view).

    Args:
        image: [height, width, channels] or [batch, height, width, channels].

    Returns:
        A numpy view.
    """
    return _flippable(image)[..., ::-1, :]


def flip_up_down(image: Any) -> np.ndarray:
    """``tf.image.flip_up_down`` (a view).

    Args:
        image: [height, width, channels] or [batch, height, width, channels].

    Returns:
        A numpy view.
    """
    return _flippable(image)[..., ::-1, :, :]


def sample_distorted_bounding_box(
    image_size: ArrayLike,
    bounding_boxes: ArrayLike,
    seed: int | None = None,
    min_object_covered: float = 0.1,
    aspect_ratio_range: Sequence[float] | None = None,
    area_range: Sequence[float] | None = None,
    max_attempts: int | None = None,
    use_image_if_no_bounding_boxes: bool | None = None,
    name: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``tf.image.sample_distorted_bounding_box``: a random crop for Inception-style training.

    Returns (begin, size, bboxes) as TensorFlow: begin = [y, x, 0] and size = [h, w, -1] for
    ``tf.slice``, bboxes the crop in normalized coordinates [1, 1, 4]. The crop's aspect ratio
    (width / height) and area fraction are uniform in their ranges, and it covers at least
    min_object_covered of one of the boxes; after max_attempts failures it is the whole image.
    swigflow's generator is its own: the same seed gives the same crop, not TensorFlow's crop.

    Args:
        image_size: [height, width, channels].
        bounding_boxes: float [batch, N, 4] boxes [ymin, xmin, ymax, xmax], normalized.
        seed: the seed; None draws one.
        min_object_covered: the least share of a box the crop covers.
        aspect_ratio_range: (low, high) of width / height; None: (0.75, 1.33).
        area_range: (low, high) share of the image; None: (0.05, 1.0).
        max_attempts: tries before taking the whole image; None: 100.
        use_image_if_no_bounding_boxes: take the whole image as the box when none are given.
        name: accepted for TensorFlow's signature; unused.
    """
    del name
    height, width = (int(v) for v in np.asarray(image_size).reshape(-1)[:2])
    boxes = np.asarray(bounding_boxes, dtype=np.float32).reshape(-1, 4)
    if len(boxes) == 0 and not use_image_if_no_bounding_boxes:
        raise errors.InvalidArgumentError(
            "No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes "
            "if you wish to not provide any bounding boxes."
        )
    aspect = (0.75, 1.33) if aspect_ratio_range is None else tuple(aspect_ratio_range)
    area = (0.05, 1.0) if area_range is None else tuple(area_range)
    seed = secrets.randbits(63) if seed is None else int(seed) & ((1 << 64) - 1)
    options = _pywrap.DistortOptions()
    options.min_object_covered = float(min_object_covered)
    options.min_aspect_ratio, options.max_aspect_ratio = float(aspect[0]), float(aspect[1])
    options.min_area, options.max_area = float(area[0]), float(area[1])
    if max_attempts is not None:
        options.max_attempts = int(max_attempts)
    y, x, h, w = _pywrap.ImageSampleDistortedBoundingBox(
        height, width, [tuple(map(float, b)) for b in boxes], options, seed
    )
    begin = np.array([y, x, 0], dtype=np.int32)
    size = np.array([h, w, -1], dtype=np.int32)
    bbox = np.array(
        [[[y / height, x / width, (y + h) / height, (x + w) / width]]], dtype=np.float32
    )
    return begin, size, bbox


def _is_int(dtype):
    return np.issubdtype(dtype, np.integer)


def convert_image_dtype(
    image: Any, dtype: DTypeLike, saturate: bool = False, name: str | None = None
) -> np.ndarray:
    """``tf.image.convert_image_dtype``: integers span [0, MAX], floats [0, 1]; integer to
    integer scales by a power of two (bit shifts), float to integer rounds by truncation after
    scaling by MAX + 0.5 (clipped first when `saturate`).

    Args:
        image: an array.
        dtype: the new dtype.
        saturate: clip before converting a float to an integer.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    image = np.asarray(image)
    dtype = np.dtype(dtype)
    if not (_is_int(dtype) or np.issubdtype(dtype, np.floating)):
        raise errors.InvalidArgumentError(f"dtype must be an integer or float type, got {dtype}")
    if image.dtype == dtype:
        return image
    if _is_int(image.dtype) and _is_int(dtype):
        in_max, out_max = np.iinfo(image.dtype).max, np.iinfo(dtype).max
        if in_max > out_max:
            scale = (in_max + 1) // (out_max + 1)
            return (image // scale).astype(dtype)
        scale = (out_max + 1) // (in_max + 1)
        return image.astype(dtype) * dtype.type(scale)
    if not _is_int(image.dtype) and not _is_int(dtype):
        return image.astype(dtype)
    if _is_int(image.dtype):
        return (image.astype(dtype) * dtype.type(1.0 / np.iinfo(image.dtype).max)).astype(dtype)
    out_max = np.iinfo(dtype).max
    scaled = image * image.dtype.type(out_max + 0.5)
    if saturate:
        scaled = np.clip(scaled, np.iinfo(dtype).min, out_max)
    return scaled.astype(dtype)


__all__ = [
    "ResizeMethod",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "flip_left_right",
    "flip_up_down",
    "resize",
    "sample_distorted_bounding_box",
]


# Keras' ImageNet preprocessing (keras.applications.imagenet_utils): per mode, whether channels
# go RGB -> BGR, the scale applied first, the mean subtracted and the std divided by (in the
# order the channels end up in).
_PREPROCESS_MODES = {
    "caffe": (True, None, (103.939, 116.779, 123.68), None),
    "tf": (False, None, None, None),  # x / 127.5 - 1, below
    "torch": (False, 255.0, (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
}
PREPROCESS_MODES = tuple(_PREPROCESS_MODES)


def preprocess_input(
    x: ArrayLike, data_format: str | None = None, mode: str = "caffe"
) -> np.ndarray:
    """Keras' ``imagenet_utils.preprocess_input``, as the Keras applications call it: "caffe"
    (RGB to BGR, minus the ImageNet mean per channel, no scaling), "tf" (to [-1, 1]) or "torch"
    (to [0, 1], minus mean, over std per channel). The same operations in the same order, so
    the results equal Keras' to the last bit.

    Args:
      x: images [..., H, W, C] (data_format "channels_last", Keras' default) or [..., C, H, W]
        ("channels_first"), 3 channels in RGB order. Integers become float32; floats keep their
        dtype. Unlike Keras, a float `x` is not changed in place: the result is a new array.
      data_format: "channels_last" (None) or "channels_first".
      mode: "caffe", "tf" or "torch".

    Raises:
      ValueError: an unknown mode or data_format (Keras' words).
    """
    if mode not in _PREPROCESS_MODES:
        raise ValueError(
            f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}"
        )
    data_format = "channels_last" if data_format is None else data_format
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "Expected data_format to be one of `channels_first` or `channels_last`. "
            f"Received: data_format={data_format}"
        )
    x = np.asarray(x)
    x = x.copy() if np.issubdtype(x.dtype, np.floating) else x.astype(np.float32)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    bgr, scale, mean, std = _PREPROCESS_MODES[mode]
    axis = -1 if data_format == "channels_last" else (0 if x.ndim == 3 else 1)
    if bgr:
        x = np.flip(x, axis=axis).copy()
    if scale is not None:
        x /= scale
    channel = [slice(None)] * x.ndim
    for c in range(3):
        channel[axis] = c
        x[tuple(channel)] -= mean[c]
        if std is not None:
            x[tuple(channel)] /= std[c]
    return x
