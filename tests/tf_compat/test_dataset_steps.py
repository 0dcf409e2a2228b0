"""Translated from tensorflow/python/data/kernel_tests/padded_batch_test.py (PaddedBatchTest)
and group_by_window_test.py (GroupByWindowTest). Not translated: testPaddedBatchSparseError
(no sparse elements in swigflow), testSkipEager* (graph-mode placeholders) and
testGroupByWindowWithAutotune's graph rewrite (its pipeline runs below as an ordinary one).

Padded shapes that do not fit their component's spec raise tf.data's ValueError when the
dataset is made; after a Python function (whose outputs have an UnknownSpec) they raise it when
the batch is made (docs/differences.md)."""

import numpy as np
import pytest

from swigflow import errors
from swigflow.data import INFINITE, Dataset


def fill(n, value):
    return np.full([int(n)], value)


def as_string(values):
    return np.array([str(v).encode() for v in np.ravel(values)], dtype=object)


# --- padded_batch_test.py -----------------------------------------------------------------


def _random_seq_lens(count):
    return np.random.RandomState(count).randint(20, size=(count,)).astype(np.int32)


@pytest.mark.parametrize(
    "seq_lens,batch_size,padded_shapes,drop_remainder",
    [
        (_random_seq_lens(32), 4, [-1], False),
        (_random_seq_lens(32), 4, [25], False),
        (_random_seq_lens(34), 4, [-1], False),
        (_random_seq_lens(34), 4, [-1], True),
    ],
    ids=["default_padding", "constant_padding", "uneven_with_remainder",
         "uneven_without_remainder"],
)  # fmt: skip
def test_padded_batch_dataset(seq_lens, batch_size, padded_shapes, drop_remainder):
    """PaddedBatchTest.testPaddedBatchDataset."""
    dataset = (
        Dataset.from_tensor_slices(seq_lens)
        .map(lambda x: fill(x, x))
        .padded_batch(
            batch_size=batch_size, drop_remainder=drop_remainder, padded_shapes=padded_shapes
        )
    )
    num_full_batches = len(seq_lens) // batch_size
    it = iter(dataset)
    for i in range(num_full_batches):
        result = next(it)
        padded_len = padded_shapes[0]
        if padded_len is None or padded_len == -1:
            padded_len = np.max(result) if result.size > 0 else 0
        assert result.shape == (batch_size, padded_len)
        for j in range(batch_size):
            seq_len = seq_lens[(i * batch_size) + j]
            assert result[j, :seq_len].tolist() == [seq_len] * seq_len
            assert result[j, seq_len:].tolist() == [0] * (padded_len - seq_len)
    if not drop_remainder and len(seq_lens) % batch_size > 0:
        result = next(it)
        padded_len = np.max(result) if result.size > 0 else 0
        assert result.shape == (len(seq_lens) % batch_size, padded_len)
        for j in range(len(seq_lens) % batch_size):
            seq_len = seq_lens[num_full_batches * batch_size + j]
            assert result[j, :seq_len].tolist() == [seq_len] * seq_len
            assert result[j, seq_len:].tolist() == [0] * (padded_len - seq_len)
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_padded_batch_short_padding():
    """PaddedBatchTest.testPaddedBatchShortPadding."""
    dataset = (
        Dataset.from_tensor_slices([6, 5, 5, 5, 5])
        .map(lambda x: fill(x, x))
        .padded_batch(batch_size=4, padded_shapes=[5])
    )
    with pytest.raises(errors.DataLossError):
        list(dataset)


def test_padded_batch_empty_tensors():
    """PaddedBatchTest.testPaddedBatchEmptyTensors."""
    dataset = (
        Dataset.from_tensor_slices([0, 0, 0, 0])
        .map(lambda x: fill(x, x))
        .padded_batch(batch_size=4, padded_shapes=[-1])
    )
    assert [b.tolist() for b in dataset] == [[[], [], [], []]]


def test_padded_batch_dataset_non_default_padding():
    """PaddedBatchTest.testPaddedBatchDatasetNonDefaultPadding."""

    def fill_tuple(x):
        filled = fill(x, x)
        return filled, as_string(filled)

    random_seq_lens = np.random.RandomState(0).randint(20, size=(32,)).astype(np.int32)
    dataset = (
        Dataset.from_tensor_slices(random_seq_lens)
        .map(fill_tuple)
        .padded_batch(4, padded_shapes=([-1], [-1]), padding_values=(-1, "<end>"))
    )
    it = iter(dataset)
    for i in range(8):
        result = next(it)
        padded_len = np.max(result[0])
        assert result[0].shape == (4, padded_len) and result[1].shape == (4, padded_len)
        for j in range(4):
            seq_len = random_seq_lens[(i * 4) + j]
            assert result[0][j, :seq_len].tolist() == [seq_len] * seq_len
            assert result[0][j, seq_len:].tolist() == [-1] * (padded_len - seq_len)
            assert result[1][j, :seq_len].tolist() == [str(seq_len).encode()] * seq_len
            assert [v.encode() if isinstance(v, str) else v for v in result[1][j, seq_len:]] == (
                [b"<end>"] * (padded_len - seq_len)
            )
    with pytest.raises(StopIteration):
        next(it)


def test_padded_batch_dataset_unicode():
    """PaddedBatchTest.testPaddedBatchDatasetUnicode (GitHub issue 16149)."""

    def generator():
        data = [["Простой", "тест", "юникода"], ["никогда", "не", "бывает", "простым"]]
        for seq in data:
            yield seq, [0, 1, 2, 3]

    dataset = Dataset.from_generator(generator, ("string", "int32"), ([None], [None]))
    padded = dataset.padded_batch(2, padded_shapes=([None], [None]), padding_values=("", 0))
    words, numbers = next(iter(padded))
    assert words.shape == (2, 4) and words[0, 0] == "Простой".encode()
    assert numbers.tolist() == [[0, 1, 2, 3], [0, 1, 2, 3]]


def test_padded_batch_shape_error():
    """PaddedBatchTest.testPaddedBatchShapeError: raised when the dataset is made."""
    with pytest.raises(
        ValueError,
        match=r"The padded shape \(1,\) is not compatible with the shape \(\) of the "
        r"corresponding input component.",
    ):
        Dataset.range(10).padded_batch(5, padded_shapes=[1])
    with pytest.raises(
        ValueError,
        match=r"Padded shape .* must be a 1-D tensor of tf.int64 values, but its shape was "
        r"\(2, 2\).",
    ):
        Dataset.from_tensors([1, 2, 3]).padded_batch(5, padded_shapes=[[1, 1], [1, 1]])
    with pytest.raises(
        TypeError,
        match=r"Padded shape .* must be a 1-D tensor of tf.int64 values, but its element type "
        r"was float32.",
    ):
        Dataset.from_tensors([1, 2, 3]).padded_batch(
            5, padded_shapes=np.array([1.0, 2.0, 3.0], np.float32)
        )
    with pytest.raises(
        ValueError,
        match=r"The padded shape \(1,\) is not compatible with the shape \(\) of the "
        r"corresponding input component.",
    ):
        Dataset.range(10).padded_batch(5, padded_shapes=np.array([1], np.int64))


# --- group_by_window_test.py --------------------------------------------------------------


def _dynamic_pad(bucket, window, window_size):
    del window_size
    return Dataset.zip((Dataset.from_tensors(bucket), window.padded_batch(32, ([], [None], [3]))))


def _map_fn(v):
    return v, fill(v, v), np.full([3], str(v).encode(), dtype=object)


def test_single_bucket():
    """GroupByWindowTest.testSingleBucket."""
    bucketed = (
        Dataset.from_tensor_slices(np.arange(32))
        .map(_map_fn)
        .group_by_window(
            key_func=lambda x, y, z: 0,
            reduce_func=lambda k, bucket: _dynamic_pad(k, bucket, 32),
            window_size=32,
        )
    )
    which_bucket, bucketed_values = next(iter(bucketed))
    assert which_bucket == 0
    expected_unk_int64 = np.zeros((32, 31)).astype(np.int64)
    for i in range(32):
        expected_unk_int64[i, :i] = i
    expected_vec3_str = np.vstack(3 * [np.arange(32).astype(bytes)]).T
    np.testing.assert_array_equal(bucketed_values[0], np.arange(32, dtype=np.int64))
    np.testing.assert_array_equal(bucketed_values[1], expected_unk_int64)
    np.testing.assert_array_equal(bucketed_values[2].astype(bytes), expected_vec3_str)


def test_even_odd_buckets():
    """GroupByWindowTest.testEvenOddBuckets."""
    bucketed = (
        Dataset.from_tensor_slices(np.arange(64))
        .map(_map_fn)
        .group_by_window(
            key_func=lambda x, y, z: np.int64(x % 2),
            reduce_func=lambda k, bucket: _dynamic_pad(k, bucket, 32),
            window_size=32,
        )
    )
    it = iter(bucketed)
    which_even, even = next(it)
    which_odd, odd = next(it)
    assert len(even) == 3 and len(odd) == 3
    assert which_even == 0 and which_odd == 1
    for first, values in ((0, even), (1, odd)):
        expected_unk = np.zeros((32, 31 * 2 + first)).astype(np.int64)
        for i in range(32):
            expected_unk[i, : 2 * i + first] = 2 * i + first
        expected_str = np.vstack(3 * [np.arange(first, 32 * 2 + first, 2).astype(bytes)]).T
        np.testing.assert_array_equal(values[0], np.arange(first, 64 + first, 2))
        np.testing.assert_array_equal(values[1], expected_unk)
        np.testing.assert_array_equal(values[2].astype(bytes), expected_str)


def test_even_odd_buckets_filter_out_all_odd():
    """GroupByWindowTest.testEvenOddBucketsFilterOutAllOdd."""

    def map_fn(v):
        return {"x": v, "y": fill(v, v), "z": np.full([3], str(v).encode(), dtype=object)}

    def dynamic_pad_fn(bucket, window, _):
        return Dataset.zip(
            (Dataset.from_tensors(bucket),
             window.padded_batch(32, {"x": [], "y": [None], "z": [3]}))
        )  # fmt: skip

    bucketed = (
        Dataset.from_tensor_slices(np.arange(128))
        .map(map_fn)
        .filter(lambda d: d["x"] % 2 == 0)
        .group_by_window(
            key_func=lambda d: np.int64(d["x"] % 2),
            reduce_func=lambda k, bucket: dynamic_pad_fn(k, bucket, 32),
            window_size=32,
        )
    )
    it = iter(bucketed)
    which0, even0 = next(it)
    which1, even1 = next(it)
    assert which0 == 0 and which1 == 0
    np.testing.assert_array_equal(even0["x"], np.arange(0, 64, 2))
    np.testing.assert_array_equal(even1["x"], np.arange(64, 128, 2))


def test_dynamic_window_size():
    """GroupByWindowTest.testDynamicWindowSize."""
    dataset = Dataset.from_tensor_slices(np.arange(100).astype(np.int64)).group_by_window(
        key_func=lambda x: x % 2,
        reduce_func=lambda _, xs: xs.batch(20),
        window_size=None,
        window_size_func=lambda key: np.array([5, 10], np.int64)[key],
    )
    batches = 0
    for result in dataset:
        is_even = all(x % 2 == 0 for x in result)
        assert is_even or all(x % 2 == 1 for x in result)
        assert result.shape[0] == (5 if is_even else 10)
        batches += 1
    assert batches == 15


def test_simple():
    """GroupByWindowTest.testSimple."""
    components = np.random.RandomState(1).randint(100, size=(200,)).astype(np.int64)
    dataset = (
        Dataset.from_tensor_slices(components)
        .map(lambda x: x * x)
        .group_by_window(
            key_func=lambda x: x % 2, reduce_func=lambda _, xs: xs.batch(4), window_size=4
        )
    )
    counts = []
    for result in dataset:
        assert all(x % 2 == 0 for x in result) or all(x % 2 == 1 for x in result)
        counts.append(result.shape[0])
    assert sum(counts) == len(components)
    num_full_batches = len([c for c in counts if c == 4])
    assert num_full_batches >= 24
    assert all(c == 4 for c in counts[:num_full_batches])


def test_immediate_output():
    """GroupByWindowTest.testImmediateOutput."""
    components = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0], dtype=np.int64)
    dataset = (
        Dataset.from_tensor_slices(components)
        .repeat(-1)
        .group_by_window(
            key_func=lambda x: x % 3, reduce_func=lambda _, xs: xs.batch(4), window_size=4
        )
    )
    it = iter(dataset)
    for _ in range(3):
        for value in (0, 1, 2, 0):
            assert next(it).tolist() == [value] * 4


def test_small_groups():
    """GroupByWindowTest.testSmallGroups: the small outputs at the end come in key order."""
    components = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0], dtype=np.int64)
    dataset = Dataset.from_tensor_slices(components).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda _, xs: xs.batch(4), window_size=4
    )
    assert [b.tolist() for b in dataset] == [[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0], [1]]


def test_empty():
    """GroupByWindowTest.testEmpty."""
    with pytest.raises(
        errors.InvalidArgumentError, match=r"Window size must be greater than zero, but got 0\."
    ):
        dataset = Dataset.range(4).group_by_window(
            key_func=lambda _: 0, reduce_func=lambda _, xs: xs, window_size=0
        )
        next(iter(dataset))


def test_reduce_func_error():
    """GroupByWindowTest.testReduceFuncError."""
    components = np.random.RandomState(2).randint(100, size=(200,)).astype(np.int64)

    def reduce_func(_, xs):
        return xs.padded_batch(4, padded_shapes=([], np.array([5], np.int64) * -1))

    dataset = (
        Dataset.from_tensor_slices(components)
        .map(lambda x: (x, np.array([x * x])))
        .group_by_window(key_func=lambda x, _: x % 2, reduce_func=reduce_func, window_size=32)
    )
    with pytest.raises(errors.InvalidArgumentError):
        next(iter(dataset))


def test_consume_window_dataset_more_than_once():
    """GroupByWindowTest.testConsumeWindowDatasetMoreThanOnce."""
    components = np.random.RandomState(3).randint(50, size=(200,)).astype(np.int64)

    def reduce_func(key, window):
        return Dataset.zip(
            (window.padded_batch(4, padded_shapes=[None]),
             window.padded_batch(4, padded_shapes=np.array([(key + 1) * 10])))
        )  # fmt: skip

    dataset = (
        Dataset.from_tensor_slices(components)
        .map(lambda x: np.full([int(x)], x))
        .group_by_window(
            key_func=lambda x: np.int64(x.shape[0] // 10), reduce_func=reduce_func, window_size=4
        )
    )
    counts = []
    for tight, multiple_of_10 in dataset:
        assert multiple_of_10.shape[1] % 10 == 0
        np.testing.assert_array_equal(tight, multiple_of_10[:, : tight.shape[1]])
        counts.append(tight.shape[0])
    assert sum(counts) == len(components)


def test_short_circuit():
    """GroupByWindowTest.testShortCircuit."""
    dataset = Dataset.range(10).group_by_window(
        key_func=lambda x: x, reduce_func=lambda _, window: window.batch(1), window_size=1
    )
    assert [b.tolist() for b in dataset] == [[i] for i in range(10)]


def test_group_by_window_with_autotune():
    """GroupByWindowTest.testGroupByWindowWithAutotune."""
    dataset = (
        Dataset.range(1000)
        .group_by_window(
            key_func=lambda x: x // 10,
            reduce_func=lambda key, window: Dataset.from_tensors(key),
            window_size=4,
        )
        .map(lambda x: x + 1, num_parallel_calls=-1)
    )
    assert next(iter(dataset)) == 1


def test_group_by_window_cardinality():
    """GroupByWindowTest.testGroupByWindowCardinality."""
    dataset = (
        Dataset.range(1)
        .repeat()
        .group_by_window(
            key_func=lambda x: x % 2,
            reduce_func=lambda key, window: Dataset.from_tensors(key),
            window_size=4,
        )
    )
    assert dataset.cardinality() == INFINITE
