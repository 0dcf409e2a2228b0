"""tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py: SumReductionTest,
MeanReductionTest, EuclideanNormReductionTest, ProdReductionTest, MinReductionTest,
MaxReductionTest, AllReductionTest, AnyReductionTest, CountNonzeroReductionTest and
ReductionInvalidKeepdims, each against numpy's reduction as TensorFlow's test compares.

Not translated: ReducedShapeTest (math_ops.reduced_shape, outside TensorFlow's public API),
ReductionUnknownShape, testPartialShapes and testWrongShapeForReductionIndices (graph
placeholders' static shapes), and the GPU-only mean of 68,000 float16 ones. Adaptations: an
axis out of range is InvalidArgumentError, as in TensorFlow's eager mode (the test runs in graph
mode, where shape inference raises ValueError first); gradients are checked with
swigflow.test.compute_gradient, central differences with TensorFlow's delta of 1, on the real
dtypes only (it differences real inputs; complex gradients are checked against TensorFlow's
own values in tests/testdata/make_tf_math.py).
"""

import itertools
import numbers

import ml_dtypes
import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

import swigflow as sf
from swigflow import errors
from swigflow.test import compute_gradient

MAX_RANK = 5
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _name(dtype):
    return np.dtype(dtype).name


def _powerset(items):
    items = list(items)
    return itertools.chain.from_iterable(
        itertools.combinations(items, r) for r in range(len(items) + 1)
    )


def _incremental(shape, dtype):
    data = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        data -= 2j * data
    return data


def _random(shape, dtype, seed=0):
    data = np.random.default_rng(seed).random(shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        data -= 2j * data
    return data


def _np_axes(axes):
    if isinstance(axes, (list, np.ndarray)):
        return tuple(int(a) for a in axes)
    return axes


def _np_sum(x, axes, keepdims):
    return np.sum(x, axis=_np_axes(axes), keepdims=keepdims)


def _np_mean(x, axes, keepdims):
    axes = _np_axes(axes)
    if isinstance(axes, numbers.Integral):
        axes = (axes,)
    count = np.prod(x.shape) if axes is None else np.prod([x.shape[a] for a in axes])
    total = np.sum(x, axis=axes, keepdims=keepdims)
    if np.issubdtype(x.dtype, np.integer):
        return total // count
    return total / count


def _np_euclidean_norm(x, axes, keepdims):
    norm = np.sqrt(np.sum(x * np.conj(x), axis=_np_axes(axes), keepdims=keepdims))
    return np.floor(norm) if np.issubdtype(x.dtype, np.integer) else norm


def _np_prod(x, axes, keepdims):
    return np.prod(x, axis=_np_axes(axes), keepdims=keepdims)


SUM = (sf.reduce_sum, _np_sum)
MEAN = (sf.reduce_mean, _np_mean)
NORM = (sf.math.reduce_euclidean_norm, _np_euclidean_norm)
PROD = (sf.reduce_prod, _np_prod)


def _compare(reduction, x, axes, keepdims, rtol=1e-6, atol=1e-6):
    """BaseReductionTest._compare: the value (to the tolerance of its dtype) and the shape."""
    ours, theirs = reduction
    with np.errstate(invalid="ignore"):  # inf - inf, as TensorFlow gives it: NaN
        expected = theirs(x, axes, keepdims)
    got = ours(x, axes, keepdims)
    if x.dtype == BFLOAT16:  # the test's own tolerance for bfloat16 sums
        np.testing.assert_allclose(
            got.astype(np.float64), np.asarray(expected).astype(np.float64), rtol=rtol, atol=atol
        )
    else:
        assert_all_close_according_to_type(expected, got, rtol=rtol, atol=atol)
    assert got.shape == np.shape(expected)


def _compare_all(reduction, x, axes, rtol=1e-6, atol=1e-6):
    """BaseReductionTest._compareAll: keepdims both ways; a one-element axis list also as an
    int."""
    if axes is not None and np.shape(axes) == (1,):
        _compare_all(reduction, x, axes[0], rtol, atol)
    _compare(reduction, x, axes, False, rtol, atol)
    _compare(reduction, x, axes, True, rtol, atol)


def _compare_all_axes(reduction, x, rtol=1e-6, atol=1e-6):
    _compare_all(reduction, x, None, rtol, atol)
    for axes in _powerset(range(x.ndim)):
        _compare_all(reduction, x, list(axes), rtol, atol)


def _compare_gradient(op, x, axes, rtol=1e-8, atol=1e-8):
    """BaseReductionTest._compareGradient: the tape's Jacobian against central differences."""
    if axes is not None and np.shape(axes) == (1,):
        _compare_gradient(op, x, axes[0], rtol, atol)
    theoretical, numerical = compute_gradient(lambda t: op(t, axes), [x], delta=1)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=rtol, atol=atol)


def _compare_gradient_axes(op, x, rtol=1e-8, atol=1e-8):
    for axes in (None, [], 0, [1], [2], [1, 2], [0, 1, 2, 3]):
        _compare_gradient(op, x, axes, rtol, atol)


def _infinities(dtype):
    return [np.array(pair, dtype) for pair in itertools.product([-np.inf, np.inf], repeat=2)]


# --- SumReductionTest ---------------------------------------------------------------------


@pytest.mark.parametrize("op", [sf.reduce_sum, sf.reduce_mean, sf.reduce_prod, sf.reduce_min,
                                sf.reduce_max])  # fmt: skip
@pytest.mark.parametrize("axis_dtype", [np.int64, np.int32])
def test_axes_type(op, axis_dtype):
    """testAxesType of Sum, Mean, Prod, Min and Max: a tensor axis of either integer type."""
    np.testing.assert_array_equal(op([0, 0], sf.constant(0, dtype=axis_dtype)), 0)


@pytest.mark.parametrize("op", [sf.reduce_all, sf.reduce_any])
@pytest.mark.parametrize("axis_dtype", [np.int64, np.int32])
def test_logical_axes_type(op, axis_dtype):
    """AllReductionTest and AnyReductionTest.testAxesType."""
    assert op([True, True], sf.constant(0, dtype=axis_dtype)).item() is True


@pytest.mark.parametrize("reduction", [SUM, MEAN, NORM, PROD], ids=["sum", "mean", "norm", "prod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_infinity(reduction, dtype):
    """testInfinity of Sum, Mean, EuclideanNorm and Prod: every pair of infinities."""
    for x in _infinities(dtype):
        _compare_all(reduction, x, None)


SUM_DTYPES = [np.int32, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", SUM_DTYPES, ids=_name)
def test_sum_types(dtype):
    """SumReductionTest: testInt32, testFloat16, testFloat32, testFloat64, testComplex64 and
    testComplex128 over every axis set of ranks 1 to 5."""
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(SUM, _incremental((2,) * rank, dtype))


def test_sum_bfloat16():
    """SumReductionTest.testBfloat16 (and testFloat32BFloat16's incremental part)."""
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(SUM, _incremental((2,) * rank, BFLOAT16), rtol=1e-3, atol=5.0)


@pytest.mark.parametrize("dtype", [np.float32, BFLOAT16], ids=["float32", "bfloat16"])
def test_sum_rows_and_columns(dtype):
    """SumReductionTest.testFloat32 and testFloat32BFloat16: row and column sums of ones over
    random sizes (seeded here), and sums over [0, 2] and 1 of 3-D blocks of ones."""
    rng = np.random.default_rng(0)
    for _ in range(10):
        size_x, size_y = (int(2 ** rng.uniform(0, 15)) for _ in range(2))
        if size_x * size_y > 1e7:
            size_y = int(1e7 / size_x)
        arr = np.ones([size_x, size_y], dtype=np.float32)
        np.testing.assert_allclose(sf.reduce_sum(arr, 0), np.sum(arr, axis=0))
        np.testing.assert_allclose(sf.reduce_sum(arr, 1), np.sum(arr, axis=1))
    sizes = [1, 3, 16, 33] if dtype == np.float32 else [1, 3, 16]
    for shape in itertools.product(sizes, repeat=3):
        arr = np.ones(shape, dtype=dtype)
        assert_all_close_according_to_type(
            np.sum(arr.astype(np.float32), axis=(0, 2)), sf.reduce_sum(arr, [0, 2])
        )
        assert_all_close_according_to_type(
            np.sum(arr.astype(np.float32), axis=1), sf.reduce_sum(arr, 1)
        )


def test_sum_invalid_index():
    """SumReductionTest.testInvalidIndex (InvalidArgumentError in eager mode)."""
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    for axes in ([-3], [2], [0, 2]):
        with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension"):
            sf.reduce_sum(x, axes)


def test_sum_repeated_reduction_indices():
    """SumReductionTest.testInvalidRepeatedReductionIndices."""
    with pytest.raises(errors.InvalidArgumentError, match="Axes contains duplicate dimension: 0"):
        sf.reduce_sum(sf.constant([1.0, 2.0]), sf.constant([0, 0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_gradient(dtype):
    """SumReductionTest.testGradient (the real types)."""
    _compare_gradient_axes(sf.reduce_sum, _incremental([2, 3, 4, 2], dtype))


def test_sum_high_rank():
    """SumReductionTest.testHighRank: random high-rank reductions (seeded), then particular
    axis patterns."""
    rng = np.random.default_rng(42)
    for _ in range(20):
        rank = int(rng.integers(4, 11))
        (axes,) = np.nonzero(rng.integers(2, size=rank))
        data = rng.integers(1024, size=tuple(rng.integers(1, 4, size=rank)))
        _compare_all(SUM, data, axes)
    for rank in 4, 7, 10:
        data = rng.integers(1024, size=tuple(rng.integers(1, 4, size=rank)))
        for axes in ([], np.arange(rank), np.arange(0, rank, 2), np.arange(1, rank, 2)):
            _compare_all(SUM, data, axes)


@pytest.mark.parametrize("reduction", [SUM, NORM], ids=["sum", "norm"])
def test_expand(reduction):
    """testExpand: an empty tensor reduced to a nonempty one."""
    _compare_all(reduction, np.zeros((5, 0)), [1])


@pytest.mark.parametrize("op", [sf.reduce_sum, sf.reduce_mean, sf.reduce_prod, sf.reduce_min,
                                sf.reduce_max])  # fmt: skip
def test_empty_gradients(op):
    """testEmptyGradients of Sum, Mean, Prod, Min and Max: nothing to differentiate, no
    error."""
    theoretical, numerical = compute_gradient(lambda t: op(t, [1]), [np.zeros([0, 3], np.float32)])
    assert theoretical[0].size == numerical[0].size == 0


DEGENERATE = [BFLOAT16, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", [*DEGENERATE, np.complex64, np.complex128], ids=_name)
def test_sum_degenerate(dtype):
    """SumReductionTest.testDegenerate: a sum over an empty axis is zeros."""
    np.testing.assert_array_equal(
        sf.reduce_sum(np.zeros((0, 9938), dtype), [0]).astype(np.complex128), np.zeros(9938)
    )


# --- MeanReductionTest --------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [np.int32, np.float32, BFLOAT16, np.float64, np.complex64, np.complex128], ids=_name
)
def test_mean_types(dtype):
    """MeanReductionTest: testInt32, testFloat32, testBFloat16, testFloat64, testComplex64 and
    testComplex128."""
    rtol, atol = (1e-2, 1.0) if dtype == BFLOAT16 else (1e-6, 1e-6)
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(MEAN, _incremental((2,) * rank, dtype), rtol, atol)


def test_mean_uint8():
    """MeanReductionTest.testUint8."""
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(MEAN, _random((2,) * rank, np.uint8))


@pytest.mark.parametrize(
    "dtype,count", [(np.uint8, 2**8), (np.int8, 2**7), (np.uint16, 2**16), (np.int16, 2**15)]
)
def test_mean_size_overflow(dtype, count):
    """MeanReductionTest.testSizeOverflowUint8, Int8, Uint16 and Int16: counts the dtype
    cannot hold."""
    _compare_all_axes(MEAN, _random((count,), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_gradient(dtype):
    """MeanReductionTest.testGradient."""
    _compare_gradient_axes(sf.reduce_mean, _incremental([2, 3, 4, 2], dtype), 1e-3, 1e-3)


@pytest.mark.parametrize("dtype", DEGENERATE, ids=_name)
def test_mean_degenerate(dtype):
    """MeanReductionTest.testDegenerate: a mean over an empty axis is NaN."""
    y = sf.reduce_mean(np.zeros((0, 9938), dtype), [0])
    assert y.shape == (9938,)
    assert np.all(np.isnan(y.astype(np.float32)))


# --- EuclideanNormReductionTest ----------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_euclidean_norm_singleton(dtype):
    """EuclideanNormReductionTest.testSingleton."""
    _compare_all(NORM, np.array([-1.0]).astype(dtype), None)


@pytest.mark.parametrize(
    "dtype", [BFLOAT16, np.float32, np.float64, np.int32, np.complex64, np.complex128], ids=_name
)
def test_euclidean_norm_types(dtype):
    """EuclideanNormReductionTest.testTypes."""
    rtol, atol = (1e-2, 5e-1) if dtype == BFLOAT16 else (1e-6, 1e-6)
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(NORM, _incremental((2,) * rank, dtype), rtol, atol)


@pytest.mark.parametrize("dtype", DEGENERATE, ids=_name)
def test_euclidean_norm_degenerate(dtype):
    """EuclideanNormReductionTest.testDegenerate: zeros over an empty axis."""
    y = sf.math.reduce_euclidean_norm(np.zeros((0, 9938), dtype), [0])
    assert y.shape == (9938,)
    np.testing.assert_array_equal(y.astype(np.float32), np.zeros(9938))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_euclidean_norm_gradient(dtype):
    """EuclideanNormReductionTest.testGradient (one added to avoid a zero norm)."""
    x = _incremental([2, 3, 4, 2], dtype) + 1.0
    _compare_gradient_axes(sf.math.reduce_euclidean_norm, x, 1e-2, 1e-2)


# --- ProdReductionTest --------------------------------------------------------------------


@pytest.mark.parametrize("dtype,modulus", [(np.int32, 5), (np.int64, 11)])
def test_prod_integers(dtype, modulus):
    """ProdReductionTest.testInt32 and testInt64 (values bounded to avoid overflow)."""
    for rank in range(1, MAX_RANK):
        _compare_all_axes(PROD, _incremental((2,) * rank, dtype) % modulus + 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=_name)
def test_prod_types(dtype):
    """ProdReductionTest.testFloat32, testFloat64, testComplex64 and testComplex128."""
    for rank in range(1, MAX_RANK + 1):
        _compare_all_axes(PROD, _incremental((2,) * rank, dtype))


def test_prod_bfloat16():
    """ProdReductionTest.testBfloat16."""
    for rank in range(1, MAX_RANK + 1):
        x = _incremental((2,) * rank, BFLOAT16) * np.array([0.01]).astype(BFLOAT16)
        _compare_all_axes(PROD, x, 1e-2, 1e-2)


@pytest.mark.parametrize("where", ["none", "beginning", "end", "middle", "all"])
def test_prod_gradient_with_zeros(where):
    """ProdReductionTest.testGradientWithZeros."""
    x = _incremental([2, 3, 4, 2], np.float32) / 20.0
    zeroed = {"none": (), "beginning": 0, "end": -1, "middle": 2, "all": slice(None)}[where]
    if zeroed != ():
        x[:, :, zeroed, :] = 0
    _compare_gradient_axes(sf.reduce_prod, x, 1e-3, 1e-3)


@pytest.mark.parametrize("dtype", DEGENERATE, ids=_name)
def test_prod_degenerate(dtype):
    """ProdReductionTest.testDegenerate: ones over an empty axis."""
    y = sf.reduce_prod(np.zeros((0, 9938), dtype), [0])
    np.testing.assert_array_equal(y.astype(np.float32), np.ones(9938))


# --- MinReductionTest and MaxReductionTest ------------------------------------------------


def _compare_extreme(op, numpy_op, x, axes):
    """Min/Max/All/AnyReductionTest._compareAll: numpy reduces one axis at a time, from the
    last; the axes are an int32 array."""
    for keepdims in (False, True):
        expected = x
        if axes is None:
            expected = numpy_op(expected, keepdims=keepdims)
        else:
            for axis in axes[::-1]:
                expected = numpy_op(expected, axis=axis, keepdims=keepdims)
        got = op(x, None if axes is None else np.array(axes, np.int32), keepdims)
        assert got.dtype == x.dtype
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(expected, np.float64))
        assert got.shape == np.shape(expected)


EXTREMES = [(sf.reduce_min, np.amin), (sf.reduce_max, np.amax)]
AXES_3D = [None, [], [0], [1], [2], [0, 1], [1, 2], [0, 2], [0, 1, 2]]


@pytest.mark.parametrize("op,numpy_op", EXTREMES, ids=["min", "max"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extreme_special_values(op, numpy_op, dtype):
    """testSpecialValues: every arrangement of -inf, 1, NaN and inf up to length 3 (NaN wins,
    as numpy's)."""
    for size in range(1, 4):
        for arr in itertools.product([-np.inf, 1.0, np.nan, np.inf], repeat=size):
            _compare_extreme(op, numpy_op, np.array(arr, dtype=dtype), None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_min_reduce_3d(dtype):
    """MinReductionTest.testFloatReduce3D and testDoubleReduce3D."""
    x = np.arange(1, 31).reshape([2, 3, 5]).astype(dtype)
    for axes in AXES_3D:
        _compare_extreme(sf.reduce_min, np.amin, x, axes)


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, BFLOAT16], ids=_name)
def test_max_reduce_3d(dtype):
    """MaxReductionTest.testInt64Reduce3D, testFloatReduce3D, testDoubleReduce3D and
    testBfloat16Reduce3D."""
    x = np.arange(-31, -1).reshape([2, 3, 5]).astype(dtype)
    for axes in AXES_3D:
        _compare_extreme(sf.reduce_max, np.amax, x, axes)


@pytest.mark.parametrize("op,start", [(sf.reduce_min, 1.0), (sf.reduce_max, -49.0)],
                         ids=["min", "max"])  # fmt: skip
@pytest.mark.parametrize("axes", [[1, 2], [1], [2], None])
def test_extreme_gradient(op, start, axes):
    """Min/MaxReductionTest.testGradient, testGradient2, testGradient3 and testGradient4."""
    x = np.arange(start, start + 48.0).reshape([2, 3, 4, 2]).astype(np.float64)
    theoretical, numerical = compute_gradient(lambda t: op(t, axes), [x], delta=1)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-8, atol=1e-8)


# --- AllReductionTest and AnyReductionTest ------------------------------------------------


@pytest.mark.parametrize(
    "op,numpy_op,threshold", [(sf.reduce_all, np.all, 0.1), (sf.reduce_any, np.any, 0.9)],
    ids=["all", "any"],
)  # fmt: skip
def test_logical_3d(op, numpy_op, threshold):
    """AllReductionTest and AnyReductionTest.testAll3D."""
    x = (np.random.default_rng(0).uniform(0, 1, 30) > threshold).reshape([2, 3, 5])
    for axes in AXES_3D:
        _compare_extreme(op, numpy_op, x, axes)


@pytest.mark.parametrize("op,expected", [(sf.reduce_all, True), (sf.reduce_any, False)],
                         ids=["all", "any"])  # fmt: skip
def test_logical_empty(op, expected):
    """AllReductionTest and AnyReductionTest.testEmpty."""
    for keepdims in (False, True):
        got = op([], [0], keepdims)
        assert got.shape == ((1,) if keepdims else ())
        assert got.item() is expected


# --- CountNonzeroReductionTest ------------------------------------------------------------


def _compare_count(x, axes, keepdims, zero=0):
    expected = (x != zero).astype(np.int32)
    if axes is None:
        expected = np.sum(expected, keepdims=keepdims)
    else:
        for axis in np.array(axes, np.int32).ravel()[::-1]:
            expected = np.sum(expected, axis=axis, keepdims=keepdims)
    got = sf.math.count_nonzero(x, axes, keepdims)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    assert got.shape == np.shape(expected)


def _compare_count_all(x, axes):
    if axes is not None and np.shape(axes) == (1,):
        _compare_count_all(x, axes[0])
    for keepdims in (False, True):
        _compare_count(x, axes, keepdims)


def test_count_nonzero_bool_1d():
    """CountNonzeroReductionTest.testBoolReduce1D."""
    x = np.asarray([False, False, True, False, False, True])
    for axes in (None, [], [0]):
        _compare_count_all(x, axes)


def test_count_nonzero_float_1d():
    """CountNonzeroReductionTest.testFloatReduce1D."""
    _compare_count_all(np.asarray([0.0, 1.0, -1.0, 0.0, 0.0, 3.0]).astype(np.float32), [0])


def test_count_nonzero_float_4d():
    """CountNonzeroReductionTest.testFloatReduce4D."""
    x = np.floor(np.arange(0.0, 210.0) / 100.0).reshape([2, 3, 5, 7]).astype(np.float32)
    for axes in (None, [], [0], [1], [2], [0, 1], [1, 2], [0, 2], [0, 1, 2], [1, 2, 3],
                 [0, 1, 2, 3]):  # fmt: skip
        _compare_count_all(x, axes)


def test_count_nonzero_expand_and_degenerate():
    """CountNonzeroReductionTest.testExpand and testDegenerate."""
    _compare_count_all(np.zeros((5, 0)), [1])
    np.testing.assert_array_equal(
        sf.math.count_nonzero(np.zeros((0, 9938), np.bool_), [0]), np.zeros(9938)
    )


def test_count_nonzero_strings():
    """CountNonzeroReductionTest.testStringReduce, testStringReduce1D and testStringReduce2D:
    empty strings count as zero."""
    assert sf.math.count_nonzero(sf.constant(["test"])) == 1
    x = np.asarray(["", "", "a", "", "", "b"])
    for axes, keepdims in itertools.product((None, [], [0]), (False, True)):
        _compare_count(x, axes, keepdims, zero=np.str_(""))
    x = np.asarray(
        [["", "", "a", "", "", "b"], ["", "c", "", "d", "", ""], ["e", "", "f", "", "", ""]]
    )
    for axes, keepdims in itertools.product((None, [], [0], [1], [0, 1]), (False, True)):
        _compare_count(x, axes, keepdims, zero=np.str_(""))
    _compare_count(np.asarray(x, dtype=object), [1], False, zero=np.str_(""))


# --- ReductionInvalidKeepdims -------------------------------------------------------------


@pytest.mark.parametrize(
    "op,value",
    [(op, 1) for op in (sf.reduce_sum, sf.reduce_mean, sf.reduce_prod, sf.reduce_max,
                        sf.reduce_min, sf.math.reduce_euclidean_norm)]
    + [(sf.reduce_all, True), (sf.reduce_any, True)],
)  # fmt: skip
def test_invalid_keepdims(op, value):
    """ReductionInvalidKeepdims.testBasic (GitHub issue 46700): an array as keepdims."""
    with pytest.raises(ValueError, match="The truth value"):
        op(input_tensor=value, keepdims=np.array([63600, 1], dtype=np.float16))
