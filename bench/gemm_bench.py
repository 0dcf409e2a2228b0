"""SGEMM throughput of swigflow.matmul against numpy (and tf.matmul when installed), one run.

    /tmp/bench/bin/python bench/gemm_bench.py [--repeats 20] [--rounds 3]

Reports GFLOP/s, the share of the FMA peak measured on this machine (1 and 2 threads, by an FMA
loop of the selected ISA) and the ratio to numpy / TensorFlow. Each library runs in its own
phase: OpenBLAS and TensorFlow keep their worker threads spinning after a call, which on a
2-core machine would otherwise take a core from whoever runs next. numpy runs in a process of its
own with OpenBLAS unpinned (timing.OPENBLAS_PINNING), and the kernel OpenBLAS chose is printed.
The phases repeat `rounds` times and each figure is the best of all: the VM's noise comes in
spells of seconds, so one phase can land in a slow spell.
"""

import argparse
import os
import time

import numpy as np
from timing import best_of, cpu_name, run_unpinned

import swigflow

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None

# (m, k, n)
SHAPES = [
    (256, 256, 256),
    (512, 512, 512),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (1, 2048, 1000),
    (32, 2048, 1000),
    (3136, 64, 256),
    (512, 768, 3072),
]

# numpy's phase, in a child process with OpenBLAS unpinned (same data: same seed and order).
NUMPY_PHASE = """
import time
import numpy as np
rng = np.random.default_rng(0)
data = [(rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32))
        for m, k, n in payload["shapes"]]
result = []
for a, b in data:
    best = float("inf")
    for _ in range(payload["repeats"]):
        start = time.perf_counter()
        np.matmul(a, b)
        best = min(best, time.perf_counter() - start)
    result.append(best)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    data = {
        s: (rng.standard_normal(s[:2], np.float32), rng.standard_normal(s[1:], np.float32))
        for s in SHAPES
    }
    probes = {t: swigflow.linalg.measure_fma(t, 1.0) for t in (1, 2)}
    peak2 = probes[2]["gflops"]

    ours, theirs, tf_times = {}, {}, {}
    tensors = tf and {s: (tf.constant(a), tf.constant(b)) for s, (a, b) in data.items()}

    def keep(times, s, seconds):
        times[s] = min(seconds, times.get(s, seconds))

    for _ in range(args.rounds):
        for s in SHAPES:
            keep(ours, s, best_of(args.repeats, swigflow.matmul, *data[s])[0])
        time.sleep(1)
        payload = {"shapes": SHAPES, "repeats": args.repeats}
        numpy_times, openblas = run_unpinned(NUMPY_PHASE, payload)
        for s, seconds in zip(SHAPES, numpy_times):
            keep(theirs, s, seconds)
        if tf is not None:
            time.sleep(1)
            for s in SHAPES:
                keep(tf_times, s, best_of(args.repeats, tf.matmul, *tensors[s])[0])
        time.sleep(1)

    print(
        f"swigflow {swigflow.__version__} ({swigflow.linalg.kernel_isa()}), numpy {np.__version__}"
        f" (OpenBLAS {openblas}, unpinned), tensorflow {tf.__version__ if tf else 'not installed'}"
        f", {os.cpu_count()} CPUs"
    )
    config = swigflow.linalg.kernel_config()
    print(
        f"CPU: {cpu_name()}; kernel config {config['name']} ({config['source']}): "
        f"{config['mr']}x{config['nr']} tile, mc={config['mc']} kc={config['kc']} nc={config['nc']}"
    )
    for t, p in probes.items():
        print(
            f"FMA peak on {t} thread{'s' if t > 1 else ''}: {p['gflops']:.0f} GFLOP/s at "
            f"{p['ghz']:.2f} GHz, {p['flops_per_cycle']:.1f} FLOP/cycle per core"
        )
    print()
    print("| m x k x n | swigflow GFLOP/s | % of peak | numpy GFLOP/s | vs numpy | vs tf.matmul |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in SHAPES:
        flops = 2.0 * s[0] * s[1] * s[2]
        g = flops / ours[s] / 1e9
        vs_tf = f"{tf_times[s] / ours[s]:.2f}x" if tf_times else "n/a"
        print(
            f"| {s[0]} x {s[1]} x {s[2]} | {g:.0f} | {100 * g / peak2:.0f}% | "
            f"{flops / theirs[s] / 1e9:.0f} | {theirs[s] / ours[s]:.2f}x | {vs_tf} |"
        )


if __name__ == "__main__":
    main()
