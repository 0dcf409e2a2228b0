"""Errors that name the fix (issue 70's table): each mistake a newcomer made gets one clear
error naming the user's own path, the keys that exist, the right package or the right
parameter, and the command line exits with status 1."""

import os
import subprocess
import sys

import fsspec
import numpy as np
import pytest

import swigflow as sf
from swigflow import cli, errors


@pytest.fixture
def images(tmp_path):
    path = tmp_path / "img.tfrecord"
    jpeg = sf.image.encode_jpeg(np.zeros((8, 8, 3), np.uint8))
    with sf.io.TFRecordWriter(str(path)) as w:
        for i in range(5):
            w.write(sf.train.example_from_dict({"label": [i], "image/encoded": [jpeg]}))
    return path, jpeg


def _command(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err.strip().splitlines()


def test_show_with_a_wrong_key_names_the_bytes_features(images, tmp_path, capsys):
    path, _ = images
    status, _, err = _command(capsys, "show", "--key", "image", path, "-o", tmp_path / "s.png")
    assert status == 1 and len(err) == 1, err
    assert "no feature 'image'" in err[0] and "image/encoded" in err[0] and "--key" in err[0]
    assert not (tmp_path / "s.png").exists()


def test_decode_images_with_a_wrong_key_names_the_keys(images):
    path, _ = images
    spec = {
        "image/encoded": sf.io.FixedLenFeature([], "string"),
        "label": sf.io.FixedLenFeature([], "int64"),
    }
    parsed = sf.data.TFRecordDataset(str(path)).batch(2).parse(spec)
    with pytest.raises(errors.InvalidArgumentError, match="theirs: image/encoded, label") as e:
        parsed.decode_images(key="image")
    assert "put it after" not in str(e.value)  # it already is
    mapped = sf.data.TFRecordDataset(str(path)).batch(2).map(lambda x: sf.io.parse_example(x, spec))
    with pytest.raises(errors.InvalidArgumentError, match="theirs: image/encoded, label"):
        next(iter(mapped.decode_images(key="image")))


@pytest.mark.parametrize("command", ["count", "inspect"])
def test_a_jpeg_is_not_a_tfrecord_file(images, tmp_path, capsys, command):
    _, jpeg = images
    picture = tmp_path / "pic.jpg"
    picture.write_bytes(jpeg)
    status, _, err = _command(capsys, command, picture)
    assert status == 1 and len(err) == 1, err
    assert f"not a TFRecord file: {picture} holds JPEG data" in err[0]
    with pytest.raises(errors.DataLossError, match="holds JPEG data"):
        list(sf.data.TFRecordDataset(str(picture)))


def test_a_failing_store_is_reported_for_the_path_given(monkeypatch, capsys):
    root = "memory://error-messages"
    fsspec.filesystem("memory").pipe(f"{root}/x.tfrecord", b"")
    cls = type(fsspec.filesystem("memory"))

    def refuse(self, path, **kwargs):
        raise PermissionError("denied by the test store")

    monkeypatch.setattr(cls, "exists", refuse)
    status, _, err = _command(capsys, "count", f"{root}/x.tfrecord")
    assert status == 1 and len(err) == 1, err
    assert err[0].startswith(f"swigflow count: error: {root}/x.tfrecord: "), err
    status, _, err = _command(capsys, "count", "foo://x/y")
    assert status == 1 and "(file: 'foo://x/y')" in err[0], err


def test_a_missing_backend_names_its_package_not_the_remote_extra():
    code = (
        "import sys; sys.modules['gcsfs'] = None\n"
        "import swigflow\n"
        "try:\n"
        "    swigflow.io.gfile.exists('gs://bucket/x')\n"
        "except swigflow.errors.UnimplementedError as e:\n"
        "    print(e.message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "gcsfs" in out.stdout and "swigflow[remote]" not in out.stdout, out


def test_torch_iterable_dataset_of_a_list_says_to_make_a_dataset():
    pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"TorchIterableDataset\(swigflow.data.TFRecordDataset"):
        sf.data.TorchIterableDataset(["a.tfrecord"])


def test_tfrecordfile_reads_a_seek_indexed_gzip_file_untold(tmp_path, caplog):
    path = str(tmp_path / "x.tfrecord.gz")
    with sf.io.TFRecordWriter(path, "GZIP") as w:
        for i in range(100):
            w.write(b"r%d" % i)
    sf.io.create_index(path, compression_type="GZIP")
    records = sf.io.TFRecordFile(path)
    assert (len(records), records[5], records.compression_type) == (100, b"r5", "GZIP")
    assert not caplog.records  # no warning about the index
    assert len(sf.io.TFRecordFile(path, compression_type="GZIP")) == 100  # the common name
    assert len(sf.io.TFRecordFile(path, options="GZIP")) == 100  # the old one
    with pytest.raises(ValueError, match="disagree"):
        sf.io.TFRecordFile(path, options="ZLIB", compression_type="GZIP")
    os.remove(sf.io.default_index_path(path))
    with pytest.raises(errors.DataLossError, match="pass compression_type='GZIP'"):
        sf.io.TFRecordFile(path)  # the advice names a parameter TFRecordFile has
