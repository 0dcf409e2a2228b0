"""The value cases of tensorflow/python/kernel_tests/nn_ops/relu_op_test.py (ReluTest,
Relu6Test, LeakyReluTest, EluTest), BiasAddTestBase.testIntTypes (bias_op_base.py) and
GeluTest (nn_test.py), on the CPU, with their gradient and second-derivative checks.

Adapted: bfloat16 is left out (numpy has no bfloat16) and GPU cases are not run; the qint8
Relu cases are GPU-only upstream; gelu's reference uses Python's math.erf instead of scipy's.
The ReluTest and BiasAdd gradient cases are in test_relu_bias_gradients.py.
"""

import math as pymath

import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

import swigflow
from swigflow import math, nn
from swigflow.ops import GradientTape

NUMBERS = [[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]]
GRAD_X = [[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]]


def max_error(fn, inputs, delta=1e-3):
    return swigflow.test.compute_gradient_error(fn, inputs, delta)


def grad_of(op):
    def f(x):
        with GradientTape() as tape:
            tape.watch(x)
            y = op(x)
        return tape.gradient(y, x)

    return f


def np_relu(x):
    return np.maximum(x, np.zeros(x.shape))


def np_relu6(x):
    return np.minimum(np.maximum(x, np.zeros(x.shape)), np.full(x.shape, 6.0))


def np_leaky_relu(x, alpha=0.1):
    return np.maximum(x, alpha * x)


def np_elu(x):
    return np.where(x < 0, np.exp(x) - 1, x)


def check(np_fn, tf_fn, x):
    expected, actual = np_fn(x), tf_fn(x)
    assert np.shape(actual) == np.shape(expected)
    assert_all_close_according_to_type(expected, actual)


# --- Relu ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float32, np.float64])
def test_relu_numbers(dtype):
    check(np_relu, nn.relu, np.array(NUMBERS).astype(dtype))
    assert nn.relu(np.array(NUMBERS).astype(dtype)).dtype == dtype


def test_relu_no_element():
    check(np_relu, nn.relu, np.array([[], []], dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu_nan_propagation(dtype):
    check(np_relu, nn.relu, np.array([-1, np.nan, 1, np.nan]).astype(dtype))


# --- Relu6 ---------------------------------------------------------------------------------------


def test_np_relu6():
    np.testing.assert_allclose(
        np_relu6(np.array([[-0.9, 0.7, -0.5, 0.3, 6.0], [0.1, -0.3, 6.5, -0.7, 0.9]])),
        [[0.0, 0.7, 0.0, 0.3, 6.0], [0.1, 0.0, 6.0, 0.0, 0.9]],
    )


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float32, np.float64])
def test_relu6_numbers(dtype):
    check(np_relu6, nn.relu6, np.array(NUMBERS).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu6_nan_propagation(dtype):
    check(np_relu6, nn.relu6, np.array([-1, np.nan, 1, 7, np.nan]).astype(dtype))


@pytest.mark.parametrize("dtype,bound", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_relu6_gradient(dtype, bound):
    x = np.asarray([[-0.9, -0.7, -0.5, -0.3, -0.1], [6.1, 6.3, 6.5, 6.7, 6.9]], dtype, order="F")
    assert max_error(nn.relu6, [x]) < bound


# --- LeakyRelu -----------------------------------------------------------------------------------


def test_np_leaky_relu():
    np.testing.assert_allclose(
        np_leaky_relu(np.array([[-0.9, 0.7, -0.5, 0.3, -0.1], [0.1, -0.3, 0.5, -0.7, 0.9]])),
        [[-0.09, 0.7, -0.05, 0.3, -0.01], [0.1, -0.03, 0.5, -0.07, 0.9]],
    )


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float32, np.float64])
def test_leaky_relu_numbers(dtype):
    x = np.array(NUMBERS).astype(dtype)
    check(lambda v: np_leaky_relu(v, 0.2), lambda v: nn.leaky_relu(v, 0.2), x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_leaky_relu_nan_propagation(dtype):
    x = np.array([-1, np.nan, 1, np.nan]).astype(dtype)
    check(lambda v: np_leaky_relu(v, 0.2), lambda v: nn.leaky_relu(v, 0.2), x)


@pytest.mark.parametrize("dtype,bound", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_leaky_relu_gradient_and_grad_grad(dtype, bound):
    x = np.asarray(GRAD_X, dtype=dtype, order="F")
    assert max_error(nn.leaky_relu, [x]) < bound
    assert max_error(grad_of(nn.leaky_relu), [x]) < bound


def test_leaky_relu_gradient_scalar():
    """testGradientScalar: one SGD step (learning rate 0.2) on leaky_relu(x, 0.05) ** 2."""
    x = np.array(-100.0, np.float32)
    with GradientTape() as tape:
        loss = math.square(nn.leaky_relu(x, 0.05))
    np.testing.assert_allclose(x - 0.2 * tape.gradient(loss, x), -99.9, rtol=1e-6)


def test_leaky_relu_unexpected_alpha_value():
    x = np.array([[-0.9, 0.7, -0.5, 0.3, -0.01], [0.1, -0.3, 0.5, -2.7, 0.9]])
    np.testing.assert_allclose(
        nn.leaky_relu(x, alpha=10), [[-9.0, 0.7, -5.0, 0.3, -0.1], [0.1, -3.0, 0.5, -27.0, 0.9]]
    )
    np.testing.assert_allclose(
        nn.leaky_relu(x, alpha=-10), [[9.0, 0.7, 5.0, 0.3, 0.1], [0.1, 3.0, 0.5, 27.0, 0.9]]
    )


# --- Elu -----------------------------------------------------------------------------------------


def test_np_elu():
    np.testing.assert_allclose(
        np_elu(np.array([[-0.9, 0.7, -0.5, 0.3, -0.1], [0.1, -0.3, 0.5, -0.7, 0.9]])),
        [
            [-0.59343034025, 0.7, -0.39346934028, 0.3, -0.09516258196],
            [0.1, -0.25918177931, 0.5, -0.5034146962, 0.9],
        ],
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_elu_numbers_and_nan(dtype):
    check(np_elu, nn.elu, np.array(NUMBERS).astype(dtype))
    check(np_elu, nn.elu, np.array([-1, np.nan, 1, np.nan]).astype(dtype))


@pytest.mark.parametrize("dtype,bound", [(np.float32, 1e-4), (np.float64, 1e-6)])
def test_elu_gradient_and_grad_grad(dtype, bound):
    x = np.asarray(GRAD_X, dtype=dtype, order="F")
    assert max_error(nn.elu, [x]) < bound
    assert max_error(grad_of(nn.elu), [x]) < bound


@pytest.mark.parametrize("x", [-1.0, -0.5, 0.5, 1.0])
def test_elu_grad_grad_persistent(x):
    """testGradGrad: a persistent tape differentiates its own gradient."""
    x = np.array(x, np.float32)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = nn.elu(x)
        dy = tape.gradient(y, x)
    got = tape.gradient(dy, x)
    want = np.exp(x) if x < 0 else 0.0
    assert abs(got - want) < 1e-4


# --- BiasAdd of integers -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_bias_add_int_types(dtype):
    """testIntTypes, both layouts."""
    inputs = np.array([[10, 20, 30], [40, 50, 60]]).astype(dtype)
    bias = np.array([1, 2, 3]).astype(dtype)
    expected = inputs + bias
    out = nn.bias_add(inputs, bias)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, expected)
    nchw = np.transpose(inputs.reshape(1, 2, 3), [0, 2, 1])  # _NHWCToNCHW of the 3-D form
    out = nn.bias_add(nchw, bias, data_format="NCHW")
    np.testing.assert_array_equal(np.transpose(out, [0, 2, 1]), expected.reshape(1, 2, 3))


# --- Gelu ----------------------------------------------------------------------------------------


def np_gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * np.power(x, 3))))
    erf = np.vectorize(pymath.erf)
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gelu(dtype, approximate):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(dtype)
    y = nn.gelu(x, approximate=approximate)
    assert y.dtype == dtype
    assert_all_close_according_to_type(np_gelu(x.astype(np.float64), approximate), y)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_gradients(approximate):
    x = np.random.default_rng(1).standard_normal((2, 3))

    def fn(v):
        return nn.gelu(v, approximate=approximate)

    assert max_error(fn, [x], 1e-5) < 1e-8
    assert max_error(grad_of(fn), [x], 1e-5) < 1e-8


def test_gelu_refuses_integers():
    with pytest.raises(ValueError, match="must be a floating point tensor"):
        nn.gelu(np.array([1, 2], np.int32))
