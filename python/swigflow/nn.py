"""Neural-network ops with tf.nn's signatures: convolutions, pooling, bias, activations.

Float32 NHWC activations and HWIO filters; each call runs registered C++ ops through their
generated wrappers (swigflow.ops.gen_nn_ops), so gradients come from the registry (see the
bottom of this module).
"""

import numpy as np

from swigflow import errors
from swigflow.ops import RegisterGradient, custom_gradient, gen_nn_ops


def _spatial(value, name):
    """An int, or 1, 2 or 4 ints, as the 4-vector NHWC ops take (tf.nn's convention)."""
    if value is None:
        return [1, 1, 1, 1]
    if np.isscalar(value):
        return [1, int(value), int(value), 1]
    value = [int(v) for v in value]
    if len(value) == 1:
        return [1, value[0], value[0], 1]
    if len(value) == 2:
        return [1, value[0], value[1], 1]
    if len(value) == 4:
        return value
    raise errors.InvalidArgumentError(f"{name} should be of length 1, 2 or 4, got {len(value)}")


def _padding(padding):
    """("SAME" | "VALID" | "EXPLICIT", explicit_paddings) from a string or [[t, b], [l, r]] /
    4 NHWC pairs."""
    if isinstance(padding, str):
        return padding.upper(), []
    pairs = [[int(a), int(b)] for a, b in padding]
    if len(pairs) == 2:
        pairs = [[0, 0], *pairs, [0, 0]]
    if len(pairs) != 4:
        raise errors.InvalidArgumentError(
            f"explicit padding must have 2 or 4 [before, after] pairs, got {len(pairs)}"
        )
    return "EXPLICIT", [p for pair in pairs for p in pair]


def _conv_attrs(strides, padding, data_format, dilations):
    padding, explicit = _padding(padding)
    return {
        "strides": _spatial(strides, "strides"),
        "padding": padding,
        "explicit_paddings": explicit,
        "data_format": data_format,
        "dilations": _spatial(dilations, "dilations"),
    }


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """tf.nn.conv2d: [N, H, W, C] * [KH, KW, C, OC] -> [N, OH, OW, OC].

    padding: "SAME" (extra cell at the bottom/right), "VALID", or explicit [[top, bottom],
    [left, right]] (or 4 NHWC pairs).
    """
    del name
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    if np.ndim(input) > 4:  # extra leading batch dimensions, as tf.nn.conv2d takes them
        return custom_gradient(_conv2d_batched(attrs))(input, filters)
    return gen_nn_ops.conv2d(input, filters, **attrs)


def _conv2d_batched(attrs):
    """Conv2D over inputs with several batch dimensions: folded into one, one taped operation."""

    def conv2d_batched(x, w):
        x = np.asarray(x)
        lead = x.shape[:-3]
        flat = x.reshape(-1, *x.shape[-3:])
        y = gen_nn_ops.conv2d(flat, w, **attrs)

        def grad(dy):
            dy = np.asarray(dy).reshape(-1, *y.shape[1:])
            dx = gen_nn_ops.conv2d_backprop_input(_shape(flat), w, dy, **attrs)
            dw = gen_nn_ops.conv2d_backprop_filter(flat, _shape(w), dy, **attrs)
            return [dx.reshape(x.shape), dw]

        return y.reshape(*lead, *y.shape[1:]), grad

    return conv2d_batched


def conv2d_backprop_input(
    input_sizes, filters, out_backprop, strides, padding, data_format="NHWC", dilations=None,
    name=None,
):  # fmt: skip
    """The gradient of conv2d with respect to its input (tf.nn.conv2d_backprop_input).
    input_sizes: the input's 4 dimensions, or only its 2 spatial ones (batch and channels then
    come from out_backprop and filters, as TensorFlow allows)."""
    del name
    sizes = np.asarray(input_sizes, dtype=np.int32)
    if sizes.shape == (2,):
        batch, channels = np.shape(out_backprop)[0], np.shape(filters)[2]
        h, w = (int(v) for v in sizes)
        sizes = np.asarray(
            [batch, channels, h, w] if data_format == "NCHW" else [batch, h, w, channels], np.int32
        )
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return gen_nn_ops.conv2d_backprop_input(sizes, filters, out_backprop, **attrs)


def conv2d_backprop_filter(
    input, filter_sizes, out_backprop, strides, padding, data_format="NHWC", dilations=None,
    name=None,
):  # fmt: skip
    """The gradient of conv2d with respect to its filter (tf.nn.conv2d_backprop_filter)."""
    del name
    sizes = np.asarray(filter_sizes, dtype=np.int32)
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return gen_nn_ops.conv2d_backprop_filter(input, sizes, out_backprop, **attrs)


def _pool_attrs(ksize, strides, padding, data_format):
    return {
        "ksize": _spatial(ksize, "ksize"),
        "strides": _spatial(strides, "strides"),
        "padding": padding.upper(),
        "data_format": data_format or "NHWC",
    }


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.max_pool2d: the max of each window; padded cells never win.

    padding: "SAME", "VALID", or explicit [[top, bottom], [left, right]] (or 4 NHWC pairs),
    each smaller than the window. ksize/strides of 4 values with a depth window
    ([1, 1, 1, k], strides [1, 1, 1, k]) pool k channels at a time instead.
    """
    del name
    padding, explicit = _padding(padding)
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    return gen_nn_ops.max_pool(input, explicit_paddings=explicit, **attrs)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """tf.nn.avg_pool2d: the mean of each window over its real (unpadded) cells."""
    del name
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return gen_nn_ops.avg_pool(input, **_pool_attrs(ksize, strides, padding, data_format))


max_pool = max_pool2d
avg_pool = avg_pool2d


def bias_add(value, bias, data_format=None, name=None):
    """tf.nn.bias_add: value + bias along the channel axis (last, or 1 for NCHW)."""
    del name
    return gen_nn_ops.bias_add(value, bias, data_format=data_format or "NHWC")


def relu(features, name=None):
    """tf.nn.relu."""
    del name
    return gen_nn_ops.relu(features)


def softmax(logits, axis=None, name=None):
    """tf.nn.softmax along `axis` (the last by default)."""
    del name
    return _along_axis(gen_nn_ops.softmax, _softmax_input_grad, logits, axis)


def log_softmax(logits, axis=None, name=None):
    """tf.nn.log_softmax along `axis` (the last by default): logits - log(sum(exp(logits)))."""
    del name
    return _along_axis(gen_nn_ops.log_softmax, _log_softmax_input_grad, logits, axis)


def _along_axis(op, input_grad, logits, axis):
    """A last-axis op (a generated wrapper) applied along `axis`: moved last, computed, moved
    back, as one taped operation whose gradient input_grad(dy, y, axis) gives."""
    ndim = np.ndim(logits)
    if axis is None or axis in (-1, ndim - 1) or ndim == 0:
        return op(logits)
    if not -ndim <= axis < ndim:
        raise errors.InvalidArgumentError(
            f"`dim` must be in the range [{-ndim}, {ndim}) where {ndim} is the number of "
            f"dimensions in the input. Received: dim={axis}"
        )

    def along_axis(x):
        y = np.moveaxis(op(np.moveaxis(np.asarray(x), axis, -1)), -1, axis)
        return y, lambda dy: input_grad(dy, y, axis).astype(y.dtype)

    along_axis.__name__ = f"{op.__name__}_along_axis"
    return custom_gradient(along_axis)(logits)


def _softmax_input_grad(dy, y, axis):
    """(dy - sum(dy * y)) * y, with dy taken relative to the most likely class k first: since
    sum(y) = 1 the result is the same, but dy_i - sum(dy * y) no longer cancels to 0 when
    y_k is 1 - tiny, so tiny components keep their gradient (TensorFlow's newer rule)."""
    k = np.argmax(y, axis=axis)
    d = dy - np.take_along_axis(dy, np.expand_dims(k, axis), axis=axis)
    return (d - np.sum(d * y, axis=axis, keepdims=True)) * y


def _log_softmax_input_grad(dy, y, axis):
    return dy - np.sum(dy, axis=axis, keepdims=True) * np.exp(y)


# --- gradients (each in terms of registered ops, as TensorFlow's nn_grad) -----------------------


def _shape(x):
    return np.asarray(np.shape(x), dtype=np.int32)


def _same_attrs(op, names):
    return {n: op.get_attr(n) for n in names}


_CONV = ("strides", "padding", "explicit_paddings", "data_format", "dilations")
_POOL = ("ksize", "strides", "padding", "data_format")
_MAX_POOL = (*_POOL, "explicit_paddings")


@RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")

    def mm(x, y, tx, ty):
        return gen_nn_ops.mat_mul(x, y, transpose_a=tx, transpose_b=ty)

    if not ta and not tb:
        return [mm(grad, b, False, True), mm(a, grad, True, False)]
    if not ta and tb:
        return [mm(grad, b, False, False), mm(grad, a, True, False)]
    if ta and not tb:
        return [mm(b, grad, False, True), mm(a, grad, False, False)]
    return [mm(b, grad, True, True), mm(grad, a, True, True)]


@RegisterGradient("Conv2D")
def _conv2d_grad(op, grad):
    x, w = op.inputs
    attrs = _same_attrs(op, _CONV)
    return [
        gen_nn_ops.conv2d_backprop_input(_shape(x), w, grad, **attrs),
        gen_nn_ops.conv2d_backprop_filter(x, _shape(w), grad, **attrs),
    ]


@RegisterGradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    attrs = _same_attrs(op, _CONV)
    return [
        None,
        gen_nn_ops.conv2d_backprop_filter(grad, _shape(w), dy, **attrs),
        gen_nn_ops.conv2d(grad, w, **attrs),
    ]


@RegisterGradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    attrs = _same_attrs(op, _CONV)
    return [
        gen_nn_ops.conv2d_backprop_input(_shape(x), grad, dy, **attrs),
        None,
        gen_nn_ops.conv2d(x, grad, **attrs),
    ]


@RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return [gen_nn_ops.max_pool_grad(x, y, grad, **_same_attrs(op, _MAX_POOL))]


@RegisterGradient("AvgPool")
def _avg_pool_grad(op, grad):
    return [gen_nn_ops.avg_pool_grad(_shape(op.inputs[0]), grad, **_same_attrs(op, _POOL))]


@RegisterGradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    x, y, _ = op.inputs
    # MaxPoolGrad moves each window's gradient to one cell: its adjoint reads that cell back.
    attrs = _same_attrs(op, _MAX_POOL)
    return [np.zeros_like(x), np.zeros_like(y), gen_nn_ops.max_pool_grad_grad(x, y, grad, **attrs)]


@RegisterGradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    x, y, _ = op.inputs
    attrs = _same_attrs(op, _MAX_POOL)
    return [np.zeros_like(x), np.zeros_like(y), gen_nn_ops.max_pool_grad(x, y, grad, **attrs)]


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return [None, gen_nn_ops.avg_pool(grad, **_same_attrs(op, _POOL))]


@RegisterGradient("BiasAdd")
def _bias_add_grad(op, grad):
    return [grad, gen_nn_ops.bias_add_grad(grad, data_format=op.get_attr("data_format"))]


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    dy = op.inputs[0]
    shape = [1] * dy.ndim
    axis = 1 if op.get_attr("data_format") == "NCHW" else dy.ndim - 1
    shape[axis] = -1
    return [np.broadcast_to(grad.reshape(shape), dy.shape).astype(dy.dtype)]


@RegisterGradient("Relu")
def _relu_grad(op, grad):
    return [gen_nn_ops.relu_grad(grad, op.outputs[0])]


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    _, features = op.inputs
    return [gen_nn_ops.relu_grad(grad, features), np.zeros_like(features)]


@RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    y = op.outputs[0]
    return [_softmax_input_grad(grad, y, -1).astype(y.dtype)]


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    y = op.outputs[0]
    return [_log_softmax_input_grad(grad, y, -1).astype(y.dtype)]


__all__ = [
    "avg_pool",
    "avg_pool2d",
    "bias_add",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "log_softmax",
    "max_pool",
    "max_pool2d",
    "relu",
    "softmax",
]
