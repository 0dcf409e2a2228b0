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

import contextlib
import enum
import functools
import threading

import numpy as np

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap

_GRADIENTS = {}
_LOCAL = threading.local()  # each thread records into its own tapes only


def _tapes():
    if not hasattr(_LOCAL, "tapes"):
        _LOCAL.tapes = []
    return _LOCAL.tapes


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


def run(op_name, inputs, **attrs):
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
    tapes = getattr(_LOCAL, "tapes", None)
    if tapes:
        op = Operation(op_name, arrays, outputs, attrs, sources)
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

    def __init__(self, op_type, inputs, outputs, attrs, sources=None):
        self.type = op_type
        self.inputs = inputs  # the arrays the kernel ran on
        self.outputs = outputs
        self._attrs = dict(attrs)
        # The objects the caller passed: gradients are credited to these, by identity.
        self.sources = list(inputs) if sources is None else list(sources)
        self._grad_fn = None  # set by custom_gradient
        # While a gradient function runs: the inputs whose gradient no source needs.
        self.skip_input_indices = ()

    def get_attr(self, name):
        """The attribute as given, else the op's default."""
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


def NotDifferentiable(op_type):  # noqa: N802 (TensorFlow's name)
    """Registers `op_type` as having no gradient (as ``tf.no_gradient``): tapes pass no
    gradient through it."""
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


def get_gradient(op_type):
    """The gradient function registered for `op_type`. Raises LookupError when there is none."""
    try:
        return _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for operation of type {op_type!r}") from None


class UnconnectedGradients(enum.Enum):
    """What :meth:`GradientTape.gradient` gives a source the target does not depend on, as
    ``tf.UnconnectedGradients``: None (the default), or zeros of the source's shape."""

    NONE = "none"
    ZERO = "zero"


def record_operation(op_type, inputs, outputs, attrs=None, grad_fn=None):
    """Records an op computed outside the registry (in numpy, say) on every tape recording in
    this thread, as TensorFlow's ``tape.record_operation``: tapes differentiate it with the
    gradient registered for `op_type` (see :class:`RegisterGradient`), or with `grad_fn`
    (called with one gradient per output) when given. `inputs` are the objects the caller
    passed: gradients are credited to them by identity, and `outputs` are the objects
    returned. Attributes the gradient reads go in `attrs`."""
    tapes = getattr(_LOCAL, "tapes", None)
    if tapes:
        op = Operation(op_type, [np.asarray(x) for x in inputs], list(outputs), attrs or {},
                       list(inputs))  # fmt: skip
        op._grad_fn = grad_fn
        for tape in tapes:
            tape._record(op)


def is_recording():
    """Whether some GradientTape records the ops this thread runs now."""
    return bool(getattr(_LOCAL, "tapes", None))


def _leaves(structure):
    """The leaves of a nest of lists, tuples and dicts (in order), and a function rebuilding the
    structure from new leaves."""
    if isinstance(structure, dict):
        keys = list(structure)
        parts = [_leaves(structure[k]) for k in keys]
    elif isinstance(structure, (list, tuple)):
        keys = None
        parts = [_leaves(s) for s in structure]
    else:
        return [structure], lambda leaves: leaves[0]
    flat = [leaf for leaves, _ in parts for leaf in leaves]

    def rebuild(leaves):
        items, at = [], 0
        for sub, (part_leaves, part_rebuild) in zip(range(len(parts)), parts):
            del sub
            items.append(part_rebuild(leaves[at : at + len(part_leaves)]))
            at += len(part_leaves)
        if keys is not None:
            return dict(zip(keys, items))
        if hasattr(structure, "_fields"):  # a namedtuple
            return type(structure)(*items)
        return type(structure)(items)

    return flat, rebuild


class GradientTape:
    """Records the ops run inside it (in this thread) and backpropagates through them with the
    registered gradients, as ``tf.GradientTape``.

    Any array passed to an op can be a source: C- or Fortran-ordered, transposed, strided,
    float16/float32/float64, 0-d. Arrays play the part of TensorFlow's variables: every array an
    op receives is watched (``watch_accessed_variables=False``: only those given to
    :meth:`watch`, and what is computed from them). Inputs are tracked by identity, so pass the
    same object to the op and to :meth:`gradient`. Only ops run through swigflow
    (swigflow.math, swigflow.nn, swigflow.ops.run, ...) are recorded: numpy arithmetic in
    between is not, and a numpy view of a source or of an op's output (``x.T``, ``x[1:]``) is a
    new array the tape cannot connect. :meth:`gradient` raises rather than return a silent zero
    for such a view.

    Gradients are computed with recorded ops too, so a tape around the :meth:`gradient` call
    (or a persistent tape, inside its own context) differentiates them again: higher-order
    gradients as TensorFlow has them. A tape that is not persistent computes one set of
    gradients.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_all = bool(watch_accessed_variables)
        self._ops = []
        self._watched = []
        self._stack = None  # the thread's tape list while recording
        self._used = False

    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc_info):
        if self._stack is not None:
            self._pop()

    def _push(self):
        if self._stack is not None:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape."
            )
        if self._used and not self._persistent:
            self._ops, self._watched, self._used = [], [], False  # a new tape, as in TF
        self._stack = _tapes()
        self._stack.append(self)

    def _pop(self):
        if self._stack is None:
            raise ValueError("Tape is not recording.")
        self._stack.remove(self)
        self._stack = None

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this context are not recorded on this tape."""
        if self._stack is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forgets everything recorded and watched, as if the context were entered anew."""
        self._pop()
        self._ops, self._watched = [], []
        self._push()

    def watch(self, tensor):
        """Marks `tensor` (an array, or a list, tuple or dict of them) as a source."""
        self._watched.extend(_leaves(tensor)[0])

    def watched_variables(self):
        """The arrays given to :meth:`watch`, in order."""
        return tuple(self._watched)

    def _record(self, op):
        self._ops.append(op)

    def gradient(
        self,
        target,
        sources,
        output_gradients=None,
        unconnected_gradients=UnconnectedGradients.NONE,
    ):
        """d(sum(target * output_gradients)) / d(source) for each source, with each source's
        shape and floating dtype. `target` may be a list or nest of targets (their gradients
        add up, output_gradients then has one entry per target). A source the target does not
        depend on through recorded ops (a target computed by numpy from an op's output
        included) gets None, as in TensorFlow, or zeros with
        ``unconnected_gradients=UnconnectedGradients.ZERO`` (or ``"zero"``).

        `sources` is one array (one gradient is returned) or a list, tuple, dict or nest of
        them (the same structure is returned). A gradient is an array the ops computed (the
        recorded output itself), so a tape around this call can differentiate it.

        Raises:
          RuntimeError: a tape that is not persistent was used before.
          TypeError: the target is None.
          InvalidArgumentError: a gradient reached an array that is a numpy view of a source
            (or of something computed from one) rather than the object itself, so the source's
            gradient would be silently incomplete.
        """
        unconnected = UnconnectedGradients(unconnected_gradients)  # ValueError if unknown
        self._start_gradient()
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, Variables "
                "or CompositeTensors to be differentiated, but received None."
            )
        targets = _leaves(target)[0]
        if output_gradients is None:
            seeds = [None] * len(targets)
        elif isinstance(target, (list, tuple, dict)):
            seeds = _leaves(output_gradients)[0]  # one per target, in the same nest
        else:
            seeds = [output_gradients]
        if len(seeds) != len(targets):
            raise ValueError(
                f"output_gradients has {len(seeds)} entries for {len(targets)} targets"
            )
        flat, rebuild = _leaves(sources)
        return rebuild(self._gradients(targets, seeds, flat, unconnected))

    def jacobian(
        self,
        target,
        sources,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """The Jacobian of `target` with respect to each source, shaped target.shape +
        source.shape, as ``tf.GradientTape.jacobian`` (one backward pass per target element;
        the result is not itself recorded)."""
        del parallel_iterations, experimental_use_pfor
        unconnected = UnconnectedGradients(unconnected_gradients)
        self._start_gradient()
        flat, rebuild = _leaves(sources)
        target_array = np.asarray(target)
        rows = []
        for j in range(target_array.size):
            seed = np.zeros(target_array.shape, target_array.dtype)
            seed.flat[j] = 1
            rows.append(self._gradients([target], [seed], flat, unconnected, final=False))
        self._finish_gradient()
        result = []
        for i, source in enumerate(flat):
            shape = (*target_array.shape, *np.shape(source))
            if any(row[i] is None for row in rows):
                result.append(None)
                continue
            result.append(np.stack([row[i] for row in rows]).reshape(shape))
        return rebuild(result)

    def _start_gradient(self):
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians)"
            )
        if self._stack is not None and not self._persistent:
            self._pop()  # its own gradient ops are not recorded on it (TF does the same)

    def _finish_gradient(self):
        if not self._persistent:
            self._used = True

    def _gradients(self, targets, seeds, sources, unconnected, final=True):
        try:
            for t in targets:
                self._check_target(t)
            grads = self._backprop(targets, seeds, sources)
            self._check_views(grads, sources)
        finally:
            if final:
                self._finish_gradient()
        known = None
        if not self._watch_all:
            known = {id(x) for x in self._watched}
            known.update(id(o) for op in self._ops for o in op.outputs)
        result = []
        for s in sources:
            connected = id(s) in grads and (known is None or id(s) in known)
            if not connected and unconnected is UnconnectedGradients.NONE:
                result.append(None)
            else:
                result.append(_gradient_for(s, grads[id(s)] if connected else None))
        if final and not self._persistent:
            self._ops = []  # TF frees a used tape too
        return result

    def _backprop(self, targets, seeds, sources):
        """{id(object): gradient} for every object the ops received or returned on the way to
        `sources`. The arrays stay referenced by the recorded ops, so their ids are unique
        meanwhile. Gradients add up with recorded ops, so an enclosing tape sees how each was
        computed. An op input that no source reaches is passed to the gradient function in
        ``op.skip_input_indices`` (TensorFlow's name), so it can leave that gradient out (a
        first layer's input gradient); numpy views are never skipped, so _check_views sees
        them."""
        reached = {id(s) for s in sources}
        ops = list(self._ops)  # a persistent tape may record while this runs
        for op in ops:
            if any(id(x) in reached for x in op.sources):
                reached.update(id(o) for o in op.outputs)
        grads = {}
        for target, seed in zip(targets, seeds):
            seed = np.ones_like(target) if seed is None else seed
            _accumulate(grads, target, seed)
        for op in reversed(ops):
            out_grads = [grads.get(id(o)) for o in op.outputs]
            if all(g is None for g in out_grads):
                continue
            skip = tuple(
                i
                for i, x in enumerate(op.sources)
                if id(x) not in reached and not (isinstance(x, np.ndarray) and x.base is not None)
            )
            if len(skip) == len(op.sources):
                continue  # no source lies behind this op
            out_grads = [
                np.zeros_like(o) if g is None else g for o, g in zip(op.outputs, out_grads)
            ]
            if op._grad_fn is not None:
                in_grads = op._grad_fn(*out_grads)
                if len(op.inputs) == 1 and not isinstance(in_grads, (list, tuple)):
                    in_grads = [in_grads]
            else:
                op.skip_input_indices = skip
                try:
                    in_grads = get_gradient(op.type)(op, *out_grads)
                finally:
                    op.skip_input_indices = ()
            if len(in_grads) != len(op.inputs):
                raise ValueError(
                    f"the gradient of {op.type} returned {len(in_grads)} values for "
                    f"{len(op.inputs)} inputs"
                )
            for source, g in zip(op.sources, in_grads):
                if g is not None:
                    _accumulate(grads, source, g)
        return grads

    def _check_target(self, target):
        """Raises when the target is a numpy view of a recorded op's output: its gradient
        would never reach that op."""
        if not isinstance(target, np.ndarray) or target.base is None:
            return  # owns its memory: not a view of anything
        for op in self._ops:
            if any(o is target for o in op.outputs):
                return
        for op in self._ops:
            for o in op.outputs:
                if np.may_share_memory(target, o) and np.shares_memory(target, o):
                    raise errors.InvalidArgumentError(
                        f"the target is a numpy view of the output of {op.type} (shape "
                        f"{o.shape}), not the output itself: the tape cannot connect them. "
                        "Take the gradient of the op's output."
                    )

    def _check_views(self, grads, sources):
        """Raises when a gradient stopped at a numpy view: an op input that no recorded op
        produced, that is not a source, yet shares memory with a source or with an output
        computed from one."""
        requested = {id(s) for s in sources}
        derived = [s for s in sources if isinstance(s, np.ndarray)]  # sources and what follows
        reached = set(requested)
        produced = set()
        for op in self._ops:
            if any(id(x) in reached for x in op.sources):
                for o in op.outputs:
                    reached.add(id(o))
                    derived.append(o)
            produced.update(id(o) for o in op.outputs)
        for op in self._ops:
            for x in op.sources:
                if id(x) in requested or id(x) in produced or id(x) not in grads:
                    continue
                if not isinstance(x, np.ndarray) or x.base is None:
                    continue  # owns its memory: not a view of anything
                for d in derived:
                    if d is not x and np.may_share_memory(x, d) and np.shares_memory(x, d):
                        raise errors.InvalidArgumentError(
                            f"{op.type} received a numpy view (shape {x.shape}) of a gradient "
                            f"source or of an op output computed from one (shape {d.shape}): "
                            "the tape records swigflow ops only, so that source's gradient "
                            "would be incomplete. Pass the array itself, or make the view "
                            "with swigflow ops."
                        )


def custom_gradient(f):
    """Decorator defining a function's gradient, as ``tf.custom_gradient``::

        @swigflow.ops.custom_gradient
        def log1pexp(x):
            e = np.exp(x)
            return np.log1p(e), lambda dy: dy * (1 - 1 / (1 + e))

    `f(*inputs)` returns ``(outputs, grad_fn)``; ``grad_fn(*output_gradients)`` returns one
    gradient per input (or the gradient itself for one input). Inside `f` nothing is recorded:
    on a tape, the call is one operation whose inputs are the arguments, as they were passed.
    """

    @functools.wraps(f)
    def wrapped(*args):
        tapes = _tapes()
        recording = list(tapes)
        tapes.clear()
        try:
            result, grad_fn = f(*args)
        finally:
            tapes.extend(recording)
        if tapes:
            outputs = list(result) if isinstance(result, (list, tuple)) else [result]
            op = Operation(f.__name__, [np.asarray(a) for a in args], outputs, {}, args)
            op._grad_fn = grad_fn
            for tape in tapes:
                tape._record(op)
        return result

    return wrapped


def _accumulate(grads, key_object, g):
    """Adds gradient g into grads[id(key_object)], with a recorded op when some tape records
    (an enclosing tape then sees the sum)."""
    key = id(key_object)
    if key not in grads:
        grads[key] = g if isinstance(g, np.ndarray) else np.asarray(g)
        return
    from swigflow import math  # swigflow.math registers its gradients with this module

    total = grads[key]
    dtype = np.result_type(total, g)
    grads[key] = math.add_n([math.cast(total, dtype), math.cast(g, dtype)])


def _floating(dtype):
    """Whether a gradient comes back in this dtype: numpy's floats and ml_dtypes' bfloat16."""
    return dtype.kind == "f" or dtype.name == "bfloat16"


def _gradient_for(source, grad):
    """The gradient of `source`, with its shape, in its dtype when floating: the computed array
    itself when it has both, else recorded reshape/cast ops of it (never an untracked view)."""
    array = np.asarray(source)
    if grad is None:
        dtype = array.dtype if _floating(array.dtype) else np.result_type(array, np.float32)
        return np.zeros(array.shape, dtype=dtype)
    grad = grad if isinstance(grad, np.ndarray) else np.asarray(grad)
    if (not _floating(array.dtype) or grad.dtype == array.dtype) and grad.shape == array.shape:
        return grad
    from swigflow import math

    if _floating(array.dtype):
        grad = math.cast(grad, array.dtype)
    return math.reshape(grad, array.shape) if grad.shape != array.shape else grad


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
