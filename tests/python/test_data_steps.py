"""swigflow.data's flat_map, window, padded_batch, rebatch, scan, group_by_window,
bucket_by_sequence_length, cache and from_generator: outputs recorded from TensorFlow 2.21 on
the same pipelines, resuming from every state, and per-iterator shuffle seeds."""

import json
import os

import numpy as np
import pytest
from data_util import values

from swigflow import errors
from swigflow.data import INFINITE, Dataset
from swigflow.specs import RaggedTensorSpec, TensorSpec
from swigflow.tensors import RaggedTensor


def sequences(lengths):
    return Dataset.from_tensor_slices(np.array(lengths, np.int64)).map(lambda n: np.full([n], n))


# Outputs TensorFlow 2.21 gave for the same pipelines (tf.data.Dataset with the same arguments).
TF_OUTPUTS = {
    "rebatch": (lambda: Dataset.range(6).batch(3).rebatch(2), [[0, 1], [2, 3], [4, 5]]),
    "rebatch_list": (
        lambda: Dataset.range(8).batch(4).rebatch([2, 1, 1]),
        [[0, 1], [2], [3], [4, 5], [6], [7]],
    ),
    "rebatch_drop": (
        lambda: Dataset.range(7).batch(3).rebatch(2, drop_remainder=True),
        [[0, 1], [2, 3], [4, 5]],
    ),
    "rebatch_rest": (lambda: Dataset.range(7).batch(3).rebatch(2), [[0, 1], [2, 3], [4, 5], [6]]),
    "group_by_window": (
        lambda: Dataset.range(10).group_by_window(
            lambda x: x % 3, lambda k, d: d.batch(10), window_size=2
        ),
        [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]],
    ),
    "group_by_window_end_in_key_order": (
        lambda: Dataset.from_tensor_slices(
            np.array([5, 3, 1, 4, 2, 7, 11], np.int64)
        ).group_by_window(lambda x: x % 7, lambda k, d: d.batch(10), window_size=5),
        [[7], [1], [2], [3], [4, 11], [5]],
    ),
    "window_then_batch": (
        lambda: Dataset.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3)),
        [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]],
    ),
    "window_stride": (
        lambda: Dataset.range(7).window(3, shift=2, stride=2).flat_map(lambda w: w.batch(3)),
        [[0, 2, 4], [2, 4, 6], [4, 6], [6]],
    ),
    "padded_batch": (
        lambda: Dataset.range(1, 5).map(lambda x: np.full([x], x)).padded_batch(2),
        [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]],
    ),
    "padded_batch_shapes": (
        lambda: (
            Dataset.range(1, 5)
            .map(lambda x: np.full([x], x))
            .padded_batch(2, padded_shapes=[5], padding_values=-1)
        ),
        [[[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]], [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]],
    ),
    "padded_batch_strings": (
        lambda: Dataset.from_tensor_slices([["a"], ["b"]]).padded_batch(2),
        [[[b"a"], [b"b"]]],
    ),
    "padded_batch_dict": (
        lambda: Dataset.range(1, 4).map(lambda x: {"a": np.full([x], x), "b": x}).padded_batch(2),
        [{"a": [[1, 0], [2, 2]], "b": [1, 2]}, {"a": [[3, 3, 3]], "b": [3]}],
    ),
    "scan": (lambda: Dataset.range(5).scan(np.int64(0), lambda s, x: (s + x, s)), [0, 0, 1, 3, 6]),
    "flat_map": (lambda: Dataset.range(3).flat_map(lambda x: Dataset.range(x)), [0, 0, 1]),
    "bucket_by_sequence_length": (
        lambda: sequences([1, 5, 3, 8, 2, 7, 4, 6, 9, 3]).bucket_by_sequence_length(
            lambda x: x.shape[0], [3, 6], [2, 2, 3]
        ),
        [
            [[5, 5, 5, 5, 5], [3, 3, 3, 0, 0]],
            [[1, 0], [2, 2]],
            [[8] * 8, [7] * 7 + [0], [6] * 6 + [0, 0]],
            [[4, 4, 4, 4], [3, 3, 3, 0]],
            [[9] * 9],
        ],
    ),
    "bucket_drop_remainder": (
        lambda: sequences([1, 5, 3, 8, 2, 7, 4, 6, 9, 3]).bucket_by_sequence_length(
            lambda x: x.shape[0], [3, 6], [2, 2, 3], drop_remainder=True
        ),
        [
            [[5, 5, 5, 5, 5], [3, 3, 3, 0, 0]],
            [[1, 0], [2, 2]],
            [[8] * 8, [7] * 7 + [0], [6] * 6 + [0, 0]],
            [[4, 4, 4, 4], [3, 3, 3, 0]],
        ],
    ),
    "bucket_to_boundary": (
        lambda: sequences([1, 5, 3, 2, 4, 3, 5]).bucket_by_sequence_length(
            lambda x: x.shape[0], [3, 6], [2, 2, 3], pad_to_bucket_boundary=True
        ),
        [
            [[5, 5, 5, 5, 5], [3, 3, 3, 0, 0]],
            [[1, 0], [2, 2]],
            [[4, 4, 4, 4, 0], [3, 3, 3, 0, 0]],
            [[5, 5, 5, 5, 5]],
        ],
    ),
}


@pytest.mark.parametrize("name", list(TF_OUTPUTS))
def test_outputs_equal_tensorflows(name):
    make, expected = TF_OUTPUTS[name]
    assert values(make()) == expected


@pytest.mark.parametrize("name", list(TF_OUTPUTS))
def test_resuming_at_every_element(name):
    make, expected = TF_OUTPUTS[name]
    dataset = make()
    for stop in range(len(expected) + 1):
        it = dataset.iterator()
        head = values(next(it) for _ in range(stop))
        state = json.loads(json.dumps(it.state()))
        assert head + values(dataset.iterator(state=state)) == expected, stop


def test_bucket_errors_as_tensorflow():
    unpadded = sequences([1, 5, 3, 8]).bucket_by_sequence_length(
        lambda x: x.shape[0], [3, 6], [2, 2, 3], no_padding=True
    )
    with pytest.raises(errors.InvalidArgumentError, match="different shapes"):
        list(unpadded)
    too_long = sequences([1, 7]).bucket_by_sequence_length(
        lambda x: x.shape[0], [3, 6], [2, 2, 3], pad_to_bucket_boundary=True
    )
    with pytest.raises(errors.InvalidArgumentError, match="length < max"):
        list(too_long)
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\)"):
        Dataset.range(3).bucket_by_sequence_length(len, [3, 6], [2, 2])


def test_scan_with_tuple_elements_and_a_failing_function():
    pairs = Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6]))
    scanned = pairs.scan(np.int32(0), lambda s, e: (s + e[0], (s, e[1])))
    assert values(scanned) == [(0, 4), (1, 5), (3, 6)]  # TensorFlow 2.21's

    def step(state, x):
        if x == 1:
            raise ValueError("bad element")
        return state + x, state

    it = iter(Dataset.range(4).scan(np.int64(0), step))
    assert next(it) == 0
    with pytest.raises(ValueError, match="bad element"):
        next(it)
    assert [int(v) for v in it] == [0, 2]  # the state went on without the failed element


def test_memory_cache_keeps_the_first_complete_pass():
    calls = []

    def record(x):
        calls.append(int(x))
        return x * 10

    cached = Dataset.range(4).shuffle(4).map(record).cache()
    first = values(cached)
    assert values(cached) == first and values(cached.repeat(2)) == first * 2
    assert len(calls) == 4  # the input ran once
    partial = Dataset.range(5).map(record).cache()
    calls.clear()
    it = iter(partial)
    next(it)
    it.close()  # a pass that stops early caches nothing
    assert values(partial) == [0, 10, 20, 30, 40] and len(calls) == 1 + 5
    assert values(partial) == [0, 10, 20, 30, 40] and len(calls) == 6


def test_memory_cache_is_complete_at_its_last_element():
    """As tf.data (CacheTest): with a known cardinality, an iterator that reads every element
    and stops there, without asking past the end, completes the cache; a second iterator
    reads it instead of reshuffling."""
    cached = Dataset.range(20).shuffle(20).cache()
    it = iter(cached)
    first = [int(next(it)) for _ in range(20)]
    it.close()
    assert values(cached) == first
    unknown = Dataset.range(6).filter(lambda x: x < 3).cache()  # cardinality unknown
    it = iter(unknown)
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]


def test_cache_keeps_a_pass_without_its_failed_elements():
    # As tf.data: the failure is raised in the pass that meets it, later passes read the rest.
    def odd_fails(x):
        if x % 2:
            raise ValueError(f"odd {x}")
        return x

    it = iter(Dataset.range(5).map(odd_fails).cache().repeat(3))
    got = []
    while True:
        try:
            got.append(int(next(it)))
        except ValueError:
            got.append("error")
        except StopIteration:
            break
    assert got == [0, "error", 2, "error", 4] + [0, 2, 4] * 2


def test_file_cache_is_written_whole_and_read_by_a_new_program(tmp_path):
    path = str(tmp_path / "cache" / "train")
    cached = Dataset.range(6).map(lambda x: {"x": x, "y": np.full([2], x)}).cache(path)
    it = iter(cached)
    next(it)
    it.close()
    assert not os.listdir(tmp_path / "cache")  # no partial file that looks complete
    expected = values(cached)
    assert os.path.exists(path + ".swigflow_cache")

    def fails(_):
        raise AssertionError("the input must not be read again")

    again = Dataset.range(6).map(fails).cache(path)  # a new dataset over the same file
    assert values(again) == expected
    it = again.iterator()
    next(it)
    next(it)
    assert values(again.iterator(state=it.state())) == expected[2:]


def test_from_generator_and_its_state():
    def generator(n):
        for i in range(n):
            yield i, [i] * i

    dataset = Dataset.from_generator(generator, args=(4,))
    assert values(dataset) == [(0, []), (1, [1]), (2, [2, 2]), (3, [3, 3, 3])]
    it = dataset.iterator()
    next(it)
    assert values(dataset.iterator(state=it.state())) == values(dataset)[1:]
    with pytest.raises(TypeError, match="callable"):
        Dataset.from_generator([1, 2])


def test_flat_map_of_files_is_native(tmp_path):
    from data_util import make_files

    from swigflow.data import TFRecordDataset

    paths = make_files(str(tmp_path), [3, 2])
    ds = Dataset.from_tensor_slices(paths).flat_map(TFRecordDataset)
    assert "TFRecords(*)" in repr(ds)
    assert list(ds) == list(TFRecordDataset(paths))


def test_seeded_shuffles_differ_per_iterator_as_tf_data():
    ds = Dataset.range(20).shuffle(20, seed=42)
    first, second = values(ds), values(ds)
    assert first != second and sorted(first) == sorted(second) == list(range(20))
    assert values(Dataset.range(20).shuffle(20, seed=42)) == first  # a new dataset starts again
    fixed = Dataset.range(20).shuffle(20, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    files = Dataset.list_files(os.path.join(os.path.dirname(__file__), "*.py"), seed=3)
    assert values(files) != values(files)


def test_window_and_group_cardinalities():
    assert Dataset.range(5).repeat().window(2).cardinality() == INFINITE
    assert Dataset.range(7).window(3, shift=2, drop_remainder=True).cardinality() == 3
    assert Dataset.range(5).repeat().scan(0, lambda s, x: (s, x)).cardinality() == INFINITE
    assert Dataset.range(5).cache().repeat().cardinality() == INFINITE


def test_rebatch_keeps_ragged_rows_ragged():
    # TF 2.21, from tf.ragged.constant([[1], [2, 3], [], [4, 5, 6]]): ragged_batch(2).rebatch(3)
    # gives [[1], [2, 3], []] and [[4, 5, 6]], each a RaggedTensor of spec
    # RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64).
    rows = [np.array(r, np.int32) for r in ([1], [2, 3], [], [4, 5, 6])]
    ds = Dataset.from_generator(
        lambda: iter(rows), output_signature=TensorSpec([None], np.int32)
    ).ragged_batch(2)
    rebatched = ds.rebatch(3)
    assert rebatched.element_spec == RaggedTensorSpec([None, None], np.int32, 1, np.int64)
    batches = list(rebatched)
    assert [b.to_list() for b in batches] == [[[1], [2, 3], []], [[4, 5, 6]]]
    assert batches[0].values.dtype == np.int32
    # Batches of 0 rows of a ragged component, and rows that are themselves ragged.
    empty = list(ds.rebatch([4, 0]))
    assert [b.to_list() for b in empty] == [[[1], [2, 3], [], [4, 5, 6]], []]
    nested = ds.ragged_batch(2).rebatch(1)
    assert [b.to_list() for b in nested] == [[[[1], [2, 3]]], [[[], [4, 5, 6]]]]


def test_rebatch_refuses_what_tf_data_would_not_end_or_crashes_on():
    ds = Dataset.range(4).batch(2)
    with pytest.raises(errors.InvalidArgumentError, match="every batch size is 0"):
        ds.rebatch([0, 0])  # tf.data gives empty batches without end
    with pytest.raises(errors.InvalidArgumentError, match="must be >= 0"):
        ds.rebatch(-1)  # tf.data 2.21 crashes the process
    with pytest.raises(errors.InvalidArgumentError, match="at least one batch size"):
        ds.rebatch([])  # tf.data raises IndexError


def test_scan_states_that_are_not_arrays_keep_their_kind():
    ragged = RaggedTensor(np.array([1, 2, 3]), np.array([0, 1, 3]))
    assert values(Dataset.range(2).scan(ragged, lambda s, x: (s, x))) == [0, 1]
    assert values(Dataset.range(2).scan([1, 2], lambda s, x: (s, x))) == [0, 1]
    with pytest.raises(TypeError, match="Expected RaggedTensor, got <dtype: 'int64'>"):
        values(Dataset.range(2).scan(ragged, lambda s, x: (np.int64(1), x)))
