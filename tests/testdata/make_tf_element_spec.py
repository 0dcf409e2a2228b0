# ruff: noqa: E501 - each case is one line of source, as TensorFlow and swigflow both read it
"""Records TensorFlow's element specs, construction errors and a few element values for the
pipelines in CASES (tests/python/test_element_spec.py builds each with swigflow).

Run with TensorFlow 2.21 installed (a throwaway venv):
    python tests/testdata/make_tf_element_spec.py tests/testdata/tf_element_spec/cases.json

Each case is the source of an expression over `tf` and `np`, evaluated with `tf` bound to
tensorflow here and to swigflow in the test; dtypes are spelled as strings so that both read
them. Specs are written in a neutral form: {"tensor": [shape or null, dtype]}, {"ragged":
[shape, dtype, ragged_rank, row_splits_dtype]}, {"sparse": [shape, dtype]}, {"none": []},
{"dataset": element}, {"dict": {...}} and {"tuple": [...]}.
"""

import collections
import json
import sys

import numpy as np
import tensorflow as tf

Point = collections.namedtuple("Point", "x y")

GEN = "tf.data.Dataset.from_generator"
RANGES = f"{GEN}(lambda: (np.arange(n) for n in [0, 1, 2, 3, 3]), output_signature=tf.TensorSpec([None], 'int64'))"
IMAGES = (
    f"{GEN}(lambda: (np.zeros((h, h + 1, 3), np.float32) + h for h in [1, 2, 3]), "
    "output_signature=tf.TensorSpec([None, None, 3], 'float32'))"
)

# name -> source of a dataset whose element_spec (or construction error) is recorded
SPECS = {
    "slices_dict": "tf.data.Dataset.from_tensor_slices({'a': np.zeros((4, 3), np.float32), 'b': [b'x'] * 4})",
    "slices_list": "tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])",
    "slices_tuple": "tf.data.Dataset.from_tensor_slices((np.arange(3), [1.5, 2.5, 3.5], ['a', 'b', 'c']))",
    "tensors_none": "tf.data.Dataset.from_tensors((42, None))",
    "tensors_nested": "tf.data.Dataset.from_tensors({'a': (1, np.zeros((2, 2), np.uint8)), 'b': 'text'})",
    "range": "tf.data.Dataset.range(3)",
    "range_int32": "tf.data.Dataset.range(3, output_type='int32')",
    "counter": "tf.data.Dataset.counter(0)",
    "random": "tf.data.Dataset.random(seed=1)",
    "batch": "tf.data.Dataset.range(10).batch(3)",
    "batch_drop": "tf.data.Dataset.range(10).batch(3, drop_remainder=True)",
    "batch_batch": "tf.data.Dataset.from_tensor_slices(np.zeros((8, 2))).batch(2, drop_remainder=True).batch(3)",
    "unbatch": "tf.data.Dataset.from_tensor_slices(np.zeros((8, 2, 5))).unbatch()",
    "unbatch_batch": "tf.data.Dataset.range(9).batch(3).unbatch()",
    "unbatch_scalar": "tf.data.Dataset.range(10).unbatch()",
    "unbatch_mixed": "tf.data.Dataset.from_tensors((np.zeros((3,)), np.zeros((4,)))).unbatch()",
    "unbatch_dict_mixed": "tf.data.Dataset.from_tensors({'a': np.zeros((3, 2)), 'b': np.zeros((5,))}).unbatch()",
    "unbatch_generator": f"{RANGES}.unbatch()",
    "padded": "tf.data.Dataset.from_tensors(np.zeros((2,))).padded_batch(2, padded_shapes=[4])",
    "padded_default": "tf.data.Dataset.from_tensors(np.zeros((2, 3))).padded_batch(2)",
    "padded_unknown": f"{RANGES}.padded_batch(2)",
    "padded_minus_one": f"{RANGES}.padded_batch(2, padded_shapes=[-1], drop_remainder=True)",
    "padded_too_small": "tf.data.Dataset.from_tensors(np.zeros((2,))).padded_batch(2, padded_shapes=[1])",
    "padded_rank": "tf.data.Dataset.from_tensors(np.zeros((2,))).padded_batch(2, padded_shapes=[1, 2])",
    "padded_dict": "tf.data.Dataset.from_tensors({'a': np.zeros((2,)), 'b': np.zeros((3, 4), np.int32)}).padded_batch(2, padded_shapes={'a': [5], 'b': [None, 6]})",
    "padded_dict_small": "tf.data.Dataset.from_tensors({'a': np.zeros((2,)), 'b': np.zeros((3, 4), np.int32)}).padded_batch(2, padded_shapes={'a': [5], 'b': [2, 6]})",
    "concat_shape": "tf.data.Dataset.from_tensors(np.zeros(3)).concatenate(tf.data.Dataset.from_tensors(np.zeros(4)))",
    "concat_rank": "tf.data.Dataset.from_tensors(np.zeros(3)).concatenate(tf.data.Dataset.from_tensors(np.zeros((4, 2))))",
    "concat_same": "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(4))",
    "concat_struct": "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors((1, 2)))",
    "concat_dtype": "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors(np.float32(1)))",
    "concat_keys": "tf.data.Dataset.from_tensors({'a': 1}).concatenate(tf.data.Dataset.from_tensors({'b': 1}))",
    "concat_dict": "tf.data.Dataset.from_tensors({'a': np.zeros(2), 'b': b'x'}).concatenate(tf.data.Dataset.from_tensors({'b': b'yy', 'a': np.zeros(5)}))",
    "enumerate": "tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)).enumerate()",
    "zip_nested": "tf.data.Dataset.zip((tf.data.Dataset.range(3), (tf.data.Dataset.range(2), tf.data.Dataset.from_tensors(b'x'))))",
    "zip_dict": "tf.data.Dataset.zip({'a': tf.data.Dataset.range(3), 'b': tf.data.Dataset.from_tensors(np.zeros(2))})",
    "zip_one": "tf.data.Dataset.zip(tf.data.Dataset.range(3))",
    "filter_take_skip": "tf.data.Dataset.range(10).filter(lambda x: x > 2).take(5).skip(1).shuffle(4, seed=1).repeat(2).prefetch(1).cache()",
    "shard": "tf.data.Dataset.from_tensor_slices(np.zeros((10, 2), np.int16)).shard(2, 1)",
    "take_while_unique": "tf.data.Dataset.range(10).take_while(lambda x: x < 5).unique()",
    "rebatch": "tf.data.Dataset.range(10).batch(4, drop_remainder=True).rebatch(2, drop_remainder=True)",
    "rebatch_partial": "tf.data.Dataset.range(10).batch(4).rebatch(2)",
    "sample": "tf.data.Dataset.sample_from_datasets([tf.data.Dataset.from_tensors(np.zeros(3)), tf.data.Dataset.from_tensors(np.zeros(4))], seed=1)",
    "sample_bad": "tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.from_tensors(np.zeros(4))])",
    "choose": "tf.data.Dataset.choose_from_datasets([tf.data.Dataset.from_tensors((np.zeros(3), b'a')), tf.data.Dataset.from_tensors((np.zeros(4), b'b'))], tf.data.Dataset.range(2))",
    "generator_signature": f"{GEN}(lambda: iter([]), output_signature=(tf.TensorSpec([None], 'int32'), {{'s': tf.TensorSpec([], 'string')}}))",
    "generator_legacy": f"{GEN}(lambda: iter([]), output_types='int32', output_shapes=[])",
    "generator_legacy_tuple": f"{GEN}(lambda: iter([]), output_types=('int32', 'string'))",
    "generator_legacy_dict": f"{GEN}(lambda: iter([]), output_types={{'a': 'int32'}}, output_shapes={{'a': [None, 2]}})",
    "generator_ragged": f"{GEN}(lambda: iter([]), output_signature=tf.RaggedTensorSpec([None, None], 'int32', 1))",
    "generator_both": f"{GEN}(lambda: iter([]), output_types='int32', output_signature=tf.TensorSpec([], 'int32'))",
    "generator_bad_signature": f"{GEN}(lambda: iter([]), output_signature=5)",
    "ragged": f"{RANGES}.ragged_batch(2)",
    "ragged_drop": f"{RANGES}.ragged_batch(2, drop_remainder=True)",
    "ragged_int32": f"{RANGES}.ragged_batch(2, row_splits_dtype='int32')",
    "ragged_images": f"{IMAGES}.ragged_batch(2)",
    "ragged_fixed": "tf.data.Dataset.from_tensor_slices(np.zeros((4, 3))).ragged_batch(2)",
    "ragged_scalar": "tf.data.Dataset.range(4).ragged_batch(2)",
    "ragged_dict": f"tf.data.Dataset.zip({{'ids': {RANGES}, 'label': tf.data.Dataset.range(5)}}).ragged_batch(2)",
    "ragged_unbatch": f"{RANGES}.ragged_batch(2).unbatch()",
    "window": "tf.data.Dataset.range(3).window(2)",
    "window_dict": "tf.data.Dataset.from_tensors({'a': np.zeros(2), 'b': (b'x', 1)}).window(2)",
    "bucket": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2])",
    "bucket_drop": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2], drop_remainder=True)",
    "bucket_sizes_differ": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 3, 2], drop_remainder=True)",
    "bucket_no_padding": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2], no_padding=True)",
    "bucket_shapes": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2], padded_shapes=[6])",
    "bucket_to_boundary": "tf.data.Dataset.from_tensor_slices({'a': np.zeros((6, 4, 2), np.int32)}).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2], pad_to_bucket_boundary=True)",
    "bucket_too_small": "tf.data.Dataset.from_tensor_slices(np.zeros((6, 4), np.int32)).bucket_by_sequence_length(lambda x: 3, [2, 5], [2, 2, 2], padded_shapes=[3])",
}

# name -> source of a dataset whose elements are recorded (as nested lists)
VALUES = {
    "ragged": f"{RANGES}.ragged_batch(2)",
    "ragged_three": f"{RANGES}.ragged_batch(3)",
    "ragged_images": f"{IMAGES}.ragged_batch(2)",
    "ragged_dict": f"tf.data.Dataset.zip({{'ids': {RANGES}, 'label': tf.data.Dataset.range(5)}}).ragged_batch(2)",
    "ragged_unbatch": f"{RANGES}.ragged_batch(2).unbatch()",
    "padded_unknown": f"{RANGES}.padded_batch(2)",
    "generator_converts": f"{GEN}(lambda: iter([1, 2.7, np.int64(-3)]), output_signature=tf.TensorSpec([], 'float32'))",
    "generator_wraps": f"{GEN}(lambda: iter([300, -1]), output_signature=tf.TensorSpec([], 'uint8'))",
    "generator_truncates": f"{GEN}(lambda: iter([1.9, -1.9]), output_signature=tf.TensorSpec([], 'int32'))",
    "generator_strings": f"{GEN}(lambda: iter(['a', b'b', ['c', b'd']]), output_signature=tf.TensorSpec(None, 'string'))",
    "generator_lists": f"{GEN}(lambda: iter([[1, 2], [3]]), output_signature=tf.TensorSpec([None], 'int64'))",
    "generator_dict": f"{GEN}(lambda: iter([{{'a': 1, 'b': [1.0]}}]), output_signature={{'a': tf.TensorSpec([], 'int32'), 'b': tf.TensorSpec([None], 'float32')}})",
    "generator_bad_shape": f"{GEN}(lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec([2], 'int32'))",
    "generator_bad_type": f"{GEN}(lambda: iter(['a']), output_signature=tf.TensorSpec([], 'int32'))",
    "generator_bad_structure": f"{GEN}(lambda: iter([1]), output_signature=(tf.TensorSpec([], 'int32'), tf.TensorSpec([], 'int32')))",
    "generator_bad_length": f"{GEN}(lambda: iter([(1, 2, 3)]), output_signature=(tf.TensorSpec([], 'int32'), tf.TensorSpec([], 'int32')))",
    "generator_bad_keys": f"{GEN}(lambda: iter([{{'a': 1}}]), output_signature={{'a': tf.TensorSpec([], 'int32'), 'b': tf.TensorSpec([None], 'float32')}})",
}


def dtype_name(dtype):
    return tf.as_dtype(dtype).name


def shape_of(shape):
    return None if shape.rank is None else shape.as_list()


def neutral(spec):
    if isinstance(spec, dict):
        return {"dict": {k: neutral(v) for k, v in spec.items()}}
    if isinstance(spec, tuple):
        return {"tuple": [neutral(v) for v in spec]}
    if isinstance(spec, tf.RaggedTensorSpec):
        rank = spec.ragged_rank
        if rank == 0:  # a dense value (swigflow's are numpy arrays)
            return {"tensor": [shape_of(spec.shape), dtype_name(spec.dtype)]}
        splits = dtype_name(spec.row_splits_dtype)
        return {"ragged": [shape_of(spec.shape), dtype_name(spec.dtype), rank, splits]}
    if isinstance(spec, tf.SparseTensorSpec):
        return {"sparse": [shape_of(spec.shape), dtype_name(spec.dtype)]}
    if isinstance(spec, tf.TensorSpec):
        return {"tensor": [shape_of(spec.shape), dtype_name(spec.dtype)]}
    if isinstance(spec, tf.data.DatasetSpec):
        return {"dataset": neutral(spec.element_spec)}
    if type(spec).__name__ == "NoneTensorSpec":
        return {"none": []}
    raise TypeError(f"no neutral form for {spec!r}")


def listed(value):
    if isinstance(value, dict):
        return {k: listed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [listed(v) for v in value]
    if isinstance(value, tf.RaggedTensor):
        return {"ragged": listed(value.to_list()), "splits": str(value.row_splits.dtype.name)}
    if isinstance(value, (tf.Tensor, np.ndarray, np.generic)):
        return listed(np.asarray(value).tolist())
    if isinstance(value, list):
        return [listed(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    return value


def error_of(e):
    message = str(e)
    if isinstance(e, tf.errors.OpError):
        message = e.message.split(" [Op:")[0]
        message = message.split("\n\t [[")[0]
        if "TypeError: " in message:  # a generator's error: the Python error's last line
            message = "TypeError: " + message.rsplit("TypeError: ", 1)[1].strip()
    name = type(e).__name__
    return {"error": name, "message": message}


def main(out):
    names = {"tf": tf, "np": np, "Point": Point}
    result = {"specs": {}, "values": {}}
    for name, source in SPECS.items():
        try:
            result["specs"][name] = {"spec": neutral(eval(source, names).element_spec)}
        except Exception as e:
            result["specs"][name] = error_of(e)
    for name, source in VALUES.items():
        found = []
        try:
            for element in eval(source, names):
                found.append(listed(element))
            result["values"][name] = {"elements": found}
        except Exception as e:
            result["values"][name] = dict(error_of(e), elements=found)
    result["cases"] = {"specs": SPECS, "values": VALUES}
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
