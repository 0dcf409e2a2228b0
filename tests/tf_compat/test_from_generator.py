"""tensorflow/python/data/kernel_tests/from_generator_test.py: FromGeneratorTest.

Not translated: _testFromGeneratorsRunningInParallel (disabled upstream),
testGeneratorDatasetFinalizeFunctionCalled (TensorFlow's internal _GeneratorDataset) and
testSharedName's shared iterator (graph resources; its element is checked). Adaptations: a
structure mismatch is checked by its class and TensorFlow 2.21's wording ("did not match the
expected structure"), not the older TypeSpec text the upstream regexes quote; output_spec is
TensorFlow 2.21's output_signature.
"""

import threading

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.data import Dataset
from swigflow.tensors import RaggedTensor, SparseTensor


def _produces(generator, num_repeats):
    dataset = Dataset.from_generator(generator, output_types=np.int64).repeat(num_repeats)
    dataset = dataset.prefetch(5)
    expected = [np.asarray(e).tolist() for e in generator()] * num_repeats
    for _ in range(2):  # num_test_iterations=2
        assert [e.tolist() for e in dataset] == expected


def _counted():
    for i in range(1, 100):
        yield [i] * i


@pytest.mark.parametrize("num_repeats", [1, 5])
@pytest.mark.parametrize(
    "generator",
    [
        _counted,  # testFromGeneratorUsingFn
        lambda: [[i] * i for i in range(1, 100)],  # testFromGeneratorUsingList
        lambda: np.arange(100, dtype=np.int64),  # testFromGeneratorUsingNdarray
        lambda: ([i] * i for i in range(1, 100)),  # ...UsingGeneratorExpression
    ],
    ids=["fn", "list", "ndarray", "generator_expression"],
)
def test_from_generator(generator, num_repeats):
    """FromGeneratorTest.testFromGeneratorUsing{Fn,List,Ndarray,GeneratorExpression}."""
    _produces(generator, num_repeats)


def test_from_multiple_concurrent_generators():
    """FromGeneratorTest.testFromMultipleConcurrentGenerators."""
    num_inner_repeats, num_outer_repeats = 5, 100

    def generator():
        for i in range(1, 10):
            yield ([i] * i, [i, i**2, i**3])

    input_list = list(generator())

    def interleave_fn(_):
        return (
            Dataset.from_generator(
                generator, output_types=(np.int64, np.int64), output_shapes=([None], [3])
            )
            .repeat(num_inner_repeats)
            .prefetch(5)
        )

    dataset = Dataset.range(num_outer_repeats).interleave(
        interleave_fn, cycle_length=10, block_length=len(input_list)
    )
    it = iter(dataset)
    for _ in range(num_inner_repeats * num_outer_repeats):
        for elem in input_list:
            val0, val1 = next(it)
            np.testing.assert_array_equal(val0, elem[0])
            np.testing.assert_array_equal(val1, elem[1])
    with pytest.raises(StopIteration):
        next(it)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_from_generator_implicit_conversion(dtype):
    """FromGeneratorTest.testFromGeneratorImplicitConversion."""

    def generator():
        yield [1]
        yield [2]
        yield [3]

    values = list(Dataset.from_generator(generator, output_types=dtype, output_shapes=[1]))
    assert [v.dtype for v in values] == [np.dtype(dtype)] * 3
    assert [v.tolist() for v in values] == [[1], [2], [3]]


def test_from_generator_string():
    """FromGeneratorTest.testFromGeneratorString."""

    def generator():
        yield "foo"
        yield b"bar"
        yield "baz"

    dataset = Dataset.from_generator(generator, output_types="string", output_shapes=[])
    assert list(dataset) == [b"foo", b"bar", b"baz"]


def _bad_third(third, shape):
    """The elements of a generator whose third element is bad: the error is for that element
    alone, and the next one follows."""

    def generator():
        yield np.array([1, 2, 3], dtype=np.int64)
        yield np.array([4, 5, 6], dtype=np.int64)
        yield third
        yield np.array([7, 8, 9], dtype=np.int64)

    it = iter(Dataset.from_generator(generator, output_types=np.int64, output_shapes=shape))
    assert next(it).tolist() == [1, 2, 3]
    assert next(it).tolist() == [4, 5, 6]
    with pytest.raises(errors.InvalidArgumentError):
        next(it)
    assert next(it).tolist() == [7, 8, 9]
    with pytest.raises(StopIteration):
        next(it)


def test_from_generator_type_error():
    """FromGeneratorTest.testFromGeneratorTypeError."""
    _bad_third("ERROR", [3])


def test_from_generator_shape_error():
    """FromGeneratorTest.testFromGeneratorShapeError."""
    _bad_third(np.array([7, 8, 9, 10], dtype=np.int64), [3])


def test_from_generator_structure_error():
    """FromGeneratorTest.testFromGeneratorStructureError."""

    def generator():
        yield 1, 2
        yield 3, 4
        yield 5
        yield 6, 7, 8
        yield 9, 10

    it = iter(Dataset.from_generator(generator, output_types=(np.int64, np.int64)))
    assert tuple(int(v) for v in next(it)) == (1, 2)
    assert tuple(int(v) for v in next(it)) == (3, 4)
    for _ in range(2):
        with pytest.raises(errors.InvalidArgumentError, match="did not match the expected"):
            next(it)
    assert tuple(int(v) for v in next(it)) == (9, 10)
    with pytest.raises(StopIteration):
        next(it)


def test_from_generator_heterogeneous():
    """FromGeneratorTest.testFromGeneratorHeterogeneous."""

    def generator():
        yield 1
        yield [2, 3]

    dataset = Dataset.from_generator(generator, output_types=np.int64)
    assert [np.asarray(e).tolist() for e in dataset] == [1, [2, 3]]


def test_from_generator_stop_short():
    """FromGeneratorTest.testFromGeneratorStopShort."""

    def generator():
        yield 0
        yield 1
        yield 2

    it = iter(Dataset.from_generator(generator, output_types=np.int64))
    assert int(next(it)) == 0
    assert int(next(it)) == 1


def test_from_generator_destructor_called():
    """FromGeneratorTest.testFromGeneratorDestructorCalled: the generator object is released
    when its iterator ends."""
    event = threading.Event()

    class GeneratorWrapper:
        def __iter__(self):
            return self

        def __next__(self):
            return 42

        def __del__(self):
            event.set()

    it = iter(Dataset.from_generator(GeneratorWrapper, output_types=np.int64).take(2))
    assert [int(next(it)), int(next(it))] == [42, 42]
    with pytest.raises(StopIteration):
        next(it)
    assert event.is_set()


def test_from_generator_with_args():
    """FromGeneratorTest.testFromGeneratorWithArgs."""

    def flat_map_fn(elem):
        def generator_with_arg(n):
            for _ in range(n):
                yield np.array(n, dtype=np.int64)

        return Dataset.from_generator(
            generator_with_arg, output_types=np.int64, output_shapes=(), args=(elem,)
        )

    dataset = Dataset.range(5).flat_map(flat_map_fn)
    assert [int(e) for e in dataset] == [1, 2, 2, 3, 3, 3, 4, 4, 4, 4]


def test_from_generator_with_two_args():
    """FromGeneratorTest.testFromGeneratorWithTwoArgs."""

    def flat_map_fn(elem, message):
        def generator_with_arg(n, msg):
            for i in range(n):
                yield i, msg

        return Dataset.from_generator(
            generator_with_arg,
            output_types=(np.int64, "string"),
            output_shapes=((), ()),
            args=(elem, message),
        )

    dataset = Dataset.zip((Dataset.range(5), Dataset.from_tensors("Hi!").repeat(None))).flat_map(
        flat_map_fn
    )
    counts = [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    assert [(int(i), msg) for i, msg in dataset] == [(i, b"Hi!") for i in counts]


def test_shared_name():
    """FromGeneratorTest.testSharedName (its first element)."""

    def generator():
        for _ in range(10):
            yield [20]

    dataset = Dataset.from_generator(generator, output_types=np.int64)
    assert next(iter(dataset)).tolist() == [20]


def test_from_generator_ragged_tensor():
    """FromGeneratorTest.testFromGeneratorRaggedTensor."""

    def generator():
        yield RaggedTensor.from_row_lengths(np.array([1, 2, 3], np.int64), [2, 1])

    dataset = Dataset.from_generator(
        generator, output_signature=sf.RaggedTensorSpec(shape=(2, None), dtype=np.int64)
    )
    ret = next(iter(dataset))
    assert isinstance(ret, RaggedTensor)
    assert ret.values.tolist() == [1, 2, 3]


def test_from_generator_sparse_tensor():
    """FromGeneratorTest.testFromGeneratorSparseTensor."""

    def generator():
        yield SparseTensor([[0, 0], [1, 2]], np.array([1, 2], np.int64), [3, 4])

    dataset = Dataset.from_generator(
        generator, output_signature=sf.SparseTensorSpec([3, 4], np.int64)
    )
    ret = next(iter(dataset))
    assert isinstance(ret, SparseTensor)
    assert ret.to_dense().tolist() == [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
