"""tensorflow/python/ops/image_ops_test.py: CropToBoundingBoxTest, CentralCropTest and
ConvertImageTest.

Not translated: the shape-inference and name-scope tests (graph placeholders) and
testCentralFractionTensor (a traced tf.function). The tensor-input variants are the same call
here (numpy in, numpy out).
"""

import numpy as np
import pytest

from swigflow import errors, image


def _assert_returns(x, x_shape, offset_height, offset_width, y, y_shape):
    target_height, target_width, _ = y_shape
    x = np.array(x).reshape(x_shape)
    cropped = image.crop_to_bounding_box(
        x, offset_height, offset_width, target_height, target_width
    )
    np.testing.assert_allclose(cropped, np.array(y).reshape(y_shape))


def _assert_raises(x, x_shape, offset_height, offset_width, target_height, target_width, err):
    x = np.array(x).reshape(x_shape)
    with pytest.raises((ValueError, errors.InvalidArgumentError), match=err):
        image.crop_to_bounding_box(x, offset_height, offset_width, target_height, target_width)


def test_crop_no_op():
    """CropToBoundingBoxTest.testNoOp."""
    x = np.random.default_rng(0).uniform(size=[10, 10, 10])
    _assert_returns(x, [10, 10, 10], 0, 0, x, [10, 10, 10])


@pytest.mark.parametrize(
    "offset,y,y_shape",
    [
        ((1, 0), [4, 5, 6, 7, 8, 9], [2, 3, 1]),
        ((0, 1), [2, 3, 5, 6, 8, 9], [3, 2, 1]),
        ((0, 0), [1, 2, 3, 4, 5, 6], [2, 3, 1]),
        ((0, 0), [1, 2, 4, 5, 7, 8], [3, 2, 1]),
    ],
)
def test_crop(offset, y, y_shape):
    """CropToBoundingBoxTest.testCrop."""
    _assert_returns([1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3, 1], *offset, y, y_shape)


@pytest.mark.parametrize("x_shape", [[3, 5], [1, 3, 5, 1, 1]])
def test_crop_non_3d_input(x_shape):
    """CropToBoundingBoxTest.testNon3DInput."""
    _assert_raises([0] * 15, x_shape, 0, 0, 2, 2, "must have either 3 or 4 dimensions.")


@pytest.mark.parametrize(
    "x_shape,target_height,target_width",
    [([0, 2, 2], 1, 1), ([2, 0, 2], 1, 1), ([2, 2, 0], 1, 1), ([0, 2, 2], 0, 1), ([2, 0, 2], 1, 0)],
)
def test_crop_zero_length_input(x_shape, target_height, target_width):
    """CropToBoundingBoxTest.testZeroLengthInput."""
    _assert_raises(
        [], x_shape, 0, 0, target_height, target_width, "inner 3 dims of 'image.shape' must be > 0"
    )


@pytest.mark.parametrize(
    "params,err",
    [
        ([-1, 0, 3, 3], "offset_height must be >= 0"),
        ([0, -1, 3, 3], "offset_width must be >= 0"),
        ([0, 0, 0, 3], "target_height must be > 0"),
        ([0, 0, 3, 0], "target_width must be > 0"),
        ([2, 0, 3, 3], r"height must be >= target \+ offset"),
        ([0, 2, 3, 3], r"width must be >= target \+ offset"),
    ],
)
def test_crop_bad_params(params, err):
    """CropToBoundingBoxTest.testBadParams."""
    _assert_raises(np.zeros([4, 4, 1]), [4, 4, 1], *params, err)


@pytest.mark.parametrize("x_shape", [[13, 9, 3], [5, 13, 9, 3]])
def test_central_crop_no_op(x_shape):
    """CentralCropTest.testNoOp."""
    x = np.ones(x_shape, dtype=np.float32)
    np.testing.assert_array_equal(image.central_crop(x, 1.0), x)


def test_central_cropping():
    """CentralCropTest.testCropping."""
    row = [1, 2, 3, 4, 5, 6, 7, 8]
    x = np.array([row] * 4, dtype=np.int32).reshape([4, 8, 1])
    y = image.central_crop(x, 0.5)
    np.testing.assert_array_equal(y, np.array([[3, 4, 5, 6], [3, 4, 5, 6]]).reshape([2, 4, 1]))

    x = np.array([row] * 4 + [row[::-1]] * 4, dtype=np.int32).reshape([2, 4, 8, 1])
    expected = np.array([[[3, 4, 5, 6], [3, 4, 5, 6]], [[6, 5, 4, 3], [6, 5, 4, 3]]])
    y = image.central_crop(x, 0.5)
    np.testing.assert_array_equal(y, expected.reshape([2, 2, 4, 1]))


@pytest.mark.parametrize(
    "x_shape,y_shape", [([240, 320, 3], [80, 106, 3]), ([5, 240, 320, 3], [5, 80, 106, 3])]
)
def test_central_cropping2(x_shape, y_shape):
    """CentralCropTest.testCropping2 (TensorFlow's issue 10315)."""
    y = image.central_crop(np.zeros(x_shape, dtype=np.int32), 0.33)
    np.testing.assert_array_equal(y, np.zeros(y_shape, dtype=np.int32))


@pytest.mark.parametrize("fraction", [0.0, 1.01])
def test_central_crop_invalid_fraction(fraction):
    """CentralCropTest.testErrorOnInvalidCentralCropFractionValues."""
    with pytest.raises(ValueError):
        image.central_crop(np.ones([13, 9, 3], dtype=np.float32), fraction)


@pytest.mark.parametrize("x_shape", [[], [3], [3, 9], [3, 9, 3, 9, 3]])
def test_central_crop_invalid_shapes(x_shape):
    """CentralCropTest.testErrorOnInvalidShapes (a None shape is a scalar here)."""
    with pytest.raises(ValueError):
        image.central_crop(np.ones(x_shape, dtype=np.float32), 0.5)


def _convert(original, original_dtype, output_dtype, expected):
    y = image.convert_image_dtype(np.array(original, dtype=original_dtype), output_dtype)
    assert y.dtype == np.dtype(output_dtype)
    np.testing.assert_allclose(y, np.array(expected, dtype=output_dtype), atol=1e-5)


def test_convert_no_convert():
    """ConvertImageTest.testNoConvert: the same dtype gives the input back."""
    x = np.array([1], dtype=np.uint8)
    assert image.convert_image_dtype(x, np.uint8) is x


def test_convert_between_integer():
    """ConvertImageTest.testConvertBetweenInteger."""
    _convert([0, 255], np.uint8, np.int16, [0, 255 * 128])
    _convert([0, 32767], np.int16, np.uint8, [0, 255])


def test_convert_between_float():
    """ConvertImageTest.testConvertBetweenFloat."""
    _convert([-1.0, 0, 1.0, 200000], np.float32, np.float64, [-1.0, 0, 1.0, 200000])
    _convert([-1.0, 0, 1.0, 200000], np.float64, np.float32, [-1.0, 0, 1.0, 200000])


def test_convert_between_integer_and_float():
    """ConvertImageTest.testConvertBetweenIntegerAndFloat."""
    _convert([0, 1, 255], np.uint8, np.float32, [0, 1.0 / 255.0, 1])
    _convert([0, 1.1 / 255.0, 1], np.float32, np.uint8, [0, 1, 255])
