"""`swigflow inspect DIR` and `swigflow show DIR --split` on datasets TFDS prepared
(tests/testdata/tfds)."""

import json
import os

import numpy as np
from cli_util import run

import swigflow.datasets as tfds
from swigflow.cli import show
from swigflow.image import codecs

DATA = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "testdata", "tfds", "data"
)


def test_inspect_prints_splits_counts_and_features(capsys):
    status, out, err = run(capsys, "inspect", os.path.join(DATA, "sf_features", "1.0.0"))
    assert status == 0, err
    assert "sf_features/1.0.0 (tfrecord)" in out
    assert "85 examples in 2 split(s)" in out
    assert "train          60 examples     20 shard(s)" in out
    assert "label" in out and "4 classes: cat, dog, bird, fish" in out
    assert "Sequence(length=None)" in out and "languages: de, en, fr" in out


def test_inspect_newest_version_of_default_config_and_json(capsys):
    status, out, err = run(capsys, "inspect", os.path.join(DATA, "sf_configs"), "--json")
    assert status == 0, err
    info = json.loads(out)
    assert (info["full_name"], info["splits"]["train"]["num_examples"]) == (
        "sf_configs/small/1.0.0",
        5,
    )
    status, out, _ = run(capsys, "inspect", os.path.join(DATA, "sf_rlds"))
    assert status == 0 and "Dataset (steps)" in out and "is_first" in out


def test_show_draws_a_split_with_class_names(tmp_path, capsys):
    sheet_path = tmp_path / "sheet.png"
    classes = os.path.join(DATA, "sf_classes")
    status, out, err = run(capsys, "show", classes, "--split", "validation[2:8]", "--grid",
                           "2x3", "--cell", "24", "-o", sheet_path)  # fmt: skip
    assert status == 0, err
    assert "drew 6 image(s) in a 2x3 grid" in out
    sheet = codecs.decode_png(sheet_path.read_bytes())
    assert sheet.shape == (show.PAD + 2 * (24 + show.LABEL + show.PAD), show.PAD + 3 * 28, 3)
    images = [e["image"] for e in tfds.builder("sf_classes", data_dir=DATA).as_dataset(
        "validation[2:8]")]  # fmt: skip
    for i, pixels in enumerate(images):
        fitted, (y, x) = show.fit(pixels, 24)
        top, left = show.cell_origin(i, 3, 24, True)
        box = sheet[top + y : top + y + fitted.shape[0], left + x : left + x + fitted.shape[1]]
        np.testing.assert_array_equal(box, fitted)
        label = sheet[top + 24 : top + 24 + show.LABEL, left : left + 24]
        assert (label > 200).any()  # the class name


def test_show_errors_for_a_dataset_without_images(tmp_path, capsys):
    status, _, err = run(capsys, "show", os.path.join(DATA, "sf_configs", "small", "1.0.0"),
                         "-o", tmp_path / "s.png")  # fmt: skip
    assert status == 1 and "has no Image feature" in err
    status, _, err = run(capsys, "show", os.path.join(DATA, "sf_classes"), "--split", "nosuch",
                         "-o", tmp_path / "s.png")  # fmt: skip
    assert status == 1 and "Unknown split 'nosuch'" in err
