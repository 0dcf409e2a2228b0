"""Writes tests/testdata/tf_tape/golden.json: what TensorFlow 2.21's GradientTape gives in each
case below (values and dtypes, or the error class and message), from backprop_test's topics:
batch_jacobian, sources without gradients, output gradients, watched variables, used tapes,
unconnected_gradients, a custom gradient returning its input, identity and stop_gradient.

Each case is a function of `tf`, a namespace of the TensorFlow names it uses: TensorFlow's
own (tensorflow.GradientTape, tensorflow.constant, ...) here; tests/python/test_tape.py runs
it with swigflow's (constants are arrays there, and arrays play TF's variables). Run once in a
throwaway venv with tensorflow-cpu:

    python tests/testdata/make_tf_tape.py
"""

import os
import types

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_tape", "golden.json")


def x_of(tf):
    return tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))


def batch_jacobian(tf):
    t, y, x = _squared(tf)
    return t.batch_jacobian(y, x)


def batch_jacobian_wide(tf):
    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        s = tf.reduce_sum(tf.multiply(x, x), axis=1, keepdims=True)
        y = tf.multiply(s, tf.constant(np.array([[1.0, 2.0, 3.0]], np.float32)))
    return t.batch_jacobian(y, x)


def batch_jacobian_batch_mismatch(tf):
    x = x_of(tf)
    z = tf.constant(np.array([[1.0], [2.0], [3.0]], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        t.watch(z)
        y = tf.multiply(x, 2.0)
    return t.batch_jacobian(y, z)


def batch_jacobian_unconnected_zero(tf):
    x = x_of(tf)
    z = tf.constant(np.array([[1.0], [2.0]], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        t.watch(z)
        y = tf.multiply(x, 2.0)
    return t.batch_jacobian(y, z, unconnected_gradients="zero")


def int_source(tf):
    i = tf.constant(np.array([1, 2], np.int32))
    with tf.GradientTape() as t:
        t.watch(i)
        y = tf.multiply(i, i)
    return t.gradient(y, i)


def int_and_float_sources(tf):
    i = tf.constant(np.array([1, 2], np.int32))
    x = tf.constant(np.array([1.5, 2.0], np.float32))
    with tf.GradientTape() as t:
        t.watch(i)
        t.watch(x)
        y = tf.multiply(tf.cast(i, np.float32), x)
    return t.gradient(y, [i, x])


def output_gradients_list(tf):
    x = tf.constant(np.array([1.0, 2.0], np.float64))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(x, x)
    return t.gradient(y, x, output_gradients=tf.constant(np.array([1.5, 2.0], np.float64)))


def _times_three_seeded_with_two(tf, dtype):
    x = tf.constant(np.array([1.0, 2.0], dtype))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(x, tf.constant(np.array([3.0, 3.0], dtype)))
    return t.gradient(y, x, output_gradients=2.0)


def output_gradients_python_float(tf):
    return _times_three_seeded_with_two(tf, np.float64)


def output_gradients_python_float_float32(tf):
    return _times_three_seeded_with_two(tf, np.float32)


def _squared(tf):
    """A non-persistent tape that recorded y = x * x, and y and x."""
    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(x, x)
    return t, y, x


def jacobian_after_gradient(tf):
    t, y, x = _squared(tf)
    t.gradient(y, x)
    return t.jacobian(y, x)


def gradient_twice(tf):
    t, y, x = _squared(tf)
    t.gradient(y, x)
    return t.gradient(y, x)


def unconnected_unknown(tf):
    t, y, x = _squared(tf)
    return t.gradient(y, x, unconnected_gradients="bogus")


def custom_gradient_returns_its_input(tf):
    @tf.custom_gradient
    def scaled_identity(a):
        return a, lambda dy: tf.multiply(dy, 3.0)

    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = scaled_identity(x)
    return t.gradient(y, x)


def identity_gradient(tf):
    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(tf.identity(x), 2.0)
    return t.gradient(y, x)


def stop_gradient_gradient(tf):
    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(tf.stop_gradient(x), x)
    return t.gradient(y, x)


def stop_gradient_only(tf):
    x = x_of(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.multiply(tf.stop_gradient(x), 2.0)
    return t.gradient(y, x)


def _recorded(tf, backward):
    x = tf.constant(np.array(3.0, np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.constant(np.array(1.0, np.float32))
        tf.record_operation("Recorded", [y], [x], backward)
    return t.gradient(y, x)


def record_operation_backward(tf):
    return _recorded(tf, lambda dy: [tf.multiply(dy, 2.0)])


def record_operation_too_few(tf):
    return _recorded(tf, lambda dy: [])


def record_operation_too_many(tf):
    return _recorded(tf, lambda dy: [dy, dy])


def record_operation_not_a_list(tf):
    return _recorded(tf, lambda dy: tf.multiply(dy, 2.0))


def identity_value(tf):
    return tf.identity([1, 2])


def stop_gradient_value(tf):
    return tf.stop_gradient(np.array([1.5], np.float64))


CASES = [
    batch_jacobian,
    batch_jacobian_wide,
    batch_jacobian_batch_mismatch,
    batch_jacobian_unconnected_zero,
    int_source,
    int_and_float_sources,
    output_gradients_list,
    output_gradients_python_float,
    output_gradients_python_float_float32,
    jacobian_after_gradient,
    gradient_twice,
    unconnected_unknown,
    custom_gradient_returns_its_input,
    identity_gradient,
    stop_gradient_gradient,
    stop_gradient_only,
    record_operation_backward,
    record_operation_too_few,
    record_operation_too_many,
    record_operation_not_a_list,
    identity_value,
    stop_gradient_value,
]


def encode(value):
    """A result as JSON: arrays as {dtype, shape, values}; None as null; lists as lists."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": array.ravel().tolist()}


def run_case(case, tf):
    try:
        return {"value": encode(case(tf))}
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}


def main():
    import tensorflow
    from tensorflow.python.eager import record  # TF's record_operation (not under tf.*)

    names = types.SimpleNamespace(
        record_operation=record.record_operation,
        GradientTape=tensorflow.GradientTape,
        constant=tensorflow.constant,
        multiply=tensorflow.multiply,
        reduce_sum=tensorflow.reduce_sum,
        cast=tensorflow.cast,
        custom_gradient=tensorflow.custom_gradient,
        identity=tensorflow.identity,
        stop_gradient=tensorflow.stop_gradient,
    )
    golden = {case.__name__: run_case(case, names) for case in CASES}
    golden["_tensorflow"] = tensorflow.__version__
    import golden_json  # beside this script

    golden_json.write(OUT, golden)


if __name__ == "__main__":
    main()
