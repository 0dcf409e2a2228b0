"""Helpers for the translated tests, our code on TensorFlow's definitions: test_util's
assertAllCloseAccordingToType tolerances, plain-Python elements, and checkpoint_test_base's
verify functions as iterator states. Gradient checks use swigflow.test.compute_gradient_error."""

import json

import numpy as np

from swigflow.tensors import RaggedTensor, SparseTensor


def assert_all_close_according_to_type(
    expected, actual, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
    half_rtol=1e-3, half_atol=1e-3,
):  # fmt: skip
    """test_util.assertAllCloseAccordingToType: the tolerance widens to the least precise of the
    two dtypes (float16: 1e-3, float32: 1e-6)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    dtypes = {expected.dtype, actual.dtype}
    if np.dtype(np.float16) in dtypes:
        rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
    elif np.dtype(np.float32) in dtypes:
        rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
    wide = np.complex128 if "c" in (expected.dtype.kind, actual.dtype.kind) else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=rtol, atol=atol)


def as_py(element):
    """An element as plain Python (lists, ints, floats, bytes), for comparisons: a
    SparseTensor as a dict of its parts, a RaggedTensor as its rows' lists."""
    if isinstance(element, SparseTensor):
        parts = ("indices", "values", "dense_shape")
        return {"sparse": {k: getattr(element, k).tolist() for k in parts}}
    if isinstance(element, RaggedTensor):
        return {"ragged": element.to_list()}
    if isinstance(element, (tuple, list)):
        return type(element)(as_py(e) for e in element)
    if isinstance(element, dict):
        return {k: as_py(v) for k, v in element.items()}
    if isinstance(element, np.ndarray):
        return element.tolist()
    if isinstance(element, np.generic):
        return element.item()
    return element


def verify_checkpoints(make_dataset, num_outputs, stops=None):
    """checkpoint_test_base's verify functions as iterator states: the dataset gives
    num_outputs elements, and an iterator restored from the state saved after any of them
    (through JSON, as a file would keep it) gives the rest. `stops`: where to save, when not
    after every element (long datasets)."""
    whole = [as_py(e) for e in make_dataset()]
    assert len(whole) == num_outputs
    for stop in range(num_outputs + 1) if stops is None else stops:
        it = make_dataset().iterator()
        head = [as_py(next(it)) for _ in range(stop)]
        state = json.loads(json.dumps(it.state()))
        assert head + [as_py(e) for e in make_dataset().iterator(state=state)] == whole, stop
