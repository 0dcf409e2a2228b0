"""tensorflow/python/kernel_tests/nn_ops/pooling_ops_test.py, PoolingTest, on the CPU in NHWC.

Each _VerifyOneType case runs in float32, float64 and float16 (TF's configs; bfloat16 is left
out: numpy has no such type). nn_ops.max_pool and max_pool_v2 are one function here. Gradients
are checked as TF does, the tape's Jacobian against central differences. Not translated:
max_pool_with_argmax and its gradients (no such op in swigflow), NCHW and NCHW_VECT_C (GPU
formats), graph-mode static shape inference (testShapeFunctionEdgeCases; the same shapes fail
when run, see test_op_edge_cases).
"""

import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

from swigflow import errors, nn
from swigflow.ops import GradientTape, Operation, gen_nn_ops, get_gradient
from swigflow.test import compute_gradient_error

DTYPES = [np.float32, np.float64, np.float16]


def _input(input_sizes, dtype, negative=False):
    """TF's test input: 1, 2, ... wrapping to -127 after 127, negated when asked."""
    total = int(np.prod(input_sizes))
    sign = -1 if negative else 1
    x = [(((f + 128) % 255) - 127) * sign for f in range(total)]
    return np.array(x, dtype=dtype).reshape(input_sizes)


# (upstream method, pool, input_sizes, ksize, strides, padding, expected, use_negative_input)
CASES = [
    ("testAvgPoolValidPadding", nn.avg_pool, [1, 3, 3, 3], [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
     [7.0, 8.0, 9.0], False),
    ("testAvgPoolEmpty", nn.avg_pool, [1, 3, 3, 0], [1, 2, 2, 1], [1, 2, 2, 1], "VALID", [], False),
    ("testAvgPoolSamePadding", nn.avg_pool, [1, 2, 4, 3], [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
     [8.5, 9.5, 10.5, 14.5, 15.5, 16.5], False),
    ("testAvgPoolSamePaddingNonSquareWindow", nn.avg_pool, [1, 2, 2, 1], [1, 1, 2, 1],
     [1, 1, 1, 1], "SAME", [1.5, 2.0, 3.5, 4.0], False),
    ("testAvgPoolSamePaddingNonSquareWindow_2", nn.avg_pool, [1, 2, 2, 1], [1, 2, 1, 1],
     [1, 1, 1, 1], "SAME", [2.0, 3.0, 3.0, 4.0], False),
    ("testAvgPoolSamePaddingNonSquareWindowMultiBatch", nn.avg_pool, [2, 2, 2, 2], [1, 1, 2, 1],
     [1, 1, 1, 1], "SAME",
     [2.0, 3.0, 3.0, 4.0, 6.0, 7.0, 7.0, 8.0, 10.0, 11.0, 11.0, 12.0, 14.0, 15.0, 15.0, 16.0],
     False),
    ("testAvgPoolSamePaddingNonSquareWindowMultiBatch_2", nn.avg_pool, [2, 2, 2, 2],
     [1, 2, 1, 1], [1, 1, 1, 1], "SAME",
     [3.0, 4.0, 5.0, 6.0, 5.0, 6.0, 7.0, 8.0, 11.0, 12.0, 13.0, 14.0, 13.0, 14.0, 15.0, 16.0],
     False),
    ("testAvgPoolValidPaddingUnevenStride", nn.avg_pool, [1, 3, 3, 3], [1, 2, 2, 1],
     [1, 1, 2, 1], "VALID", [7.0, 8.0, 9.0, 16.0, 17.0, 18.0], False),
    ("testAvgPoolValidPaddingUnevenStride_2", nn.avg_pool, [1, 3, 3, 3], [1, 2, 2, 1],
     [1, 2, 1, 1], "VALID", [7.0, 8.0, 9.0, 10.0, 11.0, 12.0], False),
    ("testAvgPoolSamePadding_2", nn.avg_pool, [1, 4, 4, 4], [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
     [11.0, 12.0, 13.0, 14.0, 19.0, 20.0, 21.0, 22.0, 43.0, 44.0, 45.0, 46.0, 51.0, 52.0, 53.0,
      54.0], False),
    ("testAvgPoolSamePaddingPacket_4", nn.avg_pool, [1, 4, 4, 4], [1, 3, 3, 1], [1, 2, 2, 1],
     "SAME",
     [21.0, 22.0, 23.0, 24.0, 27.0, 28.0, 29.0, 30.0, 45.0, 46.0, 47.0, 48.0, 51.0, 52.0, 53.0,
      54.0], False),
    ("testAvgPoolSamePaddingPacket_8", nn.avg_pool, [1, 8, 8, 8], [1, 3, 3, 1], [1, 2, 2, 1],
     "SAME",
     [-12.0, -11.0, -10.0, -9.0, -8.0, -7.0, -6.0, -5.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
      11.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0,
      38.0, -3.5, -54.0, -53.0, -52.0, -51.0, -50.0, -49.0, -48.0, -47.0, -38.0, -37.0, -36.0,
      -35.0, -34.0, -33.0, -32.0, -31.0, -22.0, -21.0, -20.0, -19.0, -18.0, -17.0, -16.0, -15.0,
      -10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -11.0, -10.0, -9.0, -8.0, -7.0, -6.0,
      -5.0, -4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0,
      27.0, 28.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, -3.5, -2.5, -85.0, -84.0, -83.0, -82.0,
      -81.0, -80.0, -79.0, -78.0, -69.0, -68.0, -67.0, -66.0, -65.0, -64.0, -63.0, -62.0, -53.0,
      -52.0, -51.0, -50.0, -49.0, -48.0, -47.0, -46.0, -41.0, -40.0, -39.0, -38.0, -37.0, -36.0,
      -35.0, -34.0], False),
    ("testAvgPoolEmptyInput", nn.avg_pool, [0, 8, 8, 8], [1, 3, 3, 1], [1, 2, 2, 1], "SAME", [],
     False),
    ("testMaxPoolValidPadding", nn.max_pool, [1, 3, 3, 3], [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
     [13.0, 14.0, 15.0], False),
    ("testMaxPoolSamePadding", nn.max_pool, [1, 2, 3, 3], [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
     [13.0, 14.0, 15.0, 16.0, 17.0, 18.0], False),
    ("testMaxPoolZeroExplicitPadding", nn.max_pool, [1, 3, 3, 1], [1, 3, 3, 1], [1, 2, 2, 1],
     [[0, 0], [0, 0], [0, 0], [0, 0]], [9.0], False),
    ("testMaxPoolNegativeInputExpPadding", nn.max_pool, [1, 3, 3, 1], [1, 3, 3, 1], [1, 2, 2, 1],
     [[0, 0], [2, 1], [2, 1], [0, 0]], [-1, -1, -1, -1], True),
    ("testMaxPoolExplicitPadding", nn.max_pool, [1, 3, 3, 1], [1, 3, 3, 1], [1, 2, 2, 1],
     [[0, 0], [0, 2], [0, 1], [0, 0]], [9.0, 9.0], False),
    ("testMaxPoolExplicitPaddingAdvanced", nn.max_pool, [1, 6, 6, 1], [1, 3, 3, 1], [1, 2, 2, 1],
     [[0, 0], [1, 2], [2, 1], [0, 0]],
     [7, 9, 11, 12, 19, 21, 23, 24, 31, 33, 35, 36, 31, 33, 35, 36], False),
    ("testMaxPoolNegativeInputExpPaddingAdv", nn.max_pool, [1, 6, 6, 1], [1, 3, 3, 1],
     [1, 2, 2, 1], [[0, 0], [1, 2], [2, 1], [0, 0]],
     [-1, -1, -3, -5, -7, -7, -9, -11, -19, -19, -21, -23, -31, -31, -33, -35], True),
    ("testMaxPoolExplicitPadding2_", nn.max_pool, [1, 3, 3, 1], [1, 3, 3, 1], [1, 2, 2, 1],
     [[0, 0], [0, 2], [0, 1], [0, 0]], [9.0, 9.0], False),
    ("testMaxPoolSamePaddingNonSquareWindow", nn.max_pool, [1, 2, 2, 1], [1, 1, 2, 1],
     [1, 1, 1, 1], "SAME", [2.0, 2.0, 4.0, 4.0], False),
    ("testMaxPoolValidPaddingUnevenStride", nn.max_pool, [1, 4, 4, 1], [1, 2, 2, 1],
     [1, 1, 2, 1], "VALID", [6.0, 8.0, 10.0, 12.0, 14.0, 16.0], False),
    ("testMaxPoolValidPaddingUnevenStride2_", nn.max_pool, [1, 4, 4, 1], [1, 2, 2, 1],
     [1, 2, 1, 1], "VALID", [6.0, 7.0, 8.0, 14.0, 15.0, 16.0], False),
    ("testMaxPoolSamePaddingPacket4_", nn.max_pool, [1, 4, 4, 4], [1, 2, 2, 1], [1, 2, 2, 1],
     "SAME",
     [21.0, 22.0, 23.0, 24.0, 29.0, 30.0, 31.0, 32.0, 53.0, 54.0, 55.0, 56.0, 61.0, 62.0, 63.0,
      64.0], False),
    ("testMaxPoolSamePaddingPacket8_", nn.max_pool, [1, 8, 8, 8], [1, 3, 3, 1], [1, 2, 2, 1],
     "SAME",
     [81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0,
      103.0, 104.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0,
      124.0, 125.0, 126.0, 127.0, 120.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 34.0,
      35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0,
      58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0,
      89.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 114.0, 115.0, 116.0, 117.0,
      118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 120.0, 121.0, -45.0,
      -44.0, -43.0, -42.0, -41.0, -40.0, -39.0, -38.0, -29.0, -28.0, -27.0, -26.0, -25.0, -24.0,
      -23.0, -22.0, -13.0, -12.0, -11.0, -10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0,
      -1.0, 0.0, 1.0, 2.0], False),
    ("testMaxPoolEmptyInput", nn.max_pool, [0, 8, 8, 8], [1, 3, 3, 1], [1, 2, 2, 1], "SAME", [],
     False),
    ("testDepthwiseMaxPool1x1DepthWindow", nn.max_pool, [1, 1, 1, 10], [1, 1, 1, 2],
     [1, 1, 1, 2], "SAME", [2.0, 4.0, 6.0, 8.0, 10.0], False),
    ("testDepthwiseMaxPool2x2DepthWindow", nn.max_pool, [1, 2, 2, 6], [1, 1, 1, 3],
     [1, 1, 1, 3], "SAME", [3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0, 24.0], False),
    ("testMaxPoolKernelSmallerThanStrideValid", nn.max_pool, [1, 7, 7, 1], [1, 2, 2, 1],
     [1, 3, 3, 1], "VALID", [9, 12, 30, 33], False),
    ("testAvgPoolKernelSmallerThanStride", nn.avg_pool, [1, 7, 7, 1], [1, 2, 2, 1],
     [1, 3, 3, 1], "VALID", [5, 8, 26, 29], False),
    ("testKernelSmallerThanStrideSame1_/max", nn.max_pool, [1, 3, 3, 1], [1, 1, 1, 1],
     [1, 2, 2, 1], "SAME", [1, 3, 7, 9], False),
    ("testKernelSmallerThanStrideSame1_/avg", nn.avg_pool, [1, 3, 3, 1], [1, 1, 1, 1],
     [1, 2, 2, 1], "SAME", [1, 3, 7, 9], False),
    ("testKernelSmallerThanStrideSame2_/max", nn.max_pool, [1, 4, 4, 1], [1, 1, 1, 1],
     [1, 2, 2, 1], "SAME", [1, 3, 9, 11], False),
    ("testKernelSmallerThanStrideSame2_/avg", nn.avg_pool, [1, 4, 4, 1], [1, 1, 1, 1],
     [1, 2, 2, 1], "SAME", [1, 3, 9, 11], False),
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_verify_one_type(case, dtype):
    """PoolingTest._VerifyOneType cases: values in each dtype, and the dtype kept."""
    _, pool, input_sizes, ksize, strides, padding, expected, negative = case
    actual = pool(_input(input_sizes, dtype, negative), ksize, strides, padding)
    assert actual.dtype == dtype
    assert_all_close_according_to_type(np.array(expected, dtype=dtype), actual.ravel())


def test_max_pool_explicit_padding_1d():
    """PoolingTest.testMaxPoolExplicitPadding_1D, as the 2-D pool of a height-1 image (swigflow
    has no max_pool1d)."""
    x = np.array([1.0, 2.0, 3.0], np.float32).reshape(1, 1, 3, 1)
    y = nn.max_pool(x, [1, 1, 2, 1], [1, 1, 2, 1], [[0, 0], [0, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(y.ravel(), [2.0, 3.0])


def test_raw_avg_pool_large_ksize_raise_error():
    """PoolingTest.testRawAvgPoolLargeKsizeRaiseError."""
    with pytest.raises(errors.InvalidArgumentError, match="out of range for an int32"):
        gen_nn_ops.avg_pool(
            np.ones([1, 1, 1, 1]), ksize=[1, 9223372036854775807, 1, 1], strides=[1, 1, 1, 1],
            padding="SAME", data_format="NHWC",
        )  # fmt: skip


def test_max_pool_invalid_filter_size():
    """PoolingTest.testMaxPoolInvalidFilterSize (the CPU branch)."""
    with pytest.raises(
        errors.InvalidArgumentError,
        match=r"ksize dimension .* is larger than the input tensor dimension",
    ):
        nn.max_pool(np.ones([1, 1, 1, 1], np.float32), ksize=[1, 1, 2, 1], strides=1,
                    padding="VALID")  # fmt: skip


@pytest.mark.parametrize(
    "ksize,strides,message",
    [
        ([1, 2, 2, 2], [1, 1, 1, 2], "exactly one of pooling across depth"),
        ([1, 1, 1, 2], [1, 1, 1, 1], "depth window to equal the depth stride"),
        ([1, 1, 1, 3], [1, 1, 1, 3], "evenly divide"),
    ],
)
def test_depthwise_max_pool_invalid_configs(ksize, strides, message):
    """PoolingTest.testDepthwiseMaxPoolInvalidConfigs."""
    with pytest.raises(errors.UnimplementedError, match=message):
        nn.max_pool(np.ones([1, 2, 2, 4], np.float32), ksize=ksize, strides=strides,
                    padding="SAME")  # fmt: skip


def _gradient_point(pool, input_sizes):
    """Where TF checks gradients: max_pool at 1, 2, 3, ... (distinct maxima), avg_pool at the
    gradient checker's default, uniform values in [0, 1)."""
    if pool is nn.max_pool:
        return np.arange(1, int(np.prod(input_sizes)) + 1, dtype=np.float32).reshape(input_sizes)
    return np.random.default_rng(0).random(input_sizes).astype(np.float32)


def _pool_gradient_error(pool, input_sizes, ksize_hw, strides_hw, padding):
    """_ConstructAndTestGradient."""
    x = _gradient_point(pool, input_sizes)
    ksize = [1, *ksize_hw, 1]
    strides = [1, *strides_hw, 1]
    return compute_gradient_error(lambda v: pool(v, ksize, strides, padding), [x], delta=1e-2)


# (name, input_sizes, output_sizes, window, strides, padding)
MAX_GRAD_CASES = [
    ("ValidPadding1_1", [1, 3, 3, 1], [1, 3, 3, 1], (1, 1), (1, 1), "VALID"),
    ("ValidPadding1_2", [1, 3, 3, 1], [1, 2, 2, 1], (1, 1), (2, 2), "VALID"),
    ("ValidPadding2_1_6", [2, 6, 6, 3], [2, 5, 5, 3], (2, 2), (1, 1), "VALID"),
    ("ValidPadding2_1_7", [2, 7, 7, 3], [2, 6, 6, 3], (2, 2), (1, 1), "VALID"),
    ("ValidPadding2_2", [2, 2, 2, 3], [2, 1, 1, 3], (2, 2), (2, 2), "VALID"),
    ("SamePadding1_1", [2, 2, 4, 3], [2, 2, 4, 3], (1, 1), (1, 1), "SAME"),
    ("SamePadding1_2", [2, 2, 4, 3], [2, 1, 2, 3], (1, 1), (2, 2), "SAME"),
    ("SamePadding2_1", [2, 2, 4, 3], [2, 2, 4, 3], (2, 2), (1, 1), "SAME"),
    ("SamePadding2_2", [2, 2, 4, 3], [2, 1, 2, 3], (2, 2), (2, 2), "SAME"),
    ("SamePadding3_1", [1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1), "SAME"),
    ("ExplicitPadding_1", [1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1),
     [[0, 0], [1, 1], [1, 1], [0, 0]]),
    ("ExplicitPadding_2", [1, 7, 7, 1], [1, 6, 8, 1], (3, 5), (1, 1),
     [[0, 0], [0, 1], [2, 3], [0, 0]]),
    ("ExplicitPaddingLeftGreater", [1, 7, 7, 1], [1, 6, 8, 1], (3, 5), (1, 1),
     [[0, 0], [0, 1], [3, 2], [0, 0]]),
    ("ExplicitPaddingBatchChannel", [4, 7, 7, 3], [4, 6, 8, 3], (3, 5), (1, 1),
     [[0, 0], [0, 1], [3, 2], [0, 0]]),
    ("ExplicitPaddingStrides", [1, 7, 7, 1], [1, 4, 3, 1], (3, 3), (2, 3),
     [[0, 0], [1, 1], [1, 1], [0, 0]]),
]  # fmt: skip


@pytest.mark.parametrize("case", MAX_GRAD_CASES, ids=[c[0] for c in MAX_GRAD_CASES])
def test_max_pool_grad(case):
    """PoolingTest.testMaxPoolGrad (_testMaxPoolGrad*, _testMaxPoolExplicitPadding*): error
    below TF's 1e-3."""
    _, input_sizes, output_sizes, window, strides, padding = case
    ksize, stride = [1, *window, 1], [1, *strides, 1]
    assert nn.max_pool(np.ones(input_sizes, np.float32), ksize, stride, padding).shape == tuple(
        output_sizes
    )
    assert _pool_gradient_error(nn.max_pool, input_sizes, window, strides, padding) < 1e-3


AVG_GRAD_CASES = [
    ("ValidPadding1_1", [2, 3, 3, 3], [2, 3, 3, 3], (1, 1), (1, 1), "VALID"),
    ("ValidPadding1_2", [2, 3, 3, 3], [2, 2, 2, 3], (1, 1), (2, 2), "VALID"),
    ("ValidPadding2_1", [2, 3, 3, 3], [2, 2, 2, 3], (2, 2), (1, 1), "VALID"),
    ("ValidPadding2_2", [2, 2, 2, 3], [2, 1, 1, 3], (2, 2), (2, 2), "VALID"),
    ("SamePadding1_1", [2, 2, 4, 3], [2, 2, 4, 3], (1, 1), (1, 1), "SAME"),
    ("SamePadding1_2", [2, 2, 4, 3], [2, 1, 2, 3], (1, 1), (2, 2), "SAME"),
    ("SamePadding2_1", [2, 2, 4, 3], [2, 2, 4, 3], (2, 2), (1, 1), "SAME"),
    ("SamePadding2_2", [2, 2, 4, 3], [2, 1, 2, 3], (2, 2), (2, 2), "SAME"),
    ("SamePadding3_1", [1, 7, 7, 1], [1, 7, 7, 1], (3, 3), (1, 1), "SAME"),
]


@pytest.mark.parametrize("case", AVG_GRAD_CASES, ids=[c[0] for c in AVG_GRAD_CASES])
def test_avg_pool_grad(case):
    """PoolingTest.testAvgPoolGrad: error below TF's 1e-4."""
    _, input_sizes, output_sizes, window, strides, padding = case
    ksize, stride = [1, *window, 1], [1, *strides, 1]
    assert nn.avg_pool(np.ones(input_sizes, np.float32), ksize, stride, padding).shape == tuple(
        output_sizes
    )
    assert _pool_gradient_error(nn.avg_pool, input_sizes, window, strides, padding) < 1e-4


def test_avg_pool_grad_output_with_zero_dim():
    """PoolingTest.testAvgPoolGradOutputWithZeroDim (NHWC)."""
    values = gen_nn_ops.avg_pool_grad(
        np.array([1, 2, 1, 1], np.int32), np.full([1, 2, 0, 1], 0.1, np.float32),
        ksize=[1, 1, 2, 1], strides=[1, 1, 1, 1], padding="VALID", data_format="NHWC",
    )  # fmt: skip
    assert values.shape == (1, 2, 1, 1)
    np.testing.assert_array_equal(values, np.zeros([1, 2, 1, 1]))


def test_avg_pool_grad_output_memory_out_of_bounds():
    """PoolingTest.testAvgPoolGradOutputMemoryOutOfBounds (TF's GPU message)."""
    with pytest.raises(
        errors.InvalidArgumentError,
        match=r"Expected grad shape to be \[1,1,3,1\], but got \[3,1,3,1\]",
    ):
        gen_nn_ops.avg_pool_grad(
            np.array([1, 1, 3, 1], np.int32),
            np.array([[[[1.0], [2.0], [3.0]]], [[[4.0], [5.0], [6.0]]], [[[7.0], [8.0], [9.0]]]],
                     np.float32),
            ksize=[1, 1, 1, 1], strides=[1, 1, 1, 2], padding="VALID", data_format="NHWC",
        )  # fmt: skip


# (name, input, output_backprop, expected input backprop, input_sizes, output_sizes, window,
#  strides, padding)
_ALT = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0]
_NAN = float("nan")
GRAD_DIRECT_CASES = [
    ("1_1", [1.0] * 16, [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0],
     [11.0, 12.0, 13.0, 0.0, 15.0, 16.0, 17.0, 0.0, 19.0, 20.0, 21.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (2, 2), (1, 1), "VALID"),
    ("1_2", _ALT, [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0],
     [11.0, 0.0, 25.0, 0.0, 0.0, 31.0, 0.0, 17.0, 19.0, 0.0, 41.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (2, 2), (1, 1), "VALID"),
    ("1_3", _ALT, [float(v) for v in range(11, 27)],
     [54, 0.0, 62, 0.0, 0.0, 60, 0.0, 22.0, 47, 0.0, 51, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 4, 4, 1], (3, 3), (1, 1), "SAME"),
    ("WithNans2_1", [_NAN] * 16, [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0],
     [11.0, 12.0, 13.0, 0.0, 15.0, 16.0, 17.0, 0.0, 19.0, 20.0, 21.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (2, 2), (1, 1), "VALID"),
    ("WithNans2_2", [_NAN] * 16, [_NAN, 12.0, 13.0, 15.0, _NAN, 17.0, 19.0, 20.0, _NAN],
     [_NAN, 12.0, 13.0, 0.0, 15.0, _NAN, 17.0, 0.0, 19.0, 20.0, _NAN, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (2, 2), (1, 1), "VALID"),
    ("ZeroExplicitPadding", _ALT, [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0],
     [11.0, 0.0, 25.0, 0.0, 0.0, 31.0, 0.0, 17.0, 19.0, 0.0, 41.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (2, 2), (1, 1), [[0, 0], [0, 0], [0, 0], [0, 0]]),
    ("ExplicitPadding_1", _ALT, [float(v) for v in range(11, 23)],
     [11.0, 0.0, 25.0, 0.0, 0.0, 31.0, 0.0, 49.0, 19.0, 0.0, 41.0, 0.0, 0.0, 0.0, 0.0, 22.0],
     [1, 4, 4, 1], [1, 3, 4, 1], (2, 2), (1, 1), [[0, 0], [0, 0], [0, 1], [0, 0]]),
    ("ExplicitPadding_2", _ALT, [11.0, 12.0, 13.0, 15.0, 16.0, 17.0, 19.0, 20.0, 21.0],
     [54.0, 0.0, 30.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.0, 0.0, 21.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     [1, 4, 4, 1], [1, 3, 3, 1], (3, 3), (2, 2), [[0, 0], [2, 1], [2, 1], [0, 0]]),
    ("ExplicitPadding_3",
     [-1.0, -5.0, -1.0, -5.0, -5.0, -1.0, -5.0, -1.0, -1.0, -5.0, -1.0, -5.0, -5.0, -1.0, -5.0,
      -1.0], [float(v) for v in range(11, 23)],
     [11.0, 0.0, 25.0, 0.0, 0.0, 31.0, 0.0, 49.0, 19.0, 0.0, 41.0, 0.0, 0.0, 0.0, 0.0, 22.0],
     [1, 4, 4, 1], [1, 3, 4, 1], (2, 2), (1, 1), [[0, 0], [0, 0], [0, 1], [0, 0]]),
]  # fmt: skip


@pytest.mark.parametrize("case", GRAD_DIRECT_CASES, ids=[c[0] for c in GRAD_DIRECT_CASES])
def test_max_pool_grad_direct(case):
    """PoolingTest.testMaxPoolGradDirect (_testMaxPoolGradDirect*, the CPU expectations: a
    NaN window passes its gradient to its first cell)."""
    _, data, backprop, expected, input_sizes, output_sizes, window, strides, padding = case
    x = np.array(data, np.float32).reshape(input_sizes)
    ksize, stride = [1, *window, 1], [1, *strides, 1]
    y = nn.max_pool(x, ksize, stride, padding)
    assert y.shape == tuple(output_sizes)
    pad, explicit = (padding, []) if isinstance(padding, str) else (
        "EXPLICIT", [p for pair in padding for p in pair])  # fmt: skip
    dx = gen_nn_ops.max_pool_grad(
        x, y, np.array(backprop, np.float32).reshape(output_sizes), ksize, stride, pad,
        explicit_paddings=explicit,
    )  # fmt: skip
    np.testing.assert_allclose(dx.ravel(), expected, rtol=1e-6, atol=1e-6)


def _second_gradient_error(pool, input_sizes, window, strides, padding):
    """_ConstructAndTestSecondGradient: the Jacobian of x -> d(sum(pool(x)^2))/dx against
    central differences. That gradient is G(x) = PoolGrad(x, 2 * pool(x)), linear in its seed,
    so its Jacobian along e is 2 * PoolGrad(x, d pool(x) e); d pool(x) e is the seed's gradient
    the registered gradient of PoolGrad returns for e."""
    x = _gradient_point(pool, input_sizes)
    attrs = {"ksize": [1, *window, 1], "strides": [1, *strides, 1], "padding": padding}

    def first(v):
        with GradientTape() as tape:
            y = pool(v, **attrs)
        return tape.gradient(y, v, output_gradients=2 * y)

    y = pool(x, **attrs)
    if pool is nn.max_pool:
        op = Operation("MaxPoolGrad", [x, y, 2 * y], [first(x)], attrs)
        along = lambda seed: gen_nn_ops.max_pool_grad(x, y, seed, **attrs)  # noqa: E731
    else:
        shape = np.array(x.shape, np.int32)
        op = Operation("AvgPoolGrad", [shape, 2 * y], [first(x)], attrs)
        along = lambda seed: gen_nn_ops.avg_pool_grad(shape, seed, **attrs)  # noqa: E731
    error = 0.0
    for j in range(x.size):
        e = np.zeros_like(x)
        e.flat[j] = 1
        theoretical = 2 * along(get_gradient(op.type)(op, e)[-1])
        plus, minus = x.copy(), x.copy()
        plus.flat[j] += 1e-2
        minus.flat[j] -= 1e-2
        numeric = (first(plus).astype(np.float64) - first(minus)) / 2e-2
        error = max(error, np.max(np.abs(theoretical - numeric)))
    return error


MAX_GRAD_GRAD_CASES = [c for c in MAX_GRAD_CASES if not c[0].startswith("Explicit")]


@pytest.mark.parametrize("case", MAX_GRAD_GRAD_CASES, ids=[c[0] for c in MAX_GRAD_GRAD_CASES])
def test_max_pool_grad_grad(case):
    """PoolingTest.testMaxPoolGradGrad: error below TF's 1e-2."""
    _, input_sizes, _, window, strides, padding = case
    assert _second_gradient_error(nn.max_pool, input_sizes, window, strides, padding) < 1e-2


@pytest.mark.parametrize("case", AVG_GRAD_CASES, ids=[c[0] for c in AVG_GRAD_CASES])
def test_avg_pool_grad_grad(case):
    """_ConstructAndTestSecondGradient for avg_pool (TF's tolerance 1e-3) on the
    testAvgPoolGrad shapes."""
    _, input_sizes, _, window, strides, padding = case
    assert _second_gradient_error(nn.avg_pool, input_sizes, window, strides, padding) < 1e-3


@pytest.mark.parametrize("pool", [nn.max_pool, nn.avg_pool], ids=["max_pool", "avg_pool"])
def test_op_edge_cases(pool):
    """PoolingTest.testOpEdgeCases. TF's graph mode fails the window two larger than the input
    at shape inference (ValueError "Negative dimension size"); eager TF and swigflow fail it
    when run, with the kernel's InvalidArgumentError."""
    if pool is not nn.max_pool:
        with pytest.raises(
            errors.UnimplementedError, match="Pooling is not yet supported on the batch"
        ):
            pool(np.ones([1, 1, 1, 1], np.float32), ksize=[1, 1, 1, 1], strides=[2, 1, 1, 1],
                 padding="SAME")  # fmt: skip
    x = np.ones([32, 20, 20, 3], np.float32)
    for ksize in ([1, 20, 22, 1], [1, 22, 20, 1]):
        with pytest.raises(
            errors.InvalidArgumentError, match="Computed output size would be negative"
        ):
            pool(x, ksize=ksize, strides=[1, 1, 1, 1], padding="VALID")


def _x9():
    return np.array([(((f + 128) % 255) - 127) for f in range(9)], np.float32).reshape(1, 3, 3, 1)


@pytest.mark.parametrize(
    "explicit,message",
    [
        ([0, 0, 0, 1, 0, 2, 0, 0], "Right padding 2 needs to be smaller than the window size 2"),
        ([0, 0, -1, -1, -1, -1, 0, 0], "All elements of explicit_paddings must be nonnegative"),
        ([1, 1, 1, 1, 1, 1, 0, 0],
         "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    ],
    ids=["testEdgeCasesExcessPadding", "testNegativePadding", "testExplicitPaddingBatch"],
)  # fmt: skip
def test_explicit_padding_errors(explicit, message):
    """PoolingTest.testEdgeCasesExcessPadding, testNegativePadding, testExplicitPaddingBatch
    (the last two are ValueErrors of TF's graph-mode shape inference; eager TF and swigflow
    raise InvalidArgumentError with the same words)."""
    with pytest.raises(errors.InvalidArgumentError, match=message):
        gen_nn_ops.max_pool(_x9(), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="EXPLICIT",
                            explicit_paddings=explicit, data_format="NHWC")  # fmt: skip


def test_max_pool_grad_eager_shape_errors():
    """PoolingTest.testMaxPoolGradEagerShapeErrors."""
    one = np.ones((1, 1, 1, 1), np.float32)
    two = np.ones((1, 1, 1, 2), np.float32)
    attrs = {"ksize": [1, 1, 1, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}
    for op in (gen_nn_ops.max_pool_grad, gen_nn_ops.max_pool_grad_grad):
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"Expected orig_output shape to be \[1,1,1,1\], but got \[1,1,1,2\]",
        ):
            op(one, two, one, **attrs)
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"Expected grad shape to be \[1,1,1,1\], but got \[1,1,1,2\]",
        ):
            op(one, one, two, **attrs)
