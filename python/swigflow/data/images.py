"""Dataset.decode_images: the arguments, checked once, and the Python-path step.

The native pipeline (swigflow/data/records.py) runs the same decoding (native/image/batch.h) on
its own threads; other datasets run it here, a batch per call with the GIL released.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.data.seeds import seed_bits
from swigflow.image.transforms import PREPROCESS_MODES, preprocess_input

# decode_images's crop argument as swigflow::image::BatchDecodeOptions::Crop.
CROPS = {
    None: _pywrap.BatchDecodeOptions.Crop_kNone,
    "center": _pywrap.BatchDecodeOptions.Crop_kCenter,
    "random": _pywrap.BatchDecodeOptions.Crop_kRandom,
}


def _per_channel(name, values, channels):
    if values is None:
        return None
    values = [float(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)]
    if len(values) == 1:
        values *= channels
    if len(values) != channels:
        raise ValueError(f"{name} needs 1 or {channels} values, got {len(values)}")
    return values


def image_options(
    size: int,
    crop: str | None,
    flip: bool,
    channels: int,
    dtype: DTypeLike,
    layout: str,
    mean: Sequence[float] | None,
    std: Sequence[float] | None,
    fast: bool,
    preprocess: str | None = None,
) -> dict[str, Any]:
    """decode_images's arguments as the native options dict (without "spec"); "preprocess" is
    applied in Python to the native step's uint8 output."""
    if isinstance(size, int):
        size = (size, size)
    height, width = (int(v) for v in size)
    if height <= 0 or width <= 0:
        raise ValueError(f"size must be positive, got {size}")
    if crop not in CROPS:
        raise ValueError(f"crop must be None, 'center' or 'random', got {crop!r}")
    if channels not in (1, 3):
        raise ValueError(f"channels must be 1 or 3, got {channels}")
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.uint8), np.dtype(np.float32)):
        raise ValueError(f"dtype must be uint8 or float32, got {dtype}")
    if layout not in ("NHWC", "NCHW"):
        raise ValueError(f"layout must be 'NHWC' or 'NCHW', got {layout!r}")
    mean = _per_channel("mean", mean, channels)
    std = _per_channel("std", std, channels)
    if (mean is not None or std is not None) and dtype != np.float32:
        raise ValueError("mean and std apply to float32 output (dtype='float32')")
    if std is not None and min(std) <= 0:
        raise ValueError(f"std must be positive, got {std}")
    if preprocess is not None:
        if preprocess not in PREPROCESS_MODES:
            raise ValueError(f"preprocess must be one of {PREPROCESS_MODES}, got {preprocess!r}")
        if dtype != np.uint8 or mean is not None or std is not None or channels != 3:
            raise ValueError(
                "preprocess takes the decoded pixels (dtype='uint8', 3 channels, no mean or std)"
                " and makes them float32 as Keras' preprocess_input does"
            )
    return {
        "height": height,
        "width": width,
        "channels": channels,
        "crop": CROPS[crop],
        "flip": int(bool(flip)),
        "float32": int(dtype == np.float32),
        "nchw": int(layout == "NCHW"),
        "mean": mean,
        "std": std,
        "fast": int(bool(fast)),
        "preprocess": preprocess,
    }


def batch_decode_options(options: dict[str, Any]) -> Any:
    """The swigflow::image::BatchDecodeOptions of an options dict from image_options."""
    native = _pywrap.BatchDecodeOptions()
    for field in ("height", "width", "channels", "crop"):
        setattr(native, field, options[field])
    for field in ("flip", "nchw", "fast"):
        setattr(native, field, bool(options[field]))
    native.type = _pywrap.SampleType_kFloat32 if options["float32"] else _pywrap.SampleType_kUint8
    native.mean = options["mean"] or []
    native.std = options["std"] or []
    return native


def describe(options: dict[str, Any]) -> str:
    """A short, stable text of the options (for pipeline signatures)."""
    keys = ("height", "width", "channels", "crop", "flip", "float32", "nchw", "fast")
    text = ",".join(str(options[k]) for k in keys) + f",{options['mean']},{options['std']}"
    return text + (f",{options['preprocess']}" if options["preprocess"] else "")


def decoded_spec(spec: Any, key: str, options: dict[str, Any]) -> Any:
    """The element spec after decode_images: `key`'s strings become images of the options'
    size, layout and dtype; UnknownSpec when `spec` has no such key."""
    from swigflow.specs import TensorShape, TensorSpec, UnknownSpec

    encoded = spec.get(key) if isinstance(spec, dict) else None
    if type(encoded) is not TensorSpec or encoded.shape.rank is None:
        return spec if isinstance(spec, UnknownSpec) else UnknownSpec("decode_images")
    h, w, c = options["height"], options["width"], options["channels"]
    image = (c, h, w) if options["nchw"] else (h, w, c)
    dtype = np.float32 if options["float32"] or options["preprocess"] else np.uint8
    return dict(spec, **{key: TensorSpec(encoded.shape.concatenate(TensorShape(image)), dtype)})


def preprocessed(element: Any, key: str, options: dict[str, Any]) -> Any:
    """`element` with its decoded images under `key` preprocessed as options["preprocess"]
    says (Keras' preprocess_input modes), or as it is."""
    mode = options["preprocess"]
    if mode is None:
        return element
    data_format = "channels_first" if options["nchw"] else "channels_last"
    return dict(element, **{key: preprocess_input(element[key], data_format, mode)})


def missing_key(key: str, keys: Any) -> Exception:
    """The error for decode_images(key=...) on elements or a spec without `key`."""
    return errors.InvalidArgumentError(
        f"decode_images(key={key!r}): the parsed elements have no such key; theirs: "
        f"{', '.join(sorted(map(str, keys)))} (pass one as key=)"
    )


def _images_of(element, key):
    if not isinstance(element, dict):
        raise errors.InvalidArgumentError(
            "decode_images needs parsed elements (dicts of features); put it after "
            ".batch(n).parse(spec)"
        )
    if key not in element:
        raise missing_key(key, element)
    return np.asarray(element[key], dtype=object)


def image_count(element: Any, key: str) -> int:
    """How many images (records) a parsed element holds under `key`."""
    return _images_of(element, key).size


def decode_batch(
    element: Any,
    key: str,
    options: dict[str, Any],
    seed: int | None,
    epoch: Any = 0,
    position: Any = 0,
) -> Any:
    """decode_images on the Python path for one batch of parsed features: the same dict with
    `key`'s bytes replaced by the decoded array. Image i is record position + i of the epoch,
    and its crop and flip are the native pipeline's for the same (seed, epoch, position)."""
    images = _images_of(element, key)
    single = images.ndim == 0
    contents = [bytes(b) for b in images.reshape(-1)]
    out = _pywrap.ImageDecodeBatch(
        contents, seed_bits(seed), int(epoch), int(position), batch_decode_options(options)
    )
    result = dict(element)
    result[key] = out[0] if single else out
    return preprocessed(result, key, options)
