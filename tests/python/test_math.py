"""swigflow.math against TensorFlow 2.21: the cases of tests/testdata/make_tf_math.py (values,
dtypes, first and second derivatives, errors), run with swigflow, plus the rules TF's golden
cannot show (0-d results, shape errors, recording)."""

import json
import os

import generators
import numpy as np
import pytest
from tf_messages import bare

from swigflow import errors, math, nn, ops

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
make_tf_math = generators.load("make_tf_math")  # the case table

with open(os.path.join(TESTDATA, "tf_math", "golden.json")) as f:
    GOLDEN = json.load(f)

ml_dtypes = pytest.importorskip("ml_dtypes")  # requirements/build.txt installs it (bfloat16)
ENV = {
    "ml_dtypes": ml_dtypes,
    "np": np,
    "M": math,
    "NN": nn,
    "C": np.asarray,
    "grads": make_tf_math.grads_with(ops.GradientTape, np.asarray),
    "CAST": math.cast,
    "RESHAPE": math.reshape,
    "TRANSPOSE": math.transpose,
    "ONE_HOT": math.one_hot,
    "WHERE": math.where,
    "BROADCAST_TO": math.broadcast_to,
    "STACK": math.stack,
    "UNSTACK": math.unstack,
    "COMPLEX": math.complex,
}
exec(make_tf_math.INPUTS, ENV)

# exp, log, tanh, sigmoid, erf and pow are not correctly rounded in either library (Eigen's
# polynomials, libm's and numpy's): a few ulps apart, more where a formula amplifies them
# (approximate gelu's 1 + tanh(x) near -1). Everything else is IEEE arithmetic, equal to the
# last bit.
ULPS = {"exp": 4, "exp_float64": 4, "log": 4, "log_zero": 4, "grad_exp": 4, "grad_log": 4,
        "grad_float64": 4, "sigmoid": 2, "sigmoid_float64": 2, "tanh": 2, "tanh_float64": 2,
        "erf": 2, "erf_float64": 2, "erfc": 2, "grad_erfc": 2, "pow": 2, "grad_pow": 2,
        "python_first_pow": 2,
        # Complex multiplication, division, log and exp round differently in numpy and Eigen
        # (neither is correctly rounded): a few ulps of each part.
        "log_complex": 4, "sigmoid_complex": 4, "grad_log_complex": 4, "grad_pow_complex": 4,
        "grad_reciprocal_complex": 4, "grad_sigmoid_complex": 8, "grad_sqrt_complex": 4,
        "grad_tanh_complex": 8,
        "grad_sigmoid": 2, "grad_erf": 2, "gelu": 4, "gelu_float64": 4, "gelu_approximate": 32,
        "grad_gelu": 16, "grad_gelu_approximate": 32, "grad_acosh_complex": 12,
        "grad_divide_complex": 5, "grad_softplus": 2, "grad_log_sigmoid": 7,
        "grad_angle": 4,
        # Their second derivatives, -x (x^2 +- 1)^-3/2, carry the libm difference below through
        # a power: up to 11 ulps apart on Debian 13, equal on Debian 12.
        "grad_asinh": 16, "grad_acosh": 16}  # fmt: skip

# sin, cos, tan, their inverses and the hyperbolic ones, expm1, log1p and rsqrt come from numpy's
# libm calls, whose results change with glibc's version (Debian 12's and 13's differ by an ulp),
# against Eigen's: any case of them is allowed 4 ulps, 8 through a complex formula.
LIBM = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
        "expm1", "log1p", "rsqrt"}  # fmt: skip


def ulps_for(name):
    base = name.removeprefix("grad_").removesuffix("_float64").removesuffix("_complex")
    if base not in LIBM:
        return ULPS.get(name, 0)
    return max(ULPS.get(name, 0), 8 if name.endswith("_complex") else 4)


# Second derivatives of the losses cancel (g - sum(g * softmax)): compared to an absolute
# tolerance scaled by the largest value rather than in ulps.
SCALED_ATOL = {"xent_grads": 1e-6, "sparse_xent_grads": 1e-6, "grad_tanh": 1e-6,
               "grad_pow_complex": 1e-6, "grad_sigmoid_complex": 2e-6,
               "grad_sqrt_complex": 1e-6, "grad_tanh_complex": 1e-6,
               # exp(-100)'s subnormal result, rounded differently
               "softplus": 1e-8, "log_sigmoid": 1e-8,
               # a part 100x smaller than the largest value, a few of its ulps apart
               "grad_rsqrt_complex": 1e-6}  # fmt: skip


def assert_same(expected, actual, ulps, where, scaled_atol=0.0):
    if expected is None:
        assert actual is None, where
        return
    if isinstance(expected, list):
        assert len(actual) == len(expected), where
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, ulps, f"{where}[{i}]", scaled_atol)
        return
    if "dtype" not in expected:
        for key in expected:
            assert_same(expected[key], actual[key], ulps, f"{where}.{key}", scaled_atol)
        return
    actual = np.asarray(actual)
    assert str(actual.dtype) == expected["dtype"], where
    assert list(actual.shape) == expected["shape"], where
    if actual.dtype.kind == "c":  # [real, imaginary] pairs, each part compared as a float
        pairs = [[float(x) if isinstance(x, str) else x for x in v] for v in expected["values"]]
        pairs = np.array(pairs, dtype=np.float64).reshape(-1, 2)
        got = actual.reshape(-1)
        for part, values in ((got.real, pairs[:, 0]), (got.imag, pairs[:, 1])):
            assert_floats_close(values.astype(part.dtype), part, ulps, where, scaled_atol)
        return
    values = np.array([float(v) if isinstance(v, str) else v for v in expected["values"]])
    if actual.dtype.kind != "f":
        np.testing.assert_array_equal(actual.reshape(-1), values.astype(actual.dtype), where)
        return
    assert_floats_close(values.astype(actual.dtype), actual.reshape(-1), ulps, where, scaled_atol)


def assert_floats_close(want, got, ulps, where, scaled_atol):
    """got equals want within `ulps` (or scaled_atol times the largest value), NaN where NaN."""
    same_nan = np.isnan(want) == np.isnan(got)
    assert same_nan.all(), where
    finite = ~np.isnan(want)
    want, got = want[finite], got[finite]
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf: equal anyway
        allowed = ulps * np.spacing(np.abs(want).astype(got.dtype))
        if scaled_atol and want.size:
            allowed = np.maximum(allowed, scaled_atol * np.max(np.abs(want)))
        close = np.abs(got - want) <= allowed
    assert np.all((got == want) | close), (where, got, want)


def test_every_case_has_golden_data():
    assert set(make_tf_math.CASES) == set(GOLDEN) - {"_tensorflow"}


@pytest.mark.parametrize("name", sorted(make_tf_math.CASES))
def test_golden(name):
    expected = GOLDEN[name]
    source = make_tf_math.CASES[name]
    if "error" in expected:
        with pytest.raises(Exception) as info:
            eval(source, ENV)
        want = {"InvalidArgumentError": errors.InvalidArgumentError}.get(expected["error"])
        assert type(info.value).__name__ == expected["error"] or (
            want is not None and isinstance(info.value, want)
        )
        message, ours = bare(expected["message"]), bare(str(info.value))
        assert ours == message
        return
    actual = eval(source, ENV)
    value = expected["value"]
    if name == "xent_grads":
        value = tf_labels_term_added(value)
    assert_same(value, actual, ulps_for(name), name, SCALED_ATOL.get(name, 0.0))


def tf_labels_term_added(value):
    """TF's SoftmaxCrossEntropyWithLogits gradient leaves out how its backprop output
    (softmax - labels) depends on the labels, so TF's second derivative by the labels lacks
    -grad_grad; swigflow's includes it (checked against central differences in
    test_gradients.py). TF's value with the term added, grad_grad being grads()'s ramp."""
    logits_grad = value["first"][0]
    ramp = (np.arange(len(logits_grad["values"])) % 7 + 1) / 4
    labels_second = dict(value["second"][1])
    labels_second["values"] = list(np.array(labels_second["values"]) - ramp)
    return {"first": value["first"], "second": [value["second"][0], labels_second]}


def test_results_are_arrays_even_when_0_d():
    y = math.add(np.float32(1), np.float32(2))
    assert isinstance(y, np.ndarray) and y.shape == () and y.dtype == np.float32
    assert isinstance(math.reduce_sum(np.ones(3, np.float32)), np.ndarray)


def test_reshape_errors_and_minus_one():
    x = np.arange(6.0)
    assert math.reshape(x, [-1, 2]).shape == (3, 2)
    with pytest.raises(errors.InvalidArgumentError, match="requires a multiple of 4"):
        math.reshape(x, [-1, 4])


def test_one_hot_rejects_float_indices():
    with pytest.raises(errors.InvalidArgumentError, match="indices must be integers"):
        math.one_hot(np.array([1.0]), 3)


def test_argmax_of_an_empty_axis_raises():
    with pytest.raises(errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
        math.argmax(np.zeros((0, 2), np.float32))


def test_recorded_only_while_a_tape_records():
    x = np.array([2.0])
    y = math.square(x)  # no tape: not recorded, so a constant below
    with ops.GradientTape() as tape:
        z = math.multiply(y, x)
    np.testing.assert_array_equal(tape.gradient(z, x), y)


def test_cast_to_the_same_dtype_returns_the_array_itself():
    x = np.ones(3, np.float32)
    assert math.cast(x, np.float32) is x
    with ops.GradientTape() as tape:
        y = math.square(math.cast(x, "float32"))
    np.testing.assert_array_equal(tape.gradient(y, x), 2 * x)


def test_mean_of_integers_truncates_toward_zero():
    np.testing.assert_array_equal(math.reduce_mean(np.array([-7, 2], np.int32)), -2)
    np.testing.assert_array_equal(math.reduce_mean(np.array([7, 2], np.int64)), 4)
