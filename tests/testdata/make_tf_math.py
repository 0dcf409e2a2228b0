"""Writes tests/testdata/tf_math/golden.json: what TensorFlow 2.21 gives for the tf.math ops
swigflow.math implements and for tf.nn's cross-entropy losses (values, dtypes, first and second
derivatives, and errors).

Each case is Python source over `M` (the math module), `C` (makes a tensor of an array),
`grads` (defined below: first and second derivatives through nested tapes), `np`, and
CAST, RESHAPE, TRANSPOSE, ONE_HOT, WHERE, BROADCAST_TO, STACK, UNSTACK and COMPLEX (tf.cast,
tf.reshape, ...). TensorFlow
runs it with M = tf.math and NN = tf.nn; tests/python/test_math.py runs the same source with
swigflow.math and swigflow.nn.
`ml_dtypes` (TensorFlow's own dependency) gives the bfloat16 arrays. Run once in a throwaway
venv with tensorflow-cpu (the tests need neither TF nor this script):

    python tests/testdata/make_tf_math.py
"""

import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_math", "golden.json")

# Shared inputs, defined the same way on both sides.
INPUTS = """
A = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], np.float32)
B = np.array([0.5, 4.0, -3.0], np.float32)
P = np.array([[0.5, 2.0, 9.0], [0.25, 1.5, 4.0]], np.float32)
D = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], np.float64)
I = np.array([[7, -7, 3], [2, 0, -5]], np.int32)
BF16 = ml_dtypes.bfloat16
L = np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]], np.float32)
Y = np.array([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.5]], np.float32)
K = np.array([3, 0, 1], np.int64)
G = np.array([[1.5, 2.0, 9.0], [1.25, 3.5, 4.0]], np.float32)
H = np.array([[0.5, -0.25, 0.75], [-0.9, 0.1, 0.0]], np.float32)
Z = np.array([1 + 2j, -0.5 + 1j, 0.25 - 0.75j], np.complex64)
W = np.array([0.5 - 1j, 2 + 0.5j, -1 + 0.25j], np.complex64)
"""

CASES = {
    # values
    "add_broadcast": "M.add(A, B)",
    "add_python_scalar": "M.add(A, 2)",
    "add_python_first": "M.add(2.5, B)",
    "add_ints": "M.add(I, 3)",
    "add_numpy_scalar": "M.add(A, np.float64(2.5))",
    "add_python_then_tensor": "M.add(2, C(D))",
    "add_int_overflow": "M.add(np.array([2147483647], np.int32), 1)",
    "subtract": "M.subtract(A, B)",
    "multiply": "M.multiply(A, B)",
    "multiply_float64": "M.multiply(D, D)",
    "divide": "M.divide(A, B)",
    "divide_ints": "M.divide(I, np.array([2, 2, 2], np.int32))",
    "divide_by_zero": "M.divide(A, np.zeros(3, np.float32))",
    "negative": "M.negative(I)",
    "square": "M.square(A)",
    "sqrt": "M.sqrt(P)",
    "sqrt_negative": "M.sqrt(np.array([-1.0, 0.0, 4.0], np.float32))",
    "exp": "M.exp(A)",
    "exp_float64": "M.exp(D)",
    "log": "M.log(P)",
    "log_zero": "M.log(np.array([0.0, -1.0, 1.0], np.float32))",
    "reciprocal": "M.reciprocal(P)",
    "maximum": "M.maximum(A, B)",
    "minimum": "M.minimum(A, B)",
    "maximum_nan": "M.maximum(np.array([np.nan, 1.0], np.float32), "
    "np.array([0.0, np.nan], np.float32))",
    "minimum_ints": "M.minimum(I, 0)",
    "equal": "M.equal(A, np.array([1.5, 4.0, -1.0], np.float32))",
    "add_n": "M.add_n([A, A, P])",
    "reduce_sum_all": "M.reduce_sum(A)",
    "reduce_sum_axis0": "M.reduce_sum(A, axis=0)",
    "reduce_sum_axis_neg": "M.reduce_sum(A, axis=-1, keepdims=True)",
    "reduce_sum_axes": "M.reduce_sum(A, axis=[0, 1])",
    "reduce_sum_ints": "M.reduce_sum(I, axis=1)",
    "reduce_sum_empty": "M.reduce_sum(np.zeros((0, 3), np.float32), axis=0)",
    "reduce_mean": "M.reduce_mean(A, axis=1)",
    "reduce_mean_ints": "M.reduce_mean(I, axis=0)",
    "reduce_mean_all": "M.reduce_mean(P)",
    "reduce_max": "M.reduce_max(A, axis=0)",
    "reduce_max_keepdims": "M.reduce_max(I, axis=1, keepdims=True)",
    "reduce_max_empty": "M.reduce_max(np.zeros((0,), np.float32))",
    "reshape": "RESHAPE(A, [3, -1])",
    "reshape_scalar": "RESHAPE(np.array([5.0], np.float32), [])",
    "transpose_default": "TRANSPOSE(np.arange(24, dtype=np.float32).reshape(2, 3, 4))",
    "transpose_perm": "TRANSPOSE(np.arange(24, dtype=np.float32).reshape(2, 3, 4), [1, 2, 0])",
    "cast_truncates": "CAST(np.array([-1.7, -0.5, 0.5, 2.9], np.float32), np.int32)",
    "cast_to_float64": "CAST(A, np.float64)",
    "cast_bool": "CAST(np.array([0.0, 2.0, -1.0], np.float32), np.bool_)",
    "one_hot": "ONE_HOT(np.array([0, 2, -1, 5], np.int64), 4)",
    "one_hot_axis0": "ONE_HOT(np.array([1, 0], np.int32), 3, axis=0)",
    "one_hot_values": "ONE_HOT(np.array([[1], [2]], np.int32), 3, on_value=5.0, off_value=-1.0)",
    "one_hot_dtype": "ONE_HOT(np.array([1, 0], np.int32), 2, dtype=np.int32)",
    "argmax_default_axis": "M.argmax(A)",
    "argmax_ties": "M.argmax(np.array([[1, 3, 3], [2, 2, 1]], np.int32), axis=1)",
    "argmax_int32": "M.argmax(A, axis=1, output_type=np.int32)",
    "where": "WHERE(np.array([True, False, True]), A, B)",
    "where_indices": "WHERE(np.array([[True, False], [False, True]]))",
    "broadcast_to": "BROADCAST_TO(B, [2, 3])",
    # first and second derivatives
    "grad_add": "grads(lambda a, b: M.add(M.multiply(a, a), b), C(A), C(B))",
    "grad_subtract": "grads(lambda a, b: M.subtract(M.square(a), M.multiply(b, b)), C(A), C(B))",
    "grad_multiply": "grads(lambda a, b: M.multiply(M.multiply(a, b), b), C(A), C(B))",
    "grad_divide": "grads(lambda a, b: M.divide(a, b), C(A), C(B))",
    "grad_negative": "grads(lambda a: M.negative(M.square(a)), C(A))",
    "grad_square": "grads(M.square, C(A))",
    "grad_sqrt": "grads(M.sqrt, C(P))",
    "grad_exp": "grads(M.exp, C(A))",
    "grad_log": "grads(M.log, C(P))",
    "grad_reciprocal": "grads(M.reciprocal, C(P))",
    "grad_maximum": "grads(lambda a, b: M.square(M.maximum(a, b)), C(A), C(B))",
    "grad_minimum": "grads(lambda a, b: M.square(M.minimum(a, b)), C(A), C(B))",
    "grad_maximum_ties": "grads(lambda a, b: M.maximum(a, b), C(np.array([1.0, 2.0], np.float32)), "
    "C(np.array([1.0, 3.0], np.float32)))",
    "grad_reduce_sum": "grads(lambda a: M.reduce_sum(M.square(a), axis=1), C(A))",
    "grad_reduce_mean": "grads(lambda a: M.reduce_mean(M.square(a), axis=0), C(A))",
    "grad_reduce_max": "grads(lambda a: M.reduce_max(M.square(a), axis=1), C(A))",
    "grad_reduce_max_ties": "grads(lambda a: M.reduce_max(a), "
    "C(np.array([1.0, 3.0, 3.0], np.float32)))",
    "grad_reshape": "grads(lambda a: M.square(RESHAPE(a, [3, 2])), C(A))",
    "grad_transpose": "grads(lambda a: M.multiply(TRANSPOSE(a), C(np.arange(6, dtype=np.float32)"
    ".reshape(3, 2))), C(A))",
    "grad_cast": "grads(lambda a: M.square(CAST(a, np.float64)), C(A))",
    "grad_add_n": "grads(lambda a, b: M.add_n([M.square(a), b, b]), C(A), C(P))",
    "grad_where": "grads(lambda a, b: M.square(WHERE(np.array([True, False, True]), a, b)), C(A), "
    "C(B))",
    "grad_broadcast_to": "grads(lambda b: M.square(BROADCAST_TO(b, [2, 3])), C(B))",
    "grad_float64": "grads(lambda d: M.exp(M.multiply(d, d)), C(D))",
    # the cross-entropy losses (tf.nn): values, first and second derivatives, errors
    "xent": "NN.softmax_cross_entropy_with_logits(Y, L)",
    "xent_axis0": "NN.softmax_cross_entropy_with_logits(np.transpose(Y), np.transpose(L), axis=0)",
    "xent_3d": "NN.softmax_cross_entropy_with_logits(np.stack([Y, Y]), np.stack([L, -L]))",
    "xent_float64": "NN.softmax_cross_entropy_with_logits(Y.astype(np.float64), "
    "L.astype(np.float64))",
    "xent_half": "NN.softmax_cross_entropy_with_logits(Y.astype(np.float16), L.astype(np.float16))",
    "xent_empty": "NN.softmax_cross_entropy_with_logits(np.zeros((0, 2, 4), np.float32), "
    "np.zeros((0, 2, 4), np.float32))",
    "xent_grads": "grads(lambda l, y: NN.softmax_cross_entropy_with_logits(y, l), C(L), C(Y))",
    "xent_mismatch": "NN.softmax_cross_entropy_with_logits(np.ones((2, 3), np.float32), "
    "np.ones((2, 2), np.float32))",
    "sparse_xent": "NN.sparse_softmax_cross_entropy_with_logits(K, L)",
    "sparse_xent_int32": "NN.sparse_softmax_cross_entropy_with_logits(K.astype(np.int32), L)",
    "sparse_xent_float64": "NN.sparse_softmax_cross_entropy_with_logits(K, L.astype(np.float64))",
    "sparse_xent_half": "NN.sparse_softmax_cross_entropy_with_logits(K, L.astype(np.float16))",
    "sparse_xent_high_dim": "NN.sparse_softmax_cross_entropy_with_logits("
    "np.array([[3, 2], [0, 3]]), np.arange(16, dtype=np.float32).reshape(2, 2, 4) % 5)",
    "sparse_xent_vector": "NN.sparse_softmax_cross_entropy_with_logits(np.int64(0), "
    "np.array([1.0], np.float32))",
    "sparse_xent_large_logits": "NN.sparse_softmax_cross_entropy_with_logits(K, L * 1e4)",
    "sparse_xent_grads": "grads(lambda l: NN.sparse_softmax_cross_entropy_with_logits(K, l), C(L))",
    "sparse_xent_bad_label": "NN.sparse_softmax_cross_entropy_with_logits("
    "np.array([4, 3, 0, -1]), np.ones((4, 4), np.float32))",
    "sparse_xent_rank": "NN.sparse_softmax_cross_entropy_with_logits(np.array([[0, 2]]), "
    "np.ones((3, 2), np.float32))",
    "sparse_xent_shape": "NN.sparse_softmax_cross_entropy_with_logits(np.array([0, 1]), "
    "np.ones((3, 2), np.float32))",
    "sparse_xent_scalar": "NN.sparse_softmax_cross_entropy_with_logits(np.int64(0), "
    "np.float32(1.0))",
    # activations (tf.nn) and the other native elementwise ops
    "relu6": "NN.relu6(np.array([-1.0, 0.0, 3.5, 6.0, 7.5, np.nan], np.float32))",
    "relu6_ints": "NN.relu6(np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]], np.int32))",
    "relu_ints": "NN.relu(np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]], np.int64))",
    "relu_int8": "NN.relu(np.array([-128, -1, 0, 1, 127], np.int8))",
    "bias_add_int32": "NN.bias_add(np.array([[10, 20, 30], [40, 50, 60]], np.int32), "
    "np.array([1, 2, 3], np.int32))",
    "bias_add_int8_wraps": "NN.bias_add(np.array([[120, -120]], np.int8), "
    "np.array([10, -10], np.int8))",
    "bias_add_uint16": "NN.bias_add(np.array([[1, 2], [3, 4]], np.uint16), "
    "np.array([65535, 1], np.uint16))",
    "relu_bfloat16": "NN.relu(A.astype(BF16))",
    "relu6_bfloat16": "NN.relu6(A.astype(BF16) * 5)",
    "bias_add_bfloat16": "NN.bias_add(A.astype(BF16), B.astype(BF16))",
    "bias_add_bfloat16_rounds": "NN.bias_add(np.array([[1.0, 256.0]], BF16), "
    "np.array([0.00390625, 1.0], BF16))",
    "grad_relu_bfloat16": "grads(NN.relu, C(A.astype(BF16)))",
    "leaky_relu": "NN.leaky_relu(A)",
    "leaky_relu_alpha": "NN.leaky_relu(D, alpha=0.05)",
    "leaky_relu_ints": "NN.leaky_relu(np.array([-9, 7, -5], np.int32), alpha=0.2)",
    "elu": "NN.elu(A)",
    "elu_float64": "NN.elu(D)",
    "sigmoid": "M.sigmoid(A * 3)",
    "sigmoid_float64": "M.sigmoid(D * 3)",
    "sigmoid_extremes": "M.sigmoid(np.array([-100.0, -20.0, 0.0, 20.0, 100.0], np.float32))",
    "tanh": "M.tanh(A)",
    "tanh_float64": "M.tanh(D)",
    "erf": "M.erf(A)",
    "erf_float64": "M.erf(D)",
    "erfc": "M.erfc(A * 3)",
    "grad_erfc": "grads(M.erfc, C(A))",
    "pow": "M.pow(P, np.array([2.0, 0.5, 3.0], np.float32))",
    "gelu": "NN.gelu(A)",
    "gelu_approximate": "NN.gelu(A, approximate=True)",
    "gelu_float64": "NN.gelu(D)",
    "grad_relu6": "grads(lambda a: NN.relu6(M.multiply(a, C(np.float32(4)))), C(A))",
    "grad_leaky_relu": "grads(lambda a: NN.leaky_relu(M.square(a), alpha=0.3), C(A))",
    "grad_elu": "grads(NN.elu, C(A))",
    "grad_sigmoid": "grads(M.sigmoid, C(A))",
    "grad_tanh": "grads(M.tanh, C(A))",
    "grad_erf": "grads(M.erf, C(A))",
    "grad_pow": "grads(lambda p, b: M.pow(p, b), C(P), C(np.array([2.0, 0.5, 3.0], np.float32)))",
    "grad_gelu": "grads(NN.gelu, C(A))",
    "grad_gelu_approximate": "grads(lambda a: NN.gelu(a, approximate=True), C(A))",
    "error_gelu_ints": "NN.gelu(I)",
    # A Python value first takes the tensor's dtype where TF's op converts its operands
    # together (Mul, Sub, ...); add converts x alone first (add_python_then_tensor).
    "python_first_subtract": "M.subtract(1.5, C(D))",
    "python_first_multiply": "M.multiply(1.5, C(D))",
    "python_first_multiply_int": "M.multiply(2, C(D))",
    "python_first_divide": "M.divide(1.5, C(D))",
    "python_first_pow": "M.pow(1.5, C(P.astype(np.float64)))",
    "python_first_maximum": "M.maximum(1.5, C(D))",
    "python_first_minimum": "M.minimum(1.5, C(D))",
    "python_first_equal": "M.equal(1.5, C(D))",
    # integer means: summed without overflow, divided truncating toward zero
    "mean_int8_wide": "M.reduce_mean(np.array([120, 120, 3], np.int8))",
    "mean_int16_negative": "M.reduce_mean(np.array([-1, -2], np.int16))",
    "mean_uint16_many": "M.reduce_mean(np.full(70000, 7, np.uint16))",
    "mean_uint8_axis": "M.reduce_mean(np.full((2, 300), 200, np.uint8), axis=1)",
    "mean_int8_wrapped_values": "M.reduce_mean(np.array([100, 100, 100, -128], np.int8))",
    "max_bfloat16": "M.reduce_max(np.array([1.5, -2.0, 3.25], BF16))",
    "max_bfloat16_axis": "M.reduce_max(A.astype(BF16), axis=1)",
    "argmin": "M.argmin(A)",
    "argmin_axis1": "M.argmin(A, axis=1)",
    "argmin_ints_int32": "M.argmin(I, axis=1, output_type=np.int32)",
    "argmin_nan": "M.argmin(np.array([3.0, np.nan, 1.0], np.float32))",
    "argmax_nan": "M.argmax(np.array([3.0, np.nan, 1.0], np.float32))",
    "argmin_bool": "M.argmin(np.array([True, False, False]))",
    "grad_erf_float16": "grads(M.erf, C(np.array([0.5, -1.0], np.float16)))",
    "grad_erfc_float16": "grads(M.erfc, C(np.array([0.5, -1.0], np.float16)))",
    "grad_erf_bfloat16": "grads(M.erf, C(np.array([0.5, -1.0], BF16)))",
    "grad_erfc_bfloat16": "grads(M.erfc, C(np.array([0.5, -1.0], BF16)))",
    "grad_pow_float16": (
        "grads(M.pow, C(np.array([-2.0, 0.0, 2.0], np.float16)), "
        "C(np.array([2.0, 2.0, 2.0], np.float16)))"
    ),
    # complex kernels and conjugated gradients (cwise_ops_unary_test.py's complex cases)
    "sqrt_complex": "M.sqrt(Z)",
    "exp_complex": "M.exp(Z)",
    "log_complex": "M.log(Z)",
    "reciprocal_complex": "M.reciprocal(Z)",
    "tanh_complex": "M.tanh(Z)",
    "sigmoid_complex": "M.sigmoid(Z)",
    "exp_complex128": "M.exp(Z.astype(np.complex128))",
    "conj_complex": "M.conj(Z)",
    "conj_real": "M.conj(A)",
    "grad_square_complex": "grads(M.square, C(Z))",
    "grad_multiply_complex": "grads(M.multiply, C(Z), C(W))",
    "grad_sqrt_complex": "grads(M.sqrt, C(Z))",
    "grad_exp_complex": "grads(M.exp, C(Z))",
    "grad_log_complex": "grads(M.log, C(Z))",
    "grad_reciprocal_complex": "grads(M.reciprocal, C(Z))",
    "grad_tanh_complex": "grads(M.tanh, C(Z))",
    "grad_sigmoid_complex": "grads(M.sigmoid, C(Z))",
    "grad_pow_complex": "grads(M.pow, C(Z), C(W))",
    # the other reductions, running sums and products, divide_no_nan
    "reduce_min": "M.reduce_min(A, axis=0)",
    "reduce_min_ints_keepdims": "M.reduce_min(I, axis=1, keepdims=True)",
    "reduce_min_empty": "M.reduce_min(np.zeros((0,), np.float32))",
    "reduce_prod": "M.reduce_prod(A, axis=1)",
    "reduce_prod_int_wraps": "M.reduce_prod(np.array([65536, 65537], np.int32))",
    "reduce_prod_empty": "M.reduce_prod(np.zeros((0, 2), np.float32), axis=0)",
    "reduce_prod_complex": "M.reduce_prod(Z)",
    "reduce_all": "M.reduce_all(np.array([[True, False], [True, True]]), axis=1)",
    "reduce_any": "M.reduce_any(np.array([[True, False], [False, False]]), axis=0)",
    "reduce_all_empty": "M.reduce_all(np.zeros((0,), np.bool_))",
    "reduce_any_empty": "M.reduce_any(np.zeros((0,), np.bool_))",
    "reduce_euclidean_norm": "M.reduce_euclidean_norm(A, axis=0)",
    "reduce_euclidean_norm_ints": "M.reduce_euclidean_norm(I, axis=1)",
    "reduce_euclidean_norm_complex": "M.reduce_euclidean_norm(Z)",
    "count_nonzero": "M.count_nonzero(I, axis=0)",
    "count_nonzero_keepdims_int32": "M.count_nonzero(A, keepdims=True, dtype=np.int32)",
    "count_nonzero_strings": "M.count_nonzero(np.array([b'', b'a', b'bc']))",
    "cumsum": "M.cumsum(A, axis=1)",
    "cumsum_exclusive_reverse": "M.cumsum(A, axis=1, exclusive=True, reverse=True)",
    "cumsum_negative_axis": "M.cumsum(I, axis=-2)",
    "cumprod_exclusive": "M.cumprod(P, axis=0, exclusive=True)",
    "cumprod_ints_reverse": "M.cumprod(I, axis=1, reverse=True)",
    "divide_no_nan": "M.divide_no_nan(A, np.array([0.0, 2.0, 0.0], np.float32))",
    "divide_no_nan_ints": "M.divide_no_nan(C(I), C(I))",
    "divide_no_nan_complex": "M.divide_no_nan(Z, np.array([0j, 2j, 1 + 0j], np.complex64))",
    "truediv_ints": "M.truediv(I, np.array([2, 4, -3], np.int32))",
    "floordiv": "M.floordiv(np.array([1.0, -1.0, 7.5, 7.0], np.float32), "
    "np.array([0.1, 0.3, -2.0, 0.0], np.float32))",
    "floordiv_ints": "M.floordiv(np.array([7, -7, 7, -7], np.int32), "
    "np.array([2, 2, -2, -2], np.int32))",
    "floordiv_int8_wraps": "M.floordiv(np.array([-128], np.int8), np.array([-1], np.int8))",
    "floordiv_python_first": "M.floordiv(7, np.array([2, -2], np.int32))",
    "floormod_ints": "M.floormod(np.array([7, -7, 7, -7], np.int32), "
    "np.array([2, 2, -2, -2], np.int32))",
    "floormod_floats": "M.floormod(np.array([7.5, -7.5, 7.5, -7.5, 4.0, -4.0, 4.0, -1.0], "
    "np.float32), np.array([2, 2, -2, -2, 2, 2, -2, np.inf], np.float32))",
    "mod_float64": "M.mod(D, np.array([0.75, -0.5, 0.1], np.float64))",
    "atan2": "M.atan2(np.array([1.0, -1.0, 0.0, -0.0, 2.0], np.float32), "
    "np.array([0.0, -2.0, -0.0, -1.0, np.inf], np.float32))",
    "less": "M.less(A, B)",
    "less_equal_ints": "M.less_equal(I, np.array([7, 0, 4], np.int32))",
    "greater_python_first": "M.greater(1.0, A)",
    "greater_equal": "M.greater_equal(A, np.array([1.5, -2.0, 0.5], np.float32))",
    "not_equal": "M.not_equal(A, np.array([1.5, 4.0, -1.0], np.float32))",
    "not_equal_strings": "M.not_equal(C(np.array([b'a', b'b'], object)), "
    "C(np.array([b'a', b'c'], object)))",
    "grad_floordiv": "grads(lambda a, b: M.add(M.floordiv(a, b), M.multiply(a, b)), C(A), C(P))",
    "grad_floormod": "grads(lambda a, b: M.multiply(M.floormod(a, b), a), C(A), C(P))",
    "grad_atan2": "grads(M.atan2, C(A), C(P))",
    # a zero upstream gradient meets an overflowed z * log(x): 0, as TF multiplies grad first
    "grad_pow_float16_overflow": "grads(lambda a, b: M.multiply(M.pow(a, b), "
    "np.array([0, 1], np.float16)), C(np.array([6, 2], np.float16)), "
    "C(np.array([6, 2], np.float16)))",
    "grad_atan2_float64": "grads(M.atan2, C(D), C(D * 2 + 1))",
    "sin": "M.sin(A)",
    "sin_complex": "M.sin(Z)",
    "grad_divide_complex": "grads(M.divide, C(Z), C(W))",
    "grad_sin": "grads(M.sin, C(A))",
    "grad_sin_complex": "grads(M.sin, C(Z))",
    "cos": "M.cos(A)",
    "cos_complex": "M.cos(Z)",
    "grad_cos": "grads(M.cos, C(A))",
    "grad_cos_complex": "grads(M.cos, C(Z))",
    "tan": "M.tan(A)",
    "tan_complex": "M.tan(Z)",
    "grad_tan": "grads(M.tan, C(A))",
    "grad_tan_complex": "grads(M.tan, C(Z))",
    "asin": "M.asin(H)",
    "asin_complex": "M.asin(Z)",
    "grad_asin": "grads(M.asin, C(H))",
    "grad_asin_complex": "grads(M.asin, C(Z))",
    "acos": "M.acos(H)",
    "acos_complex": "M.acos(Z)",
    "grad_acos": "grads(M.acos, C(H))",
    "grad_acos_complex": "grads(M.acos, C(Z))",
    "atan": "M.atan(A)",
    "atan_complex": "M.atan(Z)",
    "grad_atan": "grads(M.atan, C(A))",
    "grad_atan_complex": "grads(M.atan, C(Z))",
    "sinh": "M.sinh(A)",
    "sinh_complex": "M.sinh(Z)",
    "grad_sinh": "grads(M.sinh, C(A))",
    "grad_sinh_complex": "grads(M.sinh, C(Z))",
    "cosh": "M.cosh(A)",
    "cosh_complex": "M.cosh(Z)",
    "grad_cosh": "grads(M.cosh, C(A))",
    "grad_cosh_complex": "grads(M.cosh, C(Z))",
    "asinh": "M.asinh(A)",
    "asinh_complex": "M.asinh(Z)",
    "grad_asinh": "grads(M.asinh, C(A))",
    "grad_asinh_complex": "grads(M.asinh, C(Z))",
    "acosh": "M.acosh(G)",
    "acosh_complex": "M.acosh(Z)",
    "grad_acosh": "grads(M.acosh, C(G))",
    "grad_acosh_complex": "grads(M.acosh, C(Z))",
    "atanh": "M.atanh(H)",
    "atanh_complex": "M.atanh(Z)",
    "grad_atanh": "grads(M.atanh, C(H))",
    "grad_atanh_complex": "grads(M.atanh, C(Z))",
    "expm1": "M.expm1(A)",
    "expm1_complex": "M.expm1(Z)",
    "grad_expm1": "grads(M.expm1, C(A))",
    "grad_expm1_complex": "grads(M.expm1, C(Z))",
    "log1p": "M.log1p(P)",
    "log1p_complex": "M.log1p(Z)",
    "grad_log1p": "grads(M.log1p, C(P))",
    "grad_log1p_complex": "grads(M.log1p, C(Z))",
    "rsqrt": "M.rsqrt(P)",
    "rsqrt_complex": "M.rsqrt(Z)",
    "grad_rsqrt": "grads(M.rsqrt, C(P))",
    "grad_rsqrt_complex": "grads(M.rsqrt, C(Z))",
    "abs": "M.abs(I)",
    "abs_float": "M.abs(A)",
    "abs_complex": "M.abs(Z)",
    "grad_abs": "grads(lambda a: M.multiply(M.abs(a), a), C(A))",
    "grad_abs_complex": "grads(M.abs, C(Z))",
    "sign": "M.sign(np.array([-2.0, 0.0, 3.0, np.nan], np.float32))",
    "sign_ints": "M.sign(I)",
    "sign_complex": "M.sign(np.array([3 + 4j, 0j, -2j], np.complex64))",
    "grad_sign": "grads(lambda a: M.multiply(M.sign(a), M.square(a)), C(A))",
    "softplus": "M.softplus(np.array([-100.0, -1.0, 0.0, 1.0, 30.0, 100.0], np.float32))",
    "grad_softplus": "grads(M.softplus, C(A))",
    "log_sigmoid": "M.log_sigmoid(np.array([-100.0, -1.0, 0.0, 1.0, 100.0], np.float32))",
    "grad_log_sigmoid": "grads(M.log_sigmoid, C(A))",
    "asin_float64": "M.asin(D * 0.25)",
    "grad_tan_float64": "grads(M.tan, C(D))",
    "stack": "STACK([A, P])",
    "stack_axis_last": "STACK([A, P, A], axis=-1)",
    "unstack": "UNSTACK(A, axis=1)",
    "grad_stack": "grads(lambda a, p: M.square(STACK([a, p], axis=1)), C(A), C(P))",
    "grad_unstack": "grads(lambda a: M.multiply(UNSTACK(a)[1], UNSTACK(a)[0]), C(A))",
    "logical_and": "M.logical_and(np.array([True, True, False]), np.array([True, False, False]))",
    "logical_or_broadcast": "M.logical_or(np.array([[True], [False]]), np.array([False, True]))",
    "logical_xor": "M.logical_xor(np.array([True, False, True]), np.array([True, True, False]))",
    "logical_not": "M.logical_not(np.array([True, False]))",
    "is_finite": "M.is_finite(np.array([1.0, np.inf, -np.inf, np.nan], np.float32))",
    "is_inf": "M.is_inf(np.array([1.0, np.inf, -np.inf, np.nan], np.float64))",
    "is_nan": "M.is_nan(np.array([1.0, np.inf, -np.inf, np.nan], np.float16))",
    "floor": "M.floor(np.array([-1.5, -0.5, 0.5, 1.5, -0.0], np.float32))",
    "ceil": "M.ceil(np.array([-1.5, -0.5, 0.5, 1.5, -0.0], np.float64))",
    "rint": "M.rint(np.array([-1.5, -0.5, 0.5, 1.5, 2.5, 0.5000001], np.float32))",
    "round": "M.round(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.7], np.float64))",
    "round_ints": "M.round(I)",
    "complex": "COMPLEX(A, P)",
    "complex_python_imag": "COMPLEX(D, 2.0)",
    "real": "M.real(Z)",
    "imag": "M.imag(Z)",
    "real_of_real": "M.real(I)",
    "imag_of_real": "M.imag(A)",
    "angle": "M.angle(Z)",
    "angle_real": "M.angle(np.array([-1.0, 0.0, 2.0, -0.0], np.float32))",
    "polyval": "M.polyval([C(A), C(P), C(B)], C(P))",
    "polyval_empty": "M.polyval([], C(A))",
    "grad_complex": "grads(lambda a, b: M.real(M.multiply(COMPLEX(a, b), COMPLEX(b, a))), C(A), "
    "C(P))",
    "grad_real_imag": "grads(lambda z: M.add(M.square(M.real(z)), M.imag(z)), C(Z))",
    "grad_angle": "grads(M.angle, C(Z))",
    "grad_polyval": "grads(lambda x: M.polyval([C(A), C(G), C(B)], x), C(P))",
    "grad_floor": "grads(lambda a: M.add(M.floor(a), M.square(a)), C(A))",
    "grad_reduce_min": "grads(lambda a: M.reduce_min(M.square(a), axis=1), C(A))",
    "grad_reduce_prod": "grads(lambda a: M.reduce_prod(a, axis=1), C(A))",
    "grad_reduce_prod_zeros": "grads(lambda a: M.reduce_prod(a, axis=0), "
    "C(np.array([[0.0, 2.0], [3.0, 0.0], [4.0, 0.0]], np.float32)))",
    "grad_reduce_prod_all": "grads(M.reduce_prod, C(P))",
    "grad_reduce_prod_complex": "grads(M.reduce_prod, C(Z))",
    "grad_reduce_euclidean_norm": "grads(lambda a: M.reduce_euclidean_norm(a, axis=1), C(A))",
    "grad_cumsum": "grads(lambda a: M.cumsum(M.square(a), axis=1, exclusive=True), C(A))",
    "grad_cumprod": "grads(lambda a: M.cumprod(a, axis=1, reverse=True), C(P))",
    "grad_cumprod_zero": "grads(M.cumprod, C(np.array([2.0, 0.0, 3.0], np.float32)))",
    "grad_divide_no_nan": "grads(M.divide_no_nan, C(A), C(np.array([0.0, 2.0, -4.0], np.float32)))",
    # errors
    "error_dtypes": "M.add(C(A), C(D))",
    "error_reduce_all_float": "M.reduce_all(C(A))",
    "error_stack_shapes": "STACK([C(A), C(B)])",
    "error_logical_and_float": "M.logical_and(C(A), C(A))",
    "error_is_nan_int": "M.is_nan(I)",
    "error_floor_int": "M.floor(I)",
    "error_complex_dtypes": "COMPLEX(A, D)",
    "error_complex_ints": "COMPLEX(I, I)",
    "error_angle_int": "M.angle(I)",
    "error_polyval_dict": "M.polyval({}, C(A))",
    "error_abs_uint8": "M.abs(np.array([1], np.uint8))",
    "error_sign_uint8": "M.sign(np.array([1], np.uint8))",
    "error_sin_int": "M.sin(I)",
    "error_softplus_int": "M.softplus(I)",
    "error_floordiv_by_zero": "M.floordiv(I, np.array([1, 0, 1], np.int32))",
    "error_floormod_by_zero": "M.floormod(I, np.zeros(3, np.int32))",
    "error_floormod_complex": "M.floormod(Z, W)",
    "error_floormod_bool": "M.floormod(np.array([True]), np.array([True]))",
    "error_less_complex": "M.less(Z, W)",
    "error_greater_bool": "M.greater(np.array([True]), np.array([False]))",
    "error_atan2_complex": "M.atan2(Z, W)",
    "error_cumsum_axis": "M.cumsum(A, axis=2)",
    "error_min_duplicate_axes": "M.reduce_min(A, axis=[1, 1])",
    "error_dtypes_python_first": "M.add(2.5, C(I))",
    "error_add_n_shapes": "M.add_n([A, B])",
    "error_add_n_dtypes": "M.add_n([C(A), C(D)])",
    "error_shapes": "M.add(A, np.ones(4, np.float32))",
    "error_reshape": "RESHAPE(A, [4])",
    "error_reshape_two_unknown": "RESHAPE(A, [-1, -1])",
    "error_reduction_axis": "M.reduce_sum(A, axis=2)",
    "error_sqrt_int": "M.sqrt(I)",
    "error_convert_float_to_int": "M.add(I, 2.5)",
    "error_where_one_branch": "WHERE(np.array([True]), A)",
    "error_sum_duplicate_axes": "M.reduce_sum(A, axis=[0, 0])",
    "error_mean_duplicate_axes_negative": "M.reduce_mean(A, axis=[1, -1])",
    "error_max_duplicate_axes": "M.reduce_max(A, axis=[0, 0])",
    "error_pow_int_negative": "M.pow(I, np.array([[1, -1, 2], [0, 1, 2]], np.int32))",
    "error_argmin_empty": "M.argmin(np.zeros((0, 2), np.float32))",
    "error_argmin_axis": "M.argmin(B, axis=1)",
}


def grads_with(tape_class, constant):
    """grads(fn, *xs): the first derivatives of sum(fn(*xs)) by each x (inner tape), and the
    derivatives by each x of the first derivatives weighted by a fixed ramp (outer tape; a
    plain sum would often be 0, softmax gradients summing to 0); None where unconnected."""

    def ramp(g):
        shape = tuple(g.shape)
        size = int(np.prod(shape, dtype=np.int64))
        return constant((np.arange(size).reshape(shape) % 7 + 1).astype(g.dtype.name) / 4)

    def grads(fn, *xs):
        with tape_class(persistent=True) as outer:
            for x in xs:
                outer.watch(x)
            with tape_class() as inner:
                for x in xs:
                    inner.watch(x)
                y = fn(*xs)
            first = inner.gradient(y, list(xs))
        connected = [g for g in first if g is not None]
        weights = [ramp(g) for g in connected]
        second = [
            outer.gradient(connected, x, output_gradients=weights) if connected else None
            for x in xs
        ]
        return {"first": first, "second": second}

    return grads


def encode(value):
    """A result as JSON: arrays as {dtype, shape, values} (NaN and infinities as strings)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    array = value.numpy() if hasattr(value, "numpy") else value
    array = np.asarray(array)
    values = array.reshape(-1).tolist()
    if array.dtype.kind == "c":  # [real, imaginary] pairs
        values = [[v.real, v.imag] for v in values]
        values = [[x if np.isfinite(x) else repr(x) for x in v] for v in values]
    elif array.dtype.kind == "f":
        values = [v if np.isfinite(v) else repr(v) for v in values]
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": values}


def run_case(source, env):
    try:
        return {"value": encode(eval(source, env))}
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}


def main():
    import ml_dtypes
    import tensorflow as tf

    env = {
        "ml_dtypes": ml_dtypes,
        "np": np,
        "M": tf.math,
        "NN": tf.nn,
        "C": tf.constant,
        "grads": grads_with(tf.GradientTape, tf.constant),
        "CAST": tf.cast,
        "RESHAPE": tf.reshape,
        "TRANSPOSE": tf.transpose,
        "ONE_HOT": tf.one_hot,
        "WHERE": tf.where,
        "BROADCAST_TO": tf.broadcast_to,
        "STACK": tf.stack,
        "UNSTACK": tf.unstack,
        "COMPLEX": tf.complex,
    }
    exec(INPUTS, env)
    golden = {name: run_case(source, env) for name, source in CASES.items()}
    golden["_tensorflow"] = tf.__version__
    import golden_json  # beside this script

    golden_json.write(OUT, golden)


if __name__ == "__main__":
    main()
