"""A small CNN trained with swigflow, written as TensorFlow code: `train(tf, ...)` runs the same
with `import swigflow as tf` and with `import tensorflow as tf`.

conv2d 3x3 (1 -> 8 channels), bias_add, relu, max_pool 2x2, reshape, matmul, bias_add, sparse
softmax cross-entropy, reduce_mean; plain SGD on a synthetic 10-class data set of 16x16
images (bars whose position is the class, under noise). The data and the initial weights come
from an integer hash, so both libraries start from the same bits on any machine.
tests/testdata/make_tf_cnn_losses.py records TensorFlow 2.21's losses, and
tests/python/test_cnn_training.py checks swigflow's step by step; bench/train_step_bench.py
times a step against TensorFlow and PyTorch.

    python examples/cnn_training.py [--steps 300]
"""

import argparse
import time

import numpy as np

IMAGE = 16
CLASSES = 10
FILTERS = 8
EXAMPLES = 512


def hash_uniform(seed, count):
    """`count` float64s in [0, 1): murmur3's 64-bit finalizer over a counter, the same bits on
    every platform and numpy version (numpy's generators promise no stream stability)."""
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps, as the hash means it to
        x = np.arange(count, dtype=np.uint64) + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        x ^= x >> np.uint64(33)
        x *= np.uint64(0xFF51AFD7ED558CCD)
        x ^= x >> np.uint64(33)
        x *= np.uint64(0xC4CEB9FE1A85EC53)
        x ^= x >> np.uint64(33)
    return (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def synthetic_data(examples=EXAMPLES, seed=1):
    """(images [examples, 16, 16, 1] float32, labels [examples] int32): class c is a faint bar
    (rows for c < 5, columns otherwise) at 3 * (c % 5) + 1, under stronger uniform noise."""
    labels = (hash_uniform(seed, examples) * CLASSES).astype(np.int32)
    noise = hash_uniform(seed + 1, examples * IMAGE * IMAGE).reshape(examples, IMAGE, IMAGE)
    images = 2.0 * noise
    for i, c in enumerate(labels):
        at = 3 * (c % 5) + 1
        if c < 5:
            images[i, at : at + 2, :] += 0.5
        else:
            images[i, :, at : at + 2] += 0.5
    return images[..., None].astype(np.float32), labels


def initial_params(seed=7):
    """[conv filter 3x3x1x8, its bias, dense weights 512x10, their bias]: Glorot-uniform weights
    and zero biases, as float32."""

    def glorot(shape, fan_in, fan_out, s):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        values = (2 * hash_uniform(s, int(np.prod(shape))) - 1) * limit
        return values.reshape(shape).astype(np.float32)

    flat = (IMAGE // 2) * (IMAGE // 2) * FILTERS
    return [
        glorot((3, 3, 1, FILTERS), 9, 9 * FILTERS, seed),
        np.zeros(FILTERS, np.float32),
        glorot((flat, CLASSES), flat, CLASSES, seed + 1),
        np.zeros(CLASSES, np.float32),
    ]


def loss_fn(tf, params, images, labels):
    """The mean cross-entropy of the model on a batch."""
    conv_filter, conv_bias, weights, bias = params
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, conv_filter, 1, "SAME"), conv_bias))
    h = tf.nn.max_pool2d(h, 2, 2, "VALID")
    h = tf.reshape(h, [-1, (IMAGE // 2) * (IMAGE // 2) * FILTERS])
    logits = tf.nn.bias_add(tf.matmul(h, weights), bias)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


def train(tf, steps, learning_rate=0.05, batch_size=32, on_step=None):
    """The loss of each of `steps` SGD steps (batches taken in order, wrapping around)."""
    images, labels = synthetic_data()
    params = [tf.constant(p) for p in initial_params()]
    losses = []
    for step in range(steps):
        at = (step * batch_size) % EXAMPLES
        x = tf.constant(images[at : at + batch_size])
        y = tf.constant(labels[at : at + batch_size])
        with tf.GradientTape() as tape:
            for p in params:
                tape.watch(p)
            loss = loss_fn(tf, params, x, y)
        grads = tape.gradient(loss, params)
        params = [tf.constant(p - learning_rate * g) for p, g in zip(params, grads)]
        losses.append(float(loss))
        if on_step is not None:
            on_step(step, losses[-1])
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    import swigflow as tf

    def report(step, loss):
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {loss:.6f}")

    start = time.perf_counter()
    losses = train(tf, args.steps, on_step=report)
    elapsed = time.perf_counter() - start
    print(f"{args.steps} steps in {elapsed:.2f} s ({1e3 * elapsed / args.steps:.2f} ms a step); "
          f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
