"""The tf.data APIs of issue 51: take_while, unique, ignore_errors, reduce, get_single_element,
counter, random, choose_from_datasets and sample_from_datasets.

Two kinds of test:
- golden: every case of tests/testdata/make_tf_data_apis.py, run by TensorFlow 2.21 into
  tf_data_apis/golden.json, run here with swigflow's Dataset: the same elements, value or
  error (type, and TensorFlow's message, to the adaptations in ADAPTED);
- translated from take_while_test.py, unique_test.py, ignore_errors_test.py,
  counter_test.py, random_test.py, sample_from_datasets_test.py and
  choose_from_datasets_test.py: what depends on random values (distributions by chi-squared,
  seeds, rerandomizing) and the checkpoint tests as iterator states.
Adaptations: errors tf.data raises when the dataset is made from its static element spec
(unique of a float, a take_while predicate that is not a boolean scalar, an int32 choice)
are raised here when the offending element is reached (swigflow datasets carry no element
specs); sample_from_datasets draws from its own stream, not tf.data's Philox sequence.
"""

import json
import logging
import os

import generators
import numpy as np
import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow import errors, io
from swigflow.data import INFINITE, UNKNOWN, Dataset, Options, TFRecordDataset
from swigflow.tensors import RaggedTensor, SparseTensor

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "testdata")
with open(os.path.join(TESTDATA, "tf_data_apis", "golden.json")) as f:
    GOLDEN = json.load(f)


def _generator():
    """make_tf_data_apis.py (it imports TensorFlow only when run): its run_case and plain."""
    return generators.load("make_tf_data_apis")


GENERATOR = _generator()

# Where only the wording after a point differs: TF names a static spec, swigflow the value.
ADAPTED = {
    "take_while_not_bool": "but its return type is",
    "scan_not_a_pair": "but its return type is",
    "from_generator_list_of_types": "[",
    "choose_int32": "but are",
}


def reciprocal(x):
    """1 / x, failing for 0 as TF's check_numerics does."""
    if x == 0:
        raise errors.InvalidArgumentError("division by zero")
    return np.float32(1) / x


def test_golden_cases_are_all_run():
    assert set(GOLDEN["cases"]) == set(GENERATOR.CASES)
    assert GOLDEN["tensorflow"].startswith("2.21")


@pytest.mark.parametrize("name", sorted(GOLDEN["cases"]))
def test_golden(name):
    expected = GOLDEN["cases"][name]
    assert expected["source"] == GENERATOR.CASES[name]
    got = GENERATOR.run_case(
        expected["source"], Dataset, np, reciprocal, lambda r: isinstance(r, Dataset)
    )
    if "error" in expected:
        assert got.get("error") == expected["error"], got
        message = expected["message"]
        if name in ADAPTED:
            message = message[: message.index(ADAPTED[name])]
        assert message in got["message"], (got["message"], message)
    elif name in GOLDEN["length_only"]:
        assert len(got["elements"]) == len(expected["elements"])
    else:
        assert got == {k: v for k, v in expected.items() if k != "source"}


# --- take_while, unique, ignore_errors --------------------------------------------------------


@pytest.mark.parametrize("num_elements,upper_bound", [(10, 10), (10, 23), (23, 10), (23, 23)])
def test_take_while_checkpoint(num_elements, upper_bound):
    verify_checkpoints(
        lambda: Dataset.range(num_elements).take_while(lambda x: x < upper_bound),
        min(num_elements, upper_bound),
    )


def test_take_while_predicate_error_is_for_its_element():
    def below_five(x):
        if x == 1:
            raise ZeroDivisionError("for 1")
        return x < 5

    ds = Dataset.range(4).take_while(below_five)
    it = iter(ds)
    assert next(it) == 0
    with pytest.raises(errors.InvalidArgumentError, match="TakeWhileDataset") as raised:
        next(it)
    assert isinstance(raised.value.__cause__, ZeroDivisionError)
    assert [int(x) for x in it] == [2, 3]


def test_filter_predicate_error_names_the_transformation():
    # filter_test.py's user function errors: tf.data wraps them, naming the transformation.
    def bad(x):
        return 1 // (int(x) - 2) > -5

    it = iter(Dataset.range(4).filter(bad))
    assert [int(next(it)) for _ in range(2)] == [0, 1]
    with pytest.raises(errors.InvalidArgumentError) as raised:
        next(it)
    message = str(raised.value)
    assert "Error in user-defined function passed to FilterDataset transformation" in message
    assert "(in test_filter_predicate_error_names_the_transformation.<locals>.bad)" in message
    assert "with iterator: Iterator::Root::TensorSlices::Filter: ZeroDivisionError" in message
    assert isinstance(raised.value.__cause__, ZeroDivisionError)
    assert [int(x) for x in it] == [3]

    def gone(x):
        raise errors.NotFoundError("gone")

    with pytest.raises(errors.NotFoundError, match=r"FilterDataset.*gone"):
        failing = Dataset.range(3).filter(gone)
        next(iter(failing))


def test_unique_checkpoint():
    verify_checkpoints(
        lambda: Dataset.range(200).map(lambda x: x % 100).unique(), 100, stops=[0, 1, 50, 99, 100]
    )


def test_unique_keeps_dtype_apart_from_shape():
    ds = Dataset.from_generator(lambda: [np.array([1]), np.array([1, 1]), np.array([1])])
    assert [as_py(e) for e in ds.unique()] == [[1], [1, 1]]


def test_ignore_errors_parallel_map():
    ds = (
        Dataset.from_tensor_slices(np.array([1.0, 2.0, 3.0, 0.0, 5.0], np.float32))
        .map(reciprocal, num_parallel_calls=2)
        .prefetch(2)
        .ignore_errors()
    )
    assert [float(x) for x in ds] == pytest.approx([1.0, 0.5, 1 / 3, 0.2])


def test_ignore_errors_log_warning(caplog):
    ds = Dataset.from_tensor_slices(np.array([1.0, 0.0], np.float32)).map(reciprocal)
    with caplog.at_level(logging.WARNING, logger="swigflow.data"):
        assert [float(x) for x in ds.ignore_errors(log_warning=True)] == [1.0]
    assert "division by zero" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="swigflow.data"):
        assert [float(x) for x in ds.ignore_errors()] == [1.0]
    assert "division by zero" not in caplog.text


def test_ignore_errors_read_file(tmp_path):
    names = [str(tmp_path / f"file_{i}.txt") for i in range(5)]
    for name in names:
        with open(name, "w") as f:
            f.write(name)

    def read_file(name):
        with open(name, "rb") as f:
            return f.read()

    ds = Dataset.from_tensor_slices(names).map(read_file, num_parallel_calls=2)
    ds = ds.prefetch(2).ignore_errors()
    assert list(ds) == [n.encode() for n in names]
    os.remove(names[0])
    assert list(ds) == [n.encode() for n in names[1:]]


def test_ignore_errors_tfrecord_damaged_tails(tmp_path):
    names = []
    for i in range(5):
        name = str(tmp_path / f"tf_record.{i}.txt")
        with io.TFRecordWriter(name) as writer:
            for _ in range(10):
                writer.write(b"record")
        with open(name, "a") as f:
            f.write("corrupted data")
        names.append(name)
    with pytest.raises(errors.DataLossError):
        list(TFRecordDataset(names))
    assert list(TFRecordDataset(names).ignore_errors()) == [b"record"] * 50
    mapped = TFRecordDataset(names).map(lambda r: r + b"!").ignore_errors()
    assert list(mapped) == [b"record!"] * 10  # a Python step after the source: the source ends


def test_ignore_errors_checkpoint():
    def make():
        ds = Dataset.from_tensor_slices(np.array([1.0, 2.0, 3.0, 0.0, 5.0], np.float32))
        return ds.map(reciprocal).ignore_errors()

    verify_checkpoints(make, 4)


# --- reduce, get_single_element -----------------------------------------------------------------


def test_reduce_dict_state_and_failed_element():
    ds = Dataset.range(1, 5)
    got = ds.reduce({"sum": np.int64(0), "product": np.int64(1)},
                    lambda s, x: {"sum": s["sum"] + x, "product": s["product"] * x})  # fmt: skip
    assert as_py(got) == {"sum": 10, "product": 24}
    with pytest.raises(errors.InvalidArgumentError, match="division by zero"):
        Dataset.from_tensor_slices([1.0, 0.0]).map(reciprocal).reduce(0.0, lambda s, x: s + x)


def test_get_single_element_structure():
    assert as_py(Dataset.from_tensors({"a": [1, 2], "b": b"x"}).get_single_element()) == {
        "a": [1, 2],
        "b": b"x",
    }


# --- counter, random --------------------------------------------------------------------------


def test_counter_dtypes_and_checkpoint():
    assert [float(x) for x in Dataset.counter(0.5, 0.25, np.float32).take(3)] == [0.5, 0.75, 1.0]
    assert Dataset.counter(dtype=np.int32).take(1).get_single_element().dtype == np.int32
    verify_checkpoints(lambda: Dataset.counter(7, 3).take(20), 20)


def test_random_is_seeded_and_in_range():
    a = [int(x) for x in Dataset.random(seed=42).take(1000)]
    assert a == [int(x) for x in Dataset.random(seed=42).take(1000)]
    assert a != [int(x) for x in Dataset.random(seed=43).take(1000)]
    assert all(0 <= x < 2**32 for x in a) and len(set(a)) == 1000
    assert np.mean(a) / 2**32 == pytest.approx(0.5, abs=0.03)


@pytest.mark.parametrize("rerandomize", [None, False, True])
def test_random_rerandomize(rerandomize):
    ds = Dataset.random(seed=42, rerandomize_each_iteration=rerandomize).take(5)
    first, second = ([int(x) for x in ds] for _ in range(2))
    epochs = [int(x) for x in ds.repeat(2)]
    assert (first != second) == bool(rerandomize)
    assert (epochs[:5] != epochs[5:]) == bool(rerandomize)


def test_random_unseeded_is_fixed_per_dataset():
    ds = Dataset.random().take(5)
    assert list(ds) == list(ds)
    assert Dataset.random().cardinality() == INFINITE


def test_random_checkpoint():
    verify_checkpoints(lambda: Dataset.random(seed=5).take(10), 10)
    verify_checkpoints(
        lambda: Dataset.random(seed=5, rerandomize_each_iteration=True).take(4).repeat(3), 12
    )


# --- choose_from_datasets, sample_from_datasets ----------------------------------------------


def test_choose_from_datasets_words():
    words = [b"foo", b"bar", b"baz"]
    datasets = [Dataset.from_tensors(w).repeat() for w in words]
    ds = Dataset.choose_from_datasets(datasets, Dataset.range(3).repeat(4))
    assert list(ds) == words * 4
    verify_checkpoints(
        lambda: Dataset.choose_from_datasets(datasets, Dataset.range(3).repeat(4)), 12
    )


def test_choose_out_of_range_raises_for_that_element():
    choices = Dataset.from_tensor_slices(np.array([0, 5, 0], np.int64))
    it = iter(Dataset.choose_from_datasets([Dataset.range(3)], choices))
    assert next(it) == 0
    with pytest.raises(errors.InvalidArgumentError, match="Selector index out of range: 5 >= 1"):
        next(it)
    assert next(it) == 1


def _chi2(expected, actual):
    expected, actual = np.asarray(expected), np.asarray(actual)
    return np.sum((actual - expected) ** 2 / expected)


def _weights_of(kind, probs):
    probs = np.asarray(probs)
    return {"list": list(probs), "array": probs, "dataset": Dataset.from_tensors(probs).repeat()}[
        kind
    ]


@pytest.mark.parametrize("kind", ["list", "array", "dataset"])
def test_sample_from_datasets_distribution(kind):
    rng = np.random.default_rng(1619)
    rand_probs = rng.random(5)
    for probs in [[0.85, 0.05, 0.1], rand_probs / rand_probs.sum(), [1.0]]:
        datasets = [Dataset.from_tensors(np.int64(i)).repeat() for i in range(len(probs))]
        ds = Dataset.sample_from_datasets(datasets, _weights_of(kind, probs), seed=7).take(5000)
        freqs = np.bincount([int(x) for x in ds], minlength=len(probs)) / 5000
        assert _chi2(probs, freqs) < 1e-2


@pytest.mark.parametrize("kind", ["list", "array", "dataset"])
@pytest.mark.parametrize("stop", [True, False])
def test_sample_from_datasets_empty_input(kind, stop):
    datasets = [
        Dataset.from_tensors(np.int64(-1)),
        Dataset.from_tensors(np.int64(1)).repeat(),
        Dataset.range(10).repeat(),
    ]
    ds = Dataset.sample_from_datasets(datasets, _weights_of(kind, [0.5, 0.1, 0.4]),
                                      stop_on_empty_dataset=stop)  # fmt: skip
    samples = [int(x) for x in (ds if stop else ds.take(100))]
    assert samples.count(-1) == 1
    if not stop:
        assert len(samples) == 100


@pytest.mark.parametrize("rerandomize", [None, False, True])
def test_sample_from_datasets_rerandomize(rerandomize):
    ds = Dataset.sample_from_datasets([Dataset.range(0, 10), Dataset.range(100, 110)], seed=42,
                                      weights=[0.5, 0.5], stop_on_empty_dataset=True,
                                      rerandomize_each_iteration=rerandomize)  # fmt: skip
    first, second = ([int(x) for x in ds] for _ in range(2))
    assert (first != second) == bool(rerandomize)
    epochs = [int(x) for x in ds.repeat(2)]
    half = len(epochs) // 2
    if rerandomize:
        assert epochs[:half] != epochs[half:]
    else:
        assert epochs[:half] == epochs[half:] == first


def test_sample_from_datasets_nested_windows():
    ds = Dataset.sample_from_datasets(
        [Dataset.range(10).window(2), Dataset.range(10, 20).window(2)], weights=[0.3, 0.7]
    )
    assert len(list(ds.flat_map(lambda x: x))) == 20


def test_sample_from_datasets_checkpoint():
    def make():
        datasets = [Dataset.from_tensors(np.int64(i)).repeat() for i in range(2)]
        return Dataset.sample_from_datasets(datasets, [0.5, 0.5], seed=1813).take(100)

    verify_checkpoints(make, 100, stops=[0, 1, 37, 99, 100])


def test_sample_from_datasets_bad_weight_elements():
    ds = Dataset.sample_from_datasets(
        [Dataset.range(3), Dataset.range(3)], weights=Dataset.from_tensors([-1.0, 1.0])
    )
    with pytest.raises(errors.InvalidArgumentError, match="non-negative"):
        list(ds)


def test_cardinalities():
    assert Dataset.range(3).unique().cardinality() == UNKNOWN
    assert Dataset.choose_from_datasets([Dataset.range(3)], Dataset.range(1)).cardinality() == (
        UNKNOWN
    )


def test_sparse_and_ragged_values():
    # from_tensor_slices_test.py's sparse and ragged cases: rows, as tf.data slices them;
    # from_tensors keeps them whole.
    sparse = SparseTensor([[0, 0], [1, 2]], np.array([1, 2], np.int64), [2, 3])
    ragged = RaggedTensor.from_row_lengths(np.arange(3), [1, 2])
    rows = list(Dataset.from_tensor_slices({"x": sparse, "y": ragged}))
    assert [r["x"].indices.tolist() for r in rows] == [[[0]], [[2]]]
    assert [r["x"].values.tolist() for r in rows] == [[1], [2]]
    assert [r["x"].dense_shape.tolist() for r in rows] == [[3], [3]]
    assert [r["y"].tolist() for r in rows] == [[0], [1, 2]]
    assert Dataset.from_tensors(sparse).get_single_element() is sparse
    (got,) = Dataset.from_tensors((ragged,)).get_single_element()
    assert got is ragged


def test_options_merge_lists_and_the_returned_options_are_read_only():
    # options_test.py, as TF 2.21 gives them: framework_type lists gather, options() may not be
    # changed (ValueError), and experimental_threading is threading's older name.
    first, second = Options(), Options()
    first.framework_type, second.framework_type = ["a"], ["b"]
    ds = Dataset.range(3).with_options(first).with_options(second)
    assert ds.options().framework_type == ["a", "b"]
    with pytest.raises(ValueError, match=r"has no effect\. Use `tf\.data\.Dataset\.with_options"):
        ds.options().deterministic = False
    with pytest.raises(ValueError, match="has no effect"):
        ds.options().threading.private_threadpool_size = 2
    assert first.framework_type == ["a"]  # the caller's own options stay theirs
    options = Options()
    options.experimental_threading.max_intra_op_parallelism = 1
    assert options.threading.max_intra_op_parallelism == 1
