"""tensorflow/python/kernel_tests/math_ops/argmax_op_test.py: ArgMaxTest (the CPU path; the
GPU variant of each check is the same computation here)."""

import functools

import ml_dtypes
import numpy as np
import pytest

import swigflow as sf
from swigflow import errors

DTYPES = [
    np.float16, np.float32, np.float64, np.int16, np.int32, np.int64, np.bool_,
    ml_dtypes.bfloat16,
]  # fmt: skip


def _check(method, x, axis, expected):
    ans = method(x, axis=axis)
    assert ans.dtype == np.int64  # the default output type
    assert ans.shape == np.shape(expected)
    np.testing.assert_array_equal(ans, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_types(dtype):
    """ArgMaxTest.testTypes: _testBasic, _testTieBreaking and _testDim for each dtype."""
    rng = np.random.default_rng(0)
    x = np.arange(200, dtype=np.float32).astype(dtype)
    rng.shuffle(x)
    _check(sf.argmax, x, 0, x.argmax())
    _check(sf.argmin, x, 0, x.argmin())

    x = np.zeros(200, dtype=dtype)  # ties: the first index, as numpy
    _check(sf.argmax, x, 0, x.argmax())
    _check(sf.argmin, x, 0, x.argmin())
    x = np.array([[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1]], dtype=dtype)
    _check(sf.argmax, x, 1, x.argmax(axis=1))
    _check(sf.argmin, x, 1, x.argmin(axis=1))

    shape = (3, 2, 4, 5, 6, 3, 7)
    count = functools.reduce(lambda a, b: a * b, shape)
    x = np.arange(count, dtype=np.float32).astype(dtype)
    rng.shuffle(x)
    x = x.reshape(shape)
    for axis in range(-7, 7):
        _check(sf.argmax, x, axis, x.argmax(axis))
        _check(sf.argmin, x, axis, x.argmin(axis))


def test_float_int32_output():
    """ArgMaxTest.testFloatInt32Output."""
    x = np.asarray(100 * np.random.default_rng(1).standard_normal(200), dtype=np.float32)
    for op, expected in ((sf.argmax, x.argmax()), (sf.argmin, x.argmin())):
        ans = op(x, axis=0, output_type=np.int32)
        assert ans.dtype == np.int32
        assert int(ans) == expected


@pytest.mark.parametrize("op", [sf.argmin, sf.argmax])
def test_empty(op):
    """ArgMaxTest.testEmpty."""
    with pytest.raises(
        errors.InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0\]"
    ):
        op([], 0)


@pytest.mark.parametrize("op", [sf.argmin, sf.argmax])
def test_default_axis(op):
    """ArgMaxTest.testDefaultAxis."""
    assert int(op([1])) == 0


@pytest.mark.parametrize("op", [sf.argmin, sf.argmax])
def test_output_empty(op):
    """ArgMaxTest.testOutputEmpty."""
    assert op(np.zeros([1, 0, 2], np.float32), axis=-1).shape == (1, 0)
