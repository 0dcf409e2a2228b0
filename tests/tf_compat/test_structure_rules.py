"""Translated from tensorflow/python/data/kernel_tests/concatenate_test.py (ConcatenateTest,
ConcatenateCheckpointTest), unbatch_test.py (UnbatchTest, UnbatchCheckpointTest,
UnbatchRandomAccessTest), ragged_batch_test.py (RaggedBatchTest) and map_test.py's
testReturnValueError: tf.data's structure rules, checked from element specs when the dataset
is made.

Adaptations:
- get_legacy_output_shapes/types are read from element_spec (shape and dtype per component).
- Elements TF makes with a traced map (array_ops.fill, math_ops.range) are made here by a numpy
  map, whose outputs have an UnknownSpec: ragged_batch then makes every dimension of such a
  component ragged (docs/differences.md). The batches' values are upstream's
  checks; the raggedness TF derives from traced shapes is checked by from_generator cases with
  the same shapes in tests/python/test_element_spec.py (recorded from TensorFlow 2.21).
- ConcatenateTest's errors are TF 2.21's "Incompatible dataset elements" (upstream's older
  text is "have different types").
- map()'s unsupported return value is refused when the function returns it (tf.data refuses
  it when tracing at map()): the TypeError is raised for that element.
- testUnbatchDynamicShapeMismatch (graph placeholders) is not translated; the static mismatch
  is.
"""

import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors, specs
from swigflow.data import Dataset
from swigflow.data.experimental import at
from swigflow.tensors import RaggedTensor, SparseTensor

# --- concatenate_test.py ----------------------------------------------------------------------


def _check_concatenated(concatenated, first, second):
    got = list(concatenated)
    assert len(got) == len(first[0]) + len(second[0])
    for i, result in enumerate(got):
        parts, row = (first, i) if i < len(first[0]) else (second, i - len(first[0]))
        for component, value in zip(parts, result):
            np.testing.assert_array_equal(component[row], value)


def test_concatenate_dataset():
    first = (
        np.tile(np.array([[1], [2], [3], [4]]), 20),
        np.tile(np.array([[12], [13], [14], [15]]), 15),
        np.array([37.0, 38.0, 39.0, 40.0]),
    )
    second = (
        np.tile(np.array([[1], [2], [3], [4], [5]]), 20),
        np.tile(np.array([[12], [13], [14], [15], [16]]), 15),
        np.array([37.0, 38.0, 39.0, 40.0, 41.0]),
    )
    concatenated = Dataset.from_tensor_slices(first).concatenate(Dataset.from_tensor_slices(second))
    assert [s.shape for s in concatenated.element_spec] == [(20,), (15,), ()]
    _check_concatenated(concatenated, first, second)


def test_concatenate_dataset_different_shape():
    first = (np.tile(np.array([[1], [2], [3], [4]]), 20), np.tile(np.array([[12], [13]] * 2), 4))
    second = (
        np.tile(np.array([[1], [2], [3], [4], [5]]), 20),
        np.tile(np.array([[12], [13], [14], [15], [16]]), 15),
    )
    concatenated = Dataset.from_tensor_slices(first).concatenate(Dataset.from_tensor_slices(second))
    assert [s.shape.as_list() for s in concatenated.element_spec] == [[20], [None]]
    _check_concatenated(concatenated, first, second)


@pytest.mark.parametrize(
    "first,second",
    [
        (  # testConcatenateDatasetDifferentStructure
            (np.tile(np.array([[1], [2], [3], [4]]), 5), np.tile(np.array([[12], [13]] * 2), 4)),
            (
                np.tile(np.array([[1], [2], [3], [4], [5]]), 20),
                np.tile(np.array([[12], [13], [14], [15], [16]]), 15),
                np.array([37.0, 38.0, 39.0, 40.0, 41.0]),
            ),
        ),
        (  # testConcatenateDatasetDifferentKeys
            {"foo": np.array([[1], [2], [3], [4]]), "bar": np.array([[12], [13], [14], [15]])},
            {"foo": np.array([[1], [2], [3], [4]]), "baz": np.array([[5], [6], [7], [8]])},
        ),
        (  # testConcatenateDatasetDifferentType
            (np.tile(np.array([[1], [2], [3], [4]]), 5), np.tile(np.array([[12], [13]] * 2), 4)),
            (
                np.tile(np.array([[1.0], [2.0], [3.0], [4.0]]), 5),
                np.tile(np.array([[12], [13], [14], [15]]), 15),
            ),
        ),
    ],
    ids=["structure", "keys", "type"],
)
def test_concatenate_incompatible(first, second):
    a, b = Dataset.from_tensor_slices(first), Dataset.from_tensor_slices(second)
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        a.concatenate(b)


def test_concatenate_checkpoint():
    def build():
        first = (
            np.tile(np.array([[1], [2], [3], [4]]), 20),
            np.tile(np.array([[12], [13], [14], [15]]), 4),
        )
        second = (
            np.tile(np.array([[5], [6], [7], [8], [9]]), 20),
            np.tile(np.array([[16], [17], [18], [19], [20]]), 15),
        )
        return Dataset.from_tensor_slices(first).concatenate(Dataset.from_tensor_slices(second))

    verify_checkpoints(build, 9)


# --- unbatch_test.py --------------------------------------------------------------------------


def test_unbatch_with_unknown_rank_input():
    assert as_py(list(Dataset.from_tensors([0, 1, 2, 3]).unbatch())) == [0, 1, 2, 3]


def test_unbatch_scalar_dataset():
    data = Dataset.from_tensor_slices(tuple(np.arange(10, dtype=np.int32) for _ in range(3)))
    data = data.batch(2)
    assert tuple(s.dtype for s in data.element_spec) == (np.dtype(np.int32),) * 3
    data = data.unbatch()
    assert tuple(s.dtype for s in data.element_spec) == (np.dtype(np.int32),) * 3
    assert as_py(list(data)) == [(i,) * 3 for i in range(10)]


def test_unbatch_nested_dataset():
    data = Dataset.from_tensors(tuple(Dataset.range(10) for _ in range(10)))
    # tf.data stacks the list into one component of datasets; a tuple is swigflow's nest.
    got = [int(x) for d in next(iter(data)) for x in d]
    assert got == list(range(10)) * 10


def test_unbatch_dataset_with_strings():
    data = Dataset.from_tensor_slices(tuple(np.arange(10, dtype=np.int32) for _ in range(3)))
    data = data.map(lambda x, y, z: (x, str(int(y)).encode(), z))
    data = data.batch(2).unbatch()
    assert as_py(list(data)) == [(i, str(i).encode(), i) for i in range(10)]
    strings = Dataset.from_tensor_slices((np.arange(3), ["0", "1", "2"])).batch(2).unbatch()
    assert [s.dtype for s in strings.element_spec] == [np.dtype(np.int64), np.dtype(object)]


def _sparse_rows(values):
    return [(r.indices.tolist(), r.values.tolist(), r.dense_shape.tolist()) for r in values]


def test_unbatch_dataset_with_sparse_tensor():
    st = SparseTensor([[i, i] for i in range(10)], np.arange(10), [10, 10])
    data = Dataset.from_tensors(st).unbatch().batch(5).unbatch()
    assert data.element_spec == specs.SparseTensorSpec([10], np.int64)
    assert _sparse_rows(data) == [([[i]], [i], [10]) for i in range(10)]


def test_unbatch_dataset_with_dense_sparse_and_ragged_tensor():
    st = SparseTensor([[i, i] for i in range(10)], np.arange(10), [10, 10])
    rt = RaggedTensor(RaggedTensor(np.arange(10), np.arange(11)), np.arange(11))
    data = Dataset.from_tensors((np.arange(10), st, rt)).unbatch().batch(5).unbatch()
    got = list(data)
    assert [int(x) for x, _, _ in got] == list(range(10))
    assert _sparse_rows(s for _, s, _ in got) == [([[i]], [i], [10]) for i in range(10)]
    assert [r.to_list() for _, _, r in got] == [[[i]] for i in range(10)]


def test_unbatch_dataset_with_ragged_tensor():
    rt = RaggedTensor(RaggedTensor(np.arange(10), np.arange(11)), np.arange(11))
    data = Dataset.from_tensors(rt).unbatch().batch(5).batch(2).unbatch()
    assert [r.to_list() for r in data] == [
        [[[0]], [[1]], [[2]], [[3]], [[4]]],
        [[[5]], [[6]], [[7]], [[8]], [[9]]],
    ]


def test_unbatch_single_element_tuple_dataset():
    data = Dataset.from_tensor_slices(tuple((np.arange(10, dtype=np.int32),) for _ in range(3)))
    data = data.batch(2).unbatch()
    assert as_py(list(data)) == [((i,),) * 3 for i in range(10)]


def test_unbatch_multi_element_tuple_dataset():
    data = Dataset.from_tensor_slices(
        tuple((np.arange(10 * i, 10 * i + 10, dtype=np.int32), ["hi"] * 10) for i in range(3))
    )
    data = data.batch(2).unbatch()
    expected = [((i, b"hi"), (10 + i, b"hi"), (20 + i, b"hi")) for i in range(10)]
    assert as_py(list(data)) == expected


def test_unbatch_empty():
    data = Dataset.from_tensors(
        (np.zeros([0], np.float32), np.zeros([0, 4], np.float32), np.zeros([0, 4, 0]))
    )
    assert list(data.unbatch()) == []


def test_unbatch_static_shape_mismatch():
    data = Dataset.from_tensors((np.arange(7), np.arange(8), np.arange(9)))
    with pytest.raises(ValueError):
        data.unbatch()


def test_unbatch_dataset_with_uint_dtypes():
    components = (
        np.tile(np.array([[0], [1], [2], [3]], dtype=np.uint8), 2),
        np.tile(np.array([[1], [2], [3], [256]], dtype=np.uint16), 2),
        np.tile(np.array([[2], [3], [4], [65536]], dtype=np.uint32), 2),
        np.tile(np.array([[3], [4], [5], [4294967296]], dtype=np.uint64), 2),
    )
    expected_types = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
    data = Dataset.from_tensor_slices(components).batch(2)
    assert tuple(s.dtype for s in data.element_spec) == expected_types
    data = data.unbatch()
    assert tuple(s.dtype for s in data.element_spec) == expected_types
    assert as_py(list(data)) == [tuple(c[i].tolist() for c in components) for i in range(4)]


def test_none_component():
    dataset = Dataset.from_tensors((list(range(10)), None)).unbatch().map(lambda x, y: x)
    assert as_py(list(dataset)) == list(range(10))


def test_unbatch_name():
    assert as_py(list(Dataset.from_tensors([42]).unbatch(name="unbatch"))) == [42]


def test_unbatch_checkpoint():
    def build():
        n = 8
        components = (
            np.arange(n),
            np.array([[1, 2, 3]]) * np.arange(n)[:, np.newaxis],
            np.array(15.0) * np.arange(n),
        )
        return Dataset.from_tensor_slices(components).batch(2).unbatch()

    verify_checkpoints(build, 8)


def test_unbatch_random_access():
    dataset = Dataset.range(10).batch(4, drop_remainder=True).unbatch()
    for i in range(8):
        assert at(dataset, i) == i


def test_unbatch_random_access_not_drop_remainder():
    dataset = Dataset.range(10).batch(4, drop_remainder=False).unbatch()
    with pytest.raises(errors.FailedPreconditionError):
        at(dataset, 0)


@pytest.mark.parametrize("index", [-1, 100])
def test_unbatch_random_access_invalid_index(index):
    dataset = Dataset.range(10).batch(4, drop_remainder=True).unbatch()
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index)


# --- ragged_batch_test.py ---------------------------------------------------------------------


def _scalar_ds(nrows):
    return Dataset.from_tensor_slices(np.arange(nrows))


def _vector_ds(nrows):
    return _scalar_ds(nrows).map(lambda x: np.full([x], x))


def _matrix_ds1(nrows):
    return _scalar_ds(nrows).map(lambda x: np.full([x, 2], x))


def _matrix_ds2(nrows):
    return _scalar_ds(nrows).map(lambda x: np.full([2, x], x))


def _matrix_ds_fully_defined(nrows):
    return _scalar_ds(nrows).map(lambda x: np.full([2, 3], x))


def _5dtensor_ds(nrows):
    return _scalar_ds(nrows).map(lambda x: np.full([2, x, 3, 2 * x, 4], x))


def _ragged_ds(nrows):
    rows = [[[i] * (i % 3) for i in range(j)] * (j % 3) for j in range(nrows)]
    inner = [r for row in rows for r in row]
    values = RaggedTensor.from_row_lengths(
        np.array([v for r in inner for v in r], np.int64), [len(r) for r in inner]
    )
    return Dataset.from_tensor_slices(RaggedTensor.from_row_lengths(values, [len(r) for r in rows]))


def _dict_ds(nrows):
    def transform(x):
        return {
            "shape=[]": np.asarray(x),
            "shape=[x]": np.arange(x),
            "shape=[x, 2]": np.full([x, 2], x),
            "shape=[2, x]": np.full([2, x], x),
            "shape=[2, x, 3, 2x, 4]": np.full([2, x, 3, 2 * x, 4], x),
        }

    return _scalar_ds(nrows).map(transform)


def _tuple_ds(nrows):
    return _scalar_ds(nrows).map(lambda x: (np.asarray(x), np.arange(x), np.full([x, 2], x)))


def _to_list(value):
    if isinstance(value, dict):
        return {k: _to_list(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_to_list(v) for v in value)
    return value.to_list() if isinstance(value, RaggedTensor) else np.asarray(value).tolist()


MAKERS = [
    _scalar_ds,
    _vector_ds,
    _matrix_ds1,
    _matrix_ds2,
    _ragged_ds,
    _5dtensor_ds,
    _dict_ds,
    _tuple_ds,
    _matrix_ds_fully_defined,
]


@pytest.mark.parametrize("drop_remainder", [True, False])
@pytest.mark.parametrize("nrows", [0, 20, 23])
@pytest.mark.parametrize("make_dataset", MAKERS, ids=[m.__name__.strip("_") for m in MAKERS])
def test_ragged_batch_basic(make_dataset, nrows, drop_remainder):
    batch_size = 4
    dataset = make_dataset(nrows)
    rows = [_to_list(r) for r in dataset]
    assert len(rows) == nrows
    batches = [_to_list(b) for b in dataset.ragged_batch(batch_size, drop_remainder)]
    expected = []
    for start in range(0, nrows, batch_size):
        if start + batch_size > nrows and drop_remainder:
            break
        chunk = rows[start : start + batch_size]
        if isinstance(chunk[0], dict):
            expected.append({k: [r[k] for r in chunk] for k in chunk[0]})
        elif isinstance(chunk[0], tuple):
            expected.append(tuple([r[i] for r in chunk] for i in range(len(chunk[0]))))
        else:
            expected.append(chunk)
    assert batches == expected


def test_ragged_batch_with_structured_elements():
    nrows, batch_size = 20, 4

    def make_structure(x):
        return {
            "dense": np.full([x], x),
            "ragged": RaggedTensor(np.array([x, x, x]), [0, 1, 3]),
            "sparse": SparseTensor([[x]], [x], [100]),
        }

    dataset = Dataset.from_tensor_slices(np.arange(nrows)).map(make_structure)
    got = list(dataset.ragged_batch(batch_size))
    for i, result in zip(range(0, nrows, batch_size), got):
        rows = range(i, i + batch_size)
        assert result["dense"].to_list() == [[r] * r for r in rows]
        assert result["ragged"].to_list() == [[[r], [r, r]] for r in rows]
        assert result["sparse"].indices.tolist() == [list(p) for p in enumerate(rows)]
        assert result["sparse"].values.tolist() == list(rows)
        assert result["sparse"].dense_shape.tolist() == [4, 100]


# --- map_test.py ------------------------------------------------------------------------------


class Foo:
    pass


def test_map_return_value_error():
    dataset = Dataset.from_tensors([1.0, 2.0, 3.0]).map(lambda x: Foo)
    with pytest.raises(TypeError, match=r"Unsupported return value from function passed to "):
        next(iter(dataset))
