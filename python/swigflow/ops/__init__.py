"""Registered ops, run by name, and their gradients.

Every op registered in C++ (REGISTER_OP / REGISTER_KERNEL, see native/framework/op.h) can be
run with :func:`run`; :func:`list_ops` describes them, like TensorFlow's ops.pbtxt.
Gradients are registered per op name with :class:`RegisterGradient`, as in TensorFlow, and used
by :class:`GradientTape`::

    with swigflow.ops.GradientTape() as tape:
        tape.watch(x)
        y = swigflow.nn.relu(swigflow.nn.conv2d(x, w, 1, "SAME"))
    dx, = tape.gradient(y, [x])
"""

from __future__ import annotations

from typing import Any

from swigflow.ops.registry import (
    NotDifferentiable,
    Operation,
    RegisterGradient,
    custom_gradient,
    get_gradient,
    is_recording,
    list_ops,
    record_operation,
    run,
)

# The tape (swigflow.ops.tape) sits above swigflow.math, which runs and registers through the
# registry: it is imported when first used, so that importing the registry (as math and the
# generated op modules do) never needs math.
_TAPE_NAMES = frozenset({"GradientTape", "UnconnectedGradients"})


def __getattr__(name: str) -> Any:
    if name in _TAPE_NAMES:
        from swigflow.ops import tape

        value = globals()[name] = getattr(tape, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "GradientTape",
    "NotDifferentiable",
    "Operation",
    "RegisterGradient",
    "UnconnectedGradients",
    "custom_gradient",
    "get_gradient",
    "is_recording",
    "list_ops",
    "record_operation",
    "run",
]
