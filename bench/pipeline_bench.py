"""swigflow.data against tf.data on the issue's pipeline, and a simulated training loop.

    /tmp/bench/bin/python bench/pipeline_bench.py [--repeats 3] [--dir /tmp/pipeline_bench]
        [--files 2,16,128,1024,8192]

Data: 16 shards x 8,000 Examples (id, a 200-byte blob, 16 floats), written once into --dir.
Pipeline: TFRecordDataset(num_parallel_reads=4) -> shuffle(10000) -> batch(512) -> parse ->
prefetch, one epoch, in swigflow.data and (when TensorFlow is installed) in tf.data with
num_parallel_calls=AUTOTUNE. Reported: examples/s and the ratio to tf.data's, measured in the
same run (best of --repeats each). Then a training loop whose step takes a fixed time without
the GIL (time.sleep, as a GPU step would) reports how long each step waited for its batch.

Statistics: the cost of Iterator.stats()' collection, on the pipeline above and with a Python
map over its batches, stats=True against stats=False (rounds alternating, medians), and as
computed from the measured cost of clocking one element through one Python step (the native
stages' clocks, two reads per chunk of up to 256 records, are below any measurable cost).

Small files: the same 128,000 Examples split evenly over each count of --files, both libraries
on each, every (count, library) in a process of its own so that its peak RSS is its own. The
cost per file is the time a file adds over the 2-file row, spread over the extra files; its
kernel part (open, read, close) bounds how close a row can come to the first on these cores.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
from timing import cpu_name

import swigflow

tf = None  # TensorFlow, when installed: imported by main, never by a swigflow phase


def import_tf():
    global tf
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow
    except ImportError:
        return
    tf = tensorflow


SHARDS, PER_SHARD, BATCH = 16, 8000, 512
TOTAL = SHARDS * PER_SHARD


def records():
    """The 128,000 serialized Examples, always the same."""
    rng = np.random.default_rng(0)
    return [
        swigflow.train.example_from_dict(
            {
                "id": i,
                "blob": rng.integers(0, 256, 200, dtype=np.uint8).tobytes(),
                "floats": rng.standard_normal(16).astype(np.float32),
            }
        ).SerializeToString()
        for i in range(TOTAL)
    ]


def write_split(directory, files, stem="train"):
    """The records split evenly (in order) over `files` files in directory; written once."""
    os.makedirs(directory, exist_ok=True)
    paths = [os.path.join(directory, f"{stem}-{s:05d}-of-{files:05d}") for s in range(files)]
    if all(os.path.exists(p) for p in paths):
        return paths
    data = records()
    for s, path in enumerate(paths):
        with swigflow.io.TFRecordWriter(path) as w:
            for r in range(s * TOTAL // files, (s + 1) * TOTAL // files):
                w.write(data[r])
    return paths


def write_data(directory):
    return write_split(directory, SHARDS)


SPEC = {
    "id": swigflow.io.FixedLenFeature([], "int64"),
    "blob": swigflow.io.FixedLenFeature([], "string"),
    "floats": swigflow.io.FixedLenFeature([16], "float32"),
}


def swigflow_pipeline(paths):
    return (
        swigflow.data.TFRecordDataset(paths, num_parallel_reads=4)
        .shuffle(10_000, seed=1)
        .batch(BATCH)
        .parse(SPEC)
        .prefetch(4)
    )


def tf_pipeline(paths):
    spec = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "blob": tf.io.FixedLenFeature([], tf.string),
        "floats": tf.io.FixedLenFeature([16], tf.float32),
    }
    return (
        tf.data.TFRecordDataset(paths, num_parallel_reads=4)
        .shuffle(10_000, seed=1)
        .batch(BATCH)
        .map(lambda x: tf.io.parse_example(x, spec), num_parallel_calls=tf.data.AUTOTUNE)
        .prefetch(tf.data.AUTOTUNE)
    )


def epoch_seconds(make, count_key, convert=None, epochs=1):
    start = time.perf_counter()
    n = 0
    for batch in make():
        if convert is not None:
            batch = convert(batch)
        n += len(batch[count_key])
    seconds = time.perf_counter() - start
    assert n == TOTAL * epochs, n
    return seconds


def best(repeats, fn):
    return min(fn() for _ in range(repeats))


def stats_overhead(paths, rounds):
    """(pipeline, seconds with stats off, with stats on) rows, medians of alternating rounds
    (the VM's drift hits both alike) over five epochs each."""
    pipelines = [
        ("native (read, shuffle, batch, parse)", swigflow_pipeline(paths).repeat(5)),
        (
            "native + Python map + prefetch",
            swigflow_pipeline(paths).map(lambda b: b).prefetch(2).repeat(5),
        ),
    ]
    rows = []
    for name, ds in pipelines:
        off, on = [], []
        for _ in range(rounds):
            off.append(epoch_seconds(lambda ds=ds: ds.iterator(stats=False), "id", epochs=5))
            on.append(epoch_seconds(lambda ds=ds: ds.iterator(stats=True), "id", epochs=5))
        rows.append((name, statistics.median(off), statistics.median(on), 5 * -(-TOTAL // BATCH)))
    return rows


def clock_cost_per_element(n=300_000, rounds=5):
    """Seconds the statistics add per element and Python step: a Python pipeline of n tiny
    elements through range -> map -> the iterator, stats on against off (best of rounds)."""
    ds = swigflow.data.Dataset.range(n).map(lambda x: x)

    def consume(stats):
        start = time.perf_counter()
        for _ in ds.iterator(stats=stats):
            pass
        return time.perf_counter() - start

    off = min(consume(False) for _ in range(rounds))
    on = min(consume(True) for _ in range(rounds))
    return (on - off) / n / 2  # two clocked steps per element


def print_stats_overhead(paths, repeats):
    rounds = max(7, repeats)
    per_step = clock_cost_per_element()
    print(
        f"\nStatistics collection (Iterator.stats()), 5 epochs, median of {rounds} alternating "
        f"rounds; clocking a Python step costs {per_step * 1e6:.2f} us per element:\n"
    )
    print("| pipeline | stats off | stats on | measured cost | clocking cost (computed) |")
    print("|---|---:|---:|---:|---:|")
    for name, off, on, batches in stats_overhead(paths, rounds):
        steps = 1 if "map" not in name else 3  # the native source; + map, prefetch
        computed = batches * steps * per_step / off
        print(
            f"| {name} | {5 * TOTAL / off / 1e6:.2f} M ex/s | {5 * TOTAL / on / 1e6:.2f} M ex/s | "
            f"{1 - off / on:+.1%} | {computed:.2%} |"
        )


def training_loop(dataset, step_ms, steps=200):
    """Mean and worst wait for the next batch, and the share of the loop spent waiting."""
    it = iter(dataset)
    next(it)  # warm up: threads started, buffers filled once
    waits = []
    start = time.perf_counter()
    for _ in range(steps):
        t = time.perf_counter()
        next(it)
        waits.append(time.perf_counter() - t)
        time.sleep(step_ms / 1000)  # the step: no GIL, like a GPU kernel launch and sync
    total = time.perf_counter() - start
    return np.mean(waits) * 1e3, np.max(waits) * 1e3, sum(waits) / total


def max_rss_mb():
    """This process's peak RSS (VmHWM: unlike ru_maxrss, not inherited across exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase(library, directory, files, repeats):
    """One (library, file count) row, run in this process: prints its result as JSON."""
    paths = write_split(directory, files)
    base = max_rss_mb()
    make = (
        (lambda: swigflow_pipeline(paths)) if library == "swigflow" else lambda: tf_pipeline(paths)
    )

    def timed_epoch():  # (wall, CPU, kernel CPU) seconds of one epoch, all threads together
        before = resource.getrusage(resource.RUSAGE_SELF)
        seconds = epoch_seconds(make, "id")
        after = resource.getrusage(resource.RUSAGE_SELF)
        kernel = after.ru_stime - before.ru_stime
        return seconds, after.ru_utime - before.ru_utime + kernel, kernel

    # The best epoch's time; CPU figures are the epochs' medians (a single epoch's swing more).
    epochs = [timed_epoch() for _ in range(repeats)]
    seconds = min(e[0] for e in epochs)
    cpu = statistics.median(e[1] for e in epochs)
    kernel = statistics.median(e[2] for e in epochs)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu": cpu,
                "kernel": kernel,
                "rss": max_rss_mb(),
                "base": base,
            }
        )
    )


def run_phase(library, directory, files, repeats):
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--phase",
            library,
            "--dir",
            directory,
            "--files",
            str(files),
            "--repeats",
            str(repeats),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def small_files(directory, counts, repeats, rounds=3):
    """The small-files table: `rounds` rounds over every (count, library) phase, best of each, so
    that a noisy moment of the VM spoils one round of one row rather than the row."""
    print(
        f"\nSmall files: {TOTAL:,} examples split over more and more files; each row the best of "
        f"{rounds} processes x {repeats} epochs. Peak RSS (VmHWM) of the process, and its growth "
        "over the RSS after imports:\n"
    )
    results = {}
    for _ in range(rounds):
        for files in counts:
            directory_n = os.path.join(directory, f"files_{files}")
            write_split(directory_n, files)  # here: a phase's peak RSS must not include writing
            for library in ("swigflow", "tf") if tf is not None else ("swigflow",):
                got = run_phase(library, directory_n, files, repeats)
                old = results.get((files, library))
                if old is None or got["seconds"] < old["seconds"]:
                    results[(files, library)] = got
    print(
        "| files (records each) | swigflow ex/s | vs 2 files | CPU (kernel), median epoch "
        "| peak RSS | tf.data ex/s | peak RSS | vs tf.data |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    first = results[(counts[0], "swigflow")]["seconds"]
    for files in counts:
        ours = results[(files, "swigflow")]
        theirs = results.get((files, "tf"))
        cells = [
            f"{files:,} ({TOTAL // files:,})",
            f"{TOTAL / ours['seconds'] / 1e6:.2f} M",
            f"{first / ours['seconds']:.2f}x",
            f"{ours['cpu'] * 1e3:.0f} ms ({ours['kernel'] * 1e3:.0f} ms)",
            f"{ours['rss']:.0f} MB (+{ours['rss'] - ours['base']:.0f})",
        ]
        if theirs is None:
            cells += ["n/a", "n/a", "n/a"]
        else:
            cells += [
                f"{TOTAL / theirs['seconds'] / 1e6:.2f} M",
                f"{theirs['rss']:.0f} MB (+{theirs['rss'] - theirs['base']:.0f})",
                f"{theirs['seconds'] / ours['seconds']:.1f}x",
            ]
        print("| " + " | ".join(cells) + " |")
    print()
    for files in counts[1:]:
        extra = results[(files, "swigflow")]["seconds"] - first
        print(
            f"cost per file, {files:,} files against {counts[0]}: "
            f"{extra / (files - counts[0]) * 1e6:.1f} µs (wall, the pipeline's threads together)"
        )
    if len(counts) < 2:
        return
    # The last row's added kernel time is what opening, reading and closing its files costs the
    # system (the other rows add too little to measure). Even with nothing else added, the cores
    # must do the first row's CPU plus that.
    base, row = results[(counts[0], "swigflow")], results[(counts[-1], "swigflow")]
    more = counts[-1] - counts[0]
    kernel = max(row["kernel"] - base["kernel"], 0.0)
    cores = len(os.sched_getaffinity(0))
    bound = max(base["seconds"], (base["cpu"] + kernel) / cores)
    print(
        f"{counts[-1]:,} files add {(row['cpu'] - base['cpu']) / more * 1e6:.1f} µs of CPU per "
        f"file, {kernel / more * 1e6:.1f} µs of it in the kernel: with only that kernel time "
        f"added, {cores} cores could reach at most {first / bound:.2f}x the first row"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/pipeline_bench")
    parser.add_argument(
        "--files",
        default="2,16,128,1024,8192",
        help="file counts of the small-files table (comma-separated; empty: skip it)",
    )
    parser.add_argument("--only-files", action="store_true", help="only the small-files table")
    parser.add_argument("--only-stats", action="store_true", help="only the statistics' cost")
    parser.add_argument("--phase", choices=("swigflow", "tf"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    counts = [int(n) for n in args.files.split(",") if n]
    if args.phase != "swigflow":
        import_tf()
    if args.phase:
        return phase(args.phase, args.dir, counts[0], args.repeats)
    if args.only_files:
        return small_files(args.dir, counts, args.repeats)
    paths = write_data(args.dir)
    if args.only_stats:
        print(f"CPU: {cpu_name()}")
        return print_stats_overhead(paths, args.repeats)

    rows = []
    ours = best(args.repeats, lambda: epoch_seconds(lambda: swigflow_pipeline(paths), "id"))
    rows.append(("swigflow.data", "numpy batches", ours))
    anchor = None
    if tf is not None:
        anchor = best(args.repeats, lambda: epoch_seconds(lambda: tf_pipeline(paths), "id"))
        rows.append(("tf.data", "tensors", anchor))
        numpy = best(
            args.repeats,
            lambda: epoch_seconds(lambda: tf_pipeline(paths).as_numpy_iterator(), "id"),
        )
        rows.append(("tf.data", "as_numpy_iterator()", numpy))

    print(
        f"swigflow {swigflow.__version__}, tensorflow {tf.__version__ if tf else 'not installed'}, "
        f"{cpu_name()}, {os.cpu_count()} CPUs, {SHARDS} shards x {PER_SHARD:,} examples, "
        f"batch {BATCH}, best of {args.repeats}\n"
    )
    print("| pipeline | elements | examples/s | vs tf.data |")
    print("|---|---|---:|---:|")
    for name, how, seconds in rows:
        ratio = f"{anchor / seconds:.2f}x" if anchor else "n/a"
        print(f"| {name} | {how} | {TOTAL / seconds / 1e6:.2f} M | {ratio} |")

    print("\nSimulated training loop (swigflow.data, repeating), 200 steps of 512 examples:\n")
    print("| step time | examples/s the step asks for | mean wait | worst wait | time waiting |")
    print("|---:|---:|---:|---:|---:|")
    endless = swigflow_pipeline(paths).repeat()
    for step_ms in (1.0, 2.0, 5.0):
        mean, worst, share = training_loop(endless, step_ms)
        print(
            f"| {step_ms:.0f} ms | {BATCH / step_ms * 1e3 / 1e6:.2f} M | {mean:.3f} ms | "
            f"{worst:.2f} ms | {share:.1%} |"
        )
    print_stats_overhead(paths, args.repeats)
    if counts:
        small_files(args.dir, counts, args.repeats)


if __name__ == "__main__":
    main()
