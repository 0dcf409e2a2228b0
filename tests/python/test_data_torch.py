"""swigflow.data.TorchIterableDataset with a real torch DataLoader (skipped without torch)."""

import numpy as np
import pytest
from data_util import make_files

import swigflow
from swigflow.data import Dataset, TFRecordDataset
from swigflow.io import FixedLenFeature

torch = pytest.importorskip("torch")


SPEC = {"id": FixedLenFeature([], "int64")}


def loader_ids(dataset, workers, **kwargs):
    loader = torch.utils.data.DataLoader(
        swigflow.data.TorchIterableDataset(dataset, **kwargs), batch_size=None, num_workers=workers
    )
    out = []
    for batch in loader:
        assert isinstance(batch["id"], torch.Tensor)
        out.extend(batch["id"].tolist())
    return out


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize("counts", [[30, 20, 25, 17], [101]], ids=["files", "one-file"])
def test_two_workers_see_each_record_once(tmp_path, index, counts):
    paths = make_files(str(tmp_path), counts, index)
    ds = TFRecordDataset(paths, num_parallel_reads=2).shuffle(16).batch(8).parse(SPEC)
    got = loader_ids(ds, workers=2)
    expected = sorted(1000 * f + r for f, c in enumerate(counts) for r in range(c))
    assert sorted(got) == expected


def test_ranks_and_workers_partition_together(tmp_path):
    paths = make_files(str(tmp_path), [40, 33, 27])
    ds = TFRecordDataset(paths).batch(5).parse(SPEC)
    parts = [loader_ids(ds, workers=2, rank=r, world_size=3) for r in range(3)]
    assert sorted(i for part in parts for i in part) == sorted(
        1000 * f + r for f, c in enumerate([40, 33, 27]) for r in range(c)
    )
    assert all(parts)


def test_file_names_need_a_seed_when_shuffled(tmp_path):
    make_files(str(tmp_path), [5, 5])
    pattern = str(tmp_path / "*.tfrecord")
    unseeded = Dataset.list_files(pattern).interleave(TFRecordDataset, cycle_length=2)
    with pytest.raises(ValueError, match="needs a seed"):
        swigflow.data.TorchIterableDataset(unseeded)
    seeded = Dataset.list_files(pattern, seed=1).interleave(TFRecordDataset, cycle_length=2)
    got = loader_ids(seeded.batch(3).parse(SPEC), workers=2)
    assert sorted(got) == [0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004]


def test_len_per_worker(tmp_path):
    paths = make_files(str(tmp_path), [10, 10], index=True)
    adapter = swigflow.data.TorchIterableDataset(TFRecordDataset(paths).batch(4))
    assert len(adapter) == 5
    assert np.sum([len(x) for x in adapter]) == 20


RESUMABLE_RUN = """
import pickle, sys
import swigflow
from swigflow.data import TFRecordDataset
from swigflow.io import FixedLenFeature
from torchdata.stateful_dataloader import StatefulDataLoader

mode, state_file, *paths = sys.argv[1:]
spec = {"id": FixedLenFeature([], "int64")}
ds = TFRecordDataset(paths, num_parallel_reads=2).shuffle(16, seed=5).batch(4).parse(spec)
loader = StatefulDataLoader(swigflow.data.TorchIterableDataset(ds), batch_size=None, num_workers=2)
if mode == "resume":
    with open(state_file, "rb") as f:
        loader.load_state_dict(pickle.load(f))
batches = []
for batch in loader:
    batches.append(batch["id"].tolist())
    if mode == "stop" and len(batches) == 5:
        with open(state_file, "wb") as f:
            pickle.dump(loader.state_dict(), f)
        break
print(batches)
"""


def test_a_stateful_dataloader_with_workers_resumes_exactly_in_a_new_process(tmp_path):
    """torchdata's StatefulDataLoader, 2 workers: stopped after 5 batches and restored from its
    state_dict() in a new process, it yields exactly the batches an uninterrupted run yields
    after those 5."""
    pytest.importorskip("torchdata.stateful_dataloader")
    import ast
    import subprocess
    import sys

    paths = make_files(str(tmp_path), [30, 21, 25, 17])
    state = str(tmp_path / "state.pickle")

    def run(mode):
        args = [sys.executable, "-c", RESUMABLE_RUN, mode, state, *paths]
        done = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return ast.literal_eval(done.stdout.strip().splitlines()[-1])

    whole = run("whole")
    first = run("stop")
    rest = run("resume")
    assert first == whole[:5] and rest == whole[5:]
    assert sorted(i for b in whole for i in b) == sorted(
        1000 * f + r for f, c in enumerate([30, 21, 25, 17]) for r in range(c)
    )


def test_state_dict_without_workers_and_a_foreign_part(tmp_path):
    paths = make_files(str(tmp_path), [12, 9])
    ds = TFRecordDataset(paths).batch(2).parse(SPEC)
    whole = [b["id"].tolist() for b in swigflow.data.TorchIterableDataset(ds)]
    adapter = swigflow.data.TorchIterableDataset(ds)
    it = iter(adapter)
    head = [next(it)["id"].tolist() for _ in range(3)]
    saved = adapter.state_dict()
    again = swigflow.data.TorchIterableDataset(ds)
    again.load_state_dict(saved)
    assert head + [b["id"].tolist() for b in again] == whole
    other_rank = swigflow.data.TorchIterableDataset(ds, rank=1, world_size=2)
    other_rank.load_state_dict(saved)
    with pytest.raises(ValueError, match="resume with the same world size"):
        iter(other_rank)
