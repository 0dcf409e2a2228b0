"""tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py: every test method, swigflow.io for
tf.io (parse_example, parse_single_example, parse_sequence_example,
parse_single_sequence_example, decode_raw, decode_json_example, parse_tensor).

Adaptations:
- Results are numpy arrays, swigflow.SparseTensor and swigflow.RaggedTensor; ragged
  expectations (ragged_factory_ops.constant) are nested lists, with the ragged rank checked
  where upstream sets it.
- Upstream's eager `_test` accepts any exception for a bad parse_example; here the class and
  message are checked, as in its graph mode.
- The test_raw*RejectsZero* methods call gen_parsing_ops' raw ops, which swigflow does not have;
  the same case through the public API (a FixedLenSequenceFeature dimension of 0) is checked.
- ParseTensorVariantRegressionTest builds a DT_VARIANT TensorProto; swigflow has no variant
  tensors and refuses it with InvalidArgumentError, as the test asks.
"""

import copy
import itertools

import numpy as np
import pytest
from google.protobuf import json_format

from swigflow import errors, train
from swigflow import io as parsing_ops
from swigflow.io import tensor_proto
from swigflow.tensors import RaggedTensor, SparseTensor

example = train.Example
feature = train.Feature
features = lambda d: train.Features(feature=d)  # noqa: E731
bytes_feature = lambda v: feature(bytes_list=train.BytesList(value=v))  # noqa: E731
int64_feature = lambda v: feature(int64_list=train.Int64List(value=v))  # noqa: E731
float_feature = lambda v: feature(float_list=train.FloatList(value=v))  # noqa: E731
feature_list = lambda l: train.FeatureList(feature=l)  # noqa: E731, E741
feature_lists = lambda d: train.FeatureLists(feature_list=d)  # noqa: E731
sequence_example = train.SequenceExample

RowSplits = parsing_ops.RaggedFeature.RowSplits
RowLengths = parsing_ops.RaggedFeature.RowLengths
RowStarts = parsing_ops.RaggedFeature.RowStarts
RowLimits = parsing_ops.RaggedFeature.RowLimits
ValueRowIds = parsing_ops.RaggedFeature.ValueRowIds
UniformRowLength = parsing_ops.RaggedFeature.UniformRowLength


class Ragged:
    """An expected RaggedTensor: its rows as nested lists, and its ragged rank when upstream
    gives one."""

    def __init__(self, rows, ragged_rank=None):
        self.rows, self.ragged_rank = rows, ragged_rank


def flatten(list_of_lists):
    return itertools.chain.from_iterable(list_of_lists)


def _plain(value):
    value = np.asarray(value)
    return value.tolist()


def assert_all_equal(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert _plain(actual) == _plain(expected)


def _compare_output_to_expected(actual, expected):
    assert set(actual) == set(expected)
    for k, v in actual.items():
        expected_v = expected[k]
        if isinstance(v, SparseTensor):
            assert isinstance(expected_v, tuple) and len(expected_v) == 3, k
            assert_all_equal(v.indices, expected_v[0])
            assert_all_equal(v.values, expected_v[1])
            assert_all_equal(v.dense_shape, expected_v[2])
        elif isinstance(v, RaggedTensor):
            if isinstance(expected_v, Ragged):
                assert v.to_list() == expected_v.rows, k
                if expected_v.ragged_rank is not None:
                    assert len(v.nested_row_splits) == expected_v.ragged_rank, k
            else:
                assert v.to_list() == _plain(expected_v), k
        else:
            assert not isinstance(expected_v, Ragged), k
            assert_all_equal(v, expected_v)


def _raises(expected_err, fn):
    error_class, pattern = expected_err
    with pytest.raises(error_class, match=pattern):
        fn()


class TestParseExample:
    def _test(self, kwargs, expected_values=None, expected_err=None):
        if expected_err:
            _raises(expected_err, lambda: parsing_ops.parse_example(**kwargs))
            return
        out = parsing_ops.parse_example(**kwargs)
        _compare_output_to_expected(out, expected_values)
        batch_size = np.asarray(kwargs["serialized"], dtype=object).size
        for k, f in kwargs["features"].items():
            if isinstance(f, parsing_ops.FixedLenFeature) and f.shape is not None:
                assert tuple(out[k].shape) == (batch_size, *f.shape)
            elif isinstance(f, parsing_ops.VarLenFeature):
                assert out[k].indices.ndim == 2 and out[k].indices.shape[1] == 2
                assert out[k].values.ndim == 1
                assert out[k].dense_shape.shape == (2,)

    def test_raw_parse_example_rejects_zero_variable_dense_dimension(self):
        # Upstream: ParseExampleV2 with dense_shapes [[0]] for a variable-length dense feature.
        with pytest.raises((errors.InvalidArgumentError, ValueError), match="positive"):
            parsing_ops.parse_example(
                [example().SerializeToString()],
                {"k": parsing_ops.FixedLenSequenceFeature([0], "float32", allow_missing=True)},
            )

    def test_empty_serialized_with_all_defaults(self):
        sparse_name = "st_a"
        a_name = "a"
        b_name = "b"
        c_name = "c:has_a_tricky_name"
        a_default = [0, 42, 0]
        b_default = np.random.rand(3, 3).astype(bytes)
        c_default = np.random.rand(2).astype(np.float32)

        expected_st_a = (
            np.empty((0, 2), dtype=np.int64),
            np.empty((0,), dtype=np.int64),
            np.array([2, 0], dtype=np.int64),
        )
        expected_output = {
            sparse_name: expected_st_a,
            a_name: np.array(2 * [[a_default]]),
            b_name: np.array(2 * [b_default]),
            c_name: np.array(2 * [c_default]),
        }
        self._test(
            {
                "example_names": np.empty((0,), dtype=bytes),
                "serialized": ["", ""],
                "features": {
                    sparse_name: parsing_ops.VarLenFeature("int64"),
                    a_name: parsing_ops.FixedLenFeature((1, 3), "int64", default_value=a_default),
                    b_name: parsing_ops.FixedLenFeature((3, 3), "string", default_value=b_default),
                    c_name: parsing_ops.FixedLenFeature((2,), "float32", default_value=c_default),
                },
            },
            expected_output,
        )

    def test_empty_serialized_without_defaults_should_fail(self):
        input_features = {
            "st_a": parsing_ops.VarLenFeature("int64"),
            "a": parsing_ops.FixedLenFeature((1, 3), "int64", default_value=[0, 42, 0]),
            "b": parsing_ops.FixedLenFeature(
                (3, 3), "string", default_value=np.random.rand(3, 3).astype(bytes)
            ),
            "c": parsing_ops.FixedLenFeature((2,), dtype="float32"),
        }
        original = example(features=features({"c": feature()}))
        self._test(
            {
                "example_names": ["in1"],
                "serialized": [original.SerializeToString()],
                "features": input_features,
            },
            expected_err=(
                errors.OpError,
                "Name: in1, Feature: c \\(data type: float\\) is required",
            ),
        )
        self._test(
            {"example_names": ["in1", "in2"], "serialized": ["", ""], "features": input_features},
            expected_err=(
                errors.OpError,
                "Name: in1, Feature: c \\(data type: float\\) is required",
            ),
        )

    def test_dense_not_matching_shape_should_fail(self):
        original = [
            example(features=features({"a": float_feature([1, 1, 3])})),
            example(features=features({"a": float_feature([-1, -1])})),
        ]
        names = ["passing", "failing"]
        serialized = [m.SerializeToString() for m in original]
        self._test(
            {
                "example_names": names,
                "serialized": serialized,
                "features": {"a": parsing_ops.FixedLenFeature((1, 3), "float32")},
            },
            expected_err=(errors.OpError, "Name: failing, Key: a, Index: 1.  Number of float val"),
        )

    def test_dense_default_no_shape_should_fail(self):
        original = [example(features=features({"a": float_feature([1, 1, 3])}))]
        serialized = [m.SerializeToString() for m in original]
        self._test(
            {
                "example_names": ["failing"],
                "serialized": serialized,
                "features": {"a": parsing_ops.FixedLenFeature(None, "float32")},
            },
            expected_err=(ValueError, "Missing shape for feature a"),
        )

    def test_serialized_containing_sparse(self):
        original = [
            example(features=features({"st_c": float_feature([3, 4])})),
            example(features=features({"st_c": float_feature([])})),
            example(features=features({"st_d": feature()})),
            example(
                features=features(
                    {"st_c": float_feature([1, 2, -1]), "st_d": bytes_feature([b"hi"])}
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_st_c = (
            np.array([[0, 0], [0, 1], [3, 0], [3, 1], [3, 2]], dtype=np.int64),
            np.array([3.0, 4.0, 1.0, 2.0, -1.0], dtype=np.float32),
            np.array([4, 3], dtype=np.int64),
        )
        expected_st_d = (
            np.array([[3, 0]], dtype=np.int64),
            np.array(["hi"], dtype=bytes),
            np.array([4, 1], dtype=np.int64),
        )
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "st_c": parsing_ops.VarLenFeature("float32"),
                    "st_d": parsing_ops.VarLenFeature("string"),
                },
            },
            {"st_c": expected_st_c, "st_d": expected_st_d},
        )

    def test_serialized_containing_sparse_feature(self):
        original = [
            example(
                features=features({"val": float_feature([3, 4]), "idx": int64_feature([5, 10])})
            ),
            example(features=features({"val": float_feature([]), "idx": int64_feature([])})),
            example(features=features({"val": feature()})),
            example(
                features=features(
                    {"val": float_feature([1, 2, -1]), "idx": int64_feature([0, 9, 3])}
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_sp = (
            np.array([[0, 5], [0, 10], [3, 0], [3, 3], [3, 9]], dtype=np.int64),
            np.array([3.0, 4.0, 1.0, -1.0, 2.0], dtype=np.float32),
            np.array([4, 13], dtype=np.int64),
        )
        self._test(
            {
                "serialized": serialized,
                "features": {"sp": parsing_ops.SparseFeature(["idx"], "val", "float32", [13])},
            },
            {"sp": expected_sp},
        )

    def test_serialized_containing_sparse_feature_reuse(self):
        original = [
            example(
                features=features(
                    {
                        "val1": float_feature([3, 4]),
                        "val2": float_feature([5, 6]),
                        "idx": int64_feature([5, 10]),
                    }
                )
            ),
            example(features=features({"val1": float_feature([]), "idx": int64_feature([])})),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_sp1 = (
            np.array([[0, 5], [0, 10]], dtype=np.int64),
            np.array([3.0, 4.0], dtype=np.float32),
            np.array([2, 13], dtype=np.int64),
        )
        expected_sp2 = (
            np.array([[0, 5], [0, 10]], dtype=np.int64),
            np.array([5.0, 6.0], dtype=np.float32),
            np.array([2, 7], dtype=np.int64),
        )
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "sp1": parsing_ops.SparseFeature("idx", "val1", "float32", 13),
                    "sp2": parsing_ops.SparseFeature(
                        "idx", "val2", "float32", size=7, already_sorted=True
                    ),
                },
            },
            {"sp1": expected_sp1, "sp2": expected_sp2},
        )

    def test_serialized_containing_3d_sparse_feature(self):
        original = [
            example(
                features=features(
                    {
                        "val": float_feature([3, 4]),
                        "idx0": int64_feature([5, 10]),
                        "idx1": int64_feature([0, 2]),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "val": float_feature([]),
                        "idx0": int64_feature([]),
                        "idx1": int64_feature([]),
                    }
                )
            ),
            example(features=features({"val": feature()})),
            example(
                features=features(
                    {
                        "val": float_feature([1, 2, -1]),
                        "idx0": int64_feature([0, 9, 3]),
                        "idx1": int64_feature([1, 0, 2]),
                    }
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_sp = (
            np.array([[0, 5, 0], [0, 10, 2], [3, 0, 1], [3, 3, 2], [3, 9, 0]], dtype=np.int64),
            np.array([3.0, 4.0, 1.0, -1.0, 2.0], dtype=np.float32),
            np.array([4, 13, 3], dtype=np.int64),
        )
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "sp": parsing_ops.SparseFeature(["idx0", "idx1"], "val", "float32", [13, 3])
                },
            },
            {"sp": expected_sp},
        )

    def test_serialized_containing_dense(self):
        aname = "a"
        bname = "b*has+a:tricky_name"
        original = [
            example(
                features=features({aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str"])})
            ),
            example(
                features=features({aname: float_feature([-1, -1]), bname: bytes_feature([b""])})
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_output = {
            aname: np.array([[1, 1], [-1, -1]], dtype=np.float32).reshape(2, 1, 2, 1),
            bname: np.array(["b0_str", ""], dtype=bytes).reshape(2, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": serialized,
                "features": {
                    aname: parsing_ops.FixedLenFeature((1, 2, 1), dtype="float32"),
                    bname: parsing_ops.FixedLenFeature((1, 1, 1, 1), dtype="string"),
                },
            },
            expected_output,
        )

    def test_serialized_containing_dense_with_concat(self):
        aname = "a"
        bname = "b*has+a:tricky_name"
        original = [
            (
                example(features=features({aname: float_feature([10, 10])})),
                example(
                    features=features(
                        {aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str"])}
                    )
                ),
            ),
            (
                example(features=features({bname: bytes_feature([b"b100"])})),
                example(
                    features=features(
                        {aname: float_feature([-1, -1]), bname: bytes_feature([b"b1"])}
                    )
                ),
            ),
        ]
        serialized = [m.SerializeToString() + n.SerializeToString() for (m, n) in original]
        expected_output = {
            aname: np.array([[1, 1], [-1, -1]], dtype=np.float32).reshape(2, 1, 2, 1),
            bname: np.array(["b0_str", "b1"], dtype=bytes).reshape(2, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": serialized,
                "features": {
                    aname: parsing_ops.FixedLenFeature((1, 2, 1), dtype="float32"),
                    bname: parsing_ops.FixedLenFeature((1, 1, 1, 1), dtype="string"),
                },
            },
            expected_output,
        )

    def test_serialized_containing_dense_scalar(self):
        original = [
            example(features=features({"a": float_feature([1])})),
            example(features=features({})),
        ]
        serialized = [m.SerializeToString() for m in original]
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "a": parsing_ops.FixedLenFeature((1,), dtype="float32", default_value=-1)
                },
            },
            {"a": np.array([[1], [-1]], dtype=np.float32)},
        )

    def test_serialized_containing_dense_with_defaults(self):
        original = [
            example(features=features({"a": float_feature([1, 1])})),
            example(features=features({"b": bytes_feature([b"b1"])})),
            example(features=features({"b": feature()})),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_output = {
            "a": np.array([[1, 1], [3, -3], [3, -3]], dtype=np.float32).reshape(3, 1, 2, 1),
            "b": np.array(["tmp_str", "b1", "tmp_str"], dtype=bytes).reshape(3, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "a": parsing_ops.FixedLenFeature(
                        (1, 2, 1), dtype="float32", default_value=[3.0, -3.0]
                    ),
                    "b": parsing_ops.FixedLenFeature(
                        (1, 1, 1, 1), dtype="string", default_value="tmp_str"
                    ),
                },
            },
            expected_output,
        )

    def test_serialized_containing_sparse_and_sparse_feature_and_dense_with_no_default(self):
        expected_st_a = (
            np.empty((0, 2), dtype=np.int64),
            np.empty((0,), dtype=np.int64),
            np.array([2, 0], dtype=np.int64),
        )
        expected_sp = (
            np.array([[0, 0], [0, 3], [1, 7]], dtype=np.int64),
            np.array(["a", "b", "c"], dtype="|S"),
            np.array([2, 13], dtype=np.int64),
        )
        original = [
            example(
                features=features(
                    {
                        "c": float_feature([3, 4]),
                        "val": bytes_feature([b"a", b"b"]),
                        "idx": int64_feature([0, 3]),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "c": float_feature([1, 2]),
                        "val": bytes_feature([b"c"]),
                        "idx": int64_feature([7]),
                    }
                )
            ),
        ]
        names = ["in1", "in2"]
        serialized = [m.SerializeToString() for m in original]
        a_default = [1, 2, 3]
        b_default = np.random.rand(3, 3).astype(bytes)
        expected_output = {
            "st_a": expected_st_a,
            "sp": expected_sp,
            "a": np.array(2 * [[a_default]]),
            "b": np.array(2 * [b_default]),
            "c": np.array([[3, 4], [1, 2]], dtype=np.float32),
        }
        self._test(
            {
                "example_names": names,
                "serialized": serialized,
                "features": {
                    "st_a": parsing_ops.VarLenFeature("int64"),
                    "sp": parsing_ops.SparseFeature("idx", "val", "string", 13),
                    "a": parsing_ops.FixedLenFeature((1, 3), "int64", default_value=a_default),
                    "b": parsing_ops.FixedLenFeature((3, 3), "string", default_value=b_default),
                    "c": parsing_ops.FixedLenFeature((2,), "float32"),
                },
            },
            expected_output,
        )

    def test_serialized_containing_sparse_and_sparse_feature_with_reuse(self):
        expected_idx = (
            np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.int64),
            np.array([0, 3, 7, 1]),
            np.array([2, 2], dtype=np.int64),
        )
        expected_sp = (
            np.array([[0, 0], [0, 3], [1, 1], [1, 7]], dtype=np.int64),
            np.array(["a", "b", "d", "c"], dtype="|S"),
            np.array([2, 13], dtype=np.int64),
        )
        original = [
            example(
                features=features(
                    {"val": bytes_feature([b"a", b"b"]), "idx": int64_feature([0, 3])}
                )
            ),
            example(
                features=features(
                    {"val": bytes_feature([b"c", b"d"]), "idx": int64_feature([7, 1])}
                )
            ),
        ]
        names = ["in1", "in2"]
        serialized = [m.SerializeToString() for m in original]
        self._test(
            {
                "example_names": names,
                "serialized": serialized,
                "features": {
                    "idx": parsing_ops.VarLenFeature("int64"),
                    "sp": parsing_ops.SparseFeature(["idx"], "val", "string", [13]),
                },
            },
            {"idx": expected_idx, "sp": expected_sp},
        )

    def _test_serialized_containing_var_len_dense_larger_batch(self, batch_size):
        truth_int = [i for i in range(batch_size)]
        truth_str = [[(f"foo{i}").encode(), (f"bar{i}").encode()] for i in range(batch_size)]
        expected_str = copy.deepcopy(truth_str)
        for i in range(1, batch_size):
            col = 1
            if np.random.rand() < 0.25:
                expected_str[i][col] = b"default"
                col -= 1
                truth_str[i].pop()
            if np.random.rand() < 0.25:
                expected_str[i][col] = b"default"
                truth_str[i].pop()
        expected_output = {
            "a": np.array(truth_int, dtype=np.int64).reshape(batch_size, 1),
            "b": np.array(expected_str, dtype="|S").reshape(batch_size, 2),
        }
        original = [
            example(
                features=features(
                    {"a": int64_feature([truth_int[i]]), "b": bytes_feature(truth_str[i])}
                )
            )
            for i in range(batch_size)
        ]
        serialized = [m.SerializeToString() for m in original]
        self._test(
            {
                "serialized": serialized,
                "features": {
                    "a": parsing_ops.FixedLenSequenceFeature(
                        shape=(), dtype="int64", allow_missing=True, default_value=-1
                    ),
                    "b": parsing_ops.FixedLenSequenceFeature(
                        shape=[], dtype="string", allow_missing=True, default_value="default"
                    ),
                },
            },
            expected_output,
        )

    def test_serialized_containing_var_len_dense_larger_batch(self):
        np.random.seed(3456)
        for batch_size in (1, 10, 20, 100, 256):
            self._test_serialized_containing_var_len_dense_larger_batch(batch_size)

    def test_serialized_containing_var_len_dense(self):
        aname = "a"
        bname = "b"
        cname = "c"
        dname = "d"
        example_names = ["in1", "in2", "in3", "in4"]
        original = [
            example(features=features({cname: int64_feature([2])})),
            example(
                features=features(
                    {aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str", b"b1_str"])}
                )
            ),
            example(
                features=features(
                    {aname: float_feature([-1, -1, 2, 2]), bname: bytes_feature([b"b1"])}
                )
            ),
            example(features=features({aname: float_feature([]), cname: int64_feature([3])})),
        ]
        serialized = [m.SerializeToString() for m in original]
        expected_output = {
            aname: np.array(
                [[0, 0, 0, 0], [1, 1, 0, 0], [-1, -1, 2, 2], [0, 0, 0, 0]], dtype=np.float32
            ).reshape(4, 2, 2, 1),
            bname: np.array(
                [["", ""], ["b0_str", "b1_str"], ["b1", ""], ["", ""]], dtype=bytes
            ).reshape(4, 2, 1, 1, 1),
            cname: np.array([2, 0, 0, 3], dtype=np.int64).reshape(4, 1),
            dname: np.empty(shape=(4, 0), dtype=bytes),
        }
        sequence = parsing_ops.FixedLenSequenceFeature
        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: sequence((2, 1), dtype="float32", allow_missing=True),
                    bname: sequence((1, 1, 1), dtype="string", allow_missing=True),
                    cname: sequence(shape=[], dtype="int64", allow_missing=True),
                    dname: sequence(shape=[], dtype="string", allow_missing=True),
                },
            },
            expected_output,
        )

        expected_output_custom_padding = dict(expected_output)
        expected_output_custom_padding[aname] = np.array(
            [[-2, -2, -2, -2], [1, 1, -2, -2], [-1, -1, 2, 2], [-2, -2, -2, -2]],
            dtype=np.float32,
        ).reshape(4, 2, 2, 1)
        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: sequence(
                        (2, 1), dtype="float32", allow_missing=True, default_value=-2.0
                    ),
                    bname: sequence((1, 1, 1), dtype="string", allow_missing=True),
                    cname: sequence(shape=[], dtype="int64", allow_missing=True),
                    dname: sequence(shape=[], dtype="string", allow_missing=True),
                },
            },
            expected_output_custom_padding,
        )

        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: sequence((2, 1), dtype="float32", allow_missing=True),
                    bname: sequence((2, 1, 1), dtype="string", allow_missing=True),
                },
            },
            expected_err=(
                errors.OpError,
                "Name: in3, Key: b, Index: 2.  "
                "Number of bytes values is not a multiple of stride length.",
            ),
        )

        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: sequence((2, 1), dtype="float32", allow_missing=True, default_value=[]),
                    bname: sequence((2, 1, 1), dtype="string", allow_missing=True),
                },
            },
            expected_err=(ValueError, "Cannot reshape a tensor with 0 elements to shape"),
        )

        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: parsing_ops.FixedLenFeature((None, 2, 1), dtype="float32"),
                    bname: sequence((2, 1, 1), dtype="string", allow_missing=True),
                },
            },
            expected_err=(
                ValueError,
                "First dimension of shape for feature a unknown. "
                "Consider using FixedLenSequenceFeature.",
            ),
        )

        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    cname: parsing_ops.FixedLenFeature(
                        (1, None), dtype="int64", default_value=[[1]]
                    ),
                },
            },
            expected_err=(
                ValueError,
                "All dimensions of shape for feature c need to be known "
                r"but received \(1, None\).",
            ),
        )

        self._test(
            {
                "example_names": example_names,
                "serialized": serialized,
                "features": {
                    aname: sequence((2, 1), dtype="float32", allow_missing=True),
                    bname: sequence((1, 1, 1), dtype="string", allow_missing=True),
                    cname: sequence(shape=[], dtype="int64", allow_missing=False),
                    dname: sequence(shape=[], dtype="string", allow_missing=True),
                },
            },
            expected_err=(
                ValueError,
                "Unsupported: FixedLenSequenceFeature requires allow_missing to be True.",
            ),
        )

    def test_serialized_containing_ragged_feature_with_no_partitions(self):
        original = [
            example(features=features({"rt_c": float_feature([3, 4])})),
            example(features=features({"rt_c": float_feature([])})),
            example(features=features({"rt_d": feature()})),
            example(
                features=features(
                    {"rt_c": float_feature([1, 2, -1]), "rt_d": bytes_feature([b"hi"])}
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        test_features = {
            "rt_c": parsing_ops.RaggedFeature(dtype="float32"),
            "rt_d": parsing_ops.RaggedFeature(dtype="string", row_splits_dtype="int64"),
        }
        expected_rt_c = [[3.0, 4.0], [], [], [1.0, 2.0, -1.0]]
        expected_rt_d = [[], [], [], [b"hi"]]
        self._test(
            {"serialized": serialized, "features": test_features},
            {"rt_c": Ragged(expected_rt_c), "rt_d": Ragged(expected_rt_d)},
        )
        out = parsing_ops.parse_example(serialized, test_features)
        assert out["rt_c"].row_splits.dtype == np.int32  # TensorFlow's default
        assert out["rt_d"].row_splits.dtype == np.int64

        batch_serialized = serialized * 64
        self._test(
            {"serialized": batch_serialized, "features": test_features},
            {"rt_c": Ragged(expected_rt_c * 64), "rt_d": Ragged(expected_rt_d * 64)},
        )

    def test_serialized_containing_ragged_feature(self):
        original = [
            example(
                features=features(
                    {
                        "rt_values": float_feature([3, 4, 5, 6]),
                        "rt_splits": int64_feature([0, 1, 4]),
                        "rt_lengths": int64_feature([1, 3]),
                        "rt_starts": int64_feature([0, 1]),
                        "rt_limits": int64_feature([1, 4]),
                        "rt_rowids": int64_feature([0, 1, 1, 1]),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "rt_values": float_feature([]),
                        "rt_splits": int64_feature([0]),
                        "rt_lengths": int64_feature([]),
                        "rt_starts": int64_feature([]),
                        "rt_limits": int64_feature([]),
                        "rt_rowids": int64_feature([]),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "rt_values": feature(),
                        "rt_splits": int64_feature([0]),
                        "rt_lengths": feature(),
                        "rt_starts": feature(),
                        "rt_limits": feature(),
                        "rt_rowids": feature(),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "rt_values": float_feature([1, 2, -1, 8, 9, 5]),
                        "rt_splits": int64_feature([0, 3, 3, 5, 6]),
                        "rt_lengths": int64_feature([3, 0, 2, 1]),
                        "rt_starts": int64_feature([0, 3, 3, 5]),
                        "rt_limits": int64_feature([3, 3, 5, 6]),
                        "rt_rowids": int64_feature([0, 0, 0, 2, 2, 3]),
                    }
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        ragged = lambda *partitions: parsing_ops.RaggedFeature(  # noqa: E731
            value_key="rt_values", partitions=list(partitions), dtype="float32"
        )
        test_features = {
            "rt1": ragged(RowSplits("rt_splits")),
            "rt2": ragged(RowLengths("rt_lengths")),
            "rt3": ragged(RowStarts("rt_starts")),
            "rt4": ragged(RowLimits("rt_limits")),
            "rt5": ragged(ValueRowIds("rt_rowids")),
            "uniform1": ragged(UniformRowLength(2)),
            "uniform2": ragged(UniformRowLength(2), RowSplits("rt_splits")),
        }
        expected_rt = Ragged([[[3], [4, 5, 6]], [], [], [[1, 2, -1], [], [8, 9], [5]]])
        expected_uniform1 = Ragged(
            [[[3, 4], [5, 6]], [], [], [[1, 2], [-1, 8], [9, 5]]], ragged_rank=1
        )
        expected_uniform2 = Ragged([[[[3], [4, 5, 6]]], [], [], [[[1, 2, -1], []], [[8, 9], [5]]]])
        expected_output = {
            "rt1": expected_rt,
            "rt2": expected_rt,
            "rt3": expected_rt,
            "rt4": expected_rt,
            "rt5": expected_rt,
            "uniform1": expected_uniform1,
            "uniform2": expected_uniform2,
        }
        self._test({"serialized": serialized, "features": test_features}, expected_output)

    def test_serialized_containing_nested_ragged_feature(self):
        original = [
            example(
                features=features(
                    {
                        "rt_values": float_feature([1, 2, 3, 4, 5, 6, 7]),
                        "lengths_axis2": int64_feature([1, 2, 0, 1]),
                        "lengths_axis3": int64_feature([1, 2, 1, 3]),
                        "splits_axis3": int64_feature([0, 1, 3, 4, 7]),
                    }
                )
            ),
            example(
                features=features(
                    {
                        "rt_values": float_feature([1, 2, 3, 4, 5, 6, 7, 8]),
                        "lengths_axis2": int64_feature([2, 3]),
                        "lengths_axis3": int64_feature([3, 1, 1, 1, 2]),
                        "splits_axis3": int64_feature([0, 3, 4, 5, 6, 8]),
                    }
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        test_features = {
            "rt1": parsing_ops.RaggedFeature(
                value_key="rt_values",
                partitions=[
                    UniformRowLength(2),
                    RowLengths("lengths_axis2"),
                    RowSplits("splits_axis3"),
                ],
                dtype="float32",
                row_splits_dtype="int64",
            ),
        }
        expected_rt = Ragged(
            [
                [[[[1]], [[2, 3], [4]]], [[], [[5, 6, 7]]]],
                [[[[1, 2, 3], [4]], [[5], [6], [7, 8]]]],
            ]
        )
        self._test({"serialized": serialized, "features": test_features}, {"rt1": expected_rt})

    def test_serialized_containing_misaligned_ragged_feature_row_lengths(self):
        original = [
            example(
                features=features(
                    {"rt_values": float_feature([]), "rt_lengths": int64_feature([5])}
                )
            ),
            example(
                features=features(
                    {
                        "rt_values": float_feature([1.0, 2.0, 3.0, 4.0, 5.0]),
                        "rt_lengths": int64_feature([]),
                    }
                )
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        test_features = {
            "rt": parsing_ops.RaggedFeature(
                value_key="rt_values",
                partitions=[RowLengths("rt_lengths")],
                dtype="float32",
                validate=True,
            ),
        }
        self._test(
            {"serialized": serialized, "features": test_features},
            expected_err=(
                (errors.InvalidArgumentError, ValueError),
                "Feature rt: values and partitions are not aligned",
            ),
        )


class TestParseSingleExample:
    def _test(self, kwargs, expected_values=None, expected_err=None):
        if expected_err:
            _raises(expected_err, lambda: parsing_ops.parse_single_example(**kwargs))
            return
        out = parsing_ops.parse_single_example(**kwargs)
        _compare_output_to_expected(out, expected_values)
        for k, f in kwargs["features"].items():
            if isinstance(f, parsing_ops.FixedLenFeature) and f.shape is not None:
                assert tuple(out[k].shape) == tuple(f.shape)
            elif isinstance(f, parsing_ops.VarLenFeature):
                assert out[k].indices.shape == (2, 1)
                assert out[k].values.shape == (2,)
                assert out[k].dense_shape.shape == (1,)

    def test_raw_parse_single_example_rejects_zero_variable_dense_dimension(self):
        # Upstream: ParseSingleExample with dense_shapes [[0]] (see the batch version).
        with pytest.raises((errors.InvalidArgumentError, ValueError), match="positive"):
            parsing_ops.parse_single_example(
                example().SerializeToString(),
                {"k": parsing_ops.FixedLenSequenceFeature([0], "float32", allow_missing=True)},
            )

    def test_single_example_with_sparse_and_sparse_feature_and_dense(self):
        original = example(
            features=features(
                {
                    "c": float_feature([3, 4]),
                    "d": float_feature([0.0, 1.0]),
                    "val": bytes_feature([b"a", b"b"]),
                    "idx": int64_feature([0, 3]),
                    "st_a": float_feature([3.0, 4.0]),
                }
            )
        )
        serialized = original.SerializeToString()
        a_default = [1, 2, 3]
        b_default = np.random.rand(3, 3).astype(bytes)
        test_features = {
            "st_a": parsing_ops.VarLenFeature("float32"),
            "sp": parsing_ops.SparseFeature(["idx"], "val", "string", [13]),
            "a": parsing_ops.FixedLenFeature((1, 3), "int64", default_value=a_default),
            "b": parsing_ops.FixedLenFeature((3, 3), "string", default_value=b_default),
            "c": parsing_ops.FixedLenFeature(2, "float32"),
            "d": parsing_ops.FixedLenSequenceFeature([], "float32", allow_missing=True),
        }
        expected_st_a = (
            np.array([[0], [1]], dtype=np.int64),
            np.array([3.0, 4.0], dtype=np.float32),
            np.array([2], dtype=np.int64),
        )
        expected_sp = (
            np.array([[0], [3]], dtype=np.int64),
            np.array(["a", "b"], dtype="|S"),
            np.array([13], dtype=np.int64),
        )
        expected_output = {
            "st_a": expected_st_a,
            "sp": expected_sp,
            "a": [a_default],
            "b": b_default,
            "c": np.array([3, 4], dtype=np.float32),
            "d": np.array([0.0, 1.0], dtype=np.float32),
        }
        self._test(
            {"example_names": "in1", "serialized": serialized, "features": test_features},
            expected_output,
        )
        self._test({"serialized": serialized, "features": test_features}, expected_output)

    def test_single_example_with_all_feature_types(self):
        original = example(
            features=features(
                {
                    "c": float_feature([3, 4]),
                    "d": float_feature([0.0, 1.0]),
                    "val": bytes_feature([b"a", b"b"]),
                    "idx": int64_feature([0, 3]),
                    "st_a": float_feature([3.0, 4.0]),
                    "rt_1d": float_feature([3.0, 4.0]),
                    "rt_values": float_feature([5, 6, 7]),
                    "rt_splits": int64_feature([0, 1, 1, 3]),
                    "rt_lengths": int64_feature([1, 0, 2]),
                    "rt_starts": int64_feature([0, 1, 1]),
                    "rt_limits": int64_feature([1, 1, 3]),
                    "rt_rowids": int64_feature([0, 2, 2]),
                    "rt_splits2": int64_feature([0, 2, 3]),
                }
            )
        )
        serialized = original.SerializeToString()
        a_default = [1, 2, 3]
        b_default = np.random.rand(3, 3).astype(bytes)
        ragged = lambda *partitions: parsing_ops.RaggedFeature(  # noqa: E731
            value_key="rt_values", partitions=list(partitions), dtype="float32"
        )
        test_features = {
            "st_a": parsing_ops.VarLenFeature("float32"),
            "sp": parsing_ops.SparseFeature(["idx"], "val", "string", [13]),
            "a": parsing_ops.FixedLenFeature((1, 3), "int64", default_value=a_default),
            "b": parsing_ops.FixedLenFeature((3, 3), "string", default_value=b_default),
            "c": parsing_ops.FixedLenFeature(2, "float32"),
            "d": parsing_ops.FixedLenSequenceFeature([], "float32", allow_missing=True),
            "rt_1d": parsing_ops.RaggedFeature("float32"),
            "rt_2d_with_splits": ragged(RowSplits("rt_splits")),
            "rt_2d_with_lengths": ragged(RowLengths("rt_lengths")),
            "rt_2d_with_starts": ragged(RowStarts("rt_starts")),
            "rt_2d_with_limits": ragged(RowLimits("rt_limits")),
            "rt_2d_with_rowids": ragged(ValueRowIds("rt_rowids")),
            "rt_2d_with_uniform_row_length": ragged(UniformRowLength(1)),
            "rt_3d": ragged(RowSplits("rt_splits2"), RowSplits("rt_splits")),
            "rt_3d_with_uniform_row_length": ragged(UniformRowLength(1), RowSplits("rt_splits")),
        }
        expected_st_a = (
            np.array([[0], [1]], dtype=np.int64),
            np.array([3.0, 4.0], dtype=np.float32),
            np.array([2], dtype=np.int64),
        )
        expected_sp = (
            np.array([[0], [3]], dtype=np.int64),
            np.array(["a", "b"], dtype="|S"),
            np.array([13], dtype=np.int64),
        )
        expected_rt_2d = Ragged([[5], [], [6, 7]])
        expected_output = {
            "st_a": expected_st_a,
            "sp": expected_sp,
            "a": [a_default],
            "b": b_default,
            "c": np.array([3, 4], dtype=np.float32),
            "d": np.array([0.0, 1.0], dtype=np.float32),
            "rt_1d": np.array([3, 4], dtype=np.float32),
            "rt_2d_with_splits": expected_rt_2d,
            "rt_2d_with_lengths": expected_rt_2d,
            "rt_2d_with_starts": expected_rt_2d,
            "rt_2d_with_limits": expected_rt_2d,
            "rt_2d_with_rowids": expected_rt_2d,
            "rt_2d_with_uniform_row_length": np.array([[5], [6], [7]], dtype=np.float32),
            "rt_3d": Ragged([[[5], []], [[6, 7]]]),
            # RaggedTensor.from_uniform_row_length(expected_rt_2d, uniform_row_length=1)
            "rt_3d_with_uniform_row_length": Ragged([[[5]], [[]], [[6, 7]]]),
        }
        self._test(
            {"example_names": "in1", "serialized": serialized, "features": test_features},
            expected_output,
        )
        out = parsing_ops.parse_single_example(serialized, test_features)
        assert out["rt_3d_with_uniform_row_length"].shape == (3, 1, None)


# TensorFlow 2.21's single-example parser words a FixedLenFeature holding another number of
# values than its shape as below (recorded by running parse_single_example on each case; the
# batch parser says "Number of int64 values != expected" instead).
SINGLE_EXAMPLE_COUNT_ERRORS = [
    ("int64_list", [1, 2, 3], [2], "Some int64_list slice was not parsed."),
    ("int64_list", [1], [2], "Some int64_list slice was not parsed."),
    ("int64_list", [], [2], "Some int64_list slice was not parsed."),
    ("int64_list", [1, 2, 3, 4, 5], [2, 2], "Some int64_list slice was not parsed."),
    ("float_list", [1.0, 2.0, 3.0], [2], "Some float_list slice was not parsed."),
    ("float_list", [1.0], [2], "Some float_list slice was not parsed."),
    ("bytes_list", [b"a", b"b", b"c"], [2], "Parsing bytes_list failed."),
    ("bytes_list", [b"a"], [2], "Some bytes_list slice was not parsed."),
]


@pytest.mark.parametrize("kind,values,shape,reason", SINGLE_EXAMPLE_COUNT_ERRORS)
def test_single_example_count_mismatch_in_tensorflows_words(kind, values, shape, reason):
    list_class = {"int64_list": train.Int64List, "float_list": train.FloatList,
                  "bytes_list": train.BytesList}[kind]  # fmt: skip
    dtype = {"int64_list": np.int64, "float_list": np.float32, "bytes_list": "string"}[kind]
    feature = train.Feature(**{kind: list_class(value=values)})
    data = train.Example(features=train.Features(feature={"a": feature})).SerializeToString()
    spec = {"a": parsing_ops.FixedLenFeature(shape, dtype)}
    with pytest.raises(errors.InvalidArgumentError) as info:
        parsing_ops.parse_single_example(data, spec)
    assert str(info.value) == f"Key: a.  Can't parse serialized Example: {reason}"
    with pytest.raises(errors.InvalidArgumentError, match="values != expected"):
        parsing_ops.parse_example([data], spec)  # the batch parser keeps its own words


class TestParseSequenceExample:
    def test_create_sequence_example(self):
        value = sequence_example(
            context=features({"global_feature": float_feature([1, 2, 3])}),
            feature_lists=feature_lists(
                {
                    "repeated_feature_2_frames": feature_list(
                        [bytes_feature([b"a", b"b", b"c"]), bytes_feature([b"a", b"d", b"e"])]
                    ),
                    "repeated_feature_3_frames": feature_list(
                        [
                            int64_feature([3, 4, 5, 6, 7]),
                            int64_feature([-1, 0, 0, 0, 0]),
                            int64_feature([1, 2, 3, 4, 5]),
                        ]
                    ),
                }
            ),
        )
        value.SerializeToString()  # Smoke test

    def test_fixed_len_sequence_feature_invalid_shapes(self):
        with pytest.raises(ValueError, match="dimensions must be positive"):
            parsing_ops.FixedLenSequenceFeature(shape=[0], dtype="float32")
        with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
            parsing_ops.FixedLenSequenceFeature(shape=[-1], dtype="float32")

    def test_raw_parse_sequence_example_rejects_zero_feature_list_dimension(self):
        # Upstream: ParseSequenceExampleV2 with feature_list_dense_shapes [[0]].
        with pytest.raises((errors.InvalidArgumentError, ValueError), match="positive"):
            parsing_ops.parse_sequence_example(
                [sequence_example().SerializeToString()],
                sequence_features={
                    "k": parsing_ops.FixedLenSequenceFeature([0], "float32", allow_missing=True)
                },
            )

    def test_raw_parse_single_sequence_example_rejects_zero_feature_list_dimension(self):
        with pytest.raises((errors.InvalidArgumentError, ValueError), match="positive"):
            parsing_ops.parse_single_sequence_example(
                sequence_example().SerializeToString(),
                sequence_features={
                    "k": parsing_ops.FixedLenSequenceFeature([0], "float32", allow_missing=True)
                },
            )

    def _test(
        self,
        kwargs,
        expected_context_values=None,
        expected_feat_list_values=None,
        expected_length_values=None,
        expected_err=None,
        batch=False,
    ):
        expected_context_values = expected_context_values or {}
        expected_feat_list_values = expected_feat_list_values or {}
        expected_length_values = expected_length_values or {}
        if expected_err:
            if batch:
                _raises(expected_err, lambda: parsing_ops.parse_sequence_example(**kwargs))
            else:
                _raises(expected_err, lambda: parsing_ops.parse_single_sequence_example(**kwargs))
            return
        if batch:
            context_out, feat_list_out, lengths_out = parsing_ops.parse_sequence_example(**kwargs)
        else:
            context_out, feat_list_out = parsing_ops.parse_single_sequence_example(**kwargs)
            lengths_out = {}
        _compare_output_to_expected(context_out, expected_context_values)
        _compare_output_to_expected(feat_list_out, expected_feat_list_values)
        _compare_output_to_expected(lengths_out, expected_length_values)
        for k, f in kwargs.get("context_features", {}).items():
            if isinstance(f, parsing_ops.FixedLenFeature) and f.shape is not None:
                shape = context_out[k].shape
                assert tuple(shape[1:] if batch else shape) == tuple(f.shape)
            elif isinstance(f, parsing_ops.VarLenFeature):
                assert context_out[k].indices.shape[1] == (2 if batch else 1)
                assert context_out[k].values.ndim == 1
                assert context_out[k].dense_shape.shape == ((2,) if batch else (1,))

    def _test_both(
        self,
        kwargs,
        expected_context_values=None,
        expected_feat_list_values=None,
        expected_err=None,
    ):
        self._test(
            dict(kwargs),
            expected_context_values=expected_context_values,
            expected_feat_list_values=expected_feat_list_values,
            expected_err=expected_err,
            batch=False,
        )
        kwargs = dict(kwargs)
        kwargs["serialized"] = [kwargs.pop("serialized")]
        kwargs["example_names"] = [kwargs.pop("example_name")] if "example_name" in kwargs else None
        if expected_context_values:
            new_values = {}
            for k, v in expected_context_values.items():
                if isinstance(
                    kwargs["context_features"][k],
                    (parsing_ops.FixedLenFeature, parsing_ops.RaggedFeature),
                ):
                    new_values[k] = np.expand_dims(v, axis=0)
                else:
                    new_values[k] = (np.insert(v[0], 0, 0, axis=1), v[1], np.insert(v[2], 0, 1))
            expected_context_values = new_values
        expected_length_values = {}
        if expected_feat_list_values:
            new_values = {}
            for k, v in expected_feat_list_values.items():
                spec = kwargs["sequence_features"][k]
                if isinstance(spec, parsing_ops.FixedLenSequenceFeature):
                    expected_length_values[k] = [np.shape(v)[0]]
                    new_values[k] = np.expand_dims(v, axis=0)
                elif isinstance(spec, parsing_ops.RaggedFeature):
                    new_values[k] = np.expand_dims(v, axis=0)
                else:
                    new_values[k] = (np.insert(v[0], 0, 0, axis=1), v[1], np.insert(v[2], 0, 1))
            expected_feat_list_values = new_values
        self._test(
            kwargs,
            expected_context_values=expected_context_values,
            expected_feat_list_values=expected_feat_list_values,
            expected_length_values=expected_length_values,
            expected_err=expected_err,
            batch=True,
        )

    def test_sequence_example_with_sparse_and_dense_context(self):
        original = sequence_example(
            context=features({"c": float_feature([3, 4]), "st_a": float_feature([3.0, 4.0])})
        )
        serialized = original.SerializeToString()
        expected_st_a = (
            np.array([[0], [1]], dtype=np.int64),
            np.array([3.0, 4.0], dtype=np.float32),
            np.array([2], dtype=np.int64),
        )
        a_default = [[1, 2, 3]]
        b_default = np.random.rand(3, 3).astype(bytes)
        expected_context_output = {
            "st_a": expected_st_a,
            "a": a_default,
            "b": b_default,
            "c": np.array([3, 4], dtype=np.float32),
        }
        self._test_both(
            {
                "example_name": "in1",
                "serialized": serialized,
                "context_features": {
                    "st_a": parsing_ops.VarLenFeature("float32"),
                    "a": parsing_ops.FixedLenFeature((1, 3), "int64", default_value=a_default),
                    "b": parsing_ops.FixedLenFeature((3, 3), "string", default_value=b_default),
                    "c": parsing_ops.FixedLenFeature((2,), "float32"),
                },
            },
            expected_context_values=expected_context_output,
        )

    def test_sequence_example_with_multiple_size_feature_lists(self):
        original = sequence_example(
            feature_lists=feature_lists(
                {
                    "a": feature_list(
                        [
                            int64_feature([-1, 0, 1]),
                            int64_feature([2, 3, 4]),
                            int64_feature([5, 6, 7]),
                            int64_feature([8, 9, 10]),
                        ]
                    ),
                    "b": feature_list([bytes_feature([b"r00", b"r01", b"r10", b"r11"])]),
                    "c": feature_list([float_feature([3, 4]), float_feature([-1, 2])]),
                }
            )
        )
        serialized = original.SerializeToString()
        expected_feature_list_output = {
            "a": np.array([[[-1, 0, 1]], [[2, 3, 4]], [[5, 6, 7]], [[8, 9, 10]]], dtype=np.int64),
            "b": np.array([[[b"r00", b"r01"], [b"r10", b"r11"]]], dtype=bytes),
            "c": np.array([[3, 4], [-1, 2]], dtype=np.float32),
            "d": np.empty(shape=(0, 5), dtype=np.float32),
        }
        self._test_both(
            {
                "example_name": "in1",
                "serialized": serialized,
                "sequence_features": {
                    "a": parsing_ops.FixedLenSequenceFeature((1, 3), "int64"),
                    "b": parsing_ops.FixedLenSequenceFeature((2, 2), "string"),
                    "c": parsing_ops.FixedLenSequenceFeature(2, "float32"),
                    "d": parsing_ops.FixedLenSequenceFeature((5,), "float32", allow_missing=True),
                },
            },
            expected_feat_list_values=expected_feature_list_output,
        )

    def _sparse_and_dense_lists(self):
        return sequence_example(
            feature_lists=feature_lists(
                {
                    "a": feature_list([int64_feature([3, 4]), int64_feature([1, 0])]),
                    "st_a": feature_list(
                        [float_feature([3.0, 4.0]), float_feature([5.0]), float_feature([])]
                    ),
                    "st_b": feature_list(
                        [
                            bytes_feature([b"a"]),
                            bytes_feature([]),
                            bytes_feature([]),
                            bytes_feature([b"b", b"c"]),
                        ]
                    ),
                }
            )
        )

    def _sparse_and_dense_expected(self):
        return {
            "a": np.array([[3, 4], [1, 0]], dtype=np.int64),
            "st_a": (
                np.array([[0, 0], [0, 1], [1, 0]], dtype=np.int64),
                np.array([3.0, 4.0, 5.0], dtype=np.float32),
                np.array([3, 2], dtype=np.int64),
            ),
            "st_b": (
                np.array([[0, 0], [3, 0], [3, 1]], dtype=np.int64),
                np.array(["a", "b", "c"], dtype="|S"),
                np.array([4, 2], dtype=np.int64),
            ),
            "st_c": (
                np.empty((0, 2), dtype=np.int64),
                np.empty((0,), dtype=np.int64),
                np.array([0, 0], dtype=np.int64),
            ),
        }

    def _sparse_and_dense_features(self):
        return {
            "st_a": parsing_ops.VarLenFeature("float32"),
            "st_b": parsing_ops.VarLenFeature("string"),
            "st_c": parsing_ops.VarLenFeature("int64"),
            "a": parsing_ops.FixedLenSequenceFeature((2,), "int64"),
        }

    def test_sequence_example_without_debug_name(self):
        self._test_both(
            {
                "serialized": self._sparse_and_dense_lists().SerializeToString(),
                "sequence_features": self._sparse_and_dense_features(),
            },
            expected_feat_list_values=self._sparse_and_dense_expected(),
        )

    def test_sequence_example_with_sparse_and_dense_feature_lists(self):
        self._test_both(
            {
                "example_name": "in1",
                "serialized": self._sparse_and_dense_lists().SerializeToString(),
                "sequence_features": self._sparse_and_dense_features(),
            },
            expected_feat_list_values=self._sparse_and_dense_expected(),
        )

    def test_sequence_example_with_empty_feature_in_feature_lists(self):
        original = sequence_example(
            feature_lists=feature_lists(
                {
                    "st_a": feature_list(
                        [float_feature([3.0, 4.0]), feature(), float_feature([5.0])]
                    ),
                }
            )
        )
        expected_st_a = (
            np.array([[0, 0], [0, 1], [2, 0]], dtype=np.int64),
            np.array([3.0, 4.0, 5.0], dtype=np.float32),
            np.array([3, 2], dtype=np.int64),
        )
        self._test_both(
            {
                "example_name": "in1",
                "serialized": original.SerializeToString(),
                "sequence_features": {"st_a": parsing_ops.VarLenFeature("float32")},
            },
            expected_feat_list_values={"st_a": expected_st_a},
        )

    def _fails(self, lists, pattern):
        original = sequence_example(feature_lists=feature_lists(lists))
        self._test_both(
            {
                "example_name": "in1",
                "serialized": original.SerializeToString(),
                "sequence_features": {"a": parsing_ops.FixedLenSequenceFeature((2,), "int64")},
            },
            expected_err=(errors.OpError, pattern),
        )

    def test_sequence_example_list_with_inconsistent_data_fails(self):
        self._fails(
            {"a": feature_list([int64_feature([-1, 0]), float_feature([2, 3])])},
            "Feature list: a, Index: 1.  Data types don't match. Expected type: int64",
        )

    def test_sequence_example_list_with_wrong_data_type_fails(self):
        self._fails(
            {"a": feature_list([float_feature([2, 3])])},
            "Feature list: a, Index: 0.  Data types don't match. Expected type: int64",
        )

    def test_sequence_example_list_with_wrong_sparse_data_type_fails(self):
        self._fails(
            {
                "a": feature_list(
                    [int64_feature([3, 4]), int64_feature([1, 2]), float_feature([2.0, 3.0])]
                )
            },
            "Name: in1, Feature list: a, Index: 2.  Data types don't match. Expected type: int64",
        )

    def test_sequence_example_list_with_wrong_shape_fails(self):
        self._fails(
            {"a": feature_list([int64_feature([2, 3]), int64_feature([2, 3, 4])])},
            r"Name: in1, Key: a, Index: 1."
            r"  Number of int64 values != expected."
            r"  values size: 3 but output shape: \[2\]"
            r"|Feature list 'a' has an unexpected number of values.  "
            r"Total values size: 5 is not consistent with output "
            r"shape: \[\?,2\]",
        )

    def test_sequence_example_list_with_wrong_shape_fails2(self):
        self._fails(
            {"a": feature_list([int64_feature([2]), int64_feature([2, 3, 4])])},
            r"Name: in1, Key: a, Index: 0."
            r"  Number of (int64 )?values != expected."
            r"  values size: 1 but output shape: \[2\]",
        )

    def test_sequence_example_with_missing_feature_list_fails(self):
        self._fails(
            {},
            "Name: in1, Feature list 'a' is required but could not be found."
            "  Did you mean to include it in"
            " feature_list_dense_missing_assumed_empty or"
            " feature_list_dense_defaults?",
        )

    def test_sequence_example_batch(self):
        first = sequence_example(
            feature_lists=feature_lists(
                {
                    "a": feature_list(
                        [
                            int64_feature([-1, 0, 1]),
                            int64_feature([2, 3, 4]),
                            int64_feature([5, 6, 7]),
                            int64_feature([8, 9, 10]),
                        ]
                    )
                }
            )
        )
        second = sequence_example(
            context=features({"c": float_feature([7])}),
            feature_lists=feature_lists(
                {
                    "a": feature_list([int64_feature([21, 2, 11])]),
                    "b": feature_list([int64_feature([5])]),
                }
            ),
        )
        serialized = [first.SerializeToString(), second.SerializeToString()]
        expected_context_output = {"c": np.array([-1, 7], dtype=np.float32)}
        expected_feature_list_output = {
            "a": np.array(
                [
                    [[[-1, 0, 1]], [[2, 3, 4]], [[5, 6, 7]], [[8, 9, 10]]],
                    [[[21, 2, 11]], [[0, 0, 0]], [[0, 0, 0]], [[0, 0, 0]]],
                ],
                dtype=np.int64,
            ),
            "b": np.array([[0], [5]], dtype=np.int64),
            "d": np.empty(shape=(2, 0, 5), dtype=np.float32),
        }
        self._test(
            {
                "example_names": ["in1", "in2"],
                "serialized": serialized,
                "context_features": {
                    "c": parsing_ops.FixedLenFeature((), "float32", default_value=-1)
                },
                "sequence_features": {
                    "a": parsing_ops.FixedLenSequenceFeature((1, 3), "int64"),
                    "b": parsing_ops.FixedLenSequenceFeature((), "int64", allow_missing=True),
                    "d": parsing_ops.FixedLenSequenceFeature((5,), "float32", allow_missing=True),
                },
            },
            expected_context_values=expected_context_output,
            expected_feat_list_values=expected_feature_list_output,
            expected_length_values={"a": [4, 1], "b": [0, 1], "d": [0, 0]},
            batch=True,
        )

    def test_serialized_containing_ragged_feature_with_no_partitions(self):
        original = [
            sequence_example(
                context=features({"a": float_feature([3, 4])}),
                feature_lists=feature_lists(
                    {
                        "b": feature_list([float_feature([5]), float_feature([3])]),
                        "c": feature_list([int64_feature([6, 7, 8, 9])]),
                    }
                ),
            ),
            sequence_example(
                context=features({"a": float_feature([9])}),
                feature_lists=feature_lists(
                    {
                        "b": feature_list([]),
                        "c": feature_list([int64_feature([]), int64_feature([1, 2, 3])]),
                    }
                ),
            ),
            sequence_example(
                feature_lists=feature_lists(
                    {
                        "b": feature_list(
                            [float_feature([1]), float_feature([1, 2]), float_feature([1, 2, 3])]
                        )
                    }
                )
            ),
            sequence_example(
                context=features({"a": feature()}),
                feature_lists=feature_lists(
                    {
                        "b": feature_list([feature()]),
                        "c": feature_list([int64_feature([3, 3, 3])]),
                    }
                ),
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        context_features = {"a": parsing_ops.RaggedFeature(dtype="float32")}
        sequence_features = {
            "b": parsing_ops.RaggedFeature(dtype="float32"),
            "c": parsing_ops.RaggedFeature(dtype="int64", row_splits_dtype="int64"),
        }
        expected_a = [[3, 4], [9], [], []]
        expected_b = [[[5], [3]], [], [[1], [1, 2], [1, 2, 3]], [[]]]
        expected_c = [[[6, 7, 8, 9]], [[], [1, 2, 3]], [], [[3, 3, 3]]]
        self._test(
            {
                "serialized": serialized,
                "context_features": context_features,
                "sequence_features": sequence_features,
            },
            {"a": Ragged(expected_a)},
            {"b": Ragged(expected_b), "c": Ragged(expected_c)},
            batch=True,
        )
        self._test(
            {
                "serialized": serialized[0],
                "context_features": context_features,
                "sequence_features": sequence_features,
            },
            expected_context_values={"a": [3, 4]},
            expected_feat_list_values={"b": Ragged([[5], [3]]), "c": Ragged([[6, 7, 8, 9]])},
            batch=False,
        )
        self._test(
            {
                "serialized": serialized * 64,
                "context_features": context_features,
                "sequence_features": sequence_features,
            },
            {"a": Ragged(expected_a * 64)},
            {"b": Ragged(expected_b * 64), "c": Ragged(expected_c * 64)},
            batch=True,
        )

    def test_serialized_containing_nested_ragged_feature(self):
        original = [
            sequence_example(
                context=features(
                    {
                        "a_values": float_feature([1, 2, 3, 4, 5, 6, 7]),
                        "a_lengths_axis2": int64_feature([1, 2, 0, 1]),
                        "a_lengths_axis3": int64_feature([1, 2, 1, 3]),
                        "a_splits_axis3": int64_feature([0, 1, 3, 4, 7]),
                    }
                ),
                feature_lists=feature_lists(
                    {
                        "b_values": feature_list(
                            [float_feature([1, 2, 3, 4]), float_feature([2, 4, 6])]
                        ),
                        "b_splits": feature_list(
                            [int64_feature([0, 1, 4]), int64_feature([0, 2, 3])]
                        ),
                    }
                ),
            ),
            sequence_example(),
            sequence_example(
                context=features(
                    {
                        "a_values": float_feature([1, 2, 3, 4, 5, 6, 7, 8]),
                        "a_lengths_axis2": int64_feature([2, 3]),
                        "a_lengths_axis3": int64_feature([3, 1, 1, 1, 2]),
                        "a_splits_axis3": int64_feature([0, 3, 4, 5, 6, 8]),
                    }
                ),
                feature_lists=feature_lists(
                    {
                        "b_values": feature_list(
                            [
                                float_feature([9, 8, 7, 6, 5]),
                                float_feature([4, 3, 2, 1]),
                                float_feature([0]),
                            ]
                        ),
                        "b_splits": feature_list(
                            [
                                int64_feature([0, 1, 4, 5]),
                                int64_feature([0, 4]),
                                int64_feature([0, 1]),
                            ]
                        ),
                    }
                ),
            ),
        ]
        serialized = [m.SerializeToString() for m in original]
        context_features = {
            "a": parsing_ops.RaggedFeature(
                value_key="a_values",
                partitions=[
                    UniformRowLength(2),
                    RowLengths("a_lengths_axis2"),
                    RowSplits("a_splits_axis3"),
                ],
                dtype="float32",
                row_splits_dtype="int64",
            )
        }
        sequence_features = {
            "b": parsing_ops.RaggedFeature(
                value_key="b_values", dtype="float32", partitions=[RowSplits("b_splits")]
            ),
            "c": parsing_ops.RaggedFeature(
                value_key="b_values", dtype="float32", partitions=[UniformRowLength(1)]
            ),
        }
        expected_a = [
            [[[[1]], [[2, 3], [4]]], [[], [[5, 6, 7]]]],
            [],
            [[[[1, 2, 3], [4]], [[5], [6], [7, 8]]]],
        ]
        expected_b = [
            [[[1], [2, 3, 4]], [[2, 4], [6]]],
            [],
            [[[9], [8, 7, 6], [5]], [[4, 3, 2, 1]], [[0]]],
        ]
        expected_c = [
            [[[1], [2], [3], [4]], [[2], [4], [6]]],
            [],
            [[[9], [8], [7], [6], [5]], [[4], [3], [2], [1]], [[0]]],
        ]
        self._test(
            dict(
                serialized=serialized,
                context_features=context_features,
                sequence_features=sequence_features,
            ),
            {"a": Ragged(expected_a)},
            {"b": Ragged(expected_b), "c": Ragged(expected_c, ragged_rank=2)},
            batch=True,
        )
        self._test(
            dict(
                serialized=serialized[0],
                context_features=context_features,
                sequence_features=sequence_features,
            ),
            {"a": Ragged(expected_a[0])},
            {"b": Ragged(expected_b[0]), "c": Ragged(expected_c[0], ragged_rank=1)},
            batch=False,
        )

    def test_serialized_containing_misaligned_nested_ragged_feature(self):
        original = sequence_example(
            feature_lists=feature_lists(
                {
                    "b_values": feature_list(
                        [float_feature([1, 2, 3, 4]), float_feature([2, 4, 6])]
                    ),
                    "b_splits": feature_list([int64_feature([0, 1, 4])]),
                }
            )
        )
        sequence_features = {
            "b": parsing_ops.RaggedFeature(
                value_key="b_values",
                dtype="float32",
                partitions=[RowSplits("b_splits")],
                validate=True,
            )
        }
        self._test_both(
            dict(serialized=original.SerializeToString(), sequence_features=sequence_features),
            expected_err=(
                (errors.InvalidArgumentError, ValueError),
                "Feature b: values and partitions are not aligned"
                "|.* do not form a valid RaggedTensor"
                "|Incompatible shapes|required broadcastable shapes",
            ),
        )

    def test_fixed_len_sequence_feature_zero_dim_does_not_crash(self):
        with pytest.raises((ValueError, errors.InvalidArgumentError)):
            parsing_ops.FixedLenSequenceFeature(shape=[0], dtype="float32", allow_missing=True)


class TestDecodeRaw:
    def _decode_v2(self, words, fixed_length=None, dtype=np.uint8, little_endian=True):
        return parsing_ops.decode_raw(
            [w.encode("latin-1") if isinstance(w, str) else w for w in words],
            dtype,
            little_endian=little_endian,
            fixed_length=fixed_length,
        )

    _decode_v1 = _decode_v2  # decode_raw_v1 is decode_raw without fixed_length

    def _ordinalize(self, words, fixed_length=None):
        outputs = []
        if fixed_length is None:
            fixed_length = len(words[0])
        for word in words:
            output = []
            for i in range(fixed_length):
                output.append(ord(word[i]) if i < len(word) else 0)
            outputs.append(output)
        return np.array(outputs)

    def test_decode_raw_v1_equal_length(self):
        words = ["string1", "string2"]
        assert_all_equal(self._decode_v1(words), self._ordinalize(words))

    def test_decode_raw_v2_fallback_equal_length(self):
        words = ["string1", "string2"]
        assert_all_equal(self._decode_v2(words), self._ordinalize(words))

    def test_decode_raw_v1_variable_length(self):
        with pytest.raises(errors.InvalidArgumentError):
            self._decode_v1(["string", "longer_string"])

    def test_decode_raw_v2_fallback_variable_length(self):
        with pytest.raises(errors.InvalidArgumentError):
            self._decode_v2(["string", "longer_string"])

    def test_decode_raw_v2_variable_length(self):
        words = ["string", "longer_string"]
        observed = self._decode_v2(words, fixed_length=8)
        assert_all_equal(observed, self._ordinalize(words, fixed_length=8))

    def test_decode_raw_invalid_fixed_length_size(self):
        with pytest.raises(
            (ValueError, errors.InvalidArgumentError),
            match=r"must be a multiple of|evenly divisible by",
        ):
            self._decode_v2(["1"], fixed_length=7, dtype=np.float32)

    def test_decode_raw_extended_input_bytes_little_endian(self):
        observed = self._decode_v2(["\x01\x23"], fixed_length=8, dtype=np.int32)
        assert_all_equal(observed, np.array([[0x00002301, 0]], dtype=np.int32))
        assert observed.dtype == np.int32

    def test_decode_raw_extended_input_bytes_big_endian(self):
        observed = self._decode_v2(
            [b"\x01\x23"], fixed_length=8, dtype=np.int32, little_endian=False
        )
        assert_all_equal(observed, np.array([[0x01230000, 0]], dtype=np.int32))


class TestDecodeJSONExample:
    def _test_round_trip(self, examples):
        examples = np.array(examples, dtype=np.object_)
        json_tensor = np.array(
            [json_format.MessageToJson(m) for m in examples.flatten()], dtype=object
        ).reshape(examples.shape)
        binary_val = parsing_ops.decode_json_example(json_tensor)
        if examples.shape:
            assert binary_val.shape == json_tensor.shape
            for input_example, output_binary in zip(examples.flatten(), binary_val.flatten()):
                output_example = example()
                output_example.ParseFromString(output_binary)
                assert output_example == input_example
        else:
            output_example = example()
            output_example.ParseFromString(binary_val.item())
            assert output_example == examples.item()

    def test_empty_tensor(self):
        self._test_round_trip([])
        self._test_round_trip([[], [], []])

    def test_empty_examples(self):
        self._test_round_trip([example(), example(), example()])

    def test_dense_features_scalar(self):
        self._test_round_trip(example(features=features({"a": float_feature([1, 1, 3])})))

    def test_dense_features_vector(self):
        self._test_round_trip(
            [
                example(features=features({"a": float_feature([1, 1, 3])})),
                example(features=features({"a": float_feature([-1, -1, 2])})),
            ]
        )

    def test_dense_features_matrix(self):
        self._test_round_trip(
            [
                [example(features=features({"a": float_feature([1, 1, 3])}))],
                [example(features=features({"a": float_feature([-1, -1, 2])}))],
            ]
        )

    def test_sparse_features(self):
        self._test_round_trip(
            [
                example(features=features({"st_c": float_feature([3, 4])})),
                example(features=features({"st_c": float_feature([])})),
                example(features=features({"st_d": feature()})),
                example(
                    features=features(
                        {"st_c": float_feature([1, 2, -1]), "st_d": bytes_feature([b"hi"])}
                    )
                ),
            ]
        )

    def test_serialized_containing_bytes(self):
        aname = "a"
        bname = "b*has+a:tricky_name"
        self._test_round_trip(
            [
                example(
                    features=features(
                        {aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str"])}
                    )
                ),
                example(
                    features=features(
                        {aname: float_feature([-1, -1]), bname: bytes_feature([b"b1"])}
                    )
                ),
            ]
        )

    def test_invalid_syntax(self):
        with pytest.raises(errors.InvalidArgumentError, match="Error while parsing JSON"):
            parsing_ops.decode_json_example(np.array(["{]"], dtype=object))


def make_tensor_proto(array):
    """tensor_util.make_tensor_proto of a numpy array, as upstream's tests build one: numbers in
    tensor_content."""
    return tensor_proto.TensorProto.FromString(parsing_ops.serialize_tensor(array))


class TestParseTensorOp:
    def test_to_float32(self):
        expected = np.random.rand(3, 4, 5).astype(np.float32)
        serialized = make_tensor_proto(expected).SerializeToString()
        assert_all_equal(parsing_ops.parse_tensor(serialized, "float32"), expected)

    def test_to_uint8(self):
        expected = np.random.rand(3, 4, 5).astype(np.uint8)
        serialized = make_tensor_proto(expected).SerializeToString()
        assert_all_equal(parsing_ops.parse_tensor(serialized, np.uint8), expected)

    def test_type_mismatch(self):
        expected = np.random.rand(3, 4, 5).astype(np.uint8)
        serialized = make_tensor_proto(expected).SerializeToString()
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"Type mismatch between parsed tensor \(uint8\) and dtype \(uint16\)",
        ):
            parsing_ops.parse_tensor(serialized, np.uint16)

    def test_invalid_input(self):
        with pytest.raises(
            errors.InvalidArgumentError,
            match="Could not parse `serialized` as TensorProto, base64: Ym9ndXM=",
        ):
            parsing_ops.parse_tensor("bogus", np.uint16)
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"Expected `serialized` to be a scalar, got shape: \[1\]",
        ):
            parsing_ops.parse_tensor(["bogus"], np.uint16)


class TestParseTensorVariantRegression:
    def test_malformed_variant_tensor_list_does_not_crash(self):
        outer = tensor_proto.TensorProto()
        outer.dtype = 21  # DT_VARIANT
        outer.tensor_shape.dim.add().size = 1
        v = outer.variant_val.add()
        v.type_name = "tensorflow::TensorList"
        leaf = v.tensors.add()
        leaf.dtype = 1  # DT_FLOAT
        leaf.tensor_shape.dim.add().size = 1
        with pytest.raises(errors.InvalidArgumentError):
            parsing_ops.parse_tensor(outer.SerializeToString(), "float32")
