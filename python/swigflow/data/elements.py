"""What an element is to the steps: nested dicts and tuples of numpy values (or bytes), a
Failed element standing for a user function's exception, and how functions apply to, slice and
stack elements."""

import numpy as np

from swigflow import errors


def function_name(fn):
    """A user function's name for statistics and messages."""
    fn = getattr(fn, "func", fn)  # functools.partial
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def call_unpacked(fn, element):
    """fn(*element) for a tuple element, else fn(element): how tf.data calls user functions."""
    return fn(*element) if type(element) is tuple else fn(element)


class Failed:
    """An element whose user function raised: passed along in place of the element, it is
    raised by Iterator.__next__ for that element only, and iteration goes on after it (tf.data
    reports a failed map call the same way)."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def apply_fn(fn, element):
    """fn applied as tf.data applies a user function; a raised exception becomes a Failed
    element, with StopIteration made InvalidArgumentError (it must never end a dataset)."""
    if type(element) is Failed:
        return element
    try:
        return call_unpacked(fn, element)
    except StopIteration as e:
        error = errors.InvalidArgumentError(
            f"the function raised StopIteration for an element: {e!r}"
        )
        error.__cause__ = e
        return Failed(error)
    except Exception as e:
        return Failed(e)


def component_count(structure):
    """The number of components of a structure (nested dicts, tuples and lists)."""
    if isinstance(structure, dict):
        return sum(component_count(v) for v in structure.values())
    if isinstance(structure, (tuple, list)):
        return sum(component_count(v) for v in structure)
    return 1


def predicate_failure(transformation, fn, failed, where):
    """A predicate's failure as tf.data reports it: the error's own class for swigflow's
    errors, InvalidArgumentError for a Python exception, naming the transformation, the
    function and the pipeline (`where`), and chained to the original."""
    error = failed.error
    kind = type(error) if isinstance(error, errors.OpError) else errors.InvalidArgumentError
    wrapped = kind(
        f"Error in user-defined function passed to {transformation} transformation "
        f"({function_name(fn)}) with iterator: {where}: {type(error).__name__}: {error}"
    )
    wrapped.__cause__ = error
    return Failed(wrapped)


def slice_of(tensors, i):
    if isinstance(tensors, dict):
        return {k: slice_of(v, i) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(slice_of(v, i) for v in tensors)
    return tensors[i]


def length_of(tensors):
    if isinstance(tensors, dict):
        lengths = {length_of(v) for v in tensors.values()}
    elif isinstance(tensors, tuple):
        lengths = {length_of(v) for v in tensors}
    else:
        return len(tensors)
    if len(lengths) != 1:
        raise ValueError(f"all components must have the same first dimension, got {lengths}")
    return lengths.pop()


def stack(elements, _component=None):
    """Elements (of one structure) stacked into one; components of different shapes raise
    InvalidArgumentError with tf.data's words."""
    first = elements[0]
    if isinstance(first, dict):
        return {k: stack([e[k] for e in elements]) for k in first}
    if isinstance(first, tuple):
        return tuple(stack([e[i] for e in elements], i) for i in range(len(first)))
    if isinstance(first, (bytes, str)):
        return np.array(elements, dtype=object)
    arrays = [np.asarray(e) for e in elements]
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise errors.InvalidArgumentError(
                f"Cannot batch tensors with different shapes in component {_component or 0}. "
                f"First element had shape {shape_text(arrays[0])} and element {i} had shape "
                f"{shape_text(a)}."
            )
    return np.stack(arrays)


def shape_text(array):
    return "[" + ",".join(str(n) for n in array.shape) + "]"


def stacked(elements):
    """stack(elements), or the failure to stack them as an element that raises it."""
    try:
        return stack(elements)
    except errors.OpError as e:
        return Failed(e)
