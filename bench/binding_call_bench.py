"""The cost of one call through the SWIG layer, on the per-call paths, against another build.

The extension module targets Python's stable ABI (one cp311-abi3 wheel for every CPython from
3.11), which SWIG reaches through Python proxy classes rather than -builtin types. This measures
what that costs where one Python call does little native work:

    /tmp/bench/bin/python bench/binding_call_bench.py --baseline /tmp/bench_old/bin/python
        [--repeats 7] [--calls 200000] [--instructions]

Rows (each the best of --repeats processes, each the best of 3 rounds of --calls calls):
- ``TFRecordFile[i]``: random reads of 100-byte records by index (one pread per call);
- ``tf_record_iterator``: per record, over 100-byte records (batched reads inside), 20,000 to a
  file;
- ``parse_single_example``: an Example of three small features (int64, float, bytes);
- ``TFRecordWriter.write``: per 100-byte record, into a file in /dev/shm (buffered);
- ``crc32c``: of 16 bytes, the least work one wrapped call does.
The same script runs in the --baseline interpreter's environment (another swigflow wheel), in
alternating rounds in processes of their own, and each row reports ns per call for both and the
ratio (this build / baseline; above 1 is slower). Wall time on these VMs varies by 20-40%, more
than the few percent in question: --instructions also counts the instructions of one call of each
row under callgrind, which does not vary.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from timing import cpu_name

RECORDS = 20_000
RECORD = 100


def _rows(directory, calls, only=None, rounds=3):
    """{row: (ns per call, calls per round)} in this interpreter, for every row or `only`: the
    best of `rounds` rounds."""
    out = {}

    def _per_call(fn, n, row):
        if only not in (None, row):
            return
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            fn(n)
            best = min(best, (time.perf_counter() - start) / n * 1e9)
        out[row] = (best, n)

    import numpy as np

    import swigflow
    from swigflow.io import TFRecordFile, TFRecordWriter, tf_record_iterator

    path = os.path.join(directory, "records.tfrecord")
    payload = bytes(range(RECORD))
    with TFRecordWriter(os.path.join(directory, "written.tfrecord")) as writer:

        def write(n):
            for _ in range(n):
                writer.write(payload)

        _per_call(write, calls, "TFRecordWriter.write")
    with TFRecordWriter(path) as writer:
        write(RECORDS)

    picks = np.random.default_rng(0).integers(0, RECORDS, calls).tolist()
    with TFRecordFile(path) as records:

        def read(n):
            for i in picks[:n]:
                records[i]

        _per_call(read, calls, "TFRecordFile[i]")

    def iterate(n):  # n records: passes over the file, each a new iterator
        while n > 0:
            for _ in tf_record_iterator(path):
                n -= 1
                if n == 0:
                    break

    _per_call(iterate, calls, "tf_record_iterator")

    example = swigflow.train.Example(
        features=swigflow.train.Features(
            feature={
                "id": swigflow.train.Feature(int64_list=swigflow.train.Int64List(value=[7])),
                "score": swigflow.train.Feature(float_list=swigflow.train.FloatList(value=[0.5])),
                "name": swigflow.train.Feature(bytes_list=swigflow.train.BytesList(value=[b"x"])),
            }
        )
    ).SerializeToString()
    spec = {
        "id": swigflow.io.FixedLenFeature([], swigflow.int64),
        "score": swigflow.io.FixedLenFeature([], swigflow.float32),
        "name": swigflow.io.FixedLenFeature([], swigflow.string),
    }

    def parse(n):
        for _ in range(n):
            swigflow.io.parse_single_example(example, spec)

    _per_call(parse, calls // 20, "parse_single_example")

    data = b"0123456789abcdef"

    def crc(n):
        for _ in range(n):
            swigflow.io.crc32c(data)

    _per_call(crc, calls, "crc32c")
    return out


ROWS = (
    "TFRecordWriter.write",
    "TFRecordFile[i]",
    "tf_record_iterator",
    "parse_single_example",
    "crc32c",
)


def _child(args):
    # Memory-backed where there is one: the write row is then the call, not the disk.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=shm) as directory:
        rounds = 1 if args.only else 3
        print(json.dumps(_rows(directory, args.calls, args.only, rounds)))


def _run(python, calls, only=None, prefix=()):
    """The child's {row: [ns, calls]} and its stderr."""
    # One BLAS thread: OpenBLAS's idle workers spinning beside the loop are noise here.
    env = dict(
        os.environ,
        PYTHONPATH=os.path.dirname(os.path.abspath(__file__)),
        OPENBLAS_NUM_THREADS="1",
    )
    command = [*prefix, python, os.path.abspath(__file__), "--child", "--calls", str(calls)]
    result = subprocess.run(
        command + (["--only", only] if only else []),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # not the repository: the installed wheel, not python/swigflow
    )
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def _instructions(python, row, calls):
    """Instructions per call of `row` (callgrind): two runs of one round, `calls` and twice as
    many, so that start-up and set-up cancel out."""
    counts = []
    for n in (calls, 2 * calls):
        prefix = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
        rows, log = _run(python, n, row, prefix)
        total = int(re.search(r"Collected : (\d+)", log).group(1))
        counts.append((total, rows[row][1]))
    (first, n1), (second, n2) = counts
    return (second - first) / (n2 - n1)


def _version(python):
    code = "import swigflow, sys; print(sys.version.split()[0], swigflow.__file__)"
    return subprocess.run(
        [python, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    ).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=False, help="another environment's python")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per call under callgrind (valgrind): the VM's noise",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=ROWS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    builds = {"this": sys.executable}
    if args.baseline:
        builds["baseline"] = args.baseline
    print(f"CPU: {cpu_name()}")
    for name, python in builds.items():
        print(f"{name}: Python {_version(python)}")
    best = {name: {} for name in builds}
    for _ in range(args.repeats):
        for name, python in builds.items():
            for row, (ns, _) in _run(python, args.calls)[0].items():
                best[name][row] = min(ns, best[name].get(row, float("inf")))
    _table("ns per call, best of the rounds", best, args.baseline, "{:.0f}")
    if args.instructions:
        calls = args.calls // 5  # and twice as many (parse_single_example: a 20th of those)
        counts = {
            name: {row: _instructions(python, row, calls) for row in ROWS}
            for name, python in builds.items()
        }
        _table("instructions per call (callgrind)", counts, args.baseline, "{:.0f}")


def _table(title, values, baseline, form):
    print(f"{title}:")
    header = f"{'row':<24}{'this':>12}"
    print(header + (f"{'baseline':>12}{'ratio':>8}" if baseline else ""))
    for row, value in values["this"].items():
        line = f"{row:<24}{form.format(value):>12}"
        if baseline and row in values["baseline"]:
            base = values["baseline"][row]
            line += f"{form.format(base):>12}{value / base:>8.3f}"
        print(line)


if __name__ == "__main__":
    main()
