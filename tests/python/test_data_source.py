"""swigflow.data.TFRecordDataSource: random access by index over many files, as PyTorch's
map-style datasets (with DistributedSampler and workers) and Grain's RandomAccessDataSource
use it."""

import pickle

import numpy as np
import pytest
from data_util import make_files

import swigflow
from swigflow import errors
from swigflow.data import TFRecordDataSource
from swigflow.io import FixedLenFeature, VarLenFeature

COUNTS = [30, 1, 0, 17, 25]


def all_records(paths):
    return [r for p in paths for r in swigflow.io.tf_record_iterator(p)]


@pytest.mark.parametrize("index", [False, True])
def test_every_record_by_index_in_file_order(tmp_path, index):
    paths = make_files(str(tmp_path), COUNTS, index)
    source = TFRecordDataSource(paths)
    expected = all_records(paths)
    assert len(source) == sum(COUNTS) == len(expected)
    assert [source[i] for i in range(len(source))] == expected
    assert source[-1] == expected[-1]
    rng = np.random.default_rng(3)
    picks = rng.integers(-len(source), len(source), 200)
    assert source.__getitems__(picks.tolist()) == [expected[i] for i in picks]
    assert source.__getitems__([]) == []
    for bad in (len(source), -len(source) - 1):
        with pytest.raises(IndexError, match="out of range"):
            source[bad]
        with pytest.raises(IndexError, match="out of range"):
            source.__getitems__([0, bad])
    assert source.file_and_position(31) == (paths[3], 0)
    assert source.file_and_position(30) == (paths[1], 0)


def test_parsed_with_a_spec_as_parse_single_example(tmp_path):
    paths = make_files(str(tmp_path), [9, 4])
    for spec in (
        {"id": FixedLenFeature([], "int64"), "blob": FixedLenFeature([], "string")},
        {"id": FixedLenFeature([], "int64"), "blob": VarLenFeature("string")},
    ):
        source = TFRecordDataSource(paths, spec=spec)
        got = source.__getitems__([12, 0, 5])
        records = all_records(paths)
        for row, i in zip(got, [12, 0, 5]):
            want = swigflow.io.parse_single_example(records[i], spec)
            assert set(row) == set(want) and row["id"] == want["id"]
        assert source[12]["id"] == 1003


def test_pickles_without_its_files_and_reads_in_the_copy(tmp_path):
    paths = make_files(str(tmp_path), [6, 6])
    source = TFRecordDataSource(paths)
    first = source[7]
    copy = pickle.loads(pickle.dumps(source))
    assert copy[7] == first and len(copy) == 12 and repr(copy).startswith("<TFRecordDataSource")


def test_index_files_and_damage(tmp_path):
    paths = make_files(str(tmp_path), [5, 5], index=True)
    source = TFRecordDataSource(
        paths + [swigflow.io.default_index_path(p) for p in paths]
    )  # a glob's index files
    assert len(source) == 10
    with open(paths[1], "r+b") as f:  # a payload byte of record 5 (file 1, record 0) flipped
        f.seek(12)
        byte = f.read(1)
        f.seek(12)
        f.write(bytes([byte[0] ^ 1]))
    damaged = TFRecordDataSource(paths)
    assert damaged[4] == all_records(paths[:1])[4]
    with pytest.raises(errors.DataLossError, match=paths[1].replace("\\", "\\\\")):
        damaged.__getitems__([0, 5])


def test_distributed_sampler_two_ranks_two_workers_each_record_once(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, DistributedSampler

    paths = make_files(str(tmp_path), COUNTS)
    source = TFRecordDataSource(paths, spec={"id": FixedLenFeature([], "int64")})
    for epoch in range(2):
        seen = []
        for rank in range(2):
            sampler = DistributedSampler(source, num_replicas=2, rank=rank, seed=7)
            sampler.set_epoch(epoch)
            loader = DataLoader(source, batch_size=8, sampler=sampler, num_workers=2)
            for batch in loader:
                assert isinstance(batch["id"], torch.Tensor)
                seen.extend(batch["id"].tolist())
        # DistributedSampler pads to a multiple of the replicas: 73 records, 74 samples.
        ids = sorted(1000 * f + r for f, c in enumerate(COUNTS) for r in range(c))
        assert sorted(set(seen)) == ids and len(seen) == len(ids) + len(ids) % 2


def test_grain_map_dataset_and_a_data_loader_with_workers_resumed_from_its_checkpoint(tmp_path):
    """Grain's RandomAccessDataSource protocol: MapDataset.source(...) takes the source, and a
    grain.DataLoader with worker_count=2 stopped after 4 batches and restored from its iterator's
    state yields exactly the remaining batches of an uninterrupted run."""
    grain = pytest.importorskip("grain")
    paths = make_files(str(tmp_path), COUNTS)
    source = TFRecordDataSource(paths, spec={"id": FixedLenFeature([], "int64")})
    serialized = TFRecordDataSource(paths)  # parsed in the workers by ParseExampleTransform
    ids = sorted(1000 * f + r for f, c in enumerate(COUNTS) for r in range(c))
    mapped = grain.MapDataset.source(source).shuffle(seed=1)
    assert sorted(int(row["id"]) for row in mapped) == ids

    def loader():
        sampler = grain.samplers.IndexSampler(
            num_records=len(source),
            shard_options=grain.sharding.NoSharding(),
            shuffle=True,
            num_epochs=1,
            seed=3,
        )
        parse = swigflow.data.ParseExampleTransform({"id": FixedLenFeature([], "int64")})
        batch = grain.transforms.Batch(batch_size=5)
        return grain.DataLoader(
            data_source=serialized, sampler=sampler, operations=[parse, batch], worker_count=2
        )

    raw = grain.MapDataset.source(TFRecordDataSource(paths))
    parsed = raw.map(swigflow.data.ParseExampleTransform({"id": FixedLenFeature([], "int64")}))
    assert [int(row["id"]) for row in parsed] == sorted(ids)
    whole = [b["id"].tolist() for b in loader()]
    assert sorted(i for b in whole for i in b) == ids
    it = iter(loader())
    head = [next(it)["id"].tolist() for _ in range(4)]
    checkpoint = it.get_state()
    resumed = iter(loader())
    resumed.set_state(checkpoint)
    assert head + [b["id"].tolist() for b in resumed] == whole


def test_threads_sharing_a_source_read_the_right_files(tmp_path):
    """Eight threads reading at once, each file first touched by several of them: every file
    gets one slot of its own (a race once gave two files each other's slots)."""
    import concurrent.futures

    paths = make_files(str(tmp_path), [20] * 16)
    expected = all_records(paths)
    for trial in range(5):
        source = TFRecordDataSource(paths)
        rng = np.random.default_rng(trial)
        batches = [rng.integers(0, len(source), 16).tolist() for _ in range(64)]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            got = list(pool.map(source.__getitems__, batches))
        assert got == [[expected[i] for i in b] for b in batches]
