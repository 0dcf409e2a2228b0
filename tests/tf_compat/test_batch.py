"""tensorflow/python/data/kernel_tests/batch_test.py: BatchTest and BatchCheckpointTest.

Not translated: testCheckpointLargeBatches (TF's Checkpoint objects; swigflow iterator states
are plain dicts, tested in BatchCheckpointTest). Adaptation in testBasic: the element spec is
checked on the pipeline without its map (a numpy map's outputs have an UnknownSpec; see
docs/differences.md). The sparse and ragged cases build their elements with numpy
(swigflow.SparseTensor, swigflow.RaggedTensor) where upstream maps TF ops.

BatchRandomAccessTest: random_access.at is tf.data.experimental.at. Adaptation in
testRandomAccessBatchWithShuffle: upstream's expected batches are the order TensorFlow's Philox
generator gives seed 2; swigflow's shuffles draw from their own generator, so the expected
batches are the first iteration's, and the checks are upstream's (random access agrees with
iteration and with the shuffle dataset's own random access).
"""

import time

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors
from swigflow.data import Dataset, Options
from swigflow.data.experimental import at
from swigflow.tensors import RaggedTensor, SparseTensor

COMPONENTS = (
    np.arange(7),
    np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
    np.array(37.0) * np.arange(7),
)


@pytest.mark.parametrize("num_parallel_calls", [None, 1, 2, 4])
@pytest.mark.parametrize("drop_remainder", [True, False])
@pytest.mark.parametrize("batch_size", [14, 15])
@pytest.mark.parametrize("count", [0, 28])
def test_basic(count, batch_size, drop_remainder, num_parallel_calls):
    """BatchTest.testBasic."""
    dataset = (
        Dataset.from_tensor_slices(COMPONENTS)
        .map(lambda x, y, z: (np.square(x), np.square(y), np.square(z)))
        .repeat(count)
        .batch(batch_size, drop_remainder, num_parallel_calls)
    )
    dim0 = batch_size if drop_remainder else None
    unmapped = (
        Dataset.from_tensor_slices(COMPONENTS).repeat(count).batch(batch_size, drop_remainder)
    )
    shapes = [spec.shape.as_list() for spec in unmapped.element_spec]
    assert shapes == [[dim0, *c.shape[1:]] for c in COMPONENTS]
    it = iter(dataset)
    num_full_batches = (count * 7) // batch_size
    for i in range(num_full_batches):
        result = next(it)
        for component, result_component in zip(COMPONENTS, result):
            for j in range(batch_size):
                np.testing.assert_array_equal(
                    component[(i * batch_size + j) % 7] ** 2, result_component[j]
                )
    if not drop_remainder and (count * 7) % batch_size > 0:
        result = next(it)
        for component, result_component in zip(COMPONENTS, result):
            for j in range((count * 7) % batch_size):
                np.testing.assert_array_equal(
                    component[(num_full_batches * batch_size + j) % 7] ** 2, result_component[j]
                )
    with pytest.raises(StopIteration):
        next(it)


def test_invalid_batch_size():
    """BatchTest.testInvalidBatchSize."""
    with pytest.raises(errors.InvalidArgumentError):
        list(Dataset.range(10).batch(0))


def test_dataset():
    """BatchTest.testDataset: batches of datasets, unbatched and flattened again."""
    dataset = Dataset.range(10).map(Dataset.from_tensors).batch(5)
    dataset = dataset.map(lambda x: x)
    dataset = dataset.unbatch().flat_map(lambda x: x)
    assert as_py(list(dataset)) == list(range(10))


def test_shape_error():
    """BatchTest.testShapeError."""

    def generator():
        yield [1.0, 2.0, 3.0]
        yield [4.0, 5.0, 6.0]
        yield [7.0, 8.0, 9.0, 10.0]

    dataset = Dataset.from_generator(generator, np.float32, output_shapes=[None]).batch(3)
    with pytest.raises(
        errors.InvalidArgumentError,
        match=r"Cannot batch tensors with different shapes in component 0. First element had "
        r"shape \[3\] and element 2 had shape \[4\].",
    ):
        list(dataset)


def test_none_component():
    """BatchTest.testNoneComponent."""
    dataset = Dataset.range(10).map(lambda x: (x, None)).batch(10).map(lambda x, y: x)
    assert as_py(list(dataset)) == [list(range(10))]


@pytest.mark.parametrize("global_determinism", [True, False])
@pytest.mark.parametrize("local_determinism", [None, True, False])
def test_determinism_configuration(local_determinism, global_determinism):
    """BatchTest.testDeterminismConfiguration: deterministic output whenever asked for, locally
    or by the dataset's options (checkDeterminism's deterministic half; a nondeterministic
    order is allowed, not required)."""
    expect_determinism = local_determinism or (local_determinism is None and global_determinism)
    elements = list(range(100))

    def map_function(x):
        if x == 0:
            time.sleep(0.05)
        return x

    dataset = Dataset.from_tensor_slices(elements)
    dataset = dataset.map(map_function, num_parallel_calls=2, deterministic=local_determinism)
    dataset = dataset.batch(6, num_parallel_calls=2, deterministic=local_determinism).unbatch()
    options = Options()
    options.deterministic = global_determinism
    output = as_py(list(dataset.with_options(options)))
    if expect_determinism:
        assert output == elements
    else:
        assert sorted(output) == elements


@pytest.mark.parametrize("num_parallel_calls", [None, 1])
def test_name(num_parallel_calls):
    """BatchTest.testName."""
    dataset = Dataset.range(5).batch(5, num_parallel_calls=num_parallel_calls, name="batch")
    assert as_py(list(dataset)) == [list(range(5))]


def _sparse(i):
    return SparseTensor([[0]], [int(i)], [1])


def _sparse_parts(value):
    return (value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist())


def test_sparse():
    """BatchTest.testSparse."""
    dataset = Dataset.range(10).map(_sparse).batch(5)
    expected = [
        ([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], [i * 5 + j for j in range(5)], [5, 1])
        for i in range(2)
    ]
    assert [_sparse_parts(v) for v in dataset] == expected


def test_sparse_with_different_dense_shapes():
    """BatchTest.testSparseWithDifferentDenseShapes."""

    def sparse(i):
        return SparseTensor(np.arange(i)[:, None], np.full([int(i)], i), [int(i)])

    expected = []
    for i in range(2):
        indices, values = [], []
        for j in range(5):
            for k in range(i * 5 + j):
                indices.append([j, k])
                values.append(i * 5 + j)
        expected.append((indices, values, [5, (i + 1) * 5 - 1]))
    assert [_sparse_parts(v) for v in Dataset.range(10).map(sparse).batch(5)] == expected


def test_sparse_nested():
    """BatchTest.testSparseNested."""
    dataset = Dataset.range(10).map(_sparse).batch(5).batch(2)
    indices = [[i, j, 0] for i in range(2) for j in range(5)]
    assert [_sparse_parts(v) for v in dataset] == [(indices, list(range(10)), [2, 5, 1])]


def _ragged(i):
    # RaggedTensor.from_tensor(i * [[1]]): one row of one value
    return RaggedTensor(np.array([int(i)]), [0, 1])


def test_ragged():
    """BatchTest.testRagged."""
    dataset = Dataset.range(10).map(_ragged).batch(5)
    expected = [[[[0]], [[1]], [[2]], [[3]], [[4]]], [[[5]], [[6]], [[7]], [[8]], [[9]]]]
    assert [v.to_list() for v in dataset] == expected


def test_ragged_with_different_shapes():
    """BatchTest.testRaggedWithDifferentShapes (ragged_math_ops.range(i): one row 0..i-1)."""
    dataset = Dataset.range(10).map(lambda i: RaggedTensor(np.arange(i), [0, i])).batch(5)
    expected = [[[list(range(i))] for i in range(5)], [[list(range(i))] for i in range(5, 10)]]
    assert [v.to_list() for v in dataset] == expected


def test_ragged_nested():
    """BatchTest.testRaggedNested."""
    dataset = Dataset.range(10).map(_ragged).batch(5).batch(2)
    expected = [[[[[0]], [[1]], [[2]], [[3]], [[4]]], [[[5]], [[6]], [[7]], [[8]], [[9]]]]]
    assert [v.to_list() for v in dataset] == expected


def test_checkpoint_sparse():
    """BatchCheckpointTest.testSparse and testNestedSparse."""
    verify_checkpoints(lambda: Dataset.range(10).map(_sparse).batch(5), 2)
    verify_checkpoints(lambda: Dataset.range(10).map(_sparse).batch(5).batch(2), 1)


def test_checkpoint():
    """BatchCheckpointTest.test."""

    def build_dataset(multiplier=15.0, tensor_slice_len=8, batch_size=2):
        components = (
            np.arange(tensor_slice_len),
            np.array([[1, 2, 3]]) * np.arange(tensor_slice_len)[:, np.newaxis],
            np.array(multiplier) * np.arange(tensor_slice_len),
        )
        return Dataset.from_tensor_slices(components).batch(batch_size)

    verify_checkpoints(build_dataset, 8 // 2)


@pytest.mark.parametrize("index", [-1, 2, 3, 4])
def test_random_access_invalid_index(index):
    """BatchRandomAccessTest.testInvalidIndex."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([1, 2, 3, 4]).batch(2), index=index)


def test_random_access_empty_dataset():
    """BatchRandomAccessTest.testEmptyDataset."""
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([]).batch(2), 0)


@pytest.mark.parametrize("drop_remainder", [True, False])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 7, 10, 20])
@pytest.mark.parametrize("count", [0, 10, 20, 30, 40, 50])
def test_random_access_basic(count, batch_size, drop_remainder):
    """BatchRandomAccessTest.testBasic."""
    dataset = Dataset.from_tensor_slices(list(range(count))).batch(
        batch_size=batch_size, drop_remainder=drop_remainder
    )
    num_full_batches = count // batch_size
    for i in range(num_full_batches):
        expected = np.arange(i * batch_size, i * batch_size + batch_size, 1, dtype=np.int32)
        got = at(dataset, i)
        assert got.dtype == np.int32 and got.tolist() == expected.tolist()
    has_remainder = (not drop_remainder) and (count % batch_size != 0)
    if has_remainder:
        expected = np.arange(batch_size * num_full_batches, count, 1)
        assert at(dataset, num_full_batches).tolist() == expected.tolist()
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index=num_full_batches + (1 if has_remainder else 0))


def test_random_access_batch_with_shuffle():
    """BatchRandomAccessTest.testRandomAccessBatchWithShuffle (see the module's docstring)."""
    dataset = Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6, 7])
    shuffle_dataset = dataset.shuffle(buffer_size=10, seed=2)
    batch_dataset = shuffle_dataset.batch(2)
    expected_output = [b.tolist() for b in batch_dataset]
    assert [len(b) for b in expected_output] == [2, 2, 2, 1]
    assert sorted(v for b in expected_output for v in b) == [1, 2, 3, 4, 5, 6, 7]
    for i in range(4):
        assert at(batch_dataset, i).tolist() == expected_output[i]
    # Checks the order is consistent with shuffle dataset.
    for i in range(3):
        assert at(shuffle_dataset, i * 2) == expected_output[i][0]
        assert at(shuffle_dataset, i * 2 + 1) == expected_output[i][1]
    # Checks the remainder is the last element in shuffled dataset.
    assert at(shuffle_dataset, 6) == expected_output[3][0]
