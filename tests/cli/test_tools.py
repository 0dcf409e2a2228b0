"""swigflow reshard, show and profile, and the progress bars of the long commands."""

import json
import os
import pathlib
import re
import shlex

import numpy as np
import pytest
from cli_util import run, run_process

import swigflow
from swigflow import settings, train
from swigflow.cli import EXAMPLES, build_parser, reshard, show
from swigflow.image import codecs


def records_of(path):
    compression = "GZIP" if str(path).endswith(".gz") else ""
    return list(swigflow.io.tf_record_iterator(str(path), compression))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def make_inputs(directory, counts, compression=""):
    """File f holds records b"f:r:" + r random bytes (different sizes), r < counts[f]."""
    rng = np.random.default_rng(5)
    paths = []
    for f, count in enumerate(counts):
        path = os.path.join(directory, f"in-{f:03d}.tfrecord" + (".gz" if compression else ""))
        with swigflow.io.TFRecordWriter(path, compression) as w:
            for r in range(count):
                w.write(f"{f}:{r}:".encode() + rng.bytes(int(rng.integers(0, 300))))
        paths.append(path)
    return paths


def shards_in(directory):
    return sorted(
        os.path.join(directory, n)
        for n in os.listdir(directory)
        if n.startswith("part-") and not n.endswith((".idx", ".tmp"))
    )


# --- reshard ------------------------------------------------------------------------------------


def test_reshard_keeps_every_record_once_in_order_in_even_shards(tmp_path, capsys):
    inputs = make_inputs(tmp_path, [40, 0, 3, 200, 57])
    want = [r for p in inputs for r in records_of(p)]
    out = tmp_path / "out"
    status, stdout, _ = run(capsys, "reshard", *inputs, "--output-directory", out,
                            "--target-size", "8KB")  # fmt: skip
    assert status == 0 and "wrote" in stdout
    shards = shards_in(out)
    got = [r for s in shards for r in records_of(s)]
    assert got == want  # exactly once, in input order
    n = len(shards)
    assert n == round(sum(len(r) + 16 for r in want) / 8000)
    assert [os.path.basename(s) for s in shards] == [f"part-{k:05d}-of-{n:05d}" for k in range(n)]
    sizes = [os.path.getsize(s) for s in shards]
    assert max(sizes) - min(sizes) <= 2 * (300 + 16 + 10)  # even, to about a record
    for s in shards:  # each with a valid index
        offsets, _ = swigflow.io.index.checked_default_index(s)
        assert len(offsets) == len(records_of(s))


def test_reshard_with_a_seed_is_a_reproducible_uniform_shuffle(tmp_path, capsys):
    inputs = make_inputs(tmp_path, [100, 100, 100])
    want = sorted(r for p in inputs for r in records_of(p))
    runs = {}
    for name, seed in [("a", 7), ("b", 7), ("c", 8)]:
        out = tmp_path / name
        args = ["reshard", *inputs, "--output-directory", out, "--target-size", "16KB"]
        assert run(capsys, *args, "--seed", seed)[0] == 0
        runs[name] = [read_bytes(s) for s in shards_in(out)]
    assert runs["a"] == runs["b"]  # byte for byte
    assert runs["a"] != runs["c"]
    got = [r for s in shards_in(tmp_path / "c") for r in records_of(s)]
    assert sorted(got) == want and got != [r for p in inputs for r in records_of(p)]
    # The documented order: the global shuffle's permutation, independent of the machine.
    order = reshard.permutation(5, 7)
    assert sorted(order) == list(range(5))
    assert list(order) == list(reshard.permutation(5, 7))


def test_reshard_splits_a_big_file_and_reads_compressed_inputs(tmp_path, capsys):
    inputs = make_inputs(tmp_path, [400], compression="GZIP")
    out = tmp_path / "out"
    status, _, _ = run(capsys, "reshard", *inputs, "--output-directory", out,
                       "--target-size", "20KB", "--compression", "gzip")  # fmt: skip
    assert status == 0
    shards = shards_in(out)
    assert len(shards) > 2 and all(s.endswith(".gz") for s in shards)
    assert [r for s in shards for r in records_of(s)] == records_of(inputs[0])
    # Each shard has its seek index; read at random through it, it gives the same records.
    for s in shards:
        with swigflow.io.TFRecordFile(s, options="GZIP") as f:
            assert f.index_path == swigflow.io.default_index_path(s)
            assert [f[i] for i in reversed(range(len(f)))] == records_of(s)[::-1]
    # Small seek blocks: many members per shard; 0: one stream, as TF writes.
    for block, members in (("4KiB", lambda n: n > 3), ("0", lambda n: n == 1)):
        out = tmp_path / f"out-{block}"
        status, _, _ = run(capsys, "reshard", *inputs, "--output-directory", out,
                           "--target-size", "20KB", "--compression", "gzip",
                           "--seek-block-size", block)  # fmt: skip
        assert status == 0
        data = pathlib.Path(shards_in(out)[0]).read_bytes()
        assert members(data.count(b"\x1f\x8b\x08\x00")), block
        assert [r for s in shards_in(out) for r in records_of(s)] == records_of(inputs[0])
    status, _, stderr = run(capsys, "reshard", *inputs, "--output-directory", tmp_path / "x",
                            "--seed", 1)  # fmt: skip
    assert status == 1 and "uncompressed inputs" in stderr


def test_reshard_resumes_and_refuses_what_would_lose_data(tmp_path, capsys):
    inputs = make_inputs(tmp_path, [150, 150])
    fresh, out = tmp_path / "fresh", tmp_path / "out"
    args = ["--target-size", "10KB", "--seed", 3]
    assert run(capsys, "reshard", *inputs, "--output-directory", fresh, *args)[0] == 0
    assert run(capsys, "reshard", *inputs, "--output-directory", out, *args)[0] == 0
    shards = shards_in(out)
    os.unlink(shards[1])  # interrupted before this shard...
    with open(shards[2], "r+b") as f:  # ...and this one was cut short
        f.truncate(100)
    os.utime(shards[0], (1, 1))
    status, stdout, _ = run(capsys, "reshard", *inputs, "--output-directory", out, *args,
                            "--resume")  # fmt: skip
    assert status == 0 and f"kept {len(shards) - 2} complete shard(s)" in stdout
    assert os.stat(shards[0]).st_mtime == 1  # kept, not rewritten
    for a, b in zip(shards_in(fresh), shards_in(out)):
        assert read_bytes(a) == read_bytes(b)
    status, _, stderr = run(capsys, "reshard", *inputs, "--output-directory", out,
                            "--target-size", "11KB", "--resume")  # fmt: skip
    assert status == 1 and "not built from the same inputs" in stderr
    # Nothing to resume (a new folder, or a run killed before its journal): the run starts.
    new = tmp_path / "new"
    status, stdout, stderr = run(capsys, "reshard", *inputs, "--output-directory", new, *args,
                                 "--resume")  # fmt: skip
    assert status == 0, stderr
    for a, b in zip(shards_in(fresh), shards_in(new), strict=True):
        assert read_bytes(a) == read_bytes(b)
    # Never over an input, never an input twice.
    same = tmp_path / "part-00000-of-00001"
    same.write_bytes(read_bytes(inputs[0]))
    status, _, stderr = run(capsys, "reshard", same, "--output-directory", tmp_path,
                            "--target-size", "1TB")  # fmt: skip
    assert status == 1 and "would overwrite the input" in stderr
    status, _, stderr = run(capsys, "reshard", inputs[0], inputs[0], "--output-directory", out)
    assert status == 1 and "named twice" in stderr
    assert run_process("reshard", inputs[0], "-o", out).returncode == 2  # usage


def test_reshard_sizes_and_plan():
    assert settings.parse_size("256MB") == 256_000_000
    assert settings.parse_size("64MiB") == 64 << 20
    assert settings.parse_size("1.5gb") == 1_500_000_000
    assert settings.parse_size("1000") == 1000
    for bad in ("", "MB", "12XB", "0"):
        with pytest.raises(ValueError):
            settings.parse_size(bad)
    # A record bigger than a shard's share gets its own shard; none is empty.
    bounds = reshard.plan_shards([10, 10, 1000, 10, 10], target=100)
    assert list(bounds) == sorted(set(bounds)) and bounds[0] == 0 and bounds[-1] == 5


# --- show -------------------------------------------------------------------------------------

COLORS = [(250, 10, 10), (10, 250, 10), (10, 10, 250), (240, 240, 20), (20, 240, 240)]


def image_records(path, shapes):
    """Records with a solid-colour PNG each (colour i, shape shapes[i]) and a class name."""
    with swigflow.io.TFRecordWriter(path) as w:
        for i, (h, wd) in enumerate(shapes):
            pixels = np.empty((h, wd, 3), np.uint8)
            pixels[:] = COLORS[i]
            w.write(train.example_from_dict({
                "image/encoded": codecs.encode_png(pixels),
                "image/class/text": f"class-{i}",
            }).SerializeToString())  # fmt: skip
        w.write(train.example_from_dict({"image/encoded": b"not an image"}).SerializeToString())


def test_show_draws_each_record_in_its_cell(tmp_path, capsys):
    path = str(tmp_path / "images.tfrecord")
    shapes = [(40, 40), (20, 40), (40, 10), (33, 33), (64, 48)]
    image_records(path, shapes)
    sheet_path = tmp_path / "sheet.png"
    status, stdout, stderr = run(capsys, "show", path, "--grid", "2x4", "--cell", "32",
                                 "--label", "image/class/text", "-o", sheet_path)  # fmt: skip
    assert status == 0 and "1 did not decode" in stdout and "record 5" in stderr
    sheet = codecs.decode_png(sheet_path.read_bytes())
    rows, cols, cell = 2, 4, 32
    assert sheet.shape == (
        show.PAD + rows * (cell + show.LABEL + show.PAD),
        show.PAD + cols * (cell + show.PAD),
        3,
    )
    for i, (h, w) in enumerate(shapes):
        top, left = show.cell_origin(i, cols, cell, True)
        box = sheet[top : top + cell, left : left + cell]
        scale = min(cell / h, cell / w)
        fh, fw = round(h * scale), round(w * scale)
        y, x = (cell - fh) // 2, (cell - fw) // 2
        inside = box[y : y + fh, x : x + fw]
        assert (inside == COLORS[i]).all(), i  # the record's image, scaled to fit
        outside = np.ones((cell, cell), bool)
        outside[y : y + fh, x : x + fw] = False
        assert (box[outside] == show.BACKGROUND).all()
        label = sheet[top + cell : top + cell + show.LABEL, left : left + cell]
        assert (label > 200).any()  # the label's text
    top, left = show.cell_origin(5, cols, cell, True)
    assert (sheet[top : top + cell, left : left + cell] == show.FAILED).all()
    top, left = show.cell_origin(6, cols, cell, True)  # no record: empty
    assert (sheet[top : top + cell, left : left + cell] == show.BACKGROUND // 2).all()


def test_show_labels_with_newlines_and_binary_bytes(tmp_path, capsys):
    pytest.importorskip("PIL", reason="--label needs Pillow")
    path = str(tmp_path / "labels.tfrecord")
    pixels = codecs.encode_png(np.zeros((8, 8, 3), np.uint8))
    labels = [b"two\nlines", b"\xff\xfe\x00binary", "ünïcode".encode()]
    with swigflow.io.TFRecordWriter(path) as w:
        for label in labels:
            example = {"image/encoded": pixels, "k": label}
            w.write(train.example_from_dict(example).SerializeToString())
    status, _, stderr = run(capsys, "show", path, "--label", "k", "-o", tmp_path / "s.png")
    assert status == 0, stderr
    assert show.one_line("two\nlines") == "two\\nlines"
    assert show.one_line("a\x00b\ufffd") == "a\\x00b\ufffd"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "--cell", "1000000000000"], "use a smaller --cell or --grid"),
        (["show", "--grid", "64x64", "--cell", "4096"], "use a smaller --cell or --grid"),
        (["reshard", "--output-directory", "out", "--target-size", "1e400MB"], "not a size"),
        (["reshard", "--output-directory", "out", "--target-size", "nanMB"], "not a size"),
        (["reshard", "--output-directory", "out", "--target-size", "1e30EB"], "not a size"),
    ],
)
def test_numbers_out_of_range_are_one_line_errors(tmp_path, capsys, args, message):
    path = str(tmp_path / "images.tfrecord")
    image_records(path, [(8, 8)])
    command, *options = args
    if command == "show":
        options += ["-o", tmp_path / "s.png"]
    else:
        options[1] = tmp_path / "out"
    try:
        status, _, stderr = run(capsys, command, path, *options)
    except SystemExit as e:  # argparse's usage error
        status, stderr = e.code, capsys.readouterr().err
    assert status in (1, 2), stderr
    assert message in stderr and "Traceback" not in stderr


def test_show_samples_with_a_seed(tmp_path, capsys):
    path = str(tmp_path / "images.tfrecord")
    image_records(path, [(8, 8)] * 5)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.png"
        assert run(capsys, "show", path, "--grid", "1x2", "--seed", 4, "-o", out)[0] == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


# --- profile ----------------------------------------------------------------------------------


def slow_step(batch):
    import time

    time.sleep(0.004)
    return batch


def test_profile_names_the_cause_and_the_fix(tmp_path, capsys):
    paths = []
    for f in range(300):
        path = str(tmp_path / f"tiny-{f:03d}.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            for r in range(4):
                w.write(train.example_from_dict({"id": f * 4 + r}).SerializeToString())
        paths.append(path)
    status, stdout, _ = run(capsys, "profile", *paths, "--seconds", 1, "--batch", 64)
    assert status == 0
    assert "records/s" in stdout and "bottleneck:" in stdout
    assert "[cause] small files: 300 files" in stdout and "swigflow reshard" in stdout
    # The recommended fix, applied, takes the cause away.
    out = tmp_path / "merged"
    assert run(capsys, "reshard", *paths, "--output-directory", out)[0] == 0
    status, stdout, _ = run(capsys, "profile", *shards_in(out), "--seconds", 1, "--json")
    report = json.loads(stdout)
    assert status == 0
    causes = [f["key"] for f in report["findings"] if f["status"] == "cause"]
    assert "small_files" not in causes and "parallel_reads" not in causes


def test_profile_with_a_map_and_a_chart(tmp_path, capsys):
    path = str(tmp_path / "data.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(2000):
            w.write(train.example_from_dict({"id": i, "x": [1.0, 2.0]}).SerializeToString())
    spec = json.dumps({"id": {"dtype": "int64", "shape": []}, "x": {"dtype": "float32"}})
    png = tmp_path / "timeline.png"
    status, stdout, _ = run(capsys, "profile", path, "--spec", spec, "--map",
                            "test_tools:slow_step", "--seconds", 1, "--png", png)  # fmt: skip
    assert status == 0, stdout
    assert "[cause] preprocessing on the critical path: map(slow_step)" in stdout
    assert codecs.decode_png(png.read_bytes()).shape[2] in (3, 4)
    for bad in (["--spec", "{"], ["--map", "nope"], ["--map", "os:nothing"]):
        assert run(capsys, "profile", path, *bad)[0] == 1
    for bad in ("0", "nan", "inf"):  # a usage error: exit status 2
        with pytest.raises(SystemExit, match="2"):
            run(capsys, "profile", path, "--seconds", bad)


# --- progress bars ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["verify", "count", "index", "repair", "export-images"])
def test_long_commands_show_a_bar_on_a_terminal_only(tmp_path, command, monkeypatch):
    path = str(tmp_path / "data.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for _ in range(5000):
            w.write(train.example_from_dict({"image/encoded": b"x" * 100}).SerializeToString())
    runs = iter(range(100))

    def extra():  # a new output each run
        n = next(runs)
        return {
            "repair": ["-o", tmp_path / f"fixed-{n}.tfrecord"],
            "export-images": ["--output-directory", tmp_path / f"images-{n}"],
        }.get(command, [])

    monkeypatch.setenv("SWIGFLOW_FORCE_PROGRESS", "1")  # as if stderr were a terminal
    shown = run_process(command, path, *extra())
    assert shown.returncode == 0, shown.stderr
    assert "100%" in shown.stderr and command in shown.stderr
    for flags in (["--no-progress", command], [command, "--no-progress"]):
        quiet = run_process(*flags, path, *extra())
        assert quiet.returncode == 0 and "100%" not in quiet.stderr
    monkeypatch.delenv("SWIGFLOW_FORCE_PROGRESS")
    assert "100%" not in run_process(command, path, *extra()).stderr  # not a terminal


# --- help ---------------------------------------------------------------------------------------


def test_every_command_shows_an_example_that_parses_and_its_defaults():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse keeps them only there
    assert set(EXAMPLES) == set(commands)
    for name, command in commands.items():
        argv = shlex.split(EXAMPLES[name])
        assert argv[:2] == ["swigflow", name]
        args = parser.parse_args(argv[1:])  # a usage error would exit
        assert args.command == name
        text = command.format_help()
        assert f"example: {EXAMPLES[name]}\n" in text  # whole, not wrapped
    help_text = commands["build-image-dataset"].format_help()
    assert re.search(r"--train-shards N\s+\(default: 1\)", help_text)
    assert "--label-base {0,1}" in help_text and "(default 1)" in help_text
