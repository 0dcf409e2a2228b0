"""examples/cnn_training.py's CNN trained with swigflow gives TensorFlow 2.21's losses step by
step (tests/testdata/tf_cnn/losses.json, from make_tf_cnn_losses.py running the same function
with `import tensorflow as tf`): conv2d, bias_add, relu, max_pool, reshape, matmul, sparse
softmax cross-entropy and reduce_mean, forward and backward, through 300 SGD steps."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "cnn_training.py")
GOLDEN = os.path.join(HERE, "..", "testdata", "tf_cnn", "losses.json")


def load_example():
    spec = importlib.util.spec_from_file_location("cnn_training", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The GEMM blocking of the step-by-step comparison: K (512 at most here) in one block, summed in
# one pass as TensorFlow's kernels sum it. A blocking derived from a small L1 (kc 384 on a Zen 3)
# sums the dense layer's K in two passes; the last bits differ, and some 60 steps in a max-pool
# tie resolves the other way, after which the losses differ by 1e-4 to 1e-2 while still learning.
PINNED_BLOCKING = "96,1024,1024"


def _losses(steps, blocking):
    """The example's losses in a fresh process whose GEMM blocking is `blocking` (None: the
    machine's own): the blocking is chosen once per process."""
    env = dict(os.environ)
    env.pop("SWIGFLOW_GEMM_BLOCKING", None)
    if blocking is not None:
        env["SWIGFLOW_GEMM_BLOCKING"] = blocking
    code = (
        "import importlib.util, json, sys, swigflow\n"
        f"spec = importlib.util.spec_from_file_location('cnn_training', {EXAMPLE!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        f"print(json.dumps([float(x) for x in m.train(swigflow, {steps})]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return np.array(json.loads(done.stdout.strip().splitlines()[-1]))


def _against_tensorflow(blocking):
    """(ours, TensorFlow's, relative difference) of every step."""
    with open(GOLDEN) as f:
        golden = json.load(f)
    theirs = np.array(golden["losses"])
    ours = _losses(golden["steps"], blocking)
    return ours, theirs, np.abs(ours - theirs) / np.abs(theirs)


def test_losses_match_tensorflow_step_by_step():
    ours, _, relative = _against_tensorflow(PINNED_BLOCKING)
    assert relative[:100].max() < 1e-4, relative[:100].max()
    # Later steps drift with the summation order of each kernel, slowly: still close.
    assert relative.max() < 1e-3, relative.max()
    assert ours[-1] < 0.5 * ours[0]  # it learns


def test_losses_with_the_machines_blocking():
    """With this machine's own blocking, the first steps (before any tie can flip) agree with
    TensorFlow to float rounding, and the model learns as TensorFlow's does."""
    ours, theirs, relative = _against_tensorflow(None)
    assert relative[:20].max() < 1e-5, relative[:20].max()
    assert ours[-1] < 0.5 * ours[0] and abs(ours[-1] - theirs[-1]) < 0.1 * theirs[-1]


def test_the_data_and_weights_are_the_hashs():
    """The inputs both libraries start from: fixed bits, whatever numpy's generators do."""
    example = load_example()
    images, labels = example.synthetic_data()
    assert images.shape == (512, 16, 16, 1) and images.dtype == np.float32
    assert labels.dtype == np.int32 and set(labels) == set(range(10))
    params = example.initial_params()
    assert [p.shape for p in params] == [(3, 3, 1, 8), (8,), (512, 10), (10,)]
    np.testing.assert_array_equal(
        example.hash_uniform(3, 4),
        example.hash_uniform(3, 6)[:4],  # a counter stream: a prefix of a longer one
    )
