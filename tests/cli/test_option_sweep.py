"""Every option of every command, given a hostile value: numbers that overflow, inf and nan,
empty strings, blanks, newlines and bytes that are not UTF-8. docs/cli.md promises one line and no
traceback for any bad input: each run must end in exit status 0, 1 or 2 within a bounded time,
with any error on one line that names the command."""

import argparse
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from cli_util import run

import swigflow
from swigflow import train
from swigflow.cli import build_parser

HOSTILE = [
    "",
    " ",
    "0",
    "-1",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "99999999999999999999999999",
    "-99999999999999999999999999",
    "3x",
    "a\nb",
    "\udcff\udcfe",  # the bytes ff fe of a non-UTF-8 argument, as os.fsdecode gives them
]
SKIPPED = {"--ray"}  # its value is a cluster address: starting Ray is the Ray tests' job
SECONDS = 60  # a run longer than this is a hang


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A TFRecord file of images with labels, and a class folder of the same images."""
    root = tmp_path_factory.mktemp("inputs")
    image = swigflow.image.encode_jpeg(np.full((8, 8, 3), 90, np.uint8))
    path = str(root / "images.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(4):
            example = {"image/encoded": image, "image/class/label": i, "image/filename": b"f"}
            w.write(train.example_from_dict(example).SerializeToString())
    (root / "train" / "cat").mkdir(parents=True)
    for i in range(2):
        (root / "train" / "cat" / f"{i}.jpg").write_bytes(image)
    return root, path


def base_argv(command, root, path, out):
    """A working command line for `command`, the options it needs included."""
    if command == "build-image-dataset":
        return [command, "--train-directory", str(root / "train"), "--output-directory", out]
    if command in ("cat", "repair"):
        return [command, path] + (
            ["-o", os.path.join(out, "r.tfrecord")] if command == "repair" else []
        )
    if command in ("export-images", "reshard"):
        return [command, path, "--output-directory", out]
    if command == "show":
        return [command, path, "--output", os.path.join(out, "sheet.png")]
    if command == "profile":
        return [command, path, "--seconds", "0.2"]
    return [command, path]


def with_option(argv, option, value):
    """argv with `option` set to `value` (replacing the value it had)."""
    if option in argv:
        argv = list(argv)
        argv[argv.index(option) + 1] = value
        return argv
    return [*argv, option, value]


def cases():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and action.nargs != 0 and not action.choices:
                option = action.option_strings[-1]
                if option not in SKIPPED:
                    yield command, option


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


@pytest.mark.parametrize(("command", "option"), list(cases()))
def test_hostile_option_values_end_in_one_line(
    inputs, tmp_path, capsys, monkeypatch, command, option
):
    root, path = inputs
    monkeypatch.chdir(tmp_path)  # options that name outputs write under here
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for k, value in enumerate(HOSTILE):
            out = str(tmp_path / f"out{k}")
            argv = with_option(base_argv(command, root, path, out), option, value)
            signal.alarm(SECONDS)
            try:
                status, _, err = run(capsys, *argv)
            except SystemExit as e:  # argparse's usage errors
                status, err = e.code, capsys.readouterr().err
            except _Hang:
                pytest.fail(f"swigflow {command} {option} {value!r} ran past {SECONDS} s")
            finally:
                signal.alarm(0)
            assert status in (0, 1, 2), (command, option, value, status, err)
            assert "Traceback" not in err, (command, option, value, err)
            if status:
                last = err.rstrip("\n").split("\n")[-1]
                assert last.startswith(f"swigflow {command}: "), (option, value, err)
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_hostile_values_through_the_entry_point(inputs, tmp_path):
    """The same class of input through a real process (`python -m swigflow`): arguments that
    are not UTF-8 arrive as bytes, and each run ends in one line and a usage or error status."""
    _, path = inputs
    cases = [
        ["show", path, "--label", b"\xff\xfe", "--output", str(tmp_path / "s.png")],
        ["show", path, "--cell", "1000000000000", "--output", str(tmp_path / "s.png")],
        ["reshard", path, "--output-directory", str(tmp_path / "r"), "--target-size", "1e400MB"],
        ["inspect", path, "--max-records", "99999999999999999999999999"],
        ["count", b"/nonexistent/\xff\xfe.tfrecord"],
        ["profile", path, "--seconds", "nan"],
        ["build-image-dataset", "--train-directory", "a\nb", "--output-directory", str(tmp_path)],
    ]
    for argv in cases:
        args = [sys.executable, "-m", "swigflow", *(os.fsencode(a) for a in argv)]
        result = subprocess.run(args, capture_output=True, timeout=SECONDS, cwd=tmp_path)
        err = result.stderr.decode("utf-8", "replace")
        assert result.returncode in (0, 1, 2), (argv, result.returncode, err)
        assert "Traceback" not in err, (argv, err)
        if result.returncode:
            assert err.rstrip("\n").split("\n")[-1].startswith(f"swigflow {argv[0]}: "), err
