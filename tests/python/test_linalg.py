"""swigflow.linalg.matmul against float64 references, on every ISA path and thread count."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from gil import assert_releases_gil

import swigflow
from swigflow import errors

SHAPES = [
    (1, 1, 1),
    (1, 300, 7),
    (300, 1, 7),
    (5, 7, 3),
    (13, 33, 193),
    (25, 65, 257),
    (64, 600, 64),
]


def reference(a, b, ta, tb):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return (a.T if ta else a) @ (b.T if tb else b)


def operands(rng, m, n, k, ta, tb, dtype=np.float32):
    a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(dtype)
    return a, b


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("trans", [(False, False), (True, False), (False, True), (True, True)])
def test_matches_float64(shape, trans):
    rng = np.random.default_rng(sum(shape))
    m, n, k = shape
    a, b = operands(rng, m, n, k, *trans)
    got = swigflow.linalg.matmul(a, b, transpose_a=trans[0], transpose_b=trans[1])
    assert got.dtype == np.float32 and got.shape == (m, n)
    want = reference(a, b, *trans)
    np.testing.assert_allclose(
        got, want, rtol=0, atol=2e-7 * (k + 8) * np.abs(a).max() * np.abs(b).max() * k
    )


def test_float64_path():
    rng = np.random.default_rng(1)
    a, b = operands(rng, 17, 19, 23, False, True, np.float64)
    got = swigflow.matmul(a, b, transpose_b=True)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-12, atol=1e-12)


def test_any_strides():
    rng = np.random.default_rng(2)
    big = rng.uniform(-1, 1, (80, 90)).astype(np.float32)
    cases = [
        (big[::2, ::3], big[:30, :20]),  # no unit stride: copied
        (big[:20, :30].T, big[:20, :10]),  # transposed view: used as is
        (np.asfortranarray(big[:30, :40]), big[:40, :50]),
        (big[5:25, 7:37], big[10:40, 3:13]),  # row stride larger than the width
    ]
    for a, b in cases:
        np.testing.assert_allclose(swigflow.matmul(a, b), reference(a, b, False, False), atol=1e-4)


def test_batches_broadcast_like_tf():
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (2, 1, 5, 7)).astype(np.float32)
    b = rng.uniform(-1, 1, (3, 7, 4)).astype(np.float32)
    got = swigflow.matmul(a, b)
    assert got.shape == (2, 3, 5, 4)
    np.testing.assert_allclose(
        got, np.matmul(a.astype(np.float64), b.astype(np.float64)), atol=1e-5
    )
    got_t = swigflow.matmul(b, b, transpose_a=True)
    assert got_t.shape == (3, 4, 4)


@pytest.mark.parametrize("size", [3, 17, 70])  # small products run one per thread; 70 over the pool
def test_batches_in_one_call_equal_the_2d_products_bit_for_bit(size):
    rng = np.random.default_rng(size)
    a = rng.uniform(-1, 1, (4, 1, size, size + 1)).astype(np.float32)
    b = rng.uniform(-1, 1, (1, 5, size + 1, size - 1)).astype(np.float32)
    got = swigflow.matmul(a, b)
    for i in range(4):
        for j in range(5):
            assert got[i, j].tobytes() == swigflow.matmul(a[i, 0], b[0, j]).tobytes()
    # Transposed and column-major batches, batch axes reversed or strided: views or one copy.
    at = np.swapaxes(a, -1, -2)[::-1]
    bt = np.asfortranarray(b[0]).transpose(0, 2, 1)[:, ::1]
    got_t = swigflow.matmul(at, bt, transpose_a=True, transpose_b=True)
    want = np.matmul(
        np.swapaxes(at, -1, -2).astype(np.float64), np.swapaxes(bt, -1, -2).astype(np.float64)
    )
    np.testing.assert_allclose(got_t, want, atol=1e-4)
    got64 = swigflow.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(
        got64, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-12
    )


def test_broadcast_batches_are_not_copied():
    a = np.ones((1, 8, 8), np.float32)
    b = np.broadcast_to(np.eye(8, dtype=np.float32), (100_000, 8, 8))  # 25 MB if materialized
    got = swigflow.matmul(a, b)
    assert got.shape == (100_000, 8, 8) and np.all(got == 1)


def test_zero_sizes():
    assert swigflow.matmul(np.zeros((0, 3), np.float32), np.zeros((3, 4), np.float32)).shape == (
        0,
        4,
    )
    out = swigflow.matmul(np.zeros((2, 0), np.float32), np.zeros((0, 4), np.float32))
    assert out.shape == (2, 4) and not out.any()


def test_errors_like_tensorflow():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(
        errors.InvalidArgumentError,
        match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]",
    ):
        swigflow.matmul(a, np.zeros((4, 5), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="compatible batch dimensions"):
        swigflow.matmul(np.zeros((2, 2, 3), np.float32), np.zeros((3, 3, 4), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="at least 2-D"):
        swigflow.matmul(np.zeros(3, np.float32), a)
    with pytest.raises(errors.InvalidArgumentError, match="expected to be a float32"):
        swigflow.matmul(a, np.zeros((3, 2), np.float64))
    with pytest.raises(errors.InvalidArgumentError, match="float32 and float64"):
        swigflow.matmul(np.zeros((2, 3), np.int32), np.zeros((3, 2), np.int32))


def test_releases_the_gil():
    a = np.ones((1500, 1500), np.float32)
    assert_releases_gil(lambda: swigflow.matmul(a, a))


_CHILD = """
import json, sys, numpy as np, swigflow
rng = np.random.default_rng(7)
a = rng.uniform(-1, 1, (130, 300)).astype(np.float32)
b = rng.uniform(-1, 1, (300, 170)).astype(np.float32)
c = swigflow.matmul(a, b, transpose_b=False)
print(json.dumps({"isa": swigflow.linalg.kernel_isa(), "bytes": c.tobytes().hex(),
                  "err": float(np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max())}))
"""


def run_child(**env):
    result = subprocess.run(
        [sys.executable, "-c", _CHILD],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


@pytest.mark.parametrize("isa", ["scalar", "avx2", "avx512"])
def test_every_isa_path(isa):
    best = run_child()["isa"]
    order = ["scalar", "avx2", "avx512"]
    if order.index(isa) > order.index(best):
        pytest.skip(f"this CPU does not run {isa}")
    child = run_child(SWIGFLOW_ISA=isa)
    assert child["isa"] == isa
    assert child["err"] < 1e-4


def test_one_and_two_threads_are_bit_identical():
    one = run_child(SWIGFLOW_NUM_THREADS="1")
    two = run_child(SWIGFLOW_NUM_THREADS="2")
    assert one["bytes"] == two["bytes"]


_CONFIG_CHILD = """
import json, numpy as np, swigflow
rng = np.random.default_rng(3)
a = rng.uniform(-1, 1, (90, 700)).astype(np.float32)
b = rng.uniform(-1, 1, (700, 150)).astype(np.float32)
c = swigflow.matmul(a, b)
err = float(np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max())
print(json.dumps({"config": swigflow.linalg.kernel_config(), "err": err}))
"""


def test_kernel_config_describes_the_machine_and_the_choice():
    config = swigflow.linalg.kernel_config()
    assert config["source"] in ("cpuid", "caches", "environment")
    assert config["name"]
    assert config["isa"] == swigflow.linalg.kernel_isa()
    for key in ("mr", "nr", "mc", "kc", "nc", "threads", "few_channels"):
        assert isinstance(config[key], int) and config[key] > 0, key
    assert config["mc"] % config["mr"] == 0 and config["nc"] % config["nr"] == 0
    assert 0 < config["min_row_fill_pct"] <= 100
    if config["vendor"] in ("GenuineIntel", "AuthenticAMD"):
        assert config["l1d"] >= 16 << 10 and config["l2"] >= config["l1d"]


def test_blocking_from_the_environment_changes_blocking_not_results_quality():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = {}
    for blocking in (None, "28,64,256", "bad"):
        child_env = dict(env)
        child_env.pop("SWIGFLOW_GEMM_BLOCKING", None)
        if blocking:
            child_env["SWIGFLOW_GEMM_BLOCKING"] = blocking
        out = subprocess.run(
            [sys.executable, "-c", _CONFIG_CHILD],
            env=child_env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        runs[blocking] = json.loads(out)
    chosen = runs["28,64,256"]["config"]
    assert chosen["source"] == "environment"
    assert chosen["kc"] == 64
    assert chosen["mc"] == 28 // chosen["mr"] * chosen["mr"] or chosen["mc"] == chosen["mr"]
    assert runs["bad"]["config"] == runs[None]["config"]  # malformed values are ignored
    for run in runs.values():
        assert run["err"] < 1e-3


def test_measure_fma():
    probe = swigflow.linalg.measure_fma(threads=1, seconds=0.2)
    assert probe["threads"] == 1
    assert probe["gflops"] > 0.5 and probe["ghz"] > 0.3
    assert probe["flops_per_cycle"] > 1.0
