"""swigflow.image against TensorFlow 2.21, call by call (tests/testdata/make_tf_images.py
recorded TF's results and errors for baseline, progressive, 4:4:4/4:2:2/4:2:0, grayscale,
restart-marker, odd-sized, CMYK and truncated JPEGs, PNGs of every colour type and depth, and
tf.image.resize with every method)."""

import json
import os

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "testdata", "tf_images")
with open(os.path.join(DATA, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)
GOLDEN = np.load(os.path.join(DATA, "golden.npz"))
CASES = MANIFEST["cases"]


def _input(case):
    if case["file"] in GOLDEN.files:
        return GOLDEN[case["file"]]
    with open(os.path.join(DATA, case["file"]), "rb") as f:
        return f.read()


def _run(case):
    data, args = _input(case), dict(case["args"])
    op = case["op"]
    if op == "extract_jpeg_shape":
        return sf.image.extract_jpeg_shape(data)
    if op == "decode_jpeg":
        return sf.io.decode_jpeg(data, **args)
    if op == "decode_and_crop_jpeg":
        return sf.image.decode_and_crop_jpeg(data, **args)
    if op == "decode_png":
        return sf.io.decode_png(data, **args)
    if op == "decode_image":
        return sf.io.decode_image(data, **args)
    if op == "resize":
        return sf.image.resize(data, **args)
    if op == "encode_jpeg_roundtrip":
        return sf.io.decode_jpeg(sf.io.encode_jpeg(data, **args))
    raise AssertionError(op)


# TF's ValueError cases are argument checks that swigflow reports as InvalidArgumentError.
_ERRORS = {
    "InvalidArgumentError": errors.InvalidArgumentError,
    "ValueError": errors.InvalidArgumentError,
}


def _tolerance(case, expected):
    if case["op"] == "resize":
        return 1e-3 * max(1.0, float(np.abs(expected).max()) / 255.0)
    if case["op"] == "encode_jpeg_roundtrip":
        return 2  # TF bundles its own libjpeg-turbo build; the encoders may round differently
    return 0  # same library, same IDCT and upsampling: identical pixels


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{i}-{c['op']}-{c['file']}" for i, c in enumerate(CASES)]
)
def test_matches_tensorflow(case):
    if case["error"] is not None:
        # A crop window outside the image: TF's words lead the message, the detail follows.
        crop = case["op"] == "decode_and_crop_jpeg"
        with pytest.raises(
            _ERRORS[case["error"]], match="Invalid JPEG data or crop window" if crop else None
        ):
            _run(case)
        return
    expected = GOLDEN[case["result"]]
    got = np.asarray(_run(case))
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if case["file"] == "truncated_60.jpg" and case["args"].get("try_recover_truncated"):
        # (A truncated progressive file recovers exactly as in TF: every scan present is applied.)
        # Below the last complete MCU row TensorFlow's recovered pixels are whatever its reader
        # makes of the missing bytes (not the file's data); swigflow fills with what libjpeg
        # decodes after a supplied EOI marker. The rows the data covers must agree exactly.
        rows = _rows_from_data(case)
        assert rows >= 8
        expected, got = expected[:rows], got[:rows]
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    assert diff.max() <= _tolerance(case, expected), (diff.max(), int((diff > 0).sum()))


def _rows_from_data(case):
    """The leading rows of TF's recovered decode that equal the complete file's decode."""
    full = next(
        c
        for c in CASES
        if c["file"] == "baseline_420.jpg"
        and c["op"] == "decode_jpeg"
        and c["args"] == {"channels": 3, "dct_method": ""}
    )
    same = np.all(GOLDEN[full["result"]] == GOLDEN[case["result"]], axis=(1, 2))
    return int(np.argmin(same)) if not same.all() else len(same)


def test_manifest_covers_the_issue_list():
    files = {c["file"] for c in CASES}
    names = ["progressive_420.jpg", "baseline_444.jpg", "baseline_422.jpg", "grayscale.jpg"]
    names += ["restart_markers.jpg", "odd_17x23.jpg", "cmyk.jpg", "truncated_60.jpg"]
    for name in names:
        assert name in files
    assert MANIFEST["tensorflow"].startswith("2.21")


@pytest.mark.parametrize(
    "data,expected",
    [
        (b"\xff\xd8\xff\xe0", "jpeg"),
        (b"\x89PNG\r\n\x1a\n", "png"),
        (b"GIF87a", "gif"),
        (b"GIF89a", "gif"),
        (b"BM\x00\x00", "bmp"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"),
        (b"II*\x00", "tiff"),
        (b"MM\x00*", "tiff"),
        (b"RIFF\x00\x00\x00\x00WAVE", None),
        (b"\xff\xd8", None),  # too short for a JPEG signature
        (b"", None),
    ],
)
def test_image_format_is_the_native_sniffer(data, expected):
    from swigflow.image.codecs import image_format

    assert image_format(data) == expected
    assert image_format(bytearray(data)) == expected  # any buffer


def test_read_shape_reads_headers_only():
    from swigflow.image.codecs import read_shape

    pixels = np.zeros((23, 37, 3), np.uint8)
    assert read_shape(sf.image.encode_png(pixels)) == ("png", 23, 37, 3)
    jpeg = sf.image.encode_jpeg(pixels)
    assert read_shape(jpeg) == ("jpeg", 23, 37, 3)
    assert read_shape(b"GIF89a") == ("gif", 0, 0, 0)
    with pytest.raises(errors.InvalidArgumentError):
        read_shape(jpeg[:20])  # cut before the frame header
