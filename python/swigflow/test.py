"""Gradient checking, like tf.test.compute_gradient / compute_gradient_error."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from swigflow.ops import GradientTape, UnconnectedGradients


def _as_checked(x):
    """x as the array fn receives: its own layout and floating dtype, ml_dtypes' bfloat16
    included (other types: float32)."""
    x = np.asarray(x)
    return x if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x.astype(np.float32)


def _jacobians(fn, inputs, delta):
    inputs = [_as_checked(x) for x in inputs]
    with GradientTape(persistent=True) as tape:  # one gradient per output element
        for x in inputs:
            tape.watch(x)
        y = fn(*inputs)
    theoretical = [np.zeros((x.size, np.size(y))) for x in inputs]
    for j in range(np.size(y)):
        seed = np.zeros(np.shape(y), np.asarray(y).dtype)
        seed[np.unravel_index(j, seed.shape)] = 1
        # An input y does not depend on has a zero Jacobian, as TF's gradient checker says.
        grads = tape.gradient(
            y, inputs, output_gradients=seed, unconnected_gradients=UnconnectedGradients.ZERO
        )
        for column, g in zip(theoretical, grads):
            column[:, j] = np.asarray(g, dtype=np.float64).reshape(-1)
    numerical = []
    for i, x in enumerate(inputs):
        jac = np.zeros((x.size, np.size(y)))
        for k in range(x.size):
            where = np.unravel_index(k, x.shape)
            plus, minus = x.copy(order="K"), x.copy(order="K")  # the same layout as x
            plus[where] += delta
            minus[where] -= delta
            args_plus = [*inputs[:i], plus, *inputs[i + 1 :]]
            args_minus = [*inputs[:i], minus, *inputs[i + 1 :]]
            diff = np.asarray(fn(*args_plus), np.float64) - np.asarray(fn(*args_minus), np.float64)
            # The step actually taken in x's dtype; where delta is below its precision (a
            # bfloat16 of 48 plus 1e-3 is 48) there is none, and that row is NaN.
            step = np.float64(plus[where]) - np.float64(minus[where])
            jac[k] = diff.reshape(-1) / step if step else np.nan
        numerical.append(jac)
    return theoretical, numerical


def compute_gradient(
    fn: Callable[..., Any], inputs: Sequence[Any], delta: float = 1e-3
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(theoretical, numerical): per input, the Jacobian d fn / d input as an array of shape
    [input size, output size], from the registered gradients and from central differences.
    Inputs keep their floating dtype (bfloat16 included); a numerical row is NaN where `delta`
    is below that dtype's precision at the input's value (no step could be taken).

    Args:
        fn: a function of the inputs computed with swigflow ops.
        inputs: a list of arrays.
        delta: the central differences' step.

    Returns:
        (theoretical, numerical): two lists of Jacobians, one per input.
    """
    return _jacobians(fn, list(inputs), delta)


def compute_gradient_error(
    fn: Callable[..., Any], inputs: Sequence[Any], delta: float = 1e-3
) -> float:
    """The largest difference between the theoretical and the numerical Jacobians of fn at
    inputs, which keep their layout (Fortran order, transposed or strided views) and floating
    dtype; other inputs become float32. fn must compute with swigflow ops only (numpy
    arithmetic is not taped).

    Args:
        fn: a function of the inputs computed with swigflow ops.
        inputs: a list of arrays.
        delta: the central differences' step.

    Returns:
        The largest absolute difference, a float.
    """
    theoretical, numerical = compute_gradient(fn, inputs, delta)
    return max(
        (float(np.max(np.abs(t - n))) if t.size else 0.0 for t, n in zip(theoretical, numerical)),
        default=0.0,
    )


__all__ = ["compute_gradient", "compute_gradient_error"]
