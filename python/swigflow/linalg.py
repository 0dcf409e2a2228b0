"""Matrix multiplication, named like ``tf.linalg``: numpy arrays in and out.

float32 runs on swigflow's SGEMM (packed BLIS-style kernels, AVX-512/AVX2/portable chosen at run
time, split over the cores without the GIL); float64 takes a correct, untuned path. A product is
recorded on gradient tapes (MatMul for matrices, BatchMatMulV2 otherwise), with TensorFlow's
gradients.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from swigflow import errors, math, ops
from swigflow import pywrap_swigflow as _pywrap

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _operand(x, transpose):
    """(array whose matrices have unit inner stride, whether to use them transposed), copying
    only if needed. Batch dimensions may have any strides (a copy makes them contiguous)."""
    item = x.itemsize

    def fits(row, inner):
        batch_ok = all(s >= 0 and s % item == 0 for s in x.strides[:-2])
        return inner == item and row >= 0 and row % item == 0 and batch_ok

    if fits(x.strides[-2], x.strides[-1]):
        return x, transpose
    if fits(x.strides[-1], x.strides[-2]):
        # Column-major matrices: their transposes have contiguous rows.
        return np.swapaxes(x, -1, -2), not transpose
    return np.ascontiguousarray(x), transpose


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def matmul(
    a: ArrayLike,
    b: ArrayLike,
    transpose_a: bool = False,
    transpose_b: bool = False,
    name: str | None = None,
) -> np.ndarray:
    """``op(a) @ op(b)`` for float32 or float64 arrays, as ``tf.linalg.matmul``.

    Inputs of rank 2 or more; leading (batch) dimensions broadcast. Any strides are accepted:
    transposed views are used as they are, other layouts are copied once.

    Raises:
      InvalidArgumentError: ranks below 2, different or unsupported dtypes, inner dimensions
        that differ, or batch dimensions that do not broadcast.

    Args:
        a: an array of rank 2 or more.
        b: an array of the same dtype, of rank 2 or more.
        transpose_a: use a's last two dimensions transposed.
        transpose_b: use b's last two dimensions transposed.
        name: accepted for TensorFlow's signature; unused.

    Returns:
        A numpy array of a's dtype.
    """
    del name
    a = np.asarray(a)
    b = np.asarray(b)
    product = _product(a, b, transpose_a, transpose_b)
    if ops.is_recording():
        if a.ndim == 2 and b.ndim == 2:
            attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
            ops.record_operation("MatMul", [product], [a, b], attrs=attrs)
        else:
            attrs = {"adj_x": bool(transpose_a), "adj_y": bool(transpose_b)}
            ops.record_operation("BatchMatMulV2", [product], [a, b], attrs=attrs)
    return product


def _product(a, b, transpose_a, transpose_b):
    if a.ndim < 2 or b.ndim < 2:
        raise errors.InvalidArgumentError(
            f"In[0] and In[1] must be at least 2-D: {_shape_text(a.shape)} vs. "
            f"{_shape_text(b.shape)}"
        )
    if a.dtype != b.dtype:
        raise errors.InvalidArgumentError(
            f"cannot compute MatMul as input #1(zero-based) was expected to be a {a.dtype} "
            f"tensor but is a {b.dtype} tensor"
        )
    if a.dtype not in _DTYPES:
        raise errors.InvalidArgumentError(f"matmul supports float32 and float64, not {a.dtype}")
    k_a = a.shape[-2] if transpose_a else a.shape[-1]
    k_b = b.shape[-1] if transpose_b else b.shape[-2]
    if k_a != k_b:
        raise errors.InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {_shape_text(a.shape)}, In[1]: "
            f"{_shape_text(b.shape)}"
        )
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            f"In[0] and In[1] must have compatible batch dimensions: {_shape_text(a.shape)} vs. "
            f"{_shape_text(b.shape)}"
        ) from None
    m = a.shape[-1] if transpose_a else a.shape[-2]
    n = b.shape[-2] if transpose_b else b.shape[-1]
    if m == 0 or n == 0 or k_a == 0 or 0 in batch:  # empty: numpy gives such arrays odd strides
        return np.zeros((*batch, m, n), dtype=a.dtype)
    if not batch:
        return _pywrap.MatMul2D(*_pair(a, transpose_a, b, transpose_b))
    a, transpose_a = _operand(a, transpose_a)
    b, transpose_b = _operand(b, transpose_b)
    out = _pywrap.MatMulBatched(
        a,
        _batch_offsets(a, batch),
        b,
        _batch_offsets(b, batch),
        transpose_a,
        transpose_b,
        m,
        n,
        k_a,
    )
    return out.reshape(*batch, m, n)


@ops.RegisterGradient("BatchMatMulV2")
def _batch_mat_mul_grad(op, grad):
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        gx, gy = matmul(grad, y, False, True), matmul(x, grad, True, False)
    elif not adj_x:
        gx, gy = matmul(grad, y), matmul(grad, x, True, False)
    elif not adj_y:
        gx, gy = matmul(y, grad, False, True), matmul(x, grad)
    else:
        gx, gy = matmul(y, grad, True, True), matmul(grad, x, True, True)
    return [_batch_sum(gx, x.shape), _batch_sum(gy, y.shape)]


def _batch_sum(grad, shape):
    """A gradient summed over the batch dimensions its operand was broadcast along."""
    lead = grad.ndim - len(shape)
    axes = list(range(lead)) + [
        lead + i for i, d in enumerate(shape[:-2]) if d == 1 and grad.shape[lead + i] != 1
    ]
    if axes:
        grad = math.reshape(math.reduce_sum(grad, axis=axes), shape)
    return grad


def _batch_offsets(x, batch):
    """Where each matrix of x starts, in elements from x's data, for every index of the broadcast
    batch shape (C order): broadcast dimensions contribute nothing, so nothing is copied."""
    offsets = np.zeros(batch, dtype=np.int64)
    lead = len(batch) - (x.ndim - 2)
    for d in range(x.ndim - 2):
        if x.shape[d] == 1:
            continue  # broadcast: every index reads the same matrix
        step = x.strides[d] // x.itemsize
        shape = [1] * len(batch)
        shape[lead + d] = x.shape[d]
        offsets += (np.arange(x.shape[d], dtype=np.int64) * step).reshape(shape)
    return offsets.ravel()


def _pair(a, transpose_a, b, transpose_b):
    a, transpose_a = _operand(a, transpose_a)
    b, transpose_b = _operand(b, transpose_b)
    return a, b, transpose_a, transpose_b


def kernel_isa() -> str:
    """The instruction set float32 matmul uses here: "avx512", "avx2" or "scalar" (set
    SWIGFLOW_ISA to choose a lower one)."""
    return _pywrap.SelectedIsaName()


def kernel_config() -> dict[str, Any]:
    """How the float32 kernels are configured on this machine, as a dict.

    Keys: ``name`` (the per-microarchitecture config, e.g. "zen4", or "generic"), ``source``
    ("cpuid": a named config matched this CPU; "caches": blocking derived from the cache sizes
    CPUID reports; "environment": set by ``SWIGFLOW_GEMM_BLOCKING=mc,kc,nc``), ``isa``, the CPU
    (``vendor``, ``cpu`` brand string, ``family``, ``model``, cache sizes ``l1d``, ``l2``, ``l3``
    in bytes), the micro-kernel tile ``mr`` x ``nr``, the blocking ``mc``, ``kc``, ``nc``,
    the convolution thresholds ``few_channels`` and ``min_row_fill_pct``, ``threads``, and the
    8-bit GEMM's kernel (``int8_kernel``: "avx512_vnni", "avx_vnni", "avx2" or "scalar"), tile
    ``int8_mr`` x ``int8_nr`` and blocking ``int8_mc``, ``int8_kc``, ``int8_nc``
    (``SWIGFLOW_INT8_BLOCKING=mc,kc,nc`` overrides it). ``bench/gemm_sweep.py`` measures a
    config for a new machine.
    """
    return _pywrap.KernelConfigDict()


def measure_fma(threads: int | None = None, seconds: float = 1.0) -> dict[str, Any]:
    """The FMA probe: the peak float32 throughput of this ISA's registers on ``threads`` threads
    (default: the kernels' thread count), the best of several windows over about ``seconds``.

    Returns a dict: ``threads``, ``gflops``, ``ghz`` (the clock while they all run, from the rate
    of one dependent FMA chain and a 4-cycle FMA latency) and ``flops_per_cycle`` per core.

    Args:
        threads: the number of threads; None: the kernels' thread count.
        seconds: about how long to measure.

    Returns:
        A dict, as above.
    """
    if threads is None:
        threads = kernel_config()["threads"]
    return _pywrap.MeasureFma(int(threads), float(seconds))


__all__ = ["kernel_config", "kernel_isa", "matmul", "measure_fma"]
