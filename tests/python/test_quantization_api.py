"""swigflow.quantization: calibration from a swigflow.data pipeline (minmax, percentile,
entropy; per tensor and per channel), per-channel weight quantization, and the converted Int8
layers against their float64 counterparts."""

import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors, nn, ops
from swigflow import quantization as q

rng = np.random.default_rng(11)


def _batches(values, size):
    return sf.data.Dataset.from_tensor_slices(values).batch(size)


def test_minmax_over_a_pipeline_per_tensor_and_per_channel():
    x = rng.normal(size=(50, 4, 3)).astype(np.float32)
    ranges = q.calibrate(lambda b: {"x": b, "sq": b * b}, _batches(x, 8), "minmax")
    assert ranges["x"] == (x.min(), x.max()) and ranges["sq"].max == (x * x).max()
    assert ranges["x"].min.dtype == np.float32
    per = q.calibrate(lambda b: b, _batches(x, 8), "minmax", axis=-1)["output"]
    np.testing.assert_array_equal(per.min, x.min(axis=(0, 1)))
    np.testing.assert_array_equal(per.max, x.max(axis=(0, 1)))
    two = q.calibrate(lambda b: b, _batches(x, 8), "minmax", num_batches=2)["output"]
    assert two.max == x[:16].max()


def test_percentile_is_the_percentile_of_abs_within_a_bin():
    x = rng.standard_cauchy(size=20000).astype(np.float32)
    got = q.calibrate(lambda b: b, _batches(x, 1000), "percentile", percentile=99.0)["output"]
    want = np.percentile(np.abs(x), 99.0)
    # Bins are at most limit / 2048 wide; the limit is below 2 max|x|.
    assert abs(got.max - want) <= 2 * np.abs(x).max() / 2048
    assert got.min == -got.max  # signed data: symmetric


def test_entropy_clips_outliers_and_keeps_a_uniform_range():
    heavy = np.concatenate([rng.normal(size=30000), [40.0, -35.0]]).astype(np.float32)
    t = q.calibrate(lambda b: b, [heavy], "entropy")["output"].max
    assert 2.5 < t < 15.0  # far below the outliers, above the bulk of the Gaussian
    relu = np.abs(heavy)
    r = q.calibrate(lambda b: b, [relu], "entropy")["output"]
    assert r.min == 0.0 and 2.5 < r.max < 15.0  # non-negative: [0, t]
    uniform = rng.uniform(-1, 1, size=30000).astype(np.float32)
    assert q.calibrate(lambda b: b, [uniform], "entropy")["output"].max > 0.9


def test_histograms_grow_with_later_batches():
    small = rng.uniform(0, 1, size=1000).astype(np.float32)
    large = rng.uniform(0, 100, size=1000).astype(np.float32)
    r = q.calibrate(lambda b: b, [small, large], "percentile", percentile=100)["output"]
    assert abs(r.max - large.max()) <= 2 * large.max() / 2048


def test_per_channel_percentile_and_entropy():
    x = rng.normal(size=(4000, 3)).astype(np.float32) * np.float32([1, 10, 100])
    for method in ("percentile", "entropy"):
        r = q.calibrate(lambda b: b, [x], method, axis=1)["output"]
        assert r.max.shape == (3,) and r.max[0] < r.max[1] < r.max[2]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(method="kl"), "method must be one of"),
        (dict(method="percentile", percentile=0), "percentile must be"),
        (dict(method="entropy", bins=1000), "bins must be"),
        (dict(axis=5), "axis 5 is out of range"),
    ],
)
def test_calibrate_errors(kwargs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        q.calibrate(lambda b: b, [np.zeros((2, 3), np.float32)], **kwargs)


def test_calibrate_rejects_empty_datasets_and_integers():
    with pytest.raises(errors.InvalidArgumentError, match="no batches"):
        q.calibrate(lambda b: b, [])
    with pytest.raises(errors.InvalidArgumentError, match="not floating point"):
        q.calibrate(lambda b: b, [np.zeros(3, np.int32)])


def test_quantize_weights_per_output_channel():
    w = rng.normal(size=(3, 3, 5, 7)).astype(np.float32) * np.float32(np.arange(1, 8))
    w[..., 2] = 0
    qw = q.quantize_weights(w, axis=3)
    assert qw.values.dtype == np.int8 and qw.max.shape == (7,)
    top = np.abs(w).max(axis=(0, 1, 2))
    # QuantizeV2 returns the range its scale stands for: max|w_c| to within float rounding.
    np.testing.assert_allclose(qw.max, np.where(top > 0, top, 1), rtol=1e-6)
    np.testing.assert_array_equal(qw.min, -qw.max)
    assert qw.values.min() >= -127  # narrow range
    step = qw.max / 127
    assert np.all(np.abs(qw.values * step - w) <= step / 2 * (1 + 1e-6))
    assert np.all(qw.values[..., 2] == 0)
    whole = q.quantize_weights(w, axis=None)
    assert whole.max.shape == () and np.isclose(whole.max, np.abs(w).max(), rtol=1e-6)


def test_quantize_and_dequantize_are_scaled():
    x = np.float32([-1.0, 0.0, 0.5, 1.0, 3.0])
    qx = q.quantize(x, (0.0, 2.0))
    np.testing.assert_array_equal(qx, [0, 0, 64, 128, 255])
    np.testing.assert_allclose(q.dequantize(qx, (0.0, 2.0)), qx * np.float32(2 / 255), rtol=1e-6)
    with pytest.raises(errors.InvalidArgumentError, match="not \\[0, 0\\]"):
        q.quantize(x, (0.0, 0.0))


def test_int8_conv_and_dense_follow_float_within_the_quantization_error():
    x = np.abs(rng.normal(size=(2, 12, 12, 8))).astype(np.float32)
    w = rng.normal(size=(3, 3, 8, 16)).astype(np.float32) * 0.2
    b = rng.normal(size=16).astype(np.float32) * 0.1
    ref = np.maximum(nn.conv2d(x, w, 2, "SAME") + b, 0)
    in_range, out_range = (0.0, float(x.max())), (0.0, float(ref.max()))
    layer = q.Int8Conv2D(w, b, in_range, out_range, strides=2)
    y = q.dequantize(layer(q.quantize(x, in_range)), out_range)
    # Input steps (max|x| / 255) through |w| summed over 72 taps, plus half an output step.
    bound = (in_range[1] / 255) * np.abs(w).sum(axis=(0, 1, 2)).max() / 2 + out_range[1] / 255
    assert np.abs(y - ref).max() <= bound and np.abs(y - ref).mean() < out_range[1] / 255
    kernel = rng.normal(size=(40, 9)).astype(np.float32)
    feats = np.abs(rng.normal(size=(6, 40))).astype(np.float32)
    dense_ref = np.maximum(feats.astype(np.float64) @ kernel + 0.5, 0)
    dense = q.Int8Dense(kernel, np.full(9, 0.5, np.float32), (0, feats.max()), (0, dense_ref.max()))
    got = q.dequantize(dense(q.quantize(feats, (0, feats.max()))), (0, dense_ref.max()))
    assert np.abs(got - dense_ref).max() < 0.05 * dense_ref.max()


def _packs_once(monkeypatch, layer, x, want):
    """layer(x) == want on two calls and after a pickle round trip, with the weights packed
    once in the layer and once more in its copy (which does not carry the packing)."""
    run, names = ops.run, []
    monkeypatch.setattr(ops, "run", lambda name, *a, **k: names.append(name) or run(name, *a, **k))
    np.testing.assert_array_equal(layer(x), want)
    np.testing.assert_array_equal(layer(x), want)
    assert names.count("SwigflowInt8PackWeights") == 1
    copy = pickle.loads(pickle.dumps(layer))
    assert len(pickle.dumps(copy)) < len(pickle.dumps(layer.weights)) + 4000  # no packing kept
    np.testing.assert_array_equal(copy(x), want)
    assert names.count("SwigflowInt8PackWeights") == 2


def test_int8_dense_packs_its_kernel_once(monkeypatch):
    rng = np.random.default_rng(4)
    kernel = rng.normal(size=(70, 33)).astype(np.float32)
    dense = q.Int8Dense(kernel, np.full(33, 0.1, np.float32), (0, 4), (0, 3))
    x = rng.integers(0, 256, (20, 70)).astype(np.uint8)
    w = dense.weights
    ranges = [np.float32(0), np.float32(4), w.min, w.max, np.float32(0), np.float32(3)]
    want = ops.run(
        "QuantizedMatMulWithBiasAndReluAndRequantize",
        [x, w.values, dense.bias, *ranges],
        input_quant_mode="SCALED",
    )[0]
    _packs_once(monkeypatch, dense, x, want)


def test_int8_conv2d_packs_its_filters_once(monkeypatch):
    rng = np.random.default_rng(5)
    filters = rng.normal(size=(3, 3, 8, 12)).astype(np.float32)
    conv = q.Int8Conv2D(filters, np.full(12, 0.2, np.float32), (0, 4), (0, 3), strides=2)
    x = rng.integers(0, 256, (2, 9, 9, 8)).astype(np.uint8)
    w = conv.weights
    ranges = [np.float32(0), np.float32(4), w.min, w.max, np.float32(0), np.float32(3)]
    want = ops.run(
        "QuantizedConv2DWithBiasAndReluAndRequantize",
        [x, w.values, conv.bias, *ranges],
        strides=[1, 2, 2, 1],
        padding="SAME",
    )[0]
    _packs_once(monkeypatch, conv, x, want)


def test_layer_errors():
    with pytest.raises(errors.InvalidArgumentError, match="HWIO"):
        q.Int8Conv2D(np.zeros((3, 3, 2)), np.zeros(2), (0, 1), (0, 1))
    with pytest.raises(errors.InvalidArgumentError, match="input_range"):
        q.Int8Dense(np.ones((2, 2)), np.zeros(2), (0, np.inf), (0, 1))


def test_the_int8_example_converts_a_net_and_keeps_its_accuracy(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "examples", "int8", "int8_convnet.py")
    flags = ["--method", "minmax", "--train", "600", "--test", "300", "--calibration-batches", "2"]
    result = subprocess.run(
        [sys.executable, script, *flags, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(x for x in result.stdout.splitlines() if x.startswith("test accuracy"))
    fp32, int8 = (float(v) for v in re.findall(r"(?:fp32|int8) ([0-9.]+)", line))
    assert fp32 > 0.3 and abs(int8 - fp32) < 0.1, result.stdout
    assert "speed-up" in result.stdout
    assert (tmp_path / "train.tfrecord").exists()
