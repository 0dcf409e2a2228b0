"""tensorflow/python/kernel_tests/math_ops/cwise_ops_binary_test.py: BinaryOpTest and
ComparisonOpTest, for the ops swigflow.math has (add, subtract, multiply, truediv, floordiv,
mod, atan2, pow, maximum, minimum and the comparisons).

Not translated: igamma, igammac, zeta, polygamma, xdivy, xlogy and xlog1py (not in
swigflow.math); the cases written with Python's operators (``x + y`` on tensors: swigflow's
values are numpy arrays, so those operators are numpy's); testFloatVariableOverload (tf.Variable);
testEqualQuantizeDType (no quantized dtypes); the GPU-only tests. Adaptations: a shape mismatch
is InvalidArgumentError "Incompatible shapes", as in TensorFlow's eager mode (the test runs in
graph mode, where shape inference raises ValueError "Dimensions must be equal" first); gradients
are checked on the real dtypes only (swigflow.test.compute_gradient differences real inputs;
complex gradients are checked against TensorFlow's values in tests/testdata/make_tf_math.py).
"""

import ml_dtypes
import numpy as np
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.math import atan2, floordiv, mod, truediv
from swigflow.test import compute_gradient

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)
GRAD_TOL = {np.float16: 1e-3, np.float32: 1e-3, np.float64: 1e-5}
NOT_DIFFERENTIATED = (floordiv,)  # TensorFlow's test skips its gradient too


def _name(dtype):
    return np.dtype(dtype).name


def _compare_cpu(x, y, np_func, tf_func):
    """BinaryOpTest._compareCpu: numpy's answer to the default tolerance, and its shape."""
    with np.errstate(all="ignore"):
        expected = np_func(x, y)
    got = tf_func(x, y)
    if expected.dtype != np.object_:
        tolerance = 1e-2 if x.dtype == BFLOAT16 else 1e-6
        np.testing.assert_allclose(
            np.asarray(got).astype(np.complex128),
            np.asarray(expected).astype(np.complex128),
            rtol=tolerance,
            atol=tolerance,
        )
    else:
        np.testing.assert_array_equal(got, expected)
    assert np.shape(got) == np.shape(expected)


def _compare_gradients(x, y, tf_func, numeric_type=None):
    """BinaryOpTest._compareGradientX and _compareGradientY: the tape's Jacobians (of 1.1 *
    tf_func for float32 and float64) against central differences, computed in numeric_type
    when given (float16's are too coarse)."""
    scale = x.dtype in (np.float32, np.float64)

    def fn(a, b):
        out = tf_func(a, b)
        return sf.multiply(1.1, out) if scale else out

    theoretical, numerical = compute_gradient(fn, [x, y])
    if numeric_type is not None:
        _, numerical = compute_gradient(
            tf_func, [x.astype(numeric_type), y.astype(numeric_type)], delta=1e-3
        )
        # Rounded to x's dtype, as TensorFlow's test does: an overflow is inf on both sides.
        with np.errstate(over="ignore"):
            numerical = [n.astype(x.dtype) for n in numerical]
    tolerance = GRAD_TOL[x.dtype.type]
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=tolerance, atol=tolerance)


def _compare_both(x, y, np_func, tf_func):
    """BinaryOpTest._compareBoth."""
    _compare_cpu(x, y, np_func, tf_func)
    if x.dtype.type in FLOATS and tf_func not in NOT_DIFFERENTIATED:
        _compare_gradients(x, y, tf_func)


def _linspaces(dtype):
    x = np.linspace(-5, 20, 15).reshape(1, 3, 5).astype(dtype)
    y = np.linspace(20, -5, 15).reshape(1, 3, 5).astype(dtype)
    return x, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_float_and_double_basic(dtype):
    """testFloatBasic and testDoubleBasic (the tf.math functions; atan2 also on random points
    kept away from the origin)."""
    x, y = _linspaces(dtype)
    _compare_both(x, y, np.add, sf.add)
    _compare_both(x, y, np.subtract, sf.subtract)
    _compare_both(x, y, np.multiply, sf.multiply)
    _compare_both(x, y + 0.1, np.true_divide, truediv)
    _compare_both(x, y + 0.1, np.floor_divide, floordiv)
    _compare_both(x, y, np.arctan2, atan2)
    rng = np.random.default_rng(0)
    shape, floor = ((5, 6), 0.05) if dtype == np.float32 else ((7, 4), 0.5)
    x1, x2 = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    for v in (x1, x2):  # atan2's gradients are flaky near the origin
        v[np.abs(v) < floor] = floor * np.sign(v[np.abs(v) < floor])
    _compare_both(x1, x2, np.arctan2, atan2)


def test_float_different_shapes():
    """testFloatDifferentShapes: atan2 broadcast, and the gradients of sum(x * y)."""
    x = np.array([1, 2, 3, 4]).reshape(2, 2).astype(np.float32)
    y = np.array([1, 2]).reshape(2, 1).astype(np.float32)
    _compare_both(y, x, np.arctan2, atan2)
    with sf.GradientTape() as tape:
        tape.watch([x, y])
        s = sf.reduce_sum(sf.multiply(x, y))
    gx, gy = tape.gradient(s, [x, y])
    np.testing.assert_array_equal(gx, np.array([1, 1, 2, 2], np.float32).reshape(2, 2))
    np.testing.assert_array_equal(gy, np.array([3, 7], np.float32).reshape(2, 1))


def test_bfloat16_basic():
    """testBfloat16Basic."""
    x, y = _linspaces(BFLOAT16)
    y1 = (y.astype(np.float32) + 0.1).astype(BFLOAT16)
    _compare_both(x, y, np.add, sf.add)
    _compare_both(x, y, np.subtract, sf.subtract)
    _compare_both(x, y, np.multiply, sf.multiply)
    _compare_both(x, y1, np.true_divide, truediv)
    _compare_both(x, y1, np.floor_divide, floordiv)
    _compare_both(x, y, np.maximum, sf.maximum)
    _compare_both(x, y, np.minimum, sf.minimum)


INTEGER_CASES = {
    np.uint8: [(np.add, sf.add), (np.subtract, sf.subtract)],
    np.int8: [(np.subtract, sf.subtract), (np.multiply, sf.multiply),
              (np.true_divide, truediv), (np.floor_divide, floordiv)],
    np.int16: [(np.subtract, sf.subtract), (np.multiply, sf.multiply)],
    np.uint16: [(np.subtract, sf.subtract), (np.multiply, sf.multiply),
                (np.true_divide, truediv), (np.floor_divide, floordiv)],
    np.int32: [(np.add, sf.add), (np.subtract, sf.subtract), (np.multiply, sf.multiply),
               (np.true_divide, truediv), (np.floor_divide, floordiv), (np.mod, mod)],
    np.uint32: [(np.add, sf.add), (np.true_divide, truediv), (np.floor_divide, floordiv)],
    np.int64: [(np.subtract, sf.subtract), (np.multiply, sf.multiply),
               (np.true_divide, truediv), (np.floor_divide, floordiv), (np.mod, mod)],
}  # fmt: skip


@pytest.mark.parametrize("dtype", list(INTEGER_CASES), ids=_name)
def test_integer_basic(dtype):
    """testUint8Basic, testInt8Basic, testInt16Basic, testUint16Basic, testInt32Basic,
    testUint32Basic, testInt64Basic and testUint64Basic (whose arrays are uint32, as
    TensorFlow's)."""
    start = 1 << 40 if dtype == np.int64 else 1
    x = np.arange(start, 13 * start, 2 * start).reshape(1, 3, 2).astype(dtype)
    y = np.arange(1, 7, 1).reshape(1, 3, 2).astype(dtype)
    for np_func, tf_func in INTEGER_CASES[dtype]:
        _compare_both(x, y, np_func, tf_func)


@pytest.mark.parametrize("dtype", COMPLEX, ids=_name)
def test_complex_basic(dtype):
    """testComplex64Basic and testComplex128Basic (values; see the module's docstring)."""
    x = (1 + 1j) * np.linspace(-10, 10, 6).reshape(1, 3, 2).astype(dtype)
    y = (1 + 1j) * np.linspace(20, -20, 6).reshape(1, 3, 2).astype(dtype)
    _compare_both(x, y, np.add, sf.add)
    _compare_both(x, y, np.subtract, sf.subtract)
    _compare_both(x, y, np.multiply, sf.multiply)
    _compare_both(x, y + 0.1, np.true_divide, truediv)


def test_string_comparison():
    """testStringComparison."""
    x = np.array([["abc", "bh"], ["c", ""]])
    y = np.array([["abc", "bh"], ["def", "hi"]])
    np.testing.assert_array_equal(sf.equal(x, y), [[True, True], [False, False]])
    np.testing.assert_array_equal(sf.math.not_equal(x, y), [[False, False], [True, True]])


def test_string():
    """testString: add concatenates strings, broadcasting."""

    def cells(prefix, rows, columns):
        return np.array(
            [[f"{prefix}_{i}_{j}".encode() for j in range(columns)] for i in range(rows)],
            dtype=object,
        )

    x, y = cells("x", 3, 3), cells("y", 3, 3)
    z = np.array([[b"z_0", b"z_1", b"z_2"]], dtype=object)
    w = np.array(b"w", dtype=object)
    for a, b in ((x, y), (x, z), (x, w), (z, w)):
        _compare_cpu(a, b, np.add, sf.add)


BCAST_SHAPES = [
    ([1, 3, 2], [1]), ([1, 3, 2], [2]), ([1, 3, 2], [3, 2]), ([1, 3, 2], [3, 1]),
    ([1, 3, 2], [1, 3, 2]), ([1, 3, 2], [2, 3, 1]), ([1, 3, 2], [2, 1, 1]),
    ([1, 3, 2], [1, 3, 1]), ([2, 1, 5], [2, 3, 1]), ([2, 0, 5], [2, 0, 1]),
    ([2, 3, 0], [2, 3, 1]), ([1, 3, 2], [1, 3, 2]), ([1, 1, 1, 1, 3, 2], [1, 3, 2]),
    ([1, 3, 2, 1, 1], [1]), ([2, 3, 1, 1, 5], [1]), ([10, 3, 1, 2], [3, 1, 2]),
]  # fmt: skip
BCAST_GROUPS = {
    "A": [(np.add, sf.add)],
    "B": [(np.subtract, sf.subtract), (np.power, sf.math.pow)],
    "C": [(np.multiply, sf.multiply)],
    "D": [(np.true_divide, truediv), (np.floor_divide, floordiv)],
}
BCAST_DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, *COMPLEX]


def _compare_bcast(xs, ys, dtype, np_func, tf_func):
    """BinaryOpTest._compareBCast."""
    if dtype in COMPLEX:
        x = (1 + np.linspace(0, 2 + 3j, int(np.prod(xs)))).astype(dtype).reshape(xs)
        y = (1 + np.linspace(0, 2 - 2j, int(np.prod(ys)))).astype(dtype).reshape(ys)
    else:
        x = (1 + np.linspace(0, 5, int(np.prod(xs)))).astype(dtype).reshape(xs)
        y = (1 + np.linspace(0, 5, int(np.prod(ys)))).astype(dtype).reshape(ys)
    _compare_cpu(x, y, np_func, tf_func)
    if x.dtype.type in FLOATS and tf_func not in NOT_DIFFERENTIATED:
        numeric_type = np.float64 if x.dtype == np.float16 else None
        _compare_gradients(x, y, tf_func, numeric_type)


@pytest.mark.parametrize("group", sorted(BCAST_GROUPS))
@pytest.mark.parametrize("index", range(len(BCAST_SHAPES)))
def test_bcast(index, group):
    """testBCast_0A ... testBCast_15D: each shape pair both ways, each dtype (no floordiv for
    complex numbers)."""
    xs, ys = BCAST_SHAPES[index]
    for dtype in BCAST_DTYPES:
        for np_func, tf_func in BCAST_GROUPS[group]:
            if dtype in COMPLEX and tf_func is floordiv:
                continue
            _compare_bcast(xs, ys, dtype, np_func, tf_func)
            _compare_bcast(ys, xs, dtype, np_func, tf_func)


@pytest.mark.parametrize("func", [sf.add, sf.subtract, sf.multiply, truediv, floordiv])
def test_mismatched_dimensions(func):
    """testMismatchedDimensions (eager mode's error)."""
    with pytest.raises(
        errors.InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2,2\]"
    ):
        func(sf.constant([10.0, 20.0, 30.0]), sf.constant([[40.0, 50.0], [60.0, 70.0]]))


@pytest.mark.parametrize("dtype", [*FLOATS, *COMPLEX], ids=_name)
def test_zero_pow_grad(dtype):
    """testZeroPowGrad: d/dy 0**y at y = 2 is 0, not NaN."""
    x, y = np.array(0.0, dtype), np.array(2.0, dtype)
    with sf.GradientTape() as tape:
        tape.watch(y)
        z = sf.math.pow(x, y)
    assert tape.gradient(z, y) == 0
    if dtype in FLOATS:
        theoretical, numerical = compute_gradient(lambda b: sf.math.pow(x, b), [y])
        assert float(np.max(np.abs(theoretical[0] - numerical[0]))) == 0


@pytest.mark.parametrize("dtype", COMPLEX, ids=_name)
def test_complex_pow_with_zero_exponent(dtype):
    """testComplexPowWithZeroExponent: any base to a zero power is 1, NaN and infinities
    included."""
    nan, inf = np.nan, np.inf
    bases = np.array(
        [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 2j, nan,
         complex(inf, 0.0), complex(0.0, inf)],
        dtype=dtype,
    )  # fmt: skip
    np.testing.assert_array_equal(sf.math.pow(bases, np.zeros_like(bases)), np.ones_like(bases))
    np.testing.assert_array_equal(sf.math.pow(bases, np.array(0, dtype)), np.ones_like(bases))
    empty = np.array([], dtype=dtype)
    np.testing.assert_array_equal(sf.math.pow(empty, empty), empty)
    signed = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)], dtype)
    np.testing.assert_array_equal(sf.math.pow(np.zeros_like(signed), signed), np.ones_like(signed))
    imaginary = sf.math.pow(np.array(2 + 0j, dtype), np.array(1j, dtype))
    np.testing.assert_allclose(imaginary, np.exp(1j * np.log(2.0)), rtol=1e-6)
    assert imaginary != 1 + 0j
    mixed = sf.math.pow(np.array([0j, 2 + 0j, 1 + 1j], dtype), np.array([0j, 2 + 0j, 0j], dtype))
    np.testing.assert_allclose(mixed, np.array([1 + 0j, 4 + 0j, 1 + 0j], dtype))
    assert sf.math.pow(sf.constant(0j, dtype=dtype), sf.constant(0j, dtype=dtype)) == 1 + 0j
    batched = sf.math.pow(bases.reshape(2, 4), np.zeros((1, 4), dtype))
    np.testing.assert_array_equal(batched, np.ones((2, 4), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_atan2_special_values(dtype):
    """testAtan2SpecialValues: signed zeros, infinities and NaN, as numpy's arctan2."""
    inf, nan = float("inf"), float("nan")
    pairs = [
        (+0.0, +0.0), (+0.0, -0.0), (-0.0, +0.0), (-0.0, -0.0), (1.0, 0.0), (-1.0, 0.0),
        (1.0, -0.0), (-1.0, -0.0), (0.0, 1.0), (0.0, -1.0), (-0.0, 1.0), (-0.0, -1.0),
        (1.2345, inf), (1.2345, -inf), (-4.321, inf), (-4.125, -inf), (inf, inf), (inf, -inf),
        (-inf, inf), (-inf, -inf), (1.0, nan), (nan, 1.0), (nan, nan),
    ]  # fmt: skip
    x1, x2 = (np.array(v).astype(dtype) for v in zip(*pairs))
    got = atan2(x1, x2)
    np.testing.assert_array_equal(got, np.arctan2(x1, x2))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.arctan2(x1, x2)))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64], ids=_name)
def test_pow_negative_exponent(dtype):
    """testPowNegativeExponentCpu."""
    x = np.array([5, 2]).astype(dtype)
    for y in (np.array([-2, 3]).astype(dtype), np.array([2, -3]).astype(dtype), -3):
        with pytest.raises(
            errors.InvalidArgumentError, match="Integers to negative integer powers are not allowed"
        ):
            sf.math.pow(x, y)


# --- ComparisonOpTest ---------------------------------------------------------------------

ORDERINGS = [
    (sf.math.less, np.less), (sf.math.less_equal, np.less_equal),
    (sf.math.greater, np.greater), (sf.math.greater_equal, np.greater_equal),
]  # fmt: skip
EQUALITIES = [(sf.equal, np.equal), (sf.math.not_equal, np.not_equal)]
ORDERED_DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64]


def test_scalar_compare_scalar():
    """ComparisonOpTest.testScalarCompareScalar."""
    data = [-1, 0, 1]
    for dtype in ORDERED_DTYPES:
        for x in data:
            for y in data:
                for op, np_op in ORDERINGS + EQUALITIES:
                    got = op(np.array([x]).astype(dtype), np.array([y]).astype(dtype))
                    assert bool(got[0]) == bool(np_op(x, y))
    data = [-1, 0, 1, -1j, 1j, 1 + 1j, 1 - 1j]
    for dtype in COMPLEX:
        for x in data:
            for y in data:
                for op, np_op in EQUALITIES:
                    got = op(np.array([x]).astype(dtype), np.array([y]).astype(dtype))
                    assert bool(got[0]) == bool(np_op(x, y))


def _complexify(v):
    return v - 1j * v


def test_tensor_compare_tensor():
    """ComparisonOpTest.testTensorCompareTensor (complex numbers: equality only)."""
    x = np.linspace(-15, 15, 6).reshape(1, 3, 2)
    y = np.linspace(20, -10, 6).reshape(1, 3, 2)
    for dtype in ORDERED_DTYPES:
        xt, yt = x.astype(dtype), y.astype(dtype)
        for op, np_op in ORDERINGS + EQUALITIES:
            np.testing.assert_array_equal(op(xt, yt), np_op(xt, yt))
    for dtype in COMPLEX:
        xt, yt = _complexify(x.astype(dtype)), _complexify(y.astype(dtype))
        for op, np_op in EQUALITIES:
            np.testing.assert_array_equal(op(xt, yt), np_op(xt, yt))


COMPARISON_SHAPES = BCAST_SHAPES[:11]


@pytest.mark.parametrize("op,np_op", ORDERINGS + EQUALITIES,
                         ids=["less", "less_equal", "greater", "greater_equal", "equal",
                              "not_equal"])  # fmt: skip
def test_bcast_comparisons(op, np_op):
    """ComparisonOpTest.testBCastLess ... testBCastNotEqual (complex for the equalities)."""
    dtypes = ORDERED_DTYPES + (list(COMPLEX) if (op, np_op) in EQUALITIES else [])
    for xs, ys in COMPARISON_SHAPES:
        for dtype in dtypes:
            x = np.linspace(-15, 15, int(np.prod(xs))).astype(dtype).reshape(xs)
            y = np.linspace(20, -10, int(np.prod(ys))).astype(dtype).reshape(ys)
            if dtype in COMPLEX:
                x, y = _complexify(x), _complexify(y)
            np.testing.assert_array_equal(op(x, y), np_op(x, y))
            np.testing.assert_array_equal(op(y, x), np_op(y, x))


@pytest.mark.parametrize("dtype", ORDERED_DTYPES, ids=_name)
def test_shape_mismatch(dtype):
    """ComparisonOpTest.testShapeMismatch."""
    x = np.arange(0, 10).reshape([2, 5]).astype(dtype)
    y = np.arange(0, 10).reshape([5, 2]).astype(dtype)
    for op, _ in ORDERINGS + EQUALITIES:
        with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
            op(x, y)


def test_equal_dtype():
    """ComparisonOpTest.testEqualDType."""
    x = np.asarray([0, 1, 2, 3, 4])
    dtypes = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]  # fmt: skip
    for values in [x.astype(d) for d in dtypes] + [_complexify(x.astype(d)) for d in COMPLEX]:
        np.testing.assert_array_equal(sf.equal(values, values.copy()), [True] * 5)
        np.testing.assert_array_equal(sf.math.not_equal(values, values.copy()), [False] * 5)
