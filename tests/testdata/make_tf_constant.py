"""Writes tests/testdata/tf_constant/golden.json: what TensorFlow 2.21's tf.constant makes of
Python values (strings, NUL bytes, integers at and beyond int64, non-rectangular and mixed
nests, values a dtype cannot hold, numpy scalars): the dtype, shape and values, or the error
class and message.

Each case is Python source over `C` (the constant function), `np` and `NegativeLength` (a
sequence whose __len__ is -1). TensorFlow runs it with C = tf.constant and dtypes as numpy
dtypes or "string"; tests/python/test_constant.py runs it with swigflow.constant. Run once in a
throwaway venv with tensorflow-cpu:

    python tests/testdata/make_tf_constant.py
"""

import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_constant", "golden.json")


class NegativeLength:
    def __len__(self):
        return -1

    def __getitem__(self, i):
        raise IndexError(i)


CASES = {
    "string": "C('str')",
    "string_list": "C(['a', 'bc'])",
    "string_utf8": "C('\\u00e9')",
    "bytes_trailing_nuls": "C(b'ab\\x00\\x00')",
    "bytes_list_nuls": "C([b'ab\\x00', b'c'])",
    "string_as_float": "C('str', np.float32)",
    "string_as_int": "C('1', np.int32)",
    "strings_as_float": "C(['1.5'], np.float32)",
    "int_as_string": "C(1, 'string')",
    "int64_max": "C(2**63 - 1)",
    "int_beyond_int64": "C(2**63)",
    "int_below_int64": "C(-2**63 - 1)",
    "int_beyond_int64_as_int64": "C(2**63, np.int64)",
    "int_as_uint64": "C(2**63, np.uint64)",
    "int_wraps_int32": "C(2**31, np.int32)",
    "ints_wrap_uint8": "C([-1, 300], np.uint8)",
    "ints_int32": "C([1, 2])",
    "ints_int64": "C([1, 2**40])",
    "int_beyond_double": "C(10**310, np.float64)",
    "int_beyond_double_default": "C(10**310)",
    "int_as_double": "C(2**63, np.float64)",
    "float_beyond_float32": "C(1e300, np.float32)",
    "negative_length": "C(NegativeLength())",
    "non_rectangular": "C([[1, 2], [3]])",
    "non_rectangular_deep": "C([[1], [2, [3]]])",
    "mixed_string_number": "C(['a', 1])",
    "mixed_bool_int": "C([True, 1])",
    "mixed_int_float": "C([1, 2.5])",
    "none": "C(None)",
    "bools": "C([True, False])",
    "bool_as_int": "C(True, np.int32)",
    "int_as_bool": "C(1, np.bool_)",
    "float_as_int": "C(1.0, np.int32)",
    "floats_as_int": "C([1.0, 2.5], np.int32)",
    "numpy_float_as_int": "C(np.array([1.5]), np.int32)",
    "numpy_scalar": "C(np.float64(1.5))",
    "numpy_scalars_in_list": "C([np.float64(1.5), 2.0])",
    "complex": "C(1 + 2j)",
    "complex_as_float": "C(1 + 2j, np.float32)",
    "empty": "C([])",
    "empty_nested": "C([[], []])",
    "tuple": "C((1, 2))",
    "shape_fill": "C(7, shape=[2, 2])",
}


def encode(array, dtype_name):
    values = array.reshape(-1).tolist()
    values = [v.decode("latin-1") if isinstance(v, bytes) else v for v in values]
    values = [repr(v) if isinstance(v, float) and not np.isfinite(v) else v for v in values]
    values = [[v.real, v.imag] if isinstance(v, complex) else v for v in values]
    return {"dtype": dtype_name, "shape": list(array.shape), "values": values}


def run_case(source, constant, to_array, dtype_name):
    env = {"C": constant, "np": np, "NegativeLength": NegativeLength}
    try:
        result = eval(source, env)
        return encode(to_array(result), dtype_name(result))
    except Exception as e:  # the error is the result
        return {"error": type(e).__name__, "message": str(e)}


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    def constant(value, dtype=None, shape=None):
        return tf.constant(value, None if dtype is None else tf.as_dtype(dtype), shape)

    def to_array(tensor):  # a string scalar's numpy() is bytes: kept whole, NULs included
        kind = object if tensor.dtype == tf.string else None
        return np.array(tensor.numpy(), dtype=kind)

    golden = {
        name: run_case(source, constant, to_array, lambda t: t.dtype.name)
        for name, source in CASES.items()
    }
    golden["_tensorflow"] = tf.__version__
    import golden_json  # beside this script

    golden_json.write(OUT, golden)


if __name__ == "__main__":
    main()
