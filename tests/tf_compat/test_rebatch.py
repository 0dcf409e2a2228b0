"""tensorflow/python/data/kernel_tests/rebatch_test.py: RebatchTest and
RebatchDatasetCheckpointTest.

Static shapes are read from element_spec (TensorFlow's get_legacy_output_shapes). Adaptations:
testNestedDictionaryOutput checks the values only (what a Python function returns has an
UnknownSpec, docs/differences.md); testRaggedDataset batches the RaggedTensor's rows with
ragged_batch(), as the rows of a RaggedTensor are numpy arrays here (docs/differences.md) and
batch() stacks them densely.
"""

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow.data import Dataset
from swigflow.tensors import RaggedTensor


def _flat_shapes(dataset):
    def flat(spec):
        if isinstance(spec, dict):
            return [s for v in spec.values() for s in flat(v)]
        if isinstance(spec, tuple):
            return [s for v in spec for s in flat(v)]
        return [spec.shape.as_list()]

    return flat(dataset.element_spec)


def _produces(dataset, expected):
    assert [as_py(e) for e in dataset] == expected


def test_shape_inference_not_all_batch_sizes_equal():
    """RebatchTest.testShapeInferenceNotAllBatchSizesEqual."""
    dataset = Dataset.range(8).batch(4, drop_remainder=True)
    assert _flat_shapes(dataset.rebatch(batch_size=[2, 1, 1])) == [[None]]


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_shape_inference_input_batch_dim_divisible(drop_remainder):
    """RebatchTest.testShapeInferenceInputBatchDimDivisible."""
    dataset = Dataset.range(8).batch(4, drop_remainder=True)
    rebatched = dataset.rebatch(batch_size=[2, 2], drop_remainder=drop_remainder)
    assert _flat_shapes(rebatched) == [[2]]


@pytest.mark.parametrize(
    "count,batch,drop_input,drop,expected",
    [
        (8, 4, False, False, [[None]]),  # testShapeInferenceInputBatchDimUnknown
        (8, 4, False, True, [[2]]),  # ...UnknownWithDropRemainder
        (10, 5, True, False, [[None]]),  # testShapeInferenceInputBatchDimIndivisible
        (10, 5, True, True, [[2]]),  # ...IndivisibleWithDropRemainder
    ],
)
def test_shape_inference(count, batch, drop_input, drop, expected):
    """RebatchTest.testShapeInferenceInputBatchDim{Unknown,Indivisible}[WithDropRemainder]."""
    dataset = Dataset.range(count).batch(batch, drop_remainder=drop_input)
    assert _flat_shapes(dataset.rebatch(batch_size=[2, 2], drop_remainder=drop)) == expected


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_basic(drop_remainder):
    """RebatchTest.testBasic."""
    dataset = Dataset.range(8).batch(4, drop_remainder=True)
    rebatched = dataset.rebatch(batch_size=[2, 2], drop_remainder=drop_remainder)
    assert _flat_shapes(rebatched) == [[2]]
    _produces(rebatched, [[0, 1], [2, 3], [4, 5], [6, 7]])


def test_partial_batch():
    """RebatchTest.testPartialBatch."""
    rebatched = Dataset.range(5).batch(4).rebatch(batch_size=[2, 2], drop_remainder=False)
    assert _flat_shapes(rebatched) == [[None]]
    _produces(rebatched, [[0, 1], [2, 3], [4]])


def test_partial_batch_with_drop_remainder():
    """RebatchTest.testPartialBatchWithDropRemainder."""
    rebatched = Dataset.range(5).batch(4).rebatch(batch_size=[2, 2], drop_remainder=True)
    assert _flat_shapes(rebatched) == [[2]]
    _produces(rebatched, [[0, 1], [2, 3]])


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_batch_size_greater_than_original(drop_remainder):
    """RebatchTest.testBatchSizeGreaterThanOriginal."""
    rebatched = Dataset.range(12).batch(4).rebatch([6], drop_remainder=drop_remainder)
    _produces(rebatched, [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]])


@pytest.mark.parametrize("batch_size", [2, 3, 4])
@pytest.mark.parametrize("drop_remainder", [True, False])
def test_batch_size_equal_to_original(batch_size, drop_remainder):
    """RebatchTest.testBatchSizeEqualToOriginal."""
    dataset = Dataset.range(11).batch(batch_size, drop_remainder=drop_remainder)
    expected = [as_py(e) for e in dataset]
    _produces(dataset.rebatch(batch_size=batch_size, drop_remainder=False), expected)


@pytest.mark.parametrize(
    "sizes,expected",
    [
        ([1, 1, 1, 1, 0], [[0], [1], [2], [3], [], [4], [5], [6], [7], []]),  # testEmptySplits
        ([0, 1], [[], *[x for i in range(8) for x in ([i], [])]]),  # testEmptyFirstSplits
        ([1, 0], [x for i in range(8) for x in ([i], [])]),  # testEmptyLastSplits
    ],
)
@pytest.mark.parametrize("drop_remainder", [True, False])
def test_empty_splits(sizes, expected, drop_remainder):
    """RebatchTest.testEmptySplits, testEmptyFirstSplits, testEmptyLastSplits."""
    dataset = Dataset.range(8).batch(4, drop_remainder=True)
    rebatched = dataset.rebatch(batch_size=sizes, drop_remainder=drop_remainder)
    assert _flat_shapes(rebatched) == [[None]]
    _produces(rebatched, expected)


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_empty_tensors(drop_remainder):
    """RebatchTest.testEmptyTensors."""
    dataset = Dataset.range(8).map(lambda x: np.reshape((), (5, 0))).batch(2)
    rebatched = dataset.rebatch(batch_size=4, drop_remainder=drop_remainder)
    assert [e.shape for e in rebatched] == [(4, 5, 0), (4, 5, 0)]


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_scalar_batch_size_input(drop_remainder):
    """RebatchTest.testScalarBatchSizeInput."""
    dataset = Dataset.range(8).batch(4, drop_remainder=True)
    rebatched = dataset.rebatch(batch_size=2, drop_remainder=drop_remainder)
    assert _flat_shapes(rebatched) == [[2]]
    _produces(rebatched, [[0, 1], [2, 3], [4, 5], [6, 7]])


def test_multiple_batches():
    """RebatchTest.testMultipleBatches."""
    dataset = Dataset.range(16).batch(2, drop_remainder=True).batch(4, drop_remainder=True)
    assert _flat_shapes(dataset) == [[4, 2]]
    rebatched = dataset.rebatch([2, 2])
    assert _flat_shapes(rebatched) == [[2, 2]]
    _produces(
        rebatched,
        [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], [10, 11]], [[12, 13], [14, 15]]],
    )


def test_nested_dictionary_output():
    """RebatchTest.testNestedDictionaryOutput (values only: see the module's docstring)."""
    dataset = (
        Dataset.range(8).map(lambda x: {"a": x, "b": {"c": x + 1}}).batch(4, drop_remainder=True)
    )
    _produces(
        dataset.rebatch([2, 2]),
        [
            {"a": [0, 1], "b": {"c": [1, 2]}},
            {"a": [2, 3], "b": {"c": [3, 4]}},
            {"a": [4, 5], "b": {"c": [5, 6]}},
            {"a": [6, 7], "b": {"c": [7, 8]}},
        ],
    )


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_ragged_dataset(drop_remainder):
    """RebatchTest.testRaggedDataset: batches of a RaggedTensor's rows, mapped (which hides
    their spec), rebatched."""
    rows = RaggedTensor.from_row_lengths(list(range(10)), [1, 2, 3, 4])
    dataset = Dataset.from_tensor_slices(rows).ragged_batch(4, drop_remainder=True).map(lambda x: x)
    rebatched = dataset.rebatch(batch_size=[2, 2], drop_remainder=drop_remainder)
    _produces(rebatched, [{"ragged": [[0], [1, 2]]}, {"ragged": [[3, 4, 5], [6, 7, 8, 9]]}])


def test_none_dataset():
    """RebatchTest.testNoneDataset: a None component does not break the shape inference."""
    dataset = Dataset.range(4).map(lambda x: (x, None)).batch(4, drop_remainder=True)
    expected = [([0, 1], None), ([2, 3], None)]
    assert [as_py(e) for e in dataset.rebatch(batch_size=[2, 2])] == expected


def test_checkpoint():
    """RebatchDatasetCheckpointTest.test: range(64) batched by 16, rebatched by [8, 8]."""

    def build():
        return Dataset.range(64).batch(16, drop_remainder=True).rebatch(batch_size=[8, 8])

    verify_checkpoints(build, 8)
