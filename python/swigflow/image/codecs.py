"""JPEG and PNG decoding and encoding, named like ``tf.io`` / ``tf.image`` (native/image/).

Every function takes bytes-like contents or a numpy array, releases the GIL while it works, and
returns numpy arrays (HWC) or bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap

# swigflow::image::DctMethod; TensorFlow's "" is INTEGER_FAST (libjpeg's JDCT_IFAST).
_DCT_METHODS = {
    "": _pywrap.DctMethod_kIntegerFast,
    "INTEGER_FAST": _pywrap.DctMethod_kIntegerFast,
    "INTEGER_ACCURATE": _pywrap.DctMethod_kIntegerAccurate,
}
# swigflow::image::Format as tf.image names it.
_FORMATS = {
    _pywrap.Format_kUnknown: None,
    _pywrap.Format_kJpeg: "jpeg",
    _pywrap.Format_kPng: "png",
    _pywrap.Format_kGif: "gif",
    _pywrap.Format_kBmp: "bmp",
    _pywrap.Format_kWebp: "webp",
    _pywrap.Format_kTiff: "tiff",
}
_DENSITY_UNITS = {"in": 1, "cm": 2}


def _contents(contents):
    if isinstance(contents, str):
        return contents.encode("latin-1")  # tf.string tensors hold bytes; str means those bytes
    if isinstance(contents, np.ndarray) and contents.dtype == object and contents.ndim == 0:
        return _contents(contents.item())
    return contents


def _dct(dct_method):
    if dct_method not in _DCT_METHODS:
        raise errors.InvalidArgumentError(
            "dct_method must be one of '', 'INTEGER_FAST' or 'INTEGER_ACCURATE', "
            f"got {dct_method!r}"
        )
    return _DCT_METHODS[dct_method]


def _jpeg_options(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
                  dct_method):  # fmt: skip
    """decode_jpeg's arguments, checked, as a swigflow::image::JpegDecodeOptions."""
    _jpeg_args(channels, ratio, acceptable_fraction)
    options = _pywrap.JpegDecodeOptions()
    options.channels = channels
    options.scale_denom = ratio
    options.fancy_upscaling = bool(fancy_upscaling)
    options.try_recover_truncated = bool(try_recover_truncated)
    options.acceptable_fraction = float(acceptable_fraction)
    options.dct_method = _dct(dct_method)
    return options


def _jpeg_args(channels, ratio, acceptable_fraction):
    if channels not in (0, 1, 3):
        raise errors.InvalidArgumentError(f"channels must be 0, 1, or 3, got {channels}")
    if ratio not in (1, 2, 4, 8):
        raise errors.InvalidArgumentError(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    if not 0 <= acceptable_fraction <= 1:
        raise errors.InvalidArgumentError(
            f"acceptable_fraction must be in [0, 1], got {acceptable_fraction}"
        )


def decode_jpeg(
    contents: bytes,
    channels: int | None = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> np.ndarray:
    """Decodes a JPEG into a uint8 array [height, width, channels], as ``tf.io.decode_jpeg``.

    channels: 0 (the file's: 1 for grayscale, else 3), 1 or 3. ratio: 1, 2, 4 or 8, a
    downscale done by the IDCT. dct_method: "" or "INTEGER_FAST" (TensorFlow's default, so the
    pixels equal TF's), or "INTEGER_ACCURATE" (Pillow's). Truncated data is an
    InvalidArgumentError unless try_recover_truncated, which keeps the rows that decoded when
    they are at least acceptable_fraction of the image (the rest are zero). Headers claiming more
    than :func:`max_pixels` pixels are rejected before anything is allocated.

    Args:
        contents: the JPEG bytes.
        channels: 0 (the file's: 1 for grayscale, else 3), 1 or 3.
        ratio: 1, 2, 4 or 8, a downscale done by the IDCT.
        fancy_upscaling: upsample chroma smoothly (TensorFlow's default).
        try_recover_truncated: keep the rows of truncated data that decoded.
        acceptable_fraction: the least share of rows that must decode when recovering.
        dct_method: "" or "INTEGER_FAST" (TensorFlow's), or "INTEGER_ACCURATE" (Pillow's).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A uint8 array [height, width, channels].

    Raises:
        InvalidArgumentError: data that is not a decodable JPEG, or over max_pixels().
    """
    del name
    options = _jpeg_options(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    return _pywrap.ImageDecodeJpeg(_contents(contents), options)


def decode_and_crop_jpeg(
    contents: bytes,
    crop_window: ArrayLike,
    channels: int | None = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> np.ndarray:
    """decode_jpeg of only ``crop_window`` = [y, x, height, width]: rows outside the window are
    skipped and columns cropped at block boundaries, so a small crop costs less than a full
    decode. The pixels equal decode_jpeg's inside the window (``tf.image.decode_and_crop_jpeg``).

    Args:
        contents: the JPEG bytes.
        crop_window: [y, x, height, width].
        channels: 0 (the file's: 1 for grayscale, else 3), 1 or 3.
        ratio: 1, 2, 4 or 8, a downscale done by the IDCT.
        fancy_upscaling: upsample chroma smoothly (TensorFlow's default).
        try_recover_truncated: keep the rows of truncated data that decoded.
        acceptable_fraction: the least share of rows that must decode when recovering.
        dct_method: "" or "INTEGER_FAST" (TensorFlow's), or "INTEGER_ACCURATE" (Pillow's).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A uint8 array [height, width, channels] of the window.

    Raises:
        InvalidArgumentError: a window outside the image, or as decode_jpeg.
    """
    del name
    options = _jpeg_options(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    window = [int(v) for v in np.asarray(crop_window).reshape(-1)]
    if len(window) != 4:
        raise errors.InvalidArgumentError(
            f"crop_window must be [y, x, height, width], got {list(window)}"
        )
    options.crop = True
    options.window.y, options.window.x, options.window.height, options.window.width = window
    return _pywrap.ImageDecodeJpeg(_contents(contents), options)


def image_format(contents: bytes) -> str | None:
    """The format of encoded image bytes, from their signature: "jpeg", "png", "gif", "bmp",
    "webp", "tiff", or None. The native decoders sniff with the same rule."""
    return _FORMATS[_pywrap.ImageDetectFormat(_contents(contents))]


def read_shape(contents: bytes) -> tuple[str, int, int, int] | None:
    """(format, height, width, channels) of a JPEG or PNG from its header alone, without
    decoding (zeros for other formats); channels is the file's components (4 for CMYK).

    Raises:
      InvalidArgumentError: the header is damaged or claims more pixels than allowed.
    """
    fmt, height, width, channels = _pywrap.ImageReadShape(_contents(contents))
    return _FORMATS[fmt], height, width, channels


def extract_jpeg_shape(
    contents: bytes, output_type: DTypeLike = np.int32, name: str | None = None
) -> np.ndarray:
    """[height, width, channels] of a JPEG, from its header alone (``tf.image.extract_jpeg_shape``);
    channels is the file's components (4 for CMYK).

    Args:
        contents: the JPEG bytes.
        output_type: int32 or int64.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        An array of 3 values.

    Raises:
        InvalidArgumentError: not a JPEG header.
    """
    del name
    fmt, height, width, channels = read_shape(contents)
    if fmt != "jpeg":
        raise errors.InvalidArgumentError("Invalid JPEG data: no JPEG signature")
    return np.array([height, width, channels], dtype=output_type)


def decode_png(
    contents: bytes, channels: int | None = 0, dtype: DTypeLike = np.uint8, name: str | None = None
) -> np.ndarray:
    """Decodes a PNG into a uint8 or uint16 array [height, width, channels] (``tf.io.decode_png``).

    channels: 0 (the file's; palette images give 3, or 4 with transparency), 1, 3 or 4,
    converting colour to gray with BT.601 weights and adding (opaque) or dropping alpha as
    needed. 16-bit samples become uint8 by their high byte; 8-bit ones become uint16 times 257.

    Args:
        contents: the PNG bytes.
        channels: 0 (the file's), 1, 3 or 4.
        dtype: uint8 or uint16.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        An array [height, width, channels].

    Raises:
        InvalidArgumentError: data that is not a decodable PNG, or over max_pixels().
    """
    del name
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.uint8), np.dtype(np.uint16)):
        raise errors.InvalidArgumentError(f"decode_png's dtype is uint8 or uint16, got {dtype}")
    if channels not in (0, 1, 3, 4):
        raise errors.InvalidArgumentError(f"channels must be 0, 1, 3 or 4, got {channels}")
    options = _pywrap.PngDecodeOptions()
    options.channels = channels
    options.bit_depth = 8 * dtype.itemsize
    return _pywrap.ImageDecodePng(_contents(contents), options)


def decode_gif(image: Any, name: str | None = None) -> np.ndarray:
    """Every frame of a GIF, as ``tf.io.decode_gif``: uint8 [frames, height, width, 3], the size
    being the first frame's. Each frame starts from the previous one and draws its rectangle
    through its colour table, keeping the previous pixels where it is transparent, as
    TensorFlow does (disposal methods are not applied). Decoded natively (giflib), without the
    GIL.

    Raises:
      InvalidArgumentError: data that is not a complete GIF ("Invalid GIF data (size N), ..."),
        a frame past the pixel limit, or more frames than 4 times that limit holds in all.

    Args:
        image: the GIF bytes.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A uint8 array [frames, height, width, 3].
    """
    del name
    return _pywrap.ImageDecodeGif(_contents(image), False)


def _decode_with_pillow(contents, fmt, channels):
    try:
        from PIL import Image
    except ImportError:
        raise errors.UnimplementedError(
            f"decoding {fmt.upper()} needs Pillow (pip install swigflow[cli]); the native codecs "
            "read JPEG and PNG"
        ) from None
    import io

    try:
        with Image.open(io.BytesIO(contents)) as im:
            mode = {0: None, 1: "L", 3: "RGB", 4: "RGBA"}.get(channels, "RGB")
            if mode is None:
                mode = "L" if im.mode in ("1", "L", "I", "I;16") else "RGB"
            return np.asarray(im.convert(mode)).reshape(im.size[1], im.size[0], -1)
    except Exception as e:  # Pillow raises many kinds for unreadable data
        raise errors.InvalidArgumentError(f"Invalid {fmt.upper()} data: {e}") from None


def decode_image(
    contents: bytes,
    channels: int | None = None,
    dtype: DTypeLike = np.uint8,
    name: str | None = None,
    expand_animations: bool = True,
) -> np.ndarray:
    """Decodes a JPEG, PNG or GIF (BMP through Pillow, when installed) by its signature, as
    ``tf.io.decode_image``: [height, width, channels] of `dtype` (uint8, uint16, or a float type
    in [0, 1] via :func:`convert_image_dtype`). A GIF gives all its frames, [frames, height,
    width, 3] (see :func:`decode_gif`), or with ``expand_animations=False`` its first frame.

    Args:
        contents: the encoded bytes.
        channels: None or 0 (the file's), 1, 3 or 4.
        dtype: uint8, uint16, float16, float32 or float64.
        name: accepted for TensorFlow's signature; unused.
        expand_animations: all of a GIF's frames; False: the first.

    Returns:
        An array.

    Raises:
        InvalidArgumentError: an unknown or undecodable format.
    """
    del name
    from swigflow.image.transforms import convert_image_dtype

    contents = _contents(contents)
    channels = 0 if channels is None else int(channels)
    dtype = np.dtype(dtype)
    fmt = read_shape(contents)[0]
    if fmt == "jpeg":
        if channels not in (0, 1, 3):
            raise errors.InvalidArgumentError(
                f"Channels must be 0, 1 or 3 for JPEG images, got {channels}"
            )
        image = decode_jpeg(contents, channels)
    elif fmt == "png":
        # 16-bit samples keep their precision in a float result (and 8-bit ones lose nothing).
        image = decode_png(contents, channels, np.uint8 if dtype == np.uint8 else np.uint16)
    elif fmt == "gif":
        if channels not in (0, 3):
            raise errors.InvalidArgumentError(f"channels must be 0 or 3 for GIF, got {channels}")
        image = _pywrap.ImageDecodeGif(contents, not expand_animations)
    elif fmt == "bmp":
        image = _decode_with_pillow(contents, fmt, channels)
    else:
        raise errors.InvalidArgumentError(
            "Unknown image file format. One of JPEG, PNG, GIF, BMP required."
        )
    return convert_image_dtype(image, dtype)


def _pixels(image, what):
    image = np.asarray(image)
    if image.ndim != 3:
        raise errors.InvalidArgumentError(
            f"{what} needs an image of rank 3, got shape {image.shape}"
        )
    return image


def encode_jpeg(
    image: Any,
    format: str = "",
    quality: int = 95,
    progressive: bool = False,
    optimize_size: bool = False,
    chroma_downsampling: bool = True,
    density_unit: str = "in",
    x_density: int = 300,
    y_density: int = 300,
    xmp_metadata: str = "",
    name: str | None = None,
) -> bytes:
    """JPEG bytes of a uint8 [height, width, 1 or 3] image, as ``tf.io.encode_jpeg``.

    Args:
        image: a uint8 array [height, width, 1 or 3].
        format: "", "grayscale" or "rgb": the channels expected ("" takes the image's).
        quality: 0-100.
        progressive: write a progressive JPEG.
        optimize_size: optimize the Huffman tables.
        chroma_downsampling: 4:2:0 chroma (else 4:4:4).
        density_unit: "in" or "cm".
        x_density: the horizontal density.
        y_density: the vertical density.
        xmp_metadata: XMP metadata to embed, or "".
        name: accepted for TensorFlow's signature; unused.

    Returns:
        bytes.

    Raises:
        InvalidArgumentError: an image of another dtype or shape, or a bad option.
    """
    del name
    image = _pixels(image, "encode_jpeg")
    if image.dtype != np.uint8:
        raise errors.InvalidArgumentError(f"encode_jpeg needs uint8 pixels, got {image.dtype}")
    want = {"": image.shape[2], "grayscale": 1, "rgb": 3}.get(format)
    if want is None:
        raise errors.InvalidArgumentError(
            f"format must be '', 'grayscale' or 'rgb', got {format!r}"
        )
    if image.shape[2] != want or want not in (1, 3):
        raise errors.InvalidArgumentError(
            f"image must have {'1 or 3' if not format else want} channels, got {image.shape[2]}"
        )
    if density_unit not in _DENSITY_UNITS:
        raise errors.InvalidArgumentError(
            f"density_unit must be 'in' or 'cm', got {density_unit!r}"
        )
    options = _pywrap.JpegEncodeOptions()
    options.quality = int(quality)
    options.progressive = bool(progressive)
    options.optimize_size = bool(optimize_size)
    options.chroma_downsampling = bool(chroma_downsampling)
    options.density_unit = _DENSITY_UNITS[density_unit]
    options.x_density = int(x_density)
    options.y_density = int(y_density)
    options.xmp_metadata = xmp_metadata.encode() if isinstance(xmp_metadata, str) else xmp_metadata
    return _pywrap.ImageEncodeJpeg(np.ascontiguousarray(image), options)


def encode_png(image: Any, compression: str | None = -1, name: str | None = None) -> bytes:
    """PNG bytes of a uint8 or uint16 [height, width, 1..4] image (``tf.io.encode_png``);
    compression: zlib's level 0-9, -1 for its default.

    Args:
        image: a uint8 or uint16 array [height, width, 1..4].
        compression: zlib's level 0-9, -1 for its default.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        bytes.
    """
    del name
    image = _pixels(image, "encode_png")
    if image.dtype not in (np.uint8, np.uint16):
        raise errors.InvalidArgumentError(f"encode_png needs uint8 or uint16, got {image.dtype}")
    return _pywrap.ImageEncodePng(np.ascontiguousarray(image), int(compression))


def is_jpeg(contents: bytes, name: str | None = None) -> bool:
    """Whether contents start with a JPEG signature (``tf.io.is_jpeg``).

    Args:
        contents: bytes.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        True or False.
    """
    del name
    return bytes(_contents(contents)[:3]) == b"\xff\xd8\xff"


def max_pixels() -> int:
    """The most pixels (height x width) a decoder accepts; larger headers are rejected before
    anything is allocated (decompression bombs)."""
    return _pywrap.ImageMaxPixels()


def set_max_pixels(limit: int | None) -> None:
    """Sets :func:`max_pixels` for the process; None or <= 0 restores the default (178,956,970,
    as Pillow's).

    Args:
        limit: the most pixels a decoded image may have; None or <= 0: the default.
    """
    _pywrap.ImageSetMaxPixels(0 if limit is None else int(limit))
