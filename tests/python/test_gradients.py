"""GradientTape as TensorFlow's: nested and persistent tapes, stop_recording, reset,
watch_accessed_variables, jacobian, and a second-order check of every differentiable op
(the gradient of its gradient against float64 central differences of the first gradient)."""

import numpy as np
import pytest

import swigflow
from swigflow import errors, linalg, math, nn, ops
from swigflow.ops import gen_nn_ops

RNG = np.random.default_rng(5)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def distinct(*shape):
    """Values at least 0.1 apart (no ties for max and max_pool within a finite-difference
    step)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 - n * 0.05 + 0.025).reshape(shape)


def first_gradient(fn, index, upstream):
    """x_index -> d sum(fn(*args) * upstream) / d x_index, the other args held: computed with an
    inner tape, so an outer tape records how."""

    def g(*args):
        with ops.GradientTape() as tape:
            tape.watch(args[index])
            y = fn(*args)
        return tape.gradient(y, args[index], output_gradients=upstream)

    return g


# --- tape semantics ------------------------------------------------------------------------------


def test_nested_tapes_give_the_second_derivative():
    x = np.array([0.5, 1.5, -2.0])
    with ops.GradientTape() as outer:
        with ops.GradientTape() as inner:
            y = math.multiply(math.square(x), x)  # x**3
        dy = inner.gradient(y, x)  # 3 x**2
    d2y = outer.gradient(dy, x)  # 6 x
    np.testing.assert_allclose(dy, 3 * x**2)
    np.testing.assert_allclose(d2y, 6 * x)


def test_the_gradient_returned_is_the_recorded_output_not_a_view():
    x = rand(2, 3)
    with ops.GradientTape() as outer:
        with ops.GradientTape() as inner:
            y = nn.relu(x)
        dx = inner.gradient(y, x)
    second = outer.gradient(dx, x)
    assert second is not None  # connected: a view would have given None (or raised)
    np.testing.assert_array_equal(second, np.zeros_like(x))  # relu is piecewise linear


def test_a_persistent_tape_computes_several_gradients_and_its_own_second_order():
    x = np.array([1.0, 2.0])
    with ops.GradientTape(persistent=True) as tape:
        y = math.exp(x)
        z = math.square(y)
        dz = tape.gradient(z, x)  # inside its context: recorded on itself
    np.testing.assert_allclose(tape.gradient(y, x), np.exp(x))
    np.testing.assert_allclose(dz, 2 * np.exp(2 * x))
    np.testing.assert_allclose(tape.gradient(dz, x), 4 * np.exp(2 * x))


def test_a_non_persistent_tape_computes_one_set_of_gradients():
    x = rand(3)
    with ops.GradientTape() as tape:
        y = math.square(x)
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.jacobian(y, x)


def test_a_non_persistent_tape_stops_recording_at_its_gradient():
    x = rand(3)
    with ops.GradientTape() as tape:
        y = math.square(x)
        tape.gradient(y, x)
        assert not ops.is_recording()


def test_stop_recording():
    x = np.array(4.0)
    with ops.GradientTape() as tape:
        with tape.stop_recording():
            y = math.square(x)
            assert not ops.is_recording()
        z = math.square(x)
    assert tape.gradient([y, z], x) == 8.0  # only z was recorded
    with pytest.raises(RuntimeError, match="not recording"), tape.stop_recording():
        pass


def test_reentering_a_recording_tape_raises():
    tape = ops.GradientTape()
    with tape, pytest.raises(ValueError, match="Tape is still recording"):
        tape.__enter__()


def test_reset_forgets_what_was_recorded():
    x = np.array(3.0)
    with ops.GradientTape() as tape:
        loss = math.square(x)
        tape.reset()
        other = math.multiply(x, np.array(5.0))
    assert tape.gradient(loss, x) is None
    with ops.GradientTape() as tape:
        loss = math.square(x)
        tape.reset()
        other = math.multiply(x, np.array(5.0))
    assert tape.gradient(other, x) == 5.0


def test_watch_accessed_variables_false_differentiates_watched_arrays_only():
    a, b = rand(3), rand(3)
    with ops.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        tape.watch(a)
        h = math.multiply(a, b)
        y = math.reduce_sum(h)
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga, b)
    assert gb is None
    np.testing.assert_array_equal(tape.gradient(y, h), np.ones(3))  # computed from a watched one
    assert tape.watched_variables() == (a,)
    with ops.GradientTape() as tape:  # the default: every array an op receives
        y = math.reduce_sum(math.multiply(a, b))
    np.testing.assert_allclose(tape.gradient(y, b), a)


def test_targets_and_sources_as_nests():
    a, b = rand(2), rand(2)
    with ops.GradientTape() as tape:
        y1 = math.multiply(a, b)
        y2 = math.square(a)
    grads = tape.gradient({"p": y1, "q": [y2]}, {"a": a, "rest": (b,)})
    np.testing.assert_allclose(grads["a"], b + 2 * a)
    np.testing.assert_allclose(grads["rest"][0], a)
    with pytest.raises(TypeError, match="received None"):
        ops.GradientTape().gradient(None, a)


def test_jacobian():
    x = np.array([1.0, 2.0, 3.0])
    with ops.GradientTape() as tape:
        y = math.multiply(math.square(x), np.array([1.0, 10.0, 100.0]))
    jac = tape.jacobian(y, x)
    np.testing.assert_allclose(jac, np.diag([2.0, 40.0, 600.0]))


def test_numpy_arithmetic_on_a_gradient_is_not_connected():
    """A target the tape never saw gives None (TF's default), never zeros unasked."""
    x = rand(3)
    with ops.GradientTape() as outer:
        with ops.GradientTape() as inner:
            y = math.square(x)
        dx = inner.gradient(y, x)
        scaled = dx * 2.0  # numpy: not recorded
    assert outer.gradient(scaled, x) is None


def test_gradients_add_up_through_recorded_ops():
    """x used twice: its gradient is a sum, computed by a recorded AddN, so an enclosing tape
    differentiates it (d/dx of d/dx (x * x + x ** 2) = 4)."""
    x = np.array([1.5])
    with ops.GradientTape() as outer:
        with ops.GradientTape() as inner:
            y = math.add(math.multiply(x, x), math.square(x))
        dx = inner.gradient(y, x)
    np.testing.assert_allclose(dx, 4 * x)
    np.testing.assert_allclose(outer.gradient(dx, x), [4.0])


def test_custom_gradient_functions_are_recorded_by_an_enclosing_tape():
    @ops.custom_gradient
    def cube(x):
        return math.multiply(math.square(x), x), lambda dy: math.multiply(
            dy, math.multiply(np.array(3.0), math.square(x))
        )

    x = np.array([2.0])
    with ops.GradientTape() as outer:
        with ops.GradientTape() as inner:
            y = cube(x)
        dx = inner.gradient(y, x)
    np.testing.assert_allclose(dx, [12.0])
    np.testing.assert_allclose(outer.gradient(dx, x), [12.0])  # d(3x^2)/dx = 6x


def test_matmul_is_recorded_with_tensorflows_gradients():
    a, b = rand(2, 3, 4), rand(4, 5)  # b broadcast over the batch
    for ta, tb in [(False, False), (True, False), (False, True), (True, True)]:
        x = np.swapaxes(a, -1, -2).copy() if ta else a
        y = b.T.copy() if tb else b
        assert (
            swigflow.test.compute_gradient_error(
                lambda p, q, ta=ta, tb=tb: linalg.matmul(p, q, ta, tb), [x, y]
            )
            < 1e-8
        )
    m, n = rand(3, 4), rand(4, 2)
    assert swigflow.test.compute_gradient_error(linalg.matmul, [m, n]) < 1e-8


# --- every differentiable op, twice -------------------------------------------------------------

_CONV = {"strides": [1, 2, 1, 1], "padding": "SAME"}
_POOL = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}


_POOL_X = distinct(1, 4, 4, 2)
_POOL_Y = gen_nn_ops.max_pool(_POOL_X, **_POOL)


# name -> (function of float inputs, the float inputs). Inputs avoid kinks (relu at 0, ties).
CASES = {
    "MatMul": (lambda a, b: gen_nn_ops.mat_mul(a, b), [rand(2, 3), rand(3, 4)]),
    "BatchMatMulV2": (linalg.matmul, [rand(2, 2, 3), rand(3, 2)]),
    "Conv2D": (lambda x, w: gen_nn_ops.conv2d(x, w, **_CONV), [rand(1, 4, 3, 2), rand(2, 2, 2, 3)]),
    "Conv2DBackpropInput": (
        lambda w, dy: gen_nn_ops.conv2d_backprop_input(
            np.array([1, 4, 3, 2], np.int32), w, dy, **_CONV
        ),
        [rand(2, 2, 2, 3), rand(1, 2, 3, 3)],
    ),
    "Conv2DBackpropFilter": (
        lambda x, dy: gen_nn_ops.conv2d_backprop_filter(
            x, np.array([2, 2, 2, 3], np.int32), dy, **_CONV
        ),
        [rand(1, 4, 3, 2), rand(1, 2, 3, 3)],
    ),
    "MaxPool": (lambda x: gen_nn_ops.max_pool(x, **_POOL), [distinct(1, 4, 4, 2)]),
    "MaxPoolGrad": (
        lambda g: gen_nn_ops.max_pool_grad(_POOL_X, _POOL_Y, g, **_POOL),
        [rand(1, 2, 2, 2)],
    ),
    "MaxPoolGradGrad": (
        lambda g: gen_nn_ops.max_pool_grad_grad(_POOL_X, _POOL_Y, g, **_POOL),
        [rand(1, 4, 4, 2)],
    ),
    "AvgPool": (lambda x: gen_nn_ops.avg_pool(x, **_POOL), [rand(1, 4, 4, 2)]),
    "AvgPoolGrad": (
        lambda g: gen_nn_ops.avg_pool_grad(np.array([1, 4, 4, 2], np.int32), g, **_POOL),
        [rand(1, 2, 2, 2)],
    ),
    "BiasAdd": (gen_nn_ops.bias_add, [rand(2, 3, 4), rand(4)]),
    "BiasAddGrad": (gen_nn_ops.bias_add_grad, [rand(2, 3, 4)]),
    "Relu": (gen_nn_ops.relu, [distinct(3, 4)]),
    "ReluGrad": (gen_nn_ops.relu_grad, [rand(3, 4), distinct(3, 4)]),
    "Relu6": (gen_nn_ops.relu6, [distinct(3, 4) * 20]),  # -6..6: both kinks, avoided
    "Relu6Grad": (gen_nn_ops.relu6_grad, [rand(3, 4), distinct(3, 4) * 20]),
    "LeakyRelu": (lambda x: gen_nn_ops.leaky_relu(x, alpha=0.3), [distinct(3, 4)]),
    "LeakyReluGrad": (
        lambda g, x: gen_nn_ops.leaky_relu_grad(g, x, alpha=0.3),
        [rand(3, 4), distinct(3, 4)],
    ),
    "Elu": (gen_nn_ops.elu, [distinct(3, 4)]),
    "EluGrad": (gen_nn_ops.elu_grad, [rand(3, 4), distinct(3, 4)]),
    "Sigmoid": (gen_nn_ops.sigmoid, [rand(3, 4)]),
    "SigmoidGrad": (gen_nn_ops.sigmoid_grad, [rand(3, 4), rand(3, 4)]),
    "Tanh": (gen_nn_ops.tanh, [rand(3, 4)]),
    "TanhGrad": (gen_nn_ops.tanh_grad, [rand(3, 4), rand(3, 4)]),
    "Erf": (gen_nn_ops.erf, [rand(3, 4)]),
    "Erfc": (gen_nn_ops.erfc, [rand(3, 4)]),
    "Pow": (math.pow, [np.abs(rand(2, 3)) + 0.5, rand(3)]),
    "Gelu": (nn.gelu, [rand(3, 4)]),
    "GeluApproximate": (lambda x: nn.gelu(x, approximate=True), [rand(3, 4)]),
    "Softmax": (gen_nn_ops.softmax, [rand(3, 5)]),
    "LogSoftmax": (gen_nn_ops.log_softmax, [rand(3, 5)]),
    "SoftmaxCrossEntropyWithLogits": (
        # Labels are distributions (rows summing to 1): the op's gradient assumes so, as TF's.
        lambda logits, labels: nn.softmax_cross_entropy_with_logits(
            math.divide(labels, math.reduce_sum(labels, axis=1, keepdims=True)), logits
        ),
        [rand(3, 4), np.abs(rand(3, 4)) + 0.1],
    ),
    "SparseSoftmaxCrossEntropyWithLogits": (
        lambda logits: nn.sparse_softmax_cross_entropy_with_logits(np.array([0, 3, 1]), logits),
        [rand(3, 4)],
    ),
    "AddV2": (math.add, [rand(2, 3), rand(3)]),
    "Sub": (math.subtract, [rand(2, 1), rand(2, 3)]),
    "Mul": (math.multiply, [rand(2, 3), rand(1, 3)]),
    "RealDiv": (math.divide, [rand(2, 3), rand(3) + 3.0]),
    "Neg": (math.negative, [rand(4)]),
    "Square": (math.square, [rand(4)]),
    "Sqrt": (math.sqrt, [np.abs(rand(4)) + 0.5]),
    "Exp": (math.exp, [rand(4)]),
    "Log": (math.log, [np.abs(rand(4)) + 0.5]),
    "Reciprocal": (math.reciprocal, [np.abs(rand(4)) + 0.5]),
    "SqrtGrad": (lambda x: math.sqrt(math.square(math.sqrt(x))), [np.abs(rand(4)) + 0.5]),
    "Maximum": (math.maximum, [distinct(2, 3), distinct(2, 3) + 0.05]),
    "Minimum": (math.minimum, [distinct(2, 3), distinct(2, 3) + 0.05]),
    "AddN": (lambda a, b: math.add_n([a, b]), [rand(3), rand(3)]),
    "SelectV2": (
        lambda a, b: math.where(np.array([True, False, True]), a, b),
        [rand(2, 3), rand(3)],
    ),
    "BroadcastTo": (lambda x: math.broadcast_to(x, [2, 3]), [rand(3)]),
    "Sum": (lambda x: math.reduce_sum(x, axis=1), [rand(2, 3)]),
    "Mean": (lambda x: math.reduce_mean(x, axis=[0], keepdims=True), [rand(2, 3)]),
    "Max": (lambda x: math.reduce_max(x, axis=-1), [distinct(2, 3)]),
    "Min": (lambda x: math.reduce_min(x, axis=[0, 2]), [distinct(2, 3, 2)]),
    "Prod": (lambda x: math.reduce_prod(x, axis=[0, 2]), [rand(2, 3, 2)]),
    "ProdWithZero": (  # the running products' path: no division by the zero
        lambda x: math.reduce_prod(math.multiply(x, np.array([1.0, 0.0, 1.0])), axis=-1),
        [rand(2, 3)],
    ),
    "EuclideanNorm": (lambda x: math.reduce_euclidean_norm(x, axis=1), [rand(2, 3)]),
    "DivNoNan": (math.divide_no_nan, [rand(2, 3), rand(3) + 3.0]),
    "FloorMod": (math.floormod, [rand(2, 3) * 3, np.abs(rand(3)) + 0.7]),
    "Atan2": (math.atan2, [rand(2, 3), rand(3) + 3.0]),
    "Sin": (math.sin, [rand(4)]),
    "Cos": (math.cos, [rand(4)]),
    "Tan": (math.tan, [rand(4) * 0.5]),
    "Asin": (math.asin, [rand(4) * 0.3]),
    "Acos": (math.acos, [rand(4) * 0.3]),
    "Atan": (math.atan, [rand(4)]),
    "Sinh": (math.sinh, [rand(4)]),
    "Cosh": (math.cosh, [rand(4)]),
    "Asinh": (math.asinh, [rand(4)]),
    "Acosh": (math.acosh, [np.abs(rand(4)) + 1.5]),
    "Atanh": (math.atanh, [rand(4) * 0.3]),
    "Expm1": (math.expm1, [rand(4)]),
    "Log1p": (math.log1p, [np.abs(rand(4))]),
    "Rsqrt": (math.rsqrt, [np.abs(rand(4)) + 0.5]),
    "Softplus": (math.softplus, [rand(4)]),
    "LogSigmoid": (math.log_sigmoid, [rand(4)]),
    "Abs": (lambda x: math.multiply(math.abs(x), x), [distinct(3, 4)]),
    "Sign": (lambda x: math.multiply(math.sign(x), math.square(x)), [distinct(3, 4)]),
    "Pack": (lambda a, b: math.square(math.stack([a, b], axis=1)), [rand(2, 3), rand(2, 3)]),
    "Unpack": (lambda x: math.multiply(*math.unstack(x, axis=-1)), [rand(3, 2)]),
    "Complex": (
        lambda a, b: math.real(math.multiply(math.complex(a, b), math.complex(b, a))),
        [rand(2, 3), rand(3)],
    ),
    "Imag": (lambda a, b: math.imag(math.square(math.complex(a, b))), [rand(3), rand(3)]),
    "Angle": (lambda a, b: math.angle(math.complex(a, b)), [rand(3), np.abs(rand(3)) + 0.5]),
    "Polyval": (lambda c, x: math.polyval([c, x, c], x), [rand(3), rand(3)]),
    "Cumsum": (lambda x: math.cumsum(x, axis=1, exclusive=True), [rand(2, 3)]),
    "Cumprod": (lambda x: math.cumprod(x, axis=-1, reverse=True), [np.abs(rand(2, 3)) + 0.5]),
    "Reshape": (lambda x: math.reshape(x, [3, 2]), [rand(2, 3)]),
    "Transpose": (lambda x: math.transpose(x, [1, 0, 2]), [rand(2, 3, 2)]),
    "Cast": (lambda x: math.cast(x, np.float32), [rand(3)]),
}

# Integers only, or quantized: nothing to differentiate.
NOT_DIFFERENTIABLE = {
    "OneHot",
    "ArgMax",
    "Equal",
    "QuantizeV2",
    "Dequantize",
    "Requantize",
    "RequantizationRange",
    "QuantizedMatMul",
    "QuantizedConv2D",
    "QuantizedMatMulWithBiasAndReluAndRequantize",
    "QuantizedConv2DWithBiasAndReluAndRequantize",
    "SwigflowInt8PackWeights",
    "SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize",
    "SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize",
}


def test_every_registered_op_has_a_second_order_case():
    registered = {op["name"] for op in ops.list_ops()}
    missing = registered - set(CASES) - NOT_DIFFERENTIABLE
    assert not missing, f"add a second-order case for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_order_gradients(name):
    fn, inputs = CASES[name]
    # float64 central differences with a 1e-5 step: truncation ~1e-10, rounding ~1e-11.
    # Cast's float32 output rounds at ~6e-8: a 1e-3 step keeps that error near 1e-4.
    delta, tolerance = (1e-3, 1e-3) if name == "Cast" else (1e-5, 1e-8)
    assert swigflow.test.compute_gradient_error(fn, inputs, delta=delta) < tolerance
    upstream = RNG.standard_normal(np.shape(fn(*inputs)))
    if name == "Cast":
        upstream = upstream.astype(np.float32)
    for i in range(len(inputs)):
        g = first_gradient(fn, i, upstream)
        error = swigflow.test.compute_gradient_error(g, inputs, delta=delta)
        assert error < tolerance, f"second order, input {i}: {error}"


def test_the_second_derivative_of_a_kink_is_zero_not_an_error():
    """Relu and max_pool are piecewise linear: their second derivatives are zeros, reached
    through ReluGrad's and MaxPoolGrad's own gradients (as TF's ReluTest.testGradGrad*)."""
    x = distinct(2, 4, 4, 1)
    with ops.GradientTape() as outer:
        outer.watch(x)
        with ops.GradientTape() as inner:
            y = gen_nn_ops.max_pool(nn.relu(x), **_POOL)
        dx = inner.gradient(y, x)
    np.testing.assert_array_equal(outer.gradient(dx, x), np.zeros_like(x))


def test_dtype_mismatch_is_refused_as_tensorflow_refuses_it():
    with pytest.raises(errors.InvalidArgumentError, match="cannot compute AddV2"):
        math.add(np.ones(2, np.float32), np.ones(2, np.float64))


def test_gradient_functions_are_told_which_inputs_no_source_needs():
    """op.skip_input_indices, as TensorFlow's: an input no requested source lies behind (a
    first layer's input) has its gradient left out; a numpy view never is (the tape must see
    it to refuse it)."""
    seen = []

    @ops.RegisterGradient("SwigflowTestSkipProbe")
    def _probe_grad(op, grad):
        seen.append(op.skip_input_indices)
        return [grad, grad]

    def probe(a, b):
        out = np.asarray(a + b)
        ops.record_operation("SwigflowTestSkipProbe", [out], [a, b])
        return out

    a, b = rand(3), rand(3)
    with ops.GradientTape(persistent=True) as tape:
        y = probe(a, b)
    tape.gradient(y, a)
    tape.gradient(y, [a, b])
    assert seen == [(1,), ()]
    base = rand(6)
    with ops.GradientTape() as tape:
        y = probe(a, base[:3])  # a view of an array the caller owns: not skipped
    tape.gradient(y, a)
    assert seen[-1] == ()
    x, w = rand(1, 4, 4, 2), rand(3, 3, 2, 2)
    with ops.GradientTape() as tape:
        y = gen_nn_ops.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    (dw,) = tape.gradient(y, [w])  # Conv2D's gradient leaves the input's backprop out
    assert dw.shape == w.shape
