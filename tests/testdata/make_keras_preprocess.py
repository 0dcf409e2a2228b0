"""Writes tests/testdata/keras_preprocess/golden.npz: what Keras' (3.x, beside TensorFlow 2.21)
keras.applications.imagenet_utils.preprocess_input gives for every mode and data format, on
uint8, float32 and float64 images of rank 3 and 4. tests/python/test_preprocess_input.py
compares swigflow.image.preprocess_input with it, bit for bit. Run once in a throwaway venv
with tensorflow-cpu (which installs Keras):

    python tests/testdata/make_keras_preprocess.py
"""

import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_preprocess", "golden.npz")


def inputs():
    """{name: (array, data_format)}, the same on both sides."""
    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, size=(2, 5, 4, 3), dtype=np.uint8)
    found = {}
    for kind, array in (
        ("uint8", pixels),
        ("float32", pixels.astype(np.float32) + 0.25),
        ("float64", pixels.astype(np.float64) / 3),
    ):
        found[f"{kind}_last_4d"] = (array, "channels_last")
        found[f"{kind}_last_3d"] = (array[0], "channels_last")
        found[f"{kind}_first_4d"] = (
            np.ascontiguousarray(np.moveaxis(array, -1, 1)),
            "channels_first",
        )
        found[f"{kind}_first_3d"] = (
            np.ascontiguousarray(np.moveaxis(array[0], -1, 0)),
            "channels_first",
        )
    return found


MODES = ("caffe", "tf", "torch")


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    from keras.applications import imagenet_utils

    out = {"keras_version": np.array(keras.__version__)}
    for name, (array, data_format) in inputs().items():
        for mode in MODES:
            result = imagenet_utils.preprocess_input(array.copy(), data_format, mode)
            out[f"{name}_{mode}"] = np.asarray(result)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez(OUT, **out)


if __name__ == "__main__":
    main()
