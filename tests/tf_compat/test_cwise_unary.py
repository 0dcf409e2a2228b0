"""tensorflow/python/kernel_tests/math_ops/cwise_ops_unary_test.py: UnaryOpTest, for the
functions swigflow.math has (abs, negative, reciprocal, square, sqrt, rsqrt, exp, expm1, log,
log1p, the trigonometric and hyperbolic functions and their inverses, sigmoid, log_sigmoid,
sign, erf and erfc).

Not translated: lgamma, round and the Bessel functions (not in swigflow.math); the SparseTensor
variants (_compareBothSparse: swigflow's math takes arrays); the cases written with Python's
operators (``-x``, ``abs(x)``: numpy's on numpy arrays); testGradGrad's ReciprocalGrad, RsqrtGrad
and SqrtGrad (swigflow writes those gradients with its ops, so they have no op of their own; the
SigmoidGrad and TanhGrad cases are here); testComplexAbsGradGrad (tf.complex); the GPU variants.
Gradients are checked on the real dtypes only (swigflow.test.compute_gradient differences real
inputs; complex gradients are checked against TensorFlow's values in
tests/testdata/make_tf_math.py).
"""

import math

import ml_dtypes
import numpy as np
import pytest

import swigflow as sf
from swigflow import math as sfm
from swigflow.ops import gen_nn_ops
from swigflow.test import compute_gradient

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
TOLERANCE = {np.float16: 5e-3, BFLOAT16.type: 5e-3, np.float32: 1e-3, np.float64: 1e-5}
ERF = np.vectorize(math.erf)
ERFC = np.vectorize(math.erfc)


def _inv(x):
    return 1.0 / x


def _rsqrt(x):
    return _inv(np.sqrt(x))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _log_sigmoid(x):
    return np.log(_sigmoid(x))


def _compare(x, np_func, tf_func, grad_tol=None):
    """UnaryOpTest._compareCpu: the value (float16 and bfloat16 to 1e-3 and 1e-2), the shape,
    then the tape's Jacobian against central differences (float16 and bfloat16 against float64
    ones with a step of 1e-2, rounded to the dtype)."""
    with np.errstate(all="ignore"):
        expected = np_func(x)
    got = tf_func(x)
    assert got.shape == np.shape(expected)
    close = {np.float16: 1e-3, BFLOAT16.type: 1e-2}.get(x.dtype.type, 1e-6)
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(
        got.astype(wide), np.asarray(expected).astype(wide), rtol=close, atol=close
    )
    if x.dtype.type not in TOLERANCE or tf_func is sfm.sign:
        return
    tolerance = TOLERANCE[x.dtype.type] if grad_tol is None else grad_tol
    if x.dtype.type in (np.float16, BFLOAT16.type):
        theoretical, _ = compute_gradient(tf_func, [x])
        _, numerical = compute_gradient(tf_func, [x.astype(np.float64)], delta=1e-2)
        numerical = [n.astype(x.dtype).astype(np.float64) for n in numerical]
    else:
        delta = 1e-3 if x.dtype == np.float32 else 1e-5
        theoretical, numerical = compute_gradient(tf_func, [x], delta=delta)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=tolerance, atol=tolerance)


def _inputs(dtype, k_step=0.25, w_offset=1.02):
    x = np.arange(-3, 3).reshape(1, 3, 2).astype(dtype)
    w = (x - x.min() + w_offset).astype(dtype)  # all greater than 1
    y = (x + 0.5).astype(dtype)  # no zero
    z = (x + 15.5).astype(dtype)  # all positive
    k = np.arange(-0.90, 0.90, k_step).astype(dtype)  # between -1 and 1
    return x, w, y, z, k


def _float_cases(x, w, y, z, k):
    return [
        (x, np.abs, sfm.abs), (x, np.negative, sfm.negative), (y, _inv, sfm.reciprocal),
        (x, np.square, sfm.square), (z, np.sqrt, sfm.sqrt), (z, _rsqrt, sfm.rsqrt),
        (x, np.exp, sfm.exp), (x, np.expm1, sfm.expm1), (z, np.log, sfm.log),
        (z, np.log1p, sfm.log1p), (x, np.sinh, sfm.sinh), (x, np.cosh, sfm.cosh),
        (x, np.tanh, sfm.tanh), (x, np.arcsinh, sfm.asinh), (w, np.arccosh, sfm.acosh),
        (k, np.arctanh, sfm.atanh), (x, _sigmoid, sfm.sigmoid), (y, np.sign, sfm.sign),
        (x, np.sin, sfm.sin), (x, np.cos, sfm.cos), (k, np.arcsin, sfm.asin),
        (k, np.arccos, sfm.acos), (x, np.arctan, sfm.atan), (x, ERF, sfm.erf), (x, ERFC, sfm.erfc),
    ]  # fmt: skip


def test_float_basic():
    """testFloatBasic (with log_sigmoid and tan)."""
    x, w, y, z, k = _inputs(np.float32)
    for args in _float_cases(x, w, y, z, k):
        _compare(*args)
    _compare(x, _log_sigmoid, sfm.log_sigmoid)
    _compare(x, np.tan, sfm.tan)


def test_float_tanh_edge():
    """testFloatTanhEdge: saturated tanh."""
    _compare(np.arange(40, 46).astype(np.float32), np.tanh, sfm.tanh)
    _compare(np.arange(-40, -34).astype(np.float32), np.tanh, sfm.tanh)


def test_float_empty():
    """testFloatEmpty: every function on a (2, 0, 5) array."""
    x = np.empty((2, 0, 5), dtype=np.float32)
    for _, np_func, tf_func in _float_cases(x, x, x, x, x):
        # erf and erfc have no numpy function to vectorize over nothing: np.sign stands in.
        _compare(x, np.sign if tf_func in (sfm.erf, sfm.erfc) else np_func, tf_func)
    _compare(x, np.tan, sfm.tan)


def test_double_basic():
    """testDoubleBasic."""
    x, w, y, z, _ = _inputs(np.float64)
    k = np.arange(-0.90, 0.90, 0.35).reshape(1, 3, 2).astype(np.float64)
    for args in _float_cases(x, w, y, z, k):
        _compare(*args)
    _compare(k, np.tan, sfm.tan)


def test_half_basic():
    """testHalfBasic (acosh near 1 to 1e-3, as TensorFlow's)."""
    x, w, y, z, k = _inputs(np.float16, k_step=0.05, w_offset=1.1)
    for args in _float_cases(x, w, y, z, k):
        _compare(*args, grad_tol=1e-3 if args[2] is sfm.acosh else None)
    _compare(x, np.tan, sfm.tan)


def _in_float32(np_func):
    def f(x):
        return np_func(x.astype(np.float32)).astype(x.dtype)

    return f


def test_bfloat16_basic():
    """testBFloat16Basic (numpy's answers computed in float32, as TensorFlow's)."""
    x = np.arange(-6, 6, 2).reshape(1, 3, 2).astype(BFLOAT16)
    w = (x.astype(np.float32) - x.astype(np.float32).min() + 1.1).astype(BFLOAT16)
    y = (x.astype(np.float32) + 0.5).astype(BFLOAT16)
    z = (x.astype(np.float32) + 15.5).astype(BFLOAT16)
    k = np.arange(-0.90, 0.90, 0.05).astype(BFLOAT16)
    _compare(x, np.abs, sfm.abs)
    _compare(x, np.negative, sfm.negative)
    _compare(y, _in_float32(_inv), sfm.reciprocal)
    _compare(y, np.sign, sfm.sign)
    for values, np_func, tf_func in [
        (x, np.exp, sfm.exp), (x, np.expm1, sfm.expm1), (z, np.log, sfm.log),
        (z, np.log1p, sfm.log1p), (z, _rsqrt, sfm.rsqrt), (x, np.square, sfm.square),
    ]:  # fmt: skip
        # _compareCpu's values only where TensorFlow's test checks no gradient
        got, expected = tf_func(values), _in_float32(np_func)(values)
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=1e-2, atol=1e-2)  # fmt: skip
    for values, np_func, tf_func in [
        (x, np.sin, sfm.sin), (x, np.cos, sfm.cos), (x, np.tan, sfm.tan), (x, np.sinh, sfm.sinh),
        (x, np.cosh, sfm.cosh), (x, np.tanh, sfm.tanh), (k, np.arcsin, sfm.asin),
        (k, np.arccos, sfm.acos), (x, np.arctan, sfm.atan), (x, np.arcsinh, sfm.asinh),
        (w, np.arccosh, sfm.acosh), (x, ERF, sfm.erf), (x, ERFC, sfm.erfc),
        (x, np.square, sfm.square),
    ]:  # fmt: skip
        _compare(values, _in_float32(np_func), tf_func)
    _compare(k, _in_float32(np.arctanh), sfm.atanh, grad_tol=1e-2)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64], ids=lambda d: d.__name__)
def test_signed_integers(dtype):
    """testInt8Basic, testInt16Basic, testInt32Basic and testInt64Basic."""
    scale = 1 << 40 if dtype == np.int64 else 1
    x = (np.arange(-6, 6, 2) * scale).reshape(1, 3, 2).astype(dtype)
    for np_func, tf_func in ((np.abs, sfm.abs), (np.negative, sfm.negative), (np.sign, sfm.sign)):
        _compare(x, np_func, tf_func)
    if dtype == np.int32:
        _compare(x, np.square, sfm.square)


def test_int64_square():
    """testInt64Square."""
    _compare(np.arange(-6 << 20, 6 << 20, 2 << 20).reshape(1, 3, 2).astype(np.int64),
             np.square, sfm.square)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64],
                         ids=lambda d: d.__name__)  # fmt: skip
def test_unsigned_square(dtype):
    """testUInt8Basic, testUInt16Basic, testUInt32Basic and testUInt64Basic."""
    _compare(np.arange(6).reshape(1, 3, 2).astype(dtype), np.square, sfm.square)


def _complex_sign(x):  # numpy's sign of a complex number is not TensorFlow's (x / |x|)
    return x / np.abs(x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: d.__name__)
def test_complex_basic(dtype):
    """testComplex64Basic and testComplex128Basic (values; see the module's docstring)."""
    x = (1 + 1j) * np.arange(-3, 3).reshape(1, 3, 2).astype(dtype)
    y = x + (0.5 + 0.5j)  # no zeros
    for values, np_func, tf_func in [
        (x, np.abs, sfm.abs), (x, np.negative, sfm.negative), (y, _inv, sfm.reciprocal),
        (x, np.square, sfm.square), (y, np.sqrt, sfm.sqrt), (y, _rsqrt, sfm.rsqrt),
        (x, np.exp, sfm.exp), (x, np.expm1, sfm.expm1), (y, np.log, sfm.log),
        (y, np.log1p, sfm.log1p), (x, np.sinh, sfm.sinh), (x, np.cosh, sfm.cosh),
        (x, np.tanh, sfm.tanh), (x, np.arcsin, sfm.asin), (x, np.arctan, sfm.atan),
        (y, np.arctanh, sfm.atanh), (x, _sigmoid, sfm.sigmoid), (x, np.sin, sfm.sin),
        (x, np.cos, sfm.cos), (y, _complex_sign, sfm.sign),
    ]:  # fmt: skip
        _compare(values, np_func, tf_func)
    # libstdc++'s complex64 asinh and acosh have 6 digits (TensorFlow's comment): 1e-5 here
    tolerance = 1e-5 if dtype == np.complex64 else 1e-6
    for np_func, tf_func in ((np.arcsinh, sfm.asinh), (np.arccosh, sfm.acosh)):
        np.testing.assert_allclose(tf_func(y), np_func(y), rtol=tolerance, atol=tolerance)
    assert sfm.abs(x).dtype == (np.float32 if dtype == np.complex64 else np.float64)


@pytest.mark.parametrize(
    "op,low,high", [(gen_nn_ops.sigmoid_grad, -2, 2), (gen_nn_ops.tanh_grad, -2, 2)],
    ids=["sigmoid_grad", "tanh_grad"],
)  # fmt: skip
@pytest.mark.parametrize("dtype,tol", [(np.float32, 5e-4), (np.float64, 1e-6)],
                         ids=["float32", "float64"])  # fmt: skip
def test_grad_grad(op, low, high, dtype, tol):
    """testGradGrad: the gradient ops' own gradients (real dtypes)."""
    rng = np.random.default_rng(7)
    x, y = (rng.uniform(low, high, size=5).astype(dtype) for _ in range(2))
    delta = 1e-3 if dtype == np.float32 else 1e-5
    theoretical, numerical = compute_gradient(op, [x, y], delta=delta)
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=tol, atol=tol)


def test_abs_of_complex_is_differentiable_twice():
    """testComplexAbsGradGrad's function, |cos(x) + 1j| (built with a cast and an add, as
    swigflow has no tf.complex): its derivative's own derivative against central
    differences."""

    def g(x):
        with sf.GradientTape() as tape:
            tape.watch(x)
            z = sfm.add(sfm.cast(sfm.cos(x), np.complex128), np.array(1j))
            y = sfm.abs(z)
        return tape.gradient(y, x)

    theoretical, numerical = compute_gradient(g, [np.array(2.0)], delta=1e-5)
    assert float(np.max(np.abs(theoretical[0] - numerical[0]))) < 1e-3
