"""Neural-network ops with tf.nn's signatures: convolutions, pooling, bias, activations.

Float32 NHWC activations and HWIO filters; each call runs registered C++ ops through their
generated wrappers (swigflow.ops.gen_nn_ops), so gradients come from the registry (see the
bottom of this module).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from swigflow import errors, math
from swigflow.math import sigmoid as sigmoid  # tf.nn's names for them too (re-exported)
from swigflow.math import softplus as softplus
from swigflow.math import tanh as tanh
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


def _padding(padding, expected_length=4):
    """("SAME" | "VALID" | "EXPLICIT", explicit_paddings) from a string or a list of
    `expected_length` [before, after] pairs (one per dimension, batch and depth included), with
    TensorFlow's checks and messages."""
    if isinstance(padding, str):
        return padding.upper(), []
    if len(padding) != expected_length:
        raise ValueError(
            f"When padding is a list, it must be of size {expected_length}. Received: "
            f"padding={padding} of size {len(padding)}"
        )
    for i, pair in enumerate(padding):
        if not isinstance(pair, (list, tuple)):
            raise ValueError(
                "When `padding` is a list, each element of `padding` must be a list/tuple of "
                f"size 2. Received: padding={padding} with element at index {i} of type "
                f"{type(pair)}"
            )
        if len(pair) != 2:
            raise ValueError(
                "When `padding` is a list, each element of `padding` must be a list/tuple of "
                f"size 2. Received: padding={padding} with element at index {i} of size "
                f"{len(pair)}"
            )
    return "EXPLICIT", [int(p) for pair in padding for p in pair]


def _conv_attrs(strides, padding, data_format, dilations):
    padding, explicit = _padding(padding)
    return {
        "strides": _spatial(strides, "strides"),
        "padding": padding,
        "explicit_paddings": explicit,
        "data_format": data_format,
        "dilations": _spatial(dilations, "dilations"),
    }


def conv2d(
    input: ArrayLike,
    filters: ArrayLike,
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.conv2d: [N, H, W, C] * [KH, KW, C / groups, OC] -> [N, OH, OW, OC].

    Inputs may have extra leading batch dimensions. A filter with fewer input channels than the
    input makes a grouped convolution, as in TensorFlow. padding: "SAME" (the extra cell at the
    bottom/right), "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
    float32, float64, float16 (computed in float32) and int32 (sums wrap, as TensorFlow's).

    Args:
        input: [N, H, W, C] (or NCHW), with optional extra leading batch dimensions.
        filters: [KH, KW, C / groups, OC].
        strides: an int, or one per spatial dimension, or 4 values with 1 for batch and
            channels.
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
            (in data_format's order).
        data_format: "NHWC" (the default) or "NCHW".
        dilations: an int, or one per spatial dimension (or 4 values), the filter's dilation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        InvalidArgumentError: shapes, strides, padding or dtypes that do not fit.
    """
    del name
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    if np.ndim(input) > 4:  # extra leading batch dimensions, as tf.nn.conv2d takes them
        return custom_gradient(_conv2d_reshaped(attrs, 4))(input, filters)
    return gen_nn_ops.conv2d(input, filters, **attrs)


def _conv2d_reshaped(attrs, input_rank, filter_shape=None):
    """Conv2D of an input reshaped to rank 4 (its leading dimensions folded into the batch, or a
    rank-3 input given H = 1), and of a filter reshaped to `filter_shape` where given, as one
    taped operation: gradients come back in the callers' shapes."""

    def conv2d_reshaped(x, w):
        x, w = np.asarray(x), np.asarray(w)
        image = x.shape[-3:] if input_rank == 4 else (1, *x.shape[-2:])
        flat = x.reshape(-1, *image)
        w4 = w.reshape(filter_shape) if filter_shape is not None else w
        y = gen_nn_ops.conv2d(flat, w4, **attrs)

        def grad(dy):  # recorded ops only: differentiable again
            dy = math.reshape(dy, y.shape)
            flat_x, flat_w = math.reshape(x, flat.shape), math.reshape(w, w4.shape)
            dx = gen_nn_ops.conv2d_backprop_input(_shape(flat), flat_w, dy, **attrs)
            dw = gen_nn_ops.conv2d_backprop_filter(flat_x, _shape(w4), dy, **attrs)
            return [math.reshape(dx, x.shape), math.reshape(dw, w.shape)]

        lead = x.shape[:-3] if input_rank == 4 else x.shape[:-2]
        return y.reshape(*lead, *y.shape[-3 if input_rank == 4 else -2 :]), grad

    return conv2d_reshaped


def convolution(
    input: ArrayLike,
    filters: ArrayLike,
    strides: int | Sequence[int] | None = None,
    padding: str | Sequence[Sequence[int]] = "VALID",
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.convolution for 1 or 2 spatial dimensions (the filter's rank less 2): conv1d as a
    conv2d of height 1, conv2d with any number of leading batch dimensions. strides and
    dilations: an int or one per spatial dimension; both above 1 at once is TensorFlow's
    ValueError.

    Args:
        input: [N, W, C] or [N, H, W, C] (channels first with data_format "NCW"/"NCHW").
        filters: [KW, C, OC] or [KH, KW, C / groups, OC].
        strides: an int or one per spatial dimension.
        padding: "SAME" or "VALID".
        data_format: "NWC"/"NCW" or "NHWC"/"NCHW"; None: channels last.
        dilations: an int or one per spatial dimension.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.

    Raises:
        ValueError: strides and dilations both above 1.
        UnimplementedError: a filter for 3 or more spatial dimensions.
    """
    del name
    spatial = np.ndim(filters) - 2
    if spatial not in (1, 2):
        raise errors.UnimplementedError(
            f"convolution: swigflow convolves 1 or 2 spatial dimensions, the filter has {spatial}"
        )
    strides = _per_dimension(strides, spatial, "strides")
    dilations = _per_dimension(dilations, spatial, "dilations")
    if any(s > 1 for s in strides) and any(d > 1 for d in dilations):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    channels_first = data_format is not None and data_format.startswith("NC")
    if spatial == 1:
        padding2 = padding  # [N, W, C] pairs gain an H pair of zeros, as the input gains H = 1
        if not isinstance(padding, str):
            _padding(padding, 3)
            padding2 = [list(padding[0]), [0, 0], *(list(p) for p in padding[1:])]
        attrs = _conv_attrs(
            [1, *strides], padding2, "NCHW" if channels_first else "NHWC", [1, *dilations]
        )
        return custom_gradient(
            _conv2d_reshaped(attrs, 3, (1, *np.shape(filters)))
        )(input, filters)  # fmt: skip
    return conv2d(input, filters, strides, padding, "NCHW" if channels_first else "NHWC", dilations)


def _per_dimension(value, n, name):
    """An int or n ints (None: 1s), as tf.nn.convolution's strides and dilations."""
    if value is None:
        return [1] * n
    if np.isscalar(value):
        return [int(value)] * n
    value = [int(v) for v in value]
    if len(value) != n:
        raise ValueError(f"{name} should be of length {n}, got {len(value)}")
    return value


def depthwise_conv2d(
    input: ArrayLike,
    filter: ArrayLike,
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.depthwise_conv2d: each input channel c convolved with its own filter[:, :, c, :]
    ([KH, KW, C, M]), giving channels c * M + m. A grouped conv2d with one group per channel,
    taped as one operation (the filter's gradient comes back as [KH, KW, C, M]).

    Args:
        input: [N, H, W, C] (or NCHW).
        filter: [KH, KW, C, M].
        strides: an int, or one per spatial dimension, or 4 values with 1 for batch and
            channels.
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
            (in data_format's order).
        data_format: "NHWC" (the default) or "NCHW".
        dilations: an int, or one per spatial dimension (or 4 values), the filter's dilation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    kh, kw, c, m = np.shape(filter)
    attrs = _conv_attrs(strides, padding, data_format or "NHWC", dilations)
    if np.ndim(input) != 4:
        raise errors.InvalidArgumentError(
            f"depthwise_conv2d: input must be 4-dimensional, got shape {np.shape(input)}"
        )
    if np.shape(input)[3] != c:
        raise errors.InvalidArgumentError(
            f"input and filter must have the same depth: {np.shape(input)[3]} vs {c}"
        )
    return custom_gradient(_conv2d_reshaped(attrs, 4, (kh, kw, 1, c * m)))(input, filter)


def separable_conv2d(
    input: ArrayLike,
    depthwise_filter: ArrayLike,
    pointwise_filter: ArrayLike,
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.separable_conv2d: depthwise_conv2d, then a 1x1 conv2d with pointwise_filter
    ([1, 1, C * M, OC]).

    Args:
        input: [N, H, W, C] (or NCHW).
        depthwise_filter: [KH, KW, C, M].
        pointwise_filter: [1, 1, C * M, OC].
        strides: an int, or one per spatial dimension, or 4 values with 1 for batch and
            channels.
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
            (in data_format's order).
        data_format: "NHWC" (the default) or "NCHW".
        dilations: an int, or one per spatial dimension (or 4 values), the filter's dilation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    pointwise_shape = np.shape(pointwise_filter)
    if len(pointwise_shape) != 4 or pointwise_shape[:2] != (1, 1):
        raise ValueError(
            f"pointwise_filter must be [1, 1, in_channels * channel_multiplier, out_channels], "
            f"got shape {pointwise_shape}"
        )
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID", data_format or "NHWC")


def _int32_sizes(values, name):
    """A sizes operand as the int32 tensor the op takes; values out of int32's range are refused
    as TensorFlow refuses them, with InvalidArgumentError rather than numpy's OverflowError."""
    sizes = np.asarray(values)
    if (
        sizes.dtype.kind in "iu"
        and sizes.size
        and (sizes.min() < np.iinfo(np.int32).min or sizes.max() > np.iinfo(np.int32).max)
    ):
        raise errors.InvalidArgumentError(f"{name} has values out of range for int32: {values}")
    return sizes.astype(np.int32)


def conv2d_backprop_input(
    input_sizes: ArrayLike,
    filters: ArrayLike,
    out_backprop: ArrayLike,
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """The gradient of conv2d with respect to its input (tf.nn.conv2d_backprop_input).
    input_sizes: the input's 4 dimensions, or only its 2 spatial ones (batch and channels then
    come from out_backprop and filters, as TensorFlow allows).

    Args:
        input_sizes: the input's shape (4 values, or its 2 spatial ones).
        filters: [KH, KW, C / groups, OC].
        out_backprop: the gradient of conv2d's output.
        strides: an int, or one per spatial dimension, or 4 values with 1 for batch and
            channels.
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
            (in data_format's order).
        data_format: "NHWC" (the default) or "NCHW".
        dilations: an int, or one per spatial dimension (or 4 values), the filter's dilation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return gen_nn_ops.conv2d_backprop_input(
        _int32_sizes(input_sizes, "input_sizes"), filters, out_backprop, **attrs
    )


def conv2d_backprop_filter(
    input: ArrayLike,
    filter_sizes: ArrayLike,
    out_backprop: ArrayLike,
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> np.ndarray:
    """The gradient of conv2d with respect to its filter (tf.nn.conv2d_backprop_filter).

    Args:
        input: conv2d's input.
        filter_sizes: the filter's shape [KH, KW, C / groups, OC].
        out_backprop: the gradient of conv2d's output.
        strides: an int, or one per spatial dimension, or 4 values with 1 for batch and
            channels.
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
            (in data_format's order).
        data_format: "NHWC" (the default) or "NCHW".
        dilations: an int, or one per spatial dimension (or 4 values), the filter's dilation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    sizes = _int32_sizes(filter_sizes, "filter_sizes")
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return gen_nn_ops.conv2d_backprop_filter(input, sizes, out_backprop, **attrs)


def _pool_attrs(ksize, strides, padding, data_format):
    return {
        "ksize": _spatial(ksize, "ksize"),
        "strides": _spatial(strides, "strides"),
        "padding": padding.upper(),
        "data_format": data_format or "NHWC",
    }


def max_pool2d(
    input: ArrayLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = "NHWC",
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.max_pool2d: the max of each window; padded cells never win.

    padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]], each
    smaller than the window. ksize/strides of 4 values with a depth window
    ([1, 1, 1, k], strides [1, 1, 1, k]) pool k channels at a time instead.

    Args:
        input: [N, H, W, C] (or NCHW).
        ksize: the window: an int, 2 values, or 4 (with 1 for batch; channels for a depth
            window).
        strides: as ksize.
        padding: "SAME", "VALID", or explicit pads, each smaller than the window.
        data_format: "NHWC" or "NCHW".
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    padding, explicit = _padding(padding)
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    return gen_nn_ops.max_pool(input, explicit_paddings=explicit, **attrs)


def avg_pool2d(
    input: ArrayLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str | Sequence[Sequence[int]],
    data_format: str | None = "NHWC",
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.avg_pool2d: the mean of each window over its real (unpadded) cells.

    Args:
        input: [N, H, W, C] (or NCHW).
        ksize: the window: an int, 2 values, or 4 (with 1 for batch and channels).
        strides: as ksize.
        padding: "SAME" or "VALID".
        data_format: "NHWC" or "NCHW".
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return gen_nn_ops.avg_pool(input, **_pool_attrs(ksize, strides, padding, data_format))


max_pool = max_pool2d
avg_pool = avg_pool2d


def bias_add(
    value: ArrayLike, bias: ArrayLike, data_format: str | None = None, name: str | None = None
) -> np.ndarray:
    """tf.nn.bias_add: value + bias along the channel axis (last, or 1 for NCHW).

    Args:
        value: an array of rank 2 or more.
        bias: a vector, one value per channel.
        data_format: None or "NHWC" (channels last), or "NCHW".
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    return gen_nn_ops.bias_add(value, bias, data_format=data_format or "NHWC")


def relu(features: ArrayLike, name: str | None = None) -> np.ndarray:
    """tf.nn.relu.

    Args:
        features: an array.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    return gen_nn_ops.relu(features)


def relu6(features: ArrayLike, name: str | None = None) -> np.ndarray:
    """tf.nn.relu6: min(max(features, 0), 6).

    Args:
        features: an array.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    return gen_nn_ops.relu6(features)


def leaky_relu(features: ArrayLike, alpha: float = 0.2, name: str | None = None) -> np.ndarray:
    """tf.nn.leaky_relu: features where positive, else alpha * features (integers become
    float32 first, as in TensorFlow).

    Args:
        features: an array.
        alpha: the slope below 0.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    features = features if isinstance(features, np.ndarray) else np.asarray(features)
    if features.dtype.kind in "iub":
        features = math.cast(features, np.float32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return gen_nn_ops.leaky_relu(features, alpha=float(alpha))


def elu(features: ArrayLike, name: str | None = None) -> np.ndarray:
    """tf.nn.elu: exp(features) - 1 where negative, else features.

    Args:
        features: an array.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    return gen_nn_ops.elu(features)


def gelu(features: ArrayLike, approximate: bool = False, name: str | None = None) -> np.ndarray:
    """tf.nn.gelu: 0.5 x erfc(-x / sqrt(2)), or with `approximate` TensorFlow's tanh form
    0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); recorded math, so differentiable to any
    order. The operations and constants are TensorFlow 2.21's, float64 included: there
    1/sqrt(2) and 0.044715 pass through float32 (math_ops.cast of a Python float), so they do
    here too.

    Args:
        features: a float array.
        approximate: use the tanh approximation.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    x = features if isinstance(features, np.ndarray) else np.asarray(features, np.float32)
    if x.dtype.kind != "f":
        raise ValueError(
            "`features.dtype` must be a floating point tensor."
            f"Received:features.dtype=<dtype: '{x.dtype}'>"
        )

    def c(value, through_float32=False):
        return np.asarray(np.float32(value) if through_float32 else value, x.dtype)

    half_x = math.multiply(c(0.5), x)
    if approximate:
        cube = math.multiply(c(0.044715, True), math.pow(x, c(3)))
        inner = math.tanh(math.multiply(c(0.7978845608028654), math.add(x, cube)))
        return math.multiply(half_x, math.add(c(1.0), inner))
    scaled = math.multiply(math.negative(x), c(0.7071067811865476, True))
    return math.multiply(half_x, math.erfc(scaled))


def softmax(
    logits: ArrayLike, axis: int | Sequence[int] | None = None, name: str | None = None
) -> np.ndarray:
    """tf.nn.softmax along `axis` (the last by default).

    Args:
        logits: a float array.
        axis: the axis; None: the last.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
    del name
    return _along_axis(gen_nn_ops.softmax, _softmax_input_grad, logits, axis)


def log_softmax(
    logits: ArrayLike, axis: int | Sequence[int] | None = None, name: str | None = None
) -> np.ndarray:
    """tf.nn.log_softmax along `axis` (the last by default): logits - log(sum(exp(logits))).

    Args:
        logits: a float array.
        axis: the axis; None: the last.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array.
    """
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
        return y, lambda dy: input_grad(dy, y, axis)

    along_axis.__name__ = f"{op.__name__}_along_axis"
    return custom_gradient(along_axis)(logits)


def _softmax_input_grad(dy, y, axis):
    """(dy - sum(dy * y)) * y, with dy taken relative to the most likely class k first: since
    sum(y) = 1 the result is the same, but dy_i - sum(dy * y) no longer cancels to 0 when
    y_k is 1 - tiny, so tiny components keep their gradient (TensorFlow's newer rule). Recorded
    math, so it is differentiable again."""
    y = np.asarray(y)
    dy = math.cast(dy, y.dtype)
    top = np.expand_dims(np.argmax(y, axis=axis), axis) == np.arange(y.shape[axis]).reshape(
        [-1 if a == axis % y.ndim else 1 for a in range(y.ndim)]
    )
    dy_top = math.reduce_sum(math.where(top, dy, np.zeros_like(dy)), axis=axis, keepdims=True)
    d = math.subtract(dy, dy_top)
    return math.multiply(
        math.subtract(d, math.reduce_sum(math.multiply(d, y), axis=axis, keepdims=True)), y
    )


def _log_softmax_input_grad(dy, y, axis):
    y = np.asarray(y)
    dy = math.cast(dy, y.dtype)
    total = math.reduce_sum(dy, axis=axis, keepdims=True)
    return math.subtract(dy, math.multiply(total, math.exp(y)))


def _shape_text(shape):
    """A static shape as TensorFlow's TensorShape prints it: (2, 3), (3,), ()."""
    return str(tuple(int(d) for d in shape))


def softmax_cross_entropy_with_logits(
    labels: ArrayLike,
    logits: ArrayLike,
    axis: int | Sequence[int] | None = -1,
    name: str | None = None,
) -> np.ndarray:
    """tf.nn.softmax_cross_entropy_with_logits: the cross-entropy between softmax(logits) and
    the distribution `labels` (same shape; cast to logits' dtype) along `axis`, one loss per
    row. Differentiable in both, to any order (float16 computes in float32).

    Args:
        labels: a distribution per row, of logits' shape.
        logits: unscaled log probabilities.
        axis: the classes' axis.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        The losses, of logits' shape less `axis`.
    """
    del name
    logits = logits if isinstance(logits, np.ndarray) else np.asarray(logits, np.float32)
    half = logits.dtype == np.float16
    precise = math.cast(logits, np.float32) if half else logits
    labels = math.cast(labels, precise.dtype)
    if precise.ndim == 0:
        raise errors.InvalidArgumentError("logits and labels must be at least 1-D")
    axis = axis % precise.ndim
    if axis != precise.ndim - 1:
        perm = [d for d in range(precise.ndim) if d != axis] + [axis]
        precise, labels = math.transpose(precise, perm), math.transpose(labels, perm)
    lead = precise.shape[:-1]
    if precise.ndim != 2:
        precise = math.reshape(precise, [-1, precise.shape[-1]])
        labels = math.reshape(labels, [-1, labels.shape[-1]])
    cost, _ = gen_nn_ops.softmax_cross_entropy_with_logits(precise, labels)
    if cost.shape != lead:
        cost = math.reshape(cost, lead)
    return math.cast(cost, np.float16) if half else cost


def sparse_softmax_cross_entropy_with_logits(
    labels: ArrayLike, logits: ArrayLike, name: str | None = None
) -> np.ndarray:
    """tf.nn.sparse_softmax_cross_entropy_with_logits: -log(softmax(logits)[label]) for each
    row, labels (int32 or int64) of logits' shape less its last axis, each in [0, classes).
    Differentiable in logits, to any order (float16 computes in float32).

    Raises:
      ValueError: logits is a scalar, or labels' shape is not logits' less the last axis.
      InvalidArgumentError: a label outside [0, classes), or no classes.

    Args:
        labels: int32 or int64 class indexes, of logits' shape less its last axis.
        logits: unscaled log probabilities, classes last.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        The losses, of labels' shape.
    """
    del name
    logits = logits if isinstance(logits, np.ndarray) else np.asarray(logits, np.float32)
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"labels must be int32 or int64, got {labels.dtype}: class indices, not one-hot "
            "rows (softmax_cross_entropy_with_logits takes those)"
        )
    if labels.dtype not in (np.int32, np.int64):
        labels = labels.astype(np.int64)
    if logits.ndim == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    if labels.ndim != logits.ndim - 1:
        raise ValueError(
            "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
            f"labels.shape={_shape_text(labels.shape)} of rank {labels.ndim} and "
            f"logits.shape={_shape_text(logits.shape)} of rank {logits.ndim}"
        )
    if labels.shape != logits.shape[:-1]:
        raise ValueError(
            "`labels.shape` must equal `logits.shape` except for the last dimension. "
            f"Received: labels.shape={_shape_text(labels.shape)} and "
            f"logits.shape={_shape_text(logits.shape)}"
        )
    half = logits.dtype == np.float16
    precise = math.cast(logits, np.float32) if half else logits
    if precise.ndim != 2:
        precise = math.reshape(precise, [-1, precise.shape[-1]])
        labels = labels.reshape(-1)
    cost, _ = gen_nn_ops.sparse_softmax_cross_entropy_with_logits(precise, labels)
    if cost.shape != logits.shape[:-1]:
        cost = math.reshape(cost, logits.shape[:-1])
    return math.cast(cost, np.float16) if half else cost


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
        pair = (lambda: mm(grad, b, False, True), lambda: mm(a, grad, True, False))
    elif not ta and tb:
        pair = (lambda: mm(grad, b, False, False), lambda: mm(grad, a, True, False))
    elif ta and not tb:
        pair = (lambda: mm(b, grad, False, True), lambda: mm(a, grad, False, False))
    else:
        pair = (lambda: mm(b, grad, True, True), lambda: mm(grad, a, True, True))
    return _needed(op, pair)


def _needed(op, makers):
    """The gradient of each input from its maker, None for those the tape skips (no source
    lies behind them): a first layer's input gradient is not computed."""
    return [None if i in op.skip_input_indices else make() for i, make in enumerate(makers)]


@RegisterGradient("Conv2D")
def _conv2d_grad(op, grad):
    x, w = op.inputs
    attrs = _same_attrs(op, _CONV)
    return _needed(
        op,
        (
            lambda: gen_nn_ops.conv2d_backprop_input(_shape(x), w, grad, **attrs),
            lambda: gen_nn_ops.conv2d_backprop_filter(x, _shape(w), grad, **attrs),
        ),
    )


@RegisterGradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    attrs = _same_attrs(op, _CONV)
    return _needed(
        op,
        (
            lambda: None,
            lambda: gen_nn_ops.conv2d_backprop_filter(grad, _shape(w), dy, **attrs),
            lambda: gen_nn_ops.conv2d(grad, w, **attrs),
        ),
    )


@RegisterGradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    attrs = _same_attrs(op, _CONV)
    return _needed(
        op,
        (
            lambda: gen_nn_ops.conv2d_backprop_input(_shape(x), grad, dy, **attrs),
            lambda: None,
            lambda: gen_nn_ops.conv2d(x, grad, **attrs),
        ),
    )


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
    return [math.broadcast_to(math.reshape(grad, shape), dy.shape)]


@RegisterGradient("Relu")
def _relu_grad(op, grad):
    return [gen_nn_ops.relu_grad(grad, op.outputs[0])]


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    _, features = op.inputs
    return [gen_nn_ops.relu_grad(grad, features), np.zeros_like(features)]


@RegisterGradient("Relu6")
def _relu6_grad(op, grad):
    return [gen_nn_ops.relu6_grad(grad, op.outputs[0])]


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    _, features = op.inputs
    return [gen_nn_ops.relu6_grad(grad, features), np.zeros_like(features)]


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return [gen_nn_ops.leaky_relu_grad(grad, op.inputs[0], alpha=op.get_attr("alpha"))]


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    _, features = op.inputs
    alpha = op.get_attr("alpha")
    return [gen_nn_ops.leaky_relu_grad(grad, features, alpha=alpha), np.zeros_like(features)]


@RegisterGradient("Elu")
def _elu_grad(op, grad):
    return [gen_nn_ops.elu_grad(grad, op.outputs[0])]


@RegisterGradient("EluGrad")
def _elu_grad_grad(op, grad):
    dy, y = op.inputs  # y: Elu's output
    zeros = np.zeros_like(y)
    return [gen_nn_ops.elu_grad(grad, y), math.where(y < 0, math.multiply(grad, dy), zeros)]


@RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    return [_softmax_input_grad(grad, op.outputs[0], -1)]


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    return [_log_softmax_input_grad(grad, op.outputs[0], -1)]


def _xent_logits_grad(op, grad_loss, grad_grad):
    """TensorFlow's: grad_loss times the op's backprop output, plus, when that output itself
    received a gradient (a second derivative), the softmax Jacobian applied to it."""
    logits = op.inputs[0]
    grad = math.multiply(math.reshape(grad_loss, [-1, 1]), op.outputs[1])
    if np.any(grad_grad):
        softmax = gen_nn_ops.softmax(logits)
        projected = math.reduce_sum(math.multiply(grad_grad, softmax), axis=1, keepdims=True)
        grad = math.add(grad, math.multiply(math.subtract(grad_grad, projected), softmax))
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op, grad_loss, grad_grad):
    logits = op.inputs[0]
    labels_grad = math.multiply(
        math.reshape(grad_loss, [-1, 1]), math.negative(gen_nn_ops.log_softmax(logits))
    )
    if np.any(grad_grad):  # backprop = softmax - labels: TensorFlow leaves this term out
        labels_grad = math.subtract(labels_grad, grad_grad)
    return [_xent_logits_grad(op, grad_loss, grad_grad), labels_grad]


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op, grad_loss, grad_grad):
    return [_xent_logits_grad(op, grad_loss, grad_grad), None]


__all__ = [
    "avg_pool",
    "avg_pool2d",
    "bias_add",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "convolution",
    "depthwise_conv2d",
    "elu",
    "gelu",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "max_pool2d",
    "relu",
    "relu6",
    "separable_conv2d",
    "sigmoid",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
]
