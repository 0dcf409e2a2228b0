"""tensorflow/python/data/kernel_tests/interleave_test.py: InterleaveTest and
InterleaveDatasetCheckpointTest (checkpoints as iterator states).

Adaptations: `array_ops.check_numerics(x, "message")` is a Python function raising
InvalidArgumentError for a NaN (swigflow has no such op); SparseTensorValue elements are
swigflow.SparseTensors; swigflow calls functions when the dataset is iterated, so
testMapFuncMustReturnDataset's TypeError comes from the first element, not from interleave()
(TensorFlow traces the function there). Not translated: testDeterminismConfiguration, which needs
tf.data.experimental's testing.sleep and expects nondeterministic orders; swigflow's interleave
keeps its order whatever `deterministic` says (testSloppyInterleaveDataset, which compares
sorted outputs, holds either way).
"""

import multiprocessing
import os

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors
from swigflow.data import AUTOTUNE, Dataset, Options
from swigflow.tensors import SparseTensor


def _interleave(lists, cycle_length, block_length, num_parallel_calls=None):
    """Upstream's reference implementation of interleave, as a generator."""
    num_open = 0
    all_iterators = [iter(v) for v in lists]
    open_iterators = []
    if cycle_length is None:  # as TensorFlow's kernels (and swigflow's) choose it
        cpu_count = multiprocessing.cpu_count()
        if hasattr(os, "sched_getaffinity"):
            cpu_count = len(os.sched_getaffinity(0))
        if num_parallel_calls is None:
            cycle_length = cpu_count
        elif num_parallel_calls == AUTOTUNE:
            cycle_length = (cpu_count + 2) // 3
        else:
            cycle_length = min(num_parallel_calls, cpu_count)
    for _ in range(cycle_length):
        if all_iterators:
            open_iterators.append(all_iterators.pop(0))
            num_open += 1
        else:
            open_iterators.append(None)
    while num_open or all_iterators:
        for i in range(cycle_length):
            if open_iterators[i] is None:
                if all_iterators:
                    open_iterators[i] = all_iterators.pop(0)
                    num_open += 1
                else:
                    continue
            for _ in range(block_length):
                try:
                    yield next(open_iterators[i])
                except StopIteration:
                    open_iterators[i] = None
                    num_open -= 1
                    break


def _repeat(values, count):
    return [[value] * value for value in np.tile(values, count)]


def _repeat_dataset(input_values, count, cycle_length, block_length, num_parallel_calls):
    """The dataset upstream's tests build: each x of input_values x times, interleaved."""
    return (
        Dataset.from_tensor_slices(np.int64(input_values))
        .repeat(count)
        .interleave(
            lambda x: Dataset.from_tensors(x).repeat(x),
            cycle_length,
            block_length,
            num_parallel_calls,
        )
    )


@pytest.mark.parametrize(
    "input_values,cycle_length,block_length,expected_elements",
    [
        ([4, 5, 6], 1, 1, [4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6] * 2),
        ([4, 5, 6], 2, 1,
         [4, 5, 4, 5, 4, 5, 4, 5, 5, 6, 6, 4, 6, 4, 6, 4, 6, 4, 6, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6,
          6]),
        ([4, 5, 6], 2, 3,
         [4, 4, 4, 5, 5, 5, 4, 5, 5, 6, 6, 6, 4, 4, 4, 6, 6, 6, 4, 5, 5, 5, 6, 6, 6, 5, 5, 6, 6,
          6]),
        ([4, 5, 6], 7, 2,
         [4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 5, 6, 6, 5, 6,
          6]),
        ([4, 0, 6], 2, 1, [4, 4, 6, 4, 6, 4, 6, 6, 4, 6, 4, 6, 4, 4, 6, 6, 6, 6, 6, 6]),
    ],
)  # fmt: skip
def test_python_implementation(input_values, cycle_length, block_length, expected_elements):
    """InterleaveTest.testPythonImplementation."""
    produced = list(_interleave(_repeat(input_values, 2), cycle_length, block_length))
    assert produced == expected_elements


@pytest.mark.parametrize(
    "input_values,cycle_length,block_length,num_parallel_calls",
    [
        ([4, 5, 6], 1, 3, None),
        ([4, 5, 6], 1, 3, 1),
        ([4, 5, 6], 2, 1, None),
        ([4, 5, 6], 2, 1, 1),
        ([4, 5, 6], 2, 1, 2),
        ([4, 5, 6], 2, 3, None),
        ([4, 5, 6], 2, 3, 1),
        ([4, 5, 6], 2, 3, 2),
        ([4, 5, 6], 7, 2, None),
        ([4, 5, 6], 7, 2, 1),
        ([4, 5, 6], 7, 2, 3),
        ([4, 5, 6], 7, 2, 5),
        ([4, 5, 6], 7, 2, 7),
        ([4, 5, 6, 7], None, 3, None),
        ([4, 5, 6, 7], None, 3, 1),
        ([], 2, 3, None),
        ([0, 0, 0], 2, 3, None),
        ([4, 0, 6], 2, 3, None),
        ([4, 0, 6], 2, 3, 1),
        ([4, 0, 6], 2, 3, 2),
    ],
)
def test_interleave_dataset(input_values, cycle_length, block_length, num_parallel_calls):
    """InterleaveTest.testInterleaveDataset."""
    count = 2
    dataset = _repeat_dataset(input_values, count, cycle_length, block_length, num_parallel_calls)
    expected_output = list(
        _interleave(_repeat(input_values, count), cycle_length, block_length, num_parallel_calls)
    )
    assert as_py(list(dataset)) == expected_output


def check_numerics(x, message):
    if np.isnan(x):
        raise errors.InvalidArgumentError(f"{message} : Tensor had NaN values")
    return x


@pytest.mark.parametrize(
    "cycle_length,block_length,num_parallel_calls",
    [
        (1, 3, None),
        (1, 3, 1),
        (2, 1, None),
        (2, 1, 1),
        (2, 1, 2),
        (2, 3, None),
        (2, 3, 1),
        (2, 3, 2),
        (7, 2, None),
        (7, 2, 1),
        (7, 2, 3),
        (7, 2, 5),
        (7, 2, 7),
    ],
)
def test_interleave_dataset_error(cycle_length, block_length, num_parallel_calls):
    """InterleaveTest.testInterleaveDatasetError."""
    input_values = np.float32([1.0, np.nan, 2.0, np.nan, 3.0])
    dataset = (
        Dataset.from_tensor_slices(input_values)
        .map(lambda x: check_numerics(x, "message"))
        .interleave(Dataset.from_tensors, cycle_length, block_length, num_parallel_calls)
    )
    get_next = iter(dataset)
    for value in input_values:
        if np.isnan(value):
            with pytest.raises(errors.InvalidArgumentError):
                next(get_next)
        else:
            assert next(get_next) == value
    with pytest.raises(StopIteration):
        next(get_next)


def test_interleave_sparse():
    """InterleaveTest.testInterleaveSparse."""

    def _map_fn(i):
        return SparseTensor(
            indices=[[0, 0], [1, 1]], values=(i * np.array([1, -1])), dense_shape=[2, 2]
        )

    def _interleave_fn(x):
        return Dataset.from_tensor_slices(x.to_dense())

    dataset = Dataset.range(10).map(_map_fn).interleave(_interleave_fn, cycle_length=1)
    get_next = iter(dataset)
    for i in range(10):
        for j in range(2):
            expected = [i, 0] if j % 2 == 0 else [0, -i]
            assert as_py(next(get_next)) == expected
    with pytest.raises(StopIteration):
        next(get_next)
    with pytest.raises(StopIteration):
        next(get_next)


@pytest.mark.parametrize(
    "input_values,cycle_length,block_length,num_parallel_calls",
    [
        ([4, 5, 6], 1, 3, 1),
        ([4, 5, 6], 2, 1, 1),
        ([4, 5, 6], 2, 1, 2),
        ([4, 5, 6], 2, 3, 1),
        ([4, 5, 6], 2, 3, 2),
        ([4, 5, 6], 7, 2, 1),
        ([4, 5, 6], 7, 2, 3),
        ([4, 5, 6], 7, 2, 5),
        ([4, 5, 6], 7, 2, 7),
        ([4, 5, 6, 7], None, 3, 1),
        ([4, 0, 6], 2, 3, 1),
        ([4, 0, 6], 2, 3, 2),
    ],
)
def test_sloppy_interleave_dataset(input_values, cycle_length, block_length, num_parallel_calls):
    """InterleaveTest.testSloppyInterleaveDataset."""
    count = 2
    dataset = _repeat_dataset(input_values, count, cycle_length, block_length, num_parallel_calls)
    options = Options()
    options.deterministic = False
    dataset = dataset.with_options(options)
    expected_output = list(
        _interleave(_repeat(input_values, count), cycle_length, block_length, num_parallel_calls)
    )
    get_next = iter(dataset)
    actual_output = [as_py(next(get_next)) for _ in range(len(expected_output))]
    assert sorted(expected_output) == sorted(actual_output)


def test_interleave_map():
    """InterleaveTest.testInterleaveMap."""

    def interleave_fn(x):
        return Dataset.from_tensors(x).map(lambda x: x + x)

    dataset = Dataset.range(100)
    dataset = dataset.interleave(interleave_fn, cycle_length=5)
    dataset = dataset.interleave(interleave_fn, cycle_length=5)
    assert as_py(list(dataset)) == [4 * x for x in range(100)]


def test_parallel_interleave_cached(tmp_path):
    """InterleaveTest.testParallelInterleaveCached."""
    dataset = Dataset.range(5).cache(str(tmp_path / "cache_dir"))
    dataset = dataset.interleave(Dataset.from_tensors, cycle_length=2, num_parallel_calls=2)
    assert as_py(list(dataset)) == list(range(5))


@pytest.mark.parametrize("num_parallel_calls", [None, 1])
def test_name(num_parallel_calls):
    """InterleaveTest.testName."""
    dataset = Dataset.from_tensors(42).interleave(
        Dataset.from_tensors, num_parallel_calls=num_parallel_calls, name="interleave"
    )
    assert as_py(list(dataset)) == [42]


@pytest.mark.parametrize("num_parallel_calls", [None, 1])
def test_map_func_must_return_dataset(num_parallel_calls):
    """InterleaveTest.testMapFuncMustReturnDataset."""
    with pytest.raises(
        TypeError, match=r"The `map_func` argument must return a `Dataset` object\."
    ):
        list(
            Dataset.from_tensors(42).interleave(
                lambda x: [x], num_parallel_calls=num_parallel_calls
            )
        )


@pytest.mark.parametrize("block_length", [1, 3])
@pytest.mark.parametrize("num_parallel_calls", [None, 1, 2])
def test_checkpoint(block_length, num_parallel_calls):
    """InterleaveDatasetCheckpointTest.test."""
    input_values = np.array([2, 3], dtype=np.int64)

    def _build_dataset():
        return (
            Dataset.from_tensor_slices(input_values)
            .repeat(2)
            .interleave(
                lambda x: Dataset.from_tensors(x).repeat(x), 2, block_length, num_parallel_calls
            )
        )

    verify_checkpoints(_build_dataset, int(np.sum(input_values)) * 2)


@pytest.mark.parametrize("num_parallel_calls", [None, 2])
def test_checkpoint_nested(num_parallel_calls):
    """InterleaveDatasetCheckpointTest.testNested."""

    def build_ds():
        inner_ds = Dataset.from_tensor_slices(range(10))
        ds = Dataset.from_tensors(inner_ds).repeat(10)
        return ds.interleave(lambda x: x, cycle_length=5, num_parallel_calls=num_parallel_calls)

    verify_checkpoints(build_ds, 100)


def test_checkpoint_sparse():
    """InterleaveDatasetCheckpointTest.testSparse."""

    def _map_fn(i):
        return SparseTensor(
            indices=[[0, 0], [1, 1]], values=(i * np.array([1, -1])), dense_shape=[2, 2]
        )

    def _build_dataset():
        return (
            Dataset.range(10)
            .map(_map_fn)
            .interleave(lambda x: Dataset.from_tensor_slices(x.to_dense()), cycle_length=1)
        )

    verify_checkpoints(_build_dataset, 20)
