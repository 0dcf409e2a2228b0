"""element_spec and tf.data's structure rules against TensorFlow 2.21
(tests/testdata/make_tf_element_spec.py): every recorded pipeline is built with swigflow and
gives TF's spec, or raises TF's error when it is built; elements of ragged_batch, padded_batch
and from_generator(output_signature) are TF's. Then: every element a pipeline yields fits its
element_spec (sources, native TFRecord pipelines, parse, decode_images), and a Python
function's outputs have an UnknownSpec.
"""

import builtins
import collections
import json
import os
import re

import numpy as np
import pytest

import swigflow
from swigflow import errors, specs

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
with open(os.path.join(HERE, "tf_element_spec", "cases.json")) as f:
    GOLDEN = json.load(f)

Point = collections.namedtuple("Point", "x y")
NAMES = {"tf": swigflow, "np": np, "Point": Point}


def build(source):
    return eval(source, dict(NAMES))


def neutral(spec):
    """A spec in the generator's neutral form."""
    if isinstance(spec, dict):
        return {"dict": {k: neutral(v) for k, v in spec.items()}}
    if isinstance(spec, tuple):
        return {"tuple": [neutral(v) for v in spec]}
    shape = getattr(spec, "shape", None)
    dims = None if shape is None or shape.rank is None else shape.as_list()
    if isinstance(spec, specs.RaggedTensorSpec):
        dtype, splits = specs.dtype_name(spec.dtype), specs.dtype_name(spec.row_splits_dtype)
        return {"ragged": [dims, dtype, spec.ragged_rank, splits]}
    if isinstance(spec, specs.SparseTensorSpec):
        return {"sparse": [dims, specs.dtype_name(spec.dtype)]}
    if isinstance(spec, specs.TensorSpec):
        return {"tensor": [dims, specs.dtype_name(spec.dtype)]}
    if isinstance(spec, specs.DatasetSpec):
        return {"dataset": neutral(spec.element_spec)}
    if isinstance(spec, specs.NoneTensorSpec):
        return {"none": []}
    raise AssertionError(f"no neutral form for {spec!r}")


def error_class(name):
    return getattr(errors, name, None) or getattr(builtins, name)


def tf_words(message):
    """TF's message in swigflow's dtype spelling (tf.int64 is int64 here)."""
    return re.sub(r"tf\.(?=(u?int|float|bool|string|complex|bfloat|half)\w*)", "", message)


# What swigflow does differently, and why (docs/differences.md).
KNOWN_DIFFERENCES = {}


@pytest.mark.parametrize("name", sorted(GOLDEN["specs"]))
def test_spec_or_error_as_tensorflow(name):
    expected = GOLDEN["specs"][name]
    source = GOLDEN["cases"]["specs"][name]
    if name in KNOWN_DIFFERENCES:
        assert type(build(source).element_spec).__name__ == KNOWN_DIFFERENCES[name]
        return
    if "error" in expected:
        with pytest.raises(error_class(expected["error"])) as raised:
            build(source)
        assert str(raised.value) == tf_words(expected["message"])
        return
    assert neutral(build(source).element_spec) == expected["spec"]


def listed(value):
    if isinstance(value, dict):
        return {k: listed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [listed(v) for v in value]
    if isinstance(value, swigflow.RaggedTensor):
        return {"ragged": listed(value.to_list()), "splits": value.row_splits.dtype.name}
    if isinstance(value, (np.ndarray, np.generic)):
        return listed(value.tolist())
    if isinstance(value, list):
        return [listed(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    return value


@pytest.mark.parametrize("name", sorted(GOLDEN["values"]))
def test_elements_as_tensorflow(name):
    expected = GOLDEN["values"][name]
    found = []
    it = iter(build(GOLDEN["cases"]["values"][name]))
    if "error" in expected:
        with pytest.raises(error_class(expected["error"])) as raised:
            for element in it:
                found.append(listed(element))
        assert str(raised.value) == tf_words(expected["message"])
    else:
        found = [listed(element) for element in it]
    assert found == expected["elements"]


def fits(spec, value):
    """Whether `value` is an instance of `spec` (every known dimension and dtype agree)."""
    from swigflow.data.structure import common_spec, spec_of

    found = spec_of(value)
    merged = common_spec(spec, found)
    return merged is not None and merged == spec


SOURCES = [
    "tf.data.Dataset.from_tensor_slices({'a': np.zeros((4, 3), np.float32), 'b': [b'x'] * 4})",
    "tf.data.Dataset.from_tensors((42, None, 'x', [1.5, 2.5]))",
    "tf.data.Dataset.range(10).batch(3).unbatch().enumerate(5)",
    "tf.data.Dataset.counter(2, dtype='int16').take(3)",
    "tf.data.Dataset.random(seed=4).take(3).batch(2, drop_remainder=True)",
    "tf.data.Dataset.zip((tf.data.Dataset.range(3), Point(tf.data.Dataset.range(4), "
    "tf.data.Dataset.from_tensors(np.zeros(2)).repeat())))",
    "tf.data.Dataset.from_tensors(np.zeros((3, 5))).repeat(4).padded_batch(3, [4, -1])",
    "tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(4, 3)).rebatch(3)",
]


@pytest.mark.parametrize("source", SOURCES)
def test_every_element_fits_its_spec(source):
    dataset = build(source)
    for element in dataset:
        assert fits(dataset.element_spec, element), (dataset.element_spec, element)


def write_records(path, n=7):
    from swigflow import train

    with swigflow.io.TFRecordWriter(str(path)) as w:
        for i in range(n):
            example = train.Example()
            example.features.feature["label"].int64_list.value.append(i)
            example.features.feature["ids"].int64_list.value.extend(range(i))
            example.features.feature["tokens"].int64_list.value.extend(range(i % 3))
            example.features.feature["xy"].float_list.value.extend([i, -i])
            w.write(example.SerializeToString())
    return str(path)


FEATURES = {
    "label": swigflow.io.FixedLenFeature([], "int64"),
    "xy": swigflow.io.FixedLenFeature([2], "float32"),
    "ids": swigflow.io.VarLenFeature("int64"),
    "ragged": swigflow.io.RaggedFeature("int64", value_key="tokens"),
}


@pytest.mark.parametrize("drop", [False, True])
def test_native_pipelines_carry_their_specs(tmp_path, drop):
    path = write_records(tmp_path / "a.tfrecord")
    records = swigflow.data.TFRecordDataset(path)
    assert records.element_spec == specs.TensorSpec([], "string")
    batch = 3 if drop else None
    parsed = records.batch(3, drop_remainder=drop).parse(FEATURES)
    assert parsed.element_spec == {
        "label": specs.TensorSpec([batch], np.int64),
        "xy": specs.TensorSpec([batch, 2], np.float32),
        "ids": specs.SparseTensorSpec([batch, None], np.int64),
        "ragged": specs.RaggedTensorSpec([batch, None], np.int64, 1, np.int32),
    }
    for element in parsed:
        assert fits(parsed.element_spec, element)
    single = records.parse(FEATURES)
    assert single.element_spec == {
        "label": specs.TensorSpec([], np.int64),
        "xy": specs.TensorSpec([2], np.float32),
        "ids": specs.SparseTensorSpec([None], np.int64),
        "ragged": specs.TensorSpec([None], np.int64),
    }
    for element in single:
        assert fits(single.element_spec, element)
    python_path = records.take(5).parse(FEATURES)  # take() is not absorbed: parse in Python
    assert python_path.element_spec == single.element_spec
    for element in python_path:
        assert fits(python_path.element_spec, element)


def test_a_python_function_gives_an_unknown_spec():
    mapped = swigflow.data.Dataset.range(3).map(lambda x: x * 2)
    assert isinstance(mapped.element_spec, specs.UnknownSpec)
    assert "map(" in repr(mapped.element_spec)
    # Steps after it still carry what they know, and checks pass it by.
    assert isinstance(mapped.batch(2).element_spec, specs.UnknownSpec)
    both = mapped.concatenate(swigflow.data.Dataset.range(2))
    assert isinstance(both.element_spec, specs.UnknownSpec)
    assert [int(x) for x in both] == [0, 2, 4, 0, 1]
    pairs = swigflow.data.Dataset.zip((mapped, swigflow.data.Dataset.range(3)))
    assert isinstance(pairs.element_spec[0], specs.UnknownSpec)
    assert pairs.element_spec[1] == specs.TensorSpec([], np.int64)


def test_ragged_batch_after_a_python_function_makes_every_dimension_ragged():
    # With no spec to go by, every dimension of an array component is ragged (the values
    # decide nothing, so the result's kind never changes from one batch to the next).
    ds = swigflow.data.Dataset.range(1, 4).map(lambda n: np.zeros((int(n), 2)) + n)
    batches = list(ds.ragged_batch(2))
    assert isinstance(batches[0], swigflow.RaggedTensor)
    assert len(batches[0].nested_row_splits) == 2
    assert batches[0].to_list() == [[[1.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]]]
    assert batches[1].to_list() == [[[3.0, 3.0], [3.0, 3.0], [3.0, 3.0]]]


def test_ragged_batch_rejects_a_bad_row_splits_dtype():
    with pytest.raises(ValueError, match="row_splits_dtype"):
        swigflow.data.Dataset.range(3).ragged_batch(2, row_splits_dtype=np.float32)


def test_padded_batch_checks_unknown_specs_while_iterating():
    # A Python function's output is checked when the batch is made, in tf.data's words.
    ds = swigflow.data.Dataset.range(1, 3).map(lambda n: np.zeros(int(n)))
    with pytest.raises(ValueError, match=r"The padded shape \(1, 2\) is not compatible"):
        list(ds.padded_batch(2, padded_shapes=[1, 2]))


def test_spec_classes():
    spec = specs.TensorSpec([None, 3], "float32")
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=float32, name=None)"
    assert spec.shape.rank == 2 and spec.shape.as_list() == [None, 3]
    assert spec.shape == (None, 3) and not spec.shape.is_fully_defined()
    assert spec.is_compatible_with(specs.TensorSpec([5, 3], np.float32))
    assert not spec.is_compatible_with(specs.TensorSpec([5, 3], np.float64))
    assert str(specs.TensorShape([4])) == "(4,)" and str(specs.TensorShape(None)) == "<unknown>"
    assert specs.TensorShape([2, 3]).most_specific_compatible_shape([2, 4]) == (2, None)
    with pytest.raises(ValueError):
        specs.TensorShape(None).as_list()
    ragged = specs.RaggedTensorSpec([None, None], np.int64)
    assert repr(ragged) == "RaggedTensorSpec(TensorShape([None, None]), int64, 1, int64)"
    assert (
        repr(specs.SparseTensorSpec([3], "string")) == "SparseTensorSpec(TensorShape([3]), string)"
    )
    assert swigflow.TensorSpec is specs.TensorSpec
    with pytest.raises(ValueError, match="Dimension -1"):
        specs.TensorShape([-1])


def test_save_records_the_element_spec(tmp_path):
    dataset = swigflow.data.Dataset.from_tensor_slices(
        {"x": np.zeros((5, 3), np.float32), "s": [b"a"] * 5}
    ).batch(2)
    dataset.save(str(tmp_path / "saved"))
    loaded = swigflow.data.Dataset.load(str(tmp_path / "saved"))
    assert loaded.element_spec == dataset.element_spec
    narrower = {"x": specs.TensorSpec([2, 3], np.float32), "s": specs.TensorSpec([2], "string")}
    assert swigflow.data.Dataset.load(str(tmp_path / "saved"), narrower).element_spec == narrower
    with pytest.raises(TypeError, match="not compatible"):
        swigflow.data.Dataset.load(str(tmp_path / "saved"), specs.TensorSpec([None], np.int64))
    mapped = swigflow.data.Dataset.range(3).map(lambda x: x + 1)
    mapped.save(str(tmp_path / "mapped"))
    assert isinstance(swigflow.data.Dataset.load(str(tmp_path / "mapped")).element_spec,
                      specs.UnknownSpec)  # fmt: skip


@pytest.mark.parametrize(
    "spec",
    [
        specs.TensorSpec([None, 3], np.uint8),
        {
            "a": (
                specs.RaggedTensorSpec([None, None], np.int64, 1, np.int32),
                specs.NoneTensorSpec(),
            )
        },
        specs.SparseTensorSpec(None, "string"),
        specs.DatasetSpec(specs.TensorSpec([], np.int64)),
        specs.UnknownSpec("map(f)"),
    ],
)
def test_specs_round_trip_through_json(spec):
    assert specs.from_json(json.loads(json.dumps(specs.to_json(spec)))) == spec


def test_from_json_refuses_what_to_json_did_not_write():
    for value in ({"tensor": [[1], "nonsense"]}, {"x": 1}, [], {"tensor": 1, "sparse": 2}):
        with pytest.raises(ValueError, match="not a spec"):
            specs.from_json(value)


def test_a_map_function_returning_code_fails_its_element():
    dataset = swigflow.data.Dataset.range(3).map(lambda x: (x, print) if x == 1 else (x, x))
    it = iter(dataset)
    assert [int(v) for v in next(it)] == [0, 0]
    with pytest.raises(TypeError, match=r"Dataset.map\(\): <built-in function print>"):
        next(it)
    assert [int(v) for v in next(it)] == [2, 2]


def test_choose_and_unique_are_checked_from_specs():
    with pytest.raises(TypeError, match=r"must be scalar `tf\.int64` tensors but are TensorSpec"):
        swigflow.data.Dataset.choose_from_datasets(
            [swigflow.data.Dataset.range(3)], swigflow.data.Dataset.range(2).batch(1)
        )
    with pytest.raises(TypeError, match="does not support type <dtype: 'float64'>"):
        swigflow.data.Dataset.from_tensor_slices(np.zeros(3)).unique()
    with pytest.raises(errors.InvalidArgumentError, match="single component"):
        swigflow.data.Dataset.zip((swigflow.data.Dataset.range(2),) * 2).unique()
    # Unknown until the elements come: checked then.
    mapped = swigflow.data.Dataset.range(2).map(lambda x: np.float32(x)).unique()
    with pytest.raises(TypeError, match="float32"):
        next(iter(mapped))


def test_unbatch_of_known_batches_has_a_length_and_random_access():
    dataset = swigflow.data.Dataset.range(10).batch(4, drop_remainder=True).unbatch()
    assert dataset.cardinality() == 8
    assert [int(swigflow.data.experimental.at(dataset, i)) for i in range(8)] == list(range(8))
    unknown = swigflow.data.Dataset.range(10).batch(4).unbatch()
    assert unknown.cardinality() == swigflow.data.UNKNOWN


def test_experimental_helpers():
    from swigflow.data import experimental

    dataset = swigflow.data.Dataset.range(5).map(lambda x: np.arange(x))
    batched = dataset.apply(experimental.dense_to_ragged_batch(2, row_splits_dtype=np.int32))
    assert [b.to_list() for b in batched] == [[[], [0]], [[0, 1], [0, 1, 2]], [[0, 1, 2, 3]]]
    assert next(iter(batched)).row_splits.dtype == np.int32
    ranges = swigflow.data.Dataset.range(3)
    assert experimental.get_structure(ranges) == specs.TensorSpec([], np.int64)
    assert experimental.get_structure(iter(ranges)) == ranges.element_spec
    with pytest.raises(TypeError, match=r"must be a `tf\.data\.Dataset`"):
        experimental.get_structure(3)


def test_padded_shapes_of_another_structure_are_refused():
    dataset = swigflow.data.Dataset.from_tensors({"a": np.zeros(2), "b": np.zeros(3)})
    with pytest.raises(ValueError, match="do not have the structure"):
        dataset.padded_batch(2, padded_shapes={"a": [4]})
    pairs = swigflow.data.Dataset.from_tensors((np.zeros(2), np.zeros(3)))
    with pytest.raises(ValueError, match="do not have the structure"):
        pairs.padded_batch(2, padded_shapes=([4],))
    assert pairs.padded_batch(2, padded_shapes=([4], [None])).element_spec == (
        specs.TensorSpec([None, 4], np.float64),
        specs.TensorSpec([None, None], np.float64),
    )
