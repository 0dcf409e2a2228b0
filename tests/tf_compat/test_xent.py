"""tensorflow/python/kernel_tests/nn_ops/xent_op_test_base.py (XentOpTestBase) and
tensorflow/python/kernel_tests/sparse_xent_op_test_base.py (SparseXentOpTestBase), on the CPU.

Expected values come from the tests' own numpy references (_npXent), as upstream. Adapted:
- bfloat16 cases are left out (numpy has no bfloat16);
- graph-mode cases run eagerly: XentOpTestBase.testShapeMismatch raises the kernel's
  InvalidArgumentError (graph mode raised ValueError from static shapes), and the
  placeholder cases (testLabelsPlaceholderScalar, testScalarHandling) feed the same arrays;
- the BatchMatMul-in-the-graph assertions of testGradient/testSecondGradient have no eager
  meaning; the gradient checks themselves are kept;
- the GPU-only testInvalidLabelGPU is not translated.
"""

import re

import numpy as np
import pytest
from tf_test_util import assert_all_close_according_to_type

import swigflow
from swigflow import errors, math, nn
from swigflow.ops import GradientTape


def op_fwd_bwd(labels, logits, axis=-1, sparse=False):
    """_opFwdBwd: the loss and its gradient by the logits."""
    logits = np.asarray(logits)
    with GradientTape() as tape:
        tape.watch(logits)
        if sparse:
            loss = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        else:
            loss = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=axis)
    return loss, tape.gradient(loss, logits)


def np_xent(labels, logits, dim=-1):
    """XentOpTestBase._npXent."""
    if dim == -1:
        dim = len(logits.shape) - 1
    one_only_on_dim = list(logits.shape)
    one_only_on_dim[dim] = 1
    e = np.exp(logits - np.reshape(np.amax(logits, axis=dim), one_only_on_dim))
    probs = e / np.reshape(np.sum(e, axis=dim), one_only_on_dim)
    bp = probs - labels
    loss = -np.sum(labels * np.log(probs + 1.0e-20), axis=dim)
    return loss, bp


def np_sparse_xent(labels, logits):
    """SparseXentOpTestBase._npXent."""
    logits = np.reshape(logits, [-1, logits.shape[-1]])
    labels = np.reshape(labels, [-1])
    batch_size = logits.shape[0]
    e = np.exp(logits - np.reshape(np.amax(logits, axis=1), [batch_size, 1]))
    probs = e / np.reshape(np.sum(e, axis=1), [batch_size, 1])
    labels_mat = np.zeros_like(probs).astype(probs.dtype)
    labels_mat[np.arange(batch_size), labels] = 1.0
    gradient = probs - labels_mat
    loss = -np.sum(labels_mat * np.log(probs + 1.0e-20), axis=1)
    return loss, gradient


def check_xent_2d(np_labels, np_logits, expected_gradient=None):
    """_testXent2D."""
    np_loss, np_gradient = np_xent(np_labels, np_logits)
    if expected_gradient is not None:
        np_gradient = expected_gradient
    loss, gradient = op_fwd_bwd(np_labels, np_logits)
    assert_all_close_according_to_type(np_loss, loss, half_rtol=1e-2)
    assert_all_close_according_to_type(np_gradient, gradient)


LABELS = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0]]
LOGITS = [[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]]


# --- XentOpTestBase ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_single_class(dtype):
    loss, gradient = op_fwd_bwd(
        np.array([[-1.0], [0.0], [1.0], [1.0]]).astype(dtype),
        np.array([[1.0], [-1.0], [0.0], [1.0]]).astype(dtype),
    )
    np.testing.assert_allclose(loss, [0.0, 0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(gradient, [[2.0], [1.0], [0.0], [0.0]], atol=1e-6)


def test_np_xent():
    np_loss, np_gradient = np_xent(np.array(LABELS), np.array(LOGITS))
    np.testing.assert_allclose(
        np_gradient, [[0.25, 0.25, 0.25, -0.75], [0.0321, -0.4129, -0.2632, 0.6439]], 1e-3, 1e-3
    )
    np.testing.assert_allclose(np_loss, [1.3862, 1.9401], 1e-3, 1e-3)


def test_labels_broadcast():
    labels = np.array([[0.0, 0.0, 0.0, 1.0]]).astype(np.float16)
    logits = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]]).astype(np.float16)
    check_xent_2d(labels, logits)
    check_xent_2d(np.array([[1.0]]).astype(np.float16), np.array([[1.0], [2.0]]).astype(np.float16))
    labels = np.array([[0.0], [2.0], [0.25]]).astype(np.float16)
    logits = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]).astype(
        np.float16
    )
    uniform_labels_gradient = [
        [0.25, 0.25, 0.25, 0.25],
        [-1.968, -1.913, -1.763, -1.355],
        [-0.218, -0.163, -0.013, 0.394],
    ]
    check_xent_2d(labels, logits, expected_gradient=uniform_labels_gradient)


def test_shape_mismatch():
    with pytest.raises(errors.InvalidArgumentError, match="must be broadcastable"):
        op_fwd_bwd([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 1.0], [2.0, 3.0]])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_types(dtype):
    """testHalf, testFloat, testDouble."""
    check_xent_2d(np.array(LABELS).astype(dtype), np.array(LOGITS).astype(dtype))


XENT_LABELS = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.5]
XENT_LOGITS = [0.1, 0.2, 0.3, 0.4, 0.1, 0.4, 0.9, 1.6, 0.1, 0.8, 2.7, 6.4]


def test_gradient():
    labels = np.array(XENT_LABELS).reshape(3, 4)
    logits = np.array(XENT_LOGITS).reshape(3, 4)
    err = swigflow.test.compute_gradient_error(
        lambda x: nn.softmax_cross_entropy_with_logits(labels=labels, logits=x), [logits]
    )
    assert err < 5e-8


def test_gradient_label_with_v2():
    logits = np.array(XENT_LOGITS).reshape(3, 4)
    err = swigflow.test.compute_gradient_error(
        lambda y: nn.softmax_cross_entropy_with_logits(labels=y, logits=logits),
        [np.array(XENT_LABELS).reshape(3, 4)],
    )
    assert err < 5e-8


def test_second_gradient():
    labels = np.array([0.0, 0.0, 1.0 / 3, 0.0, 1.0 / 3, 0.0, 0.0, 0.0, 0.0, 0.5 / 3, 0.0, 0.5 / 3])

    def gradients(logits):
        with GradientTape() as tape:
            tape.watch(logits)
            loss = math.reduce_sum(nn.softmax_cross_entropy_with_logits(labels, logits))
        return tape.gradient(loss, logits)

    err = swigflow.test.compute_gradient_error(gradients, [np.array(XENT_LOGITS)])
    assert err < 5e-8


def test_3d():
    labels = np.array(
        [
            [[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]],
            [[0.0, 0.5, 0.5, 0.0], [0.5, 0.5, 0.0, 0.0]],
            [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
        ]
    ).astype(np.float32)
    logits = np.array(
        [
            [[1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]],
            [[2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]],
            [[5.0, 4.0, 3.0, 2.0], [1.0, 2.0, 3.0, 4.0]],
        ]
    ).astype(np.float32)
    for dim in (0, 1, -1):
        np_loss, _ = np_xent(labels, logits, dim=dim)
        loss = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=dim)
        assert_all_close_according_to_type(np_loss, loss)


def test_zero_dimension():
    labels = np.zeros([0, 2, 4]).astype(np.float32)
    logits = np.zeros([0, 2, 4]).astype(np.float32)
    np_loss, _ = np_xent(labels, logits)
    loss = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_array_equal(loss, np_loss)
    assert loss.shape == (0, 2)


# --- SparseXentOpTestBase ------------------------------------------------------------------------


def check_sparse(np_labels, np_logits):
    """_testXent."""
    np_loss, np_gradient = np_sparse_xent(np_labels, np_logits)
    loss, gradient = op_fwd_bwd(np_labels, np_logits, sparse=True)
    assert_all_close_according_to_type(np_loss, loss)
    assert_all_close_according_to_type(np_gradient, gradient)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_single_class(label_dtype):
    loss, gradient = op_fwd_bwd(
        np.array([0, 0, 0]).astype(label_dtype),
        np.array([[1.0], [-1.0], [0.0]]).astype(np.float32),
        sparse=True,
    )
    np.testing.assert_allclose(loss, [0.0, 0.0, 0.0])
    np.testing.assert_allclose(gradient, [[0.0], [0.0], [0.0]])


def test_sparse_invalid_label_cpu():
    with pytest.raises(errors.InvalidArgumentError, match="Received a label value of"):
        nn.sparse_softmax_cross_entropy_with_logits(
            labels=[4, 3, 0, -1],
            logits=[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0],
                    [1.0, 2.0, 3.0, 4.0]],
        )  # fmt: skip


def test_sparse_np_xent():
    np_loss, np_gradient = np_sparse_xent(np.array([3, 0]), np.array(LOGITS))
    np.testing.assert_allclose(
        np_gradient, [[0.25, 0.25, 0.25, -0.75], [-0.968, 0.087, 0.237, 0.6439]], 1e-3, 1e-3
    )
    np.testing.assert_allclose(np_loss, [1.3862, 3.4420], 1e-3, 1e-3)


def test_sparse_shape_mismatch():
    message = re.escape("`labels.shape.rank` must equal `logits.shape.rank - 1`")
    with pytest.raises(ValueError, match=message):
        nn.sparse_softmax_cross_entropy_with_logits(
            labels=[[0, 2]], logits=[[0.0, 1.0], [2.0, 3.0], [2.0, 3.0]]
        )


def test_sparse_scalar():
    with pytest.raises(ValueError, match="`logits` cannot be a scalar"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=np.int32(0), logits=np.float32(1.0))


def test_sparse_labels_scalar():
    """testLabelsPlaceholderScalar and testScalarHandling, fed eagerly: the rank check of the
    wrapper comes first (TF's kernel says 'labels must be 1-D' when the shapes are unknown)."""
    with pytest.raises(ValueError, match="rank"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=np.int32(0), logits=[[7.0]])
    with pytest.raises(errors.InvalidArgumentError, match="labels must be 1-D"):
        swigflow.ops.run(
            "SparseSoftmaxCrossEntropyWithLogits",
            [np.zeros((1, 3), np.float32), np.zeros((1, 1), np.int32)],
        )


def test_sparse_vector():
    loss = nn.sparse_softmax_cross_entropy_with_logits(labels=np.int32(0), logits=[1.0])
    np.testing.assert_allclose(loss, 0.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_types(dtype, label_dtype):
    """testFloat, testDouble, testHalf."""
    labels = [0, 3] if dtype == np.float64 else [3, 0]
    check_sparse(np.array(labels).astype(label_dtype), np.array(LOGITS).astype(dtype))


def test_sparse_empty():
    check_sparse(np.zeros((0,), dtype=np.int32), np.zeros((0, 3)))


def test_sparse_gradient():
    labels = np.array([3, 0, 1])
    logits = np.array(XENT_LOGITS).reshape(3, 4)
    theoretical, numerical = swigflow.test.compute_gradient(
        lambda x: nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x), [logits]
    )
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=5e-8, rtol=5e-8)


def test_sparse_second_gradient():
    labels = np.array([3, 0, 1])
    logits = np.array([0.3, 0.4, 0.1, 1.2, 0.1, 1.9, 0.1, 0.7, 0.8, 0.2, 1.3, 1.3]).reshape(3, 4)

    def xent_grad(x):
        with GradientTape() as tape:
            tape.watch(x)
            loss = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
        return tape.gradient(loss, [x])[0]

    theoretical, numerical = swigflow.test.compute_gradient(xent_grad, [logits])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=5e-8, rtol=5e-8)


@pytest.mark.parametrize(
    "labels,logits",
    [
        ([[3], [0]], [[[1.0, 1.0, 1.0, 1.0]], [[1.0, 2.0, 3.0, 4.0]]]),
        (
            [[3, 2], [0, 3]],
            [[[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]],
             [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]],
        ),
    ],
)  # fmt: skip
def test_sparse_high_dim(labels, logits):
    """testHighDim, testHighDim2."""
    np_loss, np_gradient = np_sparse_xent(np.array(labels), np.array(logits))
    np_loss = np.reshape(np_loss, np.array(labels).shape)
    loss = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    logits = np.array(logits, np.float32)
    with GradientTape() as tape:
        tape.watch(logits)
        gradient = tape.gradient(
            nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), [logits]
        )[0]
    assert_all_close_according_to_type(np_loss, loss)
    assert_all_close_according_to_type(np_gradient, np.reshape(gradient, np_gradient.shape))
