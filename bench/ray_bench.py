"""swigflow.ray.read_tfrecords against ray.data.read_tfrecords in one local Ray cluster, and
swigflow.io over http:// against local files, in one run.

    /tmp/bench/bin/python bench/ray_bench.py [--rows 100000] [--repeats 3]

(with the wheel, ray[data], tensorflow-cpu (which Ray's reader imports), fsspec and aiohttp
installed in /tmp/bench, see io_bench.py). Workload: --rows small Examples (an id, a label, 8
floats and a 32-byte blob) in 8 indexed files, read in ray.init(num_cpus=2) and materialized.
Reported: rows/s of each reader (best of --repeats, each in its own phase), the ratio, and the
ratio of swigflow.ray per CPU to swigflow's own parse rate in one process pinned to one CPU.
Then a 256 MiB file of 100 KiB records read with tf_record_iterator from a local HTTP server
(byte ranges, on 127.0.0.1) and from the local file: MB/s of each and the ratio.
"""

import argparse
import http.server
import io
import os
import platform
import sys
import tempfile
import threading

import numpy as np
from timing import best_of

import swigflow
import swigflow.ray
from swigflow import train
from swigflow.io import FixedLenFeature

FILES = 8
SPEC = {
    "id": FixedLenFeature([], "int64"),
    "label": FixedLenFeature([], "int64"),
    "x": FixedLenFeature([8], "float32"),
    "blob": FixedLenFeature([], "string"),
}


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def make_files(directory, rows):
    rng = np.random.default_rng(0)
    per_file = rows // FILES
    paths = []
    for k in range(FILES):
        path = os.path.join(directory, f"part-{k:02d}.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            for i in range(k * per_file, (k + 1) * per_file):
                w.write(
                    train.example_from_dict(
                        {
                            "id": i,
                            "label": int(rng.integers(1000)),
                            "x": rng.standard_normal(8).astype(np.float32),
                            "blob": rng.bytes(32),
                        }
                    )
                )
        swigflow.io.create_index(path)
        paths.append(path)
    return paths, per_file * FILES


def ray_phase(ray, read, expected):
    def run():
        count = read().materialize().count()
        assert count == expected, (count, expected)
        return count

    run()  # warm: workers started, modules imported
    return best_of(ARGS.repeats, run)[0]


class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        size = os.path.getsize(path)
        start, end = 0, size - 1
        spec = self.headers.get("Range")
        if spec:
            a, _, b = spec.removeprefix("bytes=").partition("-")
            start, end = int(a), min(int(b) if b else size - 1, size - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start + 1)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return io.BytesIO(data)


def http_phase(directory):
    path = os.path.join(directory, "big.tfrecord")
    record = os.urandom(100 << 10)
    with swigflow.io.TFRecordWriter(path) as w:
        for _ in range(2560):
            w.write(record)
    size = os.path.getsize(path)

    def handler(*a, **k):
        return _RangeHandler(*a, directory=directory, **k)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/big.tfrecord"

    def read(p):
        return sum(len(r) for r in swigflow.io.tf_record_iterator(p))

    local = best_of(ARGS.repeats, read, path)[0]
    remote = best_of(ARGS.repeats, read, url)[0]
    server.shutdown()
    return size / local / 1e6, size / remote / 1e6


def cpus_used():
    return range(2)  # ray.init(num_cpus=2)


def main():
    import ray

    with tempfile.TemporaryDirectory() as directory:
        paths, rows = make_files(directory, ARGS.rows)
        print(f"CPU: {cpu_name()}; {rows:,} Examples in {FILES} files; Ray {ray.__version__}")

        def single():
            ds = swigflow.data.TFRecordDataset(paths).batch(1024).parse(SPEC)
            return sum(len(b["id"]) for b in ds)

        local = best_of(ARGS.repeats, single)[0]
        # The same in one process pinned to one CPU (its native threads inherit the pinning).
        cpus = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(cpus)})
        try:
            one_cpu = best_of(ARGS.repeats, single)[0]
        finally:
            os.sched_setaffinity(0, cpus)
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
        )
        ray.data.DataContext.get_current().enable_progress_bars = False
        theirs = ray_phase(ray, lambda: ray.data.read_tfrecords(paths), rows)
        ours = ray_phase(
            ray, lambda: swigflow.ray.read_tfrecords(paths, spec=SPEC, override_num_blocks=2), rows
        )
        ray.shutdown()
        print(f"  swigflow, one process (TFRecordDataset.parse): {rows / local:12,.0f} rows/s")
        print(f"  the same pinned to one CPU:                    {rows / one_cpu:12,.0f} rows/s")
        print(f"  ray.data.read_tfrecords (2 CPUs):              {rows / theirs:12,.0f} rows/s")
        print(
            f"  swigflow.ray.read_tfrecords (2 CPUs):          {rows / ours:12,.0f} rows/s"
            f"  = {theirs / ours:.1f}x ray.data.read_tfrecords"
        )
        print(
            "  swigflow.ray per CPU / one process on one CPU: "
            f"{rows / ours / len(cpus_used()) / (rows / one_cpu):.2f}"
        )
        local_mb, http_mb = http_phase(directory)
        print(
            f"  tf_record_iterator, 256 MiB of 100 KiB records: local {local_mb:,.0f} MB/s, "
            f"http:// {http_mb:,.0f} MB/s = {http_mb / local_mb:.2f}x local"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    ARGS = parser.parse_args()
    main()
