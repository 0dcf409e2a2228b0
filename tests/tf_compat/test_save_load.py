"""Translated from tensorflow/python/data/kernel_tests/io_test.py (IOTest: Dataset.save and
Dataset.load) and snapshot_test.py (SnapshotTest): the round trip, shard_func and reader_func,
compression, cardinality, and a snapshot read back by a later pipeline. Adaptations: the files
are swigflow's own format (TensorFlow cannot read them, nor swigflow TensorFlow's); load needs
no element_spec; checkpoint_args, Snappy and snapshot's shard_func/reader_func raise (not
supported); the tests that inspect TF's snapshot directory layout are not translated. Added: a
save or snapshot pass that fails is never loadable."""

import os

import numpy as np
import pytest
from tf_test_util import as_py

from swigflow import errors
from swigflow.data import Dataset


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_basic(tmp_path, compression):
    dataset = Dataset.range(42)
    dataset.save(str(tmp_path), compression=compression)
    loaded = Dataset.load(str(tmp_path), compression=compression)
    assert [int(x) for x in loaded] == list(range(42))
    assert loaded.cardinality() == 42
    assert [int(x) for x in Dataset.load(str(tmp_path))] == list(range(42))  # as stored


def test_structures_round_trip(tmp_path):
    dataset = Dataset.from_tensor_slices(
        {"a": np.arange(6, dtype=np.int32).reshape(3, 2), "b": [b"x", b"yy", b""]}
    ).map(lambda e: (e, np.float32(1.5)))
    dataset.save(tmp_path)
    got = list(Dataset.load(tmp_path))
    assert [as_py(e) for e in got] == [as_py(e) for e in dataset]
    assert got[0][0]["a"].dtype == np.int32 and got[0][1].dtype == np.float32


def test_custom_shard_function_and_reader(tmp_path):
    dataset = Dataset.range(42)
    dataset.save(str(tmp_path), shard_func=lambda x: x % 3)
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("shard-")) == [
        "shard-00000.swigflow_cache",
        "shard-00001.swigflow_cache",
        "shard-00002.swigflow_cache",
    ]
    assert sorted(int(x) for x in Dataset.load(str(tmp_path))) == list(range(42))

    def reader(datasets):
        return datasets.interleave(lambda x: x, cycle_length=3)

    assert [int(x) for x in Dataset.load(str(tmp_path), reader_func=reader)] == list(range(42))


def test_bad_shard_function(tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="shard_func"):
        Dataset.range(3).save(tmp_path, shard_func=lambda x: -1)
    with pytest.raises(errors.NotFoundError):
        Dataset.load(tmp_path)


def test_failed_save_is_not_loadable_and_replaces_the_old_one(tmp_path):
    Dataset.range(5).save(tmp_path)

    def fail_at_three(x):
        if x == 3:
            raise ValueError("no three")
        return x

    with pytest.raises(ValueError, match="no three"):
        Dataset.range(5).map(fail_at_three).save(tmp_path)
    with pytest.raises(errors.NotFoundError, match="Could not find metadata file"):
        Dataset.load(tmp_path)
    assert not [n for n in os.listdir(tmp_path) if ".tmp-" in n]
    Dataset.range(7).save(tmp_path, shard_func=lambda x: x % 2)
    Dataset.range(4).save(tmp_path)  # fewer shards: the old ones go
    assert [int(x) for x in Dataset.load(tmp_path)] == [0, 1, 2, 3]
    assert sorted(os.listdir(tmp_path)) == ["shard-00000.swigflow_cache", "swigflow_save.json"]


def test_load_errors(tmp_path):
    with pytest.raises(errors.NotFoundError):
        Dataset.load(tmp_path / "nothing")
    Dataset.range(3).save(tmp_path, compression="GZIP")
    with pytest.raises(errors.InvalidArgumentError, match="GZIP"):
        Dataset.load(tmp_path, compression="ZLIB")
    (tmp_path / "swigflow_save.json").write_text('{"format": "other"}')
    with pytest.raises(errors.DataLossError, match="not the metadata"):
        Dataset.load(tmp_path)


def test_unsupported_arguments(tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="Snappy"):
        Dataset.range(3).save(tmp_path, compression="SNAPPY")
    with pytest.raises(errors.UnimplementedError, match="checkpoint_args"):
        Dataset.range(3).save(tmp_path, checkpoint_args={})
    with pytest.raises(errors.UnimplementedError, match="shard_func"):
        Dataset.range(3).snapshot(tmp_path, shard_func=lambda x: 0)


def test_load_resumes(tmp_path):
    Dataset.range(10).save(tmp_path, shard_func=lambda x: x // 5)
    loaded = Dataset.load(tmp_path)
    it = loaded.iterator()
    head = [int(next(it)) for _ in range(6)]
    assert head + [int(x) for x in loaded.iterator(state=it.state())] == list(range(10))


# --- snapshot ---------------------------------------------------------------------------------


def test_snapshot_written_then_read(tmp_path):
    calls = []

    def counted(x):
        calls.append(int(x))
        return x * 2

    def make():
        return Dataset.range(10).map(counted).snapshot(str(tmp_path), compression="GZIP")

    assert [int(x) for x in make()] == list(range(0, 20, 2))
    assert len(calls) == 10
    assert len([n for n in os.listdir(tmp_path) if n.endswith(".swigflow_cache")]) == 1
    assert [int(x) for x in make()] == list(range(0, 20, 2))  # a new pipeline reads the file
    assert len(calls) == 10


def test_snapshot_of_another_pipeline_is_another_file(tmp_path):
    assert [int(x) for x in Dataset.range(3).snapshot(tmp_path)] == [0, 1, 2]
    assert [int(x) for x in Dataset.range(4).snapshot(tmp_path)] == [0, 1, 2, 3]
    assert len(os.listdir(tmp_path)) == 2


def test_snapshot_incomplete_pass_writes_nothing(tmp_path):
    ds = Dataset.range(10).snapshot(tmp_path)
    it = iter(ds)
    next(it)
    it.close()
    assert os.listdir(tmp_path) == []
