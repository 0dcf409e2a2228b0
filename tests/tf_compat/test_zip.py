"""Translated from tensorflow/python/data/kernel_tests/zip_test.py (ZipTest) and, for
prefetch(None) and None components, prefetch_test.py and from_tensors_test.py: the structure
rules of Dataset.zip and from_tensors. Not translated: the
legacy output shapes and types (swigflow datasets carry no static element specs; see
docs/differences.md) and the checkpoint tests (covered by swigflow's own iterator
states)."""

import collections

import numpy as np
import pytest

from swigflow import errors
from swigflow.data import AUTOTUNE, Dataset
from swigflow.data.experimental import at as element_at

COMPONENTS = [
    np.tile(np.array([[1], [2], [3], [4]]), 20),
    np.tile(np.array([[12], [13], [14], [15]]), 22),
    np.array([37.0, 38.0, 39.0, 40.0]),
]


def test_zip_equal():
    zipped = Dataset.zip(tuple(Dataset.from_tensor_slices(c) for c in COMPONENTS))
    got = list(zipped)
    assert len(got) == 4
    for i, element in enumerate(got):
        assert all(np.array_equal(e, c[i]) for e, c in zip(element, COMPONENTS))


def test_zip_unequal_ends_with_the_shortest():
    parts = [np.arange(3), np.arange(5), np.arange(4)]
    zipped = Dataset.zip(tuple(Dataset.from_tensor_slices(p) for p in parts))
    assert [tuple(int(v) for v in e) for e in zipped] == [(0, 0, 0), (1, 1, 1), (2, 2, 2)]
    assert zipped.cardinality() == 3


def test_nested():
    datasets = [Dataset.from_tensor_slices(c) for c in COMPONENTS]
    zipped = Dataset.zip((datasets[0], (datasets[1], datasets[2])))
    got = list(zipped)
    assert len(got) == 4
    for i, (first, (second, third)) in enumerate(got):
        assert np.array_equal(first, COMPONENTS[0][i])
        assert np.array_equal(second, COMPONENTS[1][i])
        assert np.array_equal(third, COMPONENTS[2][i])


def test_named_tuple():
    Foo = collections.namedtuple("Foo", ["x", "y"])
    zipped = Dataset.zip(Foo(x=Dataset.range(3), y=Dataset.range(3, 6)))
    expected = [Foo(x=0, y=3), Foo(x=1, y=4), Foo(x=2, y=5)]
    got = list(zipped)
    assert got == expected and all(type(e) is Foo for e in got)
    for i in range(3):  # random access, as the upstream test reads it
        assert element_at(zipped, i) == expected[i]
    with pytest.raises(errors.OutOfRangeError):
        element_at(zipped, 4)


def test_zip_one_dataset_gives_its_elements():
    assert [int(v) for v in Dataset.zip(Dataset.range(4))] == [0, 1, 2, 3]
    assert [int(v) for v in Dataset.zip(datasets=Dataset.range(2))] == [0, 1]


def test_zip_dict_and_positional_datasets():
    zipped = Dataset.zip({"a": Dataset.range(2), "b": (Dataset.range(2), Dataset.range(5, 7))})
    assert list(zipped) == [{"a": 0, "b": (0, 5)}, {"a": 1, "b": (1, 6)}]
    assert list(Dataset.zip(Dataset.range(2), Dataset.range(2))) == [(0, 0), (1, 1)]


@pytest.mark.parametrize("bad", [(Dataset.range(2), 3), (), {"a": [1]}, 7])
def test_zip_of_something_else_raises_type_error(bad):
    with pytest.raises(TypeError):
        Dataset.zip(bad)


def test_prefetch_none_is_autotune():
    assert list(Dataset.range(5).prefetch(None)) == list(Dataset.range(5).prefetch(AUTOTUNE))


def test_from_tensors_keeps_none_as_a_component():
    """tf.data keeps None as a component of its own (NoneTensorSpec)."""
    (element,) = list(Dataset.from_tensors((42, None)))
    assert element[1] is None and int(element[0]) == 42
    assert list(Dataset.from_tensors(None)) == [None]
