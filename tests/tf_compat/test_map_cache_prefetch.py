"""Translated from tensorflow/python/data/kernel_tests/map_test.py (MapTest),
cache_test.py (FileCacheTest, MemoryCacheTest, CacheCheckpointTest) and prefetch_test.py
(PrefetchTest, PrefetchCheckpointTest, PrefetchRandomAccessTest).

Adaptations: map functions are numpy functions where upstream's are TF ops (math_ops.square is
np.square, check_numerics raises InvalidArgumentError for a NaN, a tf.Variable counter is a
Python one); the outputs' legacy shapes are not checked (a Python function's outputs have an
UnknownSpec; see docs/differences.md). testReturnValueError's TypeError comes
when the function returns the class, not at map(). FileCacheTest.testConcurrentWriters expects
AlreadyExistsError for a second writer of one cache file; swigflow lets both write and the pass
renamed last wins (docs/differences.md), so it is not translated. Not translated either:
graph-mode tests
(queues, placeholders, collections, devices, legacy functions), TensorArray and hash-table
captures, seeded stateful TF random ops, PrefetchDataset's slack_period and the cancellation
tests (swigflow's close() is tested in tests/python).
"""

import collections
import threading

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors
from swigflow.data import Dataset
from swigflow.data.experimental import at
from swigflow.tensors import RaggedTensor, SparseTensor

COMPONENTS = (
    np.arange(7),
    np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
    np.array(37.0) * np.arange(7),
)


def _square3(x, y, z):
    return np.square(x), np.square(y), np.square(z)


def _check_squares(results, repeats):
    results = sorted(results, key=lambda r: int(r[0]))
    for i in range(7):
        for j in range(repeats):
            for component, value in zip(COMPONENTS, results[i * repeats + j]):
                np.testing.assert_array_equal(component[i] ** 2, value)


def _check_numerics(x):
    if np.isnan(x):
        raise errors.InvalidArgumentError("message : Tensor had NaN values")
    return x


# --- map_test.py: MapTest ---------------------------------------------------------------------


def _check_squares_in_order(dataset, repeats):
    got = list(dataset)
    assert len(got) == repeats * 7
    for k, result in enumerate(got):
        for component, value in zip(COMPONENTS, result):
            np.testing.assert_array_equal(component[k % 7] ** 2, value)


def test_map_dataset():
    _check_squares_in_order(Dataset.from_tensor_slices(COMPONENTS).map(_square3).repeat(14), 14)


def _drain_from_threads(dataset, threads):
    it = iter(dataset)
    results, lock = [], threading.Lock()

    def consume():
        for element in it:  # several threads share one iterator
            with lock:
                results.append(element)

    workers = [threading.Thread(target=consume) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return results


def test_map_dataset_multi_threaded():
    dataset = Dataset.from_tensor_slices(COMPONENTS).map(_square3).repeat(18)
    _check_squares(_drain_from_threads(dataset, 8), 18)


PARALLEL = [(1, 1), (1, 2), (2, 2), (2, 4), (8, 8), (8, 16)]


def _parallel_squares(num_parallel_calls, buffer_size, repeats):
    return (
        Dataset.from_tensor_slices(COMPONENTS)
        .map(_square3, num_parallel_calls=num_parallel_calls)
        .prefetch(buffer_size)
        .repeat(repeats)
    )


@pytest.mark.parametrize("num_parallel_calls,buffer_size", PARALLEL)
def test_parallel_map_dataset(num_parallel_calls, buffer_size):
    _check_squares_in_order(_parallel_squares(num_parallel_calls, buffer_size, 14), 14)


@pytest.mark.parametrize("num_parallel_calls,buffer_size", PARALLEL)
def test_parallel_map_dataset_multi_threaded(num_parallel_calls, buffer_size):
    dataset = _parallel_squares(num_parallel_calls, buffer_size, 18)
    _check_squares(_drain_from_threads(dataset, 64), 18)


def test_implicit_dispose_parallel_map_dataset():
    components = (
        np.arange(1000),
        np.array([[1, 2, 3]]) * np.arange(1000)[:, np.newaxis],
        np.array(37.0) * np.arange(1000),
    )
    dataset = (
        Dataset.from_tensor_slices(components)
        .map(_square3, num_parallel_calls=100)
        .prefetch(100)
        .repeat(1000)
        .prefetch(100)
    )
    it = iter(dataset)
    for _ in range(3):
        next(it)
    it.close()


@pytest.mark.parametrize("num_parallel_calls", [None, 2])
def test_parallel_map_error(num_parallel_calls):
    """testParallelMapError and testParallelMapUnspecifiedOutputSize."""
    _check_fourth_fails(lambda ds: ds.map(_check_numerics, num_parallel_calls=num_parallel_calls))


def test_prefetch_error():
    _check_fourth_fails(lambda ds: ds.map(_check_numerics).prefetch(2))


def _check_fourth_fails(transform):
    """The 4th element is NaN: check_numerics fails it, and the 5th still comes."""
    components = np.array([1.0, 2.0, 3.0, np.nan, 5.0], np.float32)
    it = iter(transform(Dataset.from_tensor_slices(components)))
    for _ in range(3):
        next(it)
    with pytest.raises(errors.InvalidArgumentError):
        next(it)
    next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_capture_iterator():
    captured = iter(Dataset.range(10))
    dataset = Dataset.range(10).map(lambda x: x * next(captured))
    assert as_py(list(dataset)) == [i * i for i in range(10)]


def test_stateful_operation_in_short_circuit():
    counter = [0]

    def increment(x):
        counter[0] += 1
        return x

    it = iter(Dataset.range(10).map(increment))
    for i in range(10):
        assert counter[0] == i
        assert next(it) == i
    assert counter[0] == 10
    with pytest.raises(StopIteration):
        next(it)
    assert counter[0] == 10


def test_map_dict():
    dataset = Dataset.range(10).map(lambda x: {"foo": x * 2, "bar": x**2})
    dataset = dataset.map(lambda d: d["foo"] + d["bar"])
    assert as_py(list(dataset)) == [i * 2 + i**2 for i in range(10)]


def test_map_namedtuple():
    labels = Dataset.range(10)
    images = labels.map(lambda label: -label)
    dataset_tuple = Dataset.zip((labels, images))
    example = collections.namedtuple("Example", ["label", "image"])
    dataset_namedtuple = dataset_tuple.map(example)
    dataset_tuple = dataset_tuple.map(lambda label, image: (label, 2 * image))
    dataset_namedtuple = dataset_namedtuple.map(lambda e: e._replace(image=2 * e.image))
    got_tuple, got_named = list(dataset_tuple), list(dataset_namedtuple)
    for i, (t, n) in enumerate(zip(got_tuple, got_named)):
        assert isinstance(n, example)
        assert as_py(tuple(t)) == as_py(tuple(n)) == (i, -2 * i)
    assert len(got_named) == 10


def test_use_step_container_in_map():
    row = np.arange(6)
    dataset = Dataset.from_tensors(row).map(lambda elems: np.array([x * x for x in elems]))
    assert as_py(list(dataset)) == [(row**2).tolist()]


@pytest.mark.parametrize("num", [2, 3, 4])
def test_case_and_cond_in_map(num):
    def control_map_fn(x, y):
        if y in (2, 3):
            return x * 2 if x % 2 == 0 else x // 2
        return x * 2

    dataset = Dataset.from_tensor_slices(np.arange(6)).map(lambda x: control_map_fn(x, num))
    expected = [(i // 2 if i % 2 else i * 2) if num in (2, 3) else i * 2 for i in range(6)]
    assert as_py(list(dataset)) == expected


def test_nested_list_map_dataset():
    dataset = Dataset.from_tensors([0, 1, 2]).repeat(10)
    dataset = dataset.map(lambda a: ([a[1], a[0] + a[2]], a[1]))
    got = list(dataset)
    assert as_py(got) == [([1, 2], 1)] * 10
    assert all(isinstance(e[0], np.ndarray) for e in got)  # the inner list is a tensor


@pytest.mark.parametrize("buffer_size", [1, 2, 3, 4])
def test_prefetch(buffer_size):
    """MapTest.testPrefetch: the map runs ahead of the consumer by the prefetch buffer."""
    event = threading.Event()

    def map_fn(x):
        if x == 5:
            event.set()
        return x * x

    it = iter(Dataset.range(100).map(map_fn).prefetch(buffer_size))
    for i in range(5 - buffer_size + 1):
        assert not event.is_set()
        assert next(it) == i * i
    assert event.wait(10)
    assert as_py(list(it)) == [i * i for i in range(5 - buffer_size + 1, 100)]


def test_return_list():
    dataset = Dataset.range(10).map(lambda x: [x, np.float32(37.0)])
    got = list(dataset)
    assert all(type(e) is tuple for e in got)
    assert as_py(got) == [(i, 37.0) for i in range(10)]


def test_constant_output():
    got = list(Dataset.range(10).map(lambda x: [x, "hello", 10]))
    assert as_py(got) == [(i, b"hello", 10) for i in range(10)]
    assert got[0][2].dtype == np.int32  # a Python int is int32, as tf.constant makes it


def _sparse(i):
    return SparseTensor(np.array([[0, 0]]), i * np.array([1]), np.array([1, 1]))


def test_sparse():
    got = list(Dataset.range(10).map(_sparse))
    assert [as_py(g) for g in got] == [as_py(_sparse(i)) for i in range(10)]


def test_sparse_chain():
    def check(s):
        assert isinstance(s, SparseTensor)
        offset = np.array([s.dense_shape[0], 0])
        indices = np.concatenate([s.indices, s.indices + offset])
        shape = s.dense_shape * [2, 1]
        return SparseTensor(indices, np.concatenate([s.values, s.values]), shape)

    got = list(Dataset.range(10).map(_sparse).map(check))
    assert [as_py(g) for g in got] == [as_py(check(_sparse(i))) for i in range(10)]


@pytest.mark.parametrize("drop_remainder,dim0", [(True, 32), (False, None)])
def test_sparse_map_shape_inference(drop_remainder, dim0):
    """testSparseMapShapeInference(Partial): the spec before the map (after it, unknown)."""
    row_lengths = np.random.RandomState(0).randint(0, 4, size=128)
    rows = np.repeat(np.arange(128), row_lengths)
    columns = np.concatenate([np.arange(n) for n in row_lengths])
    sparse = SparseTensor(np.stack([rows, columns], 1), np.ones(len(rows)), [128, 3])
    dataset = Dataset.from_tensor_slices(sparse).batch(32, drop_remainder=drop_remainder)
    assert dataset.element_spec.shape.as_list() == [dim0, 3]


def _ragged(i):
    return RaggedTensor(np.array([int(i)]), [0, 1])  # RaggedTensor.from_tensor(i * [[1]])


def test_ragged():
    assert [r.to_list() for r in Dataset.range(5).map(_ragged)] == [[[i]] for i in range(5)]


def test_ragged_chain():
    def concat(r):
        assert isinstance(r, RaggedTensor)
        return RaggedTensor(np.concatenate([r.values, r.values]), [0, 1, 2])

    got = [r.to_list() for r in Dataset.range(10).map(_ragged).map(concat)]
    assert got == [[[i], [i]] for i in range(10)]


@pytest.mark.parametrize("num_parallel_calls", [None, 2])
def test_parallel_map_out_of_range_error(num_parallel_calls):
    """testParallelMapOutOfRangeError and testPreserveCardinality: StopIteration in the
    function never ends the dataset; it is InvalidArgumentError for that element."""

    def raising(i):
        if i == 100:
            raise StopIteration()
        return i

    it = iter(Dataset.range(105).map(raising, num_parallel_calls=num_parallel_calls))
    assert [int(next(it)) for _ in range(100)] == list(range(100))
    with pytest.raises(errors.InvalidArgumentError):
        next(it)
    assert as_py(list(it)) == [101, 102, 103, 104]


def test_nested_dataset_map():
    dataset = Dataset.from_tensors(np.array([1.0, 2.0, 3.0]))
    dataset = dataset.map(Dataset.from_tensor_slices).map(lambda ds: ds.batch(3))
    assert as_py(list(dataset.flat_map(lambda x: x))) == [[1.0, 2.0, 3.0]]


class Foo:
    pass


def test_return_value_error():
    dataset = Dataset.from_tensors(np.array([1.0, 2.0, 3.0])).map(lambda x: Foo)
    with pytest.raises(TypeError, match=r"Unsupported return value from function passed to "):
        next(iter(dataset))


@pytest.mark.parametrize("num_parallel_calls", [None, 12])
@pytest.mark.parametrize(
    "structure,fn",
    [
        (None, lambda x: x),
        (None, lambda x: (x, x)),
        ((None, None), lambda x, y: (y, x)),
        ((None, None), lambda x, y: x),
    ],
    ids=["identity", "replicate", "swap", "project"],
)
def test_short_circuit(structure, fn, num_parallel_calls):
    element = np.int64(7) if structure is None else (np.int64(7), np.int64(8))
    dataset = Dataset.from_tensors(element).repeat().map(fn, num_parallel_calls=num_parallel_calls)
    expected = fn(*element) if isinstance(element, tuple) else fn(element)
    assert as_py(next(iter(dataset))) == as_py(expected)


def test_capture_variable():
    counter = [0]

    def assign_add(_):
        counter[0] += 1
        return np.int32(counter[0])

    it = iter(Dataset.from_tensors(0).repeat(10).map(assign_add))
    for i in range(10):
        assert counter[0] == i
        assert next(it) == i + 1
    assert counter[0] == 10
    with pytest.raises(StopIteration):
        next(it)


# --- cache_test.py ----------------------------------------------------------------------------

CACHE_COMPONENTS = (
    np.array([1, 2, 3, 4]),
    np.array([5, 6, 7, 8]),
    np.array([9.0, 10.0, 11.0, 12.0]),
)


def test_file_cache_dataset_passthrough(tmp_path):
    prefix = str(tmp_path / "cache")

    def dataset_fn(count=5, filename=None):
        repeated = Dataset.from_tensor_slices(CACHE_COMPONENTS).repeat(count)
        return repeated.cache(filename) if filename else repeated

    assert [s.shape for s in dataset_fn().element_spec] == [c.shape[1:] for c in CACHE_COMPONENTS]
    elements = as_py(list(dataset_fn()))
    assert len(elements) == 20
    assert as_py(list(dataset_fn(filename=prefix))) == elements
    # An empty upstream: the cache file gives the elements.
    assert as_py(list(dataset_fn(count=0, filename=prefix))) == elements
    # An empty upstream and no cache file: nothing.
    assert list(dataset_fn(count=0, filename=prefix + "nonsense")) == []


def test_file_cache_concurrent_readers(tmp_path):
    prefix = str(tmp_path / "cache")
    first = Dataset.from_tensor_slices(CACHE_COMPONENTS).cache(prefix)
    second = Dataset.from_tensor_slices(CACHE_COMPONENTS).cache(prefix)
    elements = as_py(list(first))
    it1, it2 = iter(first), iter(second)
    got1, got2 = [], []
    got2.append(next(it2))
    got1.append(next(it1))
    got2.append(next(it2))
    got1.append(next(it1))
    got1.append(next(it1))
    got2.append(next(it2))
    got1.append(next(it1))
    got2.append(next(it2))
    assert next(it2, None) is None and next(it1, None) is None
    assert as_py(got1) == elements and as_py(got2) == elements


def test_file_cache_reading_past_end_of_sequence(tmp_path):
    dataset = Dataset.range(10).cache(str(tmp_path / "cache"))
    dataset = dataset.map(lambda a: a).batch(4).repeat(2)
    assert as_py(list(dataset)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] * 2


def test_file_cache_cleaning_up_cache_files(tmp_path):
    for i in [0, 3, 10, 12, 15]:
        it = iter(Dataset.range(10).cache(str(tmp_path / "cache")))
        for _ in range(i):
            if next(it, None) is None:
                break
        it.close()
    assert as_py(list(Dataset.range(10).cache(str(tmp_path / "cache")))) == list(range(10))


def test_memory_cache_dataset_passthrough():
    repeat_count = [10]
    dataset = Dataset.range(3).flat_map(lambda x: Dataset.from_tensors(x).repeat(repeat_count[0]))
    cached, uncached = iter(dataset.cache().repeat(2)), iter(dataset.repeat(2))
    for i in range(3):
        for _ in range(10):
            assert next(cached) == i
            assert next(uncached) == i
    repeat_count[0] = 0
    assert next(uncached, None) is None  # the uncached pass reads the empty upstream
    for i in range(3):  # the cached one replays
        for _ in range(10):
            assert next(cached) == i
    assert next(cached, None) is None


def test_memory_cache_empty_reading():
    assert list(Dataset.from_tensor_slices(CACHE_COMPONENTS).repeat(0).cache()) == []


def test_memory_cache_concurrent_readers():
    d1 = Dataset.range(5).cache().map(lambda x: x + 1)
    d2 = Dataset.range(5).cache().map(lambda x: x + 6)
    it1 = iter(d1)
    assert [next(it1), next(it1), next(it1)] == [1, 2, 3]
    it2 = iter(d2)
    assert [next(it2), next(it2), next(it1)] == [6, 7, 4]
    assert [next(it2), next(it1)] == [8, 5]
    assert [next(it2), next(it2)] == [9, 10]
    assert next(it2, None) is None and next(it1, None) is None


def test_memory_cache_take_repeat():
    dataset = Dataset.range(10).cache().take(5).repeat(2)
    assert as_py(list(dataset)) == [0, 1, 2, 3, 4] * 2


def test_memory_cache_repeat_epochs():
    counter = [0]

    def increment(x):
        counter[0] += 1
        return x

    it = iter(Dataset.range(10).map(increment).cache().repeat(2))
    for i in range(10):
        assert counter[0] == i
        assert next(it) == i
    for i in range(10):
        assert counter[0] == 10
        assert next(it) == i
    assert next(it, None) is None


def test_memory_cache_iteration_epochs():
    counter = [0]

    def increment(x):
        counter[0] += 1
        return x

    dataset = Dataset.range(10).map(increment).cache()
    for i, element in enumerate(dataset):
        assert element == i and counter[0] == i + 1
    for i, element in enumerate(dataset):
        assert element == i and counter[0] == 10


def test_memory_cache_resource_capture():
    ids = Dataset.range(10).cache()
    dataset = Dataset.range(1).interleave(lambda _: ids)
    assert as_py(list(dataset)) == list(range(10))


def test_memory_cache_concurrent_iterators():
    dataset = Dataset.range(10).cache()
    it1, it2 = iter(dataset), iter(dataset)
    for i in range(10):
        assert next(it1) == i
        assert next(it2) == i


def test_memory_cache_known_cardinality():
    dataset = Dataset.range(10).shuffle(10, reshuffle_each_iteration=True).cache()
    it = iter(dataset)
    results = [next(it) for _ in range(10)]  # every element read, the end not reached
    it = iter(dataset)
    assert [next(it) for _ in range(10)] == results


def test_memory_cache_checkpoint_finished_cache():
    dataset = Dataset.range(10).cache()
    it = dataset.iterator()
    assert [int(next(it)) for _ in range(10)] == list(range(10))
    restored = dataset.iterator(state=it.state())
    assert next(restored, None) is None


@pytest.mark.parametrize("is_memory", [True, False])
def test_cache_checkpoint(tmp_path, is_memory):
    filename = "" if is_memory else str(tmp_path / "test")
    verify_checkpoints(lambda: Dataset.range(10).cache(filename).repeat(3), 30)


# --- prefetch_test.py -------------------------------------------------------------------------


@pytest.mark.parametrize("buffer_size", [-1, None, 0, 42])
def test_prefetch_buffer_size(buffer_size):
    assert as_py(list(Dataset.range(10).prefetch(buffer_size=buffer_size))) == list(range(10))


@pytest.mark.parametrize("buffer_size", [-2, -42])
def test_prefetch_invalid_buffer_size(buffer_size):
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(10).prefetch(buffer_size=buffer_size)


def test_prefetch_name():
    assert as_py(list(Dataset.from_tensors(42).prefetch(1, name="prefetch"))) == [42]


def test_prefetch_checkpoint():
    verify_checkpoints(lambda: Dataset.range(100).prefetch(10), 100, stops=range(0, 101, 7))


@pytest.mark.parametrize("index", [-1, 10, 11])
def test_prefetch_random_access_invalid_index(index):
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(10).prefetch(buffer_size=5), index)


@pytest.mark.parametrize("index", [-2, 0, 1])
def test_prefetch_random_access_empty_dataset(index):
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices(np.zeros([0])).prefetch(buffer_size=5), index)


@pytest.mark.parametrize("buffer_size", [0, 5, 10])
@pytest.mark.parametrize("elements", [10, 50, 100])
def test_prefetch_random_access(elements, buffer_size):
    dataset = Dataset.range(elements).prefetch(buffer_size=buffer_size)
    n = dataset.cardinality()
    for i in range(n):
        assert at(dataset, i) == i
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, n)
