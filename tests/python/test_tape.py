"""GradientTape against TensorFlow 2.21: the cases of tests/testdata/make_tf_tape.py run with
swigflow's names (arrays for constants), each giving TF's value and dtype, or TF's error class
and message. Also what swigflow's arrays-as-variables model gives where TF has variables."""

import json
import os
import types

import generators
import numpy as np
import pytest
from tf_messages import bare

import swigflow as sf

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
make_tf_tape = generators.load("make_tf_tape")

with open(os.path.join(TESTDATA, "tf_tape", "golden.json")) as f:
    GOLDEN = json.load(f)

NAMES = types.SimpleNamespace(
    record_operation=sf.ops.record_operation,
    GradientTape=sf.GradientTape,
    constant=np.asarray,
    multiply=sf.math.multiply,
    reduce_sum=sf.math.reduce_sum,
    cast=sf.math.cast,
    custom_gradient=sf.ops.custom_gradient,
    identity=sf.identity,
    stop_gradient=sf.stop_gradient,
)


def test_every_case_has_golden_data():
    assert {c.__name__ for c in make_tf_tape.CASES} == set(GOLDEN) - {"_tensorflow"}


@pytest.mark.parametrize("case", make_tf_tape.CASES, ids=lambda c: c.__name__)
def test_golden(case):
    expected = GOLDEN[case.__name__]
    actual = make_tf_tape.run_case(case, NAMES)
    if "error" in expected:
        assert actual.get("error") == expected["error"], actual
        assert bare(actual["message"]) == bare(expected["message"])
    else:
        assert actual == expected


def test_watched_variables_include_the_arrays_ops_received():
    x, w = np.ones(2, np.float32), np.full(2, 3.0, np.float32)
    with sf.GradientTape() as tape:
        tape.watch(x)
        y = sf.math.multiply(sf.math.multiply(x, w), x)
    watched = tape.watched_variables()
    assert len(watched) == 2 and watched[0] is x and watched[1] is w  # not y's intermediate
    with sf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        sf.math.multiply(x, w)
    assert len(tape.watched_variables()) == 1
    del y


def test_batch_jacobian_of_a_scalar_target_is_refused():
    x = np.ones((2, 2), np.float32)
    with sf.GradientTape() as tape:
        tape.watch(x)
        y = sf.math.reduce_sum(x)
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 2"):
        tape.batch_jacobian(y, x)
