"""INT8 inference the way BigDL ran it on MKL-DNN, on swigflow's 8-bit kernels:

1. ``calibrate`` runs a float model over sample batches of a ``swigflow.data`` pipeline and
   collects the range of each tensor it reports (``"minmax"``, ``"percentile"`` or
   ``"entropy"``, per tensor or per channel);
2. each float layer is converted once: ``quantize_weights`` (per output channel), then
   ``Int8Conv2D`` / ``Int8Dense`` hold the int8 weights and the calibrated ranges;
3. inference runs on those layers: conv or matmul + bias + Relu + requantize to quint8 in one
   pass (``QuantizedConv2DWithBiasAndReluAndRequantize`` and
   ``QuantizedMatMulWithBiasAndReluAndRequantize``, TensorFlow's fused ops). The layers
   also pack their weights for the 8-bit kernel once, on their first call
   (``SwigflowInt8PackWeights`` and the ``SwigflowInt8Packed*`` forms of the fused ops,
   swigflow's), so that later calls skip that pass and give the same bytes.

Quantization is TensorFlow's SCALED mode throughout: quint8 ``q`` stands for
``q * max(|min|, |max|) / 255`` and qint8 ``q`` for ``q * max(|min|, |max|) / 127``, so 0.0 is
always the integer 0. numpy has no quantized dtypes: quint8 tensors are uint8 arrays, qint8
tensors int8 arrays, and their ranges travel beside them as ``TensorRange``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from swigflow import errors, ops

__all__ = [
    "METHODS",
    "Int8Conv2D",
    "Int8Dense",
    "QuantizedWeights",
    "TensorRange",
    "calibrate",
    "dequantize",
    "quantize",
    "quantize_weights",
]

METHODS = ("minmax", "percentile", "entropy")


class TensorRange(NamedTuple):
    min: Any
    max: Any


TensorRange.__doc__ = """The float range of a tensor: float32 scalars, or arrays (per channel).

Args:
    min: the lowest value.
    max: the highest value."""


class QuantizedWeights(NamedTuple):
    values: np.ndarray
    min: Any
    max: Any


QuantizedWeights.__doc__ = """int8 weights and the float32 range of each output channel.

Args:
    values: the int8 weights.
    min: the float32 lowest value of each output channel.
    max: the float32 highest value of each output channel."""

_PACKED_MATMUL = "SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize"
_PACKED_CONV = "SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize"


def _channels_first(x, axis):
    """x as a (channels, values) matrix, or (1, values) when axis is None."""
    if axis is None:
        return x.reshape(1, -1)
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(f"axis {axis} is out of range for shape {x.shape}")
    return np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)


class _MinMax:
    def __init__(self, axis):
        self.axis: Any = axis
        self.lo = self.hi = None

    def update(self, x):
        rows = _channels_first(x, self.axis)
        lo, hi = rows.min(axis=1), rows.max(axis=1)
        if self.lo is None:
            self.lo, self.hi = lo, hi
        else:
            if lo.shape != self.lo.shape:
                raise errors.InvalidArgumentError(
                    f"calibrate: {lo.shape[0]} channels after {self.lo.shape[0]}"
                )
            self.lo, self.hi = np.minimum(self.lo, lo), np.maximum(self.hi, hi)

    def range(self):
        return self.lo, self.hi


class _Histogram:
    """Histograms of ``|x|`` per channel over [0, limit), the limit doubling (bins merged in pairs)
    whenever a batch goes beyond it, plus the signed min and max."""

    def __init__(self, axis, bins):
        self.axis, self.bins = axis, bins
        self.counts = self.limit = None
        self.minmax: Any = _MinMax(axis)

    def update(self, x):
        self.minmax.update(x)
        rows = np.abs(_channels_first(x, self.axis))
        top = float(rows.max()) if rows.size else 0.0
        if self.counts is None:
            self.limit = top if top > 0 else 1.0
            self.counts = np.zeros((rows.shape[0], self.bins), np.int64)
        while top >= self.limit:
            merged = self.counts.reshape(self.counts.shape[0], -1, 2).sum(axis=2)
            self.counts = np.concatenate([merged, np.zeros_like(merged)], axis=1)
            self.limit *= 2
        width = self.limit / self.bins
        index = np.minimum((rows / width).astype(np.int64), self.bins - 1)
        for channel, values in enumerate(index):
            self.counts[channel] += np.bincount(values, minlength=self.bins)

    def thresholds(self, pick):
        width = self.limit / self.bins
        return np.array([pick(c) * width for c in self.counts], np.float64)

    def range_for(self, thresholds):
        lo, hi = self.minmax.range()
        hi_out = np.minimum(thresholds, np.maximum(np.abs(lo), np.abs(hi)))
        # Non-negative tensors (Relu outputs) get [0, t]; others the symmetric [-t, t].
        lo_out = np.where(lo >= 0, 0.0, -hi_out)
        return lo_out, hi_out


def _percentile_bins(counts, percentile):
    """The number of bins holding `percentile`% of the values."""
    total = counts.sum()
    if total == 0:
        return counts.size
    need = total * percentile / 100.0
    return int(np.searchsorted(np.cumsum(counts), need, side="left")) + 1


def _smooth(distribution, eps=1e-4):
    """`distribution` normalised, with `eps` moved onto each empty bin from the others (so that
    KL(P || Q) stays finite where Q is empty and P is not)."""
    d = distribution / distribution.sum()
    empty = d == 0
    n_empty = int(empty.sum())
    if n_empty == 0 or n_empty == d.size:
        return d
    n_full = d.size - n_empty
    # Never take more than half the smallest count.
    eps = min(eps, 0.5 * float(d[~empty].min()) * n_full / n_empty)
    return np.where(empty, eps, d - eps * n_empty / n_full)


def _entropy_bins(counts, levels):
    """The number of bins t minimising KL(P || Q) (TensorRT's calibration): P the histogram cut
    at t with the values beyond added to its last bin, Q the first t bins quantized to `levels`
    levels (each level's count spread over its non-empty bins), both smoothed."""
    counts = counts.astype(np.float64)
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        return counts.size
    last = int(nonzero[-1]) + 1
    if last <= levels:
        return last
    best, best_kl = last, np.inf
    step = max(1, (last - levels) // 1024)
    for t in range(levels, last + 1, step):
        p = counts[:t].copy()
        p[-1] += counts[t:].sum()
        edges = (np.arange(levels + 1) * t) // levels
        used = (counts[:t] > 0).astype(np.float64)
        group_mass = np.add.reduceat(counts[:t], edges[:-1])
        group_used = np.add.reduceat(used, edges[:-1])
        spread = np.where(group_used > 0, group_mass / np.maximum(group_used, 1), 0.0)
        q = np.repeat(spread, np.diff(edges)) * used
        if q.sum() == 0:
            continue
        p, q = _smooth(p), _smooth(q)
        mask = p > 0
        kl = float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
        if kl < best_kl:
            best, best_kl = t, kl
    return best


def _named(outputs):
    if isinstance(outputs, dict):
        return outputs
    if isinstance(outputs, (list, tuple)):
        return {str(i): v for i, v in enumerate(outputs)}
    return {"output": outputs}


def calibrate(
    fn: Callable[..., Any],
    dataset: Any,
    method: str = "minmax",
    *,
    num_batches: int | None = None,
    axis: int | None = None,
    percentile: float = 99.99,
    bins: int = 2048,
) -> dict[str, TensorRange]:
    """Ranges of the tensors `fn` reports over the batches of `dataset`.

    Args:
      fn: called on each batch; returns a float array, a list/tuple of them (named "0", "1",
        ...) or a dict of them by name: the activations to calibrate.
      dataset: a ``swigflow.data.Dataset`` or any iterable of batches.
      method: "minmax" (the extremes seen), "percentile" (the `percentile`-th percentile of
        ``|x|``) or "entropy" (the clipping threshold minimising the KL divergence between the
        float histogram and its 8-bit quantization).
      num_batches: stop after this many batches (all of them when None).
      axis: None for one range per tensor, or the channel axis for one range per channel.
      percentile: for method="percentile", in (0, 100].
      bins: histogram bins for "percentile" and "entropy".

    Returns:
      {name: TensorRange(min, max)}, float32 scalars (or arrays per channel). With
      "percentile" and "entropy" a non-negative tensor gets [0, t], any other [-t, t].

    Raises:
      InvalidArgumentError: an unknown method, a bad percentile, bins or axis, a dataset that
        gave no batches, or a tensor that is not floating point or changes its channel count.
    """
    if method not in METHODS:
        raise errors.InvalidArgumentError(
            f"calibrate: method must be one of {METHODS}, got {method!r}"
        )
    if not 0 < percentile <= 100:
        raise errors.InvalidArgumentError(
            f"calibrate: percentile must be in (0, 100], got {percentile}"
        )
    if bins < 256 or bins & (bins - 1):
        raise errors.InvalidArgumentError(
            f"calibrate: bins must be a power of 2 >= 256, got {bins}"
        )
    observers = {}
    batches = dataset if num_batches is None else itertools.islice(dataset, num_batches)
    for batch in batches:
        for name, value in _named(fn(batch)).items():
            value = np.asarray(value)
            if value.dtype.kind != "f":
                raise errors.InvalidArgumentError(
                    f"calibrate: tensor {name!r} is {value.dtype}, not floating point"
                )
            if name not in observers:
                observers[name] = _MinMax(axis) if method == "minmax" else _Histogram(axis, bins)
            observers[name].update(value.astype(np.float32, copy=False))
    if not observers:
        raise errors.InvalidArgumentError("calibrate: the dataset gave no batches")
    ranges = {}
    for name, observer in observers.items():
        if method == "minmax":
            lo, hi = observer.range()
        else:
            lo_seen, _ = observer.minmax.range()
            if method == "percentile":
                thresholds = observer.thresholds(lambda c: _percentile_bins(c, percentile))
            else:
                thresholds = [
                    _entropy_bins(c, 255 if lo >= 0 else 127)
                    for c, lo in zip(observer.counts, lo_seen)
                ]
                thresholds = np.asarray(thresholds, np.float64) * (observer.limit / observer.bins)
            lo, hi = observer.range_for(thresholds)
        lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
        if axis is None:
            lo, hi = lo.reshape(()), hi.reshape(())
        ranges[name] = TensorRange(lo[()], hi[()]) if axis is None else TensorRange(lo, hi)
    return ranges


def _check_range(value_range, what):
    lo, hi = (np.float32(v) for v in value_range)
    if not (np.isfinite(lo) and np.isfinite(hi)) or max(abs(lo), abs(hi)) == 0:
        raise errors.InvalidArgumentError(f"{what} must be finite and not [0, 0], got [{lo}, {hi}]")
    return lo, hi


def quantize_weights(weights: ArrayLike, axis: int | None = -1) -> QuantizedWeights:
    """float32 weights as int8 with one symmetric range per output channel (`axis`; None for
    one range for the whole tensor): q = round_half_to_even(w * 127 / max|w_c|), as TensorFlow's
    QuantizeV2 in SCALED mode with narrow_range. An all-zero channel gets the range [-1, 1].

    Returns QuantizedWeights(values int8, min float32[channels] or scalar, max likewise).

    Args:
        weights: a float32 array.
        axis: the output channels' axis; None: one range.

    Returns:
        A QuantizedWeights.
    """
    w = np.asarray(weights, np.float32)
    if w.ndim == 0:
        raise errors.InvalidArgumentError(
            "quantize_weights: weights must have at least 1 dimension"
        )
    reduce = None if axis is None else tuple(i for i in range(w.ndim) if i != axis % w.ndim)
    top = (
        np.max(np.abs(w), axis=reduce)
        if w.size
        else np.zeros(w.shape[axis] if axis is not None else ())
    )
    if not np.all(np.isfinite(top)):
        raise errors.InvalidArgumentError("quantize_weights: weights must be finite")
    top = np.where(top > 0, top, 1.0).astype(np.float32)
    attrs = dict(T="qint8", mode="SCALED", narrow_range=True, round_mode="HALF_TO_EVEN")
    if axis is not None:
        attrs["axis"] = axis % w.ndim
    values, lo, hi = ops.run("QuantizeV2", [w, -top, top], ensure_minimum_range=0.0, **attrs)
    return QuantizedWeights(values, lo, hi)


def quantize(x: ArrayLike, value_range: Any) -> np.ndarray:
    """float32 `x` as quint8 (uint8) over `value_range` (SCALED: q = round(x * 255 / max|range|),
    negative values to 0) — the input of an Int8 layer.

    Args:
        x: a float32 array.
        value_range: a TensorRange (or (min, max)).

    Returns:
        A uint8 array.
    """
    lo, hi = _check_range(value_range, "quantize: the range")
    top = max(abs(lo), abs(hi))
    return ops.run(
        "QuantizeV2",
        [np.asarray(x, np.float32), np.float32(0), np.float32(top)],
        T="quint8",
        mode="SCALED",
        round_mode="HALF_TO_EVEN",
        ensure_minimum_range=0.0,
    )[0]


def dequantize(q: ArrayLike, value_range: Any) -> np.ndarray:
    """quint8 (uint8) or qint8 (int8) `q` over `value_range` back to float32 (SCALED).

    Args:
        q: a uint8 or int8 array.
        value_range: a TensorRange (or (min, max)).

    Returns:
        A float32 array.
    """
    q = np.asarray(q)
    if q.dtype not in (np.uint8, np.int8):
        raise errors.InvalidArgumentError(f"dequantize: q must be uint8 or int8, not {q.dtype}")
    lo, hi = _check_range(value_range, "dequantize: the range")
    top = max(abs(lo), abs(hi))
    lo = np.float32(0) if q.dtype == np.uint8 else -top
    return ops.run("Dequantize", [q, lo, np.float32(top)], mode="SCALED")[0]


def _positive_range(value_range, what):
    lo, hi = _check_range(value_range, what)
    return np.float32(lo), np.float32(hi)


class _Int8Layer:
    """What the INT8 layers share: their int8 weights packed for this machine's 8-bit kernel on
    first use (SwigflowInt8PackWeights), with the bias and ranges the op takes after them, and
    pickled without that packing."""

    _call = None  # (the op's inputs after x, its attrs), made on first use

    def _run(self, op, x):
        if self._call is None:
            packed = ops.run("SwigflowInt8PackWeights", [self.weights.values])
            # Scalars as 0-d arrays once, rather than converted on every call.
            inputs = [*packed, *(np.asarray(v) for v in self._other_inputs())]
            self._call = inputs, self._attrs()
        inputs, attrs = self._call
        return ops.run(op, [x, *inputs], **attrs)[0]

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_call"}


class Int8Conv2D(_Int8Layer):
    """A float Conv2D + bias + Relu layer converted to INT8 (BigDL's step 2): int8 filters per
    output channel, quint8 activations in and out over their calibrated ranges.

    ``layer(x)`` takes the quint8 (uint8) NHWC input quantized over `input_range` and returns
    Relu(conv2d(x, filters) + bias) as quint8 over `output_range`, in one pass.

    The first call packs the int8 filters for this machine's 8-bit kernel, as ``Int8Dense``
    does with its kernel (a pickled layer packs them again where it is loaded), and fixes the
    bias and ranges the layer runs with: a converted layer is not meant to change.

    Args:
        filters: float32 [KH, KW, C, OC].
        bias: float32 [OC].
        input_range: the input's calibrated TensorRange.
        output_range: the output's calibrated TensorRange.
        strides: an int or (height, width).
        padding: "SAME" or "VALID".
        dilations: an int or (height, width).
    """

    def __init__(
        self,
        filters: ArrayLike,
        bias: ArrayLike,
        input_range: Any,
        output_range: Any,
        strides: Any = 1,
        padding: str = "SAME",
        dilations: Any = 1,
    ) -> None:
        filters = np.asarray(filters, np.float32)
        if filters.ndim != 4:
            raise errors.InvalidArgumentError(
                f"Int8Conv2D: filters must be HWIO, got {filters.shape}"
            )
        self.weights: Any = quantize_weights(filters, axis=3)
        self.bias: Any = np.ascontiguousarray(bias, np.float32)
        self.input_range: Any = _positive_range(input_range, "Int8Conv2D: input_range")
        self.output_range: Any = _positive_range(output_range, "Int8Conv2D: output_range")
        sh, sw = (strides, strides) if np.isscalar(strides) else strides
        dh, dw = (dilations, dilations) if np.isscalar(dilations) else dilations
        self.attrs: Any = dict(
            strides=[1, int(sh), int(sw), 1], padding=padding, dilations=[1, int(dh), int(dw), 1]
        )

    def __call__(self, x: ArrayLike) -> np.ndarray:
        """Runs the layer.

        Args:
            x: uint8 NHWC input, quantized over input_range.

        Returns:
            uint8 NHWC output, quantized over output_range.
        """
        return self._run(_PACKED_CONV, x)

    def _attrs(self):
        return dict(self.attrs, filter_shape=list(self.weights.values.shape))

    def _other_inputs(self):
        w = self.weights
        return [self.bias, *self.input_range, w.min, w.max, *self.output_range]


class Int8Dense(_Int8Layer):
    """A float Dense + bias + Relu layer converted to INT8: ``layer(x)`` takes quint8 (uint8)
    [batch, in] over `input_range` and returns Relu(x @ kernel + bias) as quint8 over
    `output_range` (one range for the kernel: TensorFlow's fused matmul takes one).

    The first call packs the int8 kernel for this machine's 8-bit GEMM kernel and fixes the bias
    and ranges the layer runs with; later calls reuse them (the result is the same bytes as
    TensorFlow's fused op). A pickled layer keeps the int8 kernel, not its packing, which it
    makes again where it is loaded.

    Args:
        kernel: float32 [in, out].
        bias: float32 [out].
        input_range: the input's calibrated TensorRange.
        output_range: the output's calibrated TensorRange.
    """

    def __init__(
        self, kernel: ArrayLike, bias: ArrayLike, input_range: Any, output_range: Any
    ) -> None:
        kernel = np.asarray(kernel, np.float32)
        if kernel.ndim != 2:
            raise errors.InvalidArgumentError(f"Int8Dense: kernel must be 2-D, got {kernel.shape}")
        self.weights: Any = quantize_weights(kernel, axis=None)
        self.bias: Any = np.ascontiguousarray(bias, np.float32)
        self.input_range: Any = _positive_range(input_range, "Int8Dense: input_range")
        self.output_range: Any = _positive_range(output_range, "Int8Dense: output_range")

    def __call__(self, x: ArrayLike) -> np.ndarray:
        """Runs the layer.

        Args:
            x: uint8 [batch, in], quantized over input_range.

        Returns:
            uint8 [batch, out], quantized over output_range.
        """
        return self._run(_PACKED_MATMUL, x)

    def _attrs(self):
        return {"input_quant_mode": "SCALED"}

    def _other_inputs(self):
        w = self.weights
        lo, hi = self.input_range
        bound = max(abs(lo), abs(hi))
        return [self.bias, np.float32(0), bound, w.min, w.max, *self.output_range]
