"""The fused inference ops QuantizedConv2DWithBiasAndReluAndRequantize and
QuantizedMatMulWithBiasAndReluAndRequantize (and swigflow's form of the latter with its weights
packed once): against TensorFlow 2.21's oneDNN kernels call by call
(tests/testdata/make_tf_quantization_fused.py), bit for bit on every 8-bit kernel, against
an exact emulation of their float32 arithmetic on shapes that span several GEMM blocks, and
against a float64 reference where TensorFlow 2.21 saturates (MIN_FIRST with min_a < 0)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from swigflow import errors, ops

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "testdata", "tf_quantization_fused")
with open(os.path.join(DATA, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)
GOLDEN = np.load(os.path.join(DATA, "golden.npz"))
CALLS = MANIFEST["calls"]
CONV = "QuantizedConv2DWithBiasAndReluAndRequantize"
MATMUL = "QuantizedMatMulWithBiasAndReluAndRequantize"
PACK = "SwigflowInt8PackWeights"
PACKED = "SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize"
PACKED_CONV = "SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize"
f32 = np.float32


def _run(call):
    return ops.run(call["op"], [GOLDEN[k] for k in call["inputs"]], **call["attrs"])


def _run_packed(call):
    """The call with its weights packed once (swigflow's SwigflowInt8PackWeights and the
    SwigflowInt8Packed* form of the op)."""
    inputs = [GOLDEN[k] for k in call["inputs"]]
    attrs = dict(call["attrs"])
    weights = inputs[1]
    if call["op"] == CONV:
        attrs.pop("Tfilter", None)
        packed = ops.run(PACK, [weights])
        return ops.run(
            PACKED_CONV,
            [inputs[0], *packed, *inputs[2:]],
            filter_shape=list(weights.shape),
            **attrs,
        )
    packed = ops.run(PACK, [weights], transpose=attrs.pop("transpose_b", False))
    return ops.run(PACKED, [inputs[0], *packed, *inputs[2:]], **attrs)


def _check(call):
    runs = [_run(call)]
    if GOLDEN[call["inputs"][1]].size:
        runs.append(_run_packed(call))
    for got in runs:
        assert len(got) == 3
        for value, key in zip(got, call["outputs"]):
            expected = GOLDEN[key]
            assert value.dtype == expected.dtype and value.shape == expected.shape, key
            np.testing.assert_array_equal(
                value.reshape(-1).view(np.uint8), expected.reshape(-1).view(np.uint8), err_msg=key
            )


EXACT = [i for i, c in enumerate(CALLS) if "diverges" not in c]
DIVERGING = [i for i, c in enumerate(CALLS) if "diverges" in c]


@pytest.mark.parametrize("index", EXACT, ids=lambda i: f"{i}-{CALLS[i]['op'][:15]}")
def test_matches_tensorflow(index):
    _check(CALLS[index])


def test_manifest_covers_both_ops_and_features():
    assert MANIFEST["onednn"] is True
    assert {c["op"] for c in CALLS} == {CONV, MATMUL}
    conv = [c for c in CALLS if c["op"] == CONV]
    dtypes = {GOLDEN[c["inputs"][0]].dtype for c in conv} | {
        GOLDEN[c["inputs"][2]].dtype for c in conv
    }
    assert dtypes == {
        np.dtype(np.uint8),
        np.dtype(np.int8),
        np.dtype(np.float32),
        np.dtype(np.int32),
    }
    assert any(GOLDEN[c["inputs"][5]].ndim == 1 for c in conv)  # per-channel filter ranges
    assert any(c["attrs"]["dilations"] != [1, 1, 1, 1] for c in conv)
    assert any(any(c["attrs"].get("padding_list", [])) for c in conv)
    assert len(DIVERGING) >= 3


@pytest.mark.parametrize("isa", ["scalar", "avx2"])
def test_every_kernel_gives_tensorflows_bytes(isa):
    # The ISA is chosen once per process: replay in a fresh one.
    paths = [HERE] + [p for p in sys.path if p]
    script = (
        f"import sys; sys.path[:0] = {paths!r}\n"
        "import test_quantization_fused as t\n"
        "for i in t.EXACT:\n"
        "    t._check(t.CALLS[i])\n"
        "print('ok')\n"
    )
    env = dict(os.environ, SWIGFLOW_ISA=isa)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]


# ---- TensorFlow's float32 arithmetic, emulated in numpy -----------------------------------------


def _requantize(acc, scale, bias, min_out, max_out):
    """acc: exact int64 sums; scale, bias: float32 per column (bias already in float)."""
    v = (acc.astype(f32) * scale).astype(f32) + bias
    v = np.maximum(v, f32(0)) * (f32(1) / (f32(max(abs(min_out), abs(max_out))) / f32(255)))
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def _conv_sums(x, w, strides, dilations, top, left, out_h, out_w):
    batch, h, width, _ = x.shape
    kh, kw, _, o = w.shape
    acc = np.zeros((batch, out_h, out_w, o), np.int64)
    xi, wi = x.astype(np.int64), w.astype(np.int64)
    for ky in range(kh):
        for kx in range(kw):
            for y in range(out_h):
                iy = y * strides[1] - top + ky * dilations[1]
                if not 0 <= iy < h:
                    continue
                for xx in range(out_w):
                    ix = xx * strides[2] - left + kx * dilations[2]
                    if 0 <= ix < width:
                        acc[:, y, xx, :] += xi[:, iy, ix, :] @ wi[ky, kx]
    return acc


def _filter_scale(min_f, max_f, n):
    return (
        np.broadcast_to(np.maximum(np.abs(np.float32(min_f)), np.abs(np.float32(max_f))), (n,))
        / f32(127)
    ).astype(f32)


@pytest.mark.parametrize("signed,qbias,per_channel", [(False, False, True), (True, True, False)])
def test_conv_over_several_blocks_matches_the_emulation(signed, qbias, per_channel):
    rng = np.random.default_rng(7)
    n, c = 80, 70  # K = 630 steps, beyond one K block of every kernel
    x = (
        rng.integers(-128, 128, (2, 23, 29, c)).astype(np.int8)
        if signed
        else rng.integers(0, 256, (2, 23, 29, c)).astype(np.uint8)
    )
    w = rng.integers(-127, 128, (3, 3, c, n)).astype(np.int8)
    bias = (
        rng.integers(-30000, 30000, n).astype(np.int32)
        if qbias
        else rng.normal(size=n).astype(np.float32)
    )
    min_f = -rng.uniform(0.1, 2, n).astype(np.float32) if per_channel else np.float32(-0.7)
    max_f = rng.uniform(0.1, 2, n).astype(np.float32) if per_channel else np.float32(0.9)
    args = [x, w, bias, f32(-1.5), f32(2.5), min_f, max_f, f32(0), f32(9.0)]
    out, lo, hi = ops.run(CONV, args, strides=[1, 2, 1, 1], padding="SAME")
    assert (lo, hi) == (0.0, 9.0) and out.shape == (2, 12, 29, n)
    acc = _conv_sums(x, w, [1, 2, 1, 1], [1, 1, 1, 1], 1, 1, 12, 29)
    scale = (f32(2.5) / f32(127 if signed else 255) * _filter_scale(min_f, max_f, n)).astype(f32)
    fbias = (bias.astype(f32) * scale).astype(f32) if qbias else bias
    np.testing.assert_array_equal(out, _requantize(acc, scale, fbias, 0.0, 9.0))
    assert 0 < np.count_nonzero(out) < out.size and np.count_nonzero(out == 255) < out.size


def test_matmul_over_several_blocks_matches_the_emulation():
    rng = np.random.default_rng(8)
    m, k, n = 300, 700, 530
    a = rng.integers(0, 256, (m, k)).astype(np.uint8)
    b = rng.integers(-127, 128, (k, n)).astype(np.int8)
    bias = rng.normal(size=n).astype(np.float32)
    args = [a, b, bias, f32(0), f32(3.0), f32(-0.5), f32(0.5), f32(0), f32(40.0)]
    out = ops.run(MATMUL, args)[0]
    scale = np.full(n, f32(f32(3.0) / f32(255)) * f32(f32(0.5) / f32(127)), f32)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    np.testing.assert_array_equal(out, _requantize(acc, scale, bias, 0.0, 40.0))
    assert len(np.unique(out)) > 100


def test_matmul_transposes_are_the_same_product():
    # TensorFlow's kernel rejects transposes; swigflow takes them (same bytes as transposing).
    rng = np.random.default_rng(9)
    a = rng.integers(0, 256, (37, 53)).astype(np.uint8)
    b = rng.integers(-127, 128, (53, 41)).astype(np.int8)
    rest = [rng.normal(size=41).astype(np.float32), f32(0), f32(2), f32(-1), f32(1), f32(0), f32(9)]
    want = ops.run(MATMUL, [a, b, *rest])[0]
    for ta in (False, True):
        for tb in (False, True):
            got = ops.run(
                MATMUL,
                [a.T.copy() if ta else a, b.T.copy() if tb else b, *rest],
                transpose_a=ta,
                transpose_b=tb,
            )[0]
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("index", DIVERGING, ids=lambda i: f"{i}-{CALLS[i]['attrs']}")
def test_min_first_with_negative_min_a_is_the_affine_product(index):
    # TensorFlow 2.21 adds the zero-point compensation in output units (its outputs saturate);
    # swigflow quantizes min_a + q * (max_a - min_a) / 255 exactly: within one step of float64.
    call = CALLS[index]
    a, b, bias, min_a, max_a, min_b, max_b, min_o, max_o = (GOLDEN[k] for k in call["inputs"])
    out = _run(call)[0]
    step_a = (
        (np.float64(max_a) - min_a) / 255
        if call["attrs"]["input_quant_mode"] == "MIN_FIRST"
        else max(abs(min_a), abs(max_a)) / 255
    )
    real_a = (min_a if call["attrs"]["input_quant_mode"] == "MIN_FIRST" else 0) + a * step_a
    real_b = b * (max(abs(np.float64(min_b)), abs(max_b)) / 127)
    scale_b = max(abs(np.float64(min_b)), abs(max_b)) / 127
    real_bias = bias * (step_a * scale_b) if bias.dtype == np.int32 else bias.astype(np.float64)
    real = np.maximum(real_a @ real_b + real_bias, 0)
    want = np.clip(np.rint(real * 255 / max(abs(np.float64(min_o)), abs(max_o))), 0, 255)
    assert np.max(np.abs(out.astype(np.int64) - want)) <= 1
    tf_out = GOLDEN[call["outputs"][0]]
    assert np.mean(np.abs(tf_out.astype(np.int64) - want)) > np.mean(
        np.abs(out.astype(np.int64) - want)
    )


def _conv_args(**changes):
    rng = np.random.default_rng(1)
    args = dict(
        input=rng.integers(0, 256, (1, 5, 5, 3)).astype(np.uint8),
        filter=rng.integers(-127, 128, (3, 3, 3, 4)).astype(np.int8),
        bias=np.zeros(4, np.float32),
        min_input=f32(0),
        max_input=f32(1),
        min_filter=f32(-1),
        max_filter=f32(1),
        min_freezed_output=f32(0),
        max_freezed_output=f32(6),
    )
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME")
    for key, value in changes.items():
        (args if key in args else attrs)[key] = value
    return list(args.values()), attrs


@pytest.mark.parametrize(
    "changes,error,message",
    [
        (dict(filter=np.zeros((3, 3, 3, 4), np.uint8)), errors.NotFoundError, "Tfilter=quint8"),
        (dict(out_type="qint8"), errors.NotFoundError, "out_type=qint8"),
        (dict(bias=np.zeros(3, np.float32)), errors.InvalidArgumentError, "bias must be 1-D"),
        (
            dict(min_filter=np.zeros(3, np.float32)),
            errors.InvalidArgumentError,
            "per output channel",
        ),
        (
            dict(min_input=np.zeros(2, np.float32)),
            errors.InvalidArgumentError,
            "min_input must be a scalar",
        ),
        (dict(max_freezed_output=f32(0)), errors.InvalidArgumentError, "min_freezed_output"),
        (dict(max_input=f32(np.inf)), errors.InvalidArgumentError, "finite"),
        (
            dict(padding="VALID", filter=np.zeros((6, 1, 3, 4), np.int8)),
            errors.InvalidArgumentError,
            "height of the output would be empty",
        ),
        (dict(padding_list=[0, 0, 1, 1]), errors.InvalidArgumentError, "padding_list must be"),
        (
            dict(padding_list=[0, 0, -1, 0, 0, 0, 0, 0]),
            errors.InvalidArgumentError,
            "padding_list must be",
        ),
        (dict(strides=[1, 0, 1, 1]), errors.InvalidArgumentError, "strides must be"),
        (dict(dilations=[2, 1, 1, 1]), errors.InvalidArgumentError, "dilations must be"),
        (dict(filter=np.zeros((3, 3, 2, 4), np.int8)), errors.InvalidArgumentError, "same depth"),
    ],
)
def test_conv_errors(changes, error, message):
    args, attrs = _conv_args(**changes)
    with pytest.raises(error, match=message):
        ops.run(CONV, args, **attrs)


def test_matmul_errors():
    a, b = np.zeros((2, 3), np.uint8), np.zeros((3, 4), np.int8)
    rest = [np.zeros(4, np.float32), f32(0), f32(1), f32(-1), f32(1), f32(0), f32(6)]
    with pytest.raises(errors.InvalidArgumentError, match="size-incompatible"):
        ops.run(MATMUL, [a, np.zeros((2, 4), np.int8), *rest])
    with pytest.raises(errors.InvalidArgumentError, match="min_b must be a scalar"):
        ops.run(MATMUL, [a, b, *rest[:3], np.zeros(4, np.float32), *rest[4:]])
    with pytest.raises(errors.InvalidArgumentError, match="max_a must be larger"):
        ops.run(MATMUL, [a, b, rest[0], f32(1), f32(1), *rest[3:]])
    with pytest.raises(errors.NotFoundError):
        ops.run(MATMUL, [a, b.view(np.uint8), *rest])


def test_packed_weights_give_the_same_bytes():
    # Several GEMM blocks, transposes, MIN_FIRST with min_a < 0 (which needs b's column sums)
    # and a qint32 bias: SwigflowInt8PackWeights + the packed op = TensorFlow's fused op.
    rng = np.random.default_rng(10)
    m, k, n = 130, 1100, 300
    a = rng.integers(0, 256, (m, k)).astype(np.uint8)
    b = rng.integers(-127, 128, (k, n)).astype(np.int8)
    for bias in (rng.normal(size=n).astype(np.float32), rng.integers(-999, 999, n, np.int32)):
        for mode, min_a in (("SCALED", 0.0), ("MIN_FIRST", 0.0), ("MIN_FIRST", -1.5)):
            rest = [f32(min_a), f32(3.0), f32(-0.5), f32(0.5), f32(0), f32(30.0)]
            want = ops.run(MATMUL, [a, b, bias, *rest], input_quant_mode=mode)
            packed = ops.run(PACK, [b])
            assert packed[0].dtype == np.uint8 and packed[1].dtype == np.int32
            np.testing.assert_array_equal(packed[1], b.astype(np.int64).sum(axis=0))
            got = ops.run(PACKED, [a, *packed, bias, *rest], input_quant_mode=mode)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
            # Stored transposed, packed from either side.
            packed_t = ops.run(PACK, [b.T.copy()], transpose=True)
            np.testing.assert_array_equal(packed_t[0], packed[0])
            got = ops.run(
                PACKED,
                [a.T.copy(), *packed_t, bias, *rest],
                transpose_a=True,
                input_quant_mode=mode,
            )
            np.testing.assert_array_equal(got[0], want[0])


def test_packed_weights_errors():
    a, b = np.zeros((2, 3), np.uint8), np.ones((3, 4), np.int8)
    rest = [np.zeros(4, np.float32), f32(0), f32(1), f32(-1), f32(1), f32(0), f32(6)]
    packed, sums = ops.run(PACK, [b])
    with pytest.raises(errors.InvalidArgumentError, match="a has 2 columns and the packed b 3"):
        ops.run(PACKED, [a[:, :2], packed, sums, *rest])
    with pytest.raises(errors.InvalidArgumentError, match="damaged or truncated"):
        ops.run(PACKED, [a, packed[:-1], sums, *rest])
    with pytest.raises(errors.InvalidArgumentError, match="not packed 8-bit weights"):
        ops.run(PACKED, [a, np.zeros(100, np.uint8), sums, *rest])
    with pytest.raises(errors.InvalidArgumentError, match="b_column_sums must have"):
        ops.run(PACKED, [a, packed, sums[:3], *rest])
    with pytest.raises(errors.InvalidArgumentError, match="non-empty matrix or HWIO filter"):
        ops.run(PACK, [np.zeros((0, 4), np.int8)])
    with pytest.raises(errors.InvalidArgumentError, match="transpose applies to matrices"):
        ops.run(PACK, [np.ones((1, 1, 3, 4), np.int8)], transpose=True)
    with pytest.raises(errors.InvalidArgumentError, match="not in the list of allowed values"):
        ops.run(PACK, [b.view(np.uint8)])


def test_packed_filter_errors():
    args, attrs = _conv_args()
    packed = ops.run(PACK, [args[1]])

    def run(shape, *p):
        return ops.run(PACKED_CONV, [args[0], *p, *args[2:]], filter_shape=shape, **attrs)

    np.testing.assert_array_equal(run([3, 3, 3, 4], *packed)[0], ops.run(CONV, args, **attrs)[0])
    with pytest.raises(errors.InvalidArgumentError, match=r"is a 18 x 4 product, the packed"):
        run([2, 3, 3, 4], *packed)
    with pytest.raises(errors.InvalidArgumentError, match="same depth"):
        run([3, 3, 2, 4], *packed)
    with pytest.raises(errors.InvalidArgumentError, match="4 sizes"):
        run([3, 3, 4], *packed)
    with pytest.raises(errors.InvalidArgumentError, match="filter_column_sums must have"):
        run([3, 3, 3, 4], packed[0], packed[1][:2])
    with pytest.raises(errors.InvalidArgumentError, match="damaged or truncated"):
        run([3, 3, 3, 4], packed[0][:-3], packed[1])


def test_empty_batch_and_zero_depth():
    args, attrs = _conv_args(input=np.zeros((0, 5, 5, 3), np.uint8))
    assert ops.run(CONV, args, **attrs)[0].shape == (0, 5, 5, 4)
    args, attrs = _conv_args(
        input=np.zeros((1, 5, 5, 0), np.uint8),
        filter=np.zeros((3, 3, 0, 4), np.int8),
        bias=np.float32([1, -1, 2, 0]),
    )
    out = ops.run(CONV, args, **attrs)[0]
    np.testing.assert_array_equal(out[0, 0, 0], np.rint(np.float32([1, 0, 2, 0]) * (255 / 6)))


def test_not_differentiable():
    from swigflow.ops import get_gradient

    for op in (CONV, MATMUL, PACK, PACKED, PACKED_CONV):
        assert get_gradient(op) is not None
