"""GIF decoding against TensorFlow 2.21: tests/testdata/make_tf_gif.py's files (animated,
offset and clipped frames, transparency, interlaced, local colour tables, and broken ones)
decoded by decode_gif and decode_image as TensorFlow decoded them, bytes and errors alike;
plus the limits TensorFlow does not have."""

import hashlib
import json
import os

import generators
import numpy as np
import pytest
from tf_messages import bare

from swigflow import errors, image, io

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "tf_gif")
with open(os.path.join(HERE, "golden.json")) as f:
    GOLDEN = json.load(f)
generator = generators.load("make_tf_gif")  # its GIF writer

CALLS = {
    "decode_gif": lambda data: io.decode_gif(data),
    "decode_image": lambda data: io.decode_image(data),
    "decode_image_first": lambda data: io.decode_image(data, expand_animations=False),
    "decode_image_3": lambda data: io.decode_image(data, channels=3),
    "decode_image_1": lambda data: io.decode_image(data, channels=1),
    "decode_image_4": lambda data: io.decode_image(data, channels=4),
    "decode_image_float": lambda data: io.decode_image(data, dtype=np.float32),
}
CASES = [(name, call) for name in sorted(GOLDEN["files"]) for call in sorted(CALLS)]


def read(name):
    with open(os.path.join(HERE, name + ".gif"), "rb") as f:
        return f.read()


def test_the_golden_calls_are_the_generators():
    assert set(CALLS) == {c for calls in GOLDEN["files"].values() for c in calls}
    assert len(GOLDEN["files"]) >= 16


@pytest.mark.parametrize("name,call", CASES)
def test_golden(name, call):
    expected = GOLDEN["files"][name][call]
    data = read(name)
    if "error" in expected:
        with pytest.raises(errors.InvalidArgumentError) as info:
            CALLS[call](data)
        assert str(info.value) == bare(expected["message"])
        return
    value = np.ascontiguousarray(CALLS[call](data))
    want = expected["value"]
    assert (str(value.dtype), list(value.shape)) == (want["dtype"], want["shape"])
    if "hex" in want:
        np.testing.assert_array_equal(
            value, np.frombuffer(bytes.fromhex(want["hex"]), value.dtype).reshape(value.shape)
        )
    assert hashlib.sha256(value.tobytes()).hexdigest() == want["sha256"]


def test_first_frame_is_frame_zero():
    data = read("pillow_animated")
    frames = image.decode_gif(data)
    assert frames.shape[0] == 3
    np.testing.assert_array_equal(image.decode_image(data, expand_animations=False), frames[0])


def test_a_frame_past_the_pixel_limit_is_refused_before_it_is_allocated():
    data = read("two_frames")  # 6x5 frames
    old = image.max_pixels()
    try:
        image.set_max_pixels(29)
        with pytest.raises(errors.InvalidArgumentError, match="too many pixels"):
            image.decode_gif(data)
        image.set_max_pixels(30)  # one frame fits; all frames may hold 4 times that
        assert image.decode_gif(data).shape == (2, 5, 6, 3)
    finally:
        image.set_max_pixels(old)


def test_endless_frames_are_refused():
    """A file of many tiny frame records cannot grow the output without bound: all frames
    together hold at most 4 times the pixel limit."""
    many = generator.gif(6, 5, [generator.frame(0, 0, 6, 5)] * 9, generator.RGBW)
    old = image.max_pixels()
    try:
        image.set_max_pixels(60)  # 2 frames of 30 pixels each; 8 in all
        with pytest.raises(errors.InvalidArgumentError, match="more than 8 frames"):
            image.decode_gif(many)
        assert image.decode_image(many, expand_animations=False).shape == (5, 6, 3)
    finally:
        image.set_max_pixels(old)
