"""swigflow build-image-dataset / export-images on real JPEG and PNG files made by Pillow."""

import io as bytes_io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from cli_util import run, run_process
from PIL import Image

import swigflow
from swigflow.cli.images import jpeg_info, resize_pixels

CLASSES = ["cat", "dog", "zebra"]  # sorted: labels 1, 2, 3
SPEC = {
    key: swigflow.io.FixedLenFeature([], dtype)
    for key, dtype in [
        ("image/encoded", "string"),
        ("image/format", "string"),
        ("image/filename", "string"),
        ("image/colorspace", "string"),
        ("image/class/text", "string"),
        ("image/class/label", "int64"),
        ("image/height", "int64"),
        ("image/width", "int64"),
        ("image/channels", "int64"),
    ]
}


def save(path, size, mode="RGB", fmt="JPEG", seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    image = Image.fromarray(pixels).convert(mode)
    image.save(path, format=fmt, **kwargs)
    return image


@pytest.fixture
def folders(tmp_path):
    """10 images per class: baseline RGB JPEGs, progressive grayscale JPEGs and PNGs of varied
    sizes, plus one file that is not an image. Returns (root, {filename: (class, w, h, kind)})."""
    root = tmp_path / "images"
    info = {}
    for c, name in enumerate(CLASSES):
        os.makedirs(root / name)
        for i in range(10):
            size = (17 + 3 * i + c, 11 + 2 * i)
            filename = f"{name}{i}"
            if i % 4 == 3:
                filename += ".png"
                save(root / name / filename, size, fmt="PNG", seed=i)
                kind = "png"
            elif i % 5 == 4:
                filename += ".jpg"
                save(root / name / filename, size, mode="L", seed=i, progressive=True)
                kind = "gray"
            else:
                filename += ".jpg"
                save(root / name / filename, size, seed=i, quality=90)
                kind = "rgb"
            info[filename] = (name, size[0], size[1], kind)
    (root / "dog" / "broken.jpg").write_bytes(b"not an image at all")
    (root / "dog" / ".hidden.jpg").write_bytes(b"ignored")
    return root, info


def read_split(out, split):
    """All records of a split's shards, parsed, in shard order."""
    names = sorted(n for n in os.listdir(out) if n.startswith(split + "-") and "." not in n)
    records = [r for n in names for r in swigflow.io.tf_record_iterator(os.path.join(out, n))]
    return names, swigflow.io.parse_example(records, SPEC) if records else None


def test_build_writes_build_imagenet_data_shards(folders, tmp_path, capsys):
    root, info = folders
    out = tmp_path / "out"
    status, stdout, stderr = run(
        capsys,
        "build-image-dataset",
        "--train-directory", root,
        "--validation-fraction", 0.3,
        "--output-directory", out,
        "--train-shards", 3,
        "--validation-shards", 2,
        "--num-threads", 2,
        "--seed", 5,
        "--no-progress",
    )  # fmt: skip
    assert status == 0, stderr
    assert "skipped 1 unreadable image" in stdout
    assert "broken.jpg" in stdout + stderr

    train_names, train = read_split(out, "train")
    validation_names, validation = read_split(out, "validation")
    assert train_names == [f"train-0000{i}-of-00003" for i in range(3)]
    assert validation_names == ["validation-00000-of-00002", "validation-00001-of-00002"]
    for name in train_names + validation_names:
        assert os.path.exists(out / f".{name}.idx")
        assert len(swigflow.io.TFRecordFile(out / name)) > 0  # the index matches the shard

    seen = []
    for parsed in (train, validation):
        for i in range(len(parsed["image/filename"])):
            filename = parsed["image/filename"][i].decode()
            name, width, height, kind = info[filename]
            seen.append(filename)
            assert parsed["image/class/text"][i] == name.encode()
            assert parsed["image/class/label"][i] == CLASSES.index(name) + 1
            assert (parsed["image/width"][i], parsed["image/height"][i]) == (width, height)
            assert parsed["image/format"][i] == b"JPEG"
            encoded = parsed["image/encoded"][i]
            with Image.open(bytes_io.BytesIO(encoded)) as image:
                assert image.format == "JPEG" and image.size == (width, height)
            if kind == "png":  # re-encoded as RGB JPEG, as build_imagenet_data does
                assert parsed["image/channels"][i] == 3
                assert parsed["image/colorspace"][i] == b"RGB"
            else:  # JPEG files are stored byte for byte
                assert encoded == (root / name / filename).read_bytes()
                channels = 1 if kind == "gray" else 3
                assert parsed["image/channels"][i] == channels
                assert parsed["image/colorspace"][i] == (b"Grayscale" if channels == 1 else b"RGB")
    assert sorted(seen) == sorted(info)  # every image exactly once, the broken one skipped
    # 30% of each class held out; shuffled so that shards mix the classes.
    assert sorted(validation["image/class/text"].tolist()) == sorted(
        [b"cat"] * 3 + [b"dog"] * 3 + [b"zebra"] * 3
    )
    assert len(set(train["image/class/text"][:7].tolist())) > 1

    manifest = json.loads((out / "manifest.json").read_text())
    assert [c["text"] for c in manifest["classes"]] == CLASSES
    assert [c["label"] for c in manifest["classes"]] == [1, 2, 3]
    assert [(c["train"], c["validation"]) for c in manifest["classes"]] == [(7, 3)] * 3
    assert manifest["splits"]["train"]["records"] == 21
    shards = manifest["splits"]["train"]["shards"]
    assert [s["records"] for s in shards] == [
        len(list(swigflow.io.tf_record_iterator(out / n))) for n in train_names
    ]
    assert manifest["skipped"][0]["file"].endswith("broken.jpg")


def test_same_seed_same_bytes_other_seed_other_order(folders, tmp_path, capsys):
    root, _ = folders

    def build(out, seed):
        args = ["build-image-dataset", "--train-directory", root, "--output-directory", out]
        assert run(capsys, *args, "--train-shards", 2, "--seed", seed, "--no-progress")[0] == 0
        return [(out / f"train-0000{i}-of-00002").read_bytes() for i in range(2)]

    first = build(tmp_path / "a", 1)
    assert build(tmp_path / "b", 1) == first
    assert build(tmp_path / "c", 2) != first


def test_validation_directory_labels_file_and_resize(folders, tmp_path, capsys):
    root, _ = folders
    validation = tmp_path / "val"
    os.makedirs(validation / "zebra")
    save(validation / "zebra" / "z.jpg", (40, 30))
    labels = tmp_path / "labels.txt"
    labels.write_text("zebra\ndog\ncat\nunused\n")
    out = tmp_path / "out"
    status, _, stderr = run(
        capsys,
        "build-image-dataset",
        "--train-directory", root,
        "--validation-directory", validation,
        "--labels-file", labels,
        "--output-directory", out,
        "--resize", "16x12",
        "--no-progress",
    )  # fmt: skip
    assert status == 0, stderr
    _, train = read_split(out, "train")
    _, val = read_split(out, "validation")
    expected = {"zebra": 1, "dog": 2, "cat": 3}
    for text, label in zip(train["image/class/text"], train["image/class/label"]):
        assert expected[text.decode()] == label
    assert val["image/class/label"].tolist() == [1]
    assert set(train["image/width"].tolist() + val["image/width"].tolist()) == {16}
    assert set(train["image/height"].tolist()) == {12}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["classes"][3] == {"label": 4, "text": "unused", "train": 0, "validation": 0}


def test_label_base_zero_counts_classes_from_zero(folders, tmp_path, capsys):
    root, _ = folders
    out = tmp_path / "out"
    status, _, stderr = run(
        capsys,
        "build-image-dataset",
        "--train-directory", root,
        "--output-directory", out,
        "--label-base", "0",
        "--no-progress",
    )  # fmt: skip
    assert status == 0, stderr
    _, train = read_split(out, "train")
    for text, label in zip(train["image/class/text"], train["image/class/label"]):
        assert label == CLASSES.index(text.decode())
    manifest = json.loads((out / "manifest.json").read_text())
    assert [c["label"] for c in manifest["classes"]] == list(range(len(CLASSES)))
    with pytest.raises(SystemExit) as exit_info:  # argparse's own refusal
        run(capsys, "build-image-dataset", "--train-directory", root,
            "--output-directory", tmp_path / "other", "--label-base", "2")  # fmt: skip
    # argparse quotes the value from Python 3.12.8/3.13 on: invalid choice: '2'
    assert exit_info.value.code == 2
    assert re.search(r"invalid choice: '?2'?", capsys.readouterr().err)


def test_resume_keeps_complete_shards_and_refuses_other_inputs(folders, tmp_path, capsys):
    root, _ = folders
    out = tmp_path / "out"
    args = ["build-image-dataset", "--train-directory", root, "--output-directory", out]
    args += ["--train-shards", 3, "--no-progress", "--seed", 3]
    assert run(capsys, *args)[0] == 0
    manifest = (out / "manifest.json").read_text()
    kept = out / "train-00000-of-00003"
    os.utime(kept, (1, 1))
    os.unlink(out / "train-00002-of-00003")
    status, stdout, _ = run(capsys, *args, "--resume")
    assert status == 0
    assert "kept 2 complete shard(s)" in stdout
    assert os.stat(kept).st_mtime == 1  # not rewritten
    assert (out / "manifest.json").read_text() == manifest

    status, _, stderr = run(capsys, *args[:-1], 4, "--resume")  # another seed
    assert status == 1
    assert "not built from the same images and options" in stderr
    # Nothing to resume in a new folder: the run starts.
    new = tmp_path / "new"
    status, _, stderr = run(capsys, *args[:4], new, *args[5:], "--resume")
    assert status == 0, stderr
    assert (new / "manifest.json").read_text() == manifest


def test_resume_rewrites_a_truncated_or_damaged_shard(folders, tmp_path, capsys):
    root, _ = folders
    out = tmp_path / "out"
    args = ["build-image-dataset", "--train-directory", root, "--output-directory", out]
    args += ["--train-shards", 3, "--no-progress"]
    assert run(capsys, *args)[0] == 0
    expected = [(out / f"train-0000{i}-of-00003").read_bytes() for i in range(3)]
    cut = out / "train-00001-of-00003"
    cut.write_bytes(expected[1][: len(expected[1]) // 2])  # an interrupted copy, say
    flipped = bytearray(expected[2])
    flipped[len(flipped) // 2] ^= 1
    (out / "train-00002-of-00003").write_bytes(bytes(flipped))
    status, stdout, _ = run(capsys, *args, "--resume")
    assert status == 0 and "kept 1 complete shard(s)" in stdout
    assert [(out / f"train-0000{i}-of-00003").read_bytes() for i in range(3)] == expected


def test_unreadable_folders_and_names_are_reported_not_fatal(folders, tmp_path):
    root, _ = folders
    os.symlink(root / "loop", root / "loop")  # a class folder that is a symlink loop
    os.symlink(root / "cat" / "self", root / "cat" / "self")  # and an image that is one
    latin1 = os.fsencode(root / "cat") + b"/caf\xe9.jpg"
    with open(latin1, "wb") as f:
        f.write(b"not an image, with a name that is not UTF-8")
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "swigflow", "build-image-dataset", "--train-directory", root,
         "--output-directory", out, "--no-progress"],
        capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii:strict"},
    )  # fmt: skip
    stdout, stderr = result.stdout.decode("ascii"), result.stderr.decode("ascii")
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "skipped" in stderr and "loop" in stderr
    assert "caf\\xe9.jpg" in stdout  # the unreadable image, its name escaped
    labels = tmp_path / "labels.txt"
    labels.write_bytes(b"cat\ndog\xff\n")
    result = run_process(
        "build-image-dataset", "--train-directory", root, "--output-directory", out,
        "--labels-file", labels,
    )  # fmt: skip
    assert result.returncode == 1 and "not UTF-8 text" in result.stderr
    assert "Traceback" not in result.stderr


def test_build_errors_are_one_line(tmp_path, capsys):
    status, _, stderr = run(
        capsys, "build-image-dataset", "--train-directory", tmp_path / "missing",
        "--output-directory", tmp_path / "out",
    )  # fmt: skip
    assert status == 1
    assert stderr.startswith("swigflow build-image-dataset: error: ")
    assert "not a directory" in stderr

    os.makedirs(tmp_path / "one" / "cls")
    save(tmp_path / "one" / "cls" / "a.jpg", (8, 8))
    status, _, stderr = run(
        capsys, "build-image-dataset", "--train-directory", tmp_path / "one",
        "--output-directory", tmp_path / "out", "--train-shards", 2,
    )  # fmt: skip
    assert status == 1 and "2 train shards for 1 images" in stderr


def test_usage_errors_exit_2_without_traceback(tmp_path):
    for argv in (
        [],
        ["build-image-dataset"],
        ["build-image-dataset", "--train-directory", tmp_path, "--output-directory", tmp_path,
         "--resize", "big"],
        ["build-image-dataset", "--train-directory", tmp_path, "--output-directory", tmp_path,
         "--resize", "99999999x2"],
        ["build-image-dataset", "--train-directory", tmp_path, "--output-directory", tmp_path,
         "--resize", "0x10"],
        ["build-image-dataset", "--train-directory", tmp_path, "--output-directory", tmp_path,
         "--validation-fraction", "1.5"],
        ["build-image-dataset", "--train-directory", tmp_path, "--output-directory", tmp_path,
         "--train-shards", "0"],
        ["export-images", tmp_path / "x", "--output-directory", tmp_path, "--quality", "0"],
        ["export-images", tmp_path / "x", "--output-directory", tmp_path, "--format", "gif"],
        ["export-images", tmp_path / "x", "--output-directory", tmp_path, "--resize", "7"],
        ["no-such-command"],
    ):  # fmt: skip
        result = run_process(*argv)
        assert result.returncode == 2, argv
        assert "usage: swigflow" in result.stderr
        assert "Traceback" not in result.stderr


def test_help_everywhere():
    for argv in ([], ["build-image-dataset"], ["export-images"], ["verify"], ["repair"]):
        result = run_process(*argv, "--help")
        assert result.returncode == 0 and "usage: swigflow" in result.stdout


def build_quietly(capsys, root, out, *options):
    """(status, stdout, stderr) of build-image-dataset from root to out without a progress bar."""
    args = ["--train-directory", root, "--output-directory", out, "--no-progress", *options]
    return run(capsys, "build-image-dataset", *args)


def test_without_pillow_jpeg_and_png_still_build(folders, tmp_path, capsys, monkeypatch):
    """swigflow's codecs read JPEG and PNG (also for --resize); Pillow is needed only for other
    formats, and its absence is then a clear error."""
    root, info = folders
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    out = tmp_path / "out"
    status, stdout, stderr = build_quietly(capsys, root, out, "--resize", "20x10")
    assert status == 0, stderr
    assert "broken.jpg" in stdout and "Pillow, which reads other formats" in stdout
    _, train = read_split(out, "train")
    assert len(train["image/encoded"]) == len(info)
    assert set(train["image/width"].tolist()) == {20}

    monkeypatch.undo()
    save(root / "cat" / "animated.gif", (9, 7), fmt="GIF")
    monkeypatch.setitem(sys.modules, "PIL", None)
    status, _, stderr = build_quietly(capsys, root, tmp_path / "out2")
    assert status == 1
    assert "Pillow is needed to read GIF images" in stderr and "pip install Pillow" in stderr


def test_resize_is_pillows_bilinear():
    """--resize (both commands) is bilinear, antialiased when shrinking, as Pillow's BILINEAR:
    equal to within rounding, for shrinking and enlarging."""
    rng = np.random.default_rng(0)
    for (height, width), size in [((30, 47), (12, 9)), ((11, 17), (40, 30)), ((64, 64), (20, 33))]:
        pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        want = np.asarray(Image.fromarray(pixels).resize(size, Image.Resampling.BILINEAR))
        got = resize_pixels(pixels, size)
        assert got.shape == want.shape
        assert np.abs(got.astype(int) - want).max() <= 1


def test_export_reproduces_the_images(folders, tmp_path, capsys):
    root, info = folders
    out = tmp_path / "out"
    args = ["build-image-dataset", "--train-directory", root, "--output-directory", out]
    assert run(capsys, *args, "--train-shards", 2, "--no-progress")[0] == 0
    shards = [out / "train-00000-of-00002", out / "train-00001-of-00002"]
    exported = tmp_path / "exported"
    status, stdout, stderr = run(
        capsys, "export-images", *shards, "--output-directory", exported, "--by-class"
    )
    assert status == 0, stderr
    assert "wrote 30 images" in stdout
    for filename, (name, _, _, kind) in info.items():
        if kind == "png":  # stored as JPEG: exported under a name that says so
            data = (exported / name / filename.replace(".png", ".jpg")).read_bytes()
            assert jpeg_info(data)[:2] == info[filename][1:3]
        else:
            assert (exported / name / filename).read_bytes() == (
                root / name / filename
            ).read_bytes()


def test_export_names_are_safe_and_unique(tmp_path, capsys):
    path = tmp_path / "odd.tfrecord"
    jpeg = bytes_io.BytesIO()
    save(jpeg, (8, 8))
    png = bytes_io.BytesIO()
    save(png, (8, 8), fmt="PNG")
    with swigflow.io.TFRecordWriter(path) as w:
        for features in (
            {"image/encoded": jpeg.getvalue(), "image/filename": b"../../escape.jpg"},
            {"image/encoded": jpeg.getvalue(), "image/filename": b"escape.jpg"},
            {"image/encoded": png.getvalue()},
            {"image/encoded": b"\x00\x01", "image/filename": b".."},
        ):
            w.write(swigflow.train.example_from_dict(features).SerializeToString())
        w.write(swigflow.train.example_from_dict({"label": 1}).SerializeToString())
    out = tmp_path / "out"
    status, _, stderr = run(capsys, "export-images", path, "--output-directory", out)
    assert status == 1
    assert "record 4 has no bytes feature 'image/encoded'" in stderr
    assert sorted(os.listdir(out)) == ["00000002.png", "00000003.bin", "escape-1.jpg", "escape.jpg"]
    assert not os.path.exists(tmp_path / "escape.jpg")


def test_no_record_content_writes_outside_the_output_directory(tmp_path, capsys):
    """Format, filename and class text are attacker-controlled: traversal in any of them, NUL
    bytes, values of the wrong kind and symlinks already inside OUT all stay inside OUT."""
    jpeg = bytes_io.BytesIO()
    save(jpeg, (8, 8))
    data = jpeg.getvalue()
    outside = tmp_path / "outside"
    outside.mkdir()
    path = tmp_path / "evil.tfrecord"
    records = [
        {"image/encoded": data, "image/format": b"jpg/../../../outside/x"},
        {"image/encoded": data, "image/format": b"\x00/../x", "image/filename": b"a\x00b.jpg"},
        {"image/encoded": data, "image/class/text": b"../../outside", "image/filename": b"c.jpg"},
        {"image/encoded": data, "image/class/text": b"cls\x00", "image/filename": b"d\\..\\e.jpg"},
        {"image/encoded": data, "image/filename": 7, "image/format": 2.5},
        {"image/encoded": data, "image/class/text": b"linked", "image/filename": b"f.jpg"},
        {"image/encoded": data, "image/filename": b"planted.jpg"},
    ]
    with swigflow.io.TFRecordWriter(path) as w:
        for features in records:
            w.write(swigflow.train.example_from_dict(features).SerializeToString())
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / "linked")  # a class folder that leads out
    (out / "unlabeled").mkdir()
    os.symlink(outside / "planted.jpg", out / "unlabeled" / "planted.jpg")  # a file that does
    status, _, stderr = run(capsys, "export-images", path, "--output-directory", out, "--by-class")
    assert status == 1 and "'linked' in the output directory is not a folder" in stderr
    assert "Traceback" not in stderr
    assert os.listdir(outside) == []
    del records[5]  # without the symlinked class folder, everything is written, inside OUT
    with swigflow.io.TFRecordWriter(path) as w:
        for features in records:
            w.write(swigflow.train.example_from_dict(features).SerializeToString())
    status, _, stderr = run(capsys, "export-images", path, "--output-directory", out, "--by-class")
    assert status == 0, stderr
    assert os.listdir(outside) == []
    written = sorted(
        os.path.relpath(os.path.join(d, f), out) for d, _, files in os.walk(out) for f in files
    )
    assert written == [
        "cls/e.jpg",
        "outside/c.jpg",
        "unlabeled/00000000.jpg",
        "unlabeled/00000004.jpg",
        "unlabeled/ab.jpg",
        "unlabeled/planted.jpg",
    ]
    assert not os.path.islink(out / "unlabeled" / "planted.jpg")


def test_jpeg_info_reads_headers_only():
    for mode, channels in (("RGB", 3), ("L", 1), ("CMYK", 4)):
        for progressive in (False, True):
            data = bytes_io.BytesIO()
            save(data, (37, 23), mode=mode, progressive=progressive)
            assert jpeg_info(data.getvalue()) == (37, 23, channels)
    data = bytes_io.BytesIO()
    save(data, (37, 23))
    assert jpeg_info(data.getvalue()[:20]) is None  # cut before the frame header
    assert jpeg_info(b"\x89PNG\r\n\x1a\n") is None
    assert jpeg_info(b"") is None


def test_readme_workflow_folders_to_pytorch(folders, tmp_path, capsys):
    """docs/pipelines.md "From image folders to a training loop", on the test images."""
    torch = pytest.importorskip("torch")
    root, _ = folders
    out = tmp_path / "shards"
    args = ["build-image-dataset", "--train-directory", root, "--validation-fraction", 0.3]
    args += ["--output-directory", out, "--train-shards", 4, "--validation-shards", 2, "--seed", 1]
    assert run(capsys, *args, "--num-threads", 2, "--no-progress")[0] == 0
    shards = sorted(str(p) for p in out.glob("train-*") if p.suffix != ".idx")
    assert run(capsys, "verify", *shards)[0] == 0

    spec = {
        "image/encoded": swigflow.io.FixedLenFeature([], "string"),
        "image/class/label": swigflow.io.FixedLenFeature([], "int64"),
    }
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    train = (
        swigflow.data.TFRecordDataset(shards, num_parallel_reads=4)
        .shuffle(100, seed=0)
        .batch(4)
        .parse(spec)
        .decode_images(
            size=(8, 8),
            crop="random",
            flip=True,
            dtype="float32",
            layout="NCHW",
            mean=mean,
            std=std,
        )
        .prefetch(2)
    )
    # The pipeline decodes on its own threads: no DataLoader workers, so no copies.
    loader = torch.utils.data.DataLoader(swigflow.data.TorchIterableDataset(train), batch_size=None)
    labels = []
    for batch in loader:
        images = batch["image/encoded"]
        assert images.shape[1:] == (3, 8, 8) and images.dtype == torch.float32
        low = (0 - np.array(mean)) / np.array(std)
        high = (1 - np.array(mean)) / np.array(std)
        per_channel = images.permute(1, 0, 2, 3).reshape(3, -1)
        assert (per_channel.min(1).values >= torch.tensor(low) - 1e-5).all()
        assert (per_channel.max(1).values <= torch.tensor(high) + 1e-5).all()
        labels.extend((batch["image/class/label"] - 1).tolist())
    manifest = json.loads((out / "manifest.json").read_text())
    expected = sorted(c["label"] - 1 for c in manifest["classes"] for _ in range(c["train"]))
    assert sorted(labels) == expected and len(labels) == 21  # every training image once


def _image_record(data, fmt, filename):
    feature = {
        "image/encoded": swigflow.train.Feature(bytes_list=swigflow.train.BytesList(value=[data])),
        "image/format": swigflow.train.Feature(bytes_list=swigflow.train.BytesList(value=[fmt])),
        "image/filename": swigflow.train.Feature(
            bytes_list=swigflow.train.BytesList(value=[filename])
        ),
    }
    example = swigflow.train.Example(features=swigflow.train.Features(feature=feature))
    return example.SerializeToString()


def test_export_resize_and_format(tmp_path, capsys):
    rng = np.random.default_rng(5)
    rgba = rng.integers(0, 256, (30, 40, 4), dtype=np.uint8)
    y, x = np.mgrid[0:21, 0:33]  # smooth, so that JPEG keeps it closely
    rgb = np.stack([x * 7, y * 11, (x + y) * 4], -1).astype(np.uint8)
    gray = rng.integers(0, 256, (16, 16, 1), dtype=np.uint8)
    stored = [
        (swigflow.io.encode_png(rgba), b"PNG", b"alpha.png"),
        (swigflow.io.encode_jpeg(rgb), b"JPEG", b"photo.jpg"),
        (swigflow.io.encode_jpeg(gray), b"JPEG", b"gray.jpg"),
    ]
    shard = str(tmp_path / "images.tfrecord")
    with swigflow.io.TFRecordWriter(shard) as w:
        for record in stored:
            w.write(_image_record(*record))

    def export(out, *options):
        status, _, stderr = run(capsys, "export-images", shard, "--output-directory", out, *options)
        assert status == 0, stderr
        return sorted(os.listdir(out))

    def resized(pixels, width, height):
        out = swigflow.image.resize(pixels, (height, width), antialias=True)
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)

    # --resize alone keeps each image's format (PNG keeps its alpha); PNG output is exact.
    out = tmp_path / "resized"
    assert export(out, "--resize", "10x8") == ["alpha.png", "gray.jpg", "photo.jpg"]
    png = swigflow.io.decode_png((out / "alpha.png").read_bytes())
    np.testing.assert_array_equal(png, resized(rgba, 10, 8))
    want = resized(swigflow.io.decode_jpeg(stored[1][0]), 10, 8)
    assert (out / "photo.jpg").read_bytes() == swigflow.io.encode_jpeg(want, quality=95)
    assert swigflow.io.decode_jpeg((out / "gray.jpg").read_bytes()).shape == (8, 10, 3)

    # --format png: lossless copies of the decoded pixels (gray stays one channel).
    out = tmp_path / "png"
    assert export(out, "--format", "png") == ["alpha.png", "gray.png", "photo.png"]
    np.testing.assert_array_equal(
        swigflow.io.decode_png((out / "photo.png").read_bytes()),
        swigflow.io.decode_jpeg(stored[1][0]),
    )
    assert swigflow.io.decode_png((out / "gray.png").read_bytes()).shape == (16, 16, 1)

    # --format jpeg drops alpha; --quality is JPEG's.
    small, large = tmp_path / "q10", tmp_path / "q100"
    assert export(small, "--format", "jpeg", "--quality", "10") == [
        "alpha.jpg", "gray.jpg", "photo.jpg"
    ]  # fmt: skip
    export(large, "--format", "jpeg", "--quality", "100")
    without_alpha = np.ascontiguousarray(rgba[..., :3])
    assert (large / "alpha.jpg").read_bytes() == swigflow.io.encode_jpeg(without_alpha, quality=100)
    assert (small / "photo.jpg").stat().st_size < (large / "photo.jpg").stat().st_size


def test_export_conversion_of_a_damaged_image_names_the_record(tmp_path, capsys):
    shard = str(tmp_path / "bad.tfrecord")
    good = swigflow.io.encode_png(np.zeros((4, 4, 3), np.uint8))
    with swigflow.io.TFRecordWriter(shard) as w:
        w.write(_image_record(good, b"PNG", b"good.png"))
        w.write(_image_record(good[:40], b"PNG", b"cut.png"))
    status, _, stderr = run(
        capsys, "export-images", shard, "--output-directory", tmp_path / "out", "--format", "jpeg"
    )
    assert status == 1
    assert f"{shard}: record 1: not a readable PNG image" in stderr
