"""Every code block of the README and of the guide (docs/index.md's Guide pages) runs, so the
documentation cannot rot.

Each page's blocks run in order, in one namespace and one working folder of its own, as a reader
would paste them:
- ``python`` blocks are executed;
- shell blocks (``sh`` or unlabelled) run their ``swigflow`` commands in this process, globs
  expanded as a shell would;
- transcripts (``$ command`` lines, then its output) run the command and compare the output,
  numbers aside; an output the page presents as measured on one machine (SAMPLES) is checked for
  its section headers only.

Blocks that cannot run here are listed in ELSEWHERE with the test that runs them, and the list
must match the pages exactly. Object stores are local servers: moto's S3 on 127.0.0.1 for
``s3://bucket``, a GCS emulator for ``gs://bucket``, and a local Ray cluster for swigflow.ray.

The pages take a few names as given, as their text does (a reader has them at hand): GIVEN.
"""

import contextlib
import glob
import io
import json
import os
import pathlib
import re
import shlex
import shutil
import sys

import numpy as np
import pytest

import swigflow
from swigflow.cli import main as swigflow_main
from swigflow.io import FixedLenFeature

ROOT = pathlib.Path(__file__).resolve().parents[2]
if not (ROOT / "docs" / "index.md").exists():  # Bazel's runfiles tree: the workspace folder
    ROOT = pathlib.Path(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""))
TFDS_DATA = ROOT / "tests" / "testdata" / "tfds" / "data"

# What the pages take as given, and what it is here.
GIVEN = {
    "files": "TFRecord shards of Examples (image/encoded JPEG, image/class/label)",
    "spec": "the parse spec of those shards",
    "jpeg_bytes": "a JPEG file's bytes",
    "d": "a local TFDS data_dir holding imagenet2012 (sf_classes, renamed)",
    "clean": "a Ray map_batches function (the identity)",
    "np": "numpy",
    "swigflow": "swigflow",
    "torch": "torch, when installed",
}

# Blocks that run elsewhere, by page and a line they hold: why.
ELSEWHERE = {
    ("README.md", "./configure && bazel test //tests/..."): (
        "the Quickstart's two commands: .ci/run runs them as written (.ci/readme_commands)"
    ),
    ("README.md", "python -m sphinx -W --keep-going -b html docs site/"): (
        "//tests/docs:site_test builds the site this way"
    ),
    ("docs/custom_ops.md", "g++ -std=c++17 -shared -fPIC zero_out.cc -o zero_out.so \\"): (
        "needs the installed wheel: //tests/pkg:wheel_test runs this block from the page"
    ),
}

# C++ blocks are excerpts of the file their page names in backquotes just before the block: each
# line (comments after code aside) is checked to be in that file, so the excerpt cannot drift.

# Transcripts whose output was measured on one machine (rates, busy shares, which stage limits).
SAMPLES = {"swigflow profile", "swigflow reshard"}


def guide_pages():
    """README.md and the pages of docs/index.md's Guide toctree, in order."""
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}\n:caption: Guide\n(.*?)```", index, re.S).group(1)
    names = [
        line.strip() for line in toctree.split("\n") if re.fullmatch(r"[a-z0-9_]+", line.strip())
    ]
    return ["README.md"] + [f"docs/{name}.md" for name in names]


def code_blocks(page):
    """(line number, language, text) of the page's fenced blocks, directives ({toctree}, ...)
    left out."""
    lines = (ROOT / page).read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(`{3,})(\S*)\s*$", lines[i])
        if m:
            fence, language = m.group(1), m.group(2)
            end = next(j for j in range(i + 1, len(lines)) if lines[j].rstrip() == fence)
            if not language.startswith("{"):
                blocks.append((i + 1, language, "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


def _elsewhere(page, text):
    return next((why for (p, line), why in ELSEWHERE.items() if p == page and line in text), None)


def test_elsewhere_names_blocks_that_exist():
    """Each ELSEWHERE entry names exactly one block, so the list cannot go stale."""
    for page, line in ELSEWHERE:
        assert sum(line in text for _, _, text in code_blocks(page)) == 1, (page, line)


def test_every_page_has_its_blocks_run():
    pages = guide_pages()
    assert "docs/pipelines.md" in pages and len(pages) >= 12
    languages = {lang for page in pages for _, lang, _ in code_blocks(page)}
    assert languages <= {"python", "sh", "", "c++"}, languages


# --- running blocks -------------------------------------------------------------------------


def _commands(text):
    """The commands of a shell block: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    commands = []
    for line in joined.split("\n"):
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            commands.append(line)
    return commands


def _argv(command):
    """A command's arguments after `swigflow`, local globs expanded as a shell would."""
    words = shlex.split(command)
    assert words[0] == "swigflow", f"not a swigflow command: {command}"
    argv = []
    for word in words[1:]:
        matches = sorted(glob.glob(word)) if "://" not in word and glob.has_magic(word) else []
        argv.extend(matches or [word])
    return argv


def _run_swigflow(command):
    """(exit status, stdout + stderr) of a swigflow command run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            status = swigflow_main(_argv(command))
        except SystemExit as e:
            status = e.code
    return status, out.getvalue()


def _skeleton(line):
    return re.sub(r"\d[\d,.]*", "#", line.rstrip())


def _check_transcript(text):
    """Runs each `$ command` and compares its output with the lines that follow it."""
    parts = re.split(r"^\$ (.*)$", text, flags=re.M)
    for command, expected in zip(parts[1::2], parts[2::2]):
        status, output = _run_swigflow(command)
        actual = [_skeleton(line) for line in output.split("\n")]
        expected = [line for line in expected.split("\n") if line.strip()]
        if any(command.startswith(s) for s in SAMPLES):
            assert status == 0, output
            headers = [line for line in expected if re.fullmatch(r"[a-z]+:", line)]
            assert all(h in output.split("\n") for h in headers), output
            continue
        for line in expected:
            if "..." in line:
                prefix = _skeleton(line.split("...")[0])
                assert any(a.startswith(prefix) for a in actual), (line, output)
            else:
                assert _skeleton(line) in actual, (line, output)


def _check_excerpt(page, line, text):
    before = (ROOT / page).read_text(encoding="utf-8").split("\n")[: line - 1]
    named = re.findall(r"`([\w/]+\.(?:cc|h))`", "\n".join(before[-3:]))
    assert named, f"{page}:{line}: a C++ block must follow the name of the file it quotes"
    source = (ROOT / named[-1]).read_text(encoding="utf-8")
    for row in text.split("\n"):
        code = re.sub(r"\s*//.*$", "", row).rstrip()
        if code.strip():
            assert code in source, f"{page}:{line}: not in {named[-1]}: {code!r}"


OPTIONAL = ("torch", "torchdata", "grain", "ray")


def _run_block(page, line, language, text, namespace):
    where = f"{page}:{line}"
    if language == "python":
        try:
            exec(compile(text, where, "exec"), namespace)  # the documentation's own code
        except ModuleNotFoundError as e:
            if e.name and e.name.split(".")[0] in OPTIONAL:
                pytest.skip(f"{where}: {e.name} is not installed")
            raise
        except NameError as e:  # a block using `torch`, which the page's setup imported
            if e.name in OPTIONAL:
                pytest.skip(f"{where}: {e.name} is not installed")
            raise
        return
    if language == "c++":
        _check_excerpt(page, line, text)
        return
    if any(row.startswith("$ ") for row in text.split("\n")):
        _check_transcript(text)
        return
    for command in _commands(text):
        status, output = _run_swigflow(command)
        assert status == 0, f"{where}: {command}\n{output}"


# --- what the pages are given ---------------------------------------------------------------


def _photos(folder, per_class=20, size=48):
    """An image folder of small JPEGs, one sub-folder per class."""
    rng = np.random.default_rng(0)
    for c, name in enumerate(("circles", "stripes", "checks")):
        (folder / name).mkdir(parents=True)
        for i in range(per_class):
            image = rng.integers(0, 256, (size, size + 8 * c, 3), dtype=np.uint8)
            (folder / name / f"{i:03d}.jpg").write_bytes(swigflow.image.encode_jpeg(image))


def _tiny_files(folder, count=3000, records=10):
    """The profile transcript's tiny/: 3,000 files of 10 records of 125 bytes framed (3.75 MB)."""
    folder.mkdir()
    example = swigflow.train.example_from_dict({"x": b"a" * 96})  # a 109-byte payload
    for i in range(count):
        with swigflow.io.TFRecordWriter(str(folder / f"part-{i:05d}.tfrecord")) as w:
            for _ in range(records):
                w.write(example)


def _tfds_copy(data_dir, name, splits):
    """sf_classes prepared again as dataset `name`, its splits renamed {old: new}."""
    source = TFDS_DATA / "sf_classes" / "2.0.0"
    target = pathlib.Path(data_dir) / name / "2.0.0"
    target.mkdir(parents=True)
    for path in source.iterdir():
        new = path.name
        for old, split in splits.items():
            new = new.replace(f"sf_classes-{old}.", f"{name}-{split}.")
        shutil.copy(path, target / new)
    info = json.loads((source / "dataset_info.json").read_text())
    info["name"] = name
    for split in info["splits"]:
        split["name"] = splits[split["name"]]
    (target / "dataset_info.json").write_text(json.dumps(info))


@pytest.fixture(scope="module")
def given(tmp_path_factory):
    """The GIVEN names, made once."""
    top = tmp_path_factory.mktemp("given")
    _photos(top / "photos")
    status, output = _run_swigflow(
        f"swigflow build-image-dataset --train-directory {shlex.quote(str(top / 'photos'))} "
        f"--output-directory {shlex.quote(str(top / 'shards'))} --train-shards 4 "
        "--validation-shards 1 --num-threads 2 --seed 1"
    )
    assert status == 0, output
    files = sorted(str(p) for p in (top / "shards").glob("train-*"))
    spec = {
        "image/encoded": FixedLenFeature([], "string"),
        "image/class/label": FixedLenFeature([], "int64"),
    }
    names = {
        "files": files,
        "spec": spec,
        "jpeg_bytes": (top / "photos" / "circles" / "000.jpg").read_bytes(),
        "d": str(top / "tfds"),
        "clean": lambda batch: batch,
        "np": np,
        "swigflow": swigflow,
    }
    _tfds_copy(top / "tfds", "imagenet2012", {"train": "train", "validation": "validation"})
    with contextlib.suppress(ImportError):
        import torch

        names["torch"] = torch
    assert set(names) | {"torch"} == set(GIVEN)
    return top, names


@contextlib.contextmanager
def _ray_cluster():
    """A local Ray cluster whose workers see fsspec's s3:// configuration of this process."""
    ray = pytest.importorskip("ray", reason="the ray extra (swigflow[ray]) is missing")
    import fsspec

    env = {
        "PYTHONPATH": os.pathsep.join(sys.path),
        "FSSPEC_S3": json.dumps(fsspec.config.conf["s3"]),
    }
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": env},
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield
    finally:
        ray.shutdown()


@contextlib.contextmanager
def _page_services(page, given_dir):
    """What a page's blocks reach beyond the working folder."""
    if page == "docs/distributed.md":
        sys.path.insert(0, str(ROOT / "tests" / "python"))  # the tests' S3 helper
        from s3_store import moto_bucket

        with moto_bucket("bucket") as url:
            import fsspec

            fs = fsspec.filesystem("s3", skip_instance_cache=True)
            for i, path in enumerate(sorted((given_dir / "shards").glob("train-*"))):
                fs.put(str(path), f"{url}/train/part-{i}.tfrecord")
            fs.put(str(given_dir / "photos"), f"{url}/raw/train", recursive=True)
            with _ray_cluster():
                yield
        return
    if page == "docs/tfds.md":
        sys.path.insert(0, str(ROOT / "tests" / "python"))  # the tests' GCS helper
        from gcs_store import gcs_bucket

        # The data_dir of the page's first call, where its later calls look by default.
        os.environ["TFDS_DATA_DIR"] = "gs://bucket/tensorflow_datasets"
        with gcs_bucket("bucket") as fs:
            _tfds_copy(given_dir / "mnist", "mnist", {"train": "train", "validation": "test"})
            fs.put(
                str(given_dir / "mnist" / "mnist"),
                "bucket/tensorflow_datasets/mnist",
                recursive=True,
            )
            yield
        return
    yield


def _runnable(page):
    return [b for b in code_blocks(page) if not _elsewhere(page, b[2])]


@pytest.mark.parametrize("page", [p for p in guide_pages() if _runnable(p)])
def test_page_blocks_run(page, given, tmp_path, monkeypatch):
    given_dir, names = given
    blocks = _runnable(page)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(given_dir / "photos", tmp_path / "photos")
    if page == "docs/cli.md":  # the transcript's file, at the path it names
        golden = tmp_path / "tests" / "testdata" / "golden"
        golden.mkdir(parents=True)
        shutil.copy(ROOT / "tests/testdata/golden/bad_length_crc.tfrecord", golden)
    if page == "docs/pipelines.md":
        _tiny_files(tmp_path / "tiny")
    namespace = dict(names)
    monkeypatch.delenv("TFDS_DATA_DIR", raising=False)
    with _page_services(page, given_dir):
        for line, language, text in blocks:
            _run_block(page, line, language, text, namespace)
