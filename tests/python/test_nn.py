"""swigflow.nn / swigflow.ops: float64 references, adjoint identities, gradient checks, TF-like
errors, every ISA path and 1 vs 2 threads."""

# ruff: noqa: E501 - TensorFlow's error messages are quoted whole in the table below.

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import swigflow
from swigflow import errors, nn, ops

RNG = np.random.default_rng(0)
THREES = np.full(3, 3.0, np.float32)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# --- float64 references (straight from the definitions) ----------------------------------------


def same_pads(size, k, s, d):
    out = -(-size // s)
    total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
    return total // 2, total - total // 2


def pads_of(x_shape, w_shape, strides, padding, dilations):
    if padding == "VALID":
        return (0, 0), (0, 0)
    if padding == "SAME":
        return (
            same_pads(x_shape[1], w_shape[0], strides[0], dilations[0]),
            same_pads(x_shape[2], w_shape[1], strides[1], dilations[1]),
        )
    return tuple(padding[0]), tuple(padding[1])


def windows(xp, kh, kw, s, d, oh, ow):
    """(ky, kx, x[:, rows of that tap, columns of that tap, :]) over the filter taps."""
    for ky in range(kh):
        for kx in range(kw):
            ys = slice(ky * d[0], ky * d[0] + (oh - 1) * s[0] + 1, s[0])
            xs = slice(kx * d[1], kx * d[1] + (ow - 1) * s[1] + 1, s[1])
            yield ky, kx, ys, xs


def geometry(x_shape, w_shape, strides, padding, dilations):
    (pt, pb), (pl, pr) = pads_of(x_shape, w_shape, strides, padding, dilations)
    h, w = x_shape[1] + pt + pb, x_shape[2] + pl + pr
    oh = (h - (w_shape[0] - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (w - (w_shape[1] - 1) * dilations[1] - 1) // strides[1] + 1
    return (pt, pb, pl, pr), oh, ow


def conv_ref(x, w, strides, padding, dilations):
    (pt, pb, pl, pr), oh, ow = geometry(x.shape, w.shape, strides, padding, dilations)
    xp = np.pad(x.astype(np.float64), [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for ky, kx, ys, xs in windows(xp, w.shape[0], w.shape[1], strides, dilations, oh, ow):
        out += xp[:, ys, xs, :] @ w[ky, kx].astype(np.float64)
    return out


def backprop_input_ref(x_shape, w, dy, strides, padding, dilations):
    (pt, pb, pl, pr), oh, ow = geometry(x_shape, w.shape, strides, padding, dilations)
    n, h, wd, c = x_shape
    dxp = np.zeros((n, h + pt + pb, wd + pl + pr, c))
    for ky, kx, ys, xs in windows(dxp, w.shape[0], w.shape[1], strides, dilations, oh, ow):
        dxp[:, ys, xs, :] += dy.astype(np.float64) @ w[ky, kx].astype(np.float64).T
    return dxp[:, pt : pt + h, pl : pl + wd, :]


def backprop_filter_ref(x, w_shape, dy, strides, padding, dilations):
    (pt, pb, pl, pr), oh, ow = geometry(x.shape, w_shape, strides, padding, dilations)
    xp = np.pad(x.astype(np.float64), [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    dw = np.zeros(w_shape)
    for ky, kx, ys, xs in windows(xp, w_shape[0], w_shape[1], strides, dilations, oh, ow):
        dw[ky, kx] = np.einsum("nhwc,nhwo->co", xp[:, ys, xs, :], dy.astype(np.float64))
    return dw


def tf_padding(padding):
    """A case's padding as tf.nn takes it: a string, or 4 pairs (none on batch and depth)."""
    return padding if isinstance(padding, str) else [[0, 0], *(list(p) for p in padding), [0, 0]]


CONV_CASES = [
    # (x shape, w shape, strides, padding, dilations)
    ((1, 5, 5, 1), (3, 3, 1, 1), (1, 1), "SAME", (1, 1)),
    ((2, 7, 6, 3), (3, 2, 3, 4), (2, 1), "SAME", (1, 1)),
    ((2, 8, 9, 5), (3, 3, 5, 7), (2, 2), "SAME", (1, 1)),
    ((1, 9, 7, 4), (2, 3, 4, 3), (1, 2), "VALID", (1, 1)),
    ((3, 11, 10, 2), (3, 3, 2, 6), (1, 1), "VALID", (2, 2)),
    ((2, 10, 10, 3), (3, 2, 3, 5), (1, 1), "SAME", (2, 3)),
    ((1, 6, 7, 3), (2, 2, 3, 2), (3, 2), ((1, 2), (0, 3)), (1, 1)),
    ((2, 5, 4, 2), (3, 3, 2, 3), (1, 1), ((2, 0), (1, 1)), (2, 1)),
    ((2, 13, 14, 33), (1, 1, 33, 17), (1, 1), "VALID", (1, 1)),  # plain GEMM path
    ((1, 17, 19, 16), (5, 5, 16, 35), (2, 2), "SAME", (1, 1)),  # more than one tile
    ((0, 4, 4, 2), (2, 2, 2, 3), (1, 1), "SAME", (1, 1)),  # empty batch
    # >= 16 channels and rows that fill 12-row tiles: windows read in place (direct tiles),
    # borders packed per tap.
    ((2, 9, 24, 20), (3, 3, 20, 18), (1, 1), "SAME", (1, 1)),
    ((1, 10, 35, 17), (3, 2, 17, 35), (1, 1), ((2, 1), (0, 2)), (2, 1)),
    ((1, 8, 72, 24), (3, 3, 24, 16), (2, 3), "VALID", (1, 2)),
    ((1, 3, 12, 16), (3, 3, 16, 16), (1, 1), ((5, 5), (1, 1)), (1, 1)),  # all-padding tiles
    # Few channels whose filter rows (k_w * C values) fill a tile: the filter gradient reads
    # spans of filter rows from zero-padded image rows (an RGB stem; 15 and 14 values; padding
    # wider than the image, with filter rows that only ever see padding).
    ((2, 23, 22, 3), (7, 7, 3, 40), (2, 2), "SAME", (1, 1)),
    ((1, 12, 13, 5), (4, 3, 5, 6), (1, 2), ((2, 1), (3, 0)), (2, 1)),
    ((1, 9, 10, 7), (2, 2, 7, 3), (3, 1), "VALID", (1, 1)),
    ((1, 3, 4, 3), (5, 5, 3, 2), (1, 1), ((4, 4), (4, 4)), (1, 1)),
]


def conv_args(case):
    x_shape, w_shape, strides, padding, dilations = case
    return rand(*x_shape), rand(*w_shape), list(strides), padding, list(dilations)


def tolerance(k):
    return 1e-5 * max(k, 1) ** 0.5 * 4


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_and_backprops_equal_float64_references(case):
    x, w, strides, padding, dilations = conv_args(case)
    y = nn.conv2d(x, w, strides, tf_padding(padding), dilations=dilations)
    ref = conv_ref(x, w, strides, padding, dilations)
    k = w.shape[0] * w.shape[1] * w.shape[2]
    assert y.dtype == np.float32 and y.shape == ref.shape
    np.testing.assert_allclose(y, ref, atol=tolerance(k) * 5, rtol=1e-5)

    dy = rand(*ref.shape)
    dx = nn.conv2d_backprop_input(x.shape, w, dy, strides, tf_padding(padding), dilations=dilations)
    np.testing.assert_allclose(
        dx, backprop_input_ref(x.shape, w, dy, strides, padding, dilations), atol=tolerance(k) * 5
    )
    dw = nn.conv2d_backprop_filter(
        x, w.shape, dy, strides, tf_padding(padding), dilations=dilations
    )
    np.testing.assert_allclose(
        dw,
        backprop_filter_ref(x, w.shape, dy, strides, padding, dilations),
        atol=tolerance(dy.size) * 20,
        rtol=1e-5,
    )

    # Adjoint identities: <conv(x, w), dy> = <x, dx> = <w, dw>.
    inner = float(np.sum(y.astype(np.float64) * dy))
    scale = max(1.0, abs(inner))
    assert abs(float(np.sum(x.astype(np.float64) * dx)) - inner) <= 1e-4 * scale
    assert abs(float(np.sum(w.astype(np.float64) * dw)) - inner) <= 1e-4 * scale


@pytest.mark.parametrize("case", CONV_CASES)
def test_float64_convolutions_equal_float64_references(case):
    # The float64 kernels are exact to double rounding: references and adjoint identities hold
    # to ~1e-12.
    x, w, strides, padding, dilations = (
        a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in conv_args(case)
    )
    y = nn.conv2d(x, w, strides, tf_padding(padding), dilations=dilations)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, conv_ref(x, w, strides, padding, dilations), atol=1e-12)
    dy = np.random.default_rng(1).standard_normal(y.shape)
    dx = nn.conv2d_backprop_input(x.shape, w, dy, strides, tf_padding(padding), dilations=dilations)
    dw = nn.conv2d_backprop_filter(
        x, w.shape, dy, strides, tf_padding(padding), dilations=dilations
    )
    assert dx.dtype == dw.dtype == np.float64
    np.testing.assert_allclose(
        dx, backprop_input_ref(x.shape, w, dy, strides, padding, dilations), atol=1e-12
    )
    np.testing.assert_allclose(
        dw, backprop_filter_ref(x, w.shape, dy, strides, padding, dilations), atol=1e-11
    )
    inner = float(np.sum(y * dy))
    assert abs(float(np.sum(x * dx)) - inner) <= 1e-11 * max(1.0, abs(inner))
    assert abs(float(np.sum(w * dw)) - inner) <= 1e-11 * max(1.0, abs(inner))


def test_conv_backprops_take_filters_with_a_zero_dimension():
    # As TensorFlow: the filter gradient is empty, the input gradient zero.
    x = rand(1, 4, 4, 2)
    assert nn.conv2d_backprop_filter(x, [2, 2, 2, 0], rand(1, 3, 3, 0), 1, "VALID").shape == (
        2, 2, 2, 0,
    )  # fmt: skip
    assert nn.conv2d_backprop_filter(x, [0, 2, 2, 3], rand(1, 5, 3, 3), 1, "VALID").shape == (
        0, 2, 2, 3,
    )  # fmt: skip
    dx = nn.conv2d_backprop_input([1, 4, 4, 2], rand(2, 2, 2, 0), rand(1, 3, 3, 0), 1, "VALID")
    np.testing.assert_array_equal(dx, np.zeros((1, 4, 4, 2), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="filter must not have zero elements"):
        nn.conv2d(x, rand(2, 2, 2, 0), 1, "VALID")


def random_conv_case(rng):
    """A random valid convolution: odd sizes, any padding mode, strides and dilations."""
    while True:
        kh, kw = rng.integers(1, 5, size=2)
        sh, sw = rng.integers(1, 4, size=2)
        dh, dw = rng.integers(1, 3, size=2)
        c = int(rng.choice([1, 3, 5, 16, 19, 24]))
        x_shape = (int(rng.integers(1, 3)), int(rng.integers(1, 14)), int(rng.integers(1, 30)), c)
        w_shape = (int(kh), int(kw), c, int(rng.integers(1, 40)))
        mode = rng.integers(3)
        if mode == 0:
            padding = "SAME"
        elif mode == 1:
            padding = "VALID"
        else:
            padding = tuple(tuple(int(v) for v in rng.integers(0, 4, size=2)) for _ in range(2))
        case = (x_shape, w_shape, (int(sh), int(sw)), padding, (int(dh), int(dw)))
        _, oh, ow = geometry(x_shape, w_shape, case[2], padding, case[4])
        if oh > 0 and ow > 0:
            return case


@pytest.mark.parametrize("seed", range(24))
def test_random_convolutions_equal_float64_references(seed):
    test_conv2d_and_backprops_equal_float64_references(
        random_conv_case(np.random.default_rng(seed))
    )


def test_explicit_padding_and_strides_forms():
    x, w = rand(1, 6, 6, 2), rand(3, 3, 2, 2)
    a = nn.conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 1], [2, 0], [0, 0]])
    b = nn.conv2d(x, w, 2, [[0, 0], [1, 1], [2, 0], [0, 0]])
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="it must be of size 4"):  # TensorFlow's: 4 pairs
        nn.conv2d(x, w, 2, [[1, 1], [2, 0]])


HUGE = 2**63 - 1


@pytest.mark.parametrize(
    "call",
    [
        # TensorFlow's explicit_paddings is an int32 attribute.
        lambda: nn.conv2d(rand(2, 9, 9, 3), rand(3, 3, 3, 4), 1, [[0, 0], [HUGE, 0], [0, 0], [0, 0]]),
        lambda: nn.conv2d(rand(2, 9, 9, 3), rand(3, 3, 3, 4), 1, [[0, 0], [2**31, 0], [0, 0], [0, 0]]),
        lambda: nn.depthwise_conv2d(rand(1, 9, 9, 2), rand(3, 3, 2, 1), [1, 1, 1, 1],
                                    [[0, 0], [0, HUGE], [0, 0], [0, 0]]),
        lambda: nn.conv2d_backprop_input([1, 9, 9, 3], rand(3, 3, 3, 4), rand(1, 9, 9, 4), 1,
                                         [[0, 0], [HUGE, HUGE], [0, 0], [0, 0]]),
        # Sizes from tensors: a window or an input whose arithmetic wraps int64.
        lambda: nn.conv2d_backprop_filter(rand(1, 9, 9, 3), [2**62, 2**62, 3, 4], rand(1, 9, 9, 4),
                                          1, "SAME"),
        lambda: nn.conv2d_backprop_input([1, HUGE, 9, 3], rand(3, 3, 3, 4), rand(1, 9, 9, 4), 2,
                                         "SAME"),
        lambda: nn.conv2d_backprop_filter(rand(1, 9, 9, 3), [3, 3, 3, HUGE], rand(1, 9, 9, 4), 1,
                                          "SAME"),
    ],
)  # fmt: skip
def test_sizes_that_overflow_are_refused(call):
    with pytest.raises(errors.InvalidArgumentError):
        call()


def pool_ref(x, k, s, padding, kind):
    n, h, w, c = x.shape
    if padding == "SAME":
        (pt, pb), (pl, pr) = same_pads(h, k[0], s[0], 1), same_pads(w, k[1], s[1], 1)
    else:
        pt = pb = pl = pr = 0
    oh, ow = (h + pt + pb - k[0]) // s[0] + 1, (w + pl + pr - k[1]) // s[1] + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(y0, 0) : min(y0 + k[0], h), max(x0, 0) : min(x0 + k[1], w), :]
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


POOL_CASES = [
    ((2, 7, 6, 3), (3, 3), (2, 2), "SAME"),
    ((1, 8, 8, 5), (2, 2), (2, 2), "VALID"),
    ((2, 5, 9, 2), (3, 2), (1, 3), "SAME"),
    ((1, 4, 4, 1), (4, 4), (1, 1), "SAME"),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_pooling_equals_references(case):
    shape, k, s, padding = case
    x = rand(*shape)
    np.testing.assert_allclose(nn.max_pool2d(x, k, s, padding), pool_ref(x, k, s, padding, "max"))
    # SAME averages divide by the real cells only.
    np.testing.assert_allclose(
        nn.avg_pool2d(x, k, s, padding), pool_ref(x, k, s, padding, "avg"), rtol=1e-6, atol=1e-6
    )


def test_max_pool_grad_routes_to_the_first_maximum():
    x = np.array([[5, 5, 1], [5, 2, 5], [0, 5, 5]], np.float32).reshape(1, 3, 3, 1)
    y = nn.max_pool2d(x, 2, 1, "VALID")
    grad = np.array([1, 10, 100, 1000], np.float32).reshape(1, 2, 2, 1)
    dx = ops.run(
        "MaxPoolGrad", [x, y, grad], ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID"
    )[0]
    # Windows (0,0) -> (0,0), (0,1) -> (0,1), (1,0) -> (1,0), (1,1) -> (1,2): the first 5 in
    # scan order wins.
    expected = np.array([[1, 10, 0], [100, 0, 1000], [0, 0, 0]], np.float32).reshape(1, 3, 3, 1)
    np.testing.assert_array_equal(dx, expected)


def test_bias_relu_softmax():
    x, b = rand(2, 3, 4, 5), rand(5)
    np.testing.assert_allclose(nn.bias_add(x, b), x + b, rtol=1e-6)
    nchw = rand(2, 5, 3, 4)
    np.testing.assert_allclose(nn.bias_add(nchw, b, "NCHW"), nchw + b[:, None, None], rtol=1e-6)
    np.testing.assert_array_equal(nn.relu(x), np.maximum(x, 0))
    logits = rand(3, 7) * 30
    e = np.exp(logits.astype(np.float64) - logits.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(
        nn.softmax(logits), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7
    )
    np.testing.assert_allclose(nn.softmax(logits, axis=0), nn.softmax(logits.T).T, rtol=1e-6)
    assert ops.run("BiasAddGrad", [x])[0].tolist() == pytest.approx(
        x.sum(axis=(0, 1, 2)).tolist(), rel=1e-5
    )
    assert nn.relu(np.array([-1.0, 2.0])).dtype == np.float64  # float64 kernels too


# --- gradients ----------------------------------------------------------------------------------


def gradient_cases():
    # Inputs of their own, from a fixed seed: drawn from the module's generator, they changed
    # with every test added before these, and a draw near relu's kink fails the checker.
    rng = np.random.default_rng(5)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    x, w = rand(1, 4, 5, 2), rand(2, 3, 2, 3)
    y = nn.conv2d(x, w, [1, 2], "SAME")
    dy = rand(*y.shape)
    pooled = nn.max_pool2d(x, 2, 2, "SAME")
    spaced = (np.random.default_rng(7).permutation(x.size).reshape(x.shape) * 0.01).astype(
        np.float32
    )
    sizes = np.array(x.shape, np.int32)
    pool = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    avg = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"}
    conv = {"strides": [1, 1, 2, 1], "padding": "SAME"}
    return {
        "MatMul": (
            lambda a, b: ops.run("MatMul", [a, b], transpose_b=True)[0],
            [rand(3, 4), rand(5, 4)],
        ),
        "MatMulTA": (
            lambda a, b: ops.run("MatMul", [a, b], transpose_a=True)[0],
            [rand(4, 3), rand(4, 5)],
        ),
        "Conv2D": (lambda a, b: nn.conv2d(a, b, [1, 2], "SAME"), [x, w]),
        "Conv2DDilated": (
            lambda a, b: nn.conv2d(a, b, 1, [[0, 0], [1, 0], [0, 2], [0, 0]], dilations=[2, 1]),
            [x, w],
        ),
        "Conv2DBackpropInput": (
            lambda b, d: ops.run("Conv2DBackpropInput", [sizes, b, d], **conv)[0],
            [w, dy],
        ),
        "Conv2DBackpropFilter": (
            lambda a, d: ops.run(
                "Conv2DBackpropFilter", [a, np.array(w.shape, np.int32), d], **conv
            )[0],
            [x, dy],
        ),
        # Values 0.01 apart: no window's maximum changes within the checker's step.
        "MaxPool": (lambda a: nn.max_pool2d(a, 2, 2, "SAME"), [spaced]),
        "AvgPool": (lambda a: ops.run("AvgPool", [a], **avg)[0], [x]),
        "MaxPoolGrad": (
            lambda g: ops.run("MaxPoolGrad", [x, pooled, g], **pool)[0],
            [rand(*pooled.shape)],
        ),
        "AvgPoolGrad": (
            lambda g: ops.run("AvgPoolGrad", [sizes, g], **avg)[0],
            [rand(*ops.run("AvgPool", [x], **avg)[0].shape)],
        ),
        "BiasAdd": (lambda a, b: nn.bias_add(a, b), [x, rand(2)]),
        "BiasAddGrad": (lambda g: ops.run("BiasAddGrad", [g])[0], [x]),
        "Relu": (lambda a: nn.relu(a), [x + np.sign(x) * 0.05]),
        "ReluGrad": (lambda g: ops.run("ReluGrad", [g, x + np.sign(x) * 0.05])[0], [x]),
        "Softmax": (lambda a: nn.softmax(a), [rand(2, 5)]),
        "LogSoftmax": (lambda a: nn.log_softmax(a), [rand(2, 5)]),
        "LogSoftmaxAxis0": (lambda a: nn.log_softmax(a, axis=0), [rand(3, 4)]),
        # Ops feeding ops (numpy reshapes in between would not be taped).
        "Chain": (
            lambda a, b: nn.softmax(nn.relu(nn.bias_add(nn.conv2d(a, b, 1, "VALID"), THREES))),
            [x, w],
        ),
    }


@pytest.mark.parametrize("name", sorted(gradient_cases()))
def test_gradient_checker_passes_for_every_op(name):
    fn, inputs = gradient_cases()[name]
    assert swigflow.test.compute_gradient_error(fn, inputs) < 2e-3


def in_layout(x, layout):
    """The values of x in another memory layout (the same values, other strides)."""
    x = np.asarray(x)
    if layout == "C":
        return np.ascontiguousarray(x)
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "transposed":  # every axis reversed in memory: a transpose of a C array
        return np.ascontiguousarray(x.transpose()).transpose()
    if layout == "strided":  # every other element of a larger buffer
        buffer = np.zeros([2 * d for d in x.shape], x.dtype)
        view = buffer[tuple(slice(None, None, 2) for _ in x.shape)]
        view[...] = x
        return view
    if layout == "negative_stride":  # every axis walked backwards
        backwards = tuple(slice(None, None, -1) for _ in x.shape)
        return np.ascontiguousarray(x[backwards])[backwards]
    raise ValueError(layout)


LAYOUTS = ["C", "F", "transposed", "strided", "negative_stride"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(gradient_cases()))
def test_gradient_checker_passes_for_every_op_and_layout(name, layout):
    fn, inputs = gradient_cases()[name]
    laid_out = [in_layout(x, layout) for x in inputs]
    if layout != "C":
        assert not all(x.flags.c_contiguous for x in laid_out if x.ndim > 1)
    assert swigflow.test.compute_gradient_error(fn, laid_out) < 2e-3


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(gradient_cases()))
def test_tape_gradients_reach_the_object_passed_in(name, layout):
    """The gradient of every source equals the one for a C-ordered float32 copy: never the
    zeros a converted copy used to leave behind."""
    fn, inputs = gradient_cases()[name]
    laid_out = [in_layout(x, layout) for x in inputs]
    reference = [np.ascontiguousarray(x) for x in inputs]
    grads = []
    for args in (laid_out, reference):
        with ops.GradientTape() as tape:
            y = fn(*args)
        seed = np.linspace(-1, 1, y.size, dtype=np.float32).reshape(y.shape)
        grads.append(tape.gradient(y, args, output_gradients=seed))
    for got, want, x in zip(*grads, laid_out):
        assert got.shape == x.shape and got.dtype == np.float32
        assert np.any(want != 0)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(gradient_cases()))
def test_float16_sources_get_float16_gradients(name):
    fn, inputs = gradient_cases()[name]
    halves = [x.astype(np.float16) for x in inputs]
    as_float = [h.astype(np.float32) for h in halves]
    grads = []
    for args in (halves, as_float):
        with ops.GradientTape() as tape:
            y = fn(*args)
        grads.append(tape.gradient(y, args, output_gradients=np.ones(y.shape, np.float32)))
        assert y.dtype == args[0].dtype  # float16 in, float16 out
    for got, want in zip(*grads):
        assert got.dtype == np.float16 and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-2, atol=2e-2)


def float64_cases():
    """The ops with float64 kernels, on float64 inputs (checked in float64 precision)."""
    x = RNG.standard_normal((2, 3, 4))
    # Distinct values at least 1e-3 apart: no window maximum changes within the checker's step.
    local = np.random.default_rng(64)  # draws of its own: the shared RNG's sequence stays
    pool_input = local.permutation(48).reshape(2, 3, 2, 4) * 1e-3
    return {
        "MatMul": (lambda a, b: ops.run("MatMul", [a, b])[0], [x[0], RNG.standard_normal((4, 2))]),
        "BiasAdd": (lambda a, b: nn.bias_add(a, b), [x, RNG.standard_normal(4)]),
        "BiasAddGrad": (lambda g: ops.run("BiasAddGrad", [g])[0], [x]),
        "Relu": (lambda a: nn.relu(a), [x + np.sign(x) * 0.05]),
        "ReluGrad": (lambda g: ops.run("ReluGrad", [g, x + np.sign(x) * 0.05])[0], [x]),
        "Softmax": (lambda a: nn.softmax(a), [x]),
        "SoftmaxAxis0": (lambda a: nn.softmax(a, axis=0), [x]),
        "Conv2D": (
            lambda a, w: nn.conv2d(a, w, 2, [[0, 0], [1, 0], [0, 2], [0, 0]]),
            [local.standard_normal((2, 5, 4, 3)), local.standard_normal((2, 3, 3, 2))],
        ),
        "MaxPool": (
            lambda a: nn.max_pool2d(a, 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]]),
            [pool_input],
        ),
        "MaxPoolDepth": (
            lambda a: nn.max_pool2d(a, [1, 1, 1, 2], [1, 1, 1, 2], "VALID"),
            [pool_input],
        ),
        "AvgPool": (lambda a: nn.avg_pool2d(a, 2, 1, "SAME"), [pool_input]),
    }


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(float64_cases()))
def test_float64_gradients_in_every_layout(name, layout):
    fn, inputs = float64_cases()[name]
    laid_out = [in_layout(x, layout) for x in inputs]
    with ops.GradientTape() as tape:
        y = fn(*laid_out)
    assert y.dtype == np.float64
    seed = np.linspace(-1, 1, y.size).reshape(y.shape)  # (softmax's sum has no gradient)
    for g, x in zip(tape.gradient(y, laid_out, output_gradients=seed), laid_out):
        assert g.dtype == np.float64 and g.shape == x.shape and np.any(g != 0)
    assert swigflow.test.compute_gradient_error(fn, laid_out, delta=1e-6) < 1e-7


def test_the_issue_example_fortran_relu_gradient():
    x = np.asfortranarray(RNG.standard_normal((3, 4)).astype(np.float32))
    with ops.GradientTape() as tape:
        tape.watch(x)
        y = nn.relu(x)
    (dx,) = tape.gradient(y, [x])
    np.testing.assert_array_equal(dx, (x > 0).astype(np.float32))


def test_scalars_stay_scalars():
    x = np.float32(3)
    with ops.GradientTape() as tape:
        y = nn.relu(x)
    assert y.shape == () and y == 3
    dx = tape.gradient(y, x)  # one source in, one gradient out (as in tf)
    assert dx.shape == () and dx == 1
    assert ops.run("Relu", [np.float64(-2)])[0].shape == ()
    assert nn.relu(np.array(-1.5, np.float32)).shape == ()
    assert nn.relu(2.5).shape == ()
    with pytest.raises(errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        nn.softmax(np.float32(1))


def test_gradient_sources_as_one_array_tuple_or_dict():
    a, b = rand(3, 2), rand(2)
    with ops.GradientTape(persistent=True) as tape:
        y = nn.bias_add(a, b)
    da, db = tape.gradient(y, (a, b))
    assert tape.gradient(y, a).shape == (3, 2)
    grads = tape.gradient(y, {"a": a, "b": b})
    np.testing.assert_array_equal(grads["a"], da)
    np.testing.assert_array_equal(grads["b"], db)
    np.testing.assert_array_equal(db, np.full(2, 3, np.float32))


def test_views_made_outside_the_tape_raise_instead_of_returning_zeros():
    x = rand(3, 4)
    with ops.GradientTape() as tape:
        y = nn.relu(x[:, ::2])  # a numpy view: the tape sees a new array
    with pytest.raises(errors.InvalidArgumentError, match="numpy view"):
        tape.gradient(y, [x])
    with ops.GradientTape() as tape:
        h = nn.relu(x)
        y = nn.relu(h.T)  # a view of an op's output
    with pytest.raises(errors.InvalidArgumentError, match="numpy view"):
        tape.gradient(y, [x])
    with ops.GradientTape() as tape:
        y = nn.relu(x)
    with pytest.raises(errors.InvalidArgumentError, match="target is a numpy view"):
        tape.gradient(y[0], [x])
    # Unrelated to the sources: None, as TensorFlow gives (zeros when asked), no error.
    other = rand(3, 4)
    with ops.GradientTape(persistent=True) as tape:
        y = nn.relu(x)
        nn.relu(other[:, :2])
    assert tape.gradient(y, [other]) == [None]
    zero = tape.gradient(y, [other], unconnected_gradients=ops.UnconnectedGradients.ZERO)[0]
    np.testing.assert_array_equal(zero, np.zeros((3, 4), np.float32))


def test_a_target_the_tape_never_saw_gets_none_never_silent_zeros():
    """TF's unconnected_gradients: `y * 2.0` is numpy arithmetic the tape did not record, so
    the target is unconnected to x: None by default, zeros only when asked."""
    x = rand(3, 4)
    with ops.GradientTape(persistent=True) as tape:
        y = nn.relu(x)
    assert tape.gradient(y * 2.0, x) is None
    assert tape.gradient(y * 2.0, {"x": x}) == {"x": None}
    zero = tape.gradient(y * 2.0, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(zero, np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(tape.gradient(y, x), (x > 0).astype(np.float32))
    with pytest.raises(ValueError):
        tape.gradient(y, x, unconnected_gradients="sometimes")
    # The gradient checker gives an input the output ignores a zero Jacobian, as TF's does.
    w = rand(3, 4)
    assert swigflow.test.compute_gradient_error(lambda a, b: nn.relu(a), [x + 0.1, w]) < 1e-2


def test_non_native_byte_order_is_converted_not_misread():
    x = rand(2, 3)
    swapped = x.astype(x.dtype.newbyteorder(">"))
    np.testing.assert_array_equal(nn.relu(swapped), nn.relu(x))
    with ops.GradientTape() as tape:
        y = nn.relu(swapped)
    np.testing.assert_array_equal(tape.gradient(y, swapped), (x > 0).astype(np.float32))


def test_custom_gradient():
    @ops.custom_gradient
    def double_relu(x):
        y = nn.relu(x) * 2

        def grad(dy):
            return dy * 2 * (x > 0)

        return y, grad

    x = rand(5)
    with ops.GradientTape() as tape:
        y = double_relu(x)
        z = nn.relu(y)
    assert [op.type for op in tape._ops] == ["double_relu", "Relu"]
    np.testing.assert_array_equal(tape.gradient(z, x), 2 * (x > 0).astype(np.float32))


def test_every_registered_op_has_a_gradient():
    for op in ops.list_ops():
        assert callable(ops.get_gradient(op["name"]))


def test_gradient_registry():
    with pytest.raises(KeyError, match="already registered"):
        ops.RegisterGradient("Relu")(lambda op, grad: [grad])
    with pytest.raises(LookupError, match="No gradient defined"):
        ops.get_gradient("NoSuchOp")

    @ops.RegisterGradient("TestOnlyOp")
    def _grad(op, grad):
        return [grad]

    assert ops.get_gradient("TestOnlyOp") is _grad


# --- the registry and errors --------------------------------------------------------------------


def test_list_ops_describes_ops_like_ops_pbtxt():
    conv = next(op for op in ops.list_ops() if op["name"] == "Conv2D")
    assert [i["name"] for i in conv["inputs"]] == ["input", "filter"]
    assert conv["outputs"] == [{"name": "output", "type": "T"}]
    attrs = {a["name"]: a for a in conv["attrs"]}
    assert attrs["padding"]["allowed"] == ["SAME", "VALID", "EXPLICIT"]
    assert (
        attrs["dilations"]["default"] == [1, 1, 1, 1] and attrs["strides"]["has_default"] is False
    )
    assert attrs["T"]["allowed"] == ["float", "double", "int32"]
    assert conv["kernels"] == ["float", "double", "int32"]
    assert "convolution" in conv["doc"]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ops.run("NoSuchOp", []), errors.NotFoundError, "Op type not registered 'NoSuchOp'"),
        (lambda: ops.run("Relu", []), errors.InvalidArgumentError, "Relu expects 1 inputs, got 0"),
        (lambda: ops.run("Conv2D", [rand(1, 3, 3, 1), rand(1, 1, 1, 1)], padding="SAME"),
         errors.InvalidArgumentError, "NodeDef missing attr 'strides' from Op<name=Conv2D"),
        (lambda: ops.run("Relu", [rand(2)], alpha=1), errors.InvalidArgumentError,
         "NodeDef mentions attr 'alpha' not in Op<name=Relu"),
        (lambda: nn.conv2d(rand(1, 3, 3, 1), rand(1, 1, 1, 1), 1, "FULL"), errors.InvalidArgumentError,
         'Value for attr \'padding\' of "FULL" is not in the list of allowed values: "SAME", "VALID", "EXPLICIT"'),
        (lambda: nn.conv2d(np.ones((1, 3, 3, 1), np.int64), np.ones((1, 1, 1, 1), np.int64), 1, "SAME"),
         errors.InvalidArgumentError,
         "Value for attr 'T' of int64 is not in the list of allowed values: float, double, int32"),
        (lambda: ops.run("MatMul", [rand(2, 3), np.ones((3, 2))]), errors.InvalidArgumentError,
         "cannot compute MatMul as input #1(zero-based) was expected to be a float tensor but is a double tensor"),
        (lambda: nn.conv2d(rand(3, 3, 1), rand(1, 1, 1, 1), 1, "SAME"), errors.InvalidArgumentError,
         "input must be 4-dimensional[3,3,1]"),
        (lambda: nn.conv2d(rand(1, 3, 3, 2), rand(1, 1, 3, 1), 1, "SAME"), errors.InvalidArgumentError,
         "input depth must be evenly divisible by filter depth: 2 vs 3"),
        (lambda: nn.conv2d(rand(1, 3, 3, 1), rand(1, 1, 1, 1), [2, 1, 1, 1], "SAME"),
         errors.UnimplementedError, "does not yet support strides in the batch and depth dimensions"),
        (lambda: nn.conv2d(rand(1, 3, 3, 1), rand(1, 1, 1, 1), 0, "SAME"), errors.InvalidArgumentError,
         "Row and column strides should be larger than 0."),
        (lambda: nn.conv2d(rand(1, 1, 2, 1), rand(3, 3, 1, 1), 1, "VALID"), errors.InvalidArgumentError,
         "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]"),
        (lambda: ops.run("Conv2D", [rand(1, 3, 3, 1), rand(1, 1, 1, 1)], strides=[1, 1, 1, 1], padding="SAME",
                         explicit_paddings=[1, 1]), errors.InvalidArgumentError,
         "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"),
        (lambda: nn.avg_pool2d(rand(1, 3, 3, 2), [1, 1, 1, 2], [1, 1, 1, 2], "SAME"),
         errors.UnimplementedError, "Pooling is not yet supported on the depth dimension."),
        (lambda: nn.max_pool2d(rand(1, 3, 3, 1), [1, 2, 2, 2], 1, "SAME"), errors.UnimplementedError,
         "MaxPooling supports exactly one of pooling across depth or pooling across width/height."),
        (lambda: ops.run("MatMul", [rand(2, 3), rand(4, 5)]), errors.InvalidArgumentError,
         "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"),
        (lambda: nn.bias_add(rand(2, 3), rand(4)), errors.InvalidArgumentError,
         "Must provide as many biases as the last dimension of the input tensor"),
        (lambda: nn.conv2d_backprop_input([1, 3, 3, 1], rand(1, 1, 1, 1), rand(1, 2, 2, 1), 1, "SAME"),
         errors.InvalidArgumentError, "out_backprop has shape [1,2,2,1] but the convolution's output has [1,3,3,1]"),
        (lambda: ops.run("Relu", [np.array(["a"])]), TypeError, "unsupported input dtype"),
    ],
)  # fmt: skip
def test_errors_read_like_tensorflow(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert message in str(raised.value)


# --- ISA paths and threads ----------------------------------------------------------------------

CHILD = """
import json, numpy as np, swigflow
from swigflow import nn
rng = np.random.default_rng(1)
x, w = rng.standard_normal((2, 15, 24, 17)).astype(np.float32), rng.standard_normal((3, 3, 17, 37)).astype(np.float32)
y = nn.conv2d(x, w, [1, 1], "SAME")
dy = rng.standard_normal(y.shape).astype(np.float32)
out = {
    "isa": swigflow.linalg.kernel_isa(),
    "y": y.tobytes().hex(),
    "dx": nn.conv2d_backprop_input(x.shape, w, dy, [1, 1], "SAME").tobytes().hex(),
    "dw": nn.conv2d_backprop_filter(x, w.shape, dy, [1, 1], "SAME").tobytes().hex(),
    "pool": nn.max_pool2d(x, 3, 2, "SAME").tobytes().hex(),
}
# One sliver of output channels and many rows of dy: the filter gradient sums the rows in parts.
x2, dy2 = rng.standard_normal((4, 20, 20, 16)).astype(np.float32), rng.standard_normal((4, 20, 20, 8)).astype(np.float32)
out["dw_parts"] = nn.conv2d_backprop_filter(x2, [3, 3, 16, 8], dy2, [1, 1], "SAME").tobytes().hex()
# An RGB stem's filter gradient: spans of filter rows.
x3, dy3 = rng.standard_normal((2, 30, 30, 3)).astype(np.float32), rng.standard_normal((2, 15, 15, 40)).astype(np.float32)
out["dw_spans"] = nn.conv2d_backprop_filter(x3, [7, 7, 3, 40], dy3, [2, 2], "SAME").tobytes().hex()
print(json.dumps(out))
"""


def run_child(**env):
    result = subprocess.run(
        [sys.executable, "-c", CHILD], env={**os.environ, **env}, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    return out["isa"], {
        k: np.frombuffer(bytes.fromhex(v), np.float32) for k, v in out.items() if k != "isa"
    }


def test_every_isa_path_and_thread_count():
    rng = np.random.default_rng(1)
    x, w = (
        rng.standard_normal((2, 15, 24, 17)).astype(np.float32),
        rng.standard_normal((3, 3, 17, 37)).astype(np.float32),
    )
    ref = conv_ref(x, w, [1, 1], "SAME", [1, 1]).ravel()
    rng.standard_normal((2, 15, 24, 37))  # the child's dy, drawn before x2 and dy2
    x2 = rng.standard_normal((4, 20, 20, 16)).astype(np.float32)
    dy2 = rng.standard_normal((4, 20, 20, 8)).astype(np.float32)
    dw_ref = backprop_filter_ref(x2, (3, 3, 16, 8), dy2, [1, 1], "SAME", [1, 1]).ravel()
    x3 = rng.standard_normal((2, 30, 30, 3)).astype(np.float32)
    dy3 = rng.standard_normal((2, 15, 15, 40)).astype(np.float32)
    spans_ref = backprop_filter_ref(x3, (7, 7, 3, 40), dy3, [2, 2], "SAME", [1, 1]).ravel()
    seen = {}
    for isa in ("scalar", "avx2", "avx512"):
        for threads in ("1", "2", "4"):
            name, out = run_child(SWIGFLOW_ISA=isa, SWIGFLOW_NUM_THREADS=threads)
            seen[(isa, threads)] = out
            if name != isa:
                continue  # the machine lacks it: the child fell back (and said so)
            np.testing.assert_allclose(out["y"], ref, atol=2e-4)
            np.testing.assert_allclose(out["dw_parts"], dw_ref, atol=2e-3)
            np.testing.assert_allclose(out["dw_spans"], spans_ref, atol=2e-3)
        one = seen[(isa, "1")]
        for threads in ("2", "4"):
            for key in one:  # bit-identical
                assert one[key].tobytes() == seen[(isa, threads)][key].tobytes(), (
                    isa,
                    threads,
                    key,
                )


def test_tapes_record_their_own_thread_only():
    import threading

    x = rand(4)
    with ops.GradientTape() as tape:
        other = threading.Thread(target=lambda: nn.relu(rand(3)))
        other.start()
        other.join()
        y = nn.relu(x)
    assert [op.type for op in tape._ops] == ["Relu"]
    np.testing.assert_array_equal(tape.gradient(y, [x])[0], (x > 0).astype(np.float32))


def test_conv2d_with_extra_batch_dimensions():
    # conv_ops_test.py: inputs of rank 5 are batches of batches.
    x, w = rand(2, 3, 5, 5, 2), rand(3, 3, 2, 4)
    y = nn.conv2d(x, w, 1, "SAME")
    assert y.shape == (2, 3, 5, 5, 4)
    np.testing.assert_array_equal(
        y.reshape(6, 5, 5, 4), nn.conv2d(x.reshape(6, 5, 5, 2), w, 1, "SAME")
    )
    assert (
        swigflow.test.compute_gradient_error(
            lambda a, b: nn.conv2d(a, b, 1, "SAME"), [rand(1, 2, 4, 4, 2), w]
        )
        < 2e-3
    )


def test_conv2d_backprop_input_takes_spatial_sizes():
    w, dy = rand(3, 3, 2, 4), rand(1, 5, 5, 4)
    np.testing.assert_array_equal(
        nn.conv2d_backprop_input([5, 5], w, dy, 1, "SAME"),
        nn.conv2d_backprop_input([1, 5, 5, 2], w, dy, 1, "SAME"),
    )


def test_pooling_window_larger_than_a_valid_input():
    # MaxPool refuses it, as TensorFlow's current CPU kernel does (2.21 returned an empty
    # output); AvgPool returns the empty output, as TensorFlow does.
    x = np.ones((1, 3, 3, 1), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="is larger than the input tensor"):
        nn.max_pool2d(x, 4, 1, "VALID")
    assert nn.avg_pool2d(x, 4, 1, "VALID").shape == (1, 0, 0, 1)


def test_log_softmax_equals_tensorflow():
    # Values from TF 2.21 (tf.nn.log_softmax), float32 and float64.
    x = np.array([[1, 2, 3], [-1000, 0, 1000]], np.float32)
    np.testing.assert_allclose(
        nn.log_softmax(x),
        [[-2.4076058864593506, -1.4076058864593506, -0.40760594606399536], [-2000, -1000, 0]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        nn.log_softmax(np.array([1.0, 2.0, 3.0])),
        [-2.4076059644443806, -1.4076059644443804, -0.4076059644443804],
        rtol=1e-15,
    )
    np.testing.assert_allclose(
        nn.log_softmax(np.array([[1, 2], [3, 5]], np.float32), axis=0),
        [[-2.1269280910491943, -3.0485873222351074], [-0.12692804634571075, -0.04858732968568802]],
        rtol=1e-6,
    )
    with pytest.raises(errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        nn.log_softmax(np.float32(1))


def test_convolution_one_spatial_dimension_is_cross_correlation():
    """tf.nn.convolution with a [KW, C, OC] filter: a 1-D cross-correlation per channel pair,
    strides and explicit [N, W, C] padding included, with gradients for both operands."""
    x = rand(2, 9, 3)
    w = rand(4, 3, 2)
    y = nn.convolution(x, w, strides=2, padding=[[0, 0], [1, 2], [0, 0]])
    xp = np.pad(x.astype(np.float64), [(0, 0), (1, 2), (0, 0)])
    ref = np.stack(
        [np.einsum("nkc,kco->no", xp[:, i : i + 4], w) for i in range(0, xp.shape[1] - 3, 2)],
        axis=1,
    )
    assert y.shape == ref.shape == (2, 5, 2)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    conv1d = lambda a, b: nn.convolution(a, b, padding="SAME")  # noqa: E731
    assert swigflow.test.compute_gradient_error(conv1d, [x, w]) < 2e-3
