"""tensorflow/python/data/kernel_tests/bucket_by_sequence_length_test.py:
BucketBySequenceLengthTest.

Adaptations: an element's length is ``x.shape[0]`` (TensorFlow's ``array_ops.shape(x)[0]``; a
SparseTensor's shape is its dense shape); the sparse records are made into SparseTensors by a
map, as upstream does; an element too long for the last boundary with pad_to_bucket_boundary
raises when it arrives, which here is after the three full batches upstream expects first
(docs/differences.md).
"""

import random

import numpy as np
import pytest

from swigflow import errors
from swigflow.data import INFINITE, Dataset
from swigflow.tensors import SparseTensor


def _element_length_fn(x, y=None):
    del y
    return x.shape[0]


def _format_record(array, sparse):
    if sparse:
        return {
            "values": list(array),
            "indices": [[i] for i in range(len(array))],
            "dense_shape": (len(array),),
        }
    return array


def _record_type(sparse):
    if sparse:
        return {"values": np.int64, "indices": np.int64, "dense_shape": np.int64}
    return np.int32


def _record_shape(sparse):
    if sparse:
        return {"values": [None], "indices": [None, 1], "dense_shape": [1]}
    return [None]


def _build(generator, sparse):
    dataset = Dataset.from_generator(generator, (_record_type(sparse),), (_record_shape(sparse),))
    if sparse:
        dataset = dataset.map(lambda x: (SparseTensor(**x),))
    return dataset


def _shape_and_sum(batch, no_padding):
    if no_padding:
        return batch.dense_shape.tolist(), int(batch.values.sum())
    return list(batch.shape), int(batch.sum())


@pytest.mark.parametrize("no_padding", [True, False])
def test_bucket_drop_reminder(no_padding):
    """BucketBySequenceLengthTest.testBucketDropReminder."""
    boundaries, batch_sizes = [10, 20, 30], [10, 8, 4, 2]
    lengths, n_bucket_elements = [8, 13, 25, 35], [28, 7, 6, 5]

    def generator():
        elements = [
            [1] * length for count, length in zip(n_bucket_elements, lengths) for _ in range(count)
        ]
        random.shuffle(elements)
        for el in elements:
            yield (_format_record(el, no_padding),)

    dataset = _build(generator, no_padding).bucket_by_sequence_length(
        element_length_func=_element_length_fn,
        bucket_boundaries=boundaries,
        bucket_batch_sizes=batch_sizes,
        no_padding=no_padding,
        drop_remainder=True,
    )
    batches = [_shape_and_sum(batch, no_padding) for (batch,) in dataset]
    assert len(batches) == 5
    sums = {length: 0 for length in lengths}
    sizes = {length: [] for length in lengths}
    for (size, length), total in batches:
        sums[length] += total
        sizes[length].append(size)
    for length, batch_size, count in zip(lengths, batch_sizes, n_bucket_elements):
        assert sums[length] == (count - count % batch_size) * length
        assert sorted(sizes[length]) == [batch_size] * (count // batch_size)


@pytest.mark.parametrize("no_padding", [True, False])
def test_bucket(no_padding):
    """BucketBySequenceLengthTest.testBucket: one batch per bucket, each with one element a
    value shorter than the rest."""
    boundaries, batch_sizes, lengths = [10, 20, 30], [10, 8, 4, 2], [8, 13, 25, 35]

    def generator():
        elements = []
        for batch_size, length in zip(batch_sizes, lengths):
            record_len = length - 1
            for _ in range(batch_size):
                elements.append([1] * record_len)
                record_len = length
        random.shuffle(elements)
        for el in elements:
            yield (_format_record(el, no_padding),)

    dataset = _build(generator, no_padding).bucket_by_sequence_length(
        element_length_func=_element_length_fn,
        bucket_boundaries=boundaries,
        bucket_batch_sizes=batch_sizes,
        no_padding=no_padding,
    )
    batches = [_shape_and_sum(batch, no_padding) for (batch,) in dataset]
    assert len(batches) == 4
    for (batch_size, length), total in batches:
        assert total == batch_size * length - 1
    assert sorted(shape[0] for shape, _ in batches) == sorted(batch_sizes)
    assert sorted(shape[1] for shape, _ in batches) == sorted(lengths)


def test_pad_to_boundary():
    """BucketBySequenceLengthTest.testPadToBoundary."""
    boundaries, batch_sizes, lengths = [10, 20, 30], [10, 8, 4, 2], [8, 13, 25]

    def element_gen():
        elements = [
            [1] * length for batch_size, length in zip(batch_sizes[:-1], lengths)
            for _ in range(batch_size)
        ]  # fmt: skip
        random.shuffle(elements)
        for el in elements:
            yield (el,)
        for _ in range(batch_sizes[-1]):
            yield ([1] * (boundaries[-1] + 5),)

    dataset = Dataset.from_generator(element_gen, (np.int64,), ([None],))
    dataset = dataset.bucket_by_sequence_length(
        element_length_func=lambda el: el.shape[0],
        bucket_boundaries=boundaries,
        bucket_batch_sizes=batch_sizes,
        pad_to_bucket_boundary=True,
    )
    it = iter(dataset)
    shapes = [next(it)[0].shape for _ in range(3)]
    with pytest.raises(errors.InvalidArgumentError, match="bucket_boundaries"):
        next(it)
    assert sorted(s[0] for s in shapes) == sorted(batch_sizes[:-1])
    assert sorted(s[1] for s in shapes) == [b - 1 for b in sorted(boundaries)]


def test_pad_to_boundary_no_extraneous_padding():
    """BucketBySequenceLengthTest.testPadToBoundaryNoExtraneousPadding."""

    def element_gen():
        for length in range(1, 11):
            yield ([1] * length,)

    dataset = Dataset.from_generator(element_gen, (np.int64,), ([None],))
    dataset = dataset.bucket_by_sequence_length(
        element_length_func=lambda element: element.shape[0],
        bucket_boundaries=[3, 7, 11],
        bucket_batch_sizes=[2, 2, 2, 2],
        pad_to_bucket_boundary=True,
    )
    batches = [batch.tolist() for (batch,) in dataset]
    assert batches == [
        [[1, 0], [1, 1]],
        [[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0]],
        [[1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]],
        [[1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]],
        [[1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
    ]


@pytest.mark.parametrize("no_padding", [True, False])
def test_tuple_elements(no_padding):
    """BucketBySequenceLengthTest.testTupleElements: the static shapes of (text, label)
    batches (element_spec; after the sparse map, the records' values check it)."""

    def generator():
        text = [[1, 2, 3], [3, 4, 5, 6, 7], [1, 2], [8, 9, 0, 2, 3]]
        for x, y in zip(text, [1, 2, 1, 2]):
            yield (_format_record(x, no_padding), y)

    dataset = Dataset.from_generator(
        generator,
        output_types=(_record_type(no_padding), np.int32),
        output_shapes=(_record_shape(no_padding), []),
    )
    if no_padding:
        dataset = dataset.map(lambda x, y: (SparseTensor(**x), y))
    dataset = dataset.bucket_by_sequence_length(
        element_length_func=_element_length_fn,
        bucket_batch_sizes=[2, 2, 2],
        bucket_boundaries=[0, 8],
        no_padding=no_padding,
    )
    if not no_padding:
        text_spec, label_spec = dataset.element_spec
        assert text_spec.shape.as_list() == [None, None]
        assert label_spec.shape.as_list() == [None]
    labels = [label.tolist() for _, label in dataset]
    assert labels == [[1, 2], [1, 2]]


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_bucket_sparse(drop_remainder):
    """BucketBySequenceLengthTest.testBucketSparse."""
    min_len, max_len, batch_size, bucket_size = 0, 100, 7, 10

    def generator_fn():
        for i in range(min_len, max_len):
            yield _format_record(range(i + 1), sparse=True)

    dataset = Dataset.from_generator(generator_fn, output_types=_record_type(sparse=True))
    dataset = dataset.map(lambda r: SparseTensor(**r))
    boundaries = range(min_len + bucket_size + 1, max_len, bucket_size)
    dataset = dataset.bucket_by_sequence_length(
        element_length_func=_element_length_fn,
        bucket_boundaries=boundaries,
        bucket_batch_sizes=[batch_size] * (len(boundaries) + 1),
        no_padding=True,
        drop_remainder=drop_remainder,
    )
    batches = {
        (tuple(tuple(i) for i in b.indices.tolist()), tuple(b.values.tolist())) for b in dataset
    }

    expected = set()
    for bucket_start in range(min_len, max_len, bucket_size):
        for offset in [0] if drop_remainder else range(0, bucket_size, batch_size):
            start = bucket_start + offset
            end = min(start + batch_size, bucket_start + bucket_size)
            indices, values = [], []
            for length in range(start, end):
                for val in range(length + 1):
                    indices.append((length - start, val))
                    values.append(val)
            expected.add((tuple(indices), tuple(values)))
    assert batches == expected


def test_cardinality():
    """BucketBySequenceLengthTest.testCardinality."""

    def element_gen():
        for length in range(1, 11):
            yield ([1] * length,)

    dataset = Dataset.from_generator(element_gen, (np.int64,), ([None],)).repeat()
    dataset = dataset.bucket_by_sequence_length(
        element_length_func=lambda element: element.shape[0],
        bucket_boundaries=[3, 7, 11],
        bucket_batch_sizes=[2, 2, 2, 2],
        pad_to_bucket_boundary=True,
    )
    assert dataset.cardinality() == INFINITE
