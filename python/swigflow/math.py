"""Elementwise and reduction math with tf.math's names, numpy in and out, recorded on tapes.

What a training step's loss needs, and the rest of tf.math's everyday functions:

- arithmetic: ``add``, ``subtract``, ``multiply``, ``divide`` (``truediv``), ``divide_no_nan``,
  ``floordiv``, ``floormod`` (``mod``), ``negative``, ``reciprocal``, ``pow``, ``add_n``;
- elementwise functions: ``abs``, ``sign``, ``square``, ``sqrt``, ``rsqrt``, ``exp``,
  ``expm1``, ``log``, ``log1p``, ``sin``, ``cos``, ``tan``, ``asin``, ``acos``, ``atan``,
  ``atan2``, ``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, ``softplus``,
  ``log_sigmoid``, ``conj``; ``sigmoid``, ``tanh``, ``erf`` and ``erfc`` are native ops
  (swigflow.ops.gen_nn_ops; complex ``sigmoid`` and ``tanh`` use numpy);
- comparisons and logic: ``equal``, ``not_equal``, ``less``, ``less_equal``, ``greater``,
  ``greater_equal``, ``maximum``, ``minimum``, ``where``, ``logical_and``, ``logical_or``,
  ``logical_xor``, ``logical_not``, ``is_finite``, ``is_inf``, ``is_nan``;
- rounding: ``floor``, ``ceil``, ``rint``, ``round``; complex parts: ``complex``, ``real``,
  ``imag``, ``angle``; ``polyval``;
- reductions: ``reduce_sum``, ``reduce_mean``, ``reduce_max``, ``reduce_min``, ``reduce_prod``,
  ``reduce_all``, ``reduce_any``, ``reduce_euclidean_norm``, ``count_nonzero``, ``argmax``,
  ``argmin``, and the running ``cumsum`` and ``cumprod``;
- shapes and types: ``reshape``, ``transpose``, ``broadcast_to``, ``stack``, ``unstack``,
  ``cast``, ``one_hot``, ``identity``, ``stop_gradient``.

Each computes with numpy (IEEE arithmetic, so elementwise results equal TensorFlow's where both
round correctly; reductions add in numpy's order) and is recorded under TensorFlow's op name
(AddV2, Sub, Mul, RealDiv, Sum, ...) with its gradient registered as in TensorFlow's math_grad.
The gradients are written with these same functions, so they are differentiable again:
higher-order gradients work.

Operands follow TensorFlow's conversion, with numpy arrays in the part of tensors: arrays keep
their dtype, a Python value or numpy scalar takes the other operand's dtype (else float32 for
floats, int32 for integers), and two arrays of different dtypes are refused, as TensorFlow
refuses two tensors, rather than promoted. As in TensorFlow, ``add`` converts its first operand
alone (``add(2.5, float64_array)`` is refused), while the other binary ops convert their
operands together (``multiply(2.5, float64_array)`` is float64).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from swigflow import errors
from swigflow.ops import gen_nn_ops
from swigflow.ops.registry import (
    NotDifferentiable,
    RegisterGradient,
    is_recording,
    record_operation,
)
from swigflow.specs import as_dtype, tf_type_name

_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _tensor(value, dtype=None):
    """value as an array, as tf.convert_to_tensor makes it: arrays keep their dtype; numpy
    scalars and Python values take `dtype` when given and it holds them, else their own
    (Python floats become float32, ints int32, or int64 when out of int32's range)."""
    if isinstance(value, np.ndarray):
        return value
    array = np.asarray(value)
    if dtype is not None:
        dtype = np.dtype(dtype)
        with np.errstate(all="ignore"):
            converted = array.astype(dtype)
        lossy = array.dtype.kind in "fc" and dtype.kind in "iub"
        if not (lossy and not np.array_equal(converted, array)):
            return converted
    if isinstance(value, np.generic):
        return array
    if array.dtype == np.float64:
        return array.astype(np.float32)
    if array.dtype == np.int64 and (array.size == 0 or np.abs(array).max() < 2**31):
        return array.astype(np.int32)
    return array


# Ops whose first operand TensorFlow converts alone before the others (math_ops.add); the
# generated ops convert their operands together, the first tensor giving the dtype
# (args_to_matching_eager).
_FIRST_OPERAND_DECIDES = frozenset({"AddV2", "FloorDiv"})


def _matching(op_type, *values):
    """The operands of an op whose inputs share one dtype, converted as TensorFlow's eager ops
    convert them: the first array's dtype is the op's (the first operand's, for
    _FIRST_OPERAND_DECIDES or when none is an array), and the others take it. An array of
    another dtype (arrays are swigflow's tensors), or a value that dtype cannot hold, is
    TensorFlow's InvalidArgumentError."""
    decides = values[0]
    if op_type not in _FIRST_OPERAND_DECIDES:
        decides = next((v for v in values if isinstance(v, np.ndarray)), values[0])
    dtype = _tensor(decides).dtype
    arrays = [_tensor(v, dtype) for v in values]
    for i, a in enumerate(arrays):
        if a.dtype != dtype:
            expected, got = tf_type_name(dtype), tf_type_name(a.dtype)
            raise errors.InvalidArgumentError(
                f"cannot compute {op_type} as input #{i}(zero-based) was expected to be a "
                f"{expected} tensor but is a {got} tensor [Op:{op_type}]"
            )
    return arrays


def _pair(op_type, x, y):
    """The two operands of a broadcasting binary op."""
    x, y = _matching(op_type, x, y)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Incompatible shapes: {_text(x.shape)} vs. {_text(y.shape)} [Op:{op_type}]"
        ) from None
    return x, y


def _text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _floating(op_type, x, complex_too=False, allowed=None):
    """x, when op_type has a kernel for its dtype: floats (and complex ones, `complex_too`);
    `allowed`: the kernel's list in TensorFlow's message, where it differs from the default."""
    if complex_too and x.dtype.kind == "c":
        return x
    if x.dtype not in _FLOATS and x.dtype.name != "bfloat16":  # ml_dtypes' bfloat16 too
        if allowed is None:
            allowed = "bfloat16, half, float, double" + (
                ", complex64, complex128" if complex_too else ""
            )
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {x.dtype} is not in the list of allowed values: {allowed} "
            f"[Op:{op_type}]"
        )
    return x


def _op(op_type, inputs, value, attrs=None):
    """value (a fresh array) as the output of op_type on inputs, recorded when a tape records."""
    output = np.asarray(value)
    if is_recording():
        record_operation(op_type, [output], inputs, attrs=attrs)
    return output


def _binary(op_type, fn, x, y):
    x, y = _pair(op_type, x, y)
    with np.errstate(all="ignore"):  # inf and nan as IEEE gives them, as in TensorFlow
        return _op(op_type, [x, y], fn(x, y))


def _unary(op_type, fn, x, floating=True):
    """op_type computed by fn; `floating`: only for float and complex dtypes."""
    x = _tensor(x)
    if floating:
        _floating(op_type, x, complex_too=True)
    with np.errstate(all="ignore"):
        return _op(op_type, [x], fn(x))


def add(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x + y, broadcasting (tf.math.add).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("AddV2", np.add, x, y)


def subtract(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x - y, broadcasting (tf.math.subtract).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("Sub", np.subtract, x, y)


def multiply(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x * y, broadcasting (tf.math.multiply).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("Mul", np.multiply, x, y)


def divide(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x / y (tf.math.divide): floats divide as they are; integers become float64 (int8 and
    int16: float32) first, as in TensorFlow's truediv.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    x, y = _pair("RealDiv", x, y)
    if x.dtype.kind in "iu":
        target = np.float32 if x.dtype.itemsize <= 2 else np.float64
        x, y = cast(x, target), cast(y, target)
    return _binary("RealDiv", np.true_divide, x, y)


def truediv(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x / y (tf.math.truediv): divide's computation, under TensorFlow's other name.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array (float64 for int32 and int64 operands, float32 for narrower ones).

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    return divide(x, y, name)


# The dtypes TensorFlow's CPU kernels take, in the order its messages list them.
_REAL_NUMBERS = (
    "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double"
)
_ORDERED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"


def _real(op_type, x, allowed=_REAL_NUMBERS):
    """x, when its dtype is a real number (TensorFlow's message otherwise)."""
    if x.dtype.kind not in "iuf" and x.dtype.name != "bfloat16":
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {tf_type_name(x.dtype)} is not in the list of allowed "
            f"values: {allowed} [Op:{op_type}]"
        )
    return x


def _integer_divisor(op_type, y):
    if y.dtype.kind in "iu" and not np.all(y):
        raise errors.InvalidArgumentError(f"Integer division by zero [Op:{op_type}]")


def floordiv(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """floor(x / y) elementwise (tf.math.floordiv, Python's ``//``): integers round toward
    negative infinity, floats are floor(x / y), as TensorFlow computes them.

    Args:
        x: an array or Python value (converted alone first, as TensorFlow's floordiv does).
        y: an array or Python value; a Python number takes x's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: the dtypes differ or are not real numbers, the shapes do not
            broadcast, or an integer division by zero.
    """
    del name
    x, y = _pair("FloorDiv", x, y)
    _real("FloorDiv", x)
    _integer_divisor("FloorDiv", y)
    if x.dtype.kind in "iu":
        return _binary("FloorDiv", np.floor_divide, x, y)
    return _binary("FloorDiv", lambda a, b: np.floor(a / b), x, y)


def floormod(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """The remainder of floordiv, with the sign of y (tf.math.floormod, tf.math.mod, Python's
    ``%``); for floats, fmod(x, y) moved by y when their signs differ, as TensorFlow computes it.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes x's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: the dtypes differ or are not real numbers, the shapes do not
            broadcast, or an integer division by zero.
    """
    del name
    x, y = _pair("FloorMod", x, y)
    _real("FloorMod", x)
    _integer_divisor("FloorMod", y)

    def remainder(a, b):
        if a.dtype.kind in "iu":
            return np.remainder(a, b)
        truncated = np.fmod(a, b)
        moved = (truncated != 0) & ((b < 0) != (truncated < 0))
        return np.where(moved, truncated + b, truncated)

    return _binary("FloorMod", remainder, x, y)


mod = floormod


def atan2(y: ArrayLike, x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The angle of the point (x, y) from the positive x axis, in [-pi, pi]
    (tf.math.atan2), for float dtypes.

    Args:
        y: the ordinate: an array or Python value.
        x: the abscissa: an array or Python value; a Python number takes y's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not floats, or the shapes do not
            broadcast.
    """
    del name
    y, x = _pair("Atan2", y, x)
    _floating("Atan2", y)
    return _binary("Atan2", np.arctan2, y, x)


class _UnaryFunction(Protocol):
    def __call__(self, x: ArrayLike, name: str | None = None) -> np.ndarray: ...


class _BinaryFunction(Protocol):
    def __call__(self, x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray: ...


def _comparison(public_name, op_type, ufunc, symbol):
    """tf.math's ordering comparison `public_name` (x `symbol` y), recorded as op_type, for
    real numbers."""

    def function(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
        del name
        x, y = _pair(op_type, x, y)
        _real(op_type, x, _ORDERED)
        return _binary(op_type, ufunc, x, y)

    function.__name__ = function.__qualname__ = public_name
    function.__doc__ = f"""x {symbol} y elementwise, as bool (tf.math.{public_name}), for real
    numbers.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not real numbers, or the shapes do
            not broadcast.
    """
    return function


less: _BinaryFunction = _comparison("less", "Less", np.less, "<")
less_equal: _BinaryFunction = _comparison("less_equal", "LessEqual", np.less_equal, "<=")
greater: _BinaryFunction = _comparison("greater", "Greater", np.greater, ">")
greater_equal: _BinaryFunction = _comparison(
    "greater_equal", "GreaterEqual", np.greater_equal, ">="
)


def not_equal(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x != y elementwise, as bool (tf.math.not_equal), for every dtype, strings included.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ, or the shapes do not broadcast.
    """
    del name
    return _binary("NotEqual", np.not_equal, x, y)


def divide_no_nan(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x / y, and 0 where y is 0 (tf.math.divide_no_nan); integers become floats first, as
    in divide.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not numbers, or the shapes do not
            broadcast.
    """
    del name
    x, y = _pair("DivNoNan", x, y)
    if x.dtype.kind in "iu":  # as divide's truediv
        target = np.float32 if x.dtype.itemsize <= 2 else np.float64
        x, y = cast(x, target), cast(y, target)
    _floating("DivNoNan", x, complex_too=True)

    def quotient(a, b):
        return np.where(b == 0, np.zeros((), a.dtype), a / np.where(b == 0, 1, b))

    return _binary("DivNoNan", quotient, x, y)


def negative(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """-x (tf.math.negative).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Neg", np.negative, x, floating=False)


def square(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """x * x (tf.math.square).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Square", np.square, x, floating=False)


def sqrt(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The square root (tf.math.sqrt); NaN below 0.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Sqrt", np.sqrt, x)


def exp(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """e ** x (tf.math.exp).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Exp", np.exp, x)


def log(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The natural logarithm (tf.math.log); -inf at 0, NaN below.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Log", np.log, x)


def reciprocal(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """1 / x (tf.math.reciprocal).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return _unary("Reciprocal", lambda v: np.divide(np.ones((), v.dtype), v), x)


def pow(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x ** y, broadcasting (tf.math.pow). Integers to negative integer powers are refused, as
    in TensorFlow.

    Args:
        x: the base: an array or Python value.
        y: the exponent: an array or Python value; a Python number takes the other operand's
            dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ, the shapes do not broadcast, or an integer
            to a negative integer power.
    """
    del name
    x, y = _pair("Pow", x, y)
    if y.dtype.kind in "iu" and np.any(y < 0):
        raise errors.InvalidArgumentError(
            "Integers to negative integer powers are not allowed [Op:Pow]"
        )
    return _binary("Pow", np.power, x, y)


def sigmoid(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """1 / (1 + exp(-x)) (tf.math.sigmoid): a native op for floats, numpy's for complex.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    x = _floating("Sigmoid", _tensor(x), complex_too=True)
    if x.dtype.kind == "c":
        one = np.ones((), x.dtype)
        return _unary("Sigmoid", lambda v: one / (one + np.exp(-v)), x)
    return gen_nn_ops.sigmoid(x)


def tanh(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The hyperbolic tangent (tf.math.tanh): a native op for floats, numpy's for complex.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    x = _floating("Tanh", _tensor(x), complex_too=True)
    if x.dtype.kind == "c":
        return _unary("Tanh", np.tanh, x)
    return gen_nn_ops.tanh(x)


def conj(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The complex conjugate (tf.math.conj); a real array is returned as it is, as there.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    x = _tensor(x)
    if x.dtype.kind != "c":
        return x
    return _op("Conj", [x], np.conj(x))


def _real_floating(op_type, x):
    return _floating(op_type, _tensor(x), allowed="bfloat16, half, float, double")


def _of_floats(public_name, op_type, compute, summary, returns):
    """tf.math's `public_name` of one float operand (no complex), computed by numpy's
    `compute` and recorded as op_type."""

    def function(x: ArrayLike, name: str | None = None) -> np.ndarray:
        del name
        return _unary(op_type, compute, _real_floating(op_type, x), floating=False)

    function.__name__ = function.__qualname__ = public_name
    function.__doc__ = f"""{summary} (tf.math.{public_name}), for floats.

    Args:
        x: a float array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        {returns}

    Raises:
        InvalidArgumentError: x is not float.
    """
    return function


is_finite: _UnaryFunction = _of_floats(
    "is_finite", "IsFinite", np.isfinite, "Whether each element is neither infinite nor NaN",
    "A bool numpy array.",
)  # fmt: skip
is_inf: _UnaryFunction = _of_floats(
    "is_inf", "IsInf", np.isinf, "Whether each element is infinite", "A bool numpy array."
)
is_nan: _UnaryFunction = _of_floats(
    "is_nan", "IsNan", np.isnan, "Whether each element is NaN", "A bool numpy array."
)
floor: _UnaryFunction = _of_floats(
    "floor", "Floor", np.floor, "The largest integer not above each element",
    "A numpy array of x's dtype.",
)  # fmt: skip
ceil: _UnaryFunction = _of_floats(
    "ceil", "Ceil", np.ceil, "The smallest integer not below each element",
    "A numpy array of x's dtype.",
)  # fmt: skip
rint: _UnaryFunction = _of_floats(
    "rint", "Rint", np.rint, "The nearest integer to each element, halves to even",
    "A numpy array of x's dtype.",
)  # fmt: skip


def round(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The nearest integer to each element, halves to even (tf.math.round, banker's rounding);
    integers are returned as they are.

    Args:
        x: an array or Python value of numbers.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: x is not a number.
    """
    del name
    x = _tensor(x)
    if x.dtype.kind in "iu":
        return x
    return _unary("Round", np.rint, _real_floating("Round", x), floating=False)


def complex(real: ArrayLike, imag: ArrayLike, name: str | None = None) -> np.ndarray:
    """real + imag * 1j elementwise, broadcasting (tf.complex): float32 parts make complex64,
    float64 parts complex128.

    Args:
        real: the real parts: a float32 or float64 array, or a Python value.
        imag: the imaginary parts, of real's dtype (each part is converted alone: a Python
            float is float32).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A complex numpy array.

    Raises:
        TypeError: the parts' dtypes differ or are not float32 or float64.
        InvalidArgumentError: the shapes do not broadcast.
    """
    del name
    real, imag = _tensor(real), _tensor(imag)  # each converted alone, as TensorFlow's
    if real.dtype != imag.dtype or real.dtype not in (np.float32, np.float64):
        raise TypeError(
            "The `real` and `imag` components have incorrect types: "
            f"{real.dtype.name} {imag.dtype.name}. They must be consistent, and one of "
            "[tf.float32, tf.float64]"
        )
    real, imag = _pair("Complex", real, imag)
    target = np.complex64 if real.dtype == np.float32 else np.complex128
    return _binary("Complex", lambda a, b: (a + np.asarray(1j, target) * b).astype(target), real,
                   imag)  # fmt: skip


def real(input: ArrayLike, name: str | None = None) -> np.ndarray:
    """The real parts of a complex tensor (tf.math.real); a real tensor is returned as it is.

    Args:
        input: an array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of the parts' real dtype.
    """
    del name
    x = _tensor(input)
    if x.dtype.kind != "c":
        return x
    return _op("Real", [x], np.ascontiguousarray(x.real))


def imag(input: ArrayLike, name: str | None = None) -> np.ndarray:
    """The imaginary parts of a complex tensor (tf.math.imag); zeros for a real one.

    Args:
        input: an array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of the parts' real dtype.
    """
    del name
    x = _tensor(input)
    if x.dtype.kind != "c":
        return np.zeros_like(x)
    return _op("Imag", [x], np.ascontiguousarray(x.imag))


def angle(input: ArrayLike, name: str | None = None) -> np.ndarray:
    """The argument of each complex element, in [-pi, pi] (tf.math.angle); for a float tensor,
    pi where it is negative and 0 elsewhere.

    Args:
        input: a complex or float array, or a Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of the parts' real dtype.

    Raises:
        TypeError: an integer tensor (pi has no integer value), as in TensorFlow.
    """
    del name
    x = _tensor(input)
    if x.dtype.kind == "c":
        return _op("Angle", [x], np.ascontiguousarray(np.angle(x).astype(x.real.dtype)))
    if x.dtype.kind not in "f" and x.dtype.name != "bfloat16":
        raise TypeError(f"Cannot convert {np.pi!r} to EagerTensor of dtype {x.dtype.name}")
    return where(less(x, _const(0, x)), np.full(x.shape, np.pi, x.dtype), np.zeros_like(x))


def polyval(coeffs: Sequence[ArrayLike], x: ArrayLike, name: str | None = None) -> np.ndarray:
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1] by Horner's rule (tf.math.polyval), with
    recorded ops, so it is differentiable.

    Args:
        coeffs: a list of arrays or Python values (highest degree first); empty gives zeros.
        x: an array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        ValueError: coeffs is not a list.
        InvalidArgumentError: the dtypes differ or the shapes do not broadcast.
    """
    del name
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = _tensor(x)
    if not coeffs:
        return np.zeros_like(x)
    terms = [_tensor(c) for c in coeffs]
    p = terms[0]
    for c in terms[1:]:
        p = add(c, multiply(p, x))
    return p


def _elementwise(public_name, op_type, compute, summary):
    """A tf.math function of one float or complex operand, computed by numpy's `compute` and
    recorded as op_type (its gradient is registered below)."""

    def function(x: ArrayLike, name: str | None = None) -> np.ndarray:
        del name
        return _unary(op_type, compute, x)

    function.__name__ = function.__qualname__ = public_name
    function.__doc__ = f"""{summary} (tf.math.{public_name}), for float and complex dtypes.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: x is not float or complex.
    """
    return function


sin: _UnaryFunction = _elementwise("sin", "Sin", np.sin, "The sine")
cos: _UnaryFunction = _elementwise("cos", "Cos", np.cos, "The cosine")
tan: _UnaryFunction = _elementwise("tan", "Tan", np.tan, "The tangent")
asin: _UnaryFunction = _elementwise("asin", "Asin", np.arcsin, "The inverse sine")
acos: _UnaryFunction = _elementwise("acos", "Acos", np.arccos, "The inverse cosine")
atan: _UnaryFunction = _elementwise("atan", "Atan", np.arctan, "The inverse tangent")
sinh: _UnaryFunction = _elementwise("sinh", "Sinh", np.sinh, "The hyperbolic sine")
cosh: _UnaryFunction = _elementwise("cosh", "Cosh", np.cosh, "The hyperbolic cosine")
asinh: _UnaryFunction = _elementwise("asinh", "Asinh", np.arcsinh, "The inverse hyperbolic sine")
acosh: _UnaryFunction = _elementwise(
    "acosh", "Acosh", np.arccosh, "The inverse hyperbolic cosine (NaN below 1)"
)
atanh: _UnaryFunction = _elementwise(
    "atanh", "Atanh", np.arctanh, "The inverse hyperbolic tangent (NaN beyond -1 and 1)"
)
expm1: _UnaryFunction = _elementwise("expm1", "Expm1", np.expm1, "exp(x) - 1, exact for small x")
log1p: _UnaryFunction = _elementwise("log1p", "Log1p", np.log1p, "log(1 + x), exact for small x")
rsqrt: _UnaryFunction = _elementwise(
    "rsqrt", "Rsqrt", lambda v: np.ones((), v.dtype) / np.sqrt(v), "1 / sqrt(x)"
)


def softplus(features: ArrayLike, name: str | None = None) -> np.ndarray:
    """log(exp(x) + 1) without overflow (tf.math.softplus, tf.nn.softplus), for floats.

    Args:
        features: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of the features' dtype.

    Raises:
        InvalidArgumentError: the features are not floats.
    """
    del name
    x = _floating("Softplus", _tensor(features), allowed="half, bfloat16, float, double")
    return _unary("Softplus", lambda v: np.logaddexp(np.zeros((), v.dtype), v), x)


def log_sigmoid(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """log(1 / (1 + exp(-x))) without overflow (tf.math.log_sigmoid): -softplus(-x), as
    TensorFlow computes it.

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: x is not float.
    """
    del name
    return negative(softplus(negative(_tensor(x))))


# Abs and Sign take signed integers too (TensorFlow's kernels' lists, in its messages' order).
_SIGNED = "bfloat16, half, float, double, int8, int16, int32, int64"


def _signed(op_type, x, complex_too):
    if x.dtype.kind == "c" and complex_too:
        return x
    if x.dtype.kind not in "if" and x.dtype.name != "bfloat16":
        allowed = _SIGNED + (", complex64, complex128" if complex_too else "")
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {tf_type_name(x.dtype)} is not in the list of allowed "
            f"values: {allowed} [Op:{op_type}]"
        )
    return x


def abs(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The absolute value elementwise (tf.math.abs); a complex x gives its modulus, in the
    real dtype of its parts (ComplexAbs), as in TensorFlow.

    Args:
        x: an array or Python value: signed integers, floats or complex numbers.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an unsigned or non-numeric dtype.
    """
    del name
    x = _tensor(x)
    if x.dtype.kind == "c":
        return _op("ComplexAbs", [x], np.abs(x))
    return _unary("Abs", np.abs, _signed("Abs", x, complex_too=False), floating=False)


def sign(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """-1, 0 or 1 by x's sign (tf.math.sign); NaN stays NaN, and a complex x gives x divided by
    its modulus (0 at 0).

    Args:
        x: an array or Python value: signed integers, floats or complex numbers.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's dtype.

    Raises:
        InvalidArgumentError: an unsigned or non-numeric dtype.
    """
    del name
    x = _signed("Sign", _tensor(x), complex_too=True)

    def compute(v):
        if v.dtype.kind == "c":
            modulus = np.abs(v).astype(v.dtype)
            return np.where(
                modulus == 0, np.zeros((), v.dtype), v / np.where(modulus == 0, 1, modulus)
            )
        return np.sign(v)

    return _unary("Sign", compute, x, floating=False)


def erf(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The error function, a native op (tf.math.erf).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return gen_nn_ops.erf(_floating("Erf", _tensor(x)))


def erfc(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """The complementary error function 1 - erf(x), a native op (tf.math.erfc).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtype is not supported.
    """
    del name
    return gen_nn_ops.erfc(_floating("Erfc", _tensor(x)))


def maximum(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """The larger of x and y, broadcasting; NaN if either is NaN (tf.math.maximum).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("Maximum", np.maximum, x, y)


def minimum(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """The smaller of x and y, broadcasting; NaN if either is NaN (tf.math.minimum).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("Minimum", np.minimum, x, y)


def equal(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x == y elementwise, as bool (tf.math.equal).

    Args:
        x: an array or Python value (converted as swigflow.constant converts it).
        y: an array or Python value; a Python number takes the other operand's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the dtypes differ or are not supported, or the shapes do not
            broadcast.
    """
    del name
    return _binary("Equal", np.equal, x, y)


def add_n(inputs: Sequence[ArrayLike], name: str | None = None) -> np.ndarray:
    """The sum of arrays of one shape and dtype (tf.math.add_n), added in order.

    Args:
        inputs: a list of arrays of one shape and dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        ValueError: the list is empty.
        InvalidArgumentError: the shapes or dtypes differ.
    """
    del name
    inputs = list(inputs)
    if not inputs:
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices")
    arrays = _matching("AddN", *inputs)
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise errors.InvalidArgumentError(
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {_text(arrays[0].shape)} != input {i}: {_text(a.shape)} [Op:AddN]"
            )
    total = arrays[0].copy()
    with np.errstate(all="ignore"):
        for a in arrays[1:]:
            total += a
    return _op("AddN", arrays, total)


def where(
    condition: ArrayLike,
    x: ArrayLike | None = None,
    y: ArrayLike | None = None,
    name: str | None = None,
) -> np.ndarray:
    """x where condition holds, else y, broadcasting the three (tf.where); with neither x nor
    y, the indices of the true elements as [n, rank] int64.

    Args:
        condition: a bool array.
        x: the values where condition holds.
        y: the values elsewhere.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        ValueError: only one of x and y is given.
        InvalidArgumentError: the shapes do not broadcast.
    """
    del name
    condition = np.asarray(condition)
    if x is None and y is None:
        return np.argwhere(condition).astype(np.int64)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if condition.dtype != np.bool_:
        raise errors.InvalidArgumentError(f"condition must be bool, got {condition.dtype}")
    x, y = _pair("SelectV2", x, y)
    try:
        np.broadcast_shapes(condition.shape, x.shape, y.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"condition {_text(condition.shape)}, then {_text(x.shape)}, and else "
            f"{_text(y.shape)} must be broadcastable [Op:SelectV2]"
        ) from None
    return _op("SelectV2", [condition, x, y], np.where(condition, x, y))


def identity(input: ArrayLike, name: str | None = None) -> np.ndarray:
    """A new array equal to `input` (tf.identity); gradients pass through it.

    Args:
        input: an array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    x = _tensor(input)
    return _op("Identity", [x], np.array(x))


def stop_gradient(input: ArrayLike, name: str | None = None) -> np.ndarray:
    """A new array equal to `input` that tapes differentiate as a constant (tf.stop_gradient).

    Args:
        input: an array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    x = _tensor(input)
    return _op("StopGradient", [x], np.array(x))


def stack(values: Sequence[ArrayLike], axis: int = 0, name: str | None = None) -> np.ndarray:
    """The arrays of one shape and dtype joined along a new axis (tf.stack).

    Args:
        values: a non-empty list of arrays or Python values of one shape and dtype.
        axis: where the new axis goes, in [-(rank + 1), rank + 1).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array with one more axis, of length len(values).

    Raises:
        ValueError: no values, or an axis out of range.
        InvalidArgumentError: the shapes or dtypes differ.
    """
    del name
    if not len(values):
        raise ValueError("stack needs at least one value")
    arrays = _matching("Pack", *values)
    rank = arrays[0].ndim
    if not -(rank + 1) <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-(rank + 1)}, {rank + 1})")
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise errors.InvalidArgumentError(
                f"Shapes of all inputs must match: values[0].shape = {_text(arrays[0].shape)} "
                f"!= values[{i}].shape = {_text(a.shape)} [Op:Pack]"
            )
    axis %= rank + 1
    return _op("Pack", arrays, np.stack(arrays, axis=axis), {"axis": axis, "N": len(arrays)})


def unstack(value: ArrayLike, num: int | None = None, axis: int = 0, name: str | None = None
            ) -> list[np.ndarray]:  # fmt: skip
    """The slices of `value` along `axis`, as a list (tf.unstack).

    Args:
        value: an array of rank 1 or more.
        num: the length of that axis, checked when given.
        axis: the axis to take apart; negative counts from the end.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A list of numpy arrays, one per slice.

    Raises:
        ValueError: a scalar, an axis out of range, or `num` other than the axis' length.
    """
    del name
    x = _tensor(value)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-x.ndim}, {x.ndim})")
    axis %= x.ndim
    if num is not None and num != x.shape[axis]:
        raise ValueError(f"Cannot unstack {x.shape[axis]} slices as {num}")
    parts = [np.ascontiguousarray(p) for p in np.moveaxis(x, axis, 0)]
    if is_recording():
        record_operation("Unpack", parts, [x], attrs={"axis": axis, "num": len(parts)})
    return parts


def broadcast_to(input: ArrayLike, shape: ArrayLike, name: str | None = None) -> np.ndarray:
    """input broadcast to `shape` (tf.broadcast_to), as a new array.

    Args:
        input: an array or Python value.
        shape: the target shape.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the shapes are not compatible.
    """
    del name
    x = _tensor(input)
    shape = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    try:
        value = np.array(np.broadcast_to(x, shape))
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Incompatible shapes: {_text(x.shape)} vs. {_text(shape)} [Op:BroadcastTo]"
        ) from None
    return _op("BroadcastTo", [x], value)


def _axes(op_type, x, axis):
    """The reduction axes as a sorted tuple of non-negative ints (None: all)."""
    if axis is None or x.ndim == 0:
        return tuple(range(x.ndim))
    axes = [int(a) for a in np.asarray(axis).reshape(-1)]
    seen = set()
    for a in axes:
        if not -x.ndim <= a < max(x.ndim, 1):
            raise errors.InvalidArgumentError(
                f"Invalid reduction dimension ({a} for input with {x.ndim} dimension(s) "
                f"[Op:{op_type}]"
            )
        if (a := a % x.ndim) in seen:
            raise errors.InvalidArgumentError(
                "Invalid reduction arguments: Axes contains duplicate dimension: "
                f"{a} [Op:{op_type}]"
            )
        seen.add(a)
    return tuple(sorted(seen))


def _reduce(op_type, fn, input_tensor, axis, keepdims):
    x = _tensor(input_tensor)
    axes = _axes(op_type, x, axis)
    with np.errstate(all="ignore"):
        value = fn(x, axes) if x.ndim else x.copy()
    if keepdims:
        value = np.reshape(value, [1 if i in axes else d for i, d in enumerate(x.shape)])
    attrs = {"axes": axes, "keep_dims": bool(keepdims)}
    return _op(op_type, [x], np.asarray(value, dtype=x.dtype), attrs)


def reduce_sum(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The sum over `axis` (an int, a list, or None for all), in the input's dtype
    (tf.math.reduce_sum).

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated, or an unsupported dtype.
    """
    del name
    return _reduce("Sum", lambda x, a: np.sum(x, axis=a, dtype=x.dtype), input_tensor, axis,
                   keepdims)  # fmt: skip


def reduce_mean(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The mean over `axis`: the sum divided by the count, in the input's dtype (integers
    divide truncating toward zero, as in TensorFlow; an empty float mean is NaN).

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated, or an unsupported dtype.
    """
    del name

    def mean(x, axes):
        count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        if x.dtype.kind not in "iu":
            return np.sum(x, axis=axes, dtype=x.dtype) / np.asarray(count, x.dtype)
        # Summed in 64 bits (narrow integers do not overflow, as in TensorFlow), then
        # divided truncating toward zero and brought back to the dtype.
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        total = np.sum(x, axis=axes, dtype=wide)
        if count == 0:
            return np.zeros_like(total)
        return (np.sign(total) * (np.abs(total) // wide(count))).astype(x.dtype)

    return _reduce("Mean", mean, input_tensor, axis, keepdims)


def reduce_max(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The maximum over `axis`; an empty reduction gives the dtype's lowest value (-inf for
    floats), as in TensorFlow.

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated, or an unsupported dtype.
    """
    del name
    return _reduce("Max", lambda x, a: np.max(x, axis=a, initial=_bound(x, -1)), input_tensor,
                   axis, keepdims)  # fmt: skip


def _bound(x, sign):
    """The dtype's lowest (sign -1) or highest (+1) value: an empty max's or min's result."""
    if x.dtype == np.bool_:
        return sign > 0
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":  # ml_dtypes' bfloat16 too
        return sign * np.inf
    info = np.iinfo(x.dtype)
    return info.max if sign > 0 else info.min


def reduce_min(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The minimum over `axis`; an empty reduction gives the dtype's highest value (inf for
    floats), as in TensorFlow.

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated.
    """
    del name
    return _reduce("Min", lambda x, a: np.min(x, axis=a, initial=_bound(x, 1)), input_tensor,
                   axis, keepdims)  # fmt: skip


def reduce_prod(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The product over `axis`, in the input's dtype (integers wrap, as in TensorFlow; an
    empty product is 1).

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated.
    """
    del name
    return _reduce("Prod", lambda x, a: np.prod(x, axis=a, dtype=x.dtype), input_tensor, axis,
                   keepdims)  # fmt: skip


def _logical(op_type, input_tensor, index=0):
    x = _tensor(input_tensor, np.bool_)
    if x.dtype != np.bool_:
        raise errors.InvalidArgumentError(
            f"cannot compute {op_type} as input #{index}(zero-based) was expected to be a bool "
            f"tensor but is a {tf_type_name(x.dtype)} tensor [Op:{op_type}]"
        )
    return x


def _logical_pair(op_type, x, y):
    x, y = _logical(op_type, x), _logical(op_type, y, 1)
    return _pair(op_type, x, y)


def logical_and(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x and y elementwise, for bool tensors (tf.math.logical_and), broadcasting.

    Args:
        x: a bool array or Python value.
        y: a bool array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: an operand that is not bool, or shapes that do not broadcast.
    """
    del name
    return _binary("LogicalAnd", np.logical_and, *_logical_pair("LogicalAnd", x, y))


def logical_or(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x or y elementwise, for bool tensors (tf.math.logical_or), broadcasting.

    Args:
        x: a bool array or Python value.
        y: a bool array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: an operand that is not bool, or shapes that do not broadcast.
    """
    del name
    return _binary("LogicalOr", np.logical_or, *_logical_pair("LogicalOr", x, y))


def logical_xor(x: ArrayLike, y: ArrayLike, name: str | None = None) -> np.ndarray:
    """x or y but not both, elementwise (tf.math.logical_xor): TensorFlow's
    (x or y) and not (x and y).

    Args:
        x: a bool array or Python value.
        y: a bool array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: an operand that is not bool, or shapes that do not broadcast.
    """
    del name
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


def logical_not(x: ArrayLike, name: str | None = None) -> np.ndarray:
    """Not x elementwise, for a bool tensor (tf.math.logical_not).

    Args:
        x: a bool array or Python value.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: x is not bool.
    """
    del name
    return _unary("LogicalNot", np.logical_not, _logical("LogicalNot", x), floating=False)


def reduce_all(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The logical and over `axis` of a bool tensor (an empty reduction is True).

    Args:
        input_tensor: a bool array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: a tensor that is not bool, or an axis out of range or repeated.
    """
    del name
    return _reduce("All", np.all, _logical("All", input_tensor), axis, keepdims)


def reduce_any(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The logical or over `axis` of a bool tensor (an empty reduction is False).

    Args:
        input_tensor: a bool array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A bool numpy array.

    Raises:
        InvalidArgumentError: a tensor that is not bool, or an axis out of range or repeated.
    """
    del name
    return _reduce("Any", np.any, _logical("Any", input_tensor), axis, keepdims)


def reduce_euclidean_norm(
    input_tensor: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """sqrt(sum(x * conj(x))) over `axis`, in the input's dtype (integers round down).

    Args:
        input_tensor: an array or Python value.
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: an axis out of range or repeated.
    """
    del name

    def norm(x, axes):
        if x.dtype.kind in "iu":  # summed and rooted in double, then floored
            wide = x.astype(np.float64)
            return np.floor(np.sqrt(np.sum(wide * wide, axis=axes)))
        return np.sqrt(np.sum(x * np.conj(x), axis=axes, dtype=x.dtype))

    return _reduce("EuclideanNorm", norm, input_tensor, axis, keepdims)


def count_nonzero(
    input: ArrayLike,
    axis: int | Sequence[int] | None = None,
    keepdims: bool | None = None,
    dtype: DTypeLike = np.int64,
    name: str | None = None,
) -> np.ndarray:
    """How many elements over `axis` are not zero (not empty, for strings), as
    tf.math.count_nonzero.

    Args:
        input: an array or Python value (numbers, bools or strings).
        axis: an int, a list of them (no repeats), or None for all axes; negative counts
            from the end.
        keepdims: keep the reduced axes with length 1 (None: False).
        dtype: the count's dtype (int64 by default).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of `dtype`.

    Raises:
        InvalidArgumentError: an axis out of range or repeated.
    """
    del name
    x = _tensor(input)
    if x.dtype.kind in "OSU":  # strings: empty ones are zero
        nonzero = np.asarray(np.frompyfunc(bool, 1, 1)(x)).astype(np.int64)
    else:
        nonzero = np.asarray(x != np.zeros((), x.dtype)).astype(np.int64)
    axes = _axes("Sum", nonzero, axis)
    counts = np.sum(nonzero, axis=axes, keepdims=bool(keepdims))
    return np.asarray(counts).astype(as_dtype(dtype))


def _scan(op_type, accumulate, identity, x, axis, exclusive, reverse):
    """cumsum/cumprod: `accumulate` along `axis`, shifted by one for `exclusive`, from the end
    for `reverse`."""
    x = _tensor(x)
    axis = int(np.asarray(axis))
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(
            f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got {axis} "
            f"[Op:{op_type}]"
        )
    axis %= x.ndim
    value = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        value = accumulate(value, axis=axis, dtype=x.dtype)
    if exclusive and value.shape[axis]:
        value = np.roll(value, 1, axis)
        value[(slice(None),) * axis + (0,)] = identity
    if reverse:
        value = np.flip(value, axis)
    attrs = {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return _op(op_type, [x], np.ascontiguousarray(value), attrs)


def cumsum(
    x: ArrayLike,
    axis: int = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The running sum along `axis` (tf.math.cumsum), in x's dtype.

    Args:
        x: an array or Python value.
        axis: the axis to run along; negative counts from the end.
        exclusive: each sum leaves out its own element (the first is 0).
        reverse: run from the end of the axis.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's shape.

    Raises:
        InvalidArgumentError: `axis` out of range.
    """
    del name
    return _scan("Cumsum", np.cumsum, 0, x, axis, exclusive, reverse)


def cumprod(
    x: ArrayLike,
    axis: int = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """The running product along `axis` (tf.math.cumprod), in x's dtype.

    Args:
        x: an array or Python value.
        axis: the axis to run along; negative counts from the end.
        exclusive: each product leaves out its own element (the first is 1).
        reverse: run from the end of the axis.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of x's shape.

    Raises:
        InvalidArgumentError: `axis` out of range.
    """
    del name
    return _scan("Cumprod", np.cumprod, 1, x, axis, exclusive, reverse)


def reshape(tensor: ArrayLike, shape: ArrayLike, name: str | None = None) -> np.ndarray:
    """tensor with `shape` (one dimension may be -1), as tf.reshape.

    Args:
        tensor: an array or Python value.
        shape: the new shape; one dimension may be -1.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the number of values does not fit the shape.
    """
    del name
    x = _tensor(tensor)
    shape = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if shape.count(-1) > 1:
        raise errors.InvalidArgumentError(
            f"Only one input size may be -1, not both {shape.index(-1)} and "
            f"{len(shape) - 1 - shape[::-1].index(-1)} [Op:Reshape]"
        )
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if (-1 not in shape and known != x.size) or (-1 in shape and (known == 0 or x.size % known)):
        raise errors.InvalidArgumentError(
            f"Input to reshape is a tensor with {x.size} values, but the requested shape "
            f"{'requires a multiple of' if -1 in shape else 'has'} {known} [Op:Reshape]"
        )
    return _op("Reshape", [x], x.reshape(shape))


def transpose(
    a: ArrayLike,
    perm: Sequence[int] | None = None,
    conjugate: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """a with its axes permuted by `perm` (default: reversed), as tf.transpose.

    Args:
        a: an array or Python value.
        perm: a permutation of its axes; None reverses them.
        conjugate: also take the complex conjugate.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: perm is not a permutation of a's axes.
    """
    del name, conjugate  # real dtypes only
    x = _tensor(a)
    perm = tuple(range(x.ndim))[::-1] if perm is None else tuple(int(p) for p in perm)
    if sorted(p % max(x.ndim, 1) for p in perm) != list(range(x.ndim)) or len(perm) != x.ndim:
        raise errors.InvalidArgumentError(
            f"transpose expects a vector of size {x.ndim}. But input(1) is a vector of size "
            f"{len(perm)} [Op:Transpose]"
        )
    perm = tuple(p % x.ndim for p in perm)
    return _op("Transpose", [x], np.transpose(x, perm), {"perm": perm})


def cast(x: ArrayLike, dtype: DTypeLike, name: str | None = None) -> np.ndarray:
    """x in `dtype` (tf.cast): floats to integers truncate toward zero, complex numbers to
    real ones keep the real part; the same dtype returns x itself.

    Args:
        x: an array or Python value.
        dtype: the new dtype (a numpy dtype, or its name).
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    x = _tensor(x)
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    value = x.real if x.dtype.kind == "c" and dtype.kind != "c" else x  # the real part, as TF
    with np.errstate(all="ignore"):
        return _op("Cast", [x], value.astype(dtype), {"DstT": dtype})


def one_hot(
    indices: ArrayLike,
    depth: int,
    on_value: ArrayLike | None = None,
    off_value: ArrayLike | None = None,
    axis: int | Sequence[int] | None = None,
    dtype: DTypeLike = None,
    name: str | None = None,
) -> np.ndarray:
    """A new axis (`axis`, default last) of length `depth`: on_value (1) at each index, else
    off_value (0); indices outside [0, depth) give a row of off_value (tf.one_hot). The dtype
    is `dtype`, else that of on_value/off_value, else float32.

    Args:
        indices: an int array.
        depth: the length of the new axis.
        on_value: the value at each index (default 1).
        off_value: the value elsewhere (default 0).
        axis: where the new axis goes; None or -1: last.
        dtype: the output's dtype.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(f"indices must be integers, got {indices.dtype}")
    if dtype is None:
        given = [_tensor(v) for v in (on_value, off_value) if v is not None]
        dtype = given[0].dtype if given else np.float32
    dtype = np.dtype(dtype)
    on = np.asarray(1 if on_value is None else on_value, dtype)
    off = np.asarray(0 if off_value is None else off_value, dtype)
    depth = int(depth)
    if depth < 0:
        raise errors.InvalidArgumentError(f"depth must be non-negative, got: {depth}")
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= indices.ndim:
        raise errors.InvalidArgumentError(
            f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: {axis}"
        )
    value = np.where(indices[..., None] == np.arange(depth), on, off).astype(dtype)
    if axis != -1:
        value = np.moveaxis(value, -1, axis)
    return _op("OneHot", [indices], np.ascontiguousarray(value))


def _arg_reduce(op_type, pick, skipped_nan, input, axis, output_type):
    """The index `pick` (np.argmax or np.argmin) chooses along `axis` (default 0), the first on
    ties; NaNs never chosen over a number (they are `skipped_nan` to it), as TensorFlow's
    comparisons skip them."""
    x = _tensor(input)
    axis = 0 if axis is None else int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(
            f"Expected dimension in the range [{-x.ndim}, {x.ndim}), but got {axis} [Op:{op_type}]"
        )
    if x.shape[axis] == 0:
        raise errors.InvalidArgumentError(
            f"Reduction axis 0 is empty in shape {_text(x.shape)} [Op:{op_type}]"
        )
    values = x
    if x.dtype.kind == "f" and np.isnan(x).any():
        values = np.where(np.isnan(x), skipped_nan, x)
    return _op(op_type, [x], pick(values, axis=axis).astype(output_type))


def argmax(
    input: ArrayLike,
    axis: int | Sequence[int] | None = None,
    output_type: DTypeLike = np.int64,
    name: str | None = None,
) -> np.ndarray:
    """The index of the largest value along `axis` (default 0, as tf.math.argmax), the first
    on ties, as int64 (or int32 by output_type).

    Args:
        input: an array or Python value.
        axis: the axis to reduce; None: 0.
        output_type: int64 or int32.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the axis is out of range or empty.
    """
    del name
    return _arg_reduce("ArgMax", np.argmax, -np.inf, input, axis, output_type)


def argmin(
    input: ArrayLike,
    axis: int | Sequence[int] | None = None,
    output_type: DTypeLike = np.int64,
    name: str | None = None,
) -> np.ndarray:
    """The index of the smallest value along `axis` (default 0, as tf.math.argmin), the first
    on ties, as int64 (or int32 by output_type).

    Args:
        input: an array or Python value.
        axis: the axis to reduce; None: 0.
        output_type: int64 or int32.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: the axis is out of range or empty.
    """
    del name
    return _arg_reduce("ArgMin", np.argmin, np.inf, input, axis, output_type)


# --- gradients (as TensorFlow's math_grad, written with the functions above) -------------------


def _unbroadcast(grad, shape):
    """grad summed over the axes broadcasting added or stretched, shaped `shape`."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = list(range(lead)) + [
        lead + i for i, d in enumerate(shape) if d == 1 and grad.shape[lead + i] != 1
    ]
    summed = reduce_sum(grad, axis=axes) if axes else grad
    return reshape(summed, shape) if summed.shape != shape else summed


def _const(value, like):
    return np.asarray(value, dtype=like.dtype)


@RegisterGradient("AddV2")
def _add_grad(op, grad):
    x, y = op.inputs
    return [_unbroadcast(grad, x.shape), _unbroadcast(grad, y.shape)]


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    x, y = op.inputs
    return [_unbroadcast(grad, x.shape), _unbroadcast(negative(grad), y.shape)]


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    return [
        _unbroadcast(multiply(grad, conj(y)), x.shape),
        _unbroadcast(multiply(conj(x), grad), y.shape),
    ]


@RegisterGradient("RealDiv")
def _real_div_grad(op, grad):
    x, y = (conj(v) for v in op.inputs)  # complex operands conjugated, as TensorFlow's
    dy = multiply(grad, divide(divide(negative(x), y), y))
    return [_unbroadcast(divide(grad, y), x.shape), _unbroadcast(dy, y.shape)]


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = (conj(v) for v in op.inputs)
    dy = multiply(grad, divide_no_nan(divide_no_nan(negative(x), y), y))
    return [_unbroadcast(divide_no_nan(grad, y), x.shape), _unbroadcast(dy, y.shape)]


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    x, y = (conj(v) for v in op.inputs)
    dy = multiply(grad, negative(floordiv(x, y)))
    return [_unbroadcast(grad, x.shape), _unbroadcast(dy, y.shape)]


@RegisterGradient("Atan2")
def _atan2_grad(op, grad):
    y, x = op.inputs
    scaled = divide(grad, add(square(x), square(y)))
    return [_unbroadcast(multiply(x, scaled), y.shape),
            _unbroadcast(multiply(negative(y), scaled), x.shape)]  # fmt: skip


@RegisterGradient("Sin")
def _sin_grad(op, grad):
    return [multiply(grad, cos(conj(op.inputs[0])))]


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    return [multiply(negative(grad), sin(conj(op.inputs[0])))]


@RegisterGradient("Tan")
def _tan_grad(op, grad):
    return [multiply(grad, square(reciprocal(cos(conj(op.inputs[0])))))]


def _one_minus_square(x):
    x = conj(x)
    return subtract(_const(1, x), square(x))


@RegisterGradient("Asin")
def _asin_grad(op, grad):
    return [multiply(grad, reciprocal(sqrt(_one_minus_square(op.inputs[0]))))]


@RegisterGradient("Acos")
def _acos_grad(op, grad):
    return [multiply(negative(grad), reciprocal(sqrt(_one_minus_square(op.inputs[0]))))]


@RegisterGradient("Atan")
def _atan_grad(op, grad):
    x = conj(op.inputs[0])
    return [multiply(grad, reciprocal(add(_const(1, x), square(x))))]


@RegisterGradient("Sinh")
def _sinh_grad(op, grad):
    return [multiply(grad, cosh(conj(op.inputs[0])))]


@RegisterGradient("Cosh")
def _cosh_grad(op, grad):
    return [multiply(grad, sinh(conj(op.inputs[0])))]


@RegisterGradient("Asinh")
def _asinh_grad(op, grad):
    return [divide(grad, cosh(conj(op.outputs[0])))]


@RegisterGradient("Acosh")
def _acosh_grad(op, grad):
    return [divide(grad, sinh(conj(op.outputs[0])))]


@RegisterGradient("Atanh")
def _atanh_grad(op, grad):
    return [multiply(grad, reciprocal(_one_minus_square(op.inputs[0])))]


@RegisterGradient("Expm1")
def _expm1_grad(op, grad):
    return [multiply(grad, exp(conj(op.inputs[0])))]


@RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    x = conj(op.inputs[0])
    return [multiply(grad, reciprocal(add(_const(1, x), x)))]


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op, grad):
    y = conj(op.outputs[0])  # TensorFlow's RsqrtGrad: dy * -0.5 * y ** 3
    return [multiply(multiply(grad, _const(-0.5, y)), multiply(square(y), y))]


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    return [multiply(grad, sigmoid(op.inputs[0]))]


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return [multiply(grad, sign(op.inputs[0]))]


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    x = op.inputs[0]
    return [divide_no_nan(multiply(cast(grad, x.dtype), x), cast(op.outputs[0], x.dtype))]


@RegisterGradient("Sign")
def _sign_grad(op, grad):
    return [np.zeros_like(op.inputs[0])]


@RegisterGradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    parts = op.outputs
    return [stack([np.zeros_like(p) if g is None else g for p, g in zip(parts, grads)],
                  axis=op.get_attr("axis"))]  # fmt: skip


@RegisterGradient("Complex")
def _complex_grad(op, grad):
    x, y = op.inputs
    return [_unbroadcast(real(grad), x.shape), _unbroadcast(imag(grad), y.shape)]


@RegisterGradient("Real")
def _real_grad(op, grad):
    return [complex(grad, np.zeros_like(grad))]


@RegisterGradient("Imag")
def _imag_grad(op, grad):
    return [complex(np.zeros_like(grad), grad)]


@RegisterGradient("Angle")
def _angle_grad(op, grad):
    x = op.inputs[0]
    z = reciprocal(complex(imag(x), real(x)))  # TensorFlow's: -grad / (im + re * 1j)
    return [multiply(negative(complex(grad, np.zeros_like(grad))), z)]


@RegisterGradient("Neg")
def _neg_grad(op, grad):
    return [negative(grad)]


@RegisterGradient("Square")
def _square_grad(op, grad):
    (x,) = op.inputs
    return [multiply(grad, multiply(_const(2, x), conj(x)))]


@RegisterGradient("Sqrt")
def _sqrt_grad(op, grad):
    return [_sqrt_grad_op(op.outputs[0], grad)]


def _sqrt_grad_op(y, dy):
    """TensorFlow's SqrtGrad(y, dy) = dy * 0.5 / y, one recorded op as there (its own gradient
    below gives TF's second derivative to the last bit)."""
    dy = cast(dy, y.dtype)
    with np.errstate(all="ignore"):
        return _op("SqrtGrad", [y, dy], dy * _const(0.5, y) / np.conj(y))


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    a = op.inputs[0]
    ga = divide(grad, a)
    return [multiply(negative(conj(ga)), op.outputs[0]), multiply(_const(0.5, ga), ga)]


@RegisterGradient("Exp")
def _exp_grad(op, grad):
    return [multiply(grad, conj(op.outputs[0]))]


@RegisterGradient("Log")
def _log_grad(op, grad):
    return [multiply(grad, reciprocal(conj(op.inputs[0])))]


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    """TensorFlow's: y * x ** (y - 1) for x, and z * log(x) for y where x > 0 (complex: where
    x != 0), else 0; complex operands conjugated."""
    x, y, z = conj(op.inputs[0]), conj(op.inputs[1]), conj(op.outputs[0])
    one = _const(1, y)
    # Multiplied in TensorFlow's order (grad first): a zero grad then zeroes an overflowed
    # factor instead of making 0 * inf = NaN.
    gx = multiply(multiply(grad, y), pow(x, subtract(y, one)))
    mask = x != 0 if x.dtype.kind == "c" else x > 0
    positive = np.broadcast_to(mask, z.shape)
    safe_x = where(np.broadcast_to(mask, x.shape), x, np.ones_like(x))
    log_x = where(positive, broadcast_to(log(safe_x), z.shape), np.zeros_like(z))
    gy = multiply(multiply(grad, z), log_x)
    return [_unbroadcast(gx, x.shape), _unbroadcast(gy, y.shape)]


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op, grad):
    y = op.outputs[0]
    if y.dtype.kind == "c":  # TF's SigmoidGrad for complex: dy * conj(y * (1 - y))
        return [multiply(grad, conj(multiply(y, subtract(_const(1, y), y))))]
    return [gen_nn_ops.sigmoid_grad(y, cast(grad, y.dtype))]


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    y, dy = op.inputs
    gb = multiply(grad, dy)
    return [
        subtract(gb, multiply(multiply(_const(2, gb), gb), y)),
        gen_nn_ops.sigmoid_grad(y, grad),
    ]


@RegisterGradient("Tanh")
def _tanh_grad(op, grad):
    y = op.outputs[0]
    if y.dtype.kind == "c":  # TF's TanhGrad for complex: dy * conj(1 - y * y)
        return [multiply(grad, conj(subtract(_const(1, y), multiply(y, y))))]
    return [gen_nn_ops.tanh_grad(y, cast(grad, y.dtype))]


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    y, dy = op.inputs
    return [
        multiply(multiply(multiply(grad, _const(-2, grad)), dy), y),
        gen_nn_ops.tanh_grad(y, grad),
    ]


@RegisterGradient("Erf")
def _erf_grad(op, grad):
    # The caller's x, not the kernel's input (float16 and bfloat16 ran as float32 copies), so
    # an outer tape connects this gradient to x.
    x = cast(op.sources[0], grad.dtype)
    two_over_root_pi = _const(2 / np.sqrt(np.pi), grad)
    return [multiply(multiply(grad, two_over_root_pi), exp(negative(square(x))))]


@RegisterGradient("Erfc")
def _erfc_grad(op, grad):
    x = cast(op.sources[0], grad.dtype)  # as _erf_grad
    minus_two_over_root_pi = _const(-2 / np.sqrt(np.pi), grad)
    return [multiply(multiply(grad, minus_two_over_root_pi), exp(negative(square(x))))]


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op, grad):
    y = conj(op.outputs[0])
    return [multiply(negative(grad), multiply(y, y))]  # TensorFlow's ReciprocalGrad


def _select_grad(op, grad, x_wins):
    x, y = op.inputs
    zeros = np.zeros_like(grad)
    return [
        _unbroadcast(where(x_wins, grad, zeros), x.shape),
        _unbroadcast(where(x_wins, zeros, grad), y.shape),
    ]


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    x, y = op.inputs
    return _select_grad(op, grad, np.broadcast_to(x >= y, grad.shape))


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    x, y = op.inputs
    return _select_grad(op, grad, np.broadcast_to(x <= y, grad.shape))


@RegisterGradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


@RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    condition, x, y = op.inputs
    zeros = np.zeros_like(grad)
    return [
        None,
        _unbroadcast(where(condition, grad, zeros), x.shape),
        _unbroadcast(where(condition, zeros, grad), y.shape),
    ]


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    return [_unbroadcast(grad, op.inputs[0].shape)]


def _kept_shape(op):
    x = op.inputs[0]
    axes = op.get_attr("axes")
    return [1 if i in axes else d for i, d in enumerate(x.shape)]


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    x = op.inputs[0]
    return [broadcast_to(reshape(grad, _kept_shape(op)), x.shape)]


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    x = op.inputs[0]
    count = int(np.prod([x.shape[a] for a in op.get_attr("axes")], dtype=np.int64))
    spread = broadcast_to(reshape(grad, _kept_shape(op)), x.shape)
    return [divide(spread, _const(max(count, 1), spread))]


@RegisterGradient("Max")
@RegisterGradient("Min")
def _min_or_max_grad(op, grad):
    x = op.inputs[0]
    kept = _kept_shape(op)
    y = np.reshape(op.outputs[0], kept)
    indicators = cast(equal(y, x), grad.dtype)  # every tied extreme shares the gradient
    selected = reshape(reduce_sum(indicators, axis=op.get_attr("axes")), kept)
    return [multiply(divide(indicators, selected), reshape(grad, kept))]


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    # TensorFlow's: the product of the other elements of each reduced group, as the product
    # of exclusive running products from either end, so that zeros need no division.
    x = op.inputs[0]
    axes = list(op.get_attr("axes"))
    grad = broadcast_to(reshape(grad, _kept_shape(op)), x.shape)
    others = [i for i in range(x.ndim) if i not in axes]
    perm = axes + others
    permuted = transpose(x, perm) if x.ndim else x
    groups, size = (int(np.prod([x.shape[i] for i in a], dtype=np.int64)) for a in (axes, others))
    rows = reshape(permuted, [groups, size])
    left = cumprod(rows, 0, exclusive=True)
    right = cumprod(rows, 0, exclusive=True, reverse=True)
    y = reshape(multiply(conj(left), conj(right)), permuted.shape)
    return [multiply(grad, transpose(y, np.argsort(perm)) if x.ndim else y)]


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    kept = _kept_shape(op)
    norm = reshape(op.outputs[0], kept)
    return [divide(op.inputs[0], divide(norm, reshape(grad, kept)))]


@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    axis, exclusive = op.get_attr("axis"), op.get_attr("exclusive")
    return [cumsum(grad, axis, exclusive=exclusive, reverse=not op.get_attr("reverse"))]


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    # TensorFlow's, which divides by x (no_nan: a zero in x gets 0 there).
    x = op.inputs[0]
    axis, exclusive, reverse = (op.get_attr(a) for a in ("axis", "exclusive", "reverse"))
    running = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    total = cumsum(multiply(running, grad), axis, exclusive=exclusive, reverse=not reverse)
    return [divide_no_nan(total, x)]


@RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    return [reshape(grad, op.inputs[0].shape)]


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    return [transpose(grad, np.argsort(op.get_attr("perm")))]


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    # TensorFlow's: between float and complex dtypes the gradient is cast back.
    x = op.inputs[0]
    dtypes = (x.dtype, np.dtype(op.get_attr("DstT")))
    if all(t in _FLOATS or t.kind == "c" or t.name == "bfloat16" for t in dtypes):
        return [cast(grad, x.dtype)]
    return [None]


@RegisterGradient("Conj")
def _conj_grad(op, grad):
    return [conj(grad)]


@RegisterGradient("Identity")
def _identity_grad(op, grad):
    return [grad]


for _op_type in ("OneHot", "ArgMax", "ArgMin", "StopGradient", "All", "Any", "FloorDiv", "Equal",
                 "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                 "LogicalOr", "LogicalNot", "IsFinite", "IsInf", "IsNan", "Floor", "Ceil",
                 "Rint", "Round"):  # fmt: skip
    NotDifferentiable(_op_type)

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "add_n",
    "angle",
    "argmax",
    "argmin",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "broadcast_to",
    "cast",
    "ceil",
    "complex",
    "conj",
    "cos",
    "cosh",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "divide",
    "divide_no_nan",
    "equal",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "floor",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "identity",
    "imag",
    "is_finite",
    "is_inf",
    "is_nan",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log_sigmoid",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "one_hot",
    "polyval",
    "pow",
    "real",
    "reciprocal",
    "reduce_all",
    "reduce_any",
    "reduce_euclidean_norm",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "reshape",
    "rint",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "sqrt",
    "square",
    "stack",
    "stop_gradient",
    "subtract",
    "tan",
    "tanh",
    "transpose",
    "truediv",
    "unstack",
    "where",
]
