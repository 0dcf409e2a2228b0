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

import threading

import numpy as np

from swigflow import pywrap_swigflow as _pywrap

_GRADIENTS = {}
_LOCAL = threading.local()  # each thread records into its own tapes only


def _tapes():
    if not hasattr(_LOCAL, "tapes"):
        _LOCAL.tapes = []
    return _LOCAL.tapes


_NATIVE_TYPES = (np.float32, np.float64, np.int32, np.int64)


def _as_input(x):
    array = np.asarray(x)
    if array.dtype.type not in _NATIVE_TYPES:
        if array.dtype.kind in "iub":
            array = array.astype(np.int64)
        elif array.dtype.kind == "f":
            array = array.astype(np.float32)
    return np.ascontiguousarray(array)


def run(op_name, inputs, **attrs):
    """Runs registered op `op_name` on numpy `inputs` with attributes `attrs`; returns the list
    of outputs (numpy arrays). Computes in C++ without the GIL.

    Raises:
      NotFoundError: no such op, or no kernel for the inputs' type.
      InvalidArgumentError: wrong number or type of inputs, unknown / missing / bad attributes,
        or inputs the kernel rejects (messages follow TensorFlow's).
    """
    arrays = [_as_input(x) for x in inputs]
    outputs = _pywrap.RunOp(op_name, arrays, attrs)
    tapes = _tapes()
    if tapes:
        op = Operation(op_name, arrays, outputs, attrs)
        for tape in tapes:
            tape._record(op)
    return outputs


def list_ops():
    """Every registered op: ``{"name", "inputs", "outputs", "attrs", "kernels", "doc"}`` with
    attrs as ``{"name", "type", "default", "has_default", "allowed"}``."""
    return sorted(_pywrap.ListOps(), key=lambda op: op["name"])


def _op_def(name):
    for op in _pywrap.ListOps():
        if op["name"] == name:
            return op
    raise LookupError(f"no op named {name!r} is registered")


class Operation:
    """One recorded op call, as gradient functions receive it (like tf.Operation)."""

    def __init__(self, op_type, inputs, outputs, attrs):
        self.type = op_type
        self.inputs = inputs
        self.outputs = outputs
        self._attrs = dict(attrs)

    def get_attr(self, name):
        """The attribute as given, else the op's default."""
        if name in self._attrs:
            return self._attrs[name]
        for attr in _op_def(self.type)["attrs"]:
            if attr["name"] == name and attr["has_default"]:
                return attr["default"]
        raise ValueError(f"{self.type} has no attribute {name!r} set")

    @property
    def attrs(self):
        return dict(self._attrs)

    def __repr__(self):
        return f"<Operation {self.type}>"


class RegisterGradient:
    """Decorator registering the gradient function of an op, as ``tf.RegisterGradient``::

        @swigflow.ops.RegisterGradient("Relu")
        def _relu_grad(op, grad):
            return [swigflow.ops.run("ReluGrad", [grad, op.outputs[0]])[0]]

    The function gets the :class:`Operation` and the gradient of each output (one argument
    per output) and returns one gradient per input (None where there is none).
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError(f"op_type must be a string, got {op_type!r}")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _GRADIENTS:
            raise KeyError(f"a gradient for {self._op_type!r} is already registered")
        _GRADIENTS[self._op_type] = fn
        return fn


def get_gradient(op_type):
    """The gradient function registered for `op_type`. Raises LookupError when there is none."""
    try:
        return _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for operation of type {op_type!r}") from None


class GradientTape:
    """Records the ops run inside it (in this thread) and backpropagates through them with the
    registered gradients.

    Only ops run through swigflow (swigflow.ops.run, swigflow.nn, ...) are seen: numpy
    arithmetic in between is not recorded.
    """

    def __init__(self):
        self._ops = []
        self._watched = []

    def __enter__(self):
        _tapes().append(self)
        return self

    def __exit__(self, *exc_info):
        _tapes().remove(self)

    def watch(self, array):
        self._watched.append(array)

    def _record(self, op):
        self._ops.append(op)

    def gradient(self, target, sources, output_gradients=None):
        """d(sum(target * output_gradients)) / d(source) for each source (zeros where the
        target does not depend on it)."""
        grads = {id(target): np.ones_like(target) if output_gradients is None else output_gradients}
        keep = [target]  # ids are only unique while the arrays live
        for op in reversed(self._ops):
            out_grads = [grads.get(id(o)) for o in op.outputs]
            if all(g is None for g in out_grads):
                continue
            out_grads = [
                np.zeros_like(o) if g is None else g for o, g in zip(op.outputs, out_grads)
            ]
            in_grads = get_gradient(op.type)(op, *out_grads)
            if len(in_grads) != len(op.inputs):
                raise ValueError(
                    f"the gradient of {op.type} returned {len(in_grads)} values for "
                    f"{len(op.inputs)} inputs"
                )
            for x, g in zip(op.inputs, in_grads):
                if g is None:
                    continue
                keep.append(x)
                grads[id(x)] = grads[id(x)] + g if id(x) in grads else np.asarray(g)
        out = []
        for s in sources:
            source = _source_array(self._ops, s)
            g = grads.get(id(source))
            out.append(np.zeros_like(s, dtype=np.result_type(s, np.float32)) if g is None else g)
        return out


def _source_array(ops, source):
    """The array a recorded op received for `source` (inputs are converted before they are run,
    so a watched float64 array reaches the op as a new float32 array)."""
    for op in ops:
        for x in op.inputs:
            if x is source:
                return x
    for op in ops:
        for x in op.inputs:
            if x.base is source or (x.shape == np.shape(source) and np.shares_memory(x, source)):
                return x
    return source


__all__ = ["GradientTape", "Operation", "RegisterGradient", "get_gradient", "list_ops", "run"]
