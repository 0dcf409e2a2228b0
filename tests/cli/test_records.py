"""swigflow verify / repair / count / index / cat / inspect, on the golden files TensorFlow wrote
(intact and damaged) and on files made here."""

import base64
import json
import math
import os
import pathlib
import shutil
import struct

import pytest
from cli_util import run, run_process

import swigflow
from swigflow import train

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
with open(os.path.join(GOLDEN, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)


def golden(name):
    return os.path.join(GOLDEN, name)


INTACT = ["records.tfrecord", "records.gzip.tfrecord", "records.zlib.tfrecord", "examples.tfrecord"]


@pytest.mark.parametrize("name", INTACT)
def test_verify_intact_files(name, capsys):
    status, out, _ = run(capsys, "verify", golden(name))
    assert status == 0
    n = len(list(swigflow.io.tf_record_iterator(golden(name), _compression(name))))
    assert out == f"{golden(name)}: OK: {n} records\n"


def _compression(name):
    return "GZIP" if "gzip" in name else "ZLIB" if "zlib" in name else ""


# (file, record number, offset, kind) of each damage in the golden corrupt files.
GOLDEN_DAMAGE = {
    "bad_data_crc.tfrecord": (59, 557053, "data CRC mismatch"),
    "bad_length_crc.tfrecord": (1, 16, "length CRC mismatch"),
    "truncated_header.tfrecord": (1, 16, "truncated record"),
    "truncated_mid_record.tfrecord": (59, 557053, "truncated record"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_DAMAGE))
def test_verify_reports_each_damage_and_exits_1(name, capsys):
    status, out, _ = run(capsys, "verify", golden(name))
    assert status == 1
    record, offset, kind = GOLDEN_DAMAGE[name]
    lines = out.splitlines()
    assert lines[0].startswith(f"{golden(name)}: record {record} at offset {offset}: {kind} (")
    assert lines[1].startswith(f"{golden(name)}: DAMAGED: ")
    # The records TensorFlow reads before its error are the first intact ones we count.
    assert MANIFEST["corrupt"][name]["records_before_error"] <= int(lines[1].split()[2])


def test_verify_many_files_quiet(capsys):
    files = [golden("records.tfrecord"), golden("bad_data_crc.tfrecord")]
    status, out, _ = run(capsys, "verify", "-q", *files)
    assert status == 1
    assert "records.tfrecord: OK" not in out
    assert "bad_data_crc.tfrecord: DAMAGED" in out


def test_verify_finds_every_damage_in_one_file(tmp_path, capsys):
    path = tmp_path / "many.tfrecord"
    records = [bytes([i]) * 50 for i in range(10)]  # each record framed in 66 bytes
    with swigflow.io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)
    data = bytearray(path.read_bytes())
    data[2 * 66 + 20] ^= 1  # payload of record 2
    data[5 * 66 + 1] ^= 1  # length of record 5
    path.write_bytes(bytes(data[: 9 * 66 + 30]))  # record 9 cut short
    status, out, _ = run(capsys, "verify", path)
    assert status == 1
    expected = [
        ("record 2 at offset 132", "data CRC mismatch (corrupted record at 144 in "),
        ("record 4 at offset 330", "length CRC mismatch (corrupted record at 330 in "),
        ("record 7 at offset 594", "truncated record (truncated record at 594 in "),
    ]
    for line, (where, what) in zip(out.splitlines(), expected):
        assert line.startswith(f"{path}: {where}: {what}{path}")
    assert "DAMAGED: 7 intact records, 3 damaged stretch(es)" in out

    fixed = tmp_path / "fixed.tfrecord"
    status, out, _ = run(capsys, "repair", path, "--output", fixed)
    assert status == 0
    assert "wrote 7 records" in out and out.count("dropped: ") == 3
    kept = [records[i] for i in (0, 1, 3, 4, 6, 7, 8)]
    assert list(swigflow.io.tf_record_iterator(fixed)) == kept
    assert run(capsys, "verify", fixed)[0] == 0


@pytest.mark.parametrize("name", sorted(GOLDEN_DAMAGE))
def test_repair_golden_damage(name, tmp_path, capsys):
    fixed = tmp_path / "fixed.tfrecord"
    status, out, _ = run(capsys, "repair", golden(name), "--output", fixed)
    assert status == 0
    good = list(swigflow.io.tf_record_iterator(golden("records.tfrecord")))
    got = list(swigflow.io.tf_record_iterator(fixed))
    record = GOLDEN_DAMAGE[name][0]
    # The golden corrupt files are records.tfrecord with one record damaged (or cut).
    assert got == good[:record] + good[record + 1 : record + 1 + len(got) - record]
    assert f"dropped: {golden(name)}: record {record}" in out
    assert run(capsys, "verify", fixed)[0] == 0


def test_repair_keeps_or_changes_compression(tmp_path, capsys):
    source = tmp_path / "data.tfrecord.gz"
    shutil.copy(golden("records.gzip.tfrecord"), source)
    assert run(capsys, "repair", source, "--output", tmp_path / "same.gz")[0] == 0
    assert (
        run(capsys, "repair", source, "-o", tmp_path / "plain", "--output-compression", "NONE")[0]
        == 0
    )
    expected = list(swigflow.io.tf_record_iterator(golden("records.tfrecord")))
    assert list(swigflow.io.tf_record_iterator(tmp_path / "same.gz", "GZIP")) == expected
    assert list(swigflow.io.tf_record_iterator(tmp_path / "plain")) == expected


def test_repair_refuses_to_overwrite_its_input(tmp_path, capsys):
    path = tmp_path / "a.tfrecord"
    shutil.copy(golden("records.tfrecord"), path)
    status, _, err = run(capsys, "repair", path, "--output", path)
    assert status == 1 and "must be a new file" in err
    assert path.read_bytes() == pathlib.Path(golden("records.tfrecord")).read_bytes()


def test_damaged_compressed_stream(tmp_path, capsys):
    path = tmp_path / "d.tfrecord.gz"
    data = bytearray(pathlib.Path(golden("records.gzip.tfrecord")).read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    status, out, _ = run(capsys, "verify", path)
    assert status == 1 and "DAMAGED" in out


def test_count_and_index(tmp_path, capsys):
    path = tmp_path / "r.tfrecord"
    shutil.copy(golden("records.tfrecord"), path)
    status, out, _ = run(capsys, "count", path, golden("records.zlib.tfrecord"))
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == ["60", "60", "120"]

    status, out, _ = run(capsys, "index", path)
    assert status == 0 and out.split() == ["60", swigflow.io.default_index_path(path)]
    assert len(swigflow.io.TFRecordFile(path)) == 60
    # An index that does not describe the file is never trusted, even one ending at the file's
    # end (the stale-index cases are in tests/python/test_reliability.py).
    with open(swigflow.io.default_index_path(path), "a") as f:
        f.write(f"{os.path.getsize(path)} 0\n")
    assert run(capsys, "count", path)[1].split()[0] == "60"
    with open(swigflow.io.default_index_path(path), "a") as f:
        f.write("99999999 16\n")
    assert run(capsys, "count", path)[1].split()[0] == "60"

    # A compressed file gets a seek index, which count then uses.
    gz = str(tmp_path / "records.gzip.tfrecord")
    shutil.copy(golden("records.gzip.tfrecord"), gz)
    status, out, _ = run(capsys, "index", gz)
    assert status == 0 and out.split()[0] == "60"
    assert swigflow.io.TFRecordFile(
        gz, options="GZIP"
    ).index_path == swigflow.io.default_index_path(gz)
    assert run(capsys, "count", gz)[1].split()[0] == "60"


def test_missing_file_is_one_line_error(tmp_path):
    result = run_process("count", tmp_path / "nope.tfrecord")
    assert result.returncode == 1
    assert result.stderr.startswith("swigflow count: error: ")
    assert "Traceback" not in result.stderr


def test_cat_json_is_protobuf_json_and_exact(tmp_path, capsys):
    path = tmp_path / "e.tfrecord"
    values = {
        "b": [b"\x00\xff", b"text"],
        "f": [1.5, -0.0, float("inf"), float("nan"), 1e-45],
        "i": [-(1 << 63), (1 << 63) - 1],
    }
    with swigflow.io.TFRecordWriter(path) as w:
        w.write(train.example_from_dict(values).SerializeToString())
        w.write(b"\x0a\x05")  # not an Example
    status, out, _ = run(capsys, "cat", "--json", path)
    assert status == 0
    first, second = [json.loads(line) for line in out.splitlines()]
    feature = first["features"]["feature"]
    assert [base64.b64decode(v) for v in feature["b"]["bytesList"]["value"]] == values["b"]
    assert [int(v) for v in feature["i"]["int64List"]["value"]] == values["i"]
    floats = feature["f"]["floatList"]["value"]
    assert floats[:3] == [1.5, -0.0, "Infinity"] and floats[3] == "NaN"
    assert math.copysign(1, floats[1]) == -1
    assert struct.pack("<f", floats[4]) == struct.pack("<f", 1e-45)  # the subnormal, exactly
    assert base64.b64decode(second["_not_an_example"]) == b"\x0a\x05"


def test_cat_text_shows_bytes_safely(tmp_path, capsys):
    path = tmp_path / "e.tfrecord"
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(
                train.example_from_dict(
                    {"blob": b"\x00\x1b[31m" + bytes(100), "name": "naïve", "n": i}
                ).SerializeToString()
            )
    status, out, _ = run(capsys, "cat", "-n", 2, path)
    assert status == 0
    assert "\x1b" not in out and "\x00" not in out  # no raw control bytes reach the terminal
    assert out.count("record ") == 2
    assert '  blob: bytes ["\\x00\\x1b[31m' in out and "(106 bytes)" in out
    assert '  name: bytes ["naïve"]' in out


def test_inspect_infers_schema_and_specs(tmp_path, capsys):
    path = tmp_path / "e.tfrecord"
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(4):
            features = {"label": i, "emb": [0.5, 1.5], "tags": [b"t"] * i or [b"x"]}
            if i % 2:
                features["maybe"] = [1]
            w.write(train.example_from_dict(features).SerializeToString())
    status, out, _ = run(capsys, "inspect", "--json", path)
    assert status == 0
    schema = json.loads(out)
    assert schema["records"] == 4
    features = schema["features"]
    assert features["label"]["spec"] == 'FixedLenFeature([], "int64")'
    assert features["emb"]["spec"] == 'FixedLenFeature([2], "float32")'
    assert features["tags"]["spec"] == 'VarLenFeature("string")'
    assert (features["tags"]["min_values"], features["tags"]["max_values"]) == (1, 3)
    assert features["maybe"]["present"] == 2
    assert features["maybe"]["spec"] == 'VarLenFeature("int64")'
    # The spec as parse() and `profile --spec` take it, the same as swigflow.io.infer_spec's.
    assert schema["spec"]["emb"] == {"dtype": "float32", "shape": [2]}
    assert swigflow.io.spec_from_json(schema["spec"]) == swigflow.io.infer_spec(str(path))
    parsed = next(iter(swigflow.data.TFRecordDataset(str(path)).batch(4).parse(schema["spec"])))
    assert parsed["label"].tolist() == [0, 1, 2, 3]
    assert (
        run(capsys, "profile", path, "--spec", json.dumps(schema["spec"]), "--seconds", 1)[0] == 0
    )

    status, out, _ = run(capsys, "inspect", path, golden("examples.tfrecord"), "--max-records", 6)
    assert status == 0
    assert out.startswith("6 records in 2 file(s)")
    emb = next(line for line in out.splitlines() if line.startswith("emb "))
    assert emb.split()[2] == "4" and emb.endswith('VarLenFeature("float32")')  # 4 of 6 records


def test_inspect_damaged_file_is_an_error(capsys):
    status, _, err = run(capsys, "inspect", golden("bad_data_crc.tfrecord"))
    assert status == 1
    assert "corrupted record at 557065" in err


# --- index files caught by a glob -------------------------------------------------------------


def test_a_glob_that_catches_index_files_skips_them_with_a_note(tmp_path, capsys, caplog):
    """`swigflow index` names index files so that `OUT/train-*` does not catch them (hidden:
    .train-0.idx). Index files beside the shards under the older name (train-0.idx, as DALI's
    tools and earlier versions wrote them) are found, and a glob that catches them skips them,
    each with a note, in the commands and in TFRecordDataset (a list or a file dataset); a
    TFRecord file that merely ends in .idx is read."""
    import glob

    from swigflow.data import Dataset, TFRecordDataset

    shards = []
    for s in range(2):
        shards.append(str(tmp_path / f"train-{s}"))
        with swigflow.io.TFRecordWriter(shards[-1]) as w:
            for r in range(3):
                w.write(b"%d:%d" % (s, r))
    assert run(capsys, "index", *shards)[0] == 0
    assert sorted(glob.glob(str(tmp_path / "train-*"))) == shards
    assert sorted(glob.glob(str(tmp_path / "*"))) == shards
    for shard in shards:  # to the older name
        os.rename(swigflow.io.default_index_path(shard), shard + ".idx")
        assert swigflow.io.TFRecordFile(shard).index_path == shard + ".idx"
    odd = str(tmp_path / "train-odd.idx")  # a TFRecord file, whatever its name says
    with swigflow.io.TFRecordWriter(odd) as w:
        w.write(b"odd")
    caught = sorted(glob.glob(str(tmp_path / "train-*")))
    assert len(caught) == 5
    status, out, err = run(capsys, "count", *caught)
    assert status == 0 and out.split()[-2:] == ["7", "total"], out
    assert err.count("an index file") == 2 and "train-odd.idx" not in err, err
    assert sorted(TFRecordDataset(caught).as_numpy_iterator()) == sorted(
        [b"%d:%d" % (s, r) for s in range(2) for r in range(3)] + [b"odd"]
    )
    assert "skipping" in caplog.text and shards[0] + ".idx" in caplog.text
    interleaved = Dataset.list_files(str(tmp_path / "train-*")).interleave(TFRecordDataset)
    assert len(list(interleaved)) == 7
    status, _, err = run(capsys, "show", shards[0] + ".idx", "--output", str(tmp_path / "s.png"))
    assert status == 1 and "only index files" in err
