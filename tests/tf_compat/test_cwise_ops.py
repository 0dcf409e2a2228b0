"""tensorflow/python/kernel_tests/math_ops/cwise_ops_test.py: LogicalOpTest, SelectOpTest,
MinMaxOpTest, MathOpsOverloadTest, IsFiniteInfNanTest, RoundingTest, ComplexMakeRealImagTest,
PolyvalTest and SingularGradientOpTest.

Adaptations: TensorFlow's tests of Python's operators on tensors (``x + 3``, ``x < 5``, ``~x``)
call the swigflow.math functions with a Python literal on either side, since swigflow's values
are numpy arrays whose operators are numpy's; SingularGradientOpTest asks for gradients with a
zero upstream gradient through the tape's output_gradients rather than graph-mode grad_ys.
Not translated: BatchSelectOpTest (tf.compat.v1.where's batch selection: swigflow's where is
tf.where's, which broadcasts instead), testUsingAsPythonValueFails (a numpy array's truth value
is numpy's), the placeholder tests (testRealReal, testConjReal, testConjString), the GPU and
XLA variants, and FMABenchmark.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest

import swigflow as sf
from swigflow import errors
from swigflow import math as sfm
from swigflow.test import compute_gradient

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
BCAST_SHAPES = [
    ([1, 3, 2], [1]), ([1, 3, 2], [2]), ([1, 3, 2], [3, 2]), ([1, 3, 2], [3, 1]),
    ([1, 3, 2], [1, 3, 2]), ([1, 3, 2], [2, 3, 1]), ([1, 3, 2], [2, 1, 1]),
    ([1, 3, 2], [1, 3, 1]), ([2, 1, 5], [2, 3, 1]), ([2, 0, 5], [2, 0, 1]),
    ([2, 3, 0], [2, 3, 1]),
]  # fmt: skip
LOGICAL = [(np.logical_and, sfm.logical_and), (np.logical_or, sfm.logical_or),
           (np.logical_xor, sfm.logical_xor)]  # fmt: skip
GRAD_TOL = {np.float16: 1e-3, np.float32: 1e-3, np.float64: 1e-5}


def _name(dtype):
    return np.dtype(dtype).name


def _check_gradient(fn, inputs, dtype, numeric_type=None, delta=1e-3):
    """_compareGradientX/Y: the tape's Jacobians against central differences (float16's
    against float64 ones, rounded to float16, as TensorFlow's test does)."""
    theoretical, numerical = compute_gradient(fn, inputs, delta=delta)
    if numeric_type is not None:
        _, numerical = compute_gradient(fn, [x.astype(numeric_type) for x in inputs], delta=delta)
        numerical = [n.astype(dtype) for n in numerical]
    tolerance = GRAD_TOL[np.dtype(dtype).type]
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=tolerance, atol=tolerance)


# --- LogicalOpTest ------------------------------------------------------------------------


def _compare_logical(x, y, np_func, tf_func):
    got = tf_func(x, y)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, np_func(x, y))
    assert got.shape == np.shape(np_func(x, y))


def test_logical_scalar():
    """LogicalOpTest.testScalar."""
    data = [np.array([True]), np.array([False])]
    for x in data:
        np.testing.assert_array_equal(sfm.logical_not(x), np.logical_not(x))
        for y in data:
            for np_func, tf_func in LOGICAL:
                _compare_logical(x, y, np_func, tf_func)


def test_logical_tensor_and_bcast():
    """LogicalOpTest.testTensor and testBCast."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)
    y = rng.integers(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)
    np.testing.assert_array_equal(sfm.logical_not(x), np.logical_not(x))
    for np_func, tf_func in LOGICAL:
        _compare_logical(x, y, np_func, tf_func)
    for xs, ys in BCAST_SHAPES:
        x = rng.integers(0, 2, int(np.prod(xs))).astype(np.bool_).reshape(xs)
        y = rng.integers(0, 2, int(np.prod(ys))).astype(np.bool_).reshape(ys)
        for np_func, tf_func in LOGICAL:
            _compare_logical(x, y, np_func, tf_func)


def test_logical_shape_mismatch():
    """LogicalOpTest.testShapeMismatch (eager mode's error)."""
    x = np.ones((1, 3, 2), np.bool_)
    y = np.ones((3, 2, 1), np.bool_)
    for tf_func in (sfm.logical_and, sfm.logical_or, sfm.logical_xor):
        with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
            tf_func(x, y)


# --- SelectOpTest -------------------------------------------------------------------------

SELECT_DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.complex64,
                 np.complex128]  # fmt: skip


def _compare_select(c, x, y):
    got = sf.where(c, x, y)
    np.testing.assert_array_equal(got, np.where(c, x, y))
    assert got.shape == np.where(c, x, y).shape


def test_select_scalar_basic_and_broadcast():
    """SelectOpTest.testScalar, testScalarBroadcast, testBasic and testBasicBroadcast."""
    rng = np.random.default_rng(1)
    shapes = [(1, 1, 1), (1, 3, 1), (1, 1, 2), (1, 1), (1,), (1, 2), (3, 2)]
    conditions = [True, rng.integers(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)] + [
        rng.integers(0, 2, int(np.prod(s))).astype(np.bool_).reshape(s)
        for s in ((1, 1, 2), (1, 3, 1), (1, 1, 1))
    ]
    for c in conditions:
        for t in SELECT_DTYPES:
            x = (rng.random((1, 3, 2)) * 100).astype(t)
            _compare_select(c, x, (rng.random((1, 3, 2)) * 100).astype(t))
            for shape in shapes:
                y = (rng.random(shape) * 100).astype(t)
                _compare_select(c, x, y)
                _compare_select(c, y, x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=_name)
def test_select_gradients(dtype):
    """SelectOpTest.testGradients and testGradientsBroadcast (float16 against float64
    differences)."""
    rng = np.random.default_rng(2)
    c = rng.integers(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)
    x = (rng.random((1, 3, 2)) * 100).astype(dtype)
    y = (rng.random((1, 3, 2)) * 100).astype(dtype)
    numeric = np.float64 if dtype == np.float16 else None
    _check_gradient(lambda a, b: sf.where(c, a, b), [x, y], dtype, numeric)
    if dtype != np.float16:
        for shape in [(1, 1, 1), (1, 3, 1), (1, 1, 2), (1, 1), (1,), (1, 2), (3, 2)]:
            y = (rng.random(shape) * 100).astype(dtype)
            _check_gradient(lambda a, b: sf.where(c, a, b), [x, y], dtype)


def test_select_shape_mismatch_empty_and_nan():
    """SelectOpTest.testShapeMismatch (InvalidArgumentError in eager mode), testEmptyTensor and
    testNan (a NaN in the branch not taken does not leak)."""
    c = np.ones((1, 3, 2), np.bool_)
    with pytest.raises(errors.InvalidArgumentError):
        sf.where(c, np.ones((1, 3, 2), np.float32), np.ones((2, 5, 3), np.float32))
    empty = np.zeros((1, 3, 0), np.float32)
    np.testing.assert_array_equal(sf.where(np.zeros((1, 3, 0), np.bool_), empty, empty), empty)
    for c, a, b in itertools.product((False, True), (7.0, np.nan), (5.0, np.nan)):
        assert np.isnan(sf.where(c, a, b)) == np.isnan(a if c else b)


# --- MinMaxOpTest -------------------------------------------------------------------------


def _compare_min_max(x, y):
    np.testing.assert_array_equal(sf.minimum(x, y), np.minimum(x, y))
    np.testing.assert_array_equal(sf.maximum(x, y), np.maximum(x, y))


def test_min_max():
    """MinMaxOpTest.testBasic, testNaNPropagation, testDifferentShapes and testScalar."""
    rng = np.random.default_rng(3)
    x, y = rng.random((1, 3, 2)) * 100.0, rng.random((1, 3, 2)) * 100.0
    for t in [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16,
              np.int32, np.uint32, np.int64, np.uint64]:  # fmt: skip
        _compare_min_max(x.astype(t), y.astype(t))
    x = np.array([1.0, np.nan, 1.0, np.nan])
    y = np.array([1.0, 1.0, np.nan, np.nan])
    for t in [np.float16, np.float32, np.float64]:
        _compare_min_max(x.astype(t), y.astype(t))
    x, y = rng.random((1, 3, 2)) * 100.0, rng.random(2) * 100.0
    for t in [np.float16, np.float32, np.float64, np.int32, np.int64]:
        _compare_min_max(x.astype(t), y.astype(t))
    scalar = rng.random() * 100.0
    for t in [np.float32, np.int32]:
        _compare_min_max(x.astype(t), t(scalar))


def test_min_max_gradients():
    """MinMaxOpTest.testGradients (operands 1 apart)."""
    rng = np.random.default_rng(4)
    x = rng.random((1, 3, 2)) * 100.0
    y = x + (rng.integers(2, size=x.shape) - 0.5) * 2
    for fn in (sf.maximum, sf.minimum):
        _check_gradient(fn, [x, y], np.float64)


# --- MathOpsOverloadTest ------------------------------------------------------------------

OVERLOAD_DTYPES = [np.float16, np.float32, np.float64, BFLOAT16, np.uint8, np.uint16, np.uint32,
                   np.uint64, np.int8, np.int16, np.int32, np.int64, np.complex64,
                   np.complex128]  # fmt: skip
ARITHMETIC = [(np.add, sf.add), (np.subtract, sf.subtract), (np.multiply, sf.multiply),
              (np.power, sfm.pow), (np.true_divide, sfm.truediv),
              (np.floor_divide, sfm.floordiv), (np.mod, sfm.mod)]  # fmt: skip


def _compare_with_literals(x, y, dtype, np_func, tf_func):
    """_compareBinary: a tensor and a literal each way round."""
    expected = np_func(x, y)
    if np_func is not np.true_divide:
        expected = expected.astype(np.float32 if np.dtype(dtype) == BFLOAT16 else dtype)
    rtol = 1e-2 if np.dtype(dtype) in (BFLOAT16, np.dtype(np.float16)) else 1e-6
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    # the literal on the left converts to the tensor's dtype, as TensorFlow's reflected
    # operators (__radd__, ...) convert it
    for got in (tf_func(np.asarray(x, dtype), y), tf_func(sf.constant(x, dtype=dtype),
                                                          np.asarray(y, dtype))):  # fmt: skip
        np.testing.assert_allclose(
            np.asarray(got).astype(wide), np.asarray(expected).astype(wide), rtol=rtol
        )


@pytest.mark.parametrize("dtype", OVERLOAD_DTYPES, ids=_name)
def test_overload(dtype):
    """MathOpsOverloadTest.testOverload, with the functions (see the module's docstring)."""
    for np_func, tf_func in ARITHMETIC:
        if np.dtype(dtype).kind == "c" and tf_func in (sfm.floordiv, sfm.mod):
            continue  # no floordiv for complex numbers
        if np.dtype(dtype).kind == "u" and tf_func is sfm.pow:
            continue  # no power for unsigned types
        _compare_with_literals(10, 3, dtype, np_func, tf_func)


def test_overload_comparisons():
    """MathOpsOverloadTest.testOverloadComparisons."""
    comparisons = [(np.less, sfm.less), (np.less_equal, sfm.less_equal),
                   (np.greater, sfm.greater), (np.greater_equal, sfm.greater_equal)]  # fmt: skip
    for dtype in [np.float16, np.float32, np.float64, np.uint8, np.uint16, np.uint32, np.uint64,
                  np.int8, np.int16, np.int32, np.int64]:  # fmt: skip
        for np_func, tf_func in comparisons:
            expected = bool(np_func(10, 5))
            for got in (tf_func(np.asarray(10, dtype), 5), tf_func(10, np.asarray(5, dtype))):
                assert got.item() is expected
    logical = [*LOGICAL, (np.equal, sf.equal), (np.not_equal, sfm.not_equal)]
    pairs = [(True, False), (True, True), (False, False), (False, True),
             ([True, True, False, False], [True, False, True, False])]  # fmt: skip
    for np_func, tf_func in logical:
        for x, y in pairs:
            expected = np_func(x, y)
            np.testing.assert_array_equal(tf_func(np.asarray(x), y), expected)
            np.testing.assert_array_equal(tf_func(x, np.asarray(y)), expected)
    for x in (True, False, [True, False]):
        np.testing.assert_array_equal(sfm.logical_not(x), np.logical_not(x))


# --- IsFiniteInfNanTest -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, BFLOAT16], ids=_name)
def test_is_finite_inf_nan(dtype):
    """IsFiniteInfNanTest.testHalf, testFloat, testDouble and testBfloat16."""
    if dtype == BFLOAT16:
        values = [0, -1, 1, 0.01, -0.01, -3.3895e38, 3.3895e38, -np.inf, np.inf, np.nan]
    else:
        fi = np.finfo(dtype)
        values = [0, -1, 1, fi.resolution, -fi.resolution, fi.min, fi.max, -np.inf, np.inf,
                  np.nan]  # fmt: skip
    x = np.array(values).astype(dtype)
    reference = x.astype(np.float32) if dtype == BFLOAT16 else x  # numpy has no bfloat16
    for tf_func, np_func in ((sfm.is_finite, np.isfinite), (sfm.is_inf, np.isinf),
                             (sfm.is_nan, np.isnan)):  # fmt: skip
        got = tf_func(x)
        np.testing.assert_array_equal(got, np_func(reference))
        assert got.shape == x.shape


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=_name)
def test_sqrt_values(dtype):
    """IsFiniteInfNanTest.testSqrt: NaN below zero, numpy's value elsewhere."""
    fi = np.finfo(dtype)
    for size in [1, 3, 4, 7, 8, 63, 64, 65]:
        for value in [fi.min, -2, -1, 0, fi.tiny, 1, 2, 1000, fi.max / 100]:
            x = np.full((size,), value, dtype=dtype)
            with np.errstate(invalid="ignore"):
                expected = np.sqrt(x)
            got = sf.sqrt(x)
            if value < 0:
                np.testing.assert_array_equal(sfm.is_nan(got), np.isnan(expected))
            else:
                np.testing.assert_allclose(
                    got, expected, rtol=1e-3 if dtype == np.float16 else 1e-6
                )


# --- RoundingTest -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, BFLOAT16], ids=_name)
def test_rounding(dtype):
    """RoundingTest.testTypes: floor and ceil, then rint on TensorFlow's own cases (float32
    and float64: TensorFlow has no float16 or bfloat16 rint kernel)."""
    data = (np.arange(-3, 3) / 4.0).reshape(1, 3, 2).astype(dtype)
    for tf_func, np_func in ((sfm.floor, np.floor), (sfm.ceil, np.ceil)):
        got = tf_func(data)
        np.testing.assert_array_equal(got.astype(np.float32), np_func(data.astype(np.float32)))
        assert got.shape == data.shape and got.dtype == data.dtype
    if dtype in (np.float16, BFLOAT16):
        return
    np.testing.assert_array_equal(sfm.rint(data), np.rint(data))
    cases = [
        ([0.5, 0.5000001], [0.0, 1.0]),
        ([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0], [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 2.0]),
    ]
    for x, y in cases:
        got = sfm.rint(np.asarray(x, dtype))
        np.testing.assert_array_equal(got, y)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(y))


# --- ComplexMakeRealImagTest --------------------------------------------------------------


def test_make():
    """ComplexMakeRealImagTest.testMake."""
    real = (np.arange(-3, 3) / 4.0).reshape([1, 3, 2]).astype(np.float32)
    imag = (np.arange(-3, 3) / 5.0).reshape([1, 3, 2]).astype(np.float32)
    for r, i in ((real, imag), (real, 12.0), (23.0, imag)):
        got = sfm.complex(r, i)
        expected = r + 1j * np.asarray(i)
        np.testing.assert_array_equal(got, expected)
        assert got.shape == np.shape(expected) and got.dtype == np.complex64


def test_real_imag_numeric_type():
    """ComplexMakeRealImagTest.testRealImagNumericType."""
    for value in [1.0, 1j, 1.0 + 1j]:
        assert sfm.real(value) == np.real(value)
        assert sfm.imag(value) == np.imag(value)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_real_imag(dtype):
    """ComplexMakeRealImagTest.testRealImag64 and testRealImag128."""
    real = (np.arange(-3, 3) / 4.0).reshape([1, 3, 2]).astype(dtype)
    imag = (np.arange(-3, 3) / 5.0).reshape([1, 3, 2]).astype(dtype)
    cplx = real + 1j * imag
    np.testing.assert_array_equal(sfm.real(cplx), real)
    np.testing.assert_array_equal(sfm.imag(cplx), imag)
    np.testing.assert_array_equal(sfm.real(sfm.real(cplx)), real)
    np.testing.assert_array_equal(sfm.imag(sfm.real(cplx)), real * 0)
    assert sfm.real(cplx).dtype == dtype


@pytest.mark.parametrize("dtype,step", [(np.float32, 10.0), (np.float64, 100.0)],
                         ids=["float32", "float64"])  # fmt: skip
def test_angle(dtype, step):
    """ComplexMakeRealImagTest.testAngle and testAngle64."""
    rng = np.random.default_rng(5)
    mag = rng.random(10).astype(dtype)
    angle = (2 * np.pi * np.arange(10) / step).astype(dtype)
    cplx = np.append(mag * np.exp(1j * angle), [1.0, 1.0j, -1.0, -1.0j])
    cplx = cplx.astype(np.complex64 if dtype == np.float32 else np.complex128)
    np.testing.assert_allclose(sfm.angle(cplx), np.angle(cplx), rtol=1e-6, atol=1e-6)
    real = (np.arange(-2, 2) / 2.0).astype(np.float64)
    np.testing.assert_allclose(sfm.angle(real), np.angle(real))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_conj(dtype):
    """ComplexMakeRealImagTest.testConj64 and testConj128."""
    real = (np.arange(-3, 3) / 4.0).reshape([1, 3, 2]).astype(dtype)
    imag = (np.arange(-3, 3) / 5.0).reshape([1, 3, 2]).astype(dtype)
    cplx = real + 1j * imag
    np.testing.assert_array_equal(sfm.conj(cplx), np.conj(cplx))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_complex_gradient(dtype):
    """ComplexMakeRealImagTest.testGradient: through complex, conj, real and imag (and the
    broadcast gradient of abs(complex(x, 0)), complex(0, x))."""
    data = np.arange(1, 2, 0.10).reshape([5, 2]).astype(dtype)

    def loss(x):
        real, imag = (sf.reshape(p, [-1]) for p in sfm.unstack(x, axis=1))
        cplx = sfm.conj(sfm.complex(real, imag))
        return sf.add(sf.reduce_sum(sf.square(sfm.real(cplx))),
                      sf.reduce_sum(sf.square(sfm.imag(cplx))))  # fmt: skip

    theoretical, numerical = compute_gradient(loss, [data], delta=1e-3)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)
    if dtype == np.float32:
        for build in (lambda x: sfm.complex(x, 0.0), lambda x: sfm.complex(0.0, x)):
            theoretical, numerical = compute_gradient(
                lambda x, b=build: sf.reduce_sum(sfm.abs(b(x))), [data], delta=1e-3
            )
            np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)


def test_mul_gradient():
    """ComplexMakeRealImagTest.testMulGradient: sum(real(x * y) + imag(x * y))."""
    data = np.arange(1, 2, 0.125).reshape([2, 4]).astype(np.float32)

    def loss(inp):
        xr, xi, yr, yi = sfm.unstack(inp, axis=1)
        z = sf.multiply(sfm.complex(xr, xi), sfm.complex(yr, yi))
        return sf.reduce_sum(sf.add(sfm.real(z), sfm.imag(z)))

    theoretical, numerical = compute_gradient(loss, [data], delta=0.005)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=0.005, atol=0.005)


# --- PolyvalTest --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [np.int32, np.float32, np.float64, np.complex64, np.complex128], ids=_name
)
def test_polyval_simple(dtype):
    """PolyvalTest.testSimple."""
    rng = np.random.default_rng(6)
    for degree in range(5):
        x = (rng.random((2, 2)) * (10 if dtype == np.int32 else 1)).astype(dtype)
        coeffs = [(rng.random((2, 2)) * 10).astype(dtype) for _ in range(degree + 1)]
        np.testing.assert_allclose(sfm.polyval(coeffs, x), np.polyval(coeffs, x), rtol=1e-5)


def test_polyval_broadcast_empty_and_errors():
    """PolyvalTest.testBroadcast, testEmpty and test_coeffs_raise."""
    rng = np.random.default_rng(7)
    shapes = [(1,), (2, 1), (1, 2), (2, 2)]
    for x_shape, coeff_shape in itertools.product(shapes, shapes):
        x = rng.random(x_shape).astype(np.float32)
        coeffs = [rng.random(coeff_shape).astype(np.float32) for _ in range(4)]
        np.testing.assert_allclose(sfm.polyval(coeffs, x), np.polyval(coeffs, x), rtol=1e-5)
    x = rng.random((2, 2)).astype(np.float32)
    np.testing.assert_array_equal(sfm.polyval([], x), np.polyval([], x) * np.ones_like(x))
    with pytest.raises(ValueError, match="Argument coeffs must be list"):
        sfm.polyval({}, x)


# --- SingularGradientOpTest ---------------------------------------------------------------

SINGULARITIES = [
    (sfm.reciprocal, [0.0], [np.nan]),
    (sfm.rsqrt, [0.0], [np.nan]),
    (sf.sqrt, [0.0], [np.nan]),
    (sfm.tan, [np.pi / 2], [0.0]),
    (sfm.log, [0.0], [np.nan]),
    (sfm.log1p, [-1.0], [np.nan]),
    (sfm.acosh, [0.0], [np.nan]),
    (sfm.asin, [1.0], [np.nan]),
    (sfm.acos, [1.0], [np.nan]),
    (sfm.atan2, [0.0, 0.0], [np.nan, np.nan]),
    (sf.divide, [1.0, 0.0], [np.nan, np.nan]),
    (sfm.divide_no_nan, [1.0, 0.0], [0.0, 0.0]),
    (sfm.pow, [0.0, -1.0], [np.nan, np.nan]),
]


@pytest.mark.parametrize("op,singularity,expected", SINGULARITIES,
                         ids=[s[0].__name__ for s in SINGULARITIES])  # fmt: skip
def test_gradient_at_singularity(op, singularity, expected):
    """SingularGradientOpTest.testGradientAtSingularity: a zero upstream gradient still meets
    the op's singular derivative (0 * inf is NaN), as TensorFlow computes it. Not here: the
    sqrt_grad and reciprocal_grad cases (those gradient ops are swigflow's compositions)."""
    args = [np.array(s, np.float32) for s in singularity]
    with sf.GradientTape() as tape:
        tape.watch(args)
        y = op(*args)
    grads = tape.gradient(y, args, output_gradients=np.array(0.0, np.float32))
    np.testing.assert_array_equal([float(g) for g in grads], expected)
