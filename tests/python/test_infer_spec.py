"""swigflow.io.infer_spec, the JSON form of parse specs, and Dataset.parse("auto"): one
inference for the command line, Ray and datasets."""

import json

import numpy as np
import pytest

import swigflow as sf
from swigflow.io import FixedLenFeature, VarLenFeature


@pytest.fixture
def shards(tmp_path):
    """Two GZIP shards of 5 Examples: x (one int64), v (1 to 3 floats), s (one string), and a
    key that is sometimes int64 and sometimes bytes."""
    paths = []
    for shard in range(2):
        path = str(tmp_path / f"train.v1-{shard}.tfrecord.gz")
        with sf.io.TFRecordWriter(path, "GZIP") as w:
            for i in range(5):
                mixed = i if i % 2 else str(i).encode()
                example = {"x": i, "v": [0.5] * (i % 3 + 1), "s": b"k", "mixed": mixed}
                w.write(sf.train.example_from_dict(example).SerializeToString())
        paths.append(path)
    return paths


EXPECTED = {
    "s": FixedLenFeature([], "string"),
    "v": VarLenFeature("float32"),
    "x": FixedLenFeature([], "int64"),
}


def test_infer_spec_reads_the_first_records_and_tells_the_compression(shards, caplog):
    assert sf.io.infer_spec(shards) == EXPECTED
    assert sf.io.infer_spec(shards[0], "GZIP") == EXPECTED
    assert sf.io.infer_spec(shards, ["GZIP", "GZIP"], max_records=3) == {
        "s": FixedLenFeature([], "string"),
        "v": VarLenFeature("float32"),
        "x": FixedLenFeature([], "int64"),
    }
    assert "no spec inferred for ['mixed']" in caplog.text


def test_infer_spec_names_a_file_without_examples(tmp_path):
    path = str(tmp_path / "raw.tfrecord")
    with sf.io.TFRecordWriter(path) as w:
        w.write(b"\xff not an Example")
    with pytest.raises(sf.errors.InvalidArgumentError, match=r"raw\.tfrecord"):
        sf.io.infer_spec(path)


def test_json_round_trip_and_its_errors():
    as_json = sf.io.spec_to_json(EXPECTED)
    assert as_json["v"] == {"dtype": "float32", "shape": None}
    assert sf.io.spec_from_json(json.loads(json.dumps(as_json))) == EXPECTED
    for bad in ({}, [], {"x": {"shape": []}}, {"x": {"dtype": "int64", "shape": "?"}}):
        with pytest.raises(sf.errors.InvalidArgumentError):
            sf.io.spec_from_json(bad)


def test_parse_auto_and_parse_json(shards):
    ds = sf.data.TFRecordDataset(shards, "GZIP").batch(4)
    auto = next(iter(ds.parse("auto")))
    assert sorted(auto) == ["s", "v", "x"]
    np.testing.assert_array_equal(auto["x"], [0, 1, 2, 3])
    by_json = next(iter(ds.parse(sf.io.spec_to_json(EXPECTED))))
    np.testing.assert_array_equal(by_json["x"], auto["x"])
    with pytest.raises(sf.errors.InvalidArgumentError, match="reads no TFRecord files"):
        sf.data.Dataset.range(3).parse("auto")
