"""Writes tests/testdata/tf_data_apis/golden.json: what TensorFlow 2.21's tf.data gives for the
Dataset APIs added in issue 51 (take_while, unique, ignore_errors, reduce, get_single_element,
counter, random, choose_from_datasets, sample_from_datasets) on cases whose result is exact.

Each case is Python source over `D` (a Dataset class) and `np`; TensorFlow runs it with
D = tf.data.Dataset, and tests/tf_compat/test_data_apis.py runs the same source with swigflow's.
A case's result is its elements (a dataset), its value (anything else) or the error it raises.
Run once in a throwaway venv with tensorflow-cpu (the tests need neither TF nor this script):

    python tests/testdata/make_tf_data_apis.py
"""

import json
import os
import re

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_data_apis", "golden.json")

CASES = {
    # take_while (take_while_test.py)
    "take_while_range_2": "D.range(10).take_while(lambda x: x < 2)",
    "take_while_range_99": "D.range(100).take_while(lambda x: x < 99)",
    "take_while_range_101": "D.range(100).take_while(lambda x: x < 101)",
    "take_while_empty": "D.range(0).take_while(lambda x: x < 1)",
    "take_while_batches": "D.range(15).batch(2).take_while(lambda b: b[-1] % 2 == 1)"
    ".flat_map(D.from_tensor_slices)",
    "take_while_strings": "D.from_tensor_slices([b'this', b'is', b'the', b'test', b'for'])"
    ".take_while(lambda x: x != b'test')",
    "take_while_short_circuit": "D.from_tensor_slices([True] * 3 + [False] + [True] * 4)"
    ".take_while(lambda x: x)",
    "take_while_repeat": "D.range(10).take_while(lambda x: x < 2).repeat(5)",
    "take_while_after_filter": "D.range(10).filter(lambda x: x % 2 == 0)"
    ".take_while(lambda x: x < 5)",
    "take_while_not_bool": "D.range(5).take_while(lambda x: x)",
    "take_while_cardinality": "D.range(3).take_while(lambda x: x < 9).cardinality()",
    # unique (unique_test.py)
    "unique_ints": "D.from_tensor_slices(np.array([1, 2, 4, 3, 2, 1, 2, 3, 4], np.int64)).unique()",
    "unique_int32": "D.from_tensor_slices(np.array([1, 1, 1, 1, 0], np.int32)).unique()",
    "unique_vectors": "D.from_tensor_slices(np.array([[1, 1], [1, 1], [2, 2], [3, 3], [1, 1]]))"
    ".unique()",
    "unique_strings": "D.from_tensor_slices([b'foo', b'bar', b'baz', b'baz', b'bar', b'foo'])"
    ".unique()",
    "unique_empty": "D.range(0).unique()",
    "unique_from_tensors": "D.from_tensors(42).unique()",
    "unique_float": "D.from_tensor_slices([1.0, 1.0]).unique()",
    "unique_two_components": "D.from_tensor_slices(([1, 1, 2], [3, 3, 4])).unique()",
    "unique_cardinality": "D.range(3).unique().cardinality()",
    # ignore_errors (ignore_errors_test.py; 1/x of a zero raises in either library's way)
    "ignore_errors_zip": "D.zip((D.from_tensor_slices([1., 2., 0., 4.]).map(RECIPROCAL), "
    "D.from_tensor_slices([1., 2., 0., 4.]))).ignore_errors()",
    "ignore_errors_map": "D.from_tensor_slices([1., 2., 3., 0., 5.]).map(RECIPROCAL)"
    ".ignore_errors()",
    "ignore_errors_cardinality": "D.range(10).ignore_errors().cardinality()",
    # reduce and get_single_element (reduce_test.py, get_single_element_test.py)
    "reduce_sum": "D.range(5).reduce(np.int64(0), lambda s, x: s + x)",
    "reduce_empty": "D.range(0).reduce(np.int64(7), lambda s, x: s + x)",
    "reduce_pair": "D.range(4).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, "
    "s[1] * (x + 1)))",
    "reduce_components_differ": "D.range(3).reduce(np.int64(0), lambda s, x: (s + x, s))",
    "single_element": "D.from_tensors((1, {'a': 2})).get_single_element()",
    "single_element_empty": "D.range(0).get_single_element()",
    "single_element_two": "D.range(2).get_single_element()",
    # counter and random (counter_test.py, random_test.py)
    "counter_down": "D.counter(start=3, step=-2, dtype=np.int32).take(4)",
    "counter_default": "D.counter().take(3)",
    "counter_cardinality": "D.counter().cardinality()",
    "random_cardinality": "D.random(seed=1).cardinality()",
    # choose_from_datasets (choose_from_datasets_test.py)
    "choose": "D.choose_from_datasets([D.range(3), D.range(10, 12)], "
    "D.from_tensor_slices(np.array([0, 1, 1, 1, 0, 0, 0], np.int64)))",
    "choose_skip_empty": "D.choose_from_datasets([D.range(3), D.range(10, 12)], "
    "D.from_tensor_slices(np.array([0, 1, 1, 1, 0, 0, 0], np.int64)), "
    "stop_on_empty_dataset=False)",
    "choose_strings": "D.choose_from_datasets([D.from_tensors(b'a').repeat(), "
    "D.from_tensors(b'b').repeat(), D.from_tensors(b'c').repeat()], "
    "D.range(3).repeat(2))",
    "choose_out_of_range": "D.choose_from_datasets([D.range(3)], "
    "D.from_tensor_slices(np.array([0, 1], np.int64)))",
    "choose_int32": "D.choose_from_datasets([D.range(3)], "
    "D.from_tensor_slices(np.array([0], np.int32)))",
    "choose_not_dataset": "D.choose_from_datasets([D.range(3)], [0, 1])",
    "choose_no_datasets": "D.choose_from_datasets([], D.range(1))",
    "choose_cardinality": "D.choose_from_datasets([D.range(3)], D.range(1)).cardinality()",
    # sample_from_datasets: the cases whose result does not depend on the random values
    "sample_zero_weight": "D.sample_from_datasets([D.range(3), D.range(10, 12)], "
    "weights=[1.0, 0.0], seed=1)",
    "sample_zero_weight_stop": "D.sample_from_datasets([D.from_tensors(-1).repeat(2), "
    "D.from_tensors(1).repeat(2)], weights=[0.0, 1.0], stop_on_empty_dataset=True)",
    "sample_all_zero": "D.sample_from_datasets([D.from_tensors(-1).repeat(), "
    "D.from_tensors(1).repeat()], weights=np.asarray([0.0, 0.0]))",
    "sample_empty_stop": "D.sample_from_datasets([D.range(0), D.range(1).repeat()], "
    "weights=D.from_tensors([1.0, 0.0]).repeat(), stop_on_empty_dataset=True)",
    "sample_weights_dataset": "D.sample_from_datasets([D.range(3), D.range(10, 12)], "
    "weights=D.from_tensors([0.0, 1.0]).repeat(4), seed=3)",
    "sample_all": "sorted(int(x) for x in D.sample_from_datasets([D.range(3), "
    "D.range(10, 12)], seed=1))",
    "sample_length": "D.sample_from_datasets([D.range(3), D.range(10, 12)], weights=[0.5, 0.5])",
    "sample_infinite": "D.sample_from_datasets([D.from_tensors([1.0]).repeat(), "
    "D.from_tensors([2.0]).repeat()]).cardinality()",
    "sample_weights_length": "D.sample_from_datasets([D.range(10), D.range(20)], "
    "weights=[0.25, 0.25, 0.25, 0.25])",
    "sample_int_weights": "D.sample_from_datasets([D.range(10), D.range(20)], weights=[1, 1])",
    "sample_no_datasets": "D.sample_from_datasets(datasets=[], weights=[])",
    # rebatch (rebatch_test.py): values, the static batch dimension, batches of 0 rows, errors
    "rebatch_static_drop": "D.range(8).batch(4).rebatch(2, drop_remainder=True)",
    "rebatch_static_drop_shape": "D.range(8).batch(4).rebatch(2, drop_remainder=True)"
    ".element_spec.shape.as_list()",
    "rebatch_static_divisible_shape": "D.range(8).batch(4, drop_remainder=True).rebatch(2)"
    ".element_spec.shape.as_list()",
    "rebatch_not_divisible": "D.range(9).batch(3, drop_remainder=True).rebatch(2)",
    "rebatch_not_divisible_shape": "D.range(9).batch(3, drop_remainder=True).rebatch(2)"
    ".element_spec.shape.as_list()",
    "rebatch_unknown_input_shape": "D.range(8).batch(4).rebatch(2).element_spec.shape.as_list()",
    "rebatch_equal_list_shape": "D.range(8).batch(4, drop_remainder=True).rebatch([2, 2])"
    ".element_spec.shape.as_list()",
    "rebatch_mixed_list": "D.range(8).batch(4, drop_remainder=True).rebatch([2, 1, 1])",
    "rebatch_mixed_list_shape": "D.range(8).batch(4, drop_remainder=True).rebatch([2, 1, 1])"
    ".element_spec.shape.as_list()",
    "rebatch_zero_sizes": "D.range(8).batch(4).rebatch([2, 0, 1])",
    "rebatch_zero_first": "D.range(4).batch(2).rebatch([0, 3])",
    "rebatch_zero_rows_shape": "[b.shape for b in D.from_tensor_slices(np.ones((4, 3), np.float32))"
    ".batch(2).rebatch([1, 0]).as_numpy_iterator()]",
    "rebatch_drop_partial": "D.range(7).batch(2).rebatch(3, drop_remainder=True)",
    "rebatch_tuple_one_known": "[s.shape.as_list() for s in D.zip((D.range(8).batch(4, "
    "drop_remainder=True), D.range(8).batch(4))).rebatch(2).element_spec]",
    "rebatch_dict": "D.from_tensor_slices({'a': np.arange(6), 'b': np.arange(6) * 10})"
    ".batch(3, drop_remainder=True).rebatch(2)",
    "rebatch_rank_2_sizes": "D.range(4).batch(2).rebatch([[1, 2]])",
    "rebatch_scalar_elements": "D.range(4).rebatch(2)",
    "rebatch_batch_dimensions_differ": "D.zip((D.range(8).batch(4, drop_remainder=True), "
    "D.range(8).batch(2, drop_remainder=True))).rebatch(2)",
    # scan, group_by_window and from_generator's checks (scan_test.py, group_by_window_test.py,
    # from_generator_test.py)
    "scan_state_dtype_changes": "D.range(3).scan(np.int32(0), lambda s, x: (np.int64(1), x))",
    "scan_not_a_pair": "D.range(3).scan(np.int32(0), lambda s, x: s)",
    "group_by_window_size_zero": "D.range(3).group_by_window(lambda x: x % 2, "
    "lambda k, w: w, window_size=0)",
    "from_generator_list_of_types": "D.from_generator(lambda: iter([(1, 2)]), "
    "output_types=[np.int32, np.int32])",
    "from_generator_list_of_shapes": "D.from_generator(lambda: iter([(1, 2)]), "
    "output_types=(np.int32, np.int32), output_shapes=[[], []])",
}

# Cases whose elements are compared as a multiset of their count only.
LENGTH_ONLY = {"sample_length"}


def plain(value):
    """A result as JSON: numbers and lists; bytes as {"bytes": latin-1 text}; dicts kept."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if hasattr(value, "numpy"):
        value = value.numpy()
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return value


def core_message(text):
    """TensorFlow's message without its op wrapper ({{function_node ...}} and [Op:...])."""
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", str(text))
    return re.sub(r"\s*\[Op:[^\]]*\].*$", "", text, flags=re.S).strip()


def run_case(source, dataset_class, np, reciprocal, is_dataset):
    """{"elements": [...]}, {"value": ...} or {"error": type name, "message": ...}."""
    try:
        result = eval(source, {"D": dataset_class, "np": np, "RECIPROCAL": reciprocal})
        if is_dataset(result):
            result = list(result.as_numpy_iterator())
            return {"elements": plain(result)}
        return {"value": plain(result)}
    except Exception as e:  # the error is the result
        return {"error": type(e).__name__, "message": core_message(e)}


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf

    def reciprocal(x):
        return tf.debugging.check_numerics(1.0 / x, "division by zero")

    out = {"tensorflow": tf.__version__, "length_only": sorted(LENGTH_ONLY), "cases": {}}
    for name, source in CASES.items():
        got = run_case(source, tf.data.Dataset, np, reciprocal,
                       lambda r: isinstance(r, tf.data.Dataset))  # fmt: skip
        out["cases"][name] = dict(source=source, **got)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
