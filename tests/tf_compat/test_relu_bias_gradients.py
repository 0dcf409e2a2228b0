"""The gradient cases of tensorflow/python/kernel_tests/nn_ops/relu_op_test.py (ReluTest) and
tensorflow/python/kernel_tests/nn_ops/bias_op_base.py (BiasAddTestBase), on the CPU: first
derivatives, and second derivatives through nested tapes (testGradGrad*, and the gradient of
BiasAddGrad).

Adapted: bfloat16 is ml_dtypes' type (skipped where it is not installed); `use_gpu` variants
run once; the graph-mode branch of _computeGradient (gradient_checker v1, l2_loss) is replaced
by its eager branch, which upstream runs too; `x * upstream` is swigflow.math.multiply (numpy's
`*` is not recorded). The Relu6, LeakyRelu and Elu classes are in test_activations.py.
"""

import numpy as np
import pytest

import swigflow
from swigflow import math, nn
from swigflow.ops import GradientTape

RELU_X = [[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]]


def max_error(fn, inputs, delta=1e-3):
    """gradient_checker_v2.max_error(*compute_gradient(fn, inputs, delta))."""
    return swigflow.test.compute_gradient_error(fn, inputs, delta)


# --- ReluTest ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype,delta,bound",
    [(np.float32, 1.0 / 1024, 1e-6), (np.float16, 1e-3, 1e-6), (np.float64, 1.0 / 1024, 1e-15)],
)
def test_relu_gradient(dtype, delta, bound):
    """testGradientFloat32, testGradientFloat16, testGradientFloat64."""
    x = np.asarray(RELU_X, dtype=dtype, order="F")
    assert max_error(nn.relu, [x], delta) < bound


def relu_grad_of(x):
    assert x.dtype in (np.float32, np.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = nn.relu(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("dtype,bound", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_relu_grad_grad(dtype, bound):
    """testGradGradFloat32, testGradGradFloat64."""
    x = np.asarray(RELU_X, dtype=dtype, order="F")
    assert max_error(relu_grad_of, [x], 1.0 / 1024) < bound


def test_relu_gradient_scalar():
    """testGradientScalar: one step of gradient descent (learning rate 0.25) on relu(x)**2."""
    x = np.array(100.0, np.float32)
    with GradientTape() as tape:
        loss = math.square(nn.relu(x))
    x = x - 0.25 * tape.gradient(loss, x)
    np.testing.assert_allclose(x, 50.0)


def test_relu_gradient_no_element():
    x = np.asarray([[], []], dtype=np.float32)
    theoretical, _ = swigflow.test.compute_gradient(relu_grad_of, [x])
    np.testing.assert_array_equal(theoretical[0], np.reshape(x, (0, 0)))


# --- BiasAddTestBase -----------------------------------------------------------------------------


def nhwc_to_nchw(value):
    if value.ndim < 3:
        value = np.reshape(value, (1,) * (3 - value.ndim) + value.shape)
    dims = list(range(value.ndim))
    return np.transpose(value, dims[0:1] + dims[-1:] + dims[1:-1])


def compute_gradient(np_input, bias, dtype, data_format, rng):
    """_computeGradient's eager branch: the Jacobians by the input, by the bias, and of
    BiasAddGrad (the gradient by the bias of bias_add(input, bias) * upstream)."""
    input_tensor = np.asarray(np_input, dtype=dtype)
    bias_tensor = np.asarray(bias, dtype=dtype)

    def bias_add(x, b):
        return nn.bias_add(x, b, data_format=data_format)

    input_jacob = swigflow.test.compute_gradient(lambda x: bias_add(x, bias_tensor), [input_tensor])
    bias_jacob = swigflow.test.compute_gradient(lambda b: bias_add(input_tensor, b), [bias_tensor])

    def bias_add_grad_function(upstream_gradients):
        with GradientTape() as tape:
            tape.watch(bias_tensor)
            output = math.multiply(bias_add(input_tensor, bias_tensor), upstream_gradients)
            return tape.gradient(output, bias_tensor)

    upstream = (2 * rng.random(input_tensor.shape) - 1).astype(dtype)
    grad_jacob = swigflow.test.compute_gradient(bias_add_grad_function, [upstream])
    return [(t[0], n[0]) for t, n in (input_jacob, bias_jacob, grad_jacob)]


def check_gradient(np_input, bias, dtype, data_format):
    """_testGradient."""
    rng = np.random.default_rng(0)
    if data_format == "NCHW":
        np_input = nhwc_to_nchw(np_input)
    jacobians = compute_gradient(np_input, bias, dtype, data_format, rng)
    if dtype in (np.float16, BFLOAT16):
        # fp16/bf16 analytical gradients against fp32 numerical ones, as upstream.
        numerical32 = compute_gradient(np_input, bias, np.float32, data_format, rng)
        jacobians = [(a, n) for (a, _), (_, n) in zip(jacobians, numerical32)]
    if dtype == np.float64:
        threshold = 1e-10
    elif np.size(np_input) >= 512:
        threshold = 5e-2
    else:
        threshold = 5e-3
    for analytical, numerical in jacobians:
        np.testing.assert_allclose(analytical, numerical, rtol=threshold, atol=threshold)


try:  # ml_dtypes' bfloat16 (TensorFlow's numpy type for it), installed with the test tools
    import ml_dtypes

    BFLOAT16 = ml_dtypes.bfloat16
except ImportError:
    BFLOAT16 = None
DTYPES = [np.float16, np.float32, np.float64] + ([BFLOAT16] if BFLOAT16 is not None else [])


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_tensor_2d(dtype):
    np_input = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=dtype).reshape(3, 2)
    check_gradient(np_input, np.array([1.3, 2.4], dtype=dtype), dtype, "NHWC")


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_tensor_3d(dtype, data_format):
    np_input = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=dtype).reshape(1, 3, 2)
    check_gradient(np_input, np.array([1.3, 2.4], dtype=dtype), dtype, data_format)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_tensor_4d(dtype):
    bias = np.array([1.3, 2.4], dtype=dtype)
    np_input = np.arange(1.0, 49.0, dtype=dtype).reshape([2, 3, 4, 2]).astype(np.float32)
    check_gradient(np_input, bias, dtype, "NHWC")
    np_input = np.arange(1.0, 513.0, dtype=dtype).reshape([64, 2, 2, 2]).astype(np.float32)
    check_gradient(np_input, bias, dtype, "NHWC")
    np_input = np.arange(1.0, 513.0, dtype=dtype).reshape([2, 2, 2, 64]).astype(np.float32)
    rng = np.random.default_rng(1)
    check_gradient(np_input, rng.random(64).astype(dtype), dtype, "NHWC")


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_gradient_tensor_5d(dtype, data_format):
    np_input = np.arange(1.0, 49.0, dtype=dtype).reshape([1, 2, 3, 4, 2]).astype(np.float32)
    check_gradient(np_input, np.array([1.3, 2.4], dtype=dtype), dtype, data_format)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_bias_1x1_image(data_format):
    np_input = np.arange(1.0, 129.0).reshape([4, 1, 1, 32]).astype(np.float32)
    bias = np.random.default_rng(2).random(32).astype(np.float32)
    check_gradient(np_input, bias, np.float32, data_format)


@pytest.mark.parametrize(
    "shape,data_format",
    [((0, 0), "NHWC"), ((2, 0), "NHWC"), ((0, 2), "NHWC")]
    + [(s, f) for s in ((4, 3, 0), (4, 0, 3), (0, 4, 3)) for f in ("NHWC", "NCHW")],
)
def test_bias_empty_gradient(shape, data_format):
    rng = np.random.default_rng(7)
    check_gradient(rng.standard_normal(shape), rng.standard_normal(shape[-1]), np.float64,
                   data_format)  # fmt: skip
