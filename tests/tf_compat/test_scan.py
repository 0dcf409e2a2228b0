"""tensorflow/python/data/kernel_tests/scan_test.py: ScanTest and ScanCheckpointTest.

Not translated: the TensorArray tests (swigflow has no TensorArray),
testTensorArrayWithCondResetByExternalCaptureBreaks (TF1 control flow) and
testUseDefaultDevice (GPU placement). Adaptations: scan functions use numpy where TensorFlow's
use array ops; testChangingStateShape checks the values, not the legacy static shapes (what a
Python function returns has an UnknownSpec, docs/differences.md); a scan_func's wrong state
dtype or return value is TypeError at the first element rather than when the dataset is made
(nothing is traced).
"""

import itertools

import numpy as np
import pytest
from tf_test_util import verify_checkpoints

from swigflow import errors
from swigflow.data import Dataset
from swigflow.tensors import SparseTensor

COUNTS = [(0, 1, 10), (0, 1, 0), (10, 1, 10), (10, 2, 10), (10, -1, 10), (10, -2, 10)]


def _counting_dataset(start, scan_fn):
    return Dataset.from_tensors(0).repeat().scan(initial_state=start, scan_func=scan_fn)


@pytest.mark.parametrize("start,step,take", COUNTS)
def test_count(start, step, take):
    """ScanTest.testCount."""
    ds = _counting_dataset(start, lambda state, _: (state + step, state)).take(take)
    expected = [e for e, _ in zip(itertools.count(start, step), range(take))]
    it = iter(ds)
    assert [int(next(it)) for _ in range(take)] == expected
    with pytest.raises(StopIteration):
        next(it)


def test_count_state_is_an_int32_tensor():
    """The state scan_func gets is what tf.constant makes of the initial state: int32."""
    seen = []

    def scan_fn(state, _):
        seen.append((type(state), state.dtype))
        return state + 1, state

    list(_counting_dataset(0, scan_fn).take(2))
    assert {dtype for _, dtype in seen} == {np.dtype(np.int32)}


def test_fibonacci():
    """ScanTest.testFibonacci."""
    data = (
        Dataset.from_tensors(1)
        .repeat(None)
        .scan(initial_state=[0, 1], scan_func=lambda a, _: ([a[1], a[0] + a[1]], a[1]))
    )
    it = iter(data)
    assert [int(next(it)) for _ in range(6)] == [1, 1, 2, 3, 5, 8]


def _sparse(i):
    return SparseTensor(np.array([[0, 0]]), i * np.array([1]), np.array([1, 1]))


@pytest.mark.parametrize("start,step,take", COUNTS)
def test_sparse_count(start, step, take):
    """ScanTest.testSparseCount."""
    ds = _counting_dataset(
        _sparse(start), lambda state, _: (_sparse(state.values[0] + step), state)
    ).take(take)
    expected = [e for e, _ in zip(itertools.count(start, step), range(take))]
    assert [int(e.values[0]) for e in ds] == expected


def test_changing_state_shape():
    """ScanTest.testChangingStateShape: a state whose vector doubles in length and whose rank
    grows each element (values only; see the module's docstring)."""

    def scan_fn(state, input_value):
        longer_vector = np.concatenate([state[0], state[0]], 0)
        larger_rank = np.expand_dims(state[1], 0)
        return (longer_vector, larger_rank), (state, input_value)

    dataset = Dataset.from_tensors(0).repeat(5).scan(initial_state=([0], 1), scan_func=scan_fn)
    elements = list(dataset)
    assert len(elements) == 5
    for i, ((longer_vector, larger_rank), _) in enumerate(elements):
        np.testing.assert_array_equal(longer_vector, [0] * (2**i))
        np.testing.assert_array_equal(larger_rank, np.array(1, ndmin=i))


def test_incorrect_state_type():
    """ScanTest.testIncorrectStateType."""
    ds = Dataset.range(10).scan(
        initial_state=np.int32(1), scan_func=lambda state, _: (np.int64(1), state)
    )
    with pytest.raises(
        TypeError, match=r"The element types for the new state must match the initial state\."
    ):
        list(ds)


def test_incorrect_return_type():
    """ScanTest.testIncorrectReturnType (TensorFlow 2.21 goes on: "but its return type is ...")."""
    ds = Dataset.range(10).scan(initial_state=np.int32(1), scan_func=lambda _s, _v: np.int64(1))
    with pytest.raises(
        TypeError,
        match=r"`scan_func` should return a pair consisting of new state and the output value",
    ):
        list(ds)


def test_preserve_cardinality():
    """ScanTest.testPreserveCardinality: StopIteration inside scan_func does not end the
    dataset, it is InvalidArgumentError."""

    def scan_fn(state, _):
        raise StopIteration()

    it = iter(Dataset.from_tensors(0).scan(initial_state=np.int32(1), scan_func=scan_fn))
    with pytest.raises(errors.InvalidArgumentError):
        next(it)


def test_name():
    """ScanTest.testName."""
    dataset = Dataset.from_tensors(42).scan(0, lambda x, y: (y, y), name="scan")
    assert [int(e) for e in dataset] == [42]


def test_checkpoint():
    """ScanCheckpointTest.test: restored from the state after any element (the symbolic and
    the saved-state checkpoints are the same thing here)."""

    def build():
        return (
            Dataset.from_tensors(1)
            .repeat(10)
            .scan(initial_state=[0, 1], scan_func=lambda a, _: ([a[1], a[0] + a[1]], a[1]))
        )

    verify_checkpoints(build, 10)
