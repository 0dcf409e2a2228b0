"""The cost of one call through the SWIG layer, on the per-call paths, against another build.

The extension module targets Python's stable ABI (one cp311-abi3 wheel for every CPython from
3.11), which SWIG reaches through Python proxy classes rather than -builtin types. This measures
what that costs where one Python call does little native work:

    /tmp/bench/bin/python bench/binding_call_bench.py --baseline /tmp/bench_old/bin/python
        [--repeats 7] [--calls 200000]

Rows (each the best of --repeats processes, each the best of 3 rounds of --calls calls):
- ``TFRecordFile[i]``: random reads of 100-byte records by index (one pread per call);
- ``tf_record_iterator``: per record, over 100-byte records (batched reads inside);
- ``parse_single_example``: an Example of three small features (int64, float, bytes);
- ``TFRecordWriter.write``: per 100-byte record, into a file in /dev/shm (buffered);
- ``crc32c``: of 16 bytes, the least work one wrapped call does.
The same script runs in the --baseline interpreter's environment (another swigflow wheel), in
alternating rounds in processes of their own, and each row reports ns per call for both and the
ratio (this build / baseline; above 1 is slower).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from timing import cpu_name

RECORDS = 20_000
RECORD = 100


def _per_call(fn, n, rounds=3):
    """ns per call of fn(n) (which makes n calls): the best of `rounds`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn(n)
        best = min(best, (time.perf_counter() - start) / n * 1e9)
    return best


def _rows(directory, calls):
    """{row: ns per call} in this interpreter."""
    import numpy as np

    import swigflow
    from swigflow.io import TFRecordFile, TFRecordWriter, tf_record_iterator

    path = os.path.join(directory, "records.tfrecord")
    payload = bytes(range(RECORD))
    out = {}
    with TFRecordWriter(os.path.join(directory, "written.tfrecord")) as writer:

        def write(n):
            for _ in range(n):
                writer.write(payload)

        out["TFRecordWriter.write"] = _per_call(write, calls)
    with TFRecordWriter(path) as writer:
        write(RECORDS)

    picks = np.random.default_rng(0).integers(0, RECORDS, calls).tolist()
    with TFRecordFile(path) as records:

        def read(n):
            for i in picks[:n]:
                records[i]

        out["TFRecordFile[i]"] = _per_call(read, calls)

    def iterate(n):
        for _ in tf_record_iterator(path):
            pass

    out["tf_record_iterator"] = _per_call(iterate, RECORDS)

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

    out["parse_single_example"] = _per_call(parse, calls // 20)

    data = b"0123456789abcdef"

    def crc(n):
        for _ in range(n):
            swigflow.io.crc32c(data)

    out["crc32c"] = _per_call(crc, calls)
    return out


def _child(args):
    # Memory-backed where there is one: the write row is then the call, not the disk.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=shm) as directory:
        print(json.dumps(_rows(directory, args.calls)))


def _run(python, calls):
    # One BLAS thread: OpenBLAS's idle workers spinning beside the loop are noise here.
    env = dict(
        os.environ,
        PYTHONPATH=os.path.dirname(os.path.abspath(__file__)),
        OPENBLAS_NUM_THREADS="1",
    )
    result = subprocess.run(
        [python, os.path.abspath(__file__), "--child", "--calls", str(calls)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # not the repository: the installed wheel, not python/swigflow
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


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
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
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
            for row, ns in _run(python, args.calls).items():
                best[name][row] = min(ns, best[name].get(row, float("inf")))
    print(
        f"{'row':<24}{'this ns':>10}"
        + (f"{'baseline ns':>13}{'ratio':>8}" if args.baseline else "")
    )
    for row, ns in best["this"].items():
        line = f"{row:<24}{ns:>10.0f}"
        if args.baseline and row in best["baseline"]:
            base = best["baseline"][row]
            line += f"{base:>13.0f}{ns / base:>8.3f}"
        print(line)


if __name__ == "__main__":
    main()
