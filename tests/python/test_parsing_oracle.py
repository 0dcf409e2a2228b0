"""The C++ parse_example against the straightforward Python reference (parse_reference.py) on
random batches: the same results, or the same error, whatever the number of threads."""

import random

import numpy as np
import pytest
from parse_reference import reference_parse_example

from swigflow import errors, train
from swigflow.io import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    parse_example,
)

KINDS = ["int64", "float32", "string"]


def random_feature(rng, kind, count):
    if kind == "int64":
        return train.Feature(
            int64_list=train.Int64List(
                value=[rng.randint(-(1 << 63), (1 << 63) - 1) for _ in range(count)]
            )
        )
    if kind == "float32":
        return train.Feature(
            float_list=train.FloatList(value=[rng.uniform(-1e6, 1e6) for _ in range(count)])
        )
    return train.Feature(
        bytes_list=train.BytesList(value=[rng.randbytes(rng.randint(0, 12)) for _ in range(count)])
    )


def random_record(rng, keys):
    example = train.Example()
    for key, kind in keys.items():
        roll = rng.random()
        if roll < 0.15:
            continue  # missing
        if roll < 0.2:
            example.features.feature[key]  # present without a kind
            continue
        if roll < 0.23:
            kind = rng.choice(KINDS)  # sometimes the wrong kind
        example.features.feature[key].CopyFrom(
            random_feature(rng, kind, rng.choice([0, 1, 2, 2, 4, 6]))
        )
    data = example.SerializeToString()
    if rng.random() < 0.1:  # a later duplicate of one key wins
        key = rng.choice(list(keys))
        extra = train.Example()
        extra.features.feature[key].CopyFrom(random_feature(rng, keys[key], 2))
        data += extra.SerializeToString()
    return data


def random_spec(rng, kind):
    choice = rng.randrange(4)
    if choice == 0:
        shape = rng.choice([[], [2], [2, 1]])
        default = None
        if rng.random() < 0.5:
            size = int(np.prod(shape)) if shape else 1
            value = {"int64": 7, "float32": 0.5, "string": b"d"}[kind]
            # A scalar default only where the shape holds one value: TensorFlow reshapes defaults.
            scalar = size == 1 and rng.random() < 0.5
            default = value if scalar else np.reshape([value] * size, shape).tolist()
        return FixedLenFeature(shape, kind, default)
    if choice == 1:
        return VarLenFeature(kind)
    if choice == 2:
        return FixedLenSequenceFeature(rng.choice([[], [2]]), kind, allow_missing=True)
    return RaggedFeature(kind)


def outcome(fn, *args):
    try:
        return fn(*args), None
    except errors.OpError as e:
        return None, (type(e), e.message)


def assert_same(a, b):
    assert sorted(a) == sorted(b)
    for key in a:
        x, y = a[key], b[key]
        if hasattr(x, "indices"):
            np.testing.assert_array_equal(x.indices, y.indices)
            np.testing.assert_array_equal(x.dense_shape, y.dense_shape)
            x, y = x.values, y.values
        elif hasattr(x, "row_splits"):
            np.testing.assert_array_equal(x.row_splits, y.row_splits)
            x, y = x.values, y.values
        assert x.dtype == y.dtype and x.shape == y.shape
        if x.dtype == np.float32:
            assert x.tobytes() == y.tobytes()  # bit for bit
        else:
            assert x.tolist() == y.tolist()


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_equals_reference(seed, monkeypatch):
    rng = random.Random(seed)
    keys = {f"k{i}": rng.choice(KINDS) for i in range(rng.randint(1, 5))}
    # 2600 records take the path that makes bytes objects while a thread parses (>= 2048).
    records = [random_record(rng, keys) for _ in range(rng.choice([1, 5, 40, 700, 2600]))]
    spec = {key: random_spec(rng, kind) for key, kind in keys.items()}
    expected, expected_error = outcome(reference_parse_example, records, spec)
    for threads in ("1", "2"):
        monkeypatch.setenv("SWIGFLOW_NUM_THREADS", threads)
        got, error = outcome(parse_example, records, spec)
        assert error == expected_error
        if error is None:
            assert_same(got, expected)


def test_thread_split_keeps_first_error_in_record_order(monkeypatch):
    good = train.example_from_dict({"x": [1]}).SerializeToString()
    bad = train.example_from_dict({"x": [1.0]}).SerializeToString()
    records = [good] * 1500 + [bad] + [good] * 200 + [bad]
    monkeypatch.setenv("SWIGFLOW_NUM_THREADS", "2")
    with pytest.raises(errors.InvalidArgumentError, match="Index: 1500"):
        parse_example(records, {"x": FixedLenFeature([], "int64")})


@pytest.mark.parametrize("bad_at", [0, 600, 2999])
def test_streamed_strings_keep_first_error_in_record_order(bad_at, monkeypatch):
    good = train.example_from_dict({"s": b"abc", "x": [1]}).SerializeToString()
    bad = train.example_from_dict({"s": [b"a", b"b"], "x": [1]}).SerializeToString()
    records = [good] * 3000
    records[bad_at] = bad
    records.append(bad)
    monkeypatch.setenv("SWIGFLOW_NUM_THREADS", "2")
    spec = {"x": FixedLenFeature([], "int64"), "s": FixedLenFeature([], "string")}
    with pytest.raises(errors.InvalidArgumentError, match=f"Key: s, Index: {bad_at}\\."):
        parse_example(records, spec)
    parsed = parse_example(records[:bad_at] + records[bad_at + 1 : -1], spec)
    assert parsed["s"].tolist() == [b"abc"] * 2999


def test_records_must_be_bytes_or_str():
    with pytest.raises(TypeError, match="record 1"):
        parse_example([b"", 3], {"x": VarLenFeature("int64")})
    # str is tf.string, as in TensorFlow: its UTF-8 bytes, here not an Example.
    with pytest.raises(errors.InvalidArgumentError, match="Index: 1"):
        parse_example([b"", "text"], {"x": VarLenFeature("int64")})
