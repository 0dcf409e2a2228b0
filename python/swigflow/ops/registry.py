"""The op registry and what records op calls: :func:`run` and :func:`list_ops` over the ops
registered in C++, the gradient functions registered per op name (:class:`RegisterGradient`),
and the per-thread stack of recordings that :func:`run`, :func:`record_operation` and
:func:`custom_gradient` add to. Below swigflow.math, whose ops register their gradients here;
the tape that differentiates recordings (swigflow.ops.tape) sits above both."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap

_GRADIENTS = {}
_LOCAL = threading.local()  # each thread records into its own tapes only


class Recording:
    """The ops one tape records, in the order they ran: what a GradientTape pushes on its
    thread's stack (push_recording) while it records."""

    def __init__(self) -> None:
        self.ops: Any = []


def push_recording(recording: Recording) -> list[Recording]:
    """Makes `recording` receive the ops this thread runs; returns the thread's stack, from which
    the caller removes it when it stops."""
    if not hasattr(_LOCAL, "recordings"):
        _LOCAL.recordings = []
    _LOCAL.recordings.append(recording)
    return _LOCAL.recordings


def _record(op):
    for recording in _LOCAL.recordings:
        recording.ops.append(op)


_NATIVE_TYPES = (np.float32, np.float64, np.int32, np.int64)
# Narrow integers reach the ops that take them (uint8 as quint8, ...) as they are.
_NARROW_TYPES = (np.uint8, np.int8, np.int16, np.uint16)
_NARROW_NAMES = {"uint8", "int8", "int16", "uint16", "quint8", "qint8", "qint16", "quint16"}
_TAKES_NARROW = {}  # op name -> whether some input may be a narrow integer
# The dtypes (native byte order) an input keeps as it is: run's quick path.
_READY = frozenset(np.dtype(t) for t in _NATIVE_TYPES)
_READY_NARROW = _READY | frozenset(np.dtype(t) for t in _NARROW_TYPES)
# numpy's own scalar types: an input of another type may be ml_dtypes' bfloat16, whose dtype
# name run() then reads (dtype.name costs about 1.5 us an array: 15 us of a 10-input op).
_NUMPY_TYPES = frozenset(
    {np.bool_, np.float16, np.complex64, np.complex128, np.uint32, np.uint64}
).union(_NATIVE_TYPES, _NARROW_TYPES)


def _takes_narrow(op_name):
    if op_name not in _TAKES_NARROW:
        try:
            op = _op_def(op_name)
        except LookupError:
            return False  # not registered (yet): RunOp reports it
        allowed = {a["name"]: set(a["allowed"]) for a in op["attrs"]}
        _TAKES_NARROW[op_name] = any(
            arg["type"] in _NARROW_NAMES or allowed.get(arg["type"], set()) & _NARROW_NAMES
            for arg in op["inputs"]
        )
    return _TAKES_NARROW[op_name]


def _as_input(x, narrow=False):
    """The array an op receives for `x`: a native dtype (other floats become float32, other
    integers and bools int64; uint8, int8, int16 and uint16 stay when `narrow`), native byte
    order, C order, aligned. Scalars stay 0-d. Returns x itself when it already qualifies."""
    array = np.asarray(x)
    native = _NATIVE_TYPES + _NARROW_TYPES if narrow else _NATIVE_TYPES
    if array.dtype.type not in native:
        if array.dtype.kind in "iub":
            array = array.astype(np.int64)
        elif array.dtype.kind == "f":
            array = array.astype(np.float32)
    elif not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not (array.flags.c_contiguous and array.flags.aligned):
        array = np.array(array, order="C")  # unlike ascontiguousarray, keeps 0-d as 0-d
    return array


def run(op_name: str, inputs: Any, **attrs: Any) -> list[np.ndarray]:
    """Runs registered op `op_name` on numpy `inputs` with attributes `attrs`; returns the list
    of outputs (numpy arrays). Computes in C++ without the GIL.

    Inputs may have any layout and byte order; each is converted once (to C order, and to a
    dtype with a kernel: float16, and ml_dtypes' bfloat16 (TensorFlow's numpy type for it),
    compute in float32 and their outputs come back in their type).
    numpy has no quantized types: quint8, qint8, quint16, qint16 and qint32 tensors are uint8,
    int8, uint16, int16 and int32 arrays, in and out (the op's type attributes say which).
    0-d inputs stay 0-d. A GradientTape tracks every input by identity through that
    conversion: the gradient of an input is returned for the object passed in.

    Raises:
      NotFoundError: no such op, or no kernel for the inputs' type.
      InvalidArgumentError: wrong number or type of inputs, unknown / missing / bad attributes,
        or inputs the kernel rejects (messages follow TensorFlow's).

    Args:
        op_name: a registered op's name (e.g. "Conv2D").
        inputs: a list of arrays or Python values.
        **attrs: the op's attributes.

    Returns:
        A list of numpy arrays.

    Raises:
        NotFoundError: no such op, or no kernel for the inputs' dtypes.
        TypeError: an input of a dtype no kernel takes (strings, say).
        InvalidArgumentError: inputs or attributes the op refuses.
    """
    sources = list(inputs)
    given = [x if type(x) is np.ndarray else np.asarray(x) for x in sources]
    kinds = {x.dtype.type for x in given}
    bfloat16 = None
    if not kinds <= _NUMPY_TYPES:
        bfloat16 = next((x.dtype for x in given if x.dtype.name == "bfloat16"), None)
    if bfloat16 is not None:  # ml_dtypes' bfloat16: computed in float32, as float16 is
        given = [x.astype(np.float32) if x.dtype == bfloat16 else x for x in given]
    narrow = not kinds.isdisjoint(_NARROW_TYPES) and _takes_narrow(op_name)
    ready = _READY_NARROW if narrow else _READY
    # Arrays that already qualify go as they are; flags.carray (C order, aligned, writeable) is
    # the one quick test, and _as_input settles every other case.
    arrays = [x if x.dtype in ready and x.flags.carray else _as_input(x, narrow) for x in given]
    outputs = _pywrap.RunOp(op_name, arrays, attrs)
    if np.float16 in kinds:
        outputs = [o.astype(np.float16) if o.dtype == np.float32 else o for o in outputs]
    elif bfloat16 is not None:
        outputs = [o.astype(bfloat16) if o.dtype == np.float32 else o for o in outputs]
    if getattr(_LOCAL, "recordings", None):
        _record(Operation(op_name, arrays, outputs, attrs, sources))
    return outputs


def list_ops() -> list[dict[str, Any]]:
    """Every registered op: ``{"name", "inputs", "outputs", "attrs", "kernels", "doc"}`` with
    attrs as ``{"name", "type", "default", "has_default", "allowed"}``."""
    return sorted(_pywrap.ListOps(), key=lambda op: op["name"])


def _op_def(name):
    for op in _pywrap.ListOps():
        if op["name"] == name:
            return op
    raise LookupError(f"no op named {name!r} is registered")


class Operation:
    """One recorded op call, as gradient functions receive it (like tf.Operation).

    Args:
        op_type: the op's name.
        inputs: the inputs as passed.
        outputs: the outputs.
        attrs: the attributes given.
        sources: the objects gradients are credited to, one per input; None: the inputs.
    """

    def __init__(
        self, op_type: str, inputs: Any, outputs: Any, attrs: Any, sources: Any = None
    ) -> None:
        self.type: Any = op_type
        self.inputs: Any = inputs  # the arrays the kernel ran on
        self.outputs: Any = outputs
        self._attrs = dict(attrs)
        # The objects the caller passed: gradients are credited to these, by identity.
        self.sources: Any = list(inputs) if sources is None else list(sources)
        self._grad_fn = None  # set by custom_gradient and record_operation
        self._listed_grads = False  # _grad_fn returns a list (record_operation's), checked
        # While a gradient function runs: the inputs whose gradient no source needs.
        self.skip_input_indices: Any = ()

    def get_attr(self, name: str) -> Any:
        """The attribute as given, else the op's default.

        Args:
            name: the attribute's name.

        Returns:
            Its value.

        Raises:
            ValueError: the op has no such attribute.
        """
        if name in self._attrs:
            return self._attrs[name]
        try:
            op_def = _op_def(self.type)
        except LookupError:  # an op recorded by record_operation: its attrs are all given
            op_def = {"attrs": []}
        for attr in op_def["attrs"]:
            if attr["name"] == name and attr["has_default"]:
                return attr["default"]
        raise ValueError(f"{self.type} has no attribute {name!r} set")

    @property
    def attrs(self) -> dict[str, Any]:
        return dict(self._attrs)

    def __repr__(self) -> str:
        return f"<Operation {self.type}>"


class RegisterGradient:
    """Decorator registering the gradient function of an op, as ``tf.RegisterGradient``::

        @swigflow.ops.RegisterGradient("Relu")
        def _relu_grad(op, grad):
            return [swigflow.ops.run("ReluGrad", [grad, op.outputs[0]])[0]]

    The function gets the :class:`Operation` and the gradient of each output (one argument
    per output) and returns one gradient per input (None where there is none).

    Args:
        op_type: the op's name.

    Raises:
        TypeError: op_type is not a str.
    """

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError(f"op_type must be a string, got {op_type!r}")
        self._op_type = op_type

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Registers `fn` as the gradient of the op.

        Args:
            fn: a function (op, *output_gradients) -> list of input gradients.

        Returns:
            `fn`.

        Raises:
            KeyError: the op has a gradient already.
        """
        if self._op_type in _GRADIENTS:
            raise KeyError(f"a gradient for {self._op_type!r} is already registered")
        _GRADIENTS[self._op_type] = fn
        return fn


def NotDifferentiable(op_type: str) -> None:  # noqa: N802 (TensorFlow's name)
    """Registers `op_type` as having no gradient (as ``tf.no_gradient``): tapes pass no
    gradient through it.

    Args:
        op_type: the op's name.
    """
    RegisterGradient(op_type)(lambda op, *grads: [None] * len(op.inputs))


# Quantized values are integers: there is nothing to differentiate (TensorFlow registers these
# ops as not differentiable too; the Swigflow* ones are swigflow's forms of them).
for _op in (
    "QuantizeV2",
    "Dequantize",
    "Requantize",
    "RequantizationRange",
    "QuantizedMatMul",
    "QuantizedConv2D",
    "QuantizedMatMulWithBiasAndReluAndRequantize",
    "QuantizedConv2DWithBiasAndReluAndRequantize",
    "SwigflowInt8PackWeights",
    "SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize",
    "SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize",
):
    NotDifferentiable(_op)


def get_gradient(op_type: str) -> Callable[..., Any]:
    """The gradient function registered for `op_type`. Raises LookupError when there is none.

    Args:
        op_type: the op's name.

    Returns:
        The gradient function.

    Raises:
        LookupError: none is registered.
    """
    try:
        return _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for operation of type {op_type!r}") from None


def record_operation(
    op_type: str,
    output_tensors: Any,
    input_tensors: Any,
    backward_function: Callable[..., Any] | None = None,
    forward_function: Callable[..., Any] | None = None,
    attrs: Any = None,
) -> None:
    """Records an op computed outside the registry (in numpy, say) on every tape recording in
    this thread, as TensorFlow's ``record_operation``: tapes differentiate it with
    `backward_function` (called with one gradient per output, it returns a list of one gradient
    per input, None where there is none), or else with the gradient registered for `op_type`
    (see :class:`RegisterGradient`), which reads the op's `attrs`. `input_tensors` are the
    objects the caller passed: gradients are credited to them by identity; `output_tensors` are
    the objects returned. `forward_function` (TensorFlow's forward-mode hook) is not used.

    A backward_function whose list has another length than the inputs is InternalError when
    the tape calls it, as in TensorFlow.

    Args:
        op_type: the op's name (its registered gradient is used without backward_function).
        output_tensors: the outputs, as returned.
        input_tensors: the inputs, as passed.
        backward_function: a function of the output gradients returning the input gradients.
        forward_function: not used.
        attrs: the op's attributes, for a registered gradient.
    """
    del forward_function
    if getattr(_LOCAL, "recordings", None):
        inputs = list(input_tensors)
        op = Operation(op_type, [np.asarray(x) for x in inputs], list(output_tensors),
                       attrs or {}, inputs)  # fmt: skip
        op._grad_fn = backward_function
        op._listed_grads = True
        _record(op)


def is_recording() -> bool:
    """Whether some GradientTape records the ops this thread runs now."""
    return bool(getattr(_LOCAL, "recordings", None))


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator defining a function's gradient, as ``tf.custom_gradient``::

        @swigflow.ops.custom_gradient
        def log1pexp(x):
            e = np.exp(x)
            return np.log1p(e), lambda dy: dy * (1 - 1 / (1 + e))

    `f(*inputs)` returns ``(outputs, grad_fn)``; ``grad_fn(*output_gradients)`` returns one
    gradient per input (or the gradient itself for one input). Inside `f` nothing is recorded:
    on a tape, the call is one operation whose inputs are the arguments, as they were passed.

    Args:
        f: a function returning (outputs, grad_fn).

    Returns:
        The decorated function.
    """

    @functools.wraps(f)
    def wrapped(*args):
        recordings = getattr(_LOCAL, "recordings", [])
        paused = list(recordings)
        recordings.clear()
        try:
            result, grad_fn = f(*args)
        finally:
            recordings.extend(paused)
        if recordings:
            # An output that is an argument itself becomes a copy, as TF's identity: the tape
            # then reaches the argument through grad_fn only, not also directly.
            given = {id(a) for a in args}
            several = isinstance(result, (list, tuple))
            outputs = list(result) if several else [result]
            outputs = [np.array(o) if id(o) in given else o for o in outputs]
            if not several:
                result = outputs[0]
            elif any(o is not r for o, r in zip(outputs, result)):
                result = type(result)(outputs)
            op = Operation(f.__name__, [np.asarray(a) for a in args], outputs, {}, args)
            op._grad_fn = grad_fn
            _record(op)
        return result

    return wrapped


def input_gradients(op: Operation, output_gradients: Any, skip: Any = ()) -> list[Any]:
    """The gradient of each of `op`'s inputs (None where there is none) given one gradient per
    output: its custom gradient function when it has one (record_operation's grad_fn,
    custom_gradient), else the registered one, which sees the inputs no source needs in
    ``op.skip_input_indices`` (TensorFlow's name) while it runs."""
    if op._grad_fn is not None:
        grads = op._grad_fn(*output_gradients)
        if op._listed_grads:
            if not isinstance(grads, (list, tuple)):
                raise TypeError("expected a sequence of gradients")
            if len(grads) != len(op.inputs):
                # TensorFlow's words, "too few" for too many as well.
                raise errors.InternalError(
                    f"Recorded operation '{op.type}' returned too few gradients. Expected "
                    f"{len(op.inputs)} but received {len(grads)}"
                )
        elif len(op.inputs) == 1 and not isinstance(grads, (list, tuple)):
            grads = [grads]
    else:
        op.skip_input_indices = tuple(skip)
        try:
            grads = get_gradient(op.type)(op, *output_gradients)
        finally:
            op.skip_input_indices = ()
    if len(grads) != len(op.inputs):
        raise ValueError(
            f"the gradient of {op.type} returned {len(grads)} values for {len(op.inputs)} inputs"
        )
    return grads
