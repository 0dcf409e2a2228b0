"""Gradient checking, like tf.test.compute_gradient / compute_gradient_error."""

import numpy as np

from swigflow.ops import GradientTape


def _jacobians(fn, inputs, delta):
    inputs = [np.ascontiguousarray(x, dtype=np.float32) for x in inputs]
    with GradientTape() as tape:
        for x in inputs:
            tape.watch(x)
        y = fn(*inputs)
    y = np.asarray(y)
    theoretical = [np.zeros((x.size, y.size)) for x in inputs]
    for j in range(y.size):
        seed = np.zeros_like(y)
        seed.reshape(-1)[j] = 1
        for column, g in zip(theoretical, tape.gradient(y, inputs, output_gradients=seed)):
            column[:, j] = np.asarray(g, dtype=np.float64).reshape(-1)
    numerical = []
    for i, x in enumerate(inputs):
        jac = np.zeros((x.size, y.size))
        for k in range(x.size):
            plus, minus = x.copy(), x.copy()
            plus.reshape(-1)[k] += delta
            minus.reshape(-1)[k] -= delta
            args_plus = [*inputs[:i], plus, *inputs[i + 1 :]]
            args_minus = [*inputs[:i], minus, *inputs[i + 1 :]]
            diff = np.asarray(fn(*args_plus), np.float64) - np.asarray(fn(*args_minus), np.float64)
            jac[k] = diff.reshape(-1) / (2 * delta)
        numerical.append(jac)
    return theoretical, numerical


def compute_gradient(fn, inputs, delta=1e-3):
    """(theoretical, numerical): per input, the Jacobian d fn / d input as an array of shape
    [input size, output size], from the registered gradients and from central differences."""
    return _jacobians(fn, list(inputs), delta)


def compute_gradient_error(fn, inputs, delta=1e-3):
    """The largest difference between the theoretical and the numerical Jacobians of fn at
    inputs (float32). fn must compute with swigflow ops only (numpy arithmetic is not taped)."""
    theoretical, numerical = compute_gradient(fn, inputs, delta)
    return max(
        (float(np.max(np.abs(t - n))) if t.size else 0.0 for t, n in zip(theoretical, numerical)),
        default=0.0,
    )


__all__ = ["compute_gradient", "compute_gradient_error"]
