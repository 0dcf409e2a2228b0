"""swigflow.datasets beyond TFDS's own answers (test_datasets_golden.py has those): bad input
(each a typed error naming the file), RLDS episodes as nested datasets, decoders feeding
decode_images, resuming, random access in worker processes, and data_dirs in object storage
(moto's S3 and a GCS emulator on 127.0.0.1) read through the shard cache."""

import json
import os
import pickle
import shutil
import subprocess
import sys

import numpy as np
import pytest
from gcs_store import gcs_bucket
from s3_store import moto_bucket

import swigflow as sf
import swigflow.datasets as tfds
from swigflow import errors

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "testdata", "tfds")
DATA = os.path.join(ROOT, "data")


@pytest.fixture
def copy(tmp_path):
    """A writable copy of a prepared dataset directory, under a path with a dot and a space."""

    def make(name="sf_classes", version="2.0.0"):
        target = tmp_path / "my.data dir" / name / version
        shutil.copytree(os.path.join(DATA, name, version), target)
        return target

    return make


def _edit_info(directory, edit):
    path = directory / "dataset_info.json"
    info = json.loads(path.read_text())
    edit(info)
    path.write_text(json.dumps(info))


# --- finding datasets -----------------------------------------------------------------------------


def test_missing_dataset_never_downloads(tmp_path):
    with pytest.raises(errors.NotFoundError) as e:
        tfds.load("mnist", split="train", data_dir=str(tmp_path))
    assert "Dataset mnist not found in" in e.value.message
    assert "never downloads" in e.value.message


def test_missing_version_and_wrong_config_say_what_exists(copy):
    directory = copy()
    data_dir = str(directory.parent.parent)
    with pytest.raises(errors.NotFoundError, match=r"at version 9\.9\.9"):
        tfds.builder("sf_classes:9.9.9", data_dir=data_dir)
    with pytest.raises(errors.NotFoundError, match="configs: large, small"):
        tfds.builder("sf_configs/medium", data_dir=DATA)
    with pytest.raises(ValueError, match="Parsing builder name"):
        tfds.builder("bad name!", data_dir=DATA)


def test_builder_from_directory_with_unusual_path(copy):
    directory = copy()
    builder = tfds.builder_from_directory(str(directory))
    assert builder.info.splits["train"].num_examples == 40
    assert sum(1 for _ in builder.as_dataset("validation")) == 10


def test_builder_from_directories_merges_splits(copy, tmp_path):
    first = copy()
    second = tmp_path / "other" / "sf_classes" / "2.0.0"
    shutil.copytree(first, second)
    merged = tfds.builder_from_directories([str(first), str(second)])
    assert merged.info.splits["train"].num_examples == 80
    assert merged.info.splits["train"].num_shards == 8
    assert sum(1 for _ in merged.as_dataset("train")) == 80


# --- bad metadata and shards ----------------------------------------------------------------------


def test_missing_or_corrupt_metadata_names_the_file(copy):
    directory = copy()
    (directory / "features.json").write_text("{not json")
    with pytest.raises(errors.DataLossError) as e:
        tfds.builder_from_directory(str(directory))
    assert "features.json" in e.value.message and "not valid JSON" in e.value.message
    (directory / "dataset_info.json").unlink()
    with pytest.raises(errors.NotFoundError, match=r"dataset_info\.json not found"):
        tfds.builder_from_directory(str(directory))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda i: i.update(version="2.x"), "Invalid version"),
        (lambda i: i["splits"][0].update(shardLengths=["ten"]), "is not a number"),
        (lambda i: i["splits"][0].update(shardLengths=["-1"]), "is negative"),
        (lambda i: i.pop("name"), "no dataset name"),
        (lambda i: i["splits"].append(dict(i["splits"][0])), "listed twice"),
    ],
)
def test_bad_dataset_info_fields(copy, edit, message):
    directory = copy()
    _edit_info(directory, edit)
    with pytest.raises(errors.DataLossError, match=message) as e:
        tfds.builder_from_directory(str(directory))
    assert "dataset_info.json" in e.value.message


def test_unknown_feature_class_names_feature_and_class(copy):
    directory = copy()
    path = directory / "features.json"
    features = json.loads(path.read_text())
    features["featuresDict"]["features"]["label"]["pythonClassName"] = "my_pkg.MyLabel"
    path.write_text(json.dumps(features))
    with pytest.raises(errors.UnimplementedError) as e:
        tfds.builder_from_directory(str(directory))
    assert "feature label: my_pkg.MyLabel is not a TFDS feature connector" in e.value.message
    assert "features.json" in e.value.message


def test_shard_shorter_than_its_info_names_the_file(copy):
    directory = copy()
    _edit_info(directory, lambda i: i["splits"][1].update(shardLengths=["3", "2", "3", "3"]))
    shard = directory / "sf_classes-validation.tfrecord-00000-of-00004"
    builder = tfds.builder_from_directory(str(directory))
    with pytest.raises(errors.DataLossError) as e:
        list(builder.as_dataset("validation"))
    assert str(shard) in e.value.message and "has 2 records" in e.value.message
    with pytest.raises(errors.DataLossError, match=r"has 2 records, but dataset_info\.json says 3"):
        builder.as_data_source("validation")


def test_truncated_shard_raises_with_file_and_offset(copy):
    directory = copy()
    shard = directory / "sf_classes-train.tfrecord-00001-of-00004"
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) - 100])
    ds = tfds.builder_from_directory(str(directory)).as_dataset("train")
    with pytest.raises(errors.DataLossError) as e:
        list(ds)
    assert "truncated record at" in e.value.message and str(shard) in e.value.message


def test_missing_shard_is_not_found(copy):
    directory = copy()
    shard = directory / "sf_classes-train.tfrecord-00002-of-00004"
    shard.unlink()
    with pytest.raises(errors.NotFoundError) as e:
        tfds.builder_from_directory(str(directory)).as_dataset("train")
    assert str(shard) in e.value.message


def test_record_that_is_not_an_example(copy):
    directory = copy()
    shard = directory / "sf_classes-validation.tfrecord-00000-of-00004"
    with sf.io.TFRecordWriter(str(shard)) as writer:
        writer.write(b"\xff\xff not a protobuf")
        writer.write(b"\x0a")
    with pytest.raises(errors.InvalidArgumentError):
        list(tfds.builder_from_directory(str(directory)).as_dataset("validation"))


# --- reading -----------------------------------------------------------------------------------


def test_rlds_episodes_flat_map_to_steps():
    builder = tfds.builder("sf_rlds", data_dir=DATA)
    episodes = builder.as_dataset("train")
    steps = list(episodes.flat_map(lambda episode: episode["steps"]))
    lengths = [len(list(e["steps"])) for e in builder.as_dataset("train")]
    assert len(steps) == sum(lengths) == sum(2 + e % 5 for e in range(12))
    assert steps[0]["observation"]["image"].shape == (6, 8, 3)
    assert steps[0]["is_first"] and not steps[0]["is_last"]
    first = next(iter(builder.as_dataset("train")))["steps"]
    assert len(first) == first.cardinality() > 0
    # Each step decodes when it is read, and can be read at random.
    last = sf.data.experimental.at(first, len(first) - 1)
    assert last["is_last"] and last["action"].dtype == np.float32


def test_skip_decoding_feeds_decode_images():
    builder = tfds.builder("sf_classes", data_dir=DATA)
    raw = builder.as_dataset("validation", decoders={"image": tfds.decode.SkipDecoding()})
    first = next(iter(raw))
    assert type(first["image"]) is bytes and first["image"][:2] == b"\xff\xd8"
    batches = list(raw.batch(4).decode_images(key="image", size=(16, 16), dtype="float32"))
    assert [b["image"].shape for b in batches] == [(4, 16, 16, 3), (4, 16, 16, 3), (2, 16, 16, 3)]
    decoded = [e["image"] for e in builder.as_dataset("validation")]
    want = sf.image.resize(decoded[0], (16, 16)) / 255.0
    np.testing.assert_allclose(batches[0]["image"][0], want, atol=1e-5)


def test_custom_decoder_gets_the_feature():
    @tfds.decode.make_decoder()
    def shape_only(serialized, feature):
        return (feature.shape, len(serialized))

    ds = tfds.builder("sf_classes", data_dir=DATA).as_dataset(
        "validation", decoders={"image": shape_only()}
    )
    shape, size = next(iter(ds))["image"]
    assert shape == (None, None, 3) and size > 100


def test_as_supervised_and_errors():
    ds = tfds.load("sf_classes", split="validation", data_dir=DATA, as_supervised=True)
    image, label = next(iter(ds))
    assert image.ndim == 3 and label.dtype == np.int64
    with pytest.raises(ValueError, match="does not support a supervised structure"):
        tfds.load("sf_rlds", split="train", data_dir=DATA, as_supervised=True)


def test_load_whole_split_and_info():
    batch, info = tfds.load(
        "sf_configs/large", split="train", data_dir=DATA, batch_size=-1, with_info=True
    )
    assert batch["x"].shape == (15,) and sorted(batch["x"].tolist()) == [2 * i for i in range(15)]
    assert info.full_name == "sf_configs/large/1.0.0"
    everything = tfds.load("sf_classes", data_dir=DATA)
    assert sorted(everything) == ["train", "validation"]


def test_shuffle_files_is_seeded_and_complete():
    builder = tfds.builder("sf_features", data_dir=DATA)
    config = tfds.ReadConfig(shuffle_seed=5)
    ids = lambda: [  # noqa: E731
        int(e["id"]) for e in builder.as_dataset("train", shuffle_files=True, read_config=config)
    ]
    first = ids()
    assert sorted(first) == list(range(60)) and first == ids()
    assert first != [int(e["id"]) for e in builder.as_dataset("train")]


def test_tfds_ids_name_file_and_record():
    config = tfds.ReadConfig(add_tfds_id=True, interleave_cycle_length=1)
    ds = tfds.builder("sf_classes", data_dir=DATA).as_dataset("validation[1:4]", read_config=config)
    ids = [e["tfds_id"] for e in ds]
    assert ids[0] == b"sf_classes-validation.tfrecord-00000-of-00004__1"
    assert len(ids) == 3


def test_iterator_resumes_mid_split():
    ds = tfds.builder("sf_features", data_dir=DATA).as_dataset("train[5:50]")
    every = [int(e["id"]) for e in ds]
    it = ds.iterator()
    head = [int(next(it)["id"]) for _ in range(17)]
    state = it.state()
    rest = [int(e["id"]) for e in ds.iterator(state=json.loads(json.dumps(state)))]
    assert head + rest == every


def test_data_source_pickles_into_workers():
    source = tfds.data_source("sf_classes", split="validation", data_dir=DATA)
    clone = pickle.loads(pickle.dumps(source))
    assert len(clone) == 10
    np.testing.assert_array_equal(clone[4]["image"], source[4]["image"])
    assert clone[-1]["file_name"] == source[9]["file_name"]
    with pytest.raises(IndexError):
        source[10]


def test_ordered_dataset_guard(copy):
    directory = copy()
    _edit_info(directory, lambda i: i.update(disableShuffling=True))
    builder = tfds.builder_from_directory(str(directory))
    with pytest.raises(ValueError, match="ordered dataset"):
        builder.as_dataset("train", shuffle_files=True)
    assert [e["file_name"] for e in builder.as_dataset("train")][:1] == [
        next(iter(builder.as_data_source("train")))["file_name"]
    ]


# --- object storage ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gcs():
    """A GCS emulator on 127.0.0.1 (gcp-storage-emulator) holding sf_classes, and the GET
    requests it served."""
    gets = []
    with gcs_bucket("tfds", on_get=gets.append) as fs:
        fs.put(os.path.join(DATA, "sf_classes"), "tfds/data/sf_classes", recursive=True)
        yield "gs://tfds/data", gets


def test_gcs_data_dir_second_epoch_reads_the_cache(gcs, tmp_path):
    data_dir, gets = gcs
    builder = tfds.builder("sf_classes", data_dir=data_dir)
    assert builder.info.splits["train"].num_examples == 40
    config = tfds.ReadConfig(cache_dir=str(tmp_path / "cache"))
    ds = builder.as_dataset("train", read_config=config)
    local = [e["file_name"] for e in tfds.builder("sf_classes", data_dir=DATA).as_dataset("train")]
    assert [e["file_name"] for e in ds] == local
    assert any("alt=media" in g for g in gets)
    del gets[:]
    assert [e["file_name"] for e in ds] == local  # epoch 2
    assert [g for g in gets if "alt=media" in g] == []
    source = builder.as_data_source("validation[2:5]")
    assert [int(source[i]["label"]) for i in range(3)] == [
        int(e["label"]) for e in tfds.builder("sf_classes", data_dir=DATA).as_data_source(
            "validation[2:5]")
    ]  # fmt: skip


@pytest.fixture(scope="module")
def s3():
    import fsspec

    with moto_bucket("tfds"):
        fs = fsspec.filesystem("s3", skip_instance_cache=True)
        fs.put(os.path.join(DATA, "sf_rlds"), "tfds/data/sf_rlds", recursive=True)
        yield "s3://tfds/data"


def test_s3_data_dir_reads_as_local(s3):
    remote = tfds.builder("sf_rlds", data_dir=s3)
    local = tfds.builder("sf_rlds", data_dir=DATA)
    assert remote.info.describe()["splits"] == local.info.describe()["splits"]
    got = [len(list(e["steps"])) for e in remote.as_dataset("train[3:9]")]
    assert got == [len(list(e["steps"])) for e in local.as_dataset("train[3:9]")]
    episode = remote.as_data_source("train")[5]
    assert episode["episode_metadata"]["file_path"] == local.as_data_source("train")[5][
        "episode_metadata"]["file_path"]  # fmt: skip


def test_pytorch_example_trains():
    pytest.importorskip("torch", reason="the example trains a PyTorch model")
    example = os.path.join(os.path.dirname(os.path.dirname(ROOT)), "..", "examples")
    script = os.path.join(os.path.normpath(example), "tfds_pytorch.py")
    result = subprocess.run(
        [sys.executable, script, "--epochs", "1", "--data-dir", DATA],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "epoch 0: loss" in result.stdout and "validation: accuracy" in result.stdout
    assert "over 10 images of 4 classes (cat, dog, bird, fish)" in result.stdout


def test_shard_slices_read_whole_shards():
    builder = tfds.builder("sf_features", data_dir=DATA)
    paths = builder.info.splits["train"].filepaths
    spec = {"id": sf.io.FixedLenFeature([], "int64")}

    def ids_in(path):
        return [int(e["id"]) for e in sf.data.TFRecordDataset(path).parse(spec)]

    one = [int(e["id"]) for e in builder.as_dataset("train[1shard]")]
    assert one == ids_in(paths[1])
    config = tfds.ReadConfig(interleave_cycle_length=1)
    some = [int(e["id"]) for e in builder.as_dataset("train[2shard:4shard]", read_config=config)]
    assert some == ids_in(paths[2]) + ids_in(paths[3])
    assert builder.info.splits["train[-2shard:]"].num_examples == 6


def test_data_source_in_grain_and_torch_workers():
    """The data source as Grain's RandomAccessDataSource and a PyTorch map-style dataset read
    by DataLoader worker processes (the source is pickled into each)."""
    source = tfds.data_source("sf_classes", split="train", data_dir=DATA)
    names = sorted(source[i]["file_name"] for i in range(len(source)))
    grain = pytest.importorskip("grain")
    mapped = grain.MapDataset.source(source).shuffle(seed=1)
    assert sorted(row["file_name"] for row in mapped) == names
    torch = pytest.importorskip("torch")
    loader = torch.utils.data.DataLoader(
        source, batch_size=8, num_workers=2, collate_fn=lambda rows: rows,
        sampler=torch.utils.data.RandomSampler(source, generator=torch.Generator().manual_seed(0)),
    )  # fmt: skip
    seen = [row["file_name"] for batch in loader for row in batch]
    assert sorted(seen) == names and seen != names
