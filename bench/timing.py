"""Timing shared by the benchmarks, and the CPU every reported figure names."""

import time


def best_of(repeats, fn, *args):
    """(seconds, result) of the fastest of `repeats` calls of fn(*args)."""
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best[0]:
            best = (elapsed, result)
    return best


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"
