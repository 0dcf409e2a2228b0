"""Sweeps the SGEMM cache blocking (mc, kc, nc) on this machine, to write a named config.

    PYTHONPATH=<swigflow> python bench/gemm_sweep.py [--out bench/configs/NAME.txt]

Each candidate runs in a fresh process with SWIGFLOW_GEMM_BLOCKING=mc,kc,nc (the config is read
once per process) and times the square and skinny products of gemm_bench.py on all threads, the
best of several rounds. The score is the geometric mean of GFLOP/s. The search is coordinate
descent from the config chosen now: kc, then mc, then nc, twice over, each trying a range of
values around the current best; the VM is noisy, so the current best is re-measured alongside
every candidate and only a clear win (`--margin`) moves it.

The printed result is what goes into native/kernels/gemm/config/<name>.cc; the log (machine,
probe, every measurement) is what --out keeps in the repository.
"""

import argparse
import json
import math
import os
import subprocess
import sys

from timing import cpu_name

SHAPES = [  # (m, k, n): the non-GEMV shapes of gemm_bench.py
    (256, 256, 256),
    (512, 512, 512),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (32, 2048, 1000),
    (3136, 64, 256),
    (512, 768, 3072),
]

CANDIDATES = {
    "kc": [128, 192, 256, 320, 384, 448, 512, 640, 768, 1024],
    "mc": [48, 72, 96, 144, 192, 240, 288, 384, 480],
    "nc": [512, 1024, 1536, 2048, 3072, 4096, 6144],
}

_CHILD = r"""
import json, sys, time
import numpy as np
import swigflow
shapes, seconds = json.loads(sys.argv[1]), float(sys.argv[2])
rng = np.random.default_rng(0)
result = {"config": swigflow.linalg.kernel_config(), "gflops": []}
for m, k, n in shapes:
    a = rng.standard_normal((m, k), np.float32)
    b = rng.standard_normal((k, n), np.float32)
    swigflow.matmul(a, b)
    best, spent, count = float("inf"), 0.0, 0
    while count < 3 or spent < seconds:
        start = time.perf_counter()
        swigflow.matmul(a, b)
        elapsed = time.perf_counter() - start
        best, spent, count = min(best, elapsed), spent + elapsed, count + 1
    result["gflops"].append(2.0 * m * k * n / best / 1e9)
print(json.dumps(result))
"""


def measure(blocking, seconds):
    """(geomean GFLOP/s, per-shape GFLOP/s, the config the child reported) for one blocking."""
    env = dict(os.environ)
    if blocking is not None:
        env["SWIGFLOW_GEMM_BLOCKING"] = ",".join(str(v) for v in blocking)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(SHAPES), str(seconds)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(out)
    gflops = result["gflops"]
    return math.exp(sum(math.log(g) for g in gflops) / len(gflops)), gflops, result["config"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.2, help="timing per shape and run")
    parser.add_argument("--rounds", type=int, default=2, help="runs per candidate (best kept)")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--margin", type=float, default=0.01, help="win needed to move")
    parser.add_argument("--out", help="also write the log here")
    args = parser.parse_args()

    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(text)

    def score(blocking):
        best = (0.0, None, None)
        for _ in range(args.rounds):
            result = measure(blocking, args.seconds)
            if result[0] > best[0]:
                best = result
        return best

    start_score, _, config = score(None)
    current = {"mc": config["mc"], "kc": config["kc"], "nc": config["nc"]}
    say(
        f"CPU: {cpu_name()} ({config['vendor']} family {config['family']:#x} model "
        f"{config['model']:#x}); caches L1d {config['l1d'] >> 10} KiB, L2 {config['l2'] >> 10} "
        f"KiB, L3 {config['l3'] >> 20} MiB; {config['threads']} threads"
    )
    say(
        f"ISA {config['isa']}, tile {config['mr']}x{config['nr']}; chosen now: "
        f"{config['name']} ({config['source']}) mc={current['mc']} kc={current['kc']} "
        f"nc={current['nc']}: {start_score:.1f} GFLOP/s geomean"
    )
    say("shapes (m x k x n): " + ", ".join(f"{m}x{k}x{n}" for m, k, n in SHAPES))

    def key(values):
        return (values["mc"], values["kc"], values["nc"])

    for number in range(args.passes):
        for name in ("kc", "mc", "nc"):
            for value in CANDIDATES[name]:
                if value == current[name]:
                    continue
                trial = dict(current, **{name: value})
                base = score(key(current))[0]  # re-measured: the VM drifts
                got, got_shapes, _ = score(key(trial))
                moved = got > base * (1 + args.margin)
                say(
                    f"pass {number + 1} {name}={value:<5} {got:6.1f} vs {base:6.1f} at "
                    f"mc={current['mc']} kc={current['kc']} nc={current['nc']}"
                    f"{'  -> moved' if moved else ''}  ["
                    + " ".join(f"{g:.0f}" for g in got_shapes)
                    + "]"
                )
                if moved:
                    current = trial
    final, final_shapes, _ = score(key(current))
    say(
        f"best: mc={current['mc']} kc={current['kc']} nc={current['nc']}: {final:.1f} GFLOP/s "
        f"geomean [" + " ".join(f"{g:.0f}" for g in final_shapes) + "]"
    )
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
