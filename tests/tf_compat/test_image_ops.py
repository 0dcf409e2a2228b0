"""Translated from tensorflow/python/ops/image_ops_test.py (ResizeImagesV2Test's bad sizes) and
list_files_test.py (testEmptyDirectory): argument errors with TensorFlow 2.21's types and words
(checked against TF 2.21 by hand: a scalar or 1 or 3 elements, floats and None, 0 and negative
dimensions, an empty folder)."""

import re

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
