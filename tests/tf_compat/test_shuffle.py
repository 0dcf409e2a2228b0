"""tensorflow/python/data/kernel_tests/shuffle_test.py: ShuffleTest's eager tests and
ShuffleCheckpointTest.test (checkpoints as iterator states).

Not translated: the graph-only tests (testSeedZero with a seed placeholder, testShuffleSeed
with graph seeds, testMultipleIterators with one-shot iterators; swigflow has no graphs, and
its per-iterator seeds are tested in testReshuffleIterationEpochs), and
testCheckpointLargeShuffleBuffer (TF's Checkpoint objects and the 2 GB protobuf limit; swigflow
states hold positions, never buffered elements).
"""

import collections
import functools

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors
from swigflow.data import Dataset

COMPONENTS = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]), np.array([9.0, 10.0, 11.0, 12.0]))


def dataset_fn(count=5, buffer_size=None, seed=0):
    repeat_dataset = Dataset.from_tensor_slices(COMPONENTS).repeat(count)
    return repeat_dataset.shuffle(buffer_size, seed) if buffer_size else repeat_dataset


def test_basic():
    """ShuffleTest.testBasic."""
    unshuffled = as_py(list(dataset_fn()))
    assert len(unshuffled) == 20
    it = iter(dataset_fn(buffer_size=100, seed=37))
    shuffled = [as_py(next(it)) for _ in range(20)]
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(it)
    assert sorted(unshuffled) == sorted(shuffled)
    assert as_py(list(dataset_fn(buffer_size=100, seed=37))) == shuffled
    different = as_py(list(dataset_fn(buffer_size=100, seed=137)))
    assert different != shuffled and sorted(different) == sorted(shuffled)
    small = as_py(list(dataset_fn(buffer_size=2, seed=37)))
    assert sorted(small) == sorted(unshuffled)
    assert list(dataset_fn(count=0, buffer_size=100, seed=37)) == []


def test_default_arguments():
    """ShuffleTest.testDefaultArguments."""
    it = iter(Dataset.from_tensor_slices([0, 1, 2, 3, 4]).shuffle(5).repeat())
    counts = collections.Counter(int(next(it)) for _ in range(50))
    assert all(counts[i] == 10 for i in range(5))


@pytest.mark.parametrize("seed", [None, 42])
@pytest.mark.parametrize("reshuffle", [True, False])
def test_reshuffle_repeat_epochs(reshuffle, seed):
    """ShuffleTest.testReshuffleRepeatEpochs."""
    dataset = Dataset.range(10).shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)
    output = as_py(list(dataset.repeat(2)))
    assert (output[:10] == output[10:]) == (not reshuffle)


@pytest.mark.parametrize("seed", [None, 42])
@pytest.mark.parametrize("reshuffle", [True, False])
def test_reshuffle_iteration_epochs(reshuffle, seed):
    """ShuffleTest.testReshuffleIterationEpochs: two iterators over one dataset."""
    dataset = Dataset.range(10).shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)
    assert (as_py(list(dataset)) == as_py(list(dataset))) == (not reshuffle)


def test_shuffle_v2_resource_capture():
    """ShuffleTest.testShuffleV2ResourceCapture."""
    ids = Dataset.range(10).shuffle(1)
    dataset = Dataset.range(1).interleave(functools.partial(lambda d, _: d, ids))
    assert as_py(list(dataset)) == list(range(10))


@pytest.mark.parametrize("seed", [None, 42])
@pytest.mark.parametrize("reshuffle", [True, False])
def test_reshuffle_separate_transformations(reshuffle, seed):
    """ShuffleTest.testReshuffleSeparateTransformations."""
    dataset = Dataset.range(10)
    first = as_py(list(dataset.shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)))
    second = as_py(list(dataset.shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)))
    assert (first != second) == (seed is None)


def test_shuffle_v2_in_function():
    """ShuffleTest.testShuffleV2InFunction (no tf.function here: a plain loop)."""
    assert sum(1 for _ in Dataset.range(10).shuffle(1)) == 10


def test_empty_dataset():
    """ShuffleTest.testEmptyDataset. TF's failed assert_equal is an InvalidArgumentError,
    raised here by the map function itself."""

    def map_fn(x):
        if x != 0:
            raise errors.InvalidArgumentError("Condition x == y did not hold element-wise")
        return x

    dataset = Dataset.from_tensors(1).map(map_fn).cache().shuffle(buffer_size=10).repeat()
    it = iter(dataset)
    with pytest.raises(errors.InvalidArgumentError):
        next(it)
    with pytest.raises(StopIteration):  # the cached dataset is empty
        next(it)


@pytest.mark.parametrize("reshuffle", [True, False])
def test_rerandomize_on_replicate(reshuffle):
    """ShuffleTest.testRerandomizeOnReplicate: with no seeds, each instantiation of the
    pipeline (here: building it again) gives another order."""

    def build():
        return Dataset.range(100).shuffle(100, reshuffle_each_iteration=reshuffle)

    shuffle_1, shuffle_2 = as_py(list(build())), as_py(list(build()))
    assert sorted(shuffle_1) == sorted(shuffle_2) and shuffle_1 != shuffle_2


@pytest.mark.parametrize("buffer_size", [1, 3, 5, 8, 10])
@pytest.mark.parametrize("reshuffle_each_iteration", [True, False])
def test_checkpoint(reshuffle_each_iteration, buffer_size):
    """ShuffleCheckpointTest.test."""
    verify_checkpoints(
        lambda: (
            Dataset.range(5)
            .shuffle(buffer_size, seed=55, reshuffle_each_iteration=reshuffle_each_iteration)
            .repeat(2)
        ),
        10,
    )
