"""tensorflow/python/kernel_tests/nn_ops/softmax_op_test.py, SoftmaxTest, on the CPU.

Expected values come from the test's own numpy reference (_npSoftmax), as upstream. Not
translated: the bfloat16 case (numpy has no bfloat16), the GPU-only cases, and
testShapeInference (graph-mode static shapes; the result's shape is checked in each case).
"""

import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

from swigflow import errors, nn
from swigflow.ops import GradientTape


def np_softmax(features, dim=-1, log=False):
    """SoftmaxTest._npSoftmax."""
    if dim == -1:
        dim = len(features.shape) - 1
    one_only_on_dim = list(features.shape)
    one_only_on_dim[dim] = 1
    is_fp16 = features.dtype == np.float16
    if is_fp16:
        features = features.astype(np.float32)
    e = np.exp(features - np.reshape(np.amax(features, axis=dim), one_only_on_dim))
    softmax = e / np.reshape(np.sum(e, axis=dim), one_only_on_dim)
    res = np.log(softmax) if log else softmax
    return res.astype(np.float16) if is_fp16 else res


def check_softmax(features, dim=-1, log=False):
    """SoftmaxTest._testSoftmax."""
    expected = np_softmax(features, dim=dim, log=log)
    out = (nn.log_softmax if log else nn.softmax)(features, axis=dim, name="arbitrary")
    assert_all_close_according_to_type(expected, out)
    assert out.shape == expected.shape
    if not log:
        sums = np.sum(out, axis=dim)
        assert_all_close_according_to_type(np.ones(sums.shape), sums)


def check_overflow(dtype):
    """SoftmaxTest._testOverflow."""
    big = np.finfo(dtype).max
    features = np.array([[1.0, 1.0, 1.0, 1.0], [big, 1.0, 2.0, 3.0]]).astype(dtype)
    np.testing.assert_allclose(
        nn.log_softmax(features),
        np.array([[-1.386294, -1.386294, -1.386294, -1.386294], [0, -big, -big, -big]]),
        rtol=1e-5, atol=1e-5,
    )  # fmt: skip


FEATURES = [[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]]
CUBE = [
    [[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]],
    [[2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]],
    [[5.0, 4.0, 3.0, 2.0], [1.0, 2.0, 3.0, 4.0]],
]


def test_np_softmax():
    """SoftmaxTest.testNpSoftmax: the reference itself."""
    np.testing.assert_allclose(
        np_softmax(np.array(FEATURES)),
        [[0.25, 0.25, 0.25, 0.25], [0.0320586, 0.08714432, 0.23688282, 0.64391426]],
        rtol=1e-5, atol=1e-5,
    )  # fmt: skip
    np.testing.assert_allclose(
        np_softmax(np.array(FEATURES), log=True),
        [[-1.386294] * 4, [-3.4401897, -2.4401897, -1.4401897, -0.4401897]],
        rtol=1e-5, atol=1e-5,
    )  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["testFloat", "testHalf"])
def test_all(dtype):
    """SoftmaxTest.testFloat, testHalf (_testAll: softmax, log_softmax, overflow)."""
    features = np.array(FEATURES).astype(dtype)
    check_softmax(features)
    check_softmax(features, log=True)
    check_overflow(np.float32)


def test_double():
    """SoftmaxTest.testDouble."""
    check_softmax(np.array(FEATURES).astype(np.float64))
    check_overflow(np.float64)


def test_softmax_double_gradient_preserves_small_component():
    """SoftmaxTest.testSoftmaxDoubleGradientPreservesSmallComponent."""
    logits = np.array([37.42994775023705, 0.0], np.float64)
    cotangent = np.array([1.0, 0.0], np.float64)
    with GradientTape() as tape:
        y = nn.softmax(logits)
    gradient = tape.gradient(y, logits, output_gradients=cotangent)
    tail = 5.551115123125775e-17
    np.testing.assert_allclose(gradient, [tail, -tail], rtol=1e-14, atol=0.0)
    assert gradient[0] == -gradient[1]


@pytest.mark.parametrize(
    "features,dim",
    [
        (np.array([3.0, 2.0, 3.0, 9.0]).astype(np.float64), -1),
        (np.array(CUBE).astype(np.float32), -1),
        (np.array(CUBE).astype(np.float32), 0),
        (np.array(CUBE).astype(np.float32), 1),
        (np.array(CUBE).astype(np.float32), -2),
    ],
    ids=["test1DTensorAsInput", "test3DTensorAsInput", "testAlongFirstDimension",
         "testAlongSecondDimension", "testAlongNegativeDimension"],
)  # fmt: skip
def test_shapes_and_axes(features, dim):
    """SoftmaxTest.test1DTensorAsInput(NoReshape), test3DTensorAsInput(NoReshape),
    testAlongFirstDimension, testAlongSecondDimension, testAlongNegativeDimension."""
    check_softmax(features, dim=dim)
    check_overflow(np.float64)


def test_empty_input():
    """SoftmaxTest.testEmptyInput."""
    x = np.ones([0, 3], np.float32)
    np.testing.assert_array_equal(nn.softmax(x, axis=0), np.zeros([0, 3], np.float32))


def test_dim_too_large():
    """SoftmaxTest.testDimTooLarge."""
    with pytest.raises(errors.InvalidArgumentError):
        nn.softmax(np.array([1.0, 2.0, 3.0, 4.0], np.float32), axis=100)


def test_invalid_axis():
    """SoftmaxTest.testInvalidAxis."""
    with pytest.raises(errors.InvalidArgumentError):
        nn.softmax(np.ones([2, 3], np.float32), axis=2)


@pytest.mark.parametrize("dims", [129, 256])
def test_large_dims(dims):
    """SoftmaxTest.testLargeDims."""
    ones = np.random.default_rng(dims).random((dims, dims)).astype(np.float32)
    np.testing.assert_allclose(nn.softmax(ones), np_softmax(ones), rtol=1e-6, atol=1e-6)
