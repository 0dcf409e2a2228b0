"""swigflow.nn.conv2d and its backprops against TensorFlow (oneDNN) and PyTorch, in one run.

    /tmp/bench/bin/python bench/conv_bench.py [--repeats 5]

ResNet-50 layers at batch 1 and 8: 3x3 56x56x64->64, 3x3 28x28x128->128, 1x1 14x14x1024->256,
7x7/2 224x224x3->64, plus both backprops of the 3x3 layers and the stem's filter gradient.
Reported: GFLOP/s (2 * N * OH * OW * KH * KW * C * OC per pass) and the ratio to TensorFlow's
tf.nn.conv2d (and PyTorch CPU) measured in the same run, each library in its own phase (their
idle worker threads spin and would steal a core), then the geometric mean of the ratios.
"""

import argparse
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's idle BLAS threads spin otherwise

import numpy as np
from timing import cpu_name

import swigflow

LAYERS = [  # (name, H=W, C, OC, K, stride)
    ("3x3 56x56x64->64", 56, 64, 64, 3, 1),
    ("3x3 28x28x128->128", 28, 128, 128, 3, 1),
    ("1x1 14x14x1024->256", 14, 1024, 256, 1, 1),
    ("7x7/2 224x224x3->64", 224, 3, 64, 7, 2),
]


def cases():
    for batch in (1, 8):
        for name, hw, c, oc, k, stride in LAYERS:
            passes = ["forward"]
            if k == 3:
                passes += ["backprop input", "backprop filter"]
            elif k == 7:  # the stem: its input is the image, so only the filter has a gradient
                passes += ["backprop filter"]
            for p in passes:
                yield batch, name, hw, c, oc, k, stride, p


def flops(batch, hw, c, oc, k, stride):
    out = -(-hw // stride)
    return 2.0 * batch * out * out * k * k * c * oc


def inputs(batch, hw, c, oc, k, stride):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, hw, hw, c)).astype(np.float32)
    w = rng.standard_normal((k, k, c, oc)).astype(np.float32)
    out = -(-hw // stride)
    dy = rng.standard_normal((batch, out, out, oc)).astype(np.float32)
    return x, w, dy


def swigflow_fn(p, x, w, dy, stride):
    nn = swigflow.nn
    if p == "forward":
        return lambda: nn.conv2d(x, w, stride, "SAME")
    if p == "backprop input":
        return lambda: nn.conv2d_backprop_input(x.shape, w, dy, stride, "SAME")
    return lambda: nn.conv2d_backprop_filter(x, w.shape, dy, stride, "SAME")


def tf_fn(tf, p, x, w, dy, stride):
    x, w, dy = tf.constant(x), tf.constant(w), tf.constant(dy)
    s = [1, stride, stride, 1]
    if p == "forward":
        return lambda: tf.nn.conv2d(x, w, s, "SAME").numpy()
    if p == "backprop input":
        return lambda: tf.compat.v1.nn.conv2d_backprop_input(x.shape, w, dy, s, "SAME").numpy()
    return lambda: tf.compat.v1.nn.conv2d_backprop_filter(x, w.shape, dy, s, "SAME").numpy()


def torch_fn(torch, p, x, w, dy, stride):
    # NCHW / OIHW, channels_last memory: the layout PyTorch's oneDNN path prefers on CPU.
    xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    wt = torch.from_numpy(w).permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
    pad = (w.shape[0] - 1) // 2
    if p == "forward":
        return lambda: torch.nn.functional.conv2d(xt, wt, stride=stride, padding=pad)
    dyt = torch.from_numpy(dy).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    if p == "backprop input":
        return lambda: torch.nn.grad.conv2d_input(xt.shape, wt, dyt, stride=stride, padding=pad)
    return lambda: torch.nn.grad.conv2d_weight(xt, wt.shape, dyt, stride=stride, padding=pad)


def best_time(repeats, fn, min_seconds=0.3):
    """The fastest of at least `repeats` calls, and of as many as fit in min_seconds: small
    layers take a millisecond, and on this VM single timings swing by tens of percent."""
    best, spent, count = float("inf"), 0.0, 0
    while count < repeats or spent < min_seconds:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, count = min(best, elapsed), spent + elapsed, count + 1
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = list(cases())
    peak = swigflow.linalg.measure_fma(seconds=1.0)
    timings = {}
    for batch, name, hw, c, oc, k, stride, p in rows:  # phase 1: swigflow alone
        x, w, dy = inputs(batch, hw, c, oc, k, stride)
        fn = swigflow_fn(p, x, w, dy, stride)
        fn()
        timings[(batch, name, p, "swigflow")] = best_time(args.repeats, fn)
    tf = torch = None
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        for batch, name, hw, c, oc, k, stride, p in rows:
            x, w, dy = inputs(batch, hw, c, oc, k, stride)
            fn = tf_fn(tf, p, x, w, dy, stride)
            fn()
            timings[(batch, name, p, "tf")] = best_time(args.repeats, fn)
    except ImportError:
        pass
    try:
        import torch

        torch.set_num_threads(os.cpu_count())
        with torch.no_grad():
            for batch, name, hw, c, oc, k, stride, p in rows:
                x, w, dy = inputs(batch, hw, c, oc, k, stride)
                fn = torch_fn(torch, p, x, w, dy, stride)
                fn()
                timings[(batch, name, p, "torch")] = best_time(args.repeats, fn)
    except ImportError:
        pass

    print(
        f"swigflow {swigflow.__version__} ({swigflow.linalg.kernel_isa()}), "
        f"tensorflow {tf.__version__ if tf else 'not installed'}, "
        f"torch {torch.__version__ if torch else 'not installed'}, {os.cpu_count()} CPUs, "
        f"best of {args.repeats}"
    )
    config = swigflow.linalg.kernel_config()
    print(
        f"CPU: {cpu_name()}; kernel config {config['name']} ({config['source']}): "
        f"{config['mr']}x{config['nr']} tile, mc={config['mc']} kc={config['kc']} "
        f"nc={config['nc']}; FMA peak {peak['gflops']:.0f} GFLOP/s on {peak['threads']} threads\n"
    )
    print(
        "| batch | layer | pass | swigflow GFLOP/s | TF GFLOP/s | vs TF "
        "| PyTorch GFLOP/s | vs PyTorch |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    ratios = {"tf": [], "torch": []}
    for batch, name, hw, c, oc, k, stride, p in rows:
        f = flops(batch, hw, c, oc, k, stride) / 1e9
        ours = f / timings[(batch, name, p, "swigflow")]
        cells = [str(batch), name, p, f"{ours:.0f}"]
        for lib in ("tf", "torch"):
            t = timings.get((batch, name, p, lib))
            if t is None:
                cells += ["n/a", "n/a"]
                continue
            theirs = f / t
            ratios[lib].append(ours / theirs)
            cells += [f"{theirs:.0f}", f"{ours / theirs:.2f}x"]
        print("| " + " | ".join(cells) + " |")
    for lib, values in ratios.items():
        if values:
            geomean = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"\ngeometric mean vs {lib}: {geomean:.2f}x over {len(values)} cases")


if __name__ == "__main__":
    main()
