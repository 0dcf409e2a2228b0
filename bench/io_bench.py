"""TFRecord read/write throughput of swigflow against TensorFlow and the `tfrecord` package.

Run with the installed wheel (the anchors are optional and measured in the same run):

    python -m venv /tmp/bench && /tmp/bench/bin/pip install dist/swigflow-*.whl \\
        tensorflow-cpu tfrecord
    /tmp/bench/bin/python bench/io_bench.py [--repeats 3] [--dir /tmp]

Workloads: 200,000 x 1 KiB and 2,000 x 100 KiB records, uncompressed; every reader verifies
CRCs except the `tfrecord` package, which does not check them. Files are warm in the page cache,
except the "cold" rows, which drop the file's pages (posix_fadvise DONTNEED) before every run:
put --dir on a real disk for those (tmpfs keeps its pages). A memcpy of the same bytes is the
ceiling. Reported: best of --repeats runs, records/s and MiB/s, the ratio to TensorFlow's figure
for the same kind of work, and for 100 KiB records the ratios the issue tracker asks for
(iteration vs the tfrecord package, batches vs memcpy).
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
from timing import best_of, cpu_name

import swigflow

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None
# The tfrecord package registers the same protobuf names as TensorFlow, so it is timed in a
# child process (see pkg_iterate).
HAVE_TFRECORD_PKG = importlib.util.find_spec("tfrecord") is not None

WORKLOADS = [("200,000 x 1 KiB", 200_000, 1024), ("2,000 x 100 KiB", 2_000, 100 * 1024)]


def make_records(count, size):
    rng = np.random.default_rng(0)
    blob = rng.integers(0, 256, count * size, dtype=np.uint8).tobytes()
    return [blob[i * size : (i + 1) * size] for i in range(count)]


# --- the measured operations: each returns the number of records handled ---------------------


def sf_write(path, records):
    with swigflow.io.TFRecordWriter(path) as writer:
        write = writer.write
        for r in records:
            write(r)
    return len(records)


def tf_write(path, records):
    with tf.io.TFRecordWriter(path) as writer:
        write = writer.write
        for r in records:
            write(r)
    return len(records)


def sf_iterate(path):
    n = 0
    for _ in swigflow.io.tf_record_iterator(path):
        n += 1
    return n


def sf_read_batch(path):
    n = 0
    reader = swigflow.io.TFRecordReader(path)
    while batch := reader.read_batch(1024):
        n += len(batch)
    return n


def sf_read_view(path):
    n = 0
    reader = swigflow.io.TFRecordReader(path)
    while batch := reader.read_batch(1024, copy=False):
        n += len(batch)
    return n


def drop_cache(path):
    """Drops the file's pages from the page cache (clean pages of a disk file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def best_cold(repeats, fn, path):
    """best_of, with the file's pages dropped before every run."""
    runs = []
    for _ in range(repeats):
        drop_cache(path)
        runs.append(best_of(1, fn, path))
    return min(runs)


def memcpy_seconds(nbytes, repeats):
    src = np.ones(nbytes, np.uint8)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in first
    return best_of(repeats, np.copyto, dst, src)[0]


def tf_iterate(path):
    n = 0
    for r in tf.data.TFRecordDataset(path, buffer_size=1 << 20):
        r.numpy()
        n += 1
    return n


def tf_batched(path):
    n = 0
    for batch in tf.data.TFRecordDataset(path, buffer_size=1 << 20).batch(1024).prefetch(2):
        n += len(batch.numpy())
    return n


_PKG_CHILD = """
import sys, time
from tfrecord.reader import tfrecord_iterator
start = time.perf_counter()
n = sum(1 for _ in tfrecord_iterator(sys.argv[1]))
print(time.perf_counter() - start, n)
"""


def pkg_iterate_seconds(path, repeats, cold=False):
    """(seconds, records) of the best of `repeats` runs, each in a fresh child process."""
    runs = []
    for _ in range(repeats):
        if cold:
            drop_cache(path)
        out = subprocess.run(
            [sys.executable, "-c", _PKG_CHILD, path], check=True, capture_output=True, text=True
        ).stdout.split()
        runs.append((float(out[0]), int(out[1])))
    return min(runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where to write the files (default: $TMPDIR)")
    args = parser.parse_args()

    crc = swigflow.pywrap_swigflow.Crc32cImplementation()
    print(
        f"swigflow {swigflow.__version__} (crc32c: {crc})"
        f", tensorflow {tf.__version__ if tf else 'not installed'}"
        f", tfrecord package {'installed' if HAVE_TFRECORD_PKG else 'not installed'}"
    )
    print(f"{cpu_name()}, {os.cpu_count()} CPUs, best of {args.repeats}\n")
    print("| workload | operation | library | records/s | MiB/s | vs TensorFlow |")
    print("|---|---|---|---:|---:|---:|")
    extra = []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for name, count, size in WORKLOADS:
            records = make_records(count, size)
            mib = count * size / (1 << 20)
            path = os.path.join(tmp, f"{size}.tfrecord")
            rows = []  # (operation, library, seconds, anchor operation)

            seconds, _ = best_of(args.repeats, sf_write, path, records)
            rows.append(("write", "swigflow", seconds, "write"))
            if tf:
                tf_path = path + ".tf"
                seconds, _ = best_of(args.repeats, tf_write, tf_path, records)
                rows.append(("write", "tensorflow", seconds, "write"))
                with open(path, "rb") as a, open(tf_path, "rb") as b:
                    assert a.read() == b.read(), "outputs differ from TensorFlow's"
                os.remove(tf_path)
            del records

            for op, library, fn, anchor in [
                ("iterate (Python loop)", "swigflow", sf_iterate, "batched"),
                ("batches of 1024", "swigflow", sf_read_batch, "batched"),
                ("batches of 1024, copy=False", "swigflow", sf_read_view, "batched"),
                ("iterate (Python loop)", "tensorflow", tf_iterate if tf else None, "batched"),
                ("batches of 1024", "tensorflow", tf_batched if tf else None, "batched"),
            ]:
                if fn is None:
                    continue
                seconds, n = best_of(args.repeats, fn, path)
                assert n == count, (library, op, n)
                rows.append((op, library, seconds, anchor))
            if HAVE_TFRECORD_PKG:
                seconds, n = pkg_iterate_seconds(path, args.repeats)
                assert n == count, ("tfrecord pkg", n)
                rows.append(("iterate (Python loop)", "tfrecord pkg", seconds, "batched"))
            for op, fn in [
                ("cold: iterate", sf_iterate),
                ("cold: batches of 1024", sf_read_batch),
                ("cold: batches, copy=False", sf_read_view),
            ]:
                seconds, n = best_cold(args.repeats, fn, path)
                assert n == count, (op, n)
                rows.append((op, "swigflow", seconds, "batched"))
            if HAVE_TFRECORD_PKG:
                seconds, n = pkg_iterate_seconds(path, args.repeats, cold=True)
                rows.append(("cold: iterate", "tfrecord pkg", seconds, "batched"))
            rows.append(
                ("memcpy (ceiling)", "numpy", memcpy_seconds(count * size, args.repeats), "-")
            )

            tf_seconds = {op: s for op, lib, s, _ in rows if lib == "tensorflow"}
            seconds_of = {(op, lib): s for op, lib, s, _ in rows}
            for op, library, seconds, _ in rows:
                anchor_op = "write" if op == "write" else "batches of 1024"
                ratio = (
                    f"{tf_seconds[anchor_op] / seconds:.2f}x" if anchor_op in tf_seconds else "n/a"
                )
                print(
                    f"| {name} | {op} | {library} | {count / seconds / 1e6:.2f} M "
                    f"| {mib / seconds:,.0f} | {ratio} |"
                )
            if size >= 100 * 1024:
                memcpy = seconds_of[("memcpy (ceiling)", "numpy")]
                for op in ("batches of 1024", "batches of 1024, copy=False"):
                    ratio = memcpy / seconds_of[(op, "swigflow")]
                    extra.append(f"{name}: swigflow {op} / memcpy bandwidth: {ratio:.2f}x")
                if HAVE_TFRECORD_PKG:
                    ratio = (
                        seconds_of[("iterate (Python loop)", "tfrecord pkg")]
                        / seconds_of[("iterate (Python loop)", "swigflow")]
                    )
                    extra.append(f"{name}: swigflow iterate / tfrecord package: {ratio:.2f}x")
            os.remove(path)
    print("\n" + "\n".join(extra))
    print("\nratios: TensorFlow's time for the same work (reads: its batched tf.data path) / ours")


if __name__ == "__main__":
    main()
