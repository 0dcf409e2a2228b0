"""Translated from tensorflow/python/ops/image_ops_test.py (ResizeImagesV2Test's bad sizes,
CropToBoundingBoxTest's checks against golden data from TF 2.21) and
list_files_test.py (testEmptyDirectory): argument errors with TensorFlow 2.21's types and words
(checked against TF 2.21 by hand: a scalar or 1 or 3 elements, floats and None, 0 and negative
dimensions, an empty folder)."""

import json
import os
import re

import generators
import numpy as np
import pytest

from swigflow import errors, image
from swigflow.data import Dataset

IMAGE = np.zeros((4, 6, 3), np.float32)


@pytest.mark.parametrize("size", [6, [6], [6, 4, 2], [], [[6, 4]]])
def test_resize_size_of_other_shape(size):
    with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements"):
        image.resize(IMAGE, size)


@pytest.mark.parametrize("size", [[6, 4.0], [6.0, 4.0], None, np.array([6, 4], np.float32)])
def test_resize_size_not_integers(size):
    with pytest.raises(ValueError, match="'size' must be a 1-D int32 Tensor"):
        image.resize(IMAGE, size)


@pytest.mark.parametrize("size", [[0, 4], [-1, 4], [4, 0]])
def test_resize_size_not_positive(size):
    with pytest.raises(errors.InvalidArgumentError, match="output dimensions must be positive"):
        image.resize(IMAGE, size)


@pytest.mark.parametrize("size", [(6, 4), np.array([6, 4], np.int64), np.array([6, 4], np.int32)])
def test_resize_sizes_tf_takes(size):
    assert image.resize(IMAGE, size).shape == (6, 4, 3)


def test_list_files_empty_directory(tmp_path):
    pattern = str(tmp_path / "*")
    with pytest.raises(
        errors.InvalidArgumentError, match=re.escape(f"No files matched pattern: {pattern}")
    ):
        Dataset.list_files(pattern)
    with pytest.raises(errors.InvalidArgumentError, match=r"No files matched pattern: .*a, .*b"):
        Dataset.list_files([str(tmp_path / "a"), str(tmp_path / "b")])


# crop_to_bounding_box, central_crop and the flips against TF 2.21 on images of every rank,
# empty ones and ones without channels (tests/testdata/make_tf_image_checks.py).
make_tf_image_checks = generators.load("make_tf_image_checks")
with open(
    os.path.join(os.path.dirname(__file__), "..", "testdata", "tf_image_checks", "golden.json")
) as _f:
    IMAGE_CHECKS = json.load(_f)


def test_every_image_check_has_golden_data():
    assert set(make_tf_image_checks.CASES) == set(IMAGE_CHECKS) - {"_tensorflow"}


@pytest.mark.parametrize("name", sorted(make_tf_image_checks.CASES))
def test_image_checks_as_tensorflow(name):
    got = make_tf_image_checks.run_case(make_tf_image_checks.CASES[name], image)
    assert got == IMAGE_CHECKS[name]
