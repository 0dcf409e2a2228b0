"""tensorflow/python/kernel_tests/math_ops/aggregate_ops_test.py: AddNTest (the CPU types).

Not translated: testVariant (no variant tensors in swigflow). testUnknownShapes' placeholders
become the same array passed `count` times.
"""

import ml_dtypes
import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

import swigflow as sf

MAX_N = 10  # AddN adds the first M inputs, then 8 at a time: 1..10 reach every case
DTYPES = [
    np.int8, np.int16, np.int32, np.int64, ml_dtypes.bfloat16, np.float16, np.float32,
    np.float64, np.complex64, np.complex128,
]  # fmt: skip


def _build_data(rng, shape, dtype):
    data = rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "c":  # an index-dependent imaginary part tells values apart
        return (data + 10j * data).astype(dtype)
    return data


def _expected(data):
    kind = np.complex128 if data[0].dtype.kind == "c" else np.float64
    return np.sum(np.stack([d.astype(kind) for d in data]), axis=0)


def _check(data):
    actual = sf.add_n(data)
    assert actual.dtype == data[0].dtype
    expected = _expected(data)
    if actual.dtype.kind == "c":
        np.testing.assert_allclose(actual, expected, rtol=1e-5)
    elif actual.dtype == np.dtype(ml_dtypes.bfloat16):
        np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=2e-2, atol=2e-2)
    else:
        assert_all_close_according_to_type(
            expected.astype(np.float64), actual, half_rtol=5e-3, half_atol=5e-3
        )


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_add_n(dtype):
    """AddNTest.testAddN."""
    rng = np.random.default_rng(12345)
    for count in range(1, MAX_N + 1):
        _check([_build_data(rng, (2, 2), dtype) for _ in range(count)])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_unknown_shapes(dtype):
    """AddNTest.testUnknownShapes: one array added to itself 1 to 10 times."""
    data = _build_data(np.random.default_rng(12345), (2, 2), dtype)
    for count in range(1, MAX_N + 1):
        _check([data] * count)
