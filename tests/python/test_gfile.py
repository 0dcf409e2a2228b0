"""swigflow.io.gfile against TensorFlow 2.21's tf.io.gfile on local paths: the steps of
tests/testdata/make_tf_gfile.py (a directory whose name holds a space, dots and brackets),
each returning TF's value or raising TF's error class; and the same face over file:// URLs."""

import json
import os
import re

import generators
import pytest

import swigflow as sf
from swigflow.io import gfile

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
make_tf_gfile = generators.load("make_tf_gfile")

with open(os.path.join(TESTDATA, "tf_gfile", "local.json")) as f:
    GOLDEN = json.load(f)


def test_every_step_as_tensorflow():
    assert [tuple(r) for r in make_tf_gfile.scenario(gfile)] == [tuple(r) for r in GOLDEN]


def test_errors_are_swigflow_errors_with_the_path(tmp_path):
    blocker = tmp_path / "file.v2"
    blocker.write_bytes(b"")
    with pytest.raises(
        sf.errors.FailedPreconditionError, match=re.escape(f"{blocker} is not a directory")
    ):
        gfile.makedirs(str(blocker / "a" / "b"))
    with pytest.raises(sf.errors.NotFoundError, match=re.escape("no.such")):
        gfile.remove(str(tmp_path / "no.such"))


def test_file_urls_take_the_local_paths(tmp_path):
    base = f"file://{tmp_path}/d.1"
    gfile.makedirs(f"{base}/sub")
    with gfile.GFile(f"{base}/x.txt", "w") as w:
        w.write("text")
    assert gfile.isdir(f"{base}/sub") and not gfile.isdir(f"{base}/x.txt")
    assert [(e.name, e.path, e.is_directory) for e in gfile.scandir(base)] == [
        ("sub", f"{base}/sub", True),
        ("x.txt", f"{base}/x.txt", False),
    ]
    gfile.rename(f"{base}/x.txt", f"{base}/y.txt")
    assert gfile.glob(f"{base}/*.txt") == [f"{base}/y.txt"]
    assert gfile.GFile(f"{base}/y.txt").read() == "text"
    with pytest.raises(sf.errors.UnimplementedError, match="not one file system"):
        gfile.rename(f"{base}/y.txt", "memory://elsewhere/y.txt")
