"""swigflow.datasets against TFDS 4.9.10 itself: datasets TFDS prepared and what
``tfds.as_numpy(builder.as_dataset(...))`` returned for them (tests/testdata/tfds, written by
make_tfds_datasets.py). Every example of every recorded split expression must match in
structure, type, dtype, shape and value; so must every ``info`` field, the split errors, even
splits, ReadInstructions and per-host sharding. Neither TensorFlow nor TFDS is needed."""

import base64
import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import swigflow
import swigflow.datasets as tfds
from swigflow.data import Dataset
from swigflow.tensors import RaggedTensor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(os.path.dirname(HERE), "testdata", "tfds")
DATA = os.path.join(ROOT, "data")
DATA_AR = os.path.join(ROOT, "data_array_record")

with gzip.open(os.path.join(ROOT, "golden.json.gz"), "rt", encoding="utf-8") as _f:
    GOLDEN = json.load(_f)


def builder_of(key):
    """The builder a golden key names: "sf_configs/small:0.1.0", "sf_classes_array_record"."""
    if key.endswith("_array_record"):
        return tfds.builder(key[: -len("_array_record")], data_dir=DATA_AR)
    return tfds.builder(key, data_dir=DATA)


def _bytes(text):
    return base64.b64decode(text)


def check(expected, actual, where="example"):
    """Asserts that `actual` is what TFDS returned (`expected`, the golden's encoding)."""
    kind = next(k for k in ("dict", "tuple", "ragged", "bytes", "strings", "array", "scalar",
                            "dataset", "list", "python") if k in expected)  # fmt: skip
    if kind == "dict":
        assert isinstance(actual, dict), f"{where}: {type(actual)} is not a dict"
        assert sorted(actual) == sorted(expected["dict"]), f"{where}: keys differ"
        for k, v in expected["dict"].items():
            check(v, actual[k], f"{where}/{k}")
    elif kind == "tuple":
        assert isinstance(actual, tuple) and len(actual) == len(expected["tuple"]), where
        for i, v in enumerate(expected["tuple"]):
            check(v, actual[i], f"{where}[{i}]")
    elif kind == "ragged":
        assert isinstance(actual, RaggedTensor), f"{where}: {type(actual)} is not ragged"
        want = expected["ragged"]
        check(want["flat_values"], actual.flat_values, f"{where}.flat_values")
        splits = actual.nested_row_splits
        assert len(splits) == len(want["row_lengths"]), f"{where}: ragged rank"
        for i, lengths in enumerate(want["row_lengths"]):
            check(lengths, np.diff(splits[i]).astype(np.int64), f"{where}.row_lengths[{i}]")
    elif kind == "bytes":
        assert type(actual) is bytes, f"{where}: {type(actual)} is not bytes"
        assert actual == _bytes(expected["bytes"]), f"{where}: {actual!r}"
    elif kind == "strings":
        assert isinstance(actual, np.ndarray) and actual.dtype == object, f"{where}: {actual!r}"
        assert list(actual.shape) == expected["shape"], f"{where}: shape {actual.shape}"
        assert all(type(v) is bytes for v in actual.reshape(-1)), f"{where}: not bytes"
        assert [bytes(v) for v in actual.reshape(-1)] == [_bytes(s) for s in expected["strings"]]
    elif kind == "array":
        dtype = np.dtype(expected["array"])
        assert isinstance(actual, np.ndarray), f"{where}: {type(actual)} is not an array"
        assert actual.dtype == dtype, f"{where}: dtype {actual.dtype}, TFDS {dtype}"
        assert list(actual.shape) == expected["shape"], f"{where}: shape {actual.shape}"
        want = np.frombuffer(_bytes(expected["data"]), dtype).reshape(expected["shape"])
        np.testing.assert_array_equal(actual, want, err_msg=where)
    elif kind == "scalar":
        dtype = np.dtype(expected["scalar"])
        assert isinstance(actual, np.generic), f"{where}: {type(actual)} is not a numpy scalar"
        assert actual.dtype == dtype, f"{where}: dtype {actual.dtype}, TFDS {dtype}"
        want = np.frombuffer(_bytes(expected["data"]), dtype)[0]
        assert actual.tobytes() == want.tobytes(), f"{where}: {actual!r}, TFDS {want!r}"
    elif kind == "python":
        assert type(actual).__name__ == expected["python"], f"{where}: {type(actual)}"
        assert actual == expected["value"], f"{where}: {actual!r}"
    elif kind == "list":
        assert isinstance(actual, list) and len(actual) == len(expected["list"]), where
        for i, v in enumerate(expected["list"]):
            check(v, actual[i], f"{where}[{i}]")
    elif kind == "dataset":
        assert isinstance(actual, Dataset), f"{where}: {type(actual)} is not a Dataset"
        rows = list(actual)
        assert len(rows) == len(expected["dataset"]), f"{where}: {len(rows)} steps"
        for i, (want, got) in enumerate(zip(expected["dataset"], rows)):
            check(want, got, f"{where}[{i}]")
    else:
        raise AssertionError(f"{where}: unexpected golden kind {kind}")


def assert_same_tree(want, got, where):
    """The feature tree TFDS described (class, shape, dtype, names, ...) is ours; TFDS names
    the string dtype "object" where features.json says "string"."""
    for field, value in want.items():
        assert field in got, f"{where}: no {field}"
        if field == "children":
            assert sorted(got[field]) == sorted(value), f"{where}: children differ"
            for k, child in value.items():
                assert_same_tree(child, got[field][k], f"{where}/{k}")
        elif field == "feature":
            assert_same_tree(value, got[field], f"{where}/feature")
        elif field == "dtype":
            assert got[field] == ("string" if value == "object" else value), f"{where}: dtype"
        else:
            assert got[field] == value, f"{where}: {field} {got[field]!r} != {value!r}"


def read(key, split, **kwargs):
    return list(builder_of(key).as_dataset(split=split, shuffle_files=False, **kwargs))


READS = [(r["builder"], r["split"], r["kwargs"]) for r in GOLDEN["reads"]]


@pytest.mark.parametrize("index", range(len(READS)), ids=[f"{b}-{s}-{k}" for b, s, k in READS])
def test_examples_match_tfds(index):
    case = GOLDEN["reads"][index]
    kwargs = {name: True for name in case["kwargs"]}
    examples = read(case["builder"], case["split"], **kwargs)
    assert len(examples) == len(case["examples"])
    for i, (want, got) in enumerate(zip(case["examples"], examples)):
        check(want, got, f"{case['builder']}[{case['split']}][{i}]")


@pytest.mark.parametrize("key", sorted(GOLDEN["info"]))
def test_info_matches_tfds(key):
    want = GOLDEN["info"][key]
    builder = builder_of(key)
    got = builder.info.describe()
    for field in ("name", "full_name", "config_name", "version", "description", "homepage",
                  "citation", "file_format", "supervised_keys", "splits"):  # fmt: skip
        assert got[field] == want[field], field
    assert_same_tree(want["features"], got["features"], key)
    assert os.path.relpath(builder.data_dir, ROOT) == want["data_dir"]
    info = builder.info
    for name, split in want["splits"].items():
        assert info.splits[name].num_examples == split["num_examples"]
        assert info.splits[name].num_shards == split["num_shards"]


def test_class_label_names_and_conversions():
    features = builder_of("sf_features").info.features
    label = features["label"]
    assert label.names == ["cat", "dog", "bird", "fish"] and label.num_classes == 4
    assert label.int2str(2) == "bird" and label.str2int("fish") == 3
    assert features["seq_dict"]["tag"].names == ["cat", "dog", "bird", "fish"]
    assert features["segmentation"].num_classes == 3
    no_names = features["label_no_names"]
    assert no_names.names == ["0", "1", "2", "3", "4"] and no_names.str2int("3") == 3
    with pytest.raises(ValueError):
        label.int2str(4)
    with pytest.raises(ValueError):
        label.str2int("horse")


def test_default_config_and_latest_version():
    want = GOLDEN["load_default"]["sf_configs"]
    info = tfds.builder("sf_configs", data_dir=DATA).info
    assert (info.config_name, str(info.version)) == (want["config_name"], want["version"])
    assert str(tfds.builder("sf_configs/large:0.*.*", data_dir=DATA).info.version) == "0.1.0"
    assert tfds.builder("sf_configs", config="large", data_dir=DATA).info.config_name == "large"


def test_list_of_splits_gives_list_of_datasets():
    datasets = builder_of("sf_features").as_dataset(["test[:2]", "train[3:5]"])
    assert isinstance(datasets, list) and len(datasets) == 2
    for want, ds in zip(GOLDEN["list_split"], datasets):
        got = list(ds)
        assert len(got) == len(want)
        for i, (w, g) in enumerate(zip(want, got)):
            check(w, g, f"list[{i}]")


@pytest.mark.parametrize("index", range(len(GOLDEN["read_instructions"])))
def test_read_instructions(index):
    case = GOLDEN["read_instructions"][index]
    name, from_, to, unit, rounding = case["args"]
    instruction = tfds.ReadInstruction(name, from_=from_, to=to, unit=unit, rounding=rounding)
    assert str(instruction) == case["str"]
    builder = builder_of("sf_features")
    if "error" in case:
        with pytest.raises(ValueError) as e:
            read("sf_features", instruction)
        assert str(e.value) == case["error"]["message"]
        return
    examples = read("sf_features", instruction)
    assert len(examples) == len(case["examples"])
    for i, (want, got) in enumerate(zip(case["examples"], examples)):
        check(want, got, f"{case['str']}[{i}]")
    assert len(builder.as_dataset(split=instruction)) == len(case["examples"])


def _ids(split, **kwargs):
    ds = builder_of("sf_features").as_dataset(split=split, shuffle_files=False, **kwargs)
    return [int(e["id"]) for e in ds]


@pytest.mark.parametrize("index", range(len(GOLDEN["even_splits"])))
def test_even_splits(index):
    case = GOLDEN["even_splits"][index]
    parts = tfds.even_splits(case["split"], case["n"], drop_remainder=case["drop_remainder"])
    assert [_ids(p) for p in parts] == case["ids"]


def test_even_split_added_to_a_string():
    assert _ids(tfds.even_splits("test", n=3)[2] + "train[:2]") == GOLDEN["even_splits_added"]


@pytest.mark.parametrize("index", range(len(GOLDEN["input_context"])))
def test_input_context_shards_files(index):
    case = GOLDEN["input_context"][index]
    context = tfds.InputContext(case["num_input_pipelines"], case["input_pipeline_id"])
    config = tfds.ReadConfig(input_context=context)
    assert _ids(case["split"], read_config=config) == case["ids"]


ERRORS = GOLDEN["errors"]


@pytest.mark.parametrize("index", range(len(ERRORS)), ids=[repr(e["split"]) for e in ERRORS])
def test_split_errors_as_tfds(index):
    case = ERRORS[index]
    if case["error"] is None:
        assert _ids(case["split"])
        return
    with pytest.raises(ValueError) as e:
        read("sf_features", case["split"])
    assert str(e.value) == case["error"]["message"]


def test_array_record_source_matches_tfds():
    """TFDS's data source decodes through its numpy path, where PIL decodes JPEGs with the
    accurate integer IDCT; as_dataset (and swigflow, everywhere) decodes as TensorFlow does.
    So the images are checked to be the same JPEG bytes: PIL's pixels equal swigflow's
    INTEGER_ACCURATE decode of them, and our pixels are TensorFlow's decode of them."""
    case = GOLDEN["array_record_source"]
    builder = builder_of("sf_classes_array_record")
    source = builder.as_data_source(case["split"])
    raw = builder.as_data_source(case["split"], decoders={"image": tfds.decode.SkipDecoding()})
    assert len(source) == len(raw) == case["length"]
    for i, want in enumerate(case["examples"]):
        want = dict(want["dict"])
        pil = want.pop("image")
        got = source[i]
        jpeg = raw[i]["image"]
        check({"dict": want}, {k: v for k, v in got.items() if k != "image"}, f"ar[{i}]")
        accurate = swigflow.image.decode_jpeg(jpeg, channels=3, dct_method="INTEGER_ACCURATE")
        check(pil, accurate, f"ar[{i}]/image (INTEGER_ACCURATE)")
        np.testing.assert_array_equal(got["image"], swigflow.image.decode_jpeg(jpeg, channels=3))
    batch = source.__getitems__([3, 0])
    assert [b["file_name"] for b in batch] == [source[3]["file_name"], source[0]["file_name"]]


def test_tfrecord_data_source_is_as_dataset_in_file_order():
    """TFDS has no TFRecord data source; ours numbers the examples in the file instructions'
    order, as TFDS's ArrayRecord source does, and decodes them as as_dataset."""
    builder = builder_of("sf_features")
    source = builder.as_data_source("train[10:30]+test[:5]")
    ordered = tfds.ReadConfig(interleave_cycle_length=1)
    expected = list(builder.as_dataset("train[10:30]+test[:5]", read_config=ordered))
    assert len(source) == len(expected) == 25
    for i in (0, 7, 24, -1):
        assert int(source[i]["id"]) == int(expected[i]["id"])
    rows = source.__getitems__([4, 2])
    assert [int(r["id"]) for r in rows] == [int(expected[4]["id"]), int(expected[2]["id"])]
    np.testing.assert_array_equal(source[5]["image_jpeg"], expected[5]["image_jpeg"])


def test_no_tensorflow_imported():
    code = (
        "import sys, swigflow.datasets as tfds\n"
        f"b = tfds.builder('sf_rlds', data_dir={DATA!r})\n"
        "ep = next(iter(b.as_dataset('train')))\n"
        "list(ep['steps'])\n"
        f"s = tfds.data_source('sf_features', split='test', data_dir={DATA!r})\n"
        "s[0]\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'\n"
        "assert 'tensorflow_datasets' not in sys.modules, 'tensorflow_datasets imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
