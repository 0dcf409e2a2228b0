"""tensorflow/python/eager/backprop_test.py: BackpropTest, JacobianTest and BatchJacobianTest,
for what swigflow's GradientTape has.

Adaptations: swigflow's values are numpy arrays, watched as TensorFlow watches variables (every
array an op receives, docs/differences.md), so TensorFlow's ResourceVariables are arrays here;
arithmetic written with Python's operators on tensors is written with swigflow.math (numpy's
operators are not recorded); backprop.gradients_function(f)(x) is a tape watching x.
Not translated: the tests of TensorFlow's machinery swigflow does not have: tf.function/defun,
graph mode and sessions, control flow ops (cond, while_loop), IndexedSlices and embedding
lookups, implicit_grad/make_vjp/val_and_grad_function, op attribute helpers (op_attr_type,
make_attr), devices, name scopes, MemoryChecker, recompute_grad, SparseTensor composites,
max_pooling3d; testWatchBadThing (a numpy array is a tensor here, so watching one is right);
JacobianTest's parallel_iterations and pfor variants compare TensorFlow's two Jacobian
algorithms, of which swigflow has one.
"""

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors
from swigflow.ops import GradientTape, custom_gradient, record_operation


def c(value):
    return sf.constant(value)


def test_no_op_behavior_consistent():
    """testNoOpBehaviorConsistent (NoFunction)."""
    x = c(10.0)
    x1 = sf.identity(x)
    x2 = sf.add(x, 0.0)
    x3 = sf.subtract(x, 0.0)
    x4 = sf.multiply(x, 1.0)
    with GradientTape() as t:
        t.watch([x, x1, x2, x3, x4])
        y1 = sf.multiply(x, 2.0)
        y2, y3, y4, y5 = (sf.multiply(v, 3.0) for v in (x1, x2, x3, x4))
        loss = sf.add_n([y1, y2, y3, y4, y5])
    np.testing.assert_allclose(t.gradient(loss, [x, x1, x2, x3, x4]), [2.0, 3.0, 3.0, 3.0, 3.0])


@pytest.mark.parametrize("value,expected", [(5.0, 1.0), (50.0, 100.0)])
def test_where_gradient(value, expected):
    """testWhereGradient."""
    x = c(value)
    with GradientTape() as t:
        t.watch(x)
        y = sf.where(sf.math.less(x, 10.0), x, sf.multiply(x, x))
    assert t.gradient(y, x) == expected


def test_two_targets():
    """testTwoTargets."""
    with GradientTape() as t:
        x, y = c(3.0), c(2.0)
        t.watch([x, y])
        xx, yy = sf.multiply(2.0, x), sf.multiply(3.0, y)
    dx, dy = t.gradient([xx, yy], [x, y])
    assert (dx, dy) == (2.0, 3.0)


def test_custom_gradient_empty_error():
    """testCustomGradientEmptyError: a gradient function returning too few gradients."""

    @custom_gradient
    def identity(x):
        def grad(_):
            return []  # This return value is wrong!

        return x, grad

    x = c(1.0)
    with GradientTape() as t:
        t.watch(x)
        y = identity(x)
    with pytest.raises(ValueError):
        t.gradient(y, [x])


def test_output_grad_used_in_computation():
    """testOutputGradUsedInComputation."""
    with GradientTape() as t:
        x, y = c(3.0), c(2.0)
        t.watch([x, y])
        loss = sf.multiply(x, y)
    (dx,) = t.gradient([loss, x], [x], output_gradients=[1.0, 2.0])
    assert dx == 4.0


def test_dy():
    """testDy: an output gradient of 2 through the identity function."""
    x = c(1.0)
    with GradientTape() as t:
        t.watch(x)
        y = x
    assert t.gradient(y, x, output_gradients=2.0) == 2.0


def test_gradient_integer():
    """testGradientInteger: no gradient for an integer source."""
    x = c(1)
    with GradientTape() as t:
        t.watch(x)
        y = sf.add(x, x)
    assert t.gradient(y, x) is None


def test_errors():
    """testErrors: a gradient function's exception reaches the caller."""

    @custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")

        return x, grad

    x = c(1.0)
    with GradientTape() as t:
        t.watch(x)
        y = f(x)
    with pytest.raises(RuntimeError):
        t.gradient(y, x)


def test_gradients_function_in_custom_gradient():
    """testGradientsFunctionInCustomGradient: a tape inside a custom_gradient's forward."""

    @custom_gradient
    def f(x):
        with GradientTape() as inner:
            inner.watch(x)
            square = sf.multiply(x, x)
        y = inner.gradient(square, x)

        def grad(dy):
            return [sf.multiply(2.0, dy)]

        return y, grad

    assert f(c(1.0)) == 2.0


def test_tape_no_op_gradients():
    """testTapeNoOpGradient, testTapeIdentityGradientIsIdentity,
    testTapeGradientMultiTargetOneIsSource, testTapeNoOpGradientWithMultiTargetAllSource and
    testTapeNoOpGradientWithMultiTargetMultiSource."""
    x = c(3.0)
    with GradientTape(persistent=True) as t:
        t.watch(x)
        y = x
        z = sf.identity(x)
    assert t.gradient(y, x) == 1.0
    assert t.gradient(z, x) == 1.0
    assert t.gradient([y, y], x) == 2.0
    x = c(2.0)
    with GradientTape() as t:
        t.watch(x)
        y = sf.multiply(x, x)
    assert t.gradient([x, y], x) == 5.0
    x, y = c(3.0), c(5.0)
    with GradientTape() as t:
        t.watch([x, y])
        z = sf.multiply(y, y)
    np.testing.assert_array_equal(t.gradient([x, y, z], [x, y]), [1.0, 11.0])


def test_tape_gradient_strings():
    """testTapeGradientStringTarget, testTapeNoOpGradientStringSourceAndTarget and
    testTapeNoOpGradientWithMultiTargetMultiSourceIncludeString."""
    s = sf.constant("unknown", dtype=sf.string)
    x = c(3.0)
    with GradientTape(persistent=True) as t:
        t.watch([x, s])
    assert t.gradient(s, x) is None
    assert t.gradient(s, s) is None
    x, y = c(3.0), c(5.0)
    with GradientTape() as t:
        t.watch([x, y, s])
        z = sf.multiply(y, y)
    grads = t.gradient([x, y, z, s], [x, y, s])
    np.testing.assert_array_equal(grads[:2], [1.0, 11.0])
    assert grads[2] is None


def test_tape_no_op_gradient_2_by_2():
    """testTapeNoOpGradient2By2 and testTapeNoOpGradientMultiTarget2By2."""
    a = np.full([2, 2], 2.0, np.float32)
    with GradientTape(persistent=True) as tape:
        tape.watch(a)
    np.testing.assert_array_equal(tape.gradient(a, [a])[0], np.ones([2, 2]))
    np.testing.assert_array_equal(tape.gradient([a, a], [a])[0], np.full([2, 2], 2.0))


def test_tape_stop_recording():
    """testTapeStopRecording and testTapeStopStartRecording."""
    with GradientTape() as t:
        x = c(1.0)
        with t.stop_recording():
            y = sf.multiply(x, x)
    assert t.gradient(y, x) is None
    with GradientTape(persistent=True) as t:
        x = c(1.0)
        x2 = sf.multiply(x, 2.0)  # differentiated through
        with t.stop_recording():
            y = sf.multiply(x2, x2)
        z = sf.multiply(x2, x2)
    assert t.gradient(y, x2) is None
    assert t.gradient(z, x2) == 4.0  # 2.0 if x * 2 were not recorded


def test_tape_reset():
    """testTapeReset."""
    with GradientTape() as t:
        v = c(1.0)
        loss = sf.multiply(v, v)
        t.reset()
        loss = sf.add(loss, sf.multiply(v, v))
    assert t.gradient(loss, v) == 2.0


def test_python_max():
    """testPythonMax: Python's max picks one of the sources; the others are unconnected."""
    x = [c(2.0), c(3.0), c(5.0)]
    with GradientTape() as t:
        t.watch(x)
        f = max(x)
    grad = t.gradient(f, x)
    assert f == 5.0
    assert grad[:2] == [None, None] and grad[2] == 1.0


def test_automatic_and_explicit_watched_variables():
    """testAutomaticWatchedVariables and testExplicitWatchedVariables."""
    with GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = c(1.0)
        sf.multiply(v, v)
        assert [id(w) for w in t.watched_variables()] == [id(v)]
        t.reset()
        assert len(t.watched_variables()) == 0
        # TensorFlow's `loss += v * v`; here the add would watch `loss` too (an array an op
        # receives, docs/differences.md), so the sum is left out.
        sf.multiply(v, v)
        assert [id(w) for w in t.watched_variables()] == [id(v)]
    with GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = c(1.0)
        t.watch(v)
        assert [id(w) for w in t.watched_variables()] == [id(v)]
        t.reset()
        assert len(t.watched_variables()) == 0
        t.watch(v)
        assert [id(w) for w in t.watched_variables()] == [id(v)]


def test_gradient_none():
    """testGradientNone: the cross-entropy's second output gets no gradient."""
    logits = np.array([[0.0, 0.0]], np.float32)
    labels = np.array([[1.0, 0.0]], np.float32)
    with GradientTape() as t:
        t.watch(logits)
        loss = sf.reduce_mean(
            sf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels), [0]
        )
    np.testing.assert_array_equal(t.gradient(loss, logits), [[-0.5, 0.5]])


def test_gradient_within_tape_block():
    """testGradientWithinTapeBlock."""
    v1 = c(1.0)
    for persistent in (False, True):
        with GradientTape(persistent=persistent) as t:
            loss = sf.multiply(2.0, v1)
            grad = t.gradient(loss, v1)
        assert grad == 2.0


def test_nested_self_contexts():
    """testNestedSelfContexts."""
    with GradientTape() as t, pytest.raises(ValueError), t:
        pass


def test_second_grad():
    """testSecondGrad: the cross-entropy's gradient by one-element logits is constant."""
    f = np.array([[0.1]], np.float32)
    labels = np.array([[0.0]], np.float32)
    with GradientTape() as outer:
        outer.watch(f)
        with GradientTape() as inner:
            inner.watch(f)
            x = sf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=f)
            x = sf.reduce_sum(x, [0])
        grad = sf.reduce_sum(inner.gradient(x, f), [0])
    np.testing.assert_array_equal(outer.gradient(grad, f), [[0.0]])


def test_watching_is_tape_local():
    """testWatchingIsTapeLocal (watch_accessed_variables=False, as TensorFlow's non-trainable
    variables are not watched automatically)."""
    x1, x2 = c(2.0), c(2.0)
    with GradientTape(watch_accessed_variables=False) as tape1:
        with GradientTape(watch_accessed_variables=False) as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = sf.math.pow(x1, 3.0)
            z = sf.math.pow(x2, 2.0)
            dy, dz = tape2.gradient([y, z], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    assert d2y == 12.0
    assert d2z is None


@pytest.mark.parametrize("fn,at,expected", [(lambda x: sf.multiply(x, x), 3.0, 2.0),
                                            (sf.exp, 0.0, 1.0)], ids=["square", "exp"])  # fmt: skip
def test_grad_grad(fn, at, expected):
    """testGradGrad and testGradGradExp."""
    x = c(at)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        dy = inner.gradient(y, x)
    assert outer.gradient(dy, x) == expected


def test_stop_gradient_and_argmax():
    """testStopGradient and testArgmax: no gradient through argmax."""
    x = np.array([0.0], np.float32)
    for fn in (lambda v: sf.stop_gradient(sf.argmax(v)), sf.argmax):
        with GradientTape() as t:
            t.watch(x)
            y = fn(x)
        assert t.gradient(y, x) is None


def test_cpu_and_empty_params():
    """testCPU and testEmptyParams."""
    x = c(1.0)
    with GradientTape() as t:
        t.watch(x)
        y = sf.add(sf.add(x, c(2.0)), c(3.0))
    assert t.gradient(y, x) == 1.0
    x, y = c(1.0), c(2.0)
    with GradientTape() as t:
        t.watch([x, y])
        z = sf.multiply(x, y)
    assert t.gradient(z, [x, y]) == [2.0, 1.0]


def test_gradient_tape_re_enter_context():
    """testGradientTapeReEnterContext."""
    g = GradientTape()
    with g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(2.0, x)
    with g:
        z = sf.multiply(2.0, y)
    assert g.gradient(target=z, sources=[x]) == [4.0]


def test_repeated_sources():
    """testGradientTapeRepeatedSource and testPersistentGradientTapeRepeatedSource."""
    with GradientTape() as g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(2.0, x)
    assert g.gradient(target=y, sources=[x, x]) == [2.0, 2.0]
    with GradientTape(persistent=True) as g:
        x, y = c(3.0), c(5.0)
        g.watch([x, y])
        z = sf.add(sf.multiply(x, x), sf.multiply(x, y))
    assert g.gradient(target=z, sources=[x, x]) == [11.0, 11.0]
    assert g.gradient(target=z, sources=[y, x]) == [3.0, 11.0]


def test_gradient_tape_structure():
    """testGradientTapeStructure: the gradients come back in the sources' structure."""
    with GradientTape(persistent=True) as g:
        x1, x2, x3 = c(3.0), c(3.1), c(3.2)
        g.watch([x1, x2, x3])
        y = sf.add_n([x1, sf.multiply(2.0, x2), sf.multiply(3.0, x3)])
    assert g.gradient(y, x1) == 1.0
    assert g.gradient(y, (x1,)) == (1.0,)
    assert g.gradient(y, (x1, x2)) == (1.0, 2.0)
    assert g.gradient(y, [(x1, x2), (x2, x3)]) == [(1.0, 2.0), (2.0, 3.0)]
    assert g.gradient(y, (x1, x2, [x1, x3])) == (1.0, 2.0, [1.0, 3.0])
    assert g.gradient(y, [x1, {"x2": x2, "x3": x3}]) == [1.0, {"x2": 2.0, "x3": 3.0}]


def test_gradient_tape():
    """testGradientTape: an inner tape's gradient used in the outer computation."""
    with GradientTape() as g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(x, x)
        with GradientTape() as gg:
            gg.watch(y)
            z = sf.multiply(2.0, y)
        inner_grad = gg.gradient(z, [y])[0]
        assert inner_grad == 2.0
        y = sf.add(y, inner_grad)
    assert g.gradient(y, [x])[0] == 6.0


def test_gradient_tape_called_on_constant_target():
    """testGadientTapeCalledOnConstantTarget."""
    with GradientTape() as g:
        x, y = np.array([3.0], np.float32), np.array([2.0], np.float32)
    assert g.gradient(x, y) is None


def test_gradient_called_multiple_times():
    """testGradientTapeGradientCalledMultipleTimes."""
    with GradientTape() as g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(x, x)
        z = sf.multiply(y, y)
    g.gradient(z, [x])
    # TensorFlow 2.21's words (the test's regex is an older message)
    with pytest.raises(
        RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"
    ):
        g.gradient(y, [x])


def test_persistent_tape():
    """testPersistentTape."""
    with GradientTape(persistent=True) as g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(x, x)
        z = sf.multiply(y, y)
    assert g.gradient(z, [x])[0] == 4 * 3 * 3 * 3
    assert g.gradient(y, [x])[0] == 2 * 3


def test_higher_order_gradient():
    """testHigherOrderGradient: gradients of gradients on one persistent tape."""
    with GradientTape(persistent=True) as g:
        x = c(3.0)
        g.watch(x)
        y = sf.math.pow(x, 3.0)
        dy_dx = g.gradient(y, x)
        d2y_dx2 = g.gradient(dy_dx, x)
    d3y_dx3 = g.gradient(d2y_dx2, x)
    assert (y, dy_dx, d2y_dx2, d3y_dx3) == (27.0, 27.0, 18.0, 6.0)


def test_persistent_nested_tape():
    """testPersistentNestedTape."""
    with GradientTape(persistent=True) as g:
        x = c(3.0)
        g.watch(x)
        y = sf.multiply(x, x)
        with GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = sf.multiply(2.0, y)
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
            assert inner_grad == 2.0
        y = sf.add(y, inner_grad)
        del gg
    assert g.gradient(y, [x])[0] == 6.0
    assert g.gradient(z, [x])[0] == 12.0


def test_gradient_tape_variable_and_nested_gradients():
    """testGradientTapeVariable and testNestedGradients."""
    v = c(1.0)
    with GradientTape() as g:
        y = sf.multiply(v, v)
    assert g.gradient(y, [v])[0] == 2.0
    x = c(3.0)
    with GradientTape() as g:
        g.watch(x)
        y = sf.multiply(x, x)
        z = sf.multiply(y, y)
    assert g.gradient(z, [x, y]) == [108.0, 18.0]


def test_unconnected_gradients():
    """testUnconnectedGradientsDefault, testUnconnectedGradientsZeros,
    testUnconnectedGradientsVariablesZeros and testUnknownUnconnectedGradientsValueGiven."""
    x, y = c(1.0), c(3.0)
    with GradientTape(persistent=True) as g:
        g.watch([x, y])
        z = sf.multiply(y, 2.0)
    assert g.gradient(z, x) is None
    x = np.ones([2, 2], np.float32)
    with GradientTape() as g:
        g.watch([x, y])
        z = sf.multiply(y, 2.0)
    np.testing.assert_array_equal(g.gradient(z, x, unconnected_gradients="zero"), np.zeros([2, 2]))
    with GradientTape() as g:
        g.watch([x, y])
        z = sf.multiply(y, 2.0)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
        g.gradient(z, x, unconnected_gradients="nonsense")


def test_unconnected_gradients_through_stop_gradient_zeros():
    """testUnconnectedGradientsNestedDefunZeros, without the functions: stop_gradient's output
    gets zeros."""
    x = c(1.0)
    with GradientTape() as g:
        g.watch(x)
        k = sf.add(x, 2.0)
        y = sf.stop_gradient(sf.multiply(k, k))
    assert g.gradient(y, x, unconnected_gradients="zero") == 0.0


def test_invalid_record_operation_message():
    """testInvalidRecordOperationMessage."""
    y, x = c(2.0), c(1.0)
    with GradientTape() as g:
        g.watch(x)
        record_operation("InvalidBackprop", [y], [x], lambda dy: [])
    with pytest.raises(errors.InternalError, match=r"InvalidBackprop.*too few gradients"):
        g.gradient(y, x)


def test_mul_type_args_and_partial():
    """testMulType, testArgsGradientFunction and testPartial."""
    x = c(3.0)
    with GradientTape() as t:
        t.watch(x)
        y = sf.multiply(x, x)
    assert t.gradient(y, x) == 6.0
    a, b = c(2.0), c(1.0)
    with GradientTape() as t:
        t.watch(b)
        y = sf.multiply(a, b)
    assert t.gradient(y, b) == 2.0


def test_return_same_thing_and_output():
    """testReturnSameThing and testOutput: several outputs' gradients add."""
    x = c(1.0)
    with GradientTape() as t:
        t.watch(x)
        outputs = (x, sf.multiply(2.0, x))
    assert t.gradient(outputs, x) == 3.0
    x = np.array([0.0, 1.0, 2.0], np.float32)
    with GradientTape() as t:
        t.watch(x)
        outputs = (sf.add(x, 2.0), sf.multiply(x, x))
    np.testing.assert_array_equal(t.gradient(outputs, x), [1.0, 3.0, 5.0])


def test_exception_safety():
    """testExceptionSafety: a tape left by an exception does not disturb the next one."""

    def f(unused_x):
        raise ValueError()

    x = c(1.0)
    with pytest.raises(ValueError), GradientTape() as t:
        t.watch(x)
        f(x)
    with GradientTape() as t:
        t.watch(x)
        y = sf.multiply(x, x)
    assert t.gradient(y, x) == 2.0


def test_multi_value_preserves_if_not_diffed_against():
    """testMultiValuePreservesIfNotDiffedAgainst: conv2d by its input only."""
    i = np.array([[[[1.0]]]], np.float32)
    k = np.array([[[[2.0]]]], np.float32)
    with GradientTape() as t:
        t.watch(i)
        y = sf.nn.conv2d(i, k, [1, 1, 1, 1], "SAME")
    np.testing.assert_array_equal(t.gradient(y, i), [[[[2.0]]]])


@pytest.mark.parametrize("x", [1.0, [[1.0]]], ids=["scalar", "matrix"])
def test_same_object_for_multiple_arguments(x):
    """testSameObjectForMultipleArguments: multiply(x, x) by both arguments."""
    x = sf.constant(x)
    with GradientTape() as t:
        t.watch(x)
        y = sf.multiply(x, x)
    # both arguments are the one array: TensorFlow's gradients_function gives d/dx of each
    # argument position; a tape by the array gives their sum
    np.testing.assert_array_equal(t.gradient(y, x), np.full(np.shape(x), 2.0))


def test_custom_gradients():
    """testCustomGradient (a training loop), testCustomGradientIdentity and
    testCustomGradientInEagerAndGraph."""

    @custom_gradient
    def my_mul(x, y):
        def grad(dr):
            return [sf.multiply(dr, y), sf.multiply(dr, x)]

        return sf.multiply(x, y), grad

    x, losses = c(2.0), []
    for _ in range(5):
        with GradientTape() as t:
            t.watch(x)
            loss = my_mul(c(2.0), x)
        losses.append(float(loss))
        x = sf.subtract(x, sf.multiply(0.25, t.gradient(loss, x)))
    assert losses == [4.0, 3.0, 2.0, 1.0, 0.0]

    @custom_gradient
    def my_identity(x):
        return x, lambda dresult: [sf.multiply(2.0, dresult)]

    @custom_gradient
    def f(x):
        return sf.multiply(x, x), lambda dy: [sf.multiply(4.0, dy)]

    for fn, expected in ((my_identity, 2.0), (f, 4.0)):
        x = c(1.0)
        with GradientTape() as t:
            t.watch(x)
            y = fn(x)
        assert t.gradient(y, x) == expected


def test_selectively_watch_variables():
    """testSelectivelyWatchVariables."""
    x1, x2 = c(1.0), c(1.0)
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x2)
        y = sf.math.pow(x1, 2.0)
        z = sf.math.pow(x2, 3.0)
    assert len(tape.watched_variables()) == 1 and tape.watched_variables()[0] is x2
    dy, dz = tape.gradient([y, z], [x1, x2])
    assert dy is None
    assert dz == 3.0


def test_differentiating_scalar_cache():
    """testDifferentiatingScalarCache and testVariablesAndConstantsProduceTheSameGradients:
    equal values are different sources."""
    with GradientTape() as g:
        x1, x2 = c(3.0), c(3.0)
        g.watch([x1, x2])
        y = sf.add(x1, x2)
    assert g.gradient(target=y, sources=[x1]) == [1.0]
    a, b = c(2.0), c(2.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        y = sf.math.pow(a, 3.0)
        z = sf.math.pow(b, 2.0)
    assert tape.gradient([y, z], [a, b]) == [12.0, 4.0]


def test_override_second_order_with_custom_gradient():
    """testOverrideSecondOrderWithCustomGradient."""

    @custom_gradient
    def f(x):
        def first_order_grad(dz):
            @custom_gradient
            def first_order_custom(unused_x):
                return c(-1.1), lambda ddz: sf.multiply(-2.1, ddz)

            return sf.multiply(dz, first_order_custom(x))

        return sf.add(x, 10.0), first_order_grad

    x = c(1.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            d = sf.math.pow(f(x), 4.0)
        dd = inner.gradient(d, x)
        fx = float(f(x))
        np.testing.assert_allclose(dd, 4.0 * fx**3 * -1.1, rtol=1e-6)
    np.testing.assert_allclose(
        outer.gradient(dd, x), 3.0 * 4.0 * fx**2 * -1.1 * -1.1 + 4.0 * fx**3 * -2.1, rtol=1e-6
    )


def test_watched_variables_after_gradient_calls():
    """testWatchedVariablesAfterNonPersistentGradientCall,
    testWatchedVariablesOnlyHasVariablesFromLastTape and testWatchedVariablesRespectReset."""
    with GradientTape() as tape:
        x = c(1.0)
        tape.watch(x)
    tape.gradient(x, x)
    assert tape.watched_variables() == (x,)
    with GradientTape() as tape:
        x = c(1.0)
        tape.watch(x)
    with GradientTape() as tape:
        z = c(2.0)
        tape.watch(z)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)
    with GradientTape() as tape:
        x = c(1.0)
        tape.watch(x)
        assert tape.watched_variables() == (x,)
        tape.reset()
        z = c(2.0)
        tape.watch(z)
        assert tape.watched_variables() == (z,)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)


# --- JacobianTest -------------------------------------------------------------------------


def test_jacobian():
    """JacobianTest.testWhileLoop (and testPfor: one algorithm here)."""
    with GradientTape(persistent=True) as g:
        x, y = c([1.0, 2.0]), c([3.0, 4.0])
        g.watch([x, y])
        z = sf.multiply(sf.multiply(x, x), y)
    jacobian = g.jacobian(z, [x, y])
    np.testing.assert_array_equal(jacobian[0], np.diag(2 * x * y))
    np.testing.assert_array_equal(jacobian[1], np.diag(x * x))


def test_jacobian_needs_a_persistent_tape():
    """JacobianTest.testPersistentTape."""
    with GradientTape() as g:
        x = c([1.0, 2.0])
        g.watch(x)
        y = sf.multiply(x, x)
    with pytest.raises(RuntimeError, match="persistent"):
        g.jacobian(y, x, experimental_use_pfor=False)


def test_nested_jacobian():
    """JacobianTest.test_nested_jacobian: a batch Jacobian of a Jacobian."""
    x = np.ones((10, 2), np.float32)
    with GradientTape(persistent=True) as g:
        g.watch(x)
        with GradientTape(persistent=True) as gg:
            gg.watch(x)
            y = sf.reduce_sum(sf.square(x))
        dy_x = gg.jacobian(y, x)
    np.testing.assert_allclose(g.batch_jacobian(dy_x, x), [[[2.0, 0.0], [0.0, 2.0]]] * 10)


# --- BatchJacobianTest --------------------------------------------------------------------


def test_batch_jacobian():
    """BatchJacobianTest.testWhileLoop (and testPfor)."""
    with GradientTape(persistent=True) as g:
        x = c([[1.0, 2.0], [3.0, 4.0]])
        y = c([[3.0, 4.0], [5.0, 6.0]])
        g.watch(x)
        z = sf.multiply(sf.multiply(x, x), y)
    answer = np.stack([np.diag(2 * x[0] * y[0]), np.diag(2 * x[1] * y[1])])
    np.testing.assert_array_equal(g.batch_jacobian(z, x), answer)


def test_batch_jacobian_needs_a_persistent_tape():
    """BatchJacobianTest.testPersistentTape."""
    with GradientTape() as g:
        x = c([[1.0, 2.0]])
        g.watch(x)
        y = sf.multiply(x, x)
    with pytest.raises(RuntimeError, match="persistent"):
        g.batch_jacobian(y, x, experimental_use_pfor=False)


def test_batch_jacobian_bad_shapes():
    """BatchJacobianTest.testBadShape, testBadInputRank and testBadOutputRank."""
    rng = np.random.default_rng(0)
    x = rng.random([2, 3]).astype(np.float32)
    with GradientTape() as g:
        y = sf.reshape(sf.transpose(sf.broadcast_to(x, [2, 2, 3]), [1, 0, 2]), [4, 3])
    with pytest.raises(ValueError, match="Need first dimension"):
        g.batch_jacobian(y, x)
    for x_shape, y_shape in (([2], [2, 2]), ([2, 2], [2])):
        x = rng.random(x_shape).astype(np.float32)
        with GradientTape() as g:
            y = rng.random(y_shape).astype(np.float32)
        with pytest.raises(ValueError, match="must have rank at least 2"):
            g.batch_jacobian(y, x)


def test_batch_jacobian_degenerate_shape():
    """BatchJacobianTest.test_degenerate_shape."""
    x = np.zeros([1, 0], np.float32)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = sf.math.pow(x, 2.0)
    assert tape.batch_jacobian(y, x).shape == (1, 0, 0)
