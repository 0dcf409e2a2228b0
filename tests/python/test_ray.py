"""swigflow.ray in a real Ray local cluster (ray.init(num_cpus=2)): reading with and without a
spec, compressed, damaged and indexed files split across tasks, writing, round trips, and
TensorFlow's view of both (golden parse results and TF-written files)."""

import contextlib
import hashlib
import json
import os
import sys

import data_util
import http_store
import numpy as np
import pytest
import s3_store
from golden import GOLDEN, MANIFEST, as_manifest, spec_from_manifest

import swigflow as sf
import swigflow.ray
from swigflow import errors
from swigflow.io import FixedLenFeature, VarLenFeature

TESTDATA = os.path.join(os.path.dirname(__file__), "..", "testdata")
ray = pytest.importorskip("ray", reason="the ray extra (swigflow[ray]) is missing")
pytest.importorskip("ray.data", reason="the ray extra (swigflow[ray]) is missing")


@pytest.fixture(scope="module", autouse=True)
def local_cluster():
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
    )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # Ray Data yields blocks as tasks finish unless told to keep the order (for every source).
    context.execution_options.preserve_order = True
    yield
    ray.shutdown()


def _example(i):
    features = {
        "id": [i],
        "score": [i / 4, -i / 8],
        "name": [b"row-%d" % i],
        "tags": [b"t"] * (i % 3),
        "ids": list(range(i % 4)),
    }
    return sf.train.example_from_dict({k: v for k, v in features.items() if v})


SPEC = {
    "id": FixedLenFeature([], "int64"),
    "score": FixedLenFeature([2], "float32"),
    "name": FixedLenFeature([], "string"),
    "tags": VarLenFeature("string"),
    "ids": VarLenFeature("int64"),
}


def _write(path, ids, compression=None, index=False):
    with sf.io.TFRecordWriter(str(path), compression) as w:
        for i in ids:
            w.write(_example(i))
    if index:
        sf.io.create_index(str(path))


def _check_rows(rows, ids):
    assert [r["id"] for r in rows] == list(ids)
    for r in rows:
        i = r["id"]
        assert np.allclose(r["score"], [i / 4, -i / 8])
        assert r["name"] == b"row-%d" % i
        assert list(r["tags"]) == [b"t"] * (i % 3)
        assert list(r["ids"]) == list(range(i % 4))


def test_read_with_spec_keeps_every_row_once_in_order(tmp_path):
    for shard in range(3):
        _write(tmp_path / f"s-{shard}.tfrecord", range(shard * 1000, shard * 1000 + 1000))
    ds = swigflow.ray.read_tfrecords(str(tmp_path), spec=SPEC)
    _check_rows(ds.take_all(), range(3000))


def test_spec_none_is_inferred_as_swigflow_inspect_does(tmp_path):
    _write(tmp_path / "a.tfrecord", range(50))
    source = swigflow.ray.TFRecordDatasource(str(tmp_path / "a.tfrecord"))
    assert source.features == {
        "id": FixedLenFeature([], "int64"),
        "ids": VarLenFeature("int64"),
        "name": FixedLenFeature([], "string"),
        "score": FixedLenFeature([2], "float32"),
        "tags": VarLenFeature("string"),
    }
    rows = ray.data.read_datasource(source).take_all()
    _check_rows(rows, range(50))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files(tmp_path, compression):
    _write(tmp_path / "c.tfrecord", range(700), compression)
    ds = swigflow.ray.read_tfrecords(
        str(tmp_path / "c.tfrecord"), spec=SPEC, compression_type=compression
    )
    _check_rows(ds.take_all(), range(700))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compression_is_told_from_the_files_when_not_given(tmp_path, compression):
    _write(tmp_path / "c.tfrecord", range(700), compression)
    ds = swigflow.ray.read_tfrecords(str(tmp_path / "c.tfrecord"), spec=SPEC)
    _check_rows(ds.take_all(), range(700))
    inferred = swigflow.ray.read_tfrecords(str(tmp_path / "c.tfrecord"), on_error="skip_record")
    assert inferred.count() == 700
    # A list mixing compressions is read, each file as its first bytes say (as Ray's own
    # reader does): it was refused before.
    _write(tmp_path / "plain.tfrecord", range(700, 705))
    _write(tmp_path / "z.tfrecord", range(705, 710), "ZLIB" if compression == "GZIP" else "GZIP")
    mixed = swigflow.ray.read_tfrecords(str(tmp_path / "*.tfrecord"), spec=SPEC)
    _check_rows(sorted(mixed.take_all(), key=lambda r: r["id"]), range(710))


def test_schema_is_inferred_past_damage_under_the_skip_policies(tmp_path):
    path = tmp_path / "bad.tfrecord"
    _write(path, range(100))
    data = bytearray(path.read_bytes())
    data[20] ^= 0x40  # inside the first record
    path.write_bytes(bytes(data))
    for policy in ("skip_record", "skip_file"):
        source = swigflow.ray.TFRecordDatasource(str(path), on_error=policy)
        assert "id" in source.features
    rows = swigflow.ray.read_tfrecords(str(path), on_error="skip_record").take_all()
    assert [r["id"] for r in rows] == list(range(1, 100))


def test_indexed_files_are_split_across_tasks_without_loss_or_duplication(tmp_path):
    _write(tmp_path / "big.tfrecord", range(10_000), index=True)
    _write(tmp_path / "small.tfrecord", range(10_000, 10_100), index=True)
    source = swigflow.ray.TFRecordDatasource(
        [str(tmp_path / "big.tfrecord"), str(tmp_path / "small.tfrecord")], spec=SPEC
    )
    tasks = source.get_read_tasks(8)
    assert len(tasks) == 8
    assert sum(t.metadata.num_rows for t in tasks) == 10_100
    ds = swigflow.ray.read_tfrecords(str(tmp_path / "*.tfrecord"), spec=SPEC, override_num_blocks=8)
    assert ds.count() == 10_100
    _check_rows(sorted(ds.take_all(), key=lambda r: r["id"]), range(10_100))


def test_damage_raises_with_file_and_offset_or_is_skipped(tmp_path):
    path = tmp_path / "bad.tfrecord"
    _write(path, range(100))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(Exception, match=r"(corrupted|truncated) record at \d+ in .*bad.tfrecord"):
        swigflow.ray.read_tfrecords(str(path), spec=SPEC).take_all()
    rows = swigflow.ray.read_tfrecords(str(path), spec=SPEC, on_error="skip_record").take_all()
    assert 95 <= len(rows) < 100
    ids = [r["id"] for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    before = swigflow.ray.read_tfrecords(str(path), spec=SPEC, on_error="skip_file").take_all()
    assert [r["id"] for r in before] == list(range(len(before))) and len(before) < 100


def test_rows_equal_tensorflow_parse_results():
    spec = {k: spec_from_manifest(v) for k, v in MANIFEST["parse_example"]["spec"].items()}
    path = os.path.join(GOLDEN, MANIFEST["parse_example"]["file"])
    rows = swigflow.ray.read_tfrecords(path, spec=spec).take_all()
    for key, want in MANIFEST["parse_example"]["result"].items():
        dtype = {"float32": np.float32, "int64": np.int64, "string": object}[spec[key].dtype]
        if "indices" in want:  # VarLen: row i holds the values TF put at [i, *]
            rows_of = np.asarray(want["indices"])[:, 0] if want["indices"] else np.zeros(0)
            for i, row in enumerate(rows):
                expected = [v for v, r in zip(want["values"], rows_of) if r == i]
                assert as_manifest(np.asarray(row[key], dtype=dtype), dtype) == expected, key
        else:
            got = [v for row in rows for v in as_manifest(np.asarray(row[key], dtype=dtype), dtype)]
            assert got == want["values"], key
    assert len(rows) == MANIFEST["parse_example"]["result"]["id"]["shape"][0]


def test_write_then_read_back_in_order_with_indexes(tmp_path):
    rows = [
        {"id": i, "x": np.arange(3, dtype=np.float32) * i, "s": f"r{i}", "v": list(range(i % 3))}
        for i in range(2500)
    ]
    ds = ray.data.from_items(rows, override_num_blocks=5)
    files = swigflow.ray.write_tfrecords(ds, str(tmp_path / "out"), num_rows_per_file=600)
    assert [os.path.basename(f) for f in files] == sorted(os.path.basename(f) for f in files)
    counts = [len(sf.io.TFRecordFile(f)) for f in files]
    assert sum(counts) == 2500 and all(c <= 600 for c in counts)
    assert all(os.path.exists(sf.io.default_index_path(f)) for f in files)
    # Index files are hidden (.NAME.idx): Ray's own directory readers and the usual globs pass
    # over them (ray.data.read_tfrecords(folder) read them as records and crashed before).
    seen = ray.data.read_binary_files(str(tmp_path / "out"), include_paths=True).take_all()
    assert sorted(os.path.basename(r["path"]) for r in seen) == sorted(
        os.path.basename(f) for f in files
    )
    assert sorted(sf.io.gfile.glob(str(tmp_path / "out" / "*"))) == sorted(files)
    listed = sf.data.Dataset.list_files(str(tmp_path / "out" / "*.tfrecord"), shuffle=False)
    spec = {
        "id": FixedLenFeature([], "int64"),
        "x": FixedLenFeature([3], "float32"),
        "s": FixedLenFeature([], "string"),
        "v": VarLenFeature("int64"),
    }
    got = sf.io.parse_example(list(sf.data.TFRecordDataset(list(listed))), spec)
    assert got["id"].tolist() == list(range(2500))
    assert np.array_equal(got["x"], np.arange(3, dtype=np.float32) * np.arange(2500)[:, None])
    assert got["s"].tolist() == [b"r%d" % i for i in range(2500)]
    assert got["v"].values.tolist() == [j for i in range(2500) for j in range(i % 3)]
    # And the round trip through swigflow.ray itself.
    back = swigflow.ray.read_tfrecords(str(tmp_path / "out"), spec=spec).take_all()
    assert [r["id"] for r in back] == list(range(2500))


def test_write_missing_values_as_empty_lists_of_the_columns_kind(tmp_path):
    """A None beside ints is an empty int64_list, not float_list [nan]; likewise for floats,
    strings and lists (Ray's numpy view turns an int column with nulls into NaN floats)."""
    rows = [
        {"i": i, "f": i / 2, "s": f"r{i}", "v": [i, i + 1]} if i % 3 else
        {"i": None, "f": None, "s": None, "v": None}
        for i in range(30)
    ]  # fmt: skip
    ds = ray.data.from_items(rows, override_num_blocks=2)
    files = swigflow.ray.write_tfrecords(ds, str(tmp_path / "out"))
    spec = {
        "i": VarLenFeature("int64"),
        "f": VarLenFeature("float32"),
        "s": VarLenFeature("string"),
        "v": VarLenFeature("int64"),
    }
    records = [r for f in files for r in sf.io.tf_record_iterator(f)]
    got = sf.io.parse_example(records, spec)
    present = [i for i in range(30) if i % 3]
    assert got["i"].values.tolist() == present
    assert got["f"].values.tolist() == [i / 2 for i in present]
    assert got["s"].values.tolist() == [b"r%d" % i for i in present]
    assert got["v"].values.tolist() == [j for i in present for j in (i, i + 1)]
    # Rows with None hold no values at all: the row ids of the sparse values skip them.
    assert sorted(set(got["i"].indices[:, 0].tolist())) == present


def test_a_block_whose_column_is_all_none_reads_back_empty_for_any_spec(tmp_path):
    """A block where a column holds only None has no type to write it as: the feature is left
    out of its Examples, which reads back empty for any VarLen spec (an empty float_list, as
    before, failed an int64 or string spec, in swigflow and in TF)."""
    rows = [{"id": i, "label": None, "name": None} for i in range(10)]
    files = swigflow.ray.write_tfrecords(ray.data.from_items(rows), str(tmp_path / "out"))
    records = [r for f in files for r in sf.io.tf_record_iterator(f)]
    for kind in ("int64", "float32", "string"):
        spec = {"id": FixedLenFeature([], "int64"), "label": VarLenFeature(kind),
                "name": VarLenFeature(kind)}  # fmt: skip
        got = sf.io.parse_example(records, spec)
        assert got["id"].tolist() == list(range(10))
        assert len(got["label"].values) == 0 and len(got["name"].values) == 0
        assert got["label"].dense_shape.tolist() == [10, 0]


def test_write_into_a_folder_with_files_is_refused_unless_overwriting(tmp_path):
    out = tmp_path / "out"
    first = swigflow.ray.write_tfrecords(ray.data.range(8100), str(out), num_rows_per_file=1000)
    (out / "README.txt").write_text("not ours")
    with pytest.raises(errors.AlreadyExistsError, match="mode='overwrite'"):
        swigflow.ray.write_tfrecords(ray.data.range(100), str(out))
    assert sorted(os.listdir(out)) == sorted(
        [os.path.basename(f) for f in first]
        + [os.path.basename(sf.io.default_index_path(f)) for f in first] + ["README.txt"]
    )  # fmt: skip
    files = swigflow.ray.write_tfrecords(ray.data.range(100), str(out), mode="overwrite")
    assert sum(len(sf.io.TFRecordFile(f)) for f in files) == 100
    left = sorted(os.listdir(out))
    assert "README.txt" in left and len(left) == 1 + 2 * len(files)
    with pytest.raises(ValueError, match="mode must be"):
        swigflow.ray.write_tfrecords(ray.data.range(1), str(out), mode="append")


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_written_files_are_those_tensorflow_read_back_completely_in_order(tmp_path):
    """tf_ray/MANIFEST.json: TF 2.21 read these files (tests/testdata/make_tf_ray.py)."""
    sys.path.insert(0, TESTDATA)
    import make_tf_ray

    with open(os.path.join(TESTDATA, "tf_ray", "MANIFEST.json")) as f:
        manifest = json.load(f)
    spec = {
        "id": FixedLenFeature([], "int64"),
        "x": FixedLenFeature([3], "float32"),
        "s": FixedLenFeature([], "string"),
        "v": VarLenFeature("int64"),
    }
    for name, kwargs, compression in [
        ("per_block", {}, None),
        ("per_70_rows_gzip", {"num_rows_per_file": 70, "compression_type": "GZIP"}, "GZIP"),
    ]:
        ds = ray.data.from_items(make_tf_ray.rows(), override_num_blocks=make_tf_ray.BLOCKS)
        files = swigflow.ray.write_tfrecords(ds, str(tmp_path / name), **kwargs)
        want = manifest[name]
        if compression is None:  # one file per block: the very bytes TF read
            got = {os.path.basename(f): _sha256(f) for f in files}
            assert got == want["files"]
        records = [r for f in files for r in sf.io.tf_record_iterator(f, compression)]
        parsed = sf.io.parse_example(records, spec)
        assert parsed["id"].tolist() == [r["id"] for r in want["tf_rows"]]
        assert parsed["x"].tolist() == [r["x"] for r in want["tf_rows"]]
        assert [s.decode() for s in parsed["s"]] == [r["s"] for r in want["tf_rows"]]
        v = sf.io.parse_example(records, {"v": VarLenFeature("int64")})["v"]
        rows_of = v.indices[:, 0]
        assert [v.values[rows_of == i].tolist() for i in range(len(records))] == [
            r["v"] for r in want["tf_rows"]
        ]


def test_write_one_file_per_block_compressed(tmp_path):
    ds = ray.data.range(1000, override_num_blocks=4)
    files = swigflow.ray.write_tfrecords(ds, str(tmp_path / "gz"), compression_type="GZIP")
    assert len(files) == 4 and all(f.endswith(".tfrecord.gz") for f in files)
    source = sf.data.TFRecordDataSource(files, compression_type="GZIP")  # seek indexes
    assert all(os.path.exists(sf.io.default_index_path(f)) for f in files)
    assert len(source) == 1000
    assert sf.train.Example.FromString(source[777]).features.feature["id"].int64_list.value == [777]
    ids = [
        sf.train.Example.FromString(r).features.feature["id"].int64_list.value[0]
        for f in files
        for r in sf.io.tf_record_iterator(f, "GZIP")
    ]
    assert ids == list(range(1000))


def test_zlib_files_are_named_as_the_cli_names_them(tmp_path):
    """One suffix table (swigflow.io.tf_record.COMPRESSION_SUFFIXES): ZLIB is .zlib, as the
    CLI's shards; an overwrite also removes the .zz files earlier versions wrote."""
    out = tmp_path / "z"
    out.mkdir()
    (out / "part-000000-000000.tfrecord.zz").write_bytes(b"old")
    ds = ray.data.range(100, override_num_blocks=2)
    files = swigflow.ray.write_tfrecords(ds, str(out), compression_type="ZLIB", mode="overwrite")
    assert len(files) == 2 and all(f.endswith(".tfrecord.zlib") for f in files)
    assert sorted(os.listdir(out)) == sorted(
        [os.path.basename(f) for f in files]
        + [os.path.basename(sf.io.default_index_path(f)) for f in files]
    )
    assert sum(len(sf.io.TFRecordFile(f, options="ZLIB")) for f in files) == 100


def test_bad_arguments_are_clear(tmp_path):
    with pytest.raises(errors.NotFoundError, match="no TFRecord files"):
        swigflow.ray.read_tfrecords(str(tmp_path / "none-*.tfrecord"), spec=SPEC)
    with pytest.raises(ValueError, match="on_error"):
        swigflow.ray.read_tfrecords(str(tmp_path), spec=SPEC, on_error="ignore")
    with pytest.raises(ValueError, match="num_rows_per_file"):
        swigflow.ray.write_tfrecords(ray.data.range(3), str(tmp_path / "o"), num_rows_per_file=0)


def test_build_image_dataset_on_ray_writes_what_a_local_run_does(tmp_path, capsys):
    from swigflow import cli

    images = tmp_path / "images"
    data_util.make_image_folder(images, per_class=9)
    outs = [tmp_path / "local", tmp_path / "ray"]
    for out, extra in zip(outs, ([], ["--ray"])):
        args = ["build-image-dataset", "--train-directory", str(images), "--output-directory"]
        args += [str(out), "--train-shards", "4", "--validation-fraction", "0.25", "--seed", "3"]
        assert cli.main([*args, "--no-progress", *extra]) == 0
    assert "skipped 1 unreadable image" in capsys.readouterr().out
    names = sorted(os.listdir(outs[0]))
    assert sorted(os.listdir(outs[1])) == names
    assert ".validation-00000-of-00001.idx" in names
    for name in names:
        if name != ".swigflow-build.json":  # the journal lists shards as they finished
            assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    # --resume on Ray keeps the whole shards and writes the missing one again, the same.
    (outs[1] / "train-00002-of-00004").unlink()
    assert cli.main([*args, "--no-progress", "--ray", "--resume"]) == 0
    out = capsys.readouterr().out
    assert " images to 1 shard(s) " in out and "kept 4 complete shard(s)" in out
    shard = "train-00002-of-00004"
    assert (outs[0] / shard).read_bytes() == (outs[1] / shard).read_bytes()


def test_build_image_dataset_on_ray_reports_a_failing_task(tmp_path, capsys):
    from swigflow import cli

    images = tmp_path / "images"
    data_util.make_image_folder(images)
    out = tmp_path / "out"
    os.makedirs(out / "train-00000-of-00001.tmp")  # the shard's temporary name cannot be made
    args = ["build-image-dataset", "--train-directory", str(images), "--output-directory"]
    assert cli.main([*args, str(out), "--no-progress", "--ray"]) == 1
    err = capsys.readouterr().err
    assert "train-00000-of-00001.tmp" in err
    assert "Traceback" not in err and "Ray" not in err, err
    assert not (out / "train-00000-of-00001").exists()


def test_read_tasks_keep_remote_files_in_the_shard_cache(tmp_path):
    """A read task's remote files go through the datasource's cache_dir (the task runs here,
    where the memory:// store lives)."""
    import fsspec

    from swigflow.ray import sources

    local = tmp_path / "a.tfrecord"
    with sf.io.TFRecordWriter(str(local)) as w:
        for i in range(50):
            w.write(_example(i).SerializeToString())
    url = f"memory://ray-cache-{os.getpid()}/a.tfrecord"
    fsspec.filesystem("memory").pipe(url, local.read_bytes())
    source = sources.TFRecordDatasource([url], spec=SPEC, cache_dir=str(tmp_path / "cache"))
    (task,) = source.get_read_tasks(1)
    rows = sum(block.num_rows for block in task())
    assert rows == 50
    copies = [n for n in os.listdir(tmp_path / "cache") if not n.startswith(".")]
    assert len(copies) == 1  # beside it, the hidden file naming the URL's latest copy
    fsspec.filesystem("memory").rm(url)
    with pytest.raises(errors.NotFoundError):  # the store is asked whether the copy is current
        list(task())


class _CountingGets(http_store.RangeHandler):
    """Counts GETs per path in server.gets (HEADs, which ask for versions, are not counted)."""

    def send_head(self):
        if self.command == "GET":
            with self.server.lock:
                self.server.gets[self.path] = self.server.gets.get(self.path, 0) + 1
        return super().send_head()


@contextlib.contextmanager
def _indexed_store(root, files, rows):
    """`files` indexed files of `rows` rows each (ids in order) under `root`, served on
    127.0.0.1 with their GETs counted: (server, the files' URLs)."""
    pytest.importorskip("aiohttp", reason="fsspec's http:// needs aiohttp (swigflow[remote])")
    for k in range(files):
        _write(root / f"f{k}.tfrecord", range(k * rows, (k + 1) * rows), index=True)
    server, base = http_store.start(root, _CountingGets)
    server.gets = {}
    try:
        yield server, [f"{base}/f{k}.tfrecord" for k in range(files)]
    finally:
        server.shutdown()


def test_a_second_read_through_the_cache_makes_no_data_request(tmp_path):
    """Six indexed files (as swigflow writes them) read twice with cache_dir: the first read
    caches every file (a task reads each whole, where pieces cut at record offsets left most
    files uncached), and the second asks the store only for versions: no GET at all, of data
    or of index files. Before: 48-69 requests, 2 of 6 files cached."""
    with _indexed_store(tmp_path, 6, 400) as (server, urls):
        cache = str(tmp_path / "cache")
        first = swigflow.ray.read_tfrecords(urls, spec=SPEC, cache_dir=cache, override_num_blocks=4)
        _check_rows(first.take_all(), range(2400))
        copies = [n for n in os.listdir(cache) if not n.startswith(".")]
        assert len(copies) == 6, copies
        server.gets = {}
        again = swigflow.ray.read_tfrecords(urls, spec=SPEC, cache_dir=cache, override_num_blocks=4)
        _check_rows(again.take_all(), range(2400))
        assert server.gets == {}


def test_a_datasets_second_epoch_fetches_no_index_file(tmp_path):
    with _indexed_store(tmp_path, 3, 100) as (server, urls):
        ds = sf.data.TFRecordDataset(urls, cache_dir=str(tmp_path / "cache"))
        assert len(list(ds)) == 300
        assert all(server.gets.get(f"/.f{k}.tfrecord.idx") for k in range(3)), server.gets
        server.gets = {}
        assert len(list(ds)) == 300
        assert server.gets == {}


# --- TFDS-prepared datasets ----------------------------------------------------------------------

TFDS_DATA = os.path.join(TESTDATA, "tfds", "data")


def test_read_tfds_decoded_columns_in_file_order():
    import swigflow.datasets as tfds

    ds = swigflow.ray.read_tfds("sf_classes", split="validation[1:9]", data_dir=TFDS_DATA,
                                override_num_blocks=3)  # fmt: skip
    rows = ds.take_all()
    builder = tfds.builder("sf_classes", data_dir=TFDS_DATA)
    ordered = tfds.ReadConfig(interleave_cycle_length=1)
    want = list(builder.as_dataset("validation[1:9]", read_config=ordered))
    assert len(rows) == len(want) == 8
    for row, example in zip(rows, want):
        assert row["label"] == example["label"] and isinstance(row["label"], (int, np.integer))
        assert row["file_name"] == example["file_name"]
        np.testing.assert_array_equal(row["image"], example["image"])  # each at its own size
    assert {r["image"].shape for r in rows} != {rows[0]["image"].shape}


def test_read_tfds_rlds_steps_as_stacked_columns():
    ds = swigflow.ray.read_tfds(builder_dir=os.path.join(TFDS_DATA, "sf_rlds", "1.0.0"),
                                split="train[:4]")  # fmt: skip
    rows = ds.take_all()
    assert len(rows) == 4
    for row in rows:
        steps = len(row["steps/is_first"])
        assert row["steps/observation/image"].shape == (steps, 6, 8, 3)
        assert bool(row["steps/is_first"][0]) and bool(row["steps/is_last"][-1])
        assert row["episode_metadata/file_path"].startswith(b"/data/ep")
    with pytest.raises(ValueError, match="one of them"):
        swigflow.ray.read_tfds(split="train")


def test_a_datasink_starts_on_a_new_object_store_prefix():
    """Object stores have no folders: writing under a prefix that holds nothing yet starts (the
    folder check found no such "directory" and raised NotFoundError before), and one that holds
    files is refused as a local folder is."""
    pytest.importorskip("s3fs", reason="s3:// needs s3fs (swigflow[remote])")
    from swigflow.ray.sources import TFRecordDatasink

    with s3_store.moto_bucket("sink") as url:
        TFRecordDatasink(f"{url}/new/").on_write_start()
        with sf.io.gfile.GFile(f"{url}/old/part-000000-000000.tfrecord", "wb") as f:
            f.write(b"")
        with pytest.raises(errors.AlreadyExistsError, match="already holds 1 file"):
            TFRecordDatasink(f"{url}/old/").on_write_start()
