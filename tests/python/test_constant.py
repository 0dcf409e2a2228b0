"""swigflow.constant against TensorFlow 2.21's tf.constant: the cases of
tests/testdata/make_tf_constant.py, each giving TF's dtype, shape and values, or TF's error
class and message."""

import json
import os

import generators
import pytest

import swigflow as sf
from swigflow.specs import dtype_name

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
make_tf_constant = generators.load("make_tf_constant")

with open(os.path.join(TESTDATA, "tf_constant", "golden.json")) as f:
    GOLDEN = json.load(f)


def test_every_case_has_golden_data():
    assert set(make_tf_constant.CASES) == set(GOLDEN) - {"_tensorflow"}


@pytest.mark.parametrize("name", sorted(make_tf_constant.CASES))
def test_golden(name):
    got = make_tf_constant.run_case(
        make_tf_constant.CASES[name], sf.constant, lambda a: a, lambda a: dtype_name(a.dtype)
    )
    assert got == GOLDEN[name]


def test_convert_to_tensor_converts_python_values_the_same_way():
    assert sf.convert_to_tensor("a\x00").item() == b"a\x00"
    with pytest.raises(TypeError, match=r"Cannot convert 1\.5 to EagerTensor of dtype int32"):
        sf.convert_to_tensor(1.5, "int32")


def test_tensorflow_dtype_names_are_numpy_dtypes():
    """tf.float32-style names: each is the numpy dtype TF's dtype converts to."""
    import numpy as np

    expected = {
        "float16": np.float16,
        "half": np.float16,
        "float32": np.float32,
        "float64": np.float64,
        "double": np.float64,
        "complex64": np.complex64,
        "complex128": np.complex128,
        "int8": np.int8,
        "int16": np.int16,
        "int32": np.int32,
        "int64": np.int64,
        "uint8": np.uint8,
        "uint16": np.uint16,
        "uint32": np.uint32,
        "uint64": np.uint64,
        "bool": np.bool_,
        "string": object,
    }
    assert set(expected) | {"as_dtype"} == set(sf.dtypes.__all__)
    for name, numpy_type in expected.items():
        assert getattr(sf, name) is getattr(sf.dtypes, name)
        assert getattr(sf, name) == np.dtype(numpy_type)
        assert sf.dtypes.as_dtype("tf." + name) == getattr(sf, name)
    assert sf.constant("a\x00", sf.string).item() == b"a\x00"
    assert sf.constant([1, 2], dtype=sf.int64).dtype == np.int64
    assert sf.cast(sf.constant(1.5), sf.float16).dtype == np.float16
