"""GradientTape: backpropagation through the ops a thread recorded (swigflow.ops.registry),
with the registered gradients, as TensorFlow's backprop.py. It sits above swigflow.math: the
gradients it adds up, casts and reshapes are math's recorded ops, so a tape around a gradient
computation differentiates it again."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

import numpy as np

from swigflow import errors, math, tensors
from swigflow.ops import registry


def _unconnected(value):
    """UnconnectedGradients(value), with TensorFlow's message for an unknown one."""
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


class UnconnectedGradients(enum.Enum):
    """What :meth:`GradientTape.gradient` gives a source the target does not depend on, as
    ``tf.UnconnectedGradients``: None (the default), or zeros of the source's shape."""

    NONE = "none"
    ZERO = "zero"


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

    Args:
        persistent: allow more than one gradient() or jacobian() call.
        watch_accessed_variables: watch every array an op receives; False: only watch()ed
            ones.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_all = bool(watch_accessed_variables)
        self._recording = registry.Recording()
        self._watched = []
        self._stack = None  # the thread's tape list while recording
        self._used = False

    @property
    def _ops(self):
        """The ops recorded so far, in order."""
        return self._recording.ops

    def __enter__(self) -> GradientTape:
        self._push()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._stack is not None:
            self._pop()

    def _push(self):
        if self._stack is not None:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape."
            )
        if self._used and not self._persistent:
            self._recording.ops, self._watched, self._used = [], [], False  # a new tape, as TF
        self._stack = registry.push_recording(self._recording)

    def _pop(self):
        if self._stack is None:
            raise ValueError("Tape is not recording.")
        self._stack.remove(self._recording)
        self._stack = None

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside this context are not recorded on this tape."""
        if self._stack is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forgets everything recorded and watched, as if the context were entered anew."""
        self._pop()
        self._recording.ops, self._watched = [], []
        self._push()

    def watch(self, tensor: Any) -> None:
        """Marks `tensor` (an array, or a list, tuple or dict of them) as a source.

        Args:
            tensor: an array, or a list, tuple or dict of them.
        """
        self._watched.extend(_leaves(tensor)[0])

    def watched_variables(self) -> tuple[Any, ...]:
        """The arrays watched, in order: those given to :meth:`watch`, then (unless
        ``watch_accessed_variables=False``) every other array a recorded op received that no
        recorded op produced (arrays play TensorFlow's variables)."""
        watched = list(self._watched)
        if self._watch_all:
            seen = {id(x) for x in watched}
            seen.update(id(o) for op in self._ops for o in op.outputs)
            for op in self._ops:
                for x in op.sources:
                    if isinstance(x, np.ndarray) and id(x) not in seen:
                        seen.add(id(x))
                        watched.append(x)
        return tuple(watched)

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
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

        Args:
            target: an array, or a list or nest of them.
            sources: an array, or a list, tuple, dict or nest of them.
            output_gradients: the target's cotangents (one per target); None: ones.
            unconnected_gradients: "none" (None) or "zero" (zeros), or an UnconnectedGradients.

        Returns:
            The gradients, in the structure of `sources`.
        """
        unconnected = _unconnected(unconnected_gradients)
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
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The Jacobian of `target` with respect to each source, shaped target.shape +
        source.shape, as ``tf.GradientTape.jacobian`` (one backward pass per target element;
        the result is recorded on enclosing tapes, so it can be differentiated again).

        Args:
            target: an array.
            sources: an array, or a list, tuple, dict or nest of them.
            unconnected_gradients: as gradient()'s.
            parallel_iterations: accepted for TensorFlow's signature; unused.
            experimental_use_pfor: False asks for a persistent tape, as in TensorFlow.

        Returns:
            The Jacobians, in the structure of `sources`.

        Raises:
            RuntimeError: a non-persistent tape that was used already, or
                experimental_use_pfor=False on one.
        """
        del parallel_iterations
        self._check_persistent("jacobian", experimental_use_pfor, "")
        unconnected = _unconnected(unconnected_gradients)
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
            if not rows:  # an empty target: an empty Jacobian, as TensorFlow gives
                result.append(np.zeros(shape, _gradient_for(source, None).dtype))
            elif any(row[i] is None for row in rows):
                result.append(None)
            else:  # stacked by recorded ops, so an enclosing tape can differentiate it
                result.append(math.reshape(math.stack([row[i] for row in rows]), shape))
        return rebuild(result)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The Jacobian of each example of `target` by the same example of `source`, as
        ``tf.GradientTape.batch_jacobian``: target[i] may depend on source[i] only; the result
        is shaped [batch] + target.shape[1:] + source.shape[1:] (one backward pass per element
        of an example of the target; the result is recorded on enclosing tapes).

        Raises:
          ValueError: the target or the source has rank below 2, or their batch dimensions
            differ.
          RuntimeError: experimental_use_pfor=False on a tape that is not persistent (as
            TensorFlow: that algorithm needs one).

        Args:
            target: an array [batch, ...].
            source: an array [batch, ...].
            unconnected_gradients: as gradient()'s.
            parallel_iterations: accepted for TensorFlow's signature; unused.
            experimental_use_pfor: False asks for a persistent tape, as in TensorFlow.

        Returns:
            An array.
        """
        del parallel_iterations
        self._check_persistent("batch_jacobian", experimental_use_pfor, " ")
        unconnected = _unconnected(unconnected_gradients)
        target_array, source_shape = np.asarray(target), np.shape(source)
        for shape in (target_array.shape, source_shape):
            if len(shape) < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        if target_array.shape[0] != source_shape[0]:
            raise ValueError(
                f"Need first dimension of target shape ({target_array.shape}) and source shape "
                f"({source_shape}) to match."
            )
        self._start_gradient()
        batch = target_array.shape[0]
        inner = int(np.prod(target_array.shape[1:], dtype=np.int64))
        source_inner = int(np.prod(source_shape[1:], dtype=np.int64))
        rows = []
        for j in range(inner):
            seed = np.zeros(target_array.shape, target_array.dtype)
            seed.reshape(batch, inner)[:, j] = 1
            (row,) = self._gradients([target], [seed], [source], unconnected, final=False)
            rows.append(row)
        self._finish_gradient()
        if any(row is None for row in rows):
            return None
        shape = (batch, *target_array.shape[1:], *source_shape[1:])
        if not rows:  # examples of no elements: an empty Jacobian, as TensorFlow gives
            return np.zeros(shape, _gradient_for(source, None).dtype)
        # stacked by recorded ops, so an enclosing tape can differentiate it
        per_example = math.stack([math.reshape(r, [batch, source_inner]) for r in rows], axis=1)
        return math.reshape(per_example, shape)

    def _check_persistent(self, method, use_pfor, gap):
        # TensorFlow computes these without pfor by one gradient per row, which needs a
        # persistent tape; swigflow has that one algorithm, so it asks the same.
        if not self._persistent and not use_pfor:
            raise RuntimeError(
                f"GradientTape must be created with persistent=True to compute the {method} "
                f"with eager execution enabled and {gap}with experimental_use_pfor set to False."
            )

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
            # As TensorFlow: integers, strings and bools have no gradient.
            connected = connected and _differentiable(np.asarray(s).dtype)
            if not connected and unconnected is UnconnectedGradients.NONE:
                result.append(None)
            else:
                result.append(_gradient_for(s, grads[id(s)] if connected else None))
        if final and not self._persistent:
            self._recording.ops = []  # TF frees a used tape too
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
            _accumulate(grads, target, _seed(target, seed))
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
            in_grads = registry.input_gradients(op, out_grads, skip)
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


def _accumulate(grads, key_object, g):
    """Adds gradient g into grads[id(key_object)], with a recorded op when some tape records
    (an enclosing tape then sees the sum)."""
    key = id(key_object)
    if key not in grads:
        grads[key] = g if isinstance(g, np.ndarray) else np.asarray(g)
        return
    total = grads[key]
    dtype = np.result_type(total, g)
    grads[key] = math.add_n([math.cast(total, dtype), math.cast(g, dtype)])


def _seed(target, output_gradient):
    """The gradient a target starts with: ones, or the given output gradient converted as
    TensorFlow converts it (a Python float is float32) and broadcast to the target's shape, so
    that every gradient has its source's shape (TensorFlow's Mul gradient, for one, returns a
    scalar for a scalar output gradient)."""
    target = np.asarray(target)
    if output_gradient is None:
        return np.ones_like(target)
    seed = tensors.convert_to_tensor(output_gradient)
    return math.broadcast_to(seed, target.shape) if seed.shape != target.shape else seed


def _differentiable(dtype):
    """Whether a source of this dtype gets gradients: floating and complex, as in TensorFlow."""
    return dtype.kind in "fc" or dtype.name == "bfloat16"


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
    if _floating(array.dtype):
        grad = math.cast(grad, array.dtype)
    return math.reshape(grad, array.shape) if grad.shape != array.shape else grad
