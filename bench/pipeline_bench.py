"""swigflow.data against tf.data on the issue's pipeline, and a simulated training loop.

    /tmp/bench/bin/python bench/pipeline_bench.py [--repeats 3] [--dir /tmp/pipeline_bench]

Data: 16 shards x 8,000 Examples (id, a 200-byte blob, 16 floats), written once into --dir.
Pipeline: TFRecordDataset(num_parallel_reads=4) -> shuffle(10000) -> batch(512) -> parse ->
prefetch, one epoch, in swigflow.data and (when TensorFlow is installed) in tf.data with
num_parallel_calls=AUTOTUNE. Reported: examples/s and the ratio to tf.data's, measured in the
same run (best of --repeats each). Then a training loop whose step takes a fixed time without
the GIL (time.sleep, as a GPU step would) reports how long each step waited for its batch.
"""

import argparse
import os
import time

import numpy as np

import swigflow

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None

SHARDS, PER_SHARD, BATCH = 16, 8000, 512
TOTAL = SHARDS * PER_SHARD


def write_data(directory):
    os.makedirs(directory, exist_ok=True)
    paths = [os.path.join(directory, f"train-{s:05d}-of-{SHARDS:05d}") for s in range(SHARDS)]
    if all(os.path.exists(p) for p in paths):
        return paths
    rng = np.random.default_rng(0)
    for s, path in enumerate(paths):
        with swigflow.io.TFRecordWriter(path) as w:
            for r in range(PER_SHARD):
                w.write(
                    swigflow.train.example_from_dict(
                        {
                            "id": s * PER_SHARD + r,
                            "blob": rng.integers(0, 256, 200, dtype=np.uint8).tobytes(),
                            "floats": rng.standard_normal(16).astype(np.float32),
                        }
                    ).SerializeToString()
                )
    return paths


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


def epoch_seconds(make, count_key, convert=None):
    start = time.perf_counter()
    n = 0
    for batch in make():
        if convert is not None:
            batch = convert(batch)
        n += len(batch[count_key])
    seconds = time.perf_counter() - start
    assert n == TOTAL, n
    return seconds


def best(repeats, fn):
    return min(fn() for _ in range(repeats))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/pipeline_bench")
    args = parser.parse_args()
    paths = write_data(args.dir)

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
        f"{os.cpu_count()} CPUs, {SHARDS} shards x {PER_SHARD:,} examples, batch {BATCH}, "
        f"best of {args.repeats}\n"
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


if __name__ == "__main__":
    main()
