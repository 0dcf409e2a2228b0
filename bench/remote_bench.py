"""Reading TFRecords from a simulated object store: swigflow against the store's ceiling.

The store is a threaded HTTP/1.1 server in its own process on 127.0.0.1 with Range support, a
fixed latency per request and a bandwidth cap per response (like one S3 connection; defaults
20 ms and 100 MB/s). Run with the installed wheel plus aiohttp (swigflow[remote]):

    /tmp/bench/bin/python bench/remote_bench.py [--files 8] [--file-mb 40] [--latency-ms 20]
                                                [--response-mbps 100] [--repeats 2]

Rows, each in its own phase, the same files (records of 100 KB):
- the ceiling: a plain parallel downloader, N threads of 8 MiB range GETs over keep-alive
  connections (http.client), at 8 and 16 threads;
- fsspec's own reads: each file read whole with ``fs.cat_file``, 8 at a time;
- swigflow ``TFRecordDataset(urls, num_parallel_reads=P)`` for P = 1 and 8 (every record read,
  CRCs checked), with ``gfile.READ_AHEAD_BLOCKS`` (the read-ahead window per file) as set, and
  with read-ahead off (0) for comparison;
- with ``cache_dir`` (a fresh directory): the first epoch, which fills the shard cache; a later
  one, which reads the local copies after one HEAD per file (is the copy current?); three
  epochs of one iterator (``repeat(3)``: the later epochs ask nothing); a later epoch with
  ``ShardCache(revalidate=False)`` (no request at all); and the same files read from local
  disk.
Reported: MB/s (of file bytes), best of --repeats (the first cached epoch: one run), each
swigflow row's ratio to the ceiling at the same concurrency, and the cached epoch's to local
disk.
"""

import argparse
import concurrent.futures
import functools
import http.client
import http.server
import multiprocessing
import os
import tempfile
import threading
import time

import numpy as np
from timing import cpu_name

CHUNK = 8 << 20
RECORD = 100_000


def serve(directory, latency, bandwidth, port_queue):
    """The store: every response waits `latency` seconds, then sends at most `bandwidth`
    bytes/s."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            self._answer(body=True)

        def do_HEAD(self):
            self._answer(body=False)

        def _answer(self, body):
            path = self.translate_path(self.path)
            if not os.path.isfile(path):
                self.send_error(404)
                return
            size = os.path.getsize(path)
            start, end = 0, size - 1
            spec = self.headers.get("Range")
            time.sleep(latency)
            if spec:
                first, _, last = spec.removeprefix("bytes=").partition("-")
                start = int(first)
                end = min(int(last) if last else size - 1, size - 1)
                if start >= size:
                    self.send_error(416)
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(end - start + 1))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if not body:
                return
            step = 256 << 10
            begin = time.perf_counter()
            sent = 0
            with open(path, "rb") as f:
                f.seek(start)
                while sent < end - start + 1:
                    data = f.read(min(step, end - start + 1 - sent))
                    self.wfile.write(data)
                    sent += len(data)
                    ahead = sent / bandwidth - (time.perf_counter() - begin)
                    if ahead > 0:
                        time.sleep(ahead)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=directory)
    )
    server.daemon_threads = True
    port_queue.put(server.server_address[1])
    server.serve_forever()


def write_files(directory, count, megabytes):
    import swigflow

    rng = np.random.default_rng(0)
    paths = []
    per_file = max(1, megabytes * 10**6 // (RECORD + 16))
    for f in range(count):
        path = os.path.join(directory, f"part-{f}.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            for _ in range(per_file):
                w.write(rng.bytes(RECORD))
        paths.append(path)
    return paths


def ceiling(port, names, sizes, threads):
    """Every file in CHUNK range GETs, `threads` at a time, each thread on its own connection."""
    jobs = [
        (name, start, min(CHUNK, size - start))
        for name, size in zip(names, sizes)
        for start in range(0, size, CHUNK)
    ]
    local = {}

    def get(job):
        name, start, length = job
        key = threading.get_ident()
        if key not in local:
            local[key] = http.client.HTTPConnection("127.0.0.1", port)
        conn = local[key]
        conn.request("GET", f"/{name}", headers={"Range": f"bytes={start}-{start + length - 1}"})
        response = conn.getresponse()
        data = response.read()
        assert len(data) == length
        return length

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(get, jobs))
    for conn in local.values():
        conn.close()
    return total


def fsspec_reads(urls):
    import fsspec

    fs = fsspec.filesystem("http")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return sum(pool.map(lambda u: len(fs.cat_file(u)), urls))


def swigflow_epoch(urls, parallel, blocks, cache_dir=None, epochs=1):
    import swigflow
    from swigflow.io import gfile

    gfile.READ_AHEAD_BLOCKS = blocks
    ds = swigflow.data.TFRecordDataset(urls, num_parallel_reads=parallel, cache_dir=cache_dir)
    return sum(len(r) + 16 for batch in ds.repeat(epochs).batch(64) for r in batch)


def best(repeats, fn, *args):
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        total = fn(*args)
        rates.append(total / (time.perf_counter() - start) / 1e6)
    return max(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--file-mb", type=int, default=40)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--response-mbps", type=float, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    import swigflow
    from swigflow.io import gfile

    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; swigflow {swigflow.__version__}")
    print(
        f"store: {args.latency_ms:g} ms per request, {args.response_mbps:g} MB/s per response; "
        f"{args.files} files of {args.file_mb} MB, records of {RECORD:,} bytes; read-ahead "
        f"{gfile.READ_AHEAD_BLOCKS} x {gfile.READ_BLOCK_SIZE >> 20} MiB per file, "
        f"{gfile.READ_AHEAD_THREADS} threads"
    )
    with tempfile.TemporaryDirectory() as directory:
        paths = write_files(directory, args.files, args.file_mb)
        names = [os.path.basename(p) for p in paths]
        sizes = [os.path.getsize(p) for p in paths]
        ports = multiprocessing.Queue()
        store = multiprocessing.Process(
            target=serve,
            args=(directory, args.latency_ms / 1e3, args.response_mbps * 1e6, ports),
            daemon=True,
        )
        store.start()
        port = ports.get(timeout=30)
        urls = [f"http://127.0.0.1:{port}/{n}" for n in names]
        rows = {}
        for threads in (8, 16):
            rows[f"ceiling: {threads} threads of 8 MiB range GETs"] = best(
                args.repeats, ceiling, port, names, sizes, threads
            )
        rows["fsspec cat_file, 8 files at a time"] = best(args.repeats, fsspec_reads, urls)
        blocks = gfile.READ_AHEAD_BLOCKS
        for parallel in (1, 8):
            rows[f"swigflow TFRecordDataset, num_parallel_reads={parallel}"] = best(
                args.repeats, swigflow_epoch, urls, parallel, blocks
            )
        rows["swigflow, num_parallel_reads=8, read-ahead off"] = best(
            args.repeats, swigflow_epoch, urls, 8, 0
        )
        with tempfile.TemporaryDirectory() as cache:
            rows["swigflow, 8 reads, cache_dir: epoch 1 (fills it)"] = best(
                1, swigflow_epoch, urls, 8, blocks, cache
            )
            rows["swigflow, 8 reads, cache_dir: epoch 2 (local copies)"] = best(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache
            )
            rows["swigflow, 8 reads, cache_dir: repeat(3), one iterator"] = best(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache, 3
            )
            trusted = swigflow.io.ShardCache(cache, revalidate=False)
            rows["swigflow, 8 reads, cache_dir revalidate=False: epoch 2 (local copies)"] = best(
                args.repeats, swigflow_epoch, urls, 8, blocks, trusted
            )
        rows["local disk: TFRecordDataset, num_parallel_reads=8"] = best(
            args.repeats, swigflow_epoch, paths, 8, blocks
        )
        store.terminate()
    print(f"\n{'reader':52} {'MB/s':>8}")
    for label, rate in rows.items():
        print(f"{label:52} {rate:8,.0f}")
    # The rows that read the store (not the cache's local copies) against the ceiling.
    remote = [k for k in rows if k.startswith("swigflow") and "local copies" not in k]
    for label in [k for k in remote if "repeat(3)" not in k]:
        for threads in (8, 16):
            ratio = rows[label] / rows[f"ceiling: {threads} threads of 8 MiB range GETs"]
            print(f"{label} vs the {threads}-thread ceiling: {ratio:.2f}x")
    local = rows["local disk: TFRecordDataset, num_parallel_reads=8"]
    for label in [k for k in rows if "cache_dir" in k and "epoch 1" not in k]:
        print(f"{label} vs local disk: {rows[label] / local:.2f}x")


if __name__ == "__main__":
    main()
