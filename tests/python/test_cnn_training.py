"""examples/cnn_training.py's CNN trained with swigflow gives TensorFlow 2.21's losses step by
step (tests/testdata/tf_cnn/losses.json, from make_tf_cnn_losses.py running the same function
with `import tensorflow as tf`): conv2d, bias_add, relu, max_pool, reshape, matmul, sparse
softmax cross-entropy and reduce_mean, forward and backward, through 300 SGD steps."""

import importlib.util
import json
import os

import numpy as np

import swigflow

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "cnn_training.py")
GOLDEN = os.path.join(HERE, "..", "testdata", "tf_cnn", "losses.json")


def load_example():
    spec = importlib.util.spec_from_file_location("cnn_training", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_losses_match_tensorflow_step_by_step():
    with open(GOLDEN) as f:
        golden = json.load(f)
    theirs = np.array(golden["losses"])
    ours = np.array(load_example().train(swigflow, golden["steps"]))
    relative = np.abs(ours - theirs) / np.abs(theirs)
    assert relative[:100].max() < 1e-4, relative[:100].max()
    # Later steps drift with the summation order of each kernel, slowly: still close.
    assert relative.max() < 1e-3, relative.max()
    assert ours[-1] < 0.5 * ours[0]  # it learns


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
