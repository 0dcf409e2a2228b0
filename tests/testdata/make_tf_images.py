"""Writes tests/testdata/tf_images/: JPEG and PNG files and what TensorFlow 2.21 decodes from
them, and tf.image.resize results.

Run once with TensorFlow and Pillow installed (neither is a dependency of the tests):

    python tests/testdata/make_tf_images.py

The images are written by Pillow (baseline, progressive, 4:4:4 / 4:2:2 / 4:2:0, grayscale,
restart markers, odd sizes, CMYK, truncated; PNG of every colour type and bit depth). For each
call, MANIFEST.json holds the function, its arguments and either the key of the result in
golden.npz or the class of the error TensorFlow raised. tests/python/test_image_golden.py
replays every call with swigflow.image.
"""

import io
import json
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_images")


def photo(width, height, seed):
    """A smooth picture with edges and some noise (like a photo, unlike pure noise)."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 128 + 100 * np.sin(x / 7.0 + seed) * np.cos(y / 11.0)
    g = 128 + 90 * np.cos((x + y) / 9.0)
    b = np.where((x // 8 + y // 8) % 2 == 0, 200.0, 40.0)
    img = np.stack([r, g, b], axis=-1) + rng.normal(0, 6, (height, width, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def jpeg(image, mode="RGB", **kwargs):
    buf = io.BytesIO()
    Image.fromarray(image).convert(mode).save(buf, "JPEG", **kwargs)
    return buf.getvalue()


def png(array, mode=None, **kwargs):
    buf = io.BytesIO()
    Image.fromarray(array, mode).save(buf, "PNG", **kwargs) if not isinstance(
        array, Image.Image
    ) else array.save(buf, "PNG", **kwargs)
    return buf.getvalue()


def images():
    p = photo(67, 45, 1)
    big = photo(121, 93, 2)
    files = {
        "baseline_420.jpg": jpeg(p, quality=90),
        "baseline_444.jpg": jpeg(p, quality=90, subsampling=0),
        "baseline_422.jpg": jpeg(p, quality=90, subsampling=1),
        "progressive_420.jpg": jpeg(big, quality=85, progressive=True),
        "progressive_444.jpg": jpeg(p, quality=95, progressive=True, subsampling=0),
        "grayscale.jpg": jpeg(p, mode="L", quality=90),
        "restart_markers.jpg": jpeg(big, quality=90, restart_marker_blocks=3),
        "odd_17x23.jpg": jpeg(photo(17, 23, 3), quality=92),
        "odd_1x1.jpg": jpeg(photo(1, 1, 4), quality=92),
        "cmyk.jpg": jpeg(p, mode="CMYK", quality=90),
    }
    whole = files["baseline_420.jpg"]
    files["truncated_60.jpg"] = whole[: len(whole) * 6 // 10]
    files["truncated_header.jpg"] = whole[:100]
    prog = files["progressive_420.jpg"]
    files["truncated_progressive.jpg"] = prog[: len(prog) * 7 // 10]
    files["not_an_image.jpg"] = b"\xff\xd8\xff\xe0 this is not a JPEG at all" * 3
    # A 65535 x 65535 baseline header: a decompression bomb for any decoder that trusts it.
    bomb = bytearray(whole)
    sof = bomb.index(b"\xff\xc0")
    bomb[sof + 5 : sof + 9] = b"\xff\xff\xff\xff"
    files["bomb_65535.jpg"] = bytes(bomb)

    rng = np.random.RandomState(7)
    rgb = photo(31, 19, 6)
    rgba = np.dstack([rgb, rng.randint(0, 256, (19, 31, 1)).astype(np.uint8)])
    gray = rgb[..., 1]
    gray16 = (gray.astype(np.uint16) * 257 + rng.randint(0, 200, gray.shape)).astype(np.uint16)
    files.update(
        {
            "rgb8.png": png(rgb),
            "rgba8.png": png(rgba),
            "gray8.png": png(gray),
            "gray_alpha8.png": png(Image.fromarray(rgba).convert("LA")),
            "gray16.png": tf.io.encode_png(tf.constant(gray16[..., None])).numpy(),
            "gray1bit.png": png(Image.fromarray(gray > 128)),
            "palette.png": png(
                Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=37)
            ),
        }
    )
    pal = Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=16)
    pal.info["transparency"] = 3
    files["palette_trns.png"] = png(pal, transparency=3)
    rgb16 = tf.io.encode_png(tf.constant((rgb.astype(np.uint16) * 257 + 3), tf.uint16)).numpy()
    files["rgb16.png"] = rgb16
    files["rgba16.png"] = tf.io.encode_png(
        tf.constant(rgba.astype(np.uint16) * 250, tf.uint16)
    ).numpy()
    files["truncated.png"] = files["rgb8.png"][:200]
    return files


def run(fn):
    try:
        return fn().numpy(), None
    except (tf.errors.OpError, ValueError) as e:
        return None, type(e).__name__


def main():
    os.makedirs(OUT, exist_ok=True)
    files = images()
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    cases, arrays = [], {}

    stored = {}  # identical results (channels 0 and 3 of a colour JPEG, ...) are stored once

    def record(op, file, args, fn):
        value, error = run(fn)
        case = {"op": op, "file": file, "args": args, "error": error}
        if value is not None:
            identity = (value.dtype.str, value.shape, value.tobytes())
            if identity not in stored:
                stored[identity] = f"r{len(cases)}"
                arrays[stored[identity]] = value
            case["result"] = stored[identity]
        cases.append(case)

    for name, data in sorted(files.items()):
        if name.endswith(".jpg"):
            record("extract_jpeg_shape", name, {}, lambda d=data: tf.io.extract_jpeg_shape(d))
            for channels in (0, 1, 3):
                for dct in ("", "INTEGER_ACCURATE"):
                    args = {"channels": channels, "dct_method": dct}
                    record(
                        "decode_jpeg", name, args, lambda a=args, d=data: tf.io.decode_jpeg(d, **a)
                    )
            for args in (
                {"channels": 3, "fancy_upscaling": False},
                {"channels": 3, "ratio": 2},
                {"channels": 3, "ratio": 4, "dct_method": "INTEGER_ACCURATE"},
                {"channels": 3, "ratio": 8},
                {"channels": 3, "try_recover_truncated": True},
                {"channels": 3, "try_recover_truncated": True, "acceptable_fraction": 0.3},
            ):
                record("decode_jpeg", name, args, lambda a=args, d=data: tf.io.decode_jpeg(d, **a))
            shape = (
                tf.io.extract_jpeg_shape(data).numpy()
                if name.startswith(("base", "prog", "rest", "gray", "cmyk"))
                else None
            )
            if shape is not None:
                h, w = int(shape[0]), int(shape[1])
                for window in (
                    [0, 0, h, w],
                    [3, 5, h // 2, w // 3],
                    [h - 9, w - 17, 9, 17],
                    [h // 3, 1, 1, w - 2],
                ):
                    for dct in ("", "INTEGER_ACCURATE"):
                        args = {"crop_window": window, "channels": 3, "dct_method": dct}
                        record(
                            "decode_and_crop_jpeg",
                            name,
                            args,
                            lambda a=args, d=data: tf.image.decode_and_crop_jpeg(d, **a),
                        )
                args = {"crop_window": [0, 0, h + 1, w], "channels": 3}
                record(
                    "decode_and_crop_jpeg",
                    name,
                    args,
                    lambda a=args, d=data: tf.image.decode_and_crop_jpeg(d, **a),
                )
        else:
            for channels in (0, 1, 2, 3, 4):
                for dtype in ("uint8", "uint16"):
                    args = {"channels": channels, "dtype": dtype}
                    record(
                        "decode_png",
                        name,
                        args,
                        lambda c=channels, t=dtype, d=data: tf.io.decode_png(
                            d, channels=c, dtype=t
                        ),
                    )
        for dtype in ("uint8", "float32"):
            args = {"dtype": dtype}
            record(
                "decode_image",
                name,
                args,
                lambda t=dtype, d=data: tf.io.decode_image(d, dtype=t, expand_animations=False),
            )

    # Resize: every method, up and down, with and without antialias, on uint8 and float input.
    src = photo(53, 37, 9)
    arrays["resize_src"] = src
    for method in (
        "bilinear",
        "nearest",
        "bicubic",
        "area",
        "lanczos3",
        "lanczos5",
        "gaussian",
        "mitchellcubic",
    ):
        for size in ((19, 23), (37, 53), (24, 100)):
            for antialias in (False, True):
                args = {"size": list(size), "method": method, "antialias": antialias}
                record(
                    "resize",
                    "resize_src",
                    args,
                    lambda a=args: tf.image.resize(
                        src, a["size"], a["method"], antialias=a["antialias"]
                    ),
                )
    srcf = (photo(29, 41, 10).astype(np.float32) / 255.0)[None]
    arrays["resize_src_float"] = srcf
    for method in ("bilinear", "bicubic", "area"):
        args = {"size": [16, 12], "method": method, "antialias": False}
        record(
            "resize",
            "resize_src_float",
            args,
            lambda a=args: tf.image.resize(srcf, a["size"], a["method"]),
        )
    args = {"size": [30, 30], "method": "bilinear", "preserve_aspect_ratio": True}
    record(
        "resize",
        "resize_src",
        args,
        lambda: tf.image.resize(src, [30, 30], preserve_aspect_ratio=True),
    )

    # Encoding: TF's bytes decoded by TF (the reference for our encoder's round trip).
    for args in (
        {"quality": 95},
        {"quality": 50, "chroma_downsampling": False},
        {"quality": 75, "progressive": True},
    ):

        def enc(a=args):
            return tf.io.decode_jpeg(tf.io.encode_jpeg(src, **a))

        record("encode_jpeg_roundtrip", "resize_src", args, enc)

    np.savez_compressed(os.path.join(OUT, "golden.npz"), **arrays)
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    print(len(cases), "cases;", sum(c["error"] is not None for c in cases), "errors")


if __name__ == "__main__":
    main()
