"""swigflow.data: tf.data's semantics, exactly-once epochs, shards, seeds, resuming, damage."""

import json
import logging
import os
import pathlib
import shutil

import numpy as np
import pytest
from data_util import make_files

import swigflow
from swigflow import errors, train
from swigflow.data import AUTOTUNE, Dataset, TFRecordDataset
from swigflow.io import FixedLenFeature, VarLenFeature

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
SPEC = {"id": FixedLenFeature([], "int64"), "blob": FixedLenFeature([], "string")}


def ids(dataset):
    """The ids of every element, flattened over batches, in order."""
    out = []
    for element in dataset:
        if isinstance(element, dict):
            out.extend(np.atleast_1d(element["id"]).tolist())
        elif isinstance(element, np.ndarray):
            out.extend(
                train.Example.FromString(r).features.feature["id"].int64_list.value[0]
                for r in element
            )
        else:
            out.append(train.Example.FromString(element).features.feature["id"].int64_list.value[0])
    return out


@pytest.fixture(params=[False, True], ids=["sequential", "indexed"])
def files(request, tmp_path):
    return make_files(str(tmp_path), [37, 5, 0, 64, 21, 9], index=request.param)


ALL_IDS = sorted(1000 * f + r for f, c in enumerate([37, 5, 0, 64, 21, 9]) for r in range(c))


def test_reads_records_in_file_order(files):
    assert ids(TFRecordDataset(files)) == ALL_IDS


def test_parallel_reads_interleave_one_record_per_file(tmp_path):
    paths = make_files(str(tmp_path), [3, 1, 2])
    got = ids(TFRecordDataset(paths, num_parallel_reads=2))
    # As tf.data: file 1 ends on its slot's next turn, which then passes; file 2 takes the slot
    # on the turn after.
    assert got == [0, 1000, 1, 2, 2000, 2001]


def test_large_batches_and_small_ones_give_the_same_bytes(tmp_path):
    """A batch of many bytes has its bytes objects filled without the GIL, a small one with it:
    every record arrives whole either way, the empty ones too."""
    rng = np.random.default_rng(5)
    sizes = [0, 1, 300_000, 7, 0, 90_000] + [int(n) for n in rng.integers(0, 200_000, 40)]
    records = [rng.bytes(n) for n in sizes]
    path = str(tmp_path / "sizes.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)
    for batch in (1, 3, 16, 64):
        got = [r for b in TFRecordDataset([path]).batch(batch) for r in b]
        assert got == records, batch
        assert all(type(r) is bytes for r in got)


def test_file_names_of_every_kind(tmp_path):
    # Names that are not UTF-8 (bytes, and str with surrogate escapes), os.PathLike and str mixed
    # in one list: the file list reaches the native pipeline in one call, encoded as the OS does.
    paths = make_files(str(tmp_path), [2, 3, 1])
    odd = os.fsencode(tmp_path) + b"/caf\xe9-\xff.tfrecord"
    os.rename(paths[1], odd)
    names = [pathlib.Path(paths[0]), odd, paths[2]]
    assert ids(TFRecordDataset(names)) == [0, 1, 1000, 1001, 1002, 2000]
    assert ids(TFRecordDataset([paths[0], os.fsdecode(odd)])) == [0, 1, 1000, 1001, 1002]
    with pytest.raises(TypeError, match=r"must contain `tf\.string` elements"):
        TFRecordDataset([paths[0], 7])


def test_every_record_once_per_epoch_with_shuffles(files):
    ds = TFRecordDataset(files, num_parallel_reads=3).shuffle(50, seed=4).repeat(3).batch(16)
    got = ids(ds.parse(SPEC))
    assert len(got) == 3 * len(ALL_IDS)
    epochs = [got[i * len(ALL_IDS) : (i + 1) * len(ALL_IDS)] for i in range(3)]
    for epoch in epochs:
        assert sorted(epoch) == ALL_IDS
    assert epochs[0] != epochs[1] != epochs[2]  # reshuffled each epoch
    assert ids(ds.parse(SPEC)) == got  # the same seed, the same order
    assert ids(TFRecordDataset(files, num_parallel_reads=3).shuffle(50, seed=5)) != epochs[0]


def test_unseeded_shuffles_differ_between_iterators(files):
    ds = TFRecordDataset(files).shuffle(200)
    assert ids(ds) != ids(ds)


def test_reshuffle_each_iteration_false_repeats_the_order(files):
    ds = TFRecordDataset(files).shuffle(100, seed=1, reshuffle_each_iteration=False).repeat(2)
    got = ids(ds)
    assert got[: len(ALL_IDS)] == got[len(ALL_IDS) :]


def test_global_shuffle_needs_index_files(tmp_path):
    paths = make_files(str(tmp_path), [10, 10], index=True)
    ds = TFRecordDataset(paths).global_shuffle(seed=3)
    got = ids(ds)
    assert sorted(got) == sorted(1000 * f + r for f in range(2) for r in range(10))
    assert got != sorted(got) and ids(TFRecordDataset(paths).global_shuffle(seed=3)) == got
    assert ids(ds) != got  # as tf.data: each iterator of a seeded, reshuffling dataset differs
    # Records from both files mix from the very start (a shuffle buffer could not do that).
    assert {i // 1000 for i in got[:4]} == {0, 1}
    os.unlink(swigflow.io.default_index_path(paths[1]))
    with pytest.raises(errors.FailedPreconditionError, match="index file"):
        ids(TFRecordDataset(paths).global_shuffle(seed=3))


@pytest.mark.parametrize("num_shards", [2, 4, 7, 11])
def test_shards_partition_records_exactly(files, num_shards):
    parts = [
        ids(TFRecordDataset(files, num_parallel_reads=2).shard(num_shards, i).shuffle(10, seed=i))
        for i in range(num_shards)
    ]
    assert sorted([i for part in parts for i in part]) == ALL_IDS
    # tf.data's shard: every num_shards-th record of the unsharded order, whatever the files.
    order = ids(TFRecordDataset(files, num_parallel_reads=2))
    for i in range(num_shards):
        assert (
            ids(TFRecordDataset(files, num_parallel_reads=2).shard(num_shards, i))
            == (order[i::num_shards])
        )


@pytest.mark.parametrize("num_shards", [2, 3])
def test_sharding_file_names_gives_whole_files_natively(files, num_shards):
    for i in range(num_shards):
        ds = (
            Dataset.from_tensor_slices(files)
            .shard(num_shards, i)
            .interleave(TFRecordDataset, cycle_length=2)
            .batch(8)
            .parse(SPEC)
        )
        assert "TFRecords(*)" in repr(ds)  # one native pipeline over the shard's files
        mine = files[i::num_shards]
        assert ids(ds) == ids(TFRecordDataset(mine, num_parallel_reads=2))


def test_len_from_index_files(tmp_path):
    paths = make_files(str(tmp_path), [37, 5, 0, 64], index=True)
    ds = TFRecordDataset(paths)
    assert len(ds) == 106
    assert len(ds.batch(10)) == 11 and len(ds.batch(10, drop_remainder=True)) == 10
    assert len(ds.repeat(3).batch(10)) == 32  # batches run across epochs
    assert len(ds.batch(10).repeat(3)) == 33
    assert len(ds.shard(3, 1)) == len(ids(ds.shard(3, 1)))
    assert len(ds.shard(7, 6)) == len(ids(ds.shard(7, 6)))
    assert len(ds.map(lambda x: x).take(5)) == 5
    assert ds.repeat().cardinality() == swigflow.data.INFINITE
    os.makedirs(tmp_path / "plain")
    with pytest.raises(TypeError, match="unknown"):
        len(TFRecordDataset(make_files(str(tmp_path / "plain"), [3])))
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())


def run_with_checkpoints(ds, every):
    """Elements of ds, iterating afresh from a JSON round trip of the state every `every`."""
    out = []
    it = ds.iterator()
    while True:
        for _ in range(every):
            try:
                out.append(next(it))
            except StopIteration:
                return out
        state = json.loads(json.dumps(it.state()))
        it.close()
        it = ds.iterator(state=state)


@pytest.mark.parametrize("every", [1, 3, 7])
def test_resuming_from_state_equals_an_uninterrupted_run(files, every):
    ds = (
        TFRecordDataset(files, num_parallel_reads=2)
        .shuffle(30)  # unseeded: the seed drawn for the iterator is part of its state
        .repeat(2)
        .batch(8)
        .parse(SPEC)
        .prefetch(3)
    )
    it = ds.iterator()
    first = [next(it)["id"].tolist() for _ in range(2)]
    state = it.state()
    rest = [b["id"].tolist() for b in it]
    resumed = [b["id"].tolist() for b in ds.iterator(state=state)]
    assert resumed == rest
    whole = first + rest
    assert sorted(i for batch in whole for i in batch) == sorted(ALL_IDS * 2)

    def seeded():
        return (
            TFRecordDataset(files)
            .shuffle(30, seed=9)
            .batch(5)
            .parse(SPEC)
            .map(lambda b: b["id"].tolist())
        )

    assert run_with_checkpoints(seeded(), every) == list(seeded())


def test_resuming_python_steps(tmp_path):
    make_files(str(tmp_path), [20, 20])

    def pipeline():
        return (
            Dataset.list_files(str(tmp_path / "*.tfrecord"), seed=2)
            .interleave(
                lambda f: TFRecordDataset(f).map(lambda r: r), cycle_length=2, block_length=3
            )
            .filter(lambda r: len(r) % 2 == 0)
            .shuffle(7, seed=1)
            .skip(2)
            .take(15)
            .map(lambda r: train.Example.FromString(r).features.feature["id"].int64_list.value[0])
            .batch(4)
            .repeat(2)
            .prefetch(2)
        )

    expected = [b.tolist() for b in pipeline()]
    ds = pipeline()
    assert [b.tolist() for b in run_with_checkpoints(ds, 2)] == expected
    # The next iterator over the same dataset shuffles (files and elements) differently; its
    # state resumes it, iterations included.
    assert [b.tolist() for b in run_with_checkpoints(ds, 3)] != expected
    assert ds.iterator().state()["iterations"] == [2, 2]
    assert len(expected) == 8


def test_state_of_another_pipeline_is_refused(files):
    it = TFRecordDataset(files).batch(4).iterator()
    next(it)
    with pytest.raises(ValueError, match="another pipeline"):
        TFRecordDataset(files).batch(5).iterator(state=it.state())


def test_parse_matches_parse_example(files):
    records = list(swigflow.io.tf_record_iterator(files[0]))
    spec = {"id": FixedLenFeature([], "int64"), "blob": VarLenFeature("string")}
    for got, start in zip(TFRecordDataset(files[0]).batch(10).parse(spec), range(0, 37, 10)):
        want = swigflow.io.parse_example(records[start : start + 10], spec)
        np.testing.assert_array_equal(got["id"], want["id"])
        np.testing.assert_array_equal(got["blob"].indices, want["blob"].indices)
        assert got["blob"].values.tolist() == want["blob"].values.tolist()
    single = next(iter(TFRecordDataset(files[0]).parse(SPEC)))
    assert single["id"] == 0 and single["id"].shape == () and single["blob"] == b""
    fused = (
        TFRecordDataset(files[0])
        .batch(10)
        .apply(swigflow.data.experimental.parse_example_dataset(SPEC))
    )
    assert "parse(blob,id)" in repr(fused)


def test_parse_errors_name_the_record(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        w.write(train.example_from_dict({"id": 1}).SerializeToString())
        w.write(train.example_from_dict({"other": 1}).SerializeToString())
    with pytest.raises(errors.InvalidArgumentError, match=r"Feature: id .* is required"):
        list(TFRecordDataset(path).batch(2).parse({"id": FixedLenFeature([], "int64")}))


def test_records_that_do_not_parse_are_named_and_follow_on_error(tmp_path, caplog):
    path = str(tmp_path / "x.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(10):
            features = {"other": i} if i in (3, 7) else {"id": i}
            w.write(train.example_from_dict(features).SerializeToString())
        w.write(b"\x0a\x05")  # not an Example at all
    spec = {"id": FixedLenFeature([], "int64")}
    with pytest.raises(errors.InvalidArgumentError, match=rf"offset \d+ in {path}"):
        list(TFRecordDataset(path).batch(4).parse(spec))
    for policy in ("skip_record", "skip_file"):
        with caplog.at_level(logging.WARNING, logger="swigflow.data"):
            caplog.clear()
            got = list(TFRecordDataset(path, on_error=policy).batch(4).parse(spec))
        ids = [int(i) for batch in got for i in batch["id"]]
        assert ids == [0, 1, 2, 4, 5, 6, 8, 9], policy
        logged = [r.getMessage() for r in caplog.records if "unparsable record" in r.getMessage()]
        assert len(logged) == 3, logged
        assert all(path in m for m in logged)
    # A batch whose every record fails is dropped whole.
    bad = str(tmp_path / "bad.tfrecord")
    with swigflow.io.TFRecordWriter(bad) as w:
        for _ in range(3):
            w.write(train.example_from_dict({"other": 1}).SerializeToString())
    assert list(TFRecordDataset(bad, on_error="skip_record").batch(3).parse(spec)) == []


def golden_copy(tmp_path, name):
    path = str(tmp_path / name)
    shutil.copy(os.path.join(GOLDEN, name), path)
    return path


RECORDS = list(swigflow.io.tf_record_iterator(os.path.join(GOLDEN, "records.tfrecord")))


def test_damage_raises_after_the_records_before_it(tmp_path):
    path = golden_copy(tmp_path, "bad_data_crc.tfrecord")
    got = []
    with pytest.raises(errors.DataLossError, match=r"corrupted record at 557065 in .*bad_data_crc"):
        for record in TFRecordDataset(path):
            got.append(record)
    assert got == RECORDS[:59]
    # A partial header at the very end ends the file quietly, as in TensorFlow.
    assert list(TFRecordDataset(golden_copy(tmp_path, "truncated_header.tfrecord"))) == RECORDS[:1]


@pytest.mark.parametrize(
    ("name", "skip_record", "skip_file"),
    [
        ("bad_data_crc.tfrecord", 59, 59),
        ("bad_length_crc.tfrecord", 59, 1),
        ("truncated_mid_record.tfrecord", 59, 59),
    ],
)
def test_skip_policies_on_golden_damage(tmp_path, caplog, name, skip_record, skip_file):
    path = golden_copy(tmp_path, name)
    good = golden_copy(tmp_path, "records.tfrecord")
    with caplog.at_level(logging.WARNING, logger="swigflow.data"):
        got = list(TFRecordDataset([path, good], on_error="skip_record"))
    assert len(got) == skip_record + 60
    assert all(r in RECORDS for r in got)
    assert path in caplog.text and "skipped damaged data" in caplog.text
    assert len(list(TFRecordDataset([path, good], on_error="skip_file"))) == skip_file + 60
    with pytest.raises(ValueError, match="on_error"):
        TFRecordDataset(path, on_error="ignore")


def test_python_sources_and_steps():
    ds = Dataset.from_tensor_slices(
        {"x": np.arange(10), "y": [f"s{i}".encode() for i in range(10)]}
    )
    batches = list(ds.filter(lambda e: e["x"] % 3 != 0).batch(3))
    assert batches[0]["x"].tolist() == [1, 2, 4] and batches[0]["y"].tolist() == [
        b"s1",
        b"s2",
        b"s4",
    ]
    assert len(ds) == 10 and len(ds.batch(4)) == 3
    squares = Dataset.range(20).map(lambda x: x * x, num_parallel_calls=AUTOTUNE)
    assert list(squares) == [i * i for i in range(20)]
    assert list(Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    assert list(Dataset.range(5).skip(2).take(2)) == [2, 3]
    assert list(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert sorted(Dataset.range(50).shuffle(10, seed=1)) == list(range(50))
    with pytest.raises(errors.InvalidArgumentError, match="Index must be between 0 and 1"):
        Dataset.range(3).shard(2, 2)
    with pytest.raises(errors.InvalidArgumentError, match="match at least one file"):
        Dataset.list_files("/nonexistent/*.tfrecord")


def test_list_files_shuffles_each_epoch_with_a_seed(tmp_path):
    make_files(str(tmp_path), [1] * 8)
    ds = Dataset.list_files(str(tmp_path / "*.tfrecord"), seed=1).repeat(2)
    names = list(ds)
    assert sorted(names[:8]) == sorted(names[8:]) and names[:8] != names[8:]
    assert list(Dataset.list_files(str(tmp_path / "*.tfrecord"), shuffle=False)) == sorted(
        names[:8]
    )


def test_interleave_of_tfrecord_datasets_is_native(tmp_path):
    make_files(str(tmp_path), [4, 4, 4])
    files = Dataset.list_files(str(tmp_path / "*.tfrecord"), shuffle=False)
    fused = files.interleave(lambda f: TFRecordDataset(f), cycle_length=3, block_length=2)
    assert repr(fused).startswith("<TFRecords(*)")
    assert ids(fused) == [0, 1, 1000, 1001, 2000, 2001, 2, 3, 1002, 1003, 2002, 2003]
    python = files.interleave(
        lambda f: TFRecordDataset(f).map(lambda r: r), cycle_length=3, block_length=2
    )
    assert ids(python) == ids(fused)


def test_pipeline_threads_stop_when_iteration_stops(tmp_path):
    paths = make_files(str(tmp_path), [500] * 4)
    for _ in range(20):
        it = TFRecordDataset(paths, num_parallel_reads=4).repeat().batch(7).iterator()
        next(it)
        it.close()  # no hang, no leaked thread keeping the process alive


def test_zero_copy_records(files):
    records = list(TFRecordDataset(files, num_parallel_reads=2))
    views = list(TFRecordDataset(files, num_parallel_reads=2, zero_copy=True))
    assert all(isinstance(v, memoryview) for v in views)
    assert [bytes(v) for v in views] == records
    batches = list(TFRecordDataset(files, num_parallel_reads=2, zero_copy=True).batch(7))
    assert all(isinstance(b, swigflow.io.RecordBuffer) for b in batches)
    assert [bytes(r) for b in batches for r in b] == records
    held = batches[0]
    del batches
    assert bytes(held[0]) == records[0]  # each element owns its memory
    parsed = next(iter(TFRecordDataset(files, zero_copy=True).batch(4).parse(SPEC)))
    assert parsed["id"].dtype == np.int64  # parsing natively: zero_copy does not apply


def test_absorbed_steps_are_one_options_record(files, monkeypatch):
    """The absorbed steps' arguments are one immutable record: fields named like the native
    PipelineOptions take its defaults and are copied into it by name; a misspelt field is an
    error, not a field nothing reads; the parse plan is built once per dataset, not per epoch."""
    import dataclasses

    from swigflow import pywrap_swigflow
    from swigflow.data import records
    from swigflow.io import feature_spec

    native = pywrap_swigflow.PipelineOptions()
    steps = records.NativeSteps()
    copied = [f.name for f in dataclasses.fields(steps) if hasattr(native, f.name)]
    assert "batch_size" in copied and "prefetch" in copied and "global_seed" not in copied
    for name in copied:
        if name != "cycle_length":  # TFRecordDataset's own default (one file at a time)
            assert getattr(steps, name) == getattr(native, name), name
    set_all = dataclasses.replace(steps, shuffle_buffer=7, batch_size=3, epochs=2, prefetch=5)
    options = set_all.native_options()
    assert (options.shuffle_buffer, options.batch_size, options.epochs, options.prefetch) == (
        7, 3, 2, 5,
    )  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        steps.batch_size = 4
    with pytest.raises(TypeError):
        dataclasses.replace(steps, batchsize=4)

    once = ids(TFRecordDataset(files))
    built = []
    init = feature_spec.ParsePlan.__init__

    def counting(self, features):
        built.append(1)
        init(self, features)

    monkeypatch.setattr(feature_spec.ParsePlan, "__init__", counting)
    dataset = TFRecordDataset(files).batch(8).parse(SPEC).repeat(3)
    assert len(built) == 1
    assert sorted(ids(dataset)) == sorted(once * 3)
    assert len(built) == 1
