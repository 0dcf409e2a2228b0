"""swigflow.load_op_library with the in-tree example built by swigflow_custom_op_library."""

import os

import numpy as np
import pytest

import swigflow

LIBRARY = os.path.join(
    os.path.dirname(__file__), "..", "..", "examples", "custom_op", "zero_out.so"
)
THROWING = os.path.join(os.path.dirname(__file__), "throwing_op.so")


def test_zero_out_from_the_bazel_built_library():
    module = swigflow.load_op_library(LIBRARY)
    assert module.OP_LIST == ["ZeroOut"]
    np.testing.assert_array_equal(
        module.zero_out(np.array([[5, 2], [3, 4]], np.int32)), [[5, 0], [0, 0]]
    )
    assert module.zero_out(np.zeros((0,), np.int32)).shape == (0,)
    assert "ZeroOut" in [op["name"] for op in swigflow.ops.list_ops()]
    # Registered like a built-in op: the generic entry point and its checks apply.
    np.testing.assert_array_equal(
        swigflow.ops.run("ZeroOut", [np.array([3, 1], np.int32)])[0], [3, 0]
    )
    with pytest.raises(swigflow.errors.InvalidArgumentError, match="expected to be a int32 tensor"):
        module.zero_out(np.array([1.5], np.float32))
    with pytest.raises(swigflow.errors.AlreadyExistsError, match="already loaded"):
        swigflow.load_op_library(LIBRARY)


def test_missing_library_is_not_found(tmp_path):
    with pytest.raises(swigflow.errors.NotFoundError, match="cannot load op library"):
        swigflow.load_op_library(str(tmp_path / "missing.so"))


def test_exceptions_from_a_kernel_cross_into_the_module():
    """A kernel built with the system's libstdc++ throws into the module, which carries its own
    (linked statically): each is caught by type, even when caught and rethrown again inside the
    module, and ends as the typed error; the process goes on (as often as it happens)."""
    module = swigflow.load_op_library(THROWING)
    for _ in range(3):
        with pytest.raises(swigflow.errors.ResourceExhaustedError, match="OOM when allocating"):
            module.throw_from_kernel(np.array([0], np.int32))
        with pytest.raises(
            swigflow.errors.ResourceExhaustedError, match=r"std::length_error: vector::reserve"
        ):
            module.throw_from_kernel(np.array([1], np.int32))
        with pytest.raises(
            swigflow.errors.InternalError, match="C\\+\\+ exception: kernel gave up"
        ):
            module.throw_from_kernel(np.array([2], np.int32))
    assert module.throw_from_kernel(np.array([7, 8], np.int32)).shape == (2,)
