"""TensorFlow's test_util.assertAllCloseAccordingToType for the translated tests (TF's
tolerances, our code). Gradient checks use swigflow.test.compute_gradient_error."""

import numpy as np


def assert_all_close_according_to_type(
    expected, actual, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
    half_rtol=1e-3, half_atol=1e-3,
):  # fmt: skip
    """test_util.assertAllCloseAccordingToType: the tolerance widens to the least precise of the
    two dtypes (float16: 1e-3, float32: 1e-6)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    dtypes = {expected.dtype, actual.dtype}
    if np.float16 in dtypes:
        rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
    elif np.float32 in dtypes:
        rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
    np.testing.assert_allclose(
        actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol
    )
