"""Hostile inputs: bounded memory on bombs, random data and lying lengths, typed errors instead
of aborts when memory runs out, stale index files, empty batches and NaN. Memory is checked in
subprocesses under an address-space limit (RLIMIT_AS), so a regression fails the test instead
of the machine."""

import gzip
import itertools
import json
import os
import struct
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

import swigflow
from swigflow import errors
from swigflow.io import masked_crc32c

MiB = 1 << 20


def header(length):
    """A record header whose CRC is valid, claiming `length` payload bytes."""
    h = struct.pack("<Q", length)
    return h + struct.pack("<I", masked_crc32c(h))


def record(payload):
    return header(len(payload)) + payload + struct.pack("<I", masked_crc32c(payload))


def gzip_of_zeros(path, total, head=b""):
    """A gzip member holding `head` then `total` zero bytes, written without holding them."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = bytes(4 * MiB)
    with open(path, "wb") as f:
        f.write(compressor.compress(head))
        for _ in range(total // len(zeros)):
            f.write(compressor.compress(zeros))
        f.write(compressor.flush())


LIMITED = textwrap.dedent(
    """
    import resource, sys
    import swigflow
    limit = int(sys.argv[3]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    path, how = sys.argv[1], sys.argv[2]
    compression = "GZIP" if path.endswith(".gz") else None
    try:
        if how == "iterator":
            n = sum(1 for _ in swigflow.io.tf_record_iterator(path, compression))
        elif how == "scanner":
            scanner = swigflow.io.TFRecordScanner(path, compression)
            n = sum(1 for _ in scanner)
            print("damages", [d.kind for d in scanner.damages])
        elif how == "dataset":
            n = sum(1 for _ in swigflow.data.TFRecordDataset(path, compression))
        elif how == "skip_record":
            n = sum(1 for _ in swigflow.data.TFRecordDataset(path, compression,
                                                            on_error="skip_record"))
        print("records", n)
    except Exception as e:
        print("raised", type(e).__name__, isinstance(e, MemoryError))
    """
)


def run_limited(path, how, limit_mib):
    """What `how` prints reading `path` in a subprocess limited to limit_mib of address space."""
    result = subprocess.run(
        [sys.executable, "-c", LIMITED, str(path), how, str(limit_mib)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]  # no abort, no signal
    return result.stdout


READERS = ["iterator", "scanner", "dataset", "skip_record"]


@pytest.mark.parametrize("how", READERS)
def test_a_gzip_of_zeros_is_read_in_bounded_memory(tmp_path, how):
    path = tmp_path / "zeros.gz"
    gzip_of_zeros(path, 256 * MiB)  # 256 MiB of zeros in 250 KB: no header checks out
    out = run_limited(path, how, 512)
    if how in ("iterator", "dataset"):
        assert "raised DataLossError" in out
    else:
        assert "records 0" in out


@pytest.mark.parametrize("how", READERS)
def test_random_data_is_read_in_bounded_memory(tmp_path, how):
    path = tmp_path / "random"
    rng = np.random.default_rng(0)
    with open(path, "wb") as f:
        f.write(record(b"first"))
        for _ in range(24):
            f.write(rng.bytes(8 * MiB))  # 192 MiB of noise after one good record
    out = run_limited(path, how, 448)
    assert (
        ("raised DataLossError" in out) if how in ("iterator", "dataset") else ("records 1" in out)
    )


@pytest.mark.parametrize("how", READERS)
def test_a_lying_length_in_a_small_gzip_allocates_nothing_large(tmp_path, how):
    path = tmp_path / "liar.gz"
    with gzip.open(path, "wb") as f:
        f.write(record(b"hello"))
        f.write(header(1 << 40) + b"x" * 1000)  # a CRC-valid header claiming 1 TiB
    assert os.path.getsize(path) < 2048
    out = run_limited(path, how, 256)
    if how in ("iterator", "dataset"):
        assert "raised DataLossError" in out
    else:
        assert "records 1" in out
        if how == "scanner":
            assert "truncated record" in out


@pytest.mark.parametrize("how", ["iterator", "scanner", "dataset"])
def test_a_record_larger_than_memory_raises_resource_exhausted(tmp_path, how):
    path = tmp_path / "big.gz"
    gzip_of_zeros(path, 1 << 30, head=header(1 << 30))  # one 1 GiB record (of zeros)
    out = run_limited(path, how, 800)
    assert "raised ResourceExhaustedError True" in out  # also a MemoryError


def test_dev_zero_raises_at_once_where_tensorflow_does():
    for how in ("iterator", "dataset"):
        assert "raised DataLossError" in run_limited("/dev/zero", how, 256)


def test_resource_exhausted_is_a_memory_error():
    assert issubclass(errors.ResourceExhaustedError, MemoryError)
    with pytest.raises(MemoryError):
        raise errors.ResourceExhaustedError("x")


# --- stale index files --------------------------------------------------------------------------


def write_records(path, payloads):
    with swigflow.io.TFRecordWriter(path) as w:
        for p in payloads:
            w.write(p)


@pytest.mark.parametrize("change", ["appended", "empty_index", "same_size_rewrite"])
def test_a_stale_index_is_never_trusted(tmp_path, change, caplog):
    path = str(tmp_path / "data.tfrecord")
    write_records(path, [b"aa", b"bbbb", b"cc"])
    swigflow.io.create_index(path)
    if change == "appended":
        write_records(path, [b"aa", b"bbbb", b"cc", b"more"])
    elif change == "empty_index":
        open(swigflow.io.default_index_path(path), "w").close()
    else:  # the same 3 records' bytes, split differently: same size, other boundaries
        write_records(path, [b"aab", b"bbb", b"cc"])
    expected = [bytes(r) for r in swigflow.io.tf_record_iterator(path)]
    records = swigflow.io.TFRecordFile(path)
    assert records.index_path is None  # ignored, scanned instead
    assert len(records) == len(expected) and list(records) == expected
    assert [records[i] for i in range(len(records))] == expected
    assert "ignoring" in caplog.text
    with pytest.raises(errors.DataLossError, match="stale"):
        swigflow.io.TFRecordFile(path, index_path=swigflow.io.default_index_path(path))
    dataset = swigflow.data.TFRecordDataset(path)
    assert list(dataset) == expected
    assert dataset.cardinality() == swigflow.data.UNKNOWN  # not a wrong length


def test_count_ignores_a_stale_index(tmp_path, capsys):
    from swigflow.cli import main

    path = str(tmp_path / "data.tfrecord")
    write_records(path, [b"aa", b"bbbb", b"cc"])
    swigflow.io.create_index(path)
    write_records(path, [b"aab", b"bbb", b"cc"])
    capsys.readouterr()
    assert main(["count", path]) == 0
    assert capsys.readouterr().out.split()[0] == "3"
    write_records(path, [b"a", b"b", b"c", b"d"])
    assert main(["count", path]) == 0
    assert capsys.readouterr().out.split()[0] == "4"


def test_count_fails_on_damaged_compressed_files(tmp_path, capsys):
    from swigflow.cli import main

    path = str(tmp_path / "data.tfrecord.gz")
    data = gzip.compress(record(b"one") + record(b"two")[:-3])
    with open(path, "wb") as f:
        f.write(data)
    assert main(["count", path]) == 1
    assert "truncated record" in capsys.readouterr().err


def test_repair_refuses_to_replace_a_fifo(tmp_path, capsys):
    from swigflow.cli import main

    path = str(tmp_path / "data.tfrecord")
    write_records(path, [b"a"])
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    assert main(["repair", path, "-o", fifo]) == 1
    assert "not a regular file" in capsys.readouterr().err
    assert os.path.exists(fifo) and not os.path.isfile(fifo)


# --- writers -----------------------------------------------------------------------------------


WRITE_PAST_LIMIT = textwrap.dedent(
    """
    import os, resource, signal, sys
    import swigflow
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit, write() fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))  # a disk that fills at 1 MiB
    path, compression = sys.argv[1], sys.argv[2] or None
    writer = swigflow.io.TFRecordWriter(path, compression)
    try:
        for i in range(64):
            writer.write(os.urandom(100_000))  # incompressible
    except swigflow.errors.OpError as e:
        print("first", type(e).__name__, i)
    for name, call in (("write", lambda: writer.write(b"x")), ("flush", writer.flush),
                       ("close", writer.close)):
        try:
            call()
            print(name, "ok")
        except swigflow.errors.OpError as e:
            print(name, type(e).__name__, "failed earlier" in str(e))
    writer.close()
    print("closed again ok")
    """
)


@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_a_writer_that_failed_refuses_everything_after(tmp_path, compression):
    path = tmp_path / "out.tfrecord"
    result = subprocess.run(
        [sys.executable, "-c", WRITE_PAST_LIMIT, str(path), compression],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("first ")
    assert lines[1:] == [
        f"write {lines[0].split()[1]} True",
        f"flush {lines[0].split()[1]} True",
        f"close {lines[0].split()[1]} True",
        "closed again ok",
    ]
    # What is on disk is a prefix that never reads as complete.
    with pytest.raises(errors.DataLossError):
        for _ in swigflow.io.tf_record_iterator(str(path), compression or None):
            pass


# --- numerics -----------------------------------------------------------------------------------


def test_matmul_with_an_empty_batch_dimension():
    a = np.zeros((0, 2, 3), np.float32)
    b = np.ones((3, 4), np.float32)
    out = swigflow.linalg.matmul(a, b)
    assert out.shape == (0, 2, 4) and out.dtype == np.float32
    assert swigflow.linalg.matmul(np.ones((2, 0, 2, 3)), np.ones((1, 3, 4))).shape == (2, 0, 2, 4)


def test_relu_keeps_nan():
    x = np.array([np.nan, -1.0, 2.0, -np.inf, np.inf], np.float32)
    out = swigflow.nn.relu(x)
    assert np.isnan(out[0]) and out[1:].tolist() == [0.0, 2.0, 0.0, np.inf]
    assert np.isnan(swigflow.nn.relu(x.astype(np.float64))[0])


# --- gzip members and trailers ------------------------------------------------------------------


def test_an_empty_gzip_member_does_not_hide_later_records(tmp_path):
    path = tmp_path / "members.gz"
    path.write_bytes(
        gzip.compress(record(b"one")) + gzip.compress(b"") + gzip.compress(record(b"two"))
    )
    assert list(swigflow.io.tf_record_iterator(str(path), "GZIP")) == [b"one", b"two"]
    assert list(swigflow.data.TFRecordDataset(str(path), "GZIP")) == [b"one", b"two"]
    scanner = swigflow.io.TFRecordScanner(str(path), "GZIP")
    assert [p for _, p in scanner] == [b"one", b"two"] and scanner.damages == []


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_a_cut_stream_is_data_loss_after_the_records_before_it(tmp_path, compression):
    payloads = [bytes([i]) * 300 for i in range(5)]
    raw = b"".join(record(p) for p in payloads)
    wbits = 31 if compression == "GZIP" else 15
    compressor = zlib.compressobj(6, zlib.DEFLATED, wbits)
    data = compressor.compress(raw) + compressor.flush()
    path = tmp_path / "cut"
    path.write_bytes(data)
    assert list(swigflow.io.tf_record_iterator(str(path), compression)) == payloads
    trailer = 8 if compression == "GZIP" else 4
    for cut in range(len(data) - trailer - 6, len(data)):  # through the trailer
        path.write_bytes(data[:cut])
        got = []
        with pytest.raises(errors.DataLossError):
            for r in swigflow.io.tf_record_iterator(str(path), compression):
                got.append(r)
        assert got == payloads[: len(got)]
        scanner = swigflow.io.TFRecordScanner(str(path), compression)
        assert [p for _, p in scanner] == got
        assert scanner.damages  # never a clean end


NO_THREADS = textwrap.dedent(
    """
    import os, resource, tempfile
    import numpy as np
    import swigflow
    folder = tempfile.mkdtemp()
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "data.tfrecord")
    with swigflow.io.TFRecordWriter(path) as w:
        for i in range(100):
            w.write(b"record %d" % i)
    os.chmod(path, 0o644)
    # Thread limits bind users other than root (and root in a user namespace, as in Bazel's
    # sandbox): become nobody where possible, then leave room for no thread.
    try:
        os.setgid(65534)
        os.setuid(65534)
    except OSError:
        pass
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
    import threading
    try:
        probe = threading.Thread(target=lambda: None)
        probe.start()
        probe.join()
        print("unlimited")  # the limit does not bind here
        raise SystemExit(0)
    except RuntimeError:
        pass
    for name, run in (
        ("matmul", lambda: swigflow.linalg.matmul(np.ones((512, 512), np.float32),
                                                  np.ones((512, 512), np.float32))),
        ("dataset", lambda: list(swigflow.data.TFRecordDataset(path))),
        ("records", lambda: list(swigflow.io.tf_record_iterator(path))),
    ):
        try:
            out = run()
            print(name, "ok", len(out))
        except Exception as e:
            print(name, "raised", type(e).__name__)
    """
)


def test_no_thread_to_be_had_is_an_error_not_an_abort():
    result = subprocess.run(
        [sys.executable, "-c", NO_THREADS], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    if lines == ["unlimited"]:
        pytest.skip("RLIMIT_NPROC does not bind in this environment")
    assert lines[0] == "matmul ok 512"  # the pool runs on the threads it could start
    assert lines[1] == "dataset raised ResourceExhaustedError"
    assert lines[2] == "records ok 100"  # reading needs no thread


LOW_MEMORY_DECODE = r"""
import resource, sys
import swigflow
from swigflow import errors


def limit_to(extra_mib):
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
    limit = vm + (extra_mib << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


path, how = sys.argv[1], sys.argv[2]
spec = {"image/encoded": swigflow.io.FixedLenFeature([], "string")}
try:
    if how == "direct":
        record = list(swigflow.io.tf_record_iterator(path))[-1]
        image = swigflow.io.parse_single_example(record, spec)["image/encoded"]
        limit_to(32)
        swigflow.image.decode_jpeg(image)
    else:
        dataset = swigflow.data.TFRecordDataset(path, on_error="skip_record")
        dataset = dataset.batch(1).parse(spec).decode_images(size=(8, 8))
        for n, _ in enumerate(dataset):
            if n == 0:  # the pipeline's threads and buffers are there: now memory runs short
                limit_to(32)
    print("decoded")
except errors.ResourceExhaustedError:
    print("ResourceExhaustedError")
except errors.OpError as e:
    print(type(e).__name__, e.message)
"""


@pytest.mark.parametrize("how", ["direct", "pipeline"])
def test_out_of_memory_while_decoding_is_no_bad_image(tmp_path, how):
    """A progressive JPEG of 5000x5000 needs its coefficients in memory (~75 MB): with 32 MiB to
    spare, decoding raises ResourceExhaustedError, and a pipeline skipping bad images raises it
    too instead of dropping a valid image as undecodable."""
    y, x = np.mgrid[0:5000, 0:5000]
    pixels = np.stack([(x // 20) % 256, (y // 20) % 256, ((x + y) // 40) % 256], -1)
    big = swigflow.image.encode_jpeg(pixels.astype(np.uint8), progressive=True, quality=50)
    small = swigflow.image.encode_jpeg(np.zeros((16, 16, 3), np.uint8))
    path = tmp_path / "images.tfrecord"
    with swigflow.io.TFRecordWriter(str(path)) as w:
        for image in [small] * 300 + [big]:
            w.write(swigflow.train.example_from_dict({"image/encoded": image}).SerializeToString())
    result = subprocess.run(
        [sys.executable, "-c", LOW_MEMORY_DECODE, str(path), how],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout.strip() == "ResourceExhaustedError", result.stdout + result.stderr


PIPELINES_IN_A_LOOP = """
import gc, json, sys, threading
from swigflow.data import TFRecordDataset

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

paths, marks = sys.argv[1:], {}
for cycle in range(3001):
    it = iter(TFRecordDataset(paths).map(len).prefetch(4))
    for _ in range(10):  # dropped mid-epoch, its producer thread still running
        next(it)
    del it
    if cycle % 500 == 0:
        gc.collect()
        marks[cycle] = round(rss_mib(), 2)
print(json.dumps({"threads": threading.active_count(), "marks": marks}))
"""


def test_pipelines_made_and_dropped_in_a_loop_keep_their_memory_flat(tmp_path):
    """3,000 pipelines with a Python map and prefetch, each dropped after 10 elements: from the
    1,000th on, RSS stops growing (the median growth per 500 cycles under 1 MiB: a loaded
    machine may still fill one more malloc arena once, a step, not a creep), and no thread is
    left behind. Before prefetch joined its producer, each lingering producer kept an arena of
    its own and RSS grew in every window: 17 MiB from the 500th to the 3,000th here, about
    3.4 MiB per 500 cycles (and 334 MB over 4,000 cycles of larger records)."""
    paths = []
    for f in range(2):
        paths.append(str(tmp_path / f"part-{f}.tfrecord"))
        with swigflow.io.TFRecordWriter(paths[-1]) as w:
            for r in range(100):
                w.write(b"%d" % r * 5000)
    result = subprocess.run(
        [sys.executable, "-c", PIPELINES_IN_A_LOOP, *paths],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    marks = [run["marks"][str(cycle)] for cycle in range(1000, 3001, 500)]
    windows = sorted(later - earlier for earlier, later in itertools.pairwise(marks))
    assert run["threads"] == 1, run
    assert (windows[1] + windows[2]) / 2 < 1 and marks[-1] - marks[0] < 12, run


FORKED_AFTER_THE_POOL_RAN = """
import os, sys
import swigflow
from swigflow.io import FixedLenFeature
records = [swigflow.train.example_from_dict({"id": i}).SerializeToString() for i in range(5000)]
spec = {"id": FixedLenFeature([], "int64")}
total = int(swigflow.io.parse_example(records, spec)["id"].sum())  # the thread pool starts
pid = os.fork()
if pid == 0:  # as a DataLoader worker is made: only the forking thread survives
    ok = int(swigflow.io.parse_example(records, spec)["id"].sum()) == total
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_uses_the_native_thread_pool_anew():
    """A process forked after the parent's thread pool ran (DataLoader and Grain workers) gets a
    pool of its own: before, its first parallel call waited forever for the parent's workers,
    which fork does not copy."""
    result = subprocess.run(
        [sys.executable, "-c", FORKED_AFTER_THE_POOL_RAN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stdout.split() == ["0"], result.stderr


# --- round four (issue 71) ---------------------------------------------------------------------


def _write_records(path, records, compression=None):
    with swigflow.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)


def test_an_empty_file_list_says_so():
    """What a glob or filter that matched nothing leads to (the quickstart's bug, issue 71)."""
    assert list(swigflow.data.TFRecordDataset([])) == []
    with pytest.raises(ValueError, match="filenames is an empty list"):
        swigflow.data.TFRecordDataset([], num_parallel_reads=0)


def test_an_index_too_large_for_its_file_is_never_read_whole(tmp_path, caplog):
    path = tmp_path / "a.tfrecord"
    _write_records(path, [b"x" * 10] * 10)
    index = tmp_path / "a.tfrecord.idx"
    with open(index, "wb") as f:  # sparse: 3 GB of index beside a 260-byte file
        f.truncate(3 << 30)
    with caplog.at_level("WARNING"):
        assert len(swigflow.io.TFRecordFile(str(path))) == 10  # scanned instead
    assert "more than an index of a 260-byte file can hold" in caplog.text
    with pytest.raises(errors.InvalidArgumentError, match="more than an index"):
        swigflow.io.TFRecordFile(str(path), index_path=str(index))
    gz = tmp_path / "b.tfrecord.gz"
    _write_records(gz, [b"y" * 10] * 10, "GZIP")
    with open(f"{gz}.idx", "wb") as f:
        f.truncate(3 << 30)
    with caplog.at_level("WARNING"):
        assert len(swigflow.io.TFRecordFile(str(gz), options="GZIP")) == 10


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_global_shuffle_rebuilds_a_stale_index_as_tfrecordfile_does(tmp_path, compression):
    a, b = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    _write_records(a, [b"a%d" % i for i in range(50)], compression)
    _write_records(b, [b"b%d" % i for i in range(50)], compression)
    swigflow.io.create_index(str(a))
    swigflow.io.create_index(str(b))
    _write_records(b, [b"c%d" % i for i in range(70)], compression)  # its index is stale now
    ds = swigflow.data.TFRecordDataset([str(a), str(b)], compression).global_shuffle(seed=1)
    got = list(ds)
    expected = [b"a%d" % i for i in range(50)] + [b"c%d" % i for i in range(70)]
    assert sorted(got) == sorted(expected) and got != expected


def test_create_index_of_a_missing_file_is_not_found(tmp_path):
    for name in ("missing.tfrecord.gz", "missing.tfrecord"):
        with pytest.raises(errors.NotFoundError):
            swigflow.io.create_index(str(tmp_path / name), span=1 << 16)


def test_a_file_cut_after_its_data_source_was_built_is_data_loss(tmp_path):
    """Not OutOfRangeError, which TF-style loops take as the normal end."""
    path = tmp_path / "a.tfrecord"
    _write_records(path, [b"x" * 100] * 100)
    source = swigflow.data.TFRecordDataSource([str(path)])
    os.truncate(path, 50 * 116 + 30)
    for i in (99, 50):
        with pytest.raises(errors.DataLossError, match=r"a\.tfrecord"):
            source[i]


def test_parse_errors_of_a_source_name_the_file_and_record(tmp_path):
    path = tmp_path / "a.tfrecord"
    good = swigflow.train.Example(
        features=swigflow.train.Features(
            feature={"x": swigflow.train.Feature(int64_list=swigflow.train.Int64List(value=[1]))}
        )
    ).SerializeToString()
    _write_records(path, [good] * 7 + [b"not an Example"] + [good] * 2)
    for spec in (
        {"x": swigflow.io.FixedLenFeature([], np.int64)},
        {"x": swigflow.io.VarLenFeature(np.int64)},
    ):
        source = swigflow.data.TFRecordDataSource([str(path)], spec=spec)
        assert source.__getitems__([0, 9])  # good records parse
        with pytest.raises(errors.InvalidArgumentError, match=r"a\.tfrecord record 7 \(offset"):
            source.__getitems__([3, 7])
        with pytest.raises(errors.InvalidArgumentError, match=r"a\.tfrecord record 7"):
            source[7]
