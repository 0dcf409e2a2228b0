"""swigflow.constant against TensorFlow 2.21's tf.constant: the cases of
tests/testdata/make_tf_constant.py, each giving TF's dtype, shape and values, or TF's error
class and message."""

import importlib.util
import json
import os

import pytest

import swigflow as sf
from swigflow.specs import dtype_name

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
_spec = importlib.util.spec_from_file_location(
    "make_tf_constant", os.path.join(TESTDATA, "make_tf_constant.py")
)
make_tf_constant = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_tf_constant)

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
