"""tensorflow/python/data/kernel_tests/take_test.py and repeat_test.py: TakeTest,
TakeDatasetCheckpointTest, RepeatTest and RepeatDatasetCheckpointTest (checkpoints as iterator
states; symbolic_checkpoint is a TF option with no counterpart: every swigflow state is one).

Not translated yet: the RandomAccess and GlobalShuffle classes of both files, which need
tf.data.experimental.at and global shuffling of any random-access dataset (swigflow shuffles
globally only TFRecordDatasets of indexed files).
"""

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow.data import Dataset


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
