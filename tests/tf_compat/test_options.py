"""tensorflow/python/data/kernel_tests/options_test.py: OptionsTest, on TensorFlow 2.21's option
names (autotune moved from experimental_optimization to options.autotune; the cases use an
optimization flag that is still there).

Not translated: the proto round trips (swigflow's Options have no protobuf form), the
persistence tests through tf.function and graph round trips, and
testOptionsGraphRoundTripOptimization (graph rewrites: swigflow does not rewrite pipelines).
"""

import pytest

from swigflow.data import Dataset, OptimizationOptions, Options, ThreadingOptions


def test_options_default():
    """OptionsTest.testOptionsDefault."""
    assert Dataset.range(0).options() == Options()


def test_options_once():
    """OptionsTest.testOptionsOnce."""
    options = Options()
    assert Dataset.range(0).with_options(options).cache().options() == options


def test_options_twice_same():
    """OptionsTest.testOptionsTwiceSame."""
    options = Options()
    options.experimental_optimization.map_parallelization = True
    ds = Dataset.range(0).with_options(options).with_options(options)
    assert ds.options() == options


def test_options_twice_different_options():
    """OptionsTest.testOptionsTwiceDifferentOptions."""
    options1 = Options()
    options1.experimental_optimization.map_parallelization = True
    options2 = Options()
    options2.experimental_deterministic = False
    options = Dataset.range(0).with_options(options1).with_options(options2).options()
    assert options.experimental_optimization.map_parallelization is True
    assert options.experimental_deterministic is False


def test_options_twice_same_option():
    """OptionsTest.testOptionsTwiceSameOption: the later value wins."""
    options1 = Options()
    options1.experimental_optimization.map_parallelization = False
    options2 = Options()
    options2.experimental_optimization.map_parallelization = True
    ds = Dataset.range(0).with_options(options1).with_options(options2)
    assert ds.options().experimental_optimization.map_parallelization is True


def test_options_merge_options_from_multiple_inputs():
    """OptionsTest.testOptionsMergeOptionsFromMultipleInputs."""
    options1 = Options()
    options1.experimental_optimization.map_parallelization = True
    options2 = Options()
    options2.experimental_deterministic = True
    ds = Dataset.zip(
        (Dataset.range(0).with_options(options1), Dataset.range(0).with_options(options2))
    )
    options = ds.options()
    assert options.experimental_optimization.map_parallelization is True
    assert options.experimental_deterministic is True


def test_options_have_defaults():
    """OptionsTest.testOptionsHaveDefaults."""
    options1, options2 = Options(), Options()
    assert options1.experimental_optimization is not options2.experimental_optimization
    assert options1.experimental_threading is not options2.experimental_threading
    assert options1.experimental_optimization == OptimizationOptions()
    assert options1.experimental_threading == ThreadingOptions()


def test_mutating_options_raise_value_error():
    """OptionsTest.testMutatingOptionsRaiseValueError."""
    options1 = Options()
    options1.experimental_slack = True
    options2 = Options()
    options2.experimental_optimization.map_parallelization = True
    ds = Dataset.range(0).with_options(options1).map(lambda x: 2 * x).with_options(options2)
    dataset_options = ds.options()
    with pytest.raises(ValueError):
        dataset_options.experimental_deterministic = True


def test_nested_dataset():
    """OptionsTest.testNestedDataset: 999 concatenations deep."""
    ds = Dataset.from_tensors(0)
    result = ds
    for _ in range(999):
        result = result.concatenate(ds)
    assert [int(e) for e in result] == [0] * 1000
