"""swigflow.image.preprocess_input against Keras' imagenet_utils.preprocess_input: every mode
and data format on uint8, float32 and float64 images of rank 3 and 4
(tests/testdata/make_keras_preprocess.py), bit for bit; and Keras' errors."""

import os

import generators
import numpy as np
import pytest

from swigflow import image

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
make_keras_preprocess = generators.load("make_keras_preprocess")
GOLDEN = np.load(os.path.join(TESTDATA, "keras_preprocess", "golden.npz"))
CASES = [
    (name, mode) for name in make_keras_preprocess.inputs() for mode in make_keras_preprocess.MODES
]


def test_every_case_has_golden_data():
    assert {f"{n}_{m}" for n, m in CASES} == set(GOLDEN.files) - {"keras_version"}


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_as_keras(name, mode):
    array, data_format = make_keras_preprocess.inputs()[name]
    before = array.copy()
    got = image.preprocess_input(array, data_format, mode)
    want = GOLDEN[f"{name}_{mode}"]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(array, before)  # the caller's array is left as it was


def test_keras_errors():
    with pytest.raises(ValueError, match="Received: mode=bogus"):
        image.preprocess_input(np.zeros((2, 2, 3)), mode="bogus")
    with pytest.raises(ValueError, match="Received: data_format=nope"):
        image.preprocess_input(np.zeros((2, 2, 3)), data_format="nope")


@pytest.mark.parametrize("mode", make_keras_preprocess.MODES)
@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_decode_images_preprocess_is_preprocess_input_of_the_pixels(tmp_path, mode, layout):
    import swigflow as sf

    path = str(tmp_path / "images.tfrecord")
    rng = np.random.default_rng(3)
    with sf.io.TFRecordWriter(path) as w:
        for _ in range(5):
            pixels = rng.integers(0, 256, size=(12, 10, 3), dtype=np.uint8)
            example = {"image/encoded": sf.image.encode_png(pixels)}
            w.write(sf.train.example_from_dict(example).SerializeToString())
    spec = {"image/encoded": sf.io.FixedLenFeature([], "string")}
    parsed = sf.data.TFRecordDataset(path).batch(2).parse(spec)
    data_format = "channels_first" if layout == "NCHW" else "channels_last"
    pixels = [b["image/encoded"] for b in parsed.decode_images(size=(8, 8), layout=layout)]
    fused = parsed.decode_images(size=(8, 8), layout=layout, preprocess=mode)
    unfused = parsed.map(lambda b: b).decode_images(size=(8, 8), layout=layout, preprocess=mode)
    assert fused.element_spec["image/encoded"].dtype == np.float32
    for ds in (fused, unfused):
        got = [b["image/encoded"] for b in ds]
        assert len(got) == len(pixels) == 3
        for g, p in zip(got, pixels):
            np.testing.assert_array_equal(g, image.preprocess_input(p, data_format, mode))
    with pytest.raises(ValueError, match="preprocess takes the decoded pixels"):
        parsed.decode_images(dtype="float32", preprocess=mode)
    with pytest.raises(ValueError, match="preprocess must be one of"):
        parsed.decode_images(preprocess="keras")
