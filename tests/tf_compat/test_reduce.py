"""tensorflow/python/data/kernel_tests/reduce_test.py: ReduceTest.

Not translated: testSquareUsingPlaceholder and testCancellation (TF1 graph sessions),
testStateOnGPU (GPU placement). Adaptations: the side-effect tests count in a Python list where
TensorFlow's assign to a tf.Variable inside a tf.function (nothing is traced here, so the
functions run eagerly, in order); testOptions' assert_next on the MapAndBatch fusion has no
counterpart (swigflow does not rewrite the pipeline), so only its result is checked.
"""

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.data import Dataset
from swigflow.tensors import SparseTensor


@pytest.mark.parametrize("i", range(10))
def test_sum(i):
    """ReduceTest.testSum."""
    result = Dataset.range(1, i + 1).reduce(np.int64(0), lambda x, y: x + y)
    assert result == ((i + 1) * i) // 2
    assert np.asarray(result).dtype == np.int64


@pytest.mark.parametrize("i", range(10))
def test_sum_tuple(i):
    """ReduceTest.testSumTuple."""

    def reduce_fn(state, value):
        v1, v2 = value
        return state + v1 + v2

    ds = Dataset.range(1, i + 1)
    ds = Dataset.zip((ds, ds))
    assert ds.reduce(sf.constant(0, dtype=sf.int64), reduce_fn) == (i + 1) * i


@pytest.mark.parametrize("i", range(10))
def test_sum_and_count(i):
    """ReduceTest.testSumAndCount."""

    def reduce_fn(state, value):
        s, c = state
        return s + value, c + 1

    zero = sf.constant(0, dtype=sf.int64)
    s, c = Dataset.range(1, i + 1).reduce((zero, zero), reduce_fn)
    assert (s, c) == (((i + 1) * i) // 2, i)


def _sparse(i):
    return SparseTensor(np.array([[0, 0]]), i * np.array([1]), np.array([1, 1]))


def _assert_sparse_equal(actual, expected):
    assert isinstance(actual, SparseTensor)
    np.testing.assert_array_equal(actual.indices, expected.indices)
    np.testing.assert_array_equal(actual.values, expected.values)
    np.testing.assert_array_equal(actual.dense_shape, expected.dense_shape)


@pytest.mark.parametrize("i", range(10))
def test_sparse(i):
    """ReduceTest.testSparse."""
    result = Dataset.from_tensors(_sparse(i + 1)).reduce(_sparse(0), lambda _, value: value)
    _assert_sparse_equal(result, _sparse(i + 1))


@pytest.mark.parametrize("i", range(10))
def test_nested(i):
    """ReduceTest.testNested."""

    def reduce_fn(state, value):
        state["dense"] += value["dense"]
        state["sparse"] = value["sparse"]
        return state

    def map_fn(i):
        return {"dense": sf.cast(i, sf.int64), "sparse": _sparse(sf.cast(i, sf.int64))}

    result = Dataset.range(1, i + 1).map(map_fn).reduce(map_fn(0), reduce_fn)
    assert result["dense"] == ((i + 1) * i) // 2
    _assert_sparse_equal(result["sparse"], _sparse(i))


def test_dataset_side_effect():
    """ReduceTest.testDatasetSideEffect: the map function runs once per element."""
    counter = []

    def increment_fn(x):
        counter.append(1)
        return x

    assert Dataset.range(10).map(increment_fn).reduce(np.int64(0), lambda s, v: s + v) == 45
    assert len(counter) == 10


def test_side_effect():
    """ReduceTest.testSideEffect: the reduce function runs once per element."""
    counter = []

    def reduce_fn(state, value):
        counter.append(1)
        return state + value

    Dataset.range(10).reduce(np.int64(0), reduce_fn)
    assert len(counter) == 10


def test_automatic_control_dependencies():
    """ReduceTest.testAutomaticControlDependencies: two reductions run in program order."""
    counter = [1]

    def reduce1_fn(state, value):
        counter[0] = counter[0] + 1
        return state + value

    def reduce2_fn(state, value):
        counter[0] = counter[0] * 2
        return state + value

    Dataset.range(1).reduce(np.int64(0), reduce1_fn)
    Dataset.range(1).reduce(np.int64(0), reduce2_fn)
    assert counter[0] == 4


def test_invalid_function():
    """ReduceTest.testInvalidFunction: a state of another structure."""
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(5).reduce(0, lambda _, __: ())


def test_options():
    """ReduceTest.testOptions: a reduction over map then batch (the result only)."""
    dataset = Dataset.range(5).map(lambda x: x).batch(5)
    assert dataset.reduce(0, lambda state, value: state) == 0
