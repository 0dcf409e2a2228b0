"""tensorflow/python/kernel_tests/nn_ops/conv_ops_test.py on the CPU in NHWC: Conv2DTest,
DepthwiseConv2DTest, SeparableConv2DTest, DeepConv2DTest and FusedConv2DTest, with the
Inception shapes of GetShrunkInceptionShapes.

Each _VerifyValues case runs in float32, float16, float64 and int32 (TF's CPU configs; bfloat16
is left out: numpy has no such type). Where upstream compares the CPU with the GPU, or the
default path with another (DeepConv2D, the layout optimizer, nn_ops.convolution), there is one
CPU here, so results are compared with a float64 reference instead (_reference below: the
convolution as sums over taps, written from its definition). The dilated-backprop tests, which
upstream runs only with a GPU or oneDNN, run here against that reference. Adaptations:
nn_ops.convolution(dilation_rate=) is tf.nn.convolution(dilations=) (TF 2's name);
testShapeFunctionEdgeCases is graph-mode shape inference, so its cases are run eagerly and
raise what TensorFlow 2.21 raises eagerly (ValueError for malformed padding lists,
InvalidArgumentError from the kernel for the rest); testConvolutionClass2DExpandedBatch uses
nn_ops.Convolution, a class outside TF's public API, and is not translated; the
Conv2DBenchmark methods are GPU benchmarks.
"""

import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

from swigflow import errors, nn
from swigflow.ops import GradientTape, gen_nn_ops
from swigflow.test import compute_gradient

FLOAT_DTYPES = [np.float32, np.float16, np.float64]  # _DtypesToTest: float32 first


def _numpy_tensor(shape):
    """_CreateNumpyTensor: 1, 2, ... in float32."""
    return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape)


def _full_padding(padding):
    """An upstream padding argument: a string, or [[top, bottom], [left, right]] made 4 pairs."""
    return padding if isinstance(padding, str) else [(0, 0), *padding, (0, 0)]


# --- the float64 reference --------------------------------------------------------------------


def _output_size(size, k, stride, dilation, padding, before_after):
    """(output size, padding before) of one spatial axis, TensorFlow's rules."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        return max(0, (size - eff + stride) // stride), 0
    if padding == "SAME":
        out = (size + stride - 1) // stride
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2
    before, after = before_after
    return max(0, (size + before + after - eff + stride) // stride), before


def _taps(x_shape, w_shape, strides, dilations, padding):
    """The geometry shared by the reference's three functions."""
    pairs = [None, None] if isinstance(padding, str) else list(padding)
    oh, top = _output_size(x_shape[1], w_shape[0], strides[0], dilations[0], padding, pairs[0])
    ow, left = _output_size(x_shape[2], w_shape[1], strides[1], dilations[1], padding, pairs[1])
    # Pad generously on both sides; each tap then reads a strided slice.
    pad_h = (w_shape[0] - 1) * dilations[0] + oh * strides[0] + x_shape[1]
    pad_w = (w_shape[1] - 1) * dilations[1] + ow * strides[1] + x_shape[2]

    def window(ky, kx):
        y0, x0 = pad_h - top + ky * dilations[0], pad_w - left + kx * dilations[1]
        return (slice(None), slice(y0, y0 + (oh - 1) * strides[0] + 1, strides[0]),
                slice(x0, x0 + (ow - 1) * strides[1] + 1, strides[1]))  # fmt: skip

    return (oh, ow), ((0, 0), (pad_h, pad_h), (pad_w, pad_w), (0, 0)), window


def _reference(x, w, strides=(1, 1), dilations=(1, 1), padding="VALID"):
    """Conv2D in float64, grouped when the filter has fewer input channels than x."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    (oh, ow), pads, window = _taps(x.shape, w.shape, strides, dilations, padding)
    groups = x.shape[3] // w.shape[2]
    xp = np.pad(x, pads)
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    if out.size == 0:
        return out
    c, oc = w.shape[2], w.shape[3] // groups
    for g in range(groups):
        for ky in range(w.shape[0]):
            for kx in range(w.shape[1]):
                patch = xp[window(ky, kx)][..., g * c : (g + 1) * c]
                out[..., g * oc : (g + 1) * oc] += patch @ w[ky, kx, :, g * oc : (g + 1) * oc]
    return out


def _reference_grads(x, w, dy, strides=(1, 1), dilations=(1, 1), padding="VALID"):
    """(dx, dw) of Conv2D in float64: the adjoints of _reference (one group)."""
    x, w, dy = (np.asarray(a, np.float64) for a in (x, w, dy))
    _, pads, window = _taps(x.shape, w.shape, strides, dilations, padding)
    xp = np.pad(x, pads)
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    for ky in range(w.shape[0]):
        for kx in range(w.shape[1]):
            dxp[window(ky, kx)] += dy @ w[ky, kx].T
            dw[ky, kx] = np.einsum("nhwc,nhwo->co", xp[window(ky, kx)], dy)
    ph, pw = pads[1][0], pads[2][0]
    return dxp[:, ph : ph + x.shape[1], pw : pw + x.shape[2]], dw


def test_reference_against_upstream_values():
    """The reference reproduces testConv2D2x2Filter's and the explicit-padding rule."""
    got = _reference(_numpy_tensor([1, 2, 3, 3]), _numpy_tensor([2, 2, 3, 3]))
    np.testing.assert_array_equal(got.ravel(), [2271, 2367, 2463, 2901, 3033, 3165])
    got = _reference(_numpy_tensor([1, 2, 3, 3]), _numpy_tensor([2, 2, 3, 3]), (2, 2), (1, 1),
                     "SAME")  # fmt: skip
    np.testing.assert_array_equal(got.ravel(), [2271, 2367, 2463, 1230, 1305, 1380])


# --- _VerifyValues ----------------------------------------------------------------------------


def _verify_values(tensor_in_sizes, filter_in_sizes, strides, padding, expected,
                   dilations=(1, 1), tol=1e-5, fp16_tol=1e-3):  # fmt: skip
    """Conv2DTest._VerifyValues: float32, float16, float64 and int32 (NHWC)."""
    x1, x2 = _numpy_tensor(tensor_in_sizes), _numpy_tensor(filter_in_sizes)
    for dtype in [*FLOAT_DTYPES, np.int32]:
        conv = nn.conv2d(
            x1.astype(dtype), x2.astype(dtype), strides=[1, *strides, 1],
            padding=_full_padding(padding), dilations=[1, *dilations, 1],
        )  # fmt: skip
        assert conv.dtype == dtype
        if np.issubdtype(conv.dtype, np.integer):
            np.testing.assert_array_equal(np.ravel(conv), np.rint(expected))
        else:
            tol_to_use = fp16_tol if dtype == np.float16 else tol
            np.testing.assert_allclose(
                np.ravel(conv).astype(np.float64), expected, atol=tol_to_use, rtol=tol_to_use
            )


def _verify_explicit_paddings(tensor_in_sizes, filter_in_sizes, strides, padding,
                              dilations=(1, 1), tol=1e-5, fp16_tol=1e-3):  # fmt: skip
    """Conv2DTest._VerifyExplicitPaddings: against Conv2D of the padded input, VALID."""
    x = np.pad(_numpy_tensor(tensor_in_sizes), [(0, 0), *padding, (0, 0)])
    expected = nn.conv2d(x, _numpy_tensor(filter_in_sizes), [1, *strides, 1], "VALID",
                         dilations=[1, *dilations, 1]).ravel()  # fmt: skip
    _verify_values(tensor_in_sizes, filter_in_sizes, strides, padding, expected, dilations,
                   tol=tol, fp16_tol=fp16_tol)  # fmt: skip


# (upstream method, tensor_in_sizes, filter_in_sizes, strides, padding, expected)
VALUE_CASES = [
    ("testConv2D1x1Filter", [1, 2, 3, 3], [1, 1, 3, 3], [1, 1], "VALID",
     [30.0, 36.0, 42.0, 66.0, 81.0, 96.0, 102.0, 126.0, 150.0, 138.0, 171.0, 204.0, 174.0, 216.0,
      258.0, 210.0, 261.0, 312.0]),
    ("testConv2DEmpty", [0, 2, 3, 3], [1, 1, 3, 3], [1, 1], "VALID", []),
    ("testConv2D2x2Filter", [1, 2, 3, 3], [2, 2, 3, 3], [1, 1], "VALID",
     [2271.0, 2367.0, 2463.0, 2901.0, 3033.0, 3165.0]),
    ("testConv2D1x2Filter", [1, 2, 3, 3], [1, 2, 3, 3], [1, 1], "VALID",
     [231.0, 252.0, 273.0, 384.0, 423.0, 462.0, 690.0, 765.0, 840.0, 843.0, 936.0, 1029.0]),
    ("testConv2D2x2FilterStride2", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], "VALID",
     [2271.0, 2367.0, 2463.0]),
    ("testConv2D2x2FilterStride2Same", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], "SAME",
     [2271.0, 2367.0, 2463.0, 1230.0, 1305.0, 1380.0]),
    ("testConv2D2x2FilterStride1x2", [1, 3, 6, 1], [2, 2, 1, 1], [1, 2], "VALID",
     [58.0, 78.0, 98.0, 118.0, 138.0, 158.0]),
    ("testConv2DKernelSmallerThanStrideValid", [1, 7, 7, 1], [2, 2, 1, 1], [3, 3], "VALID",
     [65, 95, 275, 305]),
    ("testConv2DKernelSmallerThanStrideSame_1", [1, 3, 3, 1], [1, 1, 1, 1], [2, 2], "SAME",
     [1, 3, 7, 9]),
    ("testConv2DKernelSmallerThanStrideSame_2", [1, 4, 4, 1], [1, 1, 1, 1], [2, 2], "SAME",
     [1, 3, 9, 11]),
    ("testConv2DKernelSmallerThanStrideSame_3", [1, 4, 4, 1], [2, 2, 1, 1], [3, 3], "SAME",
     [44, 28, 41, 16]),
    ("testConv2DKernelSizeMatchesInputSize", [1, 2, 2, 1], [2, 2, 1, 2], [1, 1], "VALID",
     [50, 60]),
    ("testConv2dOnlyPaddingReturnsZeros", [1, 0, 2, 1], [1, 1, 1, 1], [1, 1], [[1, 1], [1, 1]],
     [0, 0, 0, 0, 0, 0, 0, 0]),
]  # fmt: skip


@pytest.mark.parametrize("case", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_verify_values(case):
    _, tensor_in_sizes, filter_in_sizes, strides, padding, expected = case
    _verify_values(tensor_in_sizes, filter_in_sizes, strides, padding, expected)


# (upstream method, tensor_in_sizes, filter_in_sizes, strides, padding, dilations, tol)
EXPLICIT_CASES = [
    ("testConv2D0x0Padding_1", [1, 2, 3, 3], [2, 2, 3, 3], [1, 1], [[0, 0], [0, 0]], (1, 1), 1e-5),
    ("testConv2D0x0Padding_2", [3, 4, 3, 2], [1, 1, 2, 1], [2, 2], [[0, 0], [0, 0]], (1, 1), 1e-5),
    ("testConv2D1x1Padding_1", [1, 2, 3, 2], [2, 2, 2, 2], [1, 1], [[1, 1], [1, 1]], (1, 1), 1e-5),
    ("testConv2D1x1Padding_2", [1, 2, 2, 1], [1, 1, 1, 2], [1, 1], [[1, 1], [1, 1]], (1, 1), 1e-5),
    ("testConv2D2x2Padding_1", [1, 2, 1, 2], [2, 1, 2, 1], [1, 1], [[2, 2], [2, 2]], (1, 1), 1e-5),
    ("testConv2D2x2Padding_2", [1, 2, 1, 2], [1, 1, 2, 1], [2, 1], [[2, 2], [2, 2]], (1, 1), 1e-5),
    ("testConv2DOnlyBottomPadding_1", [1, 2, 3, 3], [2, 2, 3, 2], [1, 1], [[0, 3], [0, 0]], (1, 1),
     2e-5),
    ("testConv2DOnlyBottomPadding_2", [2, 2, 4, 3], [1, 2, 3, 2], [2, 2], [[0, 3], [0, 0]], (1, 1),
     1e-5),
    ("testConv2DOnlyTopRightPadding_1", [1, 2, 3, 3], [2, 2, 3, 2], [1, 1], [[1, 0], [0, 2]],
     (1, 1), 5e-5),
    ("testConv2DOnlyTopRightPadding_2", [1, 2, 4, 2], [2, 2, 2, 2], [1, 3], [[1, 0], [0, 2]],
     (1, 1), 1e-5),
    ("testConv2DLotsPadding_1", [1, 1, 1, 3], [2, 2, 3, 3], [1, 1], [[3, 4], [4, 2]], (1, 1), 1e-5),
    ("testConv2DLotsPadding_2", [1, 2, 1, 1], [2, 2, 1, 3], [2, 1], [[3, 4], [4, 2]], (1, 1), 1e-5),
    ("testConv2DExplicitPaddingWithDilations_1", [1, 3, 2, 1], [1, 2, 1, 2], [1, 1],
     [[1, 0], [0, 1]], (2, 1), 1e-5),
    ("testConv2DExplicitPaddingWithDilations_2", [1, 2, 3, 2], [3, 2, 2, 1], [1, 1],
     [[2, 1], [1, 2]], (2, 3), 1e-5),
]  # fmt: skip


@pytest.mark.parametrize("case", EXPLICIT_CASES, ids=[c[0] for c in EXPLICIT_CASES])
def test_explicit_paddings(case):
    """Also testConv2DExplicitPaddingWithLayoutOptimizer: the same cases (no Grappler here)."""
    _, tensor_in_sizes, filter_in_sizes, strides, padding, dilations, tol = case
    _verify_explicit_paddings(tensor_in_sizes, filter_in_sizes, strides, padding, dilations,
                              tol=tol)  # fmt: skip


@pytest.mark.parametrize("function", ["conv2d", "convolution"])
def test_conv2d_expanded_batch(function):
    """testConv2DExpandedBatch and testConvolutionWith2SpatialDimensionsAndExpandedBatch."""
    filter_in = _numpy_tensor([1, 1, 3, 3])
    x1 = _numpy_tensor([10, 2, 3, 3])
    x2 = x1.reshape([2, 5, 2, 3, 3])
    if function == "conv2d":
        conv1 = nn.conv2d(x1, filter_in, strides=[1, 1], padding="VALID")
        conv2 = nn.conv2d(x2, filter_in, strides=[1, 1], padding="VALID")
    else:
        conv1 = nn.convolution(x1, filter_in, strides=[1, 1], padding="VALID")
        conv2 = nn.convolution(x2, filter_in, strides=[1, 1], padding="VALID")
    assert conv1.shape == (10, 2, 3, 3)
    assert conv2.shape == (2, 5, 2, 3, 3)
    np.testing.assert_array_equal(conv1, conv2.reshape(conv1.shape))


# --- dilations: _VerifyDilatedConvValues ------------------------------------------------------


def _verify_dilated_conv_values(tensor_in_sizes, filter_in_sizes, strides, padding, dilations,
                                rtol=1e-4):  # fmt: skip
    """Conv2D with dilations against tf.nn.convolution (upstream) and the float64 reference."""
    x1, x2 = _numpy_tensor(tensor_in_sizes), _numpy_tensor(filter_in_sizes)
    expected = nn.convolution(x1, x2, padding=padding, strides=strides, dilations=dilations)
    computed = nn.conv2d(x1, x2, strides=[1, *strides, 1], dilations=[1, *dilations, 1],
                         padding=padding)  # fmt: skip
    np.testing.assert_allclose(computed.ravel(), expected.ravel(), atol=1e-5, rtol=rtol)
    reference = _reference(x1, x2, strides, dilations, padding)
    np.testing.assert_allclose(computed.ravel(), reference.ravel(), atol=1e-5, rtol=rtol)


DILATED_CASES = [
    ("testConv2D2x2Filter2x1Dilation", [1, 4, 4, 1], [2, 2, 1, 1], [1, 1], [2, 1], "VALID"),
    ("testConv2DEmptyDilation", [0, 2, 3, 3], [1, 1, 3, 3], [1, 1], [2, 1], "VALID"),
    ("testConv2D2x2FilterDilation", [1, 2, 3, 3], [2, 2, 3, 3], [1, 1], [1, 2], "VALID"),
    ("testConv2D1x2FilterDilation", [1, 2, 3, 3], [1, 2, 3, 3], [1, 1], [2, 1], "VALID"),
    ("testConv2DKernelSizeMatchesInputSizeDilation", [1, 3, 3, 1], [2, 2, 1, 2], [1, 1], [2, 2],
     "VALID"),
]  # fmt: skip


@pytest.mark.parametrize("case", DILATED_CASES, ids=[c[0] for c in DILATED_CASES])
def test_dilated_conv_values(case):
    _, tensor_in_sizes, filter_in_sizes, strides, dilations, padding = case
    _verify_dilated_conv_values(tensor_in_sizes, filter_in_sizes, strides, padding, dilations)


def test_convolution_strides_with_dilations():
    """tf.nn.convolution refuses strides and dilations above 1 together (ValueError)."""
    with pytest.raises(ValueError, match="strides > 1 not supported in conjunction"):
        nn.convolution(_numpy_tensor([1, 4, 4, 1]), _numpy_tensor([2, 2, 1, 1]), strides=2,
                       dilations=2)  # fmt: skip


# --- group convolution ------------------------------------------------------------------------


@pytest.mark.parametrize("filter_dims", [[3, 3, 4, 8], [1, 1, 2, 16]])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("dilation", [1, 2])
def test_group_conv_fwd(dilation, stride, filter_dims):
    """testConv2DGroupConvFwd (_VerifyGroupConvFwd): against one conv2d per group."""
    tensor_in = _numpy_tensor([10, 32, 32, 16])
    filter_in = _numpy_tensor(filter_dims)
    num_groups = 16 // filter_dims[2]
    strides, dilations = [1, stride, stride, 1], [1, dilation, dilation, 1]
    group_conv = nn.conv2d(tensor_in, filter_in, strides, "SAME", dilations=dilations)
    loop = np.concatenate(
        [nn.conv2d(t, f, strides, "SAME", dilations=dilations)
         for t, f in zip(np.split(tensor_in, num_groups, axis=3),
                         np.split(filter_in, num_groups, axis=3))],
        axis=3,
    )  # fmt: skip
    np.testing.assert_allclose(group_conv, loop, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("test_input", [True, False])
def test_group_conv_gradients(test_input):
    """testInputGradientGroupConv and testFilterGradientGroupConv (upstream: CUDA only; the
    grouped gradients run on the CPU here)."""
    _construct_and_test_gradient(2, 5, 4, 3, 3, 4, 6, 1, 1, "VALID", test_input, num_groups=2,
                                 max_err=0.005)  # fmt: skip


# --- backprop input ---------------------------------------------------------------------------


def _run_and_verify_backprop_input(input_sizes, filter_sizes, output_sizes, strides, padding,
                                   expected, dilations=(1, 1)):  # fmt: skip
    """Conv2DTest._RunAndVerifyBackpropInput (float32)."""
    x1, x2 = _numpy_tensor(filter_sizes), _numpy_tensor(output_sizes)
    conv = nn.conv2d_backprop_input(
        input_sizes, x1, x2, strides=[1, *strides, 1], padding=_full_padding(padding),
        dilations=[1, *dilations, 1],
    )  # fmt: skip
    if len(input_sizes) == 4:
        assert list(conv.shape) == list(input_sizes)
    assert_all_close_according_to_type(expected, conv.ravel(), atol=1e-5)


# (upstream method, input_sizes, filter_sizes, output_sizes, strides, padding, expected)
BACKPROP_INPUT_CASES = [
    ("testConv2D2x2Depth1ValidBackpropInput", [1, 2, 3, 1], [2, 2, 1, 1], [1, 1, 2, 1], [1, 1],
     "VALID", [1.0, 4.0, 4.0, 3.0, 10.0, 8.0]),
    ("testConv2DEmptyBackpropInput", [0, 2, 3, 1], [2, 2, 1, 1], [0, 1, 2, 1], [1, 1], "VALID", []),
    ("testConv2D2x2Depth3ValidBackpropInput", [1, 2, 3, 3], [2, 2, 3, 3], [1, 1, 2, 3], [1, 1],
     "VALID",
     [14.0, 32.0, 50.0, 100.0, 163.0, 226.0, 167.0, 212.0, 257.0, 122.0, 140.0, 158.0, 478.0,
      541.0, 604.0, 437.0, 482.0, 527.0]),
    ("testConv2D2x2Depth3ValidBackpropInputStride1x2", [1, 3, 6, 1], [2, 2, 1, 1], [1, 2, 3, 1],
     [1, 2], "VALID",
     [1.0, 2.0, 2.0, 4.0, 3.0, 6.0, 7.0, 12.0, 11.0, 18.0, 15.0, 24.0, 12.0, 16.0, 15.0, 20.0,
      18.0, 24.0]),
    ("testConv2DStrideTwoFilterOneSameBackpropInput", [1, 4, 4, 1], [1, 1, 1, 1], [1, 2, 2, 1],
     [2, 2], "SAME",
     [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("testConv2DKernelSizeMatchesInputSizeBackpropInput", [1, 2, 2, 1], [2, 2, 1, 2],
     [1, 1, 1, 2], [1, 1], "VALID", [5.0, 11.0, 17.0, 23.0]),
    ("testConv2DInputSizesContainsOnlySpatialDimensionsBackpropInput", [2, 2], [2, 2, 1, 2],
     [1, 1, 1, 2], [1, 1], "VALID", [5.0, 11.0, 17.0, 23.0]),
    ("testConv2DBackpropInputDegenerateBackpropInput", [3, 1, 1, 2], [1, 3, 2, 3], [3, 1, 0, 3],
     [1, 2], "VALID", np.zeros([3, 1, 1, 2]).ravel()),
]  # fmt: skip


@pytest.mark.parametrize("case", BACKPROP_INPUT_CASES, ids=[c[0] for c in BACKPROP_INPUT_CASES])
def test_backprop_input(case):
    _, input_sizes, filter_sizes, output_sizes, strides, padding, expected = case
    _run_and_verify_backprop_input(input_sizes, filter_sizes, output_sizes, strides, padding,
                                   expected)  # fmt: skip


def test_backprop_input_int32():
    """Conv2DBackpropInput has an int32 kernel in TensorFlow (Conv2DBackpropFilter has not)."""
    conv = nn.conv2d_backprop_input(
        [1, 2, 3, 3],
        _numpy_tensor([2, 2, 3, 3]).astype(np.int32),
        _numpy_tensor([1, 1, 2, 3]).astype(np.int32),
        1,
        "VALID",
    )
    assert conv.dtype == np.int32
    np.testing.assert_array_equal(conv.ravel(), BACKPROP_INPUT_CASES[2][-1])
    with pytest.raises(errors.InvalidArgumentError, match="int32 is not in the list"):
        nn.conv2d_backprop_filter(np.ones([1, 2, 3, 3], np.int32), [2, 2, 3, 3],
                                  np.ones([1, 1, 2, 3], np.int32), 1, "VALID")  # fmt: skip


# --- backprop filter --------------------------------------------------------------------------


def _run_and_verify_backprop_filter(input_sizes, filter_sizes, output_sizes, strides, padding,
                                    expected, dilations=(1, 1), err=1e-5):  # fmt: skip
    """Conv2DTest._RunAndVerifyBackpropFilter, in float32, float16 and float64."""
    x0, x2 = _numpy_tensor(input_sizes), _numpy_tensor(output_sizes)
    for dtype in FLOAT_DTYPES:
        conv = nn.conv2d_backprop_filter(
            x0.astype(dtype), filter_sizes, x2.astype(dtype), strides=[1, *strides, 1],
            padding=_full_padding(padding), dilations=[1, *dilations, 1],
        )  # fmt: skip
        assert conv.dtype == dtype and list(conv.shape) == list(filter_sizes)
        np.testing.assert_allclose(conv.ravel().astype(np.float64), expected, rtol=0, atol=err)


BACKPROP_FILTER_CASES = [
    ("testConv2D2x2Depth1ValidBackpropFilter", [1, 2, 3, 1], [2, 2, 1, 1], [1, 1, 2, 1], [1, 1],
     "VALID", [5.0, 8.0, 14.0, 17.0]),
    ("testConv2DEmptyBackpropFilter", [1, 2, 3, 1], [2, 2, 1, 0], [1, 1, 2, 0], [1, 1], "VALID",
     []),
    ("testConv2DBackpropFilterWithEmptyInput", [0, 2, 3, 1], [2, 2, 1, 1], [0, 1, 2, 1], [1, 1],
     "VALID", [0, 0, 0, 0]),
    ("testConv2D2x2Depth3ValidBackpropFilter", [1, 2, 3, 3], [2, 2, 3, 3], [1, 1, 2, 3], [1, 1],
     "VALID",
     [17.0, 22.0, 27.0, 22.0, 29.0, 36.0, 27.0, 36.0, 45.0, 32.0, 43.0, 54.0, 37.0, 50.0, 63.0,
      42.0, 57.0, 72.0, 62.0, 85.0, 108.0, 67.0, 92.0, 117.0, 72.0, 99.0, 126.0, 77.0, 106.0,
      135.0, 82.0, 113.0, 144.0, 87.0, 120.0, 153.0]),
    ("testConv2D2x2Depth3ValidBackpropFilterStride1x2", [1, 3, 6, 1], [2, 2, 1, 1], [1, 2, 3, 1],
     [1, 2], "VALID", [161.0, 182.0, 287.0, 308.0]),
    ("testConv2DStrideTwoFilterOneSameBackpropFilter", [1, 4, 4, 1], [1, 1, 1, 1], [1, 2, 2, 1],
     [2, 2], "SAME", [78.0]),
    ("testConv2DKernelSizeMatchesInputSizeBackpropFilter", [1, 2, 2, 1], [2, 2, 1, 2],
     [1, 1, 1, 2], [1, 1], "VALID", [1.0, 2.0, 2.0, 4.0, 3.0, 6.0, 4.0, 8.0]),
]  # fmt: skip


@pytest.mark.parametrize("case", BACKPROP_FILTER_CASES, ids=[c[0] for c in BACKPROP_FILTER_CASES])
def test_backprop_filter(case):
    _, input_sizes, filter_sizes, output_sizes, strides, padding, expected = case
    _run_and_verify_backprop_filter(input_sizes, filter_sizes, output_sizes, strides, padding,
                                    expected)  # fmt: skip


# --- backprops with dilations -----------------------------------------------------------------


# (upstream method suffix, input_sizes, filter_sizes, strides, dilations, err)
DILATED_BACKPROP_CASES = [
    ("2x2Depth3ValidStride1x1Dilation2x1", [1, 3, 6, 1], [2, 2, 1, 1], [1, 1], [2, 1], 1e-5),
    ("2x2Depth1ValidDilation1x2", [1, 2, 3, 1], [2, 2, 1, 1], [1, 1], [1, 2], 1e-5),
    ("EmptyDilation1x2", [1, 2, 3, 1], [2, 2, 1, 0], [1, 1], [1, 2], 1e-5),
    ("EmptyInputDilation1x2", [0, 2, 3, 1], [2, 2, 1, 1], [1, 1], [1, 2], 1e-5),
    ("2x2Depth3ValidDilation2x2", [1, 3, 4, 3], [2, 2, 3, 3], [1, 1], [2, 2], 1e-5),
    ("2x2Depth3ValidDilation2x1", [1, 3, 2, 3], [2, 2, 3, 3], [1, 1], [2, 1], 1e-4),
    ("KernelSizeMatchesInputSizeDilation2x2", [1, 3, 3, 1], [2, 2, 1, 2], [1, 1], [2, 2], 1e-5),
]  # fmt: skip


@pytest.mark.parametrize("case", DILATED_BACKPROP_CASES, ids=[c[0] for c in DILATED_BACKPROP_CASES])
def test_backprop_dilation(case):
    """_RunAndVerifyBackpropInputDilation and _RunAndVerifyBackpropFilterDilation (testConv2D
    *BackpropInput*Dilation* / *BackpropFilter*Dilation*): the tape's gradients of conv2d and of
    tf.nn.convolution, against the float64 reference's adjoints."""
    _, input_sizes, filter_sizes, strides, dilations, err = case
    x1, x2 = _numpy_tensor(input_sizes), _numpy_tensor(filter_sizes)
    if x2.size == 0:  # TF's CPU Conv2D refuses an empty filter (upstream runs this on GPUs)
        with pytest.raises(errors.InvalidArgumentError, match="filter must not have zero"):
            nn.conv2d(x1, x2, [1, *strides, 1], "VALID", dilations=[1, *dilations, 1])
        return
    for forward in (
        lambda a, b: nn.conv2d(a, b, [1, *strides, 1], "VALID", dilations=[1, *dilations, 1]),
        lambda a, b: nn.convolution(a, b, strides=strides, padding="VALID", dilations=dilations),
    ):
        with GradientTape() as tape:
            tape.watch(x1)
            tape.watch(x2)
            y = forward(x1, x2)
        dx, dw = tape.gradient(y, [x1, x2])
        ref_dx, ref_dw = _reference_grads(x1, x2, np.ones(y.shape), strides, dilations, "VALID")
        np.testing.assert_allclose(dx, ref_dx, rtol=0, atol=err)
        np.testing.assert_allclose(dw, ref_dw, rtol=1e-6, atol=err)


# --- backprops with explicit padding ----------------------------------------------------------


def _run_and_verify_backprop_input_explicit_padding(
    input_sizes, filter_sizes, output_sizes, strides, padding, dilations=(1, 1)
):
    """Conv2DTest._RunAndVerifyBackpropInputExplicitPadding: against the VALID input gradient
    of the padded input, cropped. Upstream skips non-unit dilations on the CPU; they run here."""
    padded = list(input_sizes)
    padded[1] += padding[0][0] + padding[0][1]
    padded[2] += padding[1][0] + padding[1][1]
    c = nn.conv2d_backprop_input(padded, _numpy_tensor(filter_sizes), _numpy_tensor(output_sizes),
                                 strides=[1, *strides, 1], padding="VALID",
                                 dilations=[1, *dilations, 1])  # fmt: skip
    c = c[:, padding[0][0] : c.shape[1] - padding[0][1], padding[1][0] : c.shape[2] - padding[1][1]]
    _run_and_verify_backprop_input(input_sizes, filter_sizes, output_sizes, strides, padding,
                                   c.ravel(), dilations)  # fmt: skip


def _run_and_verify_backprop_filter_explicit_padding(input_sizes, filter_sizes, output_sizes,
                                                     strides, padding, dilations=(1, 1),
                                                     err=1e-5):  # fmt: skip
    """Conv2DTest._RunAndVerifyBackpropFilterExplicitPadding: against the VALID filter gradient
    of the padded input."""
    x0 = np.pad(_numpy_tensor(input_sizes), [(0, 0), *padding, (0, 0)])
    c = nn.conv2d_backprop_filter(x0, filter_sizes, _numpy_tensor(output_sizes),
                                  strides=[1, *strides, 1], padding="VALID",
                                  dilations=[1, *dilations, 1])  # fmt: skip
    _run_and_verify_backprop_filter(input_sizes, filter_sizes, output_sizes, strides, padding,
                                    c.ravel(), dilations, err=err)  # fmt: skip


# (upstream method, input_sizes, filter_sizes, output_sizes, strides, padding, dilations, err)
EXPLICIT_BACKPROP_CASES = [
    ("Padding0x0_1", [1, 2, 3, 1], [2, 2, 1, 1], [1, 1, 2, 1], [1, 1], [[0, 0], [0, 0]], (1, 1),
     1e-5),
    ("Padding0x0_2", [1, 3, 4, 2], [2, 2, 2, 3], [1, 1, 2, 3], [2, 2], [[0, 0], [0, 0]], (1, 1),
     1e-5),
    ("Padding1x1_1", [1, 2, 3, 1], [2, 2, 1, 2], [1, 3, 4, 2], [1, 1], [[1, 1], [1, 1]], (1, 1),
     5e-5),
    ("Padding1x1_2", [1, 2, 3, 2], [1, 1, 2, 1], [1, 4, 3, 1], [1, 2], [[1, 1], [1, 1]], (1, 1),
     1e-5),
    ("Padding1x1_3", [1, 4, 3, 1], [2, 2, 1, 1], [1, 4, 2, 1], [1, 2], [[1, 1], [1, 1]], (2, 2),
     1e-5),
    ("Padding2x2_1", [2, 3, 1, 1], [2, 1, 1, 1], [2, 2, 5, 1], [3, 1], [[2, 2], [2, 2]], (1, 1),
     1e-5),
    ("Padding2x2_2", [1, 3, 6, 1], [3, 2, 1, 1], [1, 3, 4, 1], [1, 2], [[2, 2], [2, 2]], (2, 3),
     1e-5),
    ("Padding_1_8_4_1_1", [1, 2, 3, 1], [2, 2, 1, 1], [1, 10, 8, 1], [1, 1], [[1, 8], [4, 2]],
     (1, 1), 1e-4),
    ("Padding_1_8_4_1_2", [1, 5, 3, 1], [3, 2, 1, 1], [1, 4, 8, 1], [3, 1], [[1, 8], [4, 2]],
     (1, 1), 1e-5),
    ("Padding_5_0_2_2_1", [1, 3, 3, 1], [2, 1, 1, 1], [1, 7, 7, 1], [1, 1], [[5, 0], [2, 2]],
     (1, 1), 1e-4),
    ("Padding_5_0_2_2_2", [1, 4, 2, 1], [3, 3, 1, 1], [1, 5, 2, 1], [1, 2], [[5, 0], [2, 2]],
     (2, 1), 1e-5),
]  # fmt: skip


@pytest.mark.parametrize(
    "case", EXPLICIT_BACKPROP_CASES, ids=[c[0] for c in EXPLICIT_BACKPROP_CASES]
)
def test_backprop_input_explicit_padding(case):
    """testConv2D2x2Depth1<Padding>BackpropInput."""
    _, input_sizes, filter_sizes, output_sizes, strides, padding, dilations, _ = case
    _run_and_verify_backprop_input_explicit_padding(input_sizes, filter_sizes, output_sizes,
                                                    strides, padding, dilations)  # fmt: skip


@pytest.mark.parametrize(
    "case", EXPLICIT_BACKPROP_CASES, ids=[c[0] for c in EXPLICIT_BACKPROP_CASES]
)
def test_backprop_filter_explicit_padding(case):
    """testConv2D2x2Depth1<Padding>BackpropFilter."""
    _, input_sizes, filter_sizes, output_sizes, strides, padding, dilations, err = case
    _run_and_verify_backprop_filter_explicit_padding(input_sizes, filter_sizes, output_sizes,
                                                     strides, padding, dilations, err)  # fmt: skip


# --- gradient checkers ------------------------------------------------------------------------


def _construct_and_test_gradient(batch, input_rows, input_cols, filter_rows, filter_cols,
                                 in_depth, out_depth, stride_rows, stride_cols, padding,
                                 test_input, num_groups=1, max_err=0.003):  # fmt: skip
    """Conv2DTest.ConstructAndTestGradient: float32's Jacobian against central differences,
    float16's and float64's against float32's."""
    input_shape = [batch, input_rows, input_cols, in_depth]
    filter_shape = [filter_rows, filter_cols, in_depth // num_groups, out_depth]
    input_data = np.arange(np.prod(input_shape)) / np.prod(input_shape)
    filter_data = np.arange(np.prod(filter_shape)) / np.prod(filter_shape)
    reference_jacob_t = None
    strides = [1, stride_rows, stride_cols, 1]
    for dtype in FLOAT_DTYPES:
        x = input_data.astype(dtype).reshape(input_shape)
        w = filter_data.astype(dtype).reshape(filter_shape)
        if test_input:
            fn, point = (lambda v, w=w: nn.conv2d(v, w, strides, padding)), x
        else:
            fn, point = (lambda v, x=x: nn.conv2d(x, v, strides, padding)), w
        jacob_t, jacob_n = compute_gradient(fn, [point])
        jacob_t, jacob_n = jacob_t[0], jacob_n[0]
        if dtype == np.float32:
            reference_jacob_t = jacob_t
            err = np.fabs(jacob_t - jacob_n).max()
        else:
            err = np.fabs(jacob_t - reference_jacob_t).max()
        assert err < max_err, (dtype, err)


# (upstream method, batch, input_rows, input_cols, filter_rows, filter_cols, in_depth,
#  out_depth, stride_rows, stride_cols, padding, test_input, max_err)
GRADIENT_CASES = [
    ("testInputGradientValidPaddingStrideOne", 2, 5, 4, 3, 3, 2, 3, 1, 1, "VALID", True, 0.003),
    ("testFilterGradientValidPaddingStrideOne", 4, 6, 5, 2, 2, 2, 3, 1, 1, "VALID", False, 0.003),
    ("testInputGradientValidPaddingStrideTwo", 2, 4, 5, 3, 3, 2, 3, 2, 2, "VALID", True, 0.003),
    ("testFilterGradientValidPaddingStrideTwo", 4, 6, 5, 2, 2, 2, 3, 2, 2, "VALID", False, 0.003),
    ("testInputGradientValidPaddingStrideThree", 2, 7, 6, 3, 3, 4, 5, 3, 3, "VALID", True, 0.003),
    ("testFilterGradientValidPaddingStrideThree", 2, 8, 7, 4, 4, 2, 3, 3, 3, "VALID", False,
     0.003),
    ("testInputGradientSamePaddingStrideOne", 2, 7, 6, 3, 3, 2, 3, 1, 1, "SAME", True, 0.003),
    ("testFilterGradientSamePaddingStrideOne", 4, 6, 5, 2, 2, 2, 3, 1, 1, "SAME", False, 0.003),
    ("testInputGradientSamePaddingStrideTwo", 2, 5, 4, 3, 3, 3, 3, 2, 2, "SAME", True, 0.003),
    ("testFilterGradientSamePaddingStrideTwo", 4, 6, 5, 2, 2, 2, 3, 2, 2, "SAME", False, 0.003),
    ("testInputGradientSamePaddingStrideThree", 2, 7, 6, 3, 3, 4, 5, 3, 3, "SAME", True, 0.003),
    ("testFilterGradientSamePaddingStrideThree", 2, 8, 7, 4, 4, 2, 3, 3, 3, "SAME", False, 0.003),
    ("testFilterGradientSamePaddingStride2x1", 2, 8, 7, 4, 4, 2, 3, 2, 1, "SAME", False, 0.003),
    ("testInputGradientKernelSizeMatchesInputSize", 2, 4, 3, 4, 3, 2, 3, 1, 1, "VALID", True,
     0.003),
    ("testFilterGradientKernelSizeMatchesInputSize", 2, 4, 3, 4, 3, 2, 3, 1, 1, "VALID", False,
     0.003),
    ("testInputGradient1x1PaddingStrideOne", 2, 5, 4, 3, 3, 2, 3, 1, 1,
     [[0, 0], [1, 1], [1, 1], [0, 0]], True, 0.0025),
    ("testFilterGradient1x1PaddingStrideOne", 2, 5, 4, 3, 3, 2, 3, 1, 1,
     [[0, 0], [1, 1], [1, 1], [0, 0]], False, 0.003),
    ("testInputGradient1x1PaddingStrideTwo", 2, 4, 5, 3, 3, 2, 3, 2, 2,
     [[0, 0], [1, 1], [1, 1], [0, 0]], True, 0.003),
    ("testFilterGradient1x1PaddingStrideTwo", 2, 4, 5, 3, 3, 2, 3, 2, 2,
     [[0, 0], [1, 1], [1, 1], [0, 0]], False, 0.003),
    ("testInputGradient2x2PaddingStrideOne", 2, 5, 4, 3, 3, 2, 3, 1, 1,
     [[0, 0], [2, 2], [2, 2], [0, 0]], True, 0.003),
    ("testFilterGradient2x2PaddingStrideOne", 2, 5, 4, 3, 3, 2, 3, 1, 1,
     [[0, 0], [2, 2], [2, 2], [0, 0]], False, 0.005),
    ("testInputGradient1_2_3_4PaddingStride3x2", 2, 8, 5, 4, 2, 3, 2, 3, 2,
     [[0, 0], [1, 2], [3, 4], [0, 0]], True, 0.003),
    ("testFilterGradient1_2_3_4PaddingStride3x2", 2, 8, 5, 4, 2, 3, 2, 3, 2,
     [[0, 0], [1, 2], [3, 4], [0, 0]], False, 0.003),
    ("testInputGradient4_3_2_1PaddingStride2x1", 3, 5, 7, 3, 2, 1, 2, 2, 1,
     [[0, 0], [4, 3], [2, 1], [0, 0]], True, 0.003),
    ("testFilterGradient4_3_2_1PaddingStride2x1", 3, 5, 7, 3, 2, 1, 2, 2, 1,
     [[0, 0], [4, 3], [2, 1], [0, 0]], False, 0.003),
    ("testInputGradient0_0_0_5PaddingStride1x2", 2, 6, 7, 3, 4, 3, 2, 1, 2,
     [[0, 0], [0, 0], [0, 5], [0, 0]], True, 0.003),
    ("testFilterGradient0_0_0_5PaddingStride1x2", 2, 6, 7, 3, 4, 3, 2, 1, 2,
     [[0, 0], [0, 0], [0, 5], [0, 0]], False, 0.003),
]  # fmt: skip


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradient(case):
    _construct_and_test_gradient(*case[1:-1], max_err=case[-1])


# --- edge cases -------------------------------------------------------------------------------

ONES_F = np.ones([1, 3, 3, 2], np.float32)
ONES_W = np.ones([1, 1, 2, 2], np.float32)


@pytest.mark.parametrize(
    "call,error,message",
    [
        # Depth mismatch.
        (lambda: nn.conv2d(np.ones([32, 20, 20, 3], np.float32),
                           np.ones([4, 4, 2, 2], np.float32), [1, 1, 1, 1], "SAME"),
         errors.InvalidArgumentError,
         "input depth must be evenly divisible by filter depth: 3 vs 2"),
        # Negative padding.
        (lambda: nn.conv2d(ONES_F, ONES_W, [1, 1, 1, 1], [[0, 0], [0, -1], [1, 2], [0, 0]]),
         errors.InvalidArgumentError, "All elements of explicit_paddings must be nonnegative"),
        # Nonzero padding in nonspatial dimension.
        (lambda: nn.conv2d(ONES_F, ONES_W, [1, 1, 1, 1], [[1, 0], [0, 0], [0, 0], [0, 0]]),
         errors.InvalidArgumentError,
         "Nonzero explicit padding in the batch or depth dimensions is not supported"),
        # Wrong amount of padding.
        (lambda: nn.conv2d(ONES_F, ONES_W, [1, 1, 1, 1], [[0, 0], [0, 0], [0, 0]]), ValueError,
         r"When padding is a list, it must be of size 4. Received: padding=\[\[0, 0\], \[0, 0\], "
         r"\[0, 0\]\] of size 3"),
        # Only specify one padding amount per dimension.
        (lambda: nn.conv2d(ONES_F, ONES_W, [1, 1, 1, 1], [[0], [0], [0], [0]]), ValueError,
         "each element of `padding` must be a list/tuple of size 2. Received: "
         r"padding=\[\[0\], \[0\], \[0\], \[0\]\] with element at index 0 of size 1"),
        # Explicit padding elements are not lists.
        (lambda: nn.conv2d(ONES_F, ONES_W, [1, 1, 1, 1], [0, 0, 0, 0]), ValueError,
         "with element at index 0 of type <class 'int'>"),
    ],
)  # fmt: skip
def test_shape_function_edge_cases(call, error, message):
    """testShapeFunctionEdgeCases, run eagerly (TF 2.21 eager: the same errors; the "all shapes
    unknown" case has no eager counterpart)."""
    with pytest.raises(error, match=message):
        call()


def test_shape_function_edge_cases_group_convolution():
    """testShapeFunctionEdgeCases: input depth divisible by filter depth is a group
    convolution, no error."""
    out = nn.conv2d(np.ones([32, 20, 20, 8], np.float32), np.ones([4, 4, 2, 16], np.float32),
                    strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    assert out.shape == (32, 20, 20, 16)
    np.testing.assert_array_equal(out[0, 5, 5], 32.0)  # 4 x 4 taps x 2 channels


@pytest.mark.parametrize("strides", [[2, 1, 1, 1], [1, 1, 1, 2]])
def test_op_edge_cases_strides(strides):
    """testOpEdgeCases: illegal strides."""
    with pytest.raises(errors.UnimplementedError, match="strides in the batch and depth"):
        nn.conv2d(np.ones([2, 4, 10, 10]), np.ones([2, 4, 10, 10]), strides=strides,
                  padding="SAME")  # fmt: skip


def test_op_edge_cases():
    """testOpEdgeCases: a zero filter dimension, negative padding in the backprops."""
    with pytest.raises(errors.InvalidArgumentError, match="filter must not have zero elements"):
        nn.conv2d(np.ones([1, 1, 1, 1]), np.ones([1, 0, 1, 1]), strides=[1, 1, 1, 1],
                  padding="SAME")  # fmt: skip
    message = "All elements of explicit_paddings must be nonnegative"
    with pytest.raises(errors.InvalidArgumentError, match=message):
        nn.conv2d_backprop_input([32, 20, 20, 3], np.ones([18, 18, 3, 2]), np.ones([32, 3, 2, 2]),
                                 strides=[1, 1, 1, 1],
                                 padding=[[0, 0], [-1, 0], [0, 0], [0, 0]])  # fmt: skip
    with pytest.raises(errors.InvalidArgumentError, match=message):
        nn.conv2d_backprop_filter(np.ones([32, 20, 20, 3]), [18, 18, 3, 2],
                                  np.ones([32, 3, 2, 2]), strides=[1, 1, 1, 1],
                                  padding=[[0, 0], [-1, 0], [0, 0], [0, 0]])  # fmt: skip


def test_conv2d_backprop_input_invalid_out_backprop_raise_error():
    """testConv2DBackpropInputInvalidOutBackpropRaiseError (TF's message, from the kernel)."""
    with pytest.raises(errors.InvalidArgumentError, match="input_sizes must be 4-dimensional"):
        gen_nn_ops.conv2d_backprop_input(
            input_sizes=np.array([65534, 65534], np.int32),
            filter=np.full([3, 3, 2, 2], 0.159749106, np.float32),
            out_backprop=np.zeros([], np.float32), strides=[1, 1, 1, 1], padding="SAME",
            use_cudnn_on_gpu=True, explicit_paddings=[], data_format="NHWC",
            dilations=[1, 1, 1, 1],
        )  # fmt: skip


# --- Inception shapes -------------------------------------------------------------------------


def _shrunk_inception_shapes(shrink=10):
    """GetShrunkInceptionShapes: (input_size, filter_size, out_size, stride, padding)."""
    # fmt: off
    input_sizes = [
        [4, 5, 5, 1248], [4, 8, 8, 384], [4, 8, 8, 384], [4, 8, 8, 2048], [4, 8, 8, 448],
        [4, 8, 8, 2048], [4, 8, 8, 2048], [4, 8, 8, 2048], [4, 8, 8, 1760], [4, 8, 8, 1760],
        [4, 8, 8, 1760], [4, 8, 8, 1760], [4, 17, 17, 192], [4, 17, 17, 192], [4, 17, 17, 1248],
        [4, 17, 17, 128], [4, 17, 17, 1248], [4, 17, 17, 224], [4, 17, 17, 192],
        [4, 17, 17, 192], [4, 17, 17, 1216], [4, 17, 17, 1216], [4, 17, 17, 224],
        [4, 17, 17, 192], [4, 17, 17, 192], [4, 17, 17, 1152], [4, 17, 17, 1152],
        [4, 17, 17, 192], [4, 17, 17, 160], [4, 17, 17, 1152], [4, 17, 17, 1024],
        [4, 17, 17, 128], [4, 17, 17, 1024], [4, 17, 17, 128], [4, 17, 17, 1024],
        [4, 17, 17, 128], [4, 17, 17, 768], [4, 17, 17, 128], [4, 17, 17, 128], [4, 17, 17, 768],
        [4, 17, 17, 768], [4, 35, 35, 96], [4, 35, 35, 288], [4, 35, 35, 64], [4, 35, 35, 288],
        [4, 35, 35, 256], [4, 35, 35, 48], [4, 35, 35, 256], [4, 35, 35, 96], [4, 35, 35, 192],
        [4, 35, 35, 192], [4, 35, 35, 192], [4, 73, 73, 64], [4, 73, 73, 64], [4, 147, 147, 24],
    ]
    filter_sizes = [
        [1, 1, 1248, 128], [1, 3, 384, 384], [3, 1, 384, 384], [1, 1, 2048, 192],
        [3, 3, 448, 384], [1, 1, 2048, 320], [1, 1, 2048, 448], [1, 1, 2048, 384],
        [1, 1, 1760, 384], [1, 1, 1760, 192], [1, 1, 1760, 448], [1, 1, 1760, 320],
        [3, 3, 192, 192], [3, 3, 192, 192], [1, 1, 1248, 192], [3, 3, 128, 320],
        [1, 1, 1248, 128], [1, 3, 224, 224], [3, 1, 192, 256], [1, 3, 192, 256],
        [1, 1, 1216, 192], [1, 1, 1216, 96], [3, 1, 224, 224], [3, 3, 192, 224],
        [1, 3, 192, 192], [1, 1, 1152, 192], [1, 1, 1152, 128], [3, 1, 192, 192],
        [3, 3, 160, 192], [1, 1, 1152, 160], [1, 1, 1024, 128], [1, 3, 128, 192],
        [1, 1, 1024, 160], [3, 1, 128, 192], [1, 1, 1024, 256], [3, 1, 128, 128],
        [1, 1, 768, 192], [1, 3, 128, 128], [3, 3, 128, 128], [1, 1, 768, 128],
        [1, 1, 768, 320], [3, 3, 96, 96], [3, 3, 288, 384], [3, 3, 64, 96], [1, 1, 288, 64],
        [1, 1, 256, 64], [5, 5, 48, 64], [1, 1, 256, 48], [3, 3, 96, 96], [1, 1, 192, 32],
        [1, 1, 192, 64], [1, 1, 192, 48], [3, 3, 64, 192], [1, 1, 64, 64], [1, 1, 24, 64],
    ]
    out_sizes = [
        [4, 5, 5, 128], [4, 8, 8, 384], [4, 8, 8, 384], [4, 8, 8, 192], [4, 8, 8, 384],
        [4, 8, 8, 320], [4, 8, 8, 448], [4, 8, 8, 384], [4, 8, 8, 384], [4, 8, 8, 192],
        [4, 8, 8, 448], [4, 8, 8, 320], [4, 8, 8, 192], [4, 17, 17, 192], [4, 17, 17, 192],
        [4, 8, 8, 320], [4, 17, 17, 128], [4, 17, 17, 224], [4, 17, 17, 256], [4, 17, 17, 256],
        [4, 17, 17, 192], [4, 17, 17, 96], [4, 17, 17, 224], [4, 17, 17, 224], [4, 17, 17, 192],
        [4, 17, 17, 192], [4, 17, 17, 128], [4, 17, 17, 192], [4, 17, 17, 192], [4, 17, 17, 160],
        [4, 17, 17, 128], [4, 17, 17, 192], [4, 17, 17, 160], [4, 17, 17, 192], [4, 17, 17, 256],
        [4, 17, 17, 128], [4, 17, 17, 192], [4, 17, 17, 128], [4, 17, 17, 128], [4, 17, 17, 128],
        [4, 17, 17, 320], [4, 17, 17, 96], [4, 17, 17, 384], [4, 35, 35, 96], [4, 35, 35, 64],
        [4, 35, 35, 64], [4, 35, 35, 64], [4, 35, 35, 48], [4, 35, 35, 96], [4, 35, 35, 32],
        [4, 35, 35, 64], [4, 35, 35, 48], [4, 71, 71, 192], [4, 73, 73, 64], [4, 147, 147, 64],
    ]
    strides = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
               1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    # fmt: on
    same, valid = "SAME", "VALID"
    paddings = [same] * 12 + [valid, same, same, valid] + [same] * 25 + [valid, valid]
    paddings += [same] * 9 + [valid, valid, valid]
    for i in input_sizes:
        i[3] //= shrink
    for f in filter_sizes:
        f[2] //= shrink
        f[3] //= shrink
    for o in out_sizes:
        o[3] //= shrink
    assert len(input_sizes) == len(filter_sizes) == len(out_sizes) == len(strides) == 55
    assert len(paddings) == 55
    return list(zip(input_sizes, filter_sizes, out_sizes, strides, paddings))


INCEPTION = _shrunk_inception_shapes()


def _rand(shape, seed):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


@pytest.mark.parametrize("index", range(len(INCEPTION)))
def test_inception_fwd(index):
    """testInceptionFwd_<i> (_CompareFwdValues: rtol/atol 1e-3), against the reference."""
    input_size, filter_size, out_size, stride, padding = INCEPTION[index]
    x1, x2 = _rand(input_size, 1), _rand(filter_size, 2)
    conv = nn.conv2d(x1, x2, [1, stride, stride, 1], padding)
    assert list(conv.shape) == out_size
    np.testing.assert_allclose(conv, _reference(x1, x2, (stride, stride), (1, 1), padding),
                               rtol=1e-3, atol=1e-3)  # fmt: skip


@pytest.mark.parametrize("index", [i for i, c in enumerate(INCEPTION) if c[3] == 1])
def test_inception_fwd_dilated_conv(index):
    """testInceptionFwdDilatedConv_<i> (stride 1 only, as upstream), rtol 5e-4."""
    input_size, filter_size, _, stride, padding = INCEPTION[index]
    _verify_dilated_conv_values(input_size, filter_size, [stride, stride], padding, [2, 2],
                                rtol=5e-4)  # fmt: skip


@pytest.mark.parametrize("index", range(len(INCEPTION)))
def test_inception_back_input(index):
    """testInceptionBackInput_<i> (_CompareBackpropInput: rtol/atol 1e-2)."""
    input_size, filter_size, out_size, stride, padding = INCEPTION[index]
    w, dy = _rand(filter_size, 3), _rand(out_size, 4)
    got = nn.conv2d_backprop_input(input_size, w, dy, [1, stride, stride, 1], padding)
    ref_dx, _ = _reference_grads(np.zeros(input_size), w, dy, (stride, stride), (1, 1), padding)
    np.testing.assert_allclose(got, ref_dx, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("index", range(len(INCEPTION)))
def test_inception_back_filter(index):
    """testInceptionBackFilter_<i> (_CompareBackFilter: rtol/atol 1e-4)."""
    input_size, filter_size, out_size, stride, padding = INCEPTION[index]
    x, dy = _rand(input_size, 5), _rand(out_size, 6)
    got = nn.conv2d_backprop_filter(x, filter_size, dy, [1, stride, stride, 1], padding)
    _, ref_dw = _reference_grads(x, np.zeros(filter_size), dy, (stride, stride), (1, 1), padding)
    np.testing.assert_allclose(got, ref_dw, rtol=1e-4, atol=1e-4)


def test_inception_no_winograd_nonfused():
    """testInception{Fwd,BackInput,BackFilter}_No_Winograd_Nonfused: [1, 400, 400, 1] * [1, 1,
    1, 256]."""
    ishape, fshape, oshape = [1, 400, 400, 1], [1, 1, 1, 256], [1, 400, 400, 256]
    x, w, dy = _rand(ishape, 7), _rand(fshape, 8), _rand(oshape, 9)
    np.testing.assert_allclose(nn.conv2d(x, w, 1, "SAME"), _reference(x, w, padding="SAME"),
                               rtol=1e-3, atol=1e-3)  # fmt: skip
    ref_dx, ref_dw = _reference_grads(x, w, dy, padding="SAME")
    np.testing.assert_allclose(nn.conv2d_backprop_input(ishape, w, dy, 1, "SAME"), ref_dx,
                               rtol=1e-2, atol=1e-2)  # fmt: skip
    np.testing.assert_allclose(nn.conv2d_backprop_filter(x, fshape, dy, 1, "SAME"), ref_dw,
                               rtol=1e-4, atol=1e-4)  # fmt: skip


# --- DepthwiseConv2DTest and SeparableConv2DTest ----------------------------------------------


def test_depthwise_conv2d_2x2_filter():
    """DepthwiseConv2DTest.testConv2D2x2Filter."""
    x1 = np.arange(1, 13, dtype=np.float32).reshape([1, 2, 3, 2])
    x2 = np.arange(1, 17, dtype=np.float32).reshape([2, 2, 2, 2])
    conv = nn.depthwise_conv2d(x1, x2, strides=[1, 1, 1, 1], padding="VALID")
    np.testing.assert_allclose(conv.ravel(), [196, 216, 272, 296, 252, 280, 344, 376], atol=1e-5)
    assert conv.shape == (1, 1, 2, 4)


def _init_values(sizes):
    """SeparableConv2DTest._InitValues: 0.5, 1.0, ..."""
    return (np.arange(1, int(np.prod(sizes)) + 1, dtype=np.float32) * 0.5).reshape(sizes)


def _verify_separable(tensor_in_sizes, depthwise_sizes, pointwise_sizes, padding, expected):
    conv = nn.separable_conv2d(_init_values(tensor_in_sizes), _init_values(depthwise_sizes),
                               _init_values(pointwise_sizes), strides=[1, 1, 1, 1],
                               padding=padding)  # fmt: skip
    np.testing.assert_allclose(conv.ravel(), expected, rtol=0, atol=2e-3)
    return conv


def test_separable_conv2d():
    """SeparableConv2DTest.testSeparableConv2D."""
    # fmt: off
    expected = [
        6644.5, 6971.5, 7298.5, 7625.5, 7952.5, 8279.5, 8606.5, 8154.5, 8556.5, 8958.5, 9360.5,
        9762.5, 10164.5, 10566.5, 9664.5, 10141.5, 10618.5, 11095.5, 11572.5, 12049.5, 12526.5,
        4145.5, 4346.5, 4547.5, 4748.5, 4949.5, 5150.5, 5351.5, 12684.5, 13311.5, 13938.5, 14565.5,
        15192.5, 15819.5, 16446.5, 14194.5, 14896.5, 15598.5, 16300.5, 17002.5, 17704.5, 18406.5,
        15704.5, 16481.5, 17258.5, 18035.5, 18812.5, 19589.5, 20366.5, 6499.5, 6814.5, 7129.5,
        7444.5, 7759.5, 8074.5, 8389.5, 18724.5, 19651.5, 20578.5, 21505.5, 22432.5, 23359.5,
        24286.5, 20234.5, 21236.5, 22238.5, 23240.5, 24242.5, 25244.5, 26246.5, 21744.5, 22821.5,
        23898.5, 24975.5, 26052.5, 27129.5, 28206.5, 8853.5, 9282.5, 9711.5, 10140.5, 10569.5,
        10998.5, 11427.5, 5746.75, 6010.75, 6274.75, 6538.75, 6802.75, 7066.75, 7330.75, 6168.75,
        6452.25, 6735.75, 7019.25, 7302.75, 7586.25, 7869.75, 6590.75, 6893.75, 7196.75, 7499.75,
        7802.75, 8105.75, 8408.75, 2036.25, 2119.5, 2202.75, 2286.0, 2369.25, 2452.5, 2535.75,
    ]
    # fmt: on
    _verify_separable([1, 4, 4, 2], [2, 2, 2, 3], [1, 1, 6, 7], "SAME", expected)


def test_separable_conv2d_equal_input_output_depth():
    """SeparableConv2DTest.testSeparableConv2DEqualInputOutputDepth."""
    # fmt: off
    expected = [
        5742.0, 6069.0, 6396.0, 6723.0, 7050.0, 7377.0, 7047.0, 7449.0, 7851.0, 8253.0, 8655.0,
        9057.0, 8352.0, 8829.0, 9306.0, 9783.0, 10260.0, 10737.0, 3582.0, 3783.0, 3984.0, 4185.0,
        4386.0, 4587.0, 10962.0, 11589.0, 12216.0, 12843.0, 13470.0, 14097.0, 12267.0, 12969.0,
        13671.0, 14373.0, 15075.0, 15777.0, 13572.0, 14349.0, 15126.0, 15903.0, 16680.0, 17457.0,
        5616.0, 5931.0, 6246.0, 6561.0, 6876.0, 7191.0, 16182.0, 17109.0, 18036.0, 18963.0,
        19890.0, 20817.0, 17487.0, 18489.0, 19491.0, 20493.0, 21495.0, 22497.0, 18792.0, 19869.0,
        20946.0, 22023.0, 23100.0, 24177.0, 7650.0, 8079.0, 8508.0, 8937.0, 9366.0, 9795.0, 4963.5,
        5227.5, 5491.5, 5755.5, 6019.5, 6283.5, 5328.0, 5611.5, 5895.0, 6178.5, 6462.0, 6745.5,
        5692.5, 5995.5, 6298.5, 6601.5, 6904.5, 7207.5, 1757.25, 1840.5, 1923.75, 2007.0, 2090.25,
        2173.5,
    ]
    # fmt: on
    _verify_separable([1, 4, 4, 2], [2, 2, 2, 3], [1, 1, 6, 6], "SAME", expected)


def test_separable_conv2d_explicit_padding():
    """SeparableConv2DTest.testSeparableConv2dExplicitPadding."""
    padding = [[0, 0], [1, 2], [3, 4], [0, 0]]
    t1 = np.pad(_init_values([1, 4, 4, 2]), padding)
    expected = nn.separable_conv2d(t1, _init_values([2, 2, 2, 3]), _init_values([1, 1, 6, 7]),
                                   strides=[1, 1, 1, 1], padding="VALID")  # fmt: skip
    _verify_separable([1, 4, 4, 2], [2, 2, 2, 3], [1, 1, 6, 7], padding, expected.ravel())


def test_depthwise_conv2d_gradients():
    """Beyond upstream's file: the taped depthwise convolution's Jacobians (input and filter)
    against central differences, the filter's gradient in its own [KH, KW, C, M] shape."""
    x = _rand([2, 5, 4, 3], 10)
    w = _rand([3, 2, 3, 2], 11)
    for i in range(2):
        theoretical, numerical = compute_gradient(
            lambda a, b: nn.depthwise_conv2d(a, b, [1, 2, 1, 1], "SAME"), [x, w]
        )
        assert np.abs(theoretical[i] - numerical[i]).max() < 5e-3


# --- DeepConv2DTest and FusedConv2DTest ---------------------------------------------------------


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_deep_conv2d_3x3_filter_stride1x1(padding):
    """DeepConv2DTest.testConv2D3x3FilterStride1x1{Valid,Same}: TF's DeepConv2D path against
    its default path (rtol/atol 1e-5); here the one path against the float64 reference."""
    input_sizes = [[5, 5, 5, 1248], [3, 17, 17, 192], [2, 35, 35, 288], [2, 6, 8, 517],
                   [2, 7, 4, 81], [3, 11, 3, 77]]  # fmt: skip
    filter_sizes = [[3, 3, 1248, 128], [3, 3, 192, 192], [3, 3, 288, 384], [3, 3, 517, 64],
                    [3, 3, 81, 77], [3, 3, 77, 181]]  # fmt: skip
    for seed, (input_shape, filter_shape) in enumerate(zip(input_sizes, filter_sizes)):
        x1, x2 = _rand(input_shape, 20 + seed), _rand(filter_shape, 40 + seed)
        conv = nn.conv2d(x1, x2, [1, 1, 1, 1], padding)
        # Sums of up to 11,232 products of [0, 1) values: float32's rounding, relative.
        np.testing.assert_allclose(conv, _reference(x1, x2, padding=padding), rtol=1e-5, atol=1e-3)


def _fused_conv(x, filters):
    """FusedConv2DTest._CreateConv2D: nn_ops.convolution, strides 1, SAME."""
    return nn.convolution(x, filters, strides=[1, 1], padding="SAME")


def _fused_inputs():
    x = np.arange(1, 19, dtype=np.float32).reshape([1, 3, 3, 2])
    filter_in = np.arange(1, 17, dtype=np.float32).reshape([2, 2, 2, 2])
    bias_in = np.arange(1, 3, dtype=np.float32)
    return x, filter_in, bias_in


def test_fused_add_with_ref_count_one():
    """FusedConv2DTest.testAddWithRefCountOne."""
    x, filter_in, bias_in = _fused_inputs()
    conv1 = _fused_conv(x, filter_in)
    conv2 = _fused_conv(conv1, filter_in + 1)
    add = nn.bias_add(_fused_conv(conv1, filter_in - 1), bias_in) + conv2
    expected = [113377, 125570, 77305, 86738, 19433, 22226, 60681, 70722, 36291, 43718, 7143,
                9206, 9785, 12098, 4783, 6366, 779, 1134]  # fmt: skip
    np.testing.assert_array_equal(add.reshape(-1), np.rint(expected))


def test_fused_add_with_ref_count_two_and_run_add_last():
    """FusedConv2DTest.testAddWithRefCountTwoAndRunAddLast."""
    x, filter_in, bias_in = _fused_inputs()
    conv1 = _fused_conv(x, filter_in)
    conv2 = _fused_conv(conv1, filter_in + 1)
    add = nn.bias_add(_fused_conv(conv2, filter_in - 1), bias_in) + conv1
    # fmt: off
    expected = [1.907175e06, 2.253505e06, 7.809210e05, 9.537180e05, 1.184170e05, 1.523070e05,
                5.367010e05, 6.803700e05, 1.867090e05, 2.529460e05, 2.362300e04, 3.522600e04,
                5.121700e04, 7.168300e04, 1.494300e04, 2.347400e04, 1.558000e03, 2.903000e03]
    # fmt: on
    np.testing.assert_array_equal(add.reshape(-1), np.rint(expected))


@pytest.mark.parametrize("variant", ["RunAddFirst", "NoDependence"])
def test_fused_add_with_ref_count_two(variant):
    """FusedConv2DTest.testAddWithRefCountTwoAndRunAddFirst / ...AndNoDependence."""
    x, filter_in, bias_in = _fused_inputs()
    conv1 = _fused_conv(x, filter_in)
    conv2 = _fused_conv(conv1, filter_in + 1)
    add = nn.bias_add(_fused_conv(conv1, filter_in - 1), bias_in) + conv2
    output = nn.relu(add) + (conv2 if variant == "RunAddFirst" else nn.relu(conv2))
    expected = [176161, 194450, 120673, 134822, 30545, 34734, 96041, 111102, 58149, 69289,
                11745, 14839, 15833, 19302, 7965, 10339, 1345, 1877]  # fmt: skip
    np.testing.assert_array_equal(output.reshape(-1), np.rint(expected))


def test_fused_add_with_same_src_and_add_tensor_buffer():
    """FusedConv2DTest.testAddWithSameSrcAndAddTensorBuffer."""
    x, filter_in, bias_in = _fused_inputs()
    conv1 = _fused_conv(x, filter_in)
    add = nn.bias_add(_fused_conv(conv1, filter_in), bias_in) + conv1
    expected = [57157, 63298, 39249, 44026, 9971, 11402, 31193, 36306, 19126, 22948, 3970, 5060,
                5135, 6350, 2666, 3524, 461, 674]  # fmt: skip
    np.testing.assert_array_equal(add.reshape(-1), np.rint(expected))
