"""One training step (forward, GradientTape backward, SGD update) of a small CNN: swigflow
against TensorFlow and PyTorch on the CPU, in one run, each library in its own phase.

    /tmp/bench/bin/python bench/train_step_bench.py [--repeats 20]

Models (NHWC; conv 3x3 SAME + bias + relu + 2x2 max-pool per stage, then dense + sparse softmax
cross-entropy, mean):
  - "example": examples/cnn_training.py's model, batch 32 of 16x16x1, 8 filters: per-op
    overhead dominates;
  - "cifar": batch 64 of 32x32x3, stages of 32 and 64 filters: kernels dominate.
swigflow and TensorFlow run the same function (`import swigflow as tf` / `import tensorflow as
tf`, eager); PyTorch runs the same model with torch.nn.functional and autograd (channels_last).
Reported: milliseconds per step (best of the repeats) and the ratio of the other library's time
to swigflow's (above 1: swigflow is faster).
"""

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's idle BLAS threads spin otherwise

import numpy as np
from timing import cpu_name

import swigflow

MODELS = {  # name: (batch, image size, channels, filters per stage, classes)
    "example": (32, 16, 1, (8,), 10),
    "cifar": (64, 32, 3, (32, 64), 10),
}


def model_inputs(name):
    batch, size, channels, stages, classes = MODELS[name]
    rng = np.random.default_rng(0)
    images = rng.standard_normal((batch, size, size, channels)).astype(np.float32)
    labels = rng.integers(0, classes, batch).astype(np.int32)
    params, c = [], channels
    for f in stages:
        params += [(rng.standard_normal((3, 3, c, f)) * np.sqrt(2 / (9 * c))).astype(np.float32)]
        params += [np.zeros(f, np.float32)]
        c = f
    flat = (size >> len(stages)) ** 2 * c
    params += [(rng.standard_normal((flat, classes)) * np.sqrt(1 / flat)).astype(np.float32)]
    params += [np.zeros(classes, np.float32)]
    return images, labels, params


def tf_style_step(tf, images, labels, params, learning_rate=0.01):
    """One SGD step written against TensorFlow's API (swigflow runs it as it is)."""
    with tf.GradientTape() as tape:
        for p in params:
            tape.watch(p)
        h = images
        for i in range(0, len(params) - 2, 2):
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, params[i], 1, "SAME"), params[i + 1]))
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        h = tf.reshape(h, [h.shape[0], -1])
        logits = tf.nn.bias_add(tf.matmul(h, params[-2]), params[-1])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    grads = tape.gradient(loss, params)
    return [p - learning_rate * g for p, g in zip(params, grads)]


def torch_step(torch, images, labels, params, learning_rate=0.01):
    functional = torch.nn.functional
    for p in params:
        p.grad = None
    h = images
    for i in range(0, len(params) - 2, 2):
        h = functional.relu(functional.conv2d(h, params[i], params[i + 1], padding=1))
        h = functional.max_pool2d(h, 2)
    logits = h.flatten(1) @ params[-2] + params[-1]
    loss = functional.cross_entropy(logits, labels)
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= learning_rate * p.grad
    return params


def best_time(repeats, step, *args):
    """The fastest of `repeats` calls of step(*args), after one warm-up call."""
    step(*args)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        step(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    timings = {}
    for name in MODELS:  # phase 1: swigflow alone
        images, labels, params = model_inputs(name)
        timings[(name, "swigflow")] = best_time(
            args.repeats, tf_style_step, swigflow, images, labels, params
        )
    tf = torch = None
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        for name in MODELS:
            images, labels, params = model_inputs(name)
            x, y = tf.constant(images), tf.constant(labels)
            ps = [tf.constant(p) for p in params]
            timings[(name, "tf")] = best_time(args.repeats, tf_style_step, tf, x, y, ps)
    except ImportError:
        pass
    try:
        import torch

        torch.set_num_threads(os.cpu_count())
        for name in MODELS:
            images, labels, params = model_inputs(name)
            x = torch.from_numpy(images).permute(0, 3, 1, 2)
            x = x.contiguous(memory_format=torch.channels_last)
            y = torch.from_numpy(labels).long()
            ps = []
            for i, p in enumerate(params):
                t = torch.from_numpy(p)
                if p.ndim == 4:  # HWIO -> OIHW
                    t = t.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
                elif i == len(params) - 2:  # the flattened features are NCHW-ordered: fine, a
                    t = t.contiguous()  # random matrix either way
                ps.append(t.clone().requires_grad_())
            timings[(name, "torch")] = best_time(args.repeats, torch_step, torch, x, y, ps)
    except ImportError:
        pass

    print(
        f"swigflow {swigflow.__version__} ({swigflow.linalg.kernel_isa()}), "
        f"tensorflow {tf.__version__ if tf else 'not installed'}, "
        f"torch {torch.__version__ if torch else 'not installed'}, {os.cpu_count()} CPUs, "
        f"best of {args.repeats}; CPU: {cpu_name()}\n"
    )
    print("| model | swigflow ms | TF ms | TF / swigflow | PyTorch ms | PyTorch / swigflow |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in MODELS:
        ours = timings[(name, "swigflow")]
        cells = [name, f"{1e3 * ours:.2f}"]
        for lib in ("tf", "torch"):
            theirs = timings.get((name, lib))
            cells += ["n/a", "n/a"] if theirs is None else [f"{1e3 * theirs:.2f}",
                                                            f"{theirs / ours:.2f}x"]  # fmt: skip
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
