"""Reading TFRecords from a simulated object store: swigflow against the store's ceiling,
fsspec, Mosaic Streaming and local disk.

The store is a threaded HTTP/1.1 server in its own process on 127.0.0.1 with Range support, a
fixed latency per request and a bandwidth cap per response (like one S3 connection; defaults
20 ms and 100 MB/s). It also answers path-style S3 GETs and HEADs (``/bucket/key``), which is
how Mosaic Streaming (boto3, ``S3_ENDPOINT_URL``) reads the same store. A second store of the
same files injects faults: HTTP 500s, connections reset mid-body and stalled bodies, each at its
own rate per request. Run with the installed wheel plus aiohttp (swigflow[remote]), and
optionally mosaicml-streaming, moto[server] and s3fs, gcsfs and gcp-storage-emulator:

    /tmp/bench/bin/python bench/remote_bench.py [--files 8] [--file-mb 40] [--latency-ms 20]
        [--response-mbps 100] [--repeats 2] [--read-ahead-mib 256]
        [--error-rate 0.02] [--reset-rate 0.02] [--stall-rate 0.01] [--stall-s 8]
        [--stall-timeout-s 4] [--quick] [--transports]

Mosaic Streaming 0.13 pins numpy < 2.2 and pulls a CUDA torch; beside a CPU-only torch it was
installed with ``pip install --no-deps mosaicml-streaming`` plus boto3, xxhash<4, zstd, brotli,
python-snappy, tqdm, catalogue, "transformers<5" and pillow (its imports), and it runs on numpy
2.4 here.

Rows, each in a process of its own (so its CPU time and peak RSS are its own), the same files
(records of 100 KB):
- the ceiling: a plain parallel downloader, N threads of 8 MiB range GETs over keep-alive
  connections (http.client), at 8 and 16 threads;
- with --transports, the ceiling's GETs through each candidate transport that is installed,
  8 and 16 at once: swigflow's own (``swigflow.io.http_ranges``, without the read-ahead),
  obstore (Rust's object_store), libcurl (through pycurl, a Python callback per MiB) and
  aiohttp on one event loop (``pip install obstore pycurl``);
- fsspec's own reads: each file read whole with ``fs.cat_file``, 8 at a time;
- swigflow ``TFRecordDataset(urls, num_parallel_reads=P)`` for P = 1 and 8 (every record read,
  CRCs checked), read-ahead as configured (``--read-ahead-mib``: SWIGFLOW_READ_AHEAD_BYTES), and
  off for comparison; then P = 8's epoch 2 of one dataset (a new iterator after an unclocked
  epoch 1), a long job's steady state, whose read-ahead buffers are the first epoch's again;
- the same against the faulty store, with swigflow's stall timeout (``gfile.STALL_TIMEOUT_S``,
  30 s) at --stall-timeout-s: every record must arrive once, in order (checked against a read
  from disk). A timeout much shorter than a response's queueing behind the others on this
  store's 2 cores fails healthy requests too;
- with ``cache_dir`` (a fresh directory): the first epoch, which fills the shard cache; epoch 2
  of a dataset object in a new process (a new iterator after an unclocked epoch 1 from the
  copies, as Mosaic's epoch 2 row: no request); a new process's first epoch from the copies
  (one HEAD per file); three epochs of one iterator (``repeat(3)``); a new process's epoch
  with ``ShardCache(revalidate=False)`` (no request);
- Mosaic Streaming's ``StreamingDataset`` over the same records converted to MDS shards of the
  same size, read from the same store (``s3://`` through ``S3_ENDPOINT_URL``): epoch 1, which
  downloads into its cache, and epoch 2 from its cache;
- swigflow over ``s3://`` on moto's S3 server and over ``gs://`` on gcp-storage-emulator's (no
  latency or bandwidth cap: s3fs's and gcsfs's paths; each server bounds its row);
- the same files on local disk: a new process's first epoch, and epoch 2 of one dataset.
First, what memory new to a process costs the kernel at its first touch on this machine (a
new process's first epoch lands every byte it reads ahead in such memory). Reported per row:
MB/s of file bytes and records/s (best of --repeats; the first cached epochs: one run), CPU
seconds per GB with the kernel's share of them (system time: page faults, socket copies,
wake-ups; the least of --repeats, as the VM's noise only adds), minor page faults per MB (each a
page the process touched for the first time in the row, ~2.5 us of system time on the 2-core VMs),
peak RSS and its growth over the process's RSS before the read; swigflow's rows also the most
read-ahead memory held at once. Then each row's ratio to the ceiling at the same concurrency,
P = 8's CPU against local disk's pipeline plus the 8-thread ceiling's, and the cached epochs'
MB/s against local disk's.
"""

import argparse
import concurrent.futures
import contextlib
import functools
import hashlib
import http.client
import http.server
import logging
import multiprocessing
import os
import random
import resource
import socket
import struct
import sys
import tempfile
import threading
import time

import numpy as np
from timing import cpu_name

CHUNK = 8 << 20
RECORD = 100_000
MIB = 1 << 20


# --- The store ------------------------------------------------------------------------------


def serve(directory, latency, bandwidth, faults, port_queue):
    """The store: every response waits `latency` seconds, then sends at most `bandwidth`
    bytes/s. faults = (error_rate, reset_rate, stall_rate, stall_s, seed): a GET is answered
    with a 500, or its connection reset halfway through the body, or its body stalled halfway
    for stall_s seconds (then reset), each at its rate."""
    error_rate, reset_rate, stall_rate, stall_s, seed = faults
    draws = random.Random(seed)
    lock = threading.Lock()

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            self._answer(body=True)

        def do_HEAD(self):
            self._answer(body=False)

        def _answer(self, body):
            path = self.translate_path(self.path.split("?")[0])
            if not os.path.isfile(path):
                self.send_error(404)
                return
            with lock:
                draw = draws.random()
            fault = None
            if body:
                for name, rate in (("500", error_rate), ("reset", reset_rate)):
                    if draw < rate:
                        fault = name
                        break
                    draw -= rate
                else:
                    fault = "stall" if draw < stall_rate else None
            size = os.path.getsize(path)
            start, end = 0, size - 1
            spec = self.headers.get("Range")
            time.sleep(latency)
            if fault == "500":
                self.send_error(500)
                return
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
            self.send_header("ETag", f'"{int(os.path.getmtime(path) * 1e6):x}-{size:x}"')
            self.send_header("Last-Modified", self.date_time_string(os.path.getmtime(path)))
            self.end_headers()
            if not body:
                return
            step = 256 << 10
            begin = time.perf_counter()
            sent, length = 0, end - start + 1
            with open(path, "rb") as f:
                f.seek(start)
                while sent < length:
                    if fault and sent >= length // 2:
                        if fault == "stall":
                            time.sleep(stall_s)
                        # An abortive close: the client sees a reset, not a clean end.
                        self.connection.setsockopt(
                            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                        )
                        self.close_connection = True
                        return
                    data = f.read(min(step, length - sent))
                    self.wfile.write(data)
                    sent += len(data)
                    ahead = sent / bandwidth - (time.perf_counter() - begin)
                    if ahead > 0:
                        time.sleep(ahead)

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        # socketserver's listen backlog is 5: a burst of new connections (a reader opening
        # dozens of range requests at once) would lose SYNs and wait a second to retry.
        request_queue_size = 1024

    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=directory))
    port_queue.put(server.server_address[1])
    server.serve_forever()


def start_store(directory, args, faults):
    ports = multiprocessing.Queue()
    store = multiprocessing.Process(
        target=serve,
        args=(directory, args.latency_ms / 1e3, args.response_mbps * 1e6, faults, ports),
        daemon=True,
    )
    store.start()
    return store, ports.get(timeout=30)


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


def write_mds(paths, directory, megabytes):
    """The records of `paths` as Mosaic Streaming MDS shards of about `megabytes` each."""
    import swigflow

    with import_streaming().MDSWriter(
        out=directory, columns={"record": "bytes"}, size_limit=megabytes * MIB
    ) as w:
        for path in paths:
            for record in swigflow.io.tf_record_iterator(path):
                w.write({"record": record})


def import_streaming():
    """Mosaic Streaming imports torchvision for its vision datasets, which this benchmark does
    not use. Where torchvision cannot load (a CUDA build beside a CPU-only torch), a stand-in
    package, first on sys.path (which DataLoader workers inherit), lets the rest import."""
    try:
        import torchvision  # noqa: F401
    except (ImportError, RuntimeError):
        for name in [m for m in sys.modules if m.split(".")[0] == "torchvision"]:
            del sys.modules[name]
        shim = os.path.join(tempfile.gettempdir(), f"remote-bench-shim-{os.getuid()}")
        package = os.path.join(shim, "torchvision")
        os.makedirs(os.path.join(package, "transforms"), exist_ok=True)
        files = {
            "__init__.py": "",
            "datasets.py": "VisionDataset = CIFAR10 = object\n",
            "transforms/__init__.py": "",
            "transforms/functional.py": "to_tensor = None\n",
        }
        for name, text in files.items():
            with open(os.path.join(package, name), "w") as f:
                f.write(text)
        sys.path.insert(0, shim)
    import streaming

    return streaming


# --- The readers, each run in a child process ------------------------------------------------


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
    return total, total // (RECORD + 16), None


def _ranges(names, sizes):
    return [
        (name, start, min(CHUNK, size - start))
        for name, size in zip(names, sizes)
        for start in range(0, size, CHUNK)
    ]


def http_ranges_reads(port, names, sizes, threads):
    """The ceiling's GETs through swigflow's own transport (swigflow.io.http_ranges: a body read
    into one buffer of the range's size, SO_RCVLOWAT wake-ups), without the read-ahead."""
    from swigflow.io import http_ranges

    requests = http_ranges.Requests()

    def get(job):
        name, start, length = job
        pin = http_ranges.Pin({})
        url = f"http://127.0.0.1:{port}/{name}"
        data = http_ranges.get_range(url, start, start + length, pin, {}, 30.0, requests)
        assert len(data) == length
        return length

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(get, _ranges(names, sizes)))
    return total, total // (RECORD + 16), None


def obstore_reads(port, names, sizes, threads):
    """The ceiling's GETs through obstore (Rust's object_store; bytes come back in a buffer of
    Rust's, without a Python copy), `threads` calls at a time."""
    import obstore
    from obstore.store import HTTPStore

    store = HTTPStore.from_url(f"http://127.0.0.1:{port}", client_options={"allow_http": True})

    def get(job):
        name, start, length = job
        data = obstore.get_range(store, name, start=start, length=length)
        assert len(memoryview(data)) == length
        return length

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(get, _ranges(names, sizes)))
    return total, total // (RECORD + 16), None


def pycurl_reads(port, names, sizes, threads):
    """The ceiling's GETs through libcurl (pycurl), a keep-alive handle per thread, each body
    written into one buffer of its size by a Python callback per 1 MiB received (what a native
    libcurl transport would do in C, without the callbacks)."""
    import pycurl

    local = threading.local()

    def get(job):
        name, start, length = job
        if not hasattr(local, "curl"):
            local.curl = pycurl.Curl()
            local.curl.setopt(pycurl.BUFFERSIZE, MIB)
        curl = local.curl
        buffer = np.empty(length, np.uint8)
        view = memoryview(buffer)
        done = 0

        def write(chunk):
            nonlocal done
            view[done : done + len(chunk)] = chunk
            done += len(chunk)

        curl.setopt(pycurl.URL, f"http://127.0.0.1:{port}/{name}")
        curl.setopt(pycurl.RANGE, f"{start}-{start + length - 1}")
        curl.setopt(pycurl.WRITEFUNCTION, write)
        curl.perform()
        assert done == length
        return length

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(get, _ranges(names, sizes)))
    return total, total // (RECORD + 16), None


def aiohttp_reads(port, names, sizes, concurrency):
    """The ceiling's GETs on one asyncio loop through aiohttp (fsspec's HTTP backend), at most
    `concurrency` at a time, each body read whole."""
    import asyncio

    import aiohttp

    async def run():
        limit = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def get(job):
                name, start, length = job
                headers = {"Range": f"bytes={start}-{start + length - 1}"}
                async with (
                    limit,
                    session.get(f"http://127.0.0.1:{port}/{name}", headers=headers) as r,
                ):
                    data = await r.read()
                assert len(data) == length
                return length

            return sum(await asyncio.gather(*(get(j) for j in _ranges(names, sizes))))

    total = asyncio.run(run())
    return total, total // (RECORD + 16), None


TRANSPORTS = {
    "swigflow's http_ranges": http_ranges_reads,
    "obstore": obstore_reads,
    "libcurl (pycurl)": pycurl_reads,
    "aiohttp": aiohttp_reads,
}


def transport_rows(rows, repeats, port, names, sizes):
    """The ceiling's GETs through each candidate transport (those installed), 8 and 16 at once."""
    for name, fn in TRANSPORTS.items():
        try:
            fn(port, names[:1], [min(sizes[0], CHUNK)], 1)  # installed, and it works here
        except ImportError as e:
            print(f"transport row {name} skipped: {e}")
            continue
        for threads in (8, 16):
            rows[f"transport: {name}, {threads} at once"] = measure(
                repeats, fn, port, names, sizes, threads
            )


def fsspec_reads(urls):
    import fsspec

    fs = fsspec.filesystem("http")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        total = sum(pool.map(lambda u: len(fs.cat_file(u)), urls))
    return total, total // (RECORD + 16), None


class Tally:
    """Bytes and records read, a digest of their order, and one of the set of records."""

    def __init__(self):
        self.bytes = self.records = self.unordered = 0
        self._ordered = hashlib.blake2b(digest_size=16)

    def add(self, record):
        head = bytes(record[:16])
        self._ordered.update(head)
        self.unordered = (self.unordered + int.from_bytes(head, "little")) % (1 << 128)
        self.bytes += len(record) + 16
        self.records += 1

    def result(self):
        return self.bytes, self.records, (self._ordered.hexdigest(), self.unordered)


def swigflow_epoch(
    urls, parallel, blocks, cache_dir=None, epochs=1, revalidate=True, stall_timeout=None,
    before=0,
):  # fmt: skip
    """`epochs` epochs of one iterator (repeat), clocked after `before` unclocked epochs of
    the same dataset object, each a new iterator (as a training loop's `for` per epoch)."""
    import swigflow
    from swigflow.io import gfile

    gfile.READ_AHEAD_BLOCKS = blocks
    if stall_timeout is not None:
        gfile.STALL_TIMEOUT_S = stall_timeout
    if cache_dir is not None and not revalidate:
        cache_dir = swigflow.io.ShardCache(cache_dir, revalidate=False)
    ds = swigflow.data.TFRecordDataset(urls, num_parallel_reads=parallel, cache_dir=cache_dir)
    for _ in range(before):
        for _ in ds.batch(64):
            pass
    if before:
        _CLOCK.restart()
    tally = Tally()
    for batch in ds.repeat(epochs).batch(64):
        for r in batch:
            tally.add(r)
    return tally.result()


def mosaic_epoch(remote, local, endpoint, epoch, workers=0):
    """Epoch `epoch` (1 or 2) of one StreamingDataset, read in the process or by a PyTorch
    DataLoader with `workers` worker processes; epoch 2's clock starts after epoch 1, as in a
    training run (the dataset made once)."""
    os.environ.update(
        S3_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench"
    )
    streaming = import_streaming()
    ds = streaming.StreamingDataset(remote=remote, local=local, shuffle=False, batch_size=64)
    if workers:
        import torch.utils.data

        batches = torch.utils.data.DataLoader(
            ds, batch_size=64, num_workers=workers, collate_fn=list, persistent_workers=True
        )
    else:
        batches = ds
    for e in range(1, epoch + 1):
        if e == epoch:
            _CLOCK.restart()
        tally = Tally()
        for batch in batches:
            for sample in batch if workers else [batch]:
                tally.add(sample["record"])
    return tally.result()


def _memory_status():
    """(RSS, peak RSS) in bytes. The peak is the process's own (VmHWM), where ru_maxrss would
    count the parent's pages at the fork before exec."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


class _Clock:
    """Wall time, CPU time, the kernel's share of it and page faults of a row: from when the row
    starts, or restart()."""

    def restart(self):
        self.usage = resource.getrusage(resource.RUSAGE_SELF)
        self.start = time.perf_counter()

    def read(self):
        """(seconds, CPU seconds, of which system, minor page faults)."""
        usage, start = resource.getrusage(resource.RUSAGE_SELF), self.usage
        system = usage.ru_stime - start.ru_stime
        cpu = usage.ru_utime - start.ru_utime + system
        return time.perf_counter() - self.start, cpu, system, usage.ru_minflt - start.ru_minflt


_CLOCK = _Clock()


def _warm_up(fn):
    """What a long job has done before it reads: its libraries imported, swigflow's pipeline
    run once (on a local file of one record), fsspec's HTTP session open. The rows are short
    (320 MB at 700 MB/s is under half a second), so a cold start would weigh on them."""
    import swigflow

    with contextlib.suppress(ImportError):
        import fsspec

        fs = fsspec.filesystem("http")
        fsspec.asyn.sync(fs.loop, fs.set_session)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "warm.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            w.write(b"warm")
        for _ in swigflow.data.TFRecordDataset([path], num_parallel_reads=8).batch(64):
            pass
    if fn is mosaic_epoch:
        import_streaming()


def _child(fn, args, env, out):
    os.environ.update(env)
    _warm_up(fn)
    from swigflow.io import gfile

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak RSS starts again from the RSS now
    base = _memory_status()[0]
    _CLOCK.restart()
    total, records, digest = fn(*args)
    seconds, cpu, system, faults = _CLOCK.read()
    out.put(
        dict(
            bytes=total,
            records=records,
            digest=digest,
            seconds=seconds,
            cpu=cpu,
            system=system,
            faults=faults,
            base=base,
            peak=_memory_status()[1],
            held=gfile.read_ahead_memory().peak,
        )
    )


def _first_touch(out):
    import mmap

    n = 256 * MIB
    memory = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    for offset in range(0, n, mmap.PAGESIZE):
        memory[offset] = 1
    out.put((resource.getrusage(resource.RUSAGE_SELF).ru_stime - before) / (n / 1e9))


def first_touch_cost(repeats):
    """System seconds per GB of memory a new process touches for the first time (its page
    faults and the kernel's zeroing), the least of `repeats` processes. Every byte a first epoch
    reads ahead lands in such memory once, so this machine's figure bounds what any reader's
    first epoch can cost below it: 0.57-0.85 on the 2-core VMs (AMD EPYC Zen 3)."""
    context = multiprocessing.get_context("spawn")
    costs = []
    for _ in range(repeats):
        out = context.Queue()
        child = context.Process(target=_first_touch, args=(out,))
        child.start()
        costs.append(out.get(timeout=600))
        child.join()
    return min(costs)


def measure(repeats, fn, *args, env=None):
    """The fastest of `repeats` runs of fn(*args) -> (bytes, records, digest), each in a fresh
    process, with the CPU (and its system part) of the run that used the least: each figure at
    its best, as the VM's noise only adds to either (the same for every row)."""
    context = multiprocessing.get_context("spawn")
    best = least = None
    for _ in range(repeats):
        out = context.Queue()
        child = context.Process(target=_child, args=(fn, args, env or {}, out))
        child.start()
        result = out.get(timeout=1800)
        child.join()
        if best is None or result["seconds"] < best["seconds"]:
            best = result
        if least is None or result["cpu"] < least["cpu"]:
            least = result
    return dict(best, cpu=least["cpu"], system=least["system"])


# --- The run ---------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--file-mb", type=int, default=40)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--response-mbps", type=float, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--read-ahead-mib", type=int, default=256)
    parser.add_argument("--error-rate", type=float, default=0.02)
    parser.add_argument("--reset-rate", type=float, default=0.02)
    parser.add_argument("--stall-rate", type=float, default=0.01)
    parser.add_argument("--stall-s", type=float, default=8.0)
    parser.add_argument("--stall-timeout-s", type=float, default=4.0)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="only the ceilings, swigflow's plain epochs and local disk (no faults, caches, "
        "Mosaic Streaming or s3://)",
    )
    parser.add_argument(
        "--transports",
        action="store_true",
        help="also the ceiling's GETs through each candidate transport that is installed "
        "(swigflow's http_ranges, obstore, libcurl through pycurl, aiohttp)",
    )
    args = parser.parse_args()
    import swigflow
    from swigflow.io import gfile

    budget = args.read_ahead_mib * MIB
    blocks = gfile.READ_AHEAD_BLOCKS
    env = {gfile.READ_AHEAD_BYTES_ENV: str(budget)}
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; swigflow {swigflow.__version__}")
    print(
        f"store: {args.latency_ms:g} ms per request, {args.response_mbps:g} MB/s per response; "
        f"{args.files} files of {args.file_mb} MB, records of {RECORD:,} bytes; read-ahead up "
        f"to {gfile.READ_AHEAD_BLOCKS} x {gfile.READ_BLOCK_SIZE >> 20} MiB per file within "
        f"{args.read_ahead_mib} MiB; faulty store: {args.error_rate:.0%} 500s, "
        f"{args.reset_rate:.0%} resets, {args.stall_rate:.0%} stalls of {args.stall_s:g} s "
        f"(swigflow's stall timeout {args.stall_timeout_s:g} s there, 30 s elsewhere)"
    )
    print(
        f"memory new to a process: {first_touch_cost(args.repeats):.2f} s of system time per GB "
        "at its first touch (4 KiB pages)"
    )
    rows = {}
    with tempfile.TemporaryDirectory() as directory:
        paths = write_files(directory, args.files, args.file_mb)
        # The records' order for one file at a time and for 8 interleaved, read from disk.
        orders = [swigflow_epoch(paths, p, blocks)[2] for p in (1, 8)]
        expected = ({o for o, _ in orders}, orders[0][1])
        names = [os.path.basename(p) for p in paths]
        sizes = [os.path.getsize(p) for p in paths]
        store, port = start_store(directory, args, (0, 0, 0, 0, 0))
        urls = [f"http://127.0.0.1:{port}/{n}" for n in names]
        for threads in (8, 16):
            rows[f"ceiling: {threads} threads of 8 MiB range GETs"] = measure(
                args.repeats, ceiling, port, names, sizes, threads
            )
        if args.transports:
            transport_rows(rows, args.repeats, port, names, sizes)
        rows["fsspec cat_file, 8 files at a time"] = measure(args.repeats, fsspec_reads, urls)
        for parallel in (1, 8):
            rows[f"swigflow TFRecordDataset, num_parallel_reads={parallel}"] = measure(
                args.repeats, swigflow_epoch, urls, parallel, blocks, env=env
            )
        rows["swigflow, num_parallel_reads=8, read-ahead off"] = measure(
            args.repeats, swigflow_epoch, urls, 8, 0, env=env
        )
        # A long job's steady state: the read-ahead buffers of epoch 1 are used again.
        rows["swigflow, num_parallel_reads=8: epoch 2 of one dataset"] = measure(
            args.repeats, swigflow_epoch, urls, 8, blocks, None, 1, True, None, 1, env=env
        )
        if args.quick:
            store.terminate()
            rows["local disk: TFRecordDataset, num_parallel_reads=8"] = measure(
                args.repeats, swigflow_epoch, paths, 8, blocks, env=env
            )
            report(rows, expected)
            return
        faults = (args.error_rate, args.reset_rate, args.stall_rate, args.stall_s, 1)
        faulty, faulty_port = start_store(directory, args, faults)
        faulty_urls = [u.replace(f":{port}/", f":{faulty_port}/") for u in urls]
        rows["swigflow, 8 reads, faults injected"] = measure(
            1, swigflow_epoch, faulty_urls, 8, blocks, None, 1, True, args.stall_timeout_s, env=env
        )
        faulty.terminate()
        with tempfile.TemporaryDirectory() as cache:
            rows["swigflow, 8 reads, cache_dir: epoch 1 (fills it)"] = measure(
                1, swigflow_epoch, urls, 8, blocks, cache, env=env
            )
            rows["swigflow, 8 reads, cache_dir: epoch 2 of one dataset"] = measure(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache, 1, True, None, 1, env=env
            )
            rows["swigflow, 8 reads, cache_dir: a new process (one HEAD per file)"] = measure(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache, env=env
            )
            rows["swigflow, 8 reads, cache_dir: repeat(3), one iterator"] = measure(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache, 3, env=env
            )
            rows["swigflow, cache_dir revalidate=False: a new process"] = measure(
                args.repeats, swigflow_epoch, urls, 8, blocks, cache, 1, False, env=env
            )
        try:
            import_streaming()
        except ImportError as e:
            print(f"Mosaic Streaming rows skipped: {e} (pip install mosaicml-streaming)")
        else:
            mds = os.path.join(directory, "bucket", "mds")
            write_mds(paths, mds, args.file_mb)
            endpoint = f"http://127.0.0.1:{port}"
            for workers in (0, 2):
                for epoch in (1, 2):
                    how = f"DataLoader, {workers} workers" if workers else "in the process"
                    what = "fills its cache" if epoch == 1 else "local copies"
                    with tempfile.TemporaryDirectory() as cache:
                        rows[f"Mosaic StreamingDataset ({how}): epoch {epoch} ({what})"] = measure(
                            1, mosaic_epoch, "s3://bucket/mds", cache, endpoint, epoch, workers
                        )
        store.terminate()
        s3_row(rows, args, paths, blocks, env)
        gs_row(rows, args, paths, blocks, env)
        rows["local disk: TFRecordDataset, num_parallel_reads=8"] = measure(
            args.repeats, swigflow_epoch, paths, 8, blocks, env=env
        )
        rows["local disk: epoch 2 of one dataset"] = measure(
            args.repeats, swigflow_epoch, paths, 8, blocks, None, 1, True, None, 1, env=env
        )
    report(rows, expected)


def s3_row(rows, args, paths, blocks, env):
    """swigflow over s3:// on moto's S3 server, if moto and s3fs are installed."""
    try:
        import boto3
        from moto.server import ThreadedMotoServer
    except ImportError as e:
        print(f"s3:// row skipped: {e} (pip install 'moto[server]' s3fs)")
        return
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    keys = dict(aws_access_key_id="bench", aws_secret_access_key="bench", region_name="us-east-1")
    s3 = boto3.client("s3", endpoint_url=endpoint, **keys)
    s3.create_bucket(Bucket="bench")
    for p in paths:
        s3.upload_file(p, "bench", os.path.basename(p))
    s3_env = dict(
        env,
        FSSPEC_S3_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
    )
    urls = [f"s3://bench/{os.path.basename(p)}" for p in paths]
    rows["swigflow over s3:// (moto's server, no caps), 8 reads"] = measure(
        args.repeats, swigflow_epoch, urls, 8, blocks, env=s3_env
    )
    server.stop()


def gs_row(rows, args, paths, blocks, env):
    """swigflow over gs:// on gcp-storage-emulator's server, if it and gcsfs are installed."""
    # No probe of the bucket's type over gRPC, which the emulator does not serve (read when gcsfs
    # is imported).
    os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
    try:
        import fsspec
        import gcsfs  # noqa: F401  (gs:// for fsspec)
        from gcp_storage_emulator.server import create_server
    except ImportError as e:
        print(f"gs:// row skipped: {e} (pip install gcsfs gcp-storage-emulator)")
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = create_server("127.0.0.1", port, in_memory=True, default_bucket="bench")
    server.start()
    # fsspec's configuration from the environment (FSSPEC_GS_*), here and in each row's process.
    gs_env = dict(
        env,
        FSSPEC_GS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        FSSPEC_GS_TOKEN="anon",
        FSSPEC_GS_PROJECT="bench",
        GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT="false",
    )
    os.environ.update(gs_env)
    fsspec.config.set_conf_env(fsspec.config.conf)
    fs = fsspec.filesystem("gs", skip_instance_cache=True)
    for p in paths:
        fs.put_file(p, f"bench/{os.path.basename(p)}")
    urls = [f"gs://bench/{os.path.basename(p)}" for p in paths]
    rows["swigflow over gs:// (GCS emulator, no caps), 8 reads"] = measure(
        args.repeats, swigflow_epoch, urls, 8, blocks, env=gs_env
    )
    server.stop()


def report(rows, expected):
    print(
        f"\n{'reader':62} {'MB/s':>7} {'records/s':>10} {'CPU s/GB':>9} {'(system)':>9} "
        f"{'faults/MB':>10} {'peak RSS MiB':>13} {'growth':>7} {'read-ahead held':>16}"
    )
    for label, r in rows.items():
        held = f"{r['held'] / MIB:14.0f}  " if r["held"] else f"{'':16}"
        gb = r["bytes"] / 1e9
        print(
            f"{label:62} {r['bytes'] / r['seconds'] / 1e6:7,.0f} "
            f"{r['records'] / r['seconds']:10,.0f} {r['cpu'] / gb:9.2f} {r['system'] / gb:9.2f} "
            f"{r['faults'] / (gb * 1e3):10,.0f} "
            f"{r['peak'] / MIB:13,.0f} {(r['peak'] - r['base']) / MIB:7,.0f} {held}"
        )
    for label, r in rows.items():
        if r["digest"] is not None and "repeat(3)" not in label:
            orders, records = expected
            if r["digest"][0] in orders:
                ok = "every record once, in order"
            elif r["digest"][1] == records:
                ok = "every record once, in another order"
            else:
                ok = "RECORDS DIFFER"
            print(f"  {label}: {ok} ({r['records']:,} records)")

    def rate(label):
        return rows[label]["bytes"] / rows[label]["seconds"]

    cached = [k for k in rows if ("cache_dir" in k and "fills" not in k) or "local copies" in k]
    local_rows = [k for k in rows if k.startswith("local disk")]
    remote = [
        k
        for k in rows
        if not k.startswith(("ceiling", "local disk", "fsspec", "transport"))
        and k not in cached
        and "s3://" not in k
        and "gs://" not in k
    ]
    print()
    for label in remote:
        ratios = [
            f"{rate(label) / rate(f'ceiling: {t} threads of 8 MiB range GETs'):.2f}x"
            for t in (8, 16)
        ]
        print(f"{label} vs the 8 / 16-thread ceilings: {' / '.join(ratios)}")

    # CPU against local disk's pipeline plus a plain downloader's transport (8 threads), the
    # cost of reading the same records from the store with nothing lost in between.
    def cpu(label):
        return rows[label]["cpu"] / (rows[label]["bytes"] / 1e9)

    plain = "ceiling: 8 threads of 8 MiB range GETs"
    for label, local in (
        ("swigflow TFRecordDataset, num_parallel_reads=8", local_rows[:1]),
        ("swigflow, num_parallel_reads=8: epoch 2 of one dataset", local_rows[-1:]),
    ):
        if label in rows and local:
            floor = cpu(local[0]) + cpu(plain)
            print(
                f"{label}: {cpu(label):.2f} CPU s/GB; {local[0]} plus the plain downloader's "
                f"transport: {cpu(local[0]):.2f} + {cpu(plain):.2f} = {floor:.2f}"
            )
    # Like with like: a later epoch of one dataset against local disk's, a new process's
    # first epoch against local disk's.
    for label in cached:
        again = "epoch 2" in label
        local = "local disk: epoch 2 of one dataset" if again else next(iter(local_rows))
        print(f"{label} vs {local}: {rate(label) / rate(local):.2f}x")


if __name__ == "__main__":
    main()
