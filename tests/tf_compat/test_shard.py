"""tensorflow/python/data/kernel_tests/shard_test.py, ShardTest (every method) and
ShardCheckpointTest.test (as iterator states: resuming at every element gives the rest)."""

import numpy as np
import pytest
from tf_test_util import verify_checkpoints

from swigflow import errors
from swigflow.data import Dataset


def values(dataset):
    return [tuple(int(v) for v in e) if isinstance(e, tuple) else int(e) for e in dataset]


def test_simple_case():
    """ShardTest.testSimpleCase."""
    assert values(Dataset.range(10).shard(5, 2)) == [2, 7]


def test_nested_data():
    """ShardTest.testNestedData."""
    dataset = Dataset.zip((Dataset.range(10), Dataset.range(10, 0, -1))).shard(5, 2)
    assert values(dataset) == [(2, 8), (7, 3)]


def test_offset_zero():
    """ShardTest.testOffsetZero."""
    assert values(Dataset.range(10).shard(5, 0)) == [0, 5]


@pytest.mark.parametrize(
    "num_shards,index",
    [(5, 7), (5, -3), (-3, 1), (0, 1)],
    ids=["testOffsetGreaterNumShards", "testNegativeOffset", "testNegativeNumShards",
         "testZeroNumShards"],
)  # fmt: skip
def test_bad_arguments(num_shards, index):
    """ShardTest.testOffsetGreaterNumShards, testNegativeOffset, testNegativeNumShards,
    testZeroNumShards."""
    with pytest.raises(errors.InvalidArgumentError):
        next(iter(Dataset.range(10).shard(num_shards, index)))


@pytest.mark.parametrize(
    "n,num_shards,index,expected",
    [(1, 5, 2, []), (10, 7, 5, [5]), (10, 5, 4, [4, 9]), (10, 4, 3, [3, 7]), (10, 20, 5, [5])],
    ids=["testIteratorEndsBeforeFirstElem", "testLargerWorkerPool", "testIndexEqualsNumShards",
         "testIndexEqualsNumShards2", "testNumShardsLargerThanDataset"],
)  # fmt: skip
def test_shards(n, num_shards, index, expected):
    """ShardTest.testIteratorEndsBeforeFirstElem, testLargerWorkerPool,
    testIndexEqualsNumShards, testIndexEqualsNumShards2, testNumShardsLargerThanDataset."""
    assert values(Dataset.range(n).shard(num_shards, index)) == expected


def test_name():
    """ShardTest.testName."""
    assert values(Dataset.from_tensors(42).shard(1, 0, name="shard")) == [42]


@pytest.mark.parametrize("elems", [10, 100])
@pytest.mark.parametrize("num_shards", [2, 5])
@pytest.mark.parametrize("index", [0, 1])
def test_checkpoint(elems, num_shards, index):
    """ShardCheckpointTest.test: elems // num_shards outputs, and a checkpoint taken after any
    of them restores the rest."""
    assert values(Dataset.range(elems).shard(num_shards, index)) == list(
        np.arange(index, elems, num_shards)
    )
    verify_checkpoints(lambda: Dataset.range(elems).shard(num_shards, index), elems // num_shards)
