"""tensorflow/python/data/kernel_tests/take_test.py and repeat_test.py: TakeTest,
TakeDatasetCheckpointTest, RepeatTest and RepeatDatasetCheckpointTest (checkpoints as iterator
states; symbolic_checkpoint is a TF option with no counterpart: every swigflow state is one).

TakeRandomAccessTest, TakeGlobalShuffleTest, TakeGlobalShuffleCheckpointTest,
RepeatRandomAccessTest, RepeatGlobalShuffleTest and RepeatGlobalShuffleCheckpointTest:
random_access.at is tf.data.experimental.at, and global_shuffle_op._global_shuffle (private in
TensorFlow) is Dataset.global_shuffle. The checkpoint tests of global shuffles compare orders
exactly (stricter than upstream's assert_items_equal: a dataset built anew gives its first
order again), saving every 37 elements in the long ones.
"""

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors
from swigflow.data import AUTOTUNE, Dataset
from swigflow.data.experimental import at


@pytest.mark.parametrize("count", [-1, 0, 4, 10, 25])
def test_take_basic(count):
    """TakeTest.testBasic."""
    components = (np.arange(10),)
    dataset = Dataset.from_tensor_slices(components).take(count)
    num_output = min(count, 10) if count != -1 else 10
    assert as_py(list(dataset)) == [(i,) for i in range(num_output)]


def test_take_name():
    """TakeTest.testName."""
    assert as_py(list(Dataset.from_tensors(42).take(1, name="take"))) == [42]


@pytest.mark.parametrize("count,num_outputs", [(50, 50), (200, 100), (100, 100), (-1, 100), (0, 0)])
def test_take_checkpoint(count, num_outputs):
    """TakeDatasetCheckpointTest.test."""
    verify_checkpoints(lambda: Dataset.range(100).take(count), num_outputs)


COMPONENTS = (np.array(1), np.array([1, 2, 3]), np.array(37.0))


@pytest.mark.parametrize("count", [0, 3, 7])
def test_finite_repeat(count):
    """RepeatTest.testFiniteRepeat."""
    dataset = Dataset.from_tensors(COMPONENTS).repeat(count)
    assert as_py(list(dataset)) == [as_py(COMPONENTS)] * count


def test_infinite_repeat():
    """RepeatTest.testInfiniteRepeat."""
    it = iter(Dataset.from_tensors(COMPONENTS).repeat(-1))
    for _ in range(17):
        for component, result in zip(COMPONENTS, next(it)):
            np.testing.assert_array_equal(component, result)


def test_repeat_repeat():
    """RepeatTest.testRepeatRepeat."""
    dataset = Dataset.from_tensors(COMPONENTS).repeat(7).repeat(14)
    assert as_py(list(dataset)) == [as_py(COMPONENTS)] * (7 * 14)


def test_repeat_name():
    """RepeatTest.testName."""
    assert as_py(list(Dataset.from_tensors(42).repeat(1, name="repeat"))) == [42]


def build_repeat_dataset(num_elements, num_epochs, num_outputs=None):
    dataset = Dataset.range(num_elements).repeat(num_epochs)
    if num_outputs:
        dataset = Dataset.zip((dataset, Dataset.range(num_outputs)))
    return dataset


@pytest.mark.parametrize(
    "num_elements,num_epochs,zip_with,num_outputs",
    [(10, 10, None, 100), (10, 0, None, 0), (10, -1, 100, 100), (0, -1, None, 0)],
    ids=["testFiniteRepeat", "testEmptyRepeat", "testInfiniteRepeat", "testInfiniteEmptyRepeat"],
)
def test_repeat_checkpoint(num_elements, num_epochs, zip_with, num_outputs):
    """RepeatDatasetCheckpointTest (every method)."""
    verify_checkpoints(
        lambda: build_repeat_dataset(num_elements, num_epochs, zip_with), num_outputs
    )


@pytest.mark.parametrize("index", [-1, 3, 4])
def test_take_random_access_invalid_index(index):
    """TakeRandomAccessTest.testInvalidIndex."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(10).take(3), index=index)


@pytest.mark.parametrize("index", [-2, 0, 1])
def test_take_random_access_empty_dataset(index):
    """TakeRandomAccessTest.testEmptyDataset."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([]).take(5), index=index)


@pytest.mark.parametrize("count", [-1, 0, 4, 10, 25])
def test_take_random_access_basic(count):
    """TakeRandomAccessTest.testBasic."""
    dataset = Dataset.range(10).take(count)
    num_output = min(count, 10) if count != -1 else 10
    for i in range(num_output):
        assert at(dataset, index=i) == i
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index=num_output)


def _shuffled(dataset, seed, reshuffle_each_iteration):
    return dataset.global_shuffle(seed=seed, reshuffle_each_iteration=reshuffle_each_iteration)


@pytest.mark.parametrize("reshuffle_each_iteration", [True, False])
@pytest.mark.parametrize("seed", [None, 42])
@pytest.mark.parametrize("repetitions", [1, 2])
@pytest.mark.parametrize("count", [20, 200])
def test_take_global_shuffle(count, repetitions, seed, reshuffle_each_iteration):
    """TakeGlobalShuffleTest.test (dataset_range=100)."""
    dataset = Dataset.range(100).take(count).prefetch(buffer_size=AUTOTUNE)
    if repetitions > 1:
        dataset = dataset.repeat(repetitions)
    dataset = _shuffled(dataset, seed, reshuffle_each_iteration)
    expected = list(range(0, min(count, 100))) * repetitions
    output = as_py(list(dataset))
    assert sorted(output) == sorted(expected)
    assert output != expected
    assert len(output) == dataset.cardinality()


@pytest.mark.parametrize("reshuffle_each_iteration", [True, False])
@pytest.mark.parametrize("repetitions", [1, 2])
@pytest.mark.parametrize("count", [2, 20])
def test_take_global_shuffle_checkpoint(count, repetitions, reshuffle_each_iteration):
    """TakeGlobalShuffleCheckpointTest.test (dataset_range=10, seed=42)."""

    def build_dataset():
        dataset = Dataset.range(10).take(count).prefetch(buffer_size=AUTOTUNE)
        if repetitions > 1:
            dataset = dataset.repeat(repetitions)
        return _shuffled(dataset, 42, reshuffle_each_iteration)

    verify_checkpoints(build_dataset, min(count, 10) * repetitions)


@pytest.mark.parametrize("index", [-1, 6, 7])
def test_repeat_random_access_invalid_index(index):
    """RepeatRandomAccessTest.testInvalidIndex."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([1, 2, 3]).repeat(2), index=index)


@pytest.mark.parametrize("index", [-1, 0])
def test_repeat_random_access_empty_dataset(index):
    """RepeatRandomAccessTest.testEmptyDataset."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([]).repeat(2), index=index)


@pytest.mark.parametrize("count", [0, 3, 8])
@pytest.mark.parametrize("elements", [0, 5, 10])
def test_repeat_random_access_finite_repeat(elements, count):
    """RepeatRandomAccessTest.testFiniteRepeat."""
    dataset = Dataset.range(elements).repeat(count)
    expected = np.tile(np.arange(0, elements, 1, dtype=np.int64), count)
    for i in range(elements * count):
        assert at(dataset, index=i) == expected[i]


@pytest.mark.parametrize("count_2", [3, 4, 5])
@pytest.mark.parametrize("count_1", [0, 1, 2])
@pytest.mark.parametrize("elements", [0, 3, 5])
def test_repeat_random_access_repeat_repeat(elements, count_1, count_2):
    """RepeatRandomAccessTest.testRepeatRepeat."""
    dataset = Dataset.range(elements).repeat(count_1).repeat(count_2)
    expected = np.tile(np.arange(0, elements, 1, dtype=np.int64), count_1 * count_2)
    for i in range(elements * count_1 * count_2):
        assert at(dataset, index=i) == expected[i]


@pytest.mark.parametrize("count", [None, -1, -2])
@pytest.mark.parametrize("elements", [3, 5])
def test_repeat_random_access_infinite_repeat(elements, count):
    """RepeatRandomAccessTest.testInfiniteRepeat."""
    dataset = Dataset.range(elements).repeat(count=count)
    with pytest.raises(errors.FailedPreconditionError):
        at(dataset, index=0)


@pytest.mark.parametrize("reshuffle_each_iteration", [True, False])
@pytest.mark.parametrize("seed", [None, 19])
@pytest.mark.parametrize("repetitions", [1, 27])
def test_repeat_global_shuffle(repetitions, seed, reshuffle_each_iteration):
    """RepeatGlobalShuffleTest.testRepeat (dataset_range=41)."""
    dataset = Dataset.range(41).repeat(repetitions).prefetch(buffer_size=AUTOTUNE)
    dataset = _shuffled(dataset, seed, reshuffle_each_iteration)
    expected = list(range(41)) * repetitions
    output = as_py(list(dataset))
    assert sorted(output) == sorted(expected)
    assert output != expected
    per_iteration = [output[i : i + 41] for i in range(0, len(output), 41)]
    for i in range(1, repetitions):  # every sub-range is shuffled
        assert per_iteration[i] != list(range(41))
        assert per_iteration[i] != per_iteration[i - 1]


@pytest.mark.parametrize("repetitions", [None, 0])
def test_repeat_global_shuffle_invalid_dataset(repetitions):
    """RepeatGlobalShuffleTest.testInvalidDataset."""
    dataset = Dataset.range(10).repeat(repetitions).prefetch(buffer_size=AUTOTUNE)
    message = r"`repeat.*` does not support random access of tf.data datasets."
    with pytest.raises(errors.FailedPreconditionError, match=message):
        list(dataset.global_shuffle())


@pytest.mark.parametrize("reshuffle_each_iteration", [True, False])
@pytest.mark.parametrize("repetitions", [1, 27])
def test_repeat_global_shuffle_checkpoint(repetitions, reshuffle_each_iteration):
    """RepeatGlobalShuffleCheckpointTest.testRepeat (dataset_range=41, seed=42)."""

    def build_dataset():
        dataset = Dataset.range(41).repeat(repetitions).prefetch(buffer_size=AUTOTUNE)
        return _shuffled(dataset, 42, reshuffle_each_iteration)

    n = 41 * repetitions
    verify_checkpoints(build_dataset, n, stops=[*range(0, n, 37), n - 1, n])
