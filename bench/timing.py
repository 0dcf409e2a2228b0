"""Timing shared by the benchmarks, the CPU every reported figure names, and numpy at its best."""

import json
import os
import subprocess
import sys
import time

# Set on some machines to pin OpenBLAS to its AVX2 kernels (older OpenBLAS builds misbehave on
# newer CPUs). A user's numpy runs unpinned, so the numpy anchor runs without them, in a process
# of its own: OpenBLAS reads them once, when it loads.
OPENBLAS_PINNING = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

# Appended to every unpinned child: which kernel OpenBLAS chose (threadpoolctl's "architecture").
_KERNEL = """
try:
    import threadpoolctl
    _blas = [i for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"]
    _kernel = _blas[0].get("architecture", "unknown") if _blas else "not OpenBLAS"
except ImportError:
    _kernel = "unknown (pip install threadpoolctl)"
"""


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
    """'AMD EPYC (family 26, model 2)': the model name hides the core; family and model tell it."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
            if not line.strip():
                break
    return (
        f"{fields.get('model name', 'unknown CPU')} (family {fields.get('cpu family', '?')}, "
        f"model {fields.get('model', '?')})"
    )


def run_unpinned(script, payload):
    """Runs `script` in a child Python with OpenBLAS unpinned and returns (result, kernel).

    The child reads `payload` (JSON) from argv[1] as `payload` and leaves its JSON-able answer in
    a variable named `result`; `kernel` is the OpenBLAS kernel it ran (e.g. "SkylakeX").
    """
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_PINNING}
    code = (
        "import json, sys\npayload = json.loads(sys.argv[1])\n"
        + script
        + _KERNEL
        + "\nprint(json.dumps({'result': result, 'kernel': _kernel}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    answer = json.loads(out.strip().splitlines()[-1])
    return answer["result"], answer["kernel"]
