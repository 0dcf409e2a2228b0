"""A failed native Status arrives in Python as the tf.errors-style class of its code."""

import pickle

import pytest

from swigflow import errors, pywrap_swigflow

# (code, class, TensorFlow's numeric value of that code)
CASES = [
    (errors.CANCELLED, errors.CancelledError, 1),
    (errors.UNKNOWN, errors.UnknownError, 2),
    (errors.INVALID_ARGUMENT, errors.InvalidArgumentError, 3),
    (errors.DEADLINE_EXCEEDED, errors.DeadlineExceededError, 4),
    (errors.NOT_FOUND, errors.NotFoundError, 5),
    (errors.ALREADY_EXISTS, errors.AlreadyExistsError, 6),
    (errors.PERMISSION_DENIED, errors.PermissionDeniedError, 7),
    (errors.RESOURCE_EXHAUSTED, errors.ResourceExhaustedError, 8),
    (errors.FAILED_PRECONDITION, errors.FailedPreconditionError, 9),
    (errors.ABORTED, errors.AbortedError, 10),
    (errors.OUT_OF_RANGE, errors.OutOfRangeError, 11),
    (errors.UNIMPLEMENTED, errors.UnimplementedError, 12),
    (errors.INTERNAL, errors.InternalError, 13),
    (errors.UNAVAILABLE, errors.UnavailableError, 14),
    (errors.DATA_LOSS, errors.DataLossError, 15),
    (errors.UNAUTHENTICATED, errors.UnauthenticatedError, 16),
]


@pytest.mark.parametrize(("code", "cls", "tf_value"), CASES)
def test_native_status_raises_matching_class(code, cls, tf_value):
    assert code == tf_value
    message = f"something failed at 123 in /tmp/file-{code}.tfrecord"
    with pytest.raises(cls) as info:
        pywrap_swigflow.StatusForTesting(code, message)
    error = info.value
    assert type(error) is cls
    assert isinstance(error, errors.OpError)
    assert error.error_code == code
    assert error.code == code
    assert error.message == message
    assert str(error) == message


def test_ok_status_returns_none():
    assert pywrap_swigflow.StatusForTesting(errors.OK, "ignored") is None


def test_unknown_code_is_still_an_op_error_with_its_code():
    with pytest.raises(errors.OpError) as info:
        pywrap_swigflow.StatusForTesting(99, "from the future")
    assert type(info.value) is errors.OpError
    assert info.value.error_code == 99


def test_unicode_message_survives():
    with pytest.raises(errors.NotFoundError, match=r"données/é\.tfrecord"):
        pywrap_swigflow.StatusForTesting(errors.NOT_FOUND, "no such file: données/é.tfrecord")


@pytest.mark.parametrize(("code", "cls", "tf_value"), CASES)
def test_code_class_lookups_are_inverse(code, cls, tf_value):
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code


def test_lookups_reject_unknowns():
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(errors.OK)
    with pytest.raises(KeyError):
        errors.error_code_from_exception_type(ValueError)


def test_errors_pickle_exactly():
    error = errors.DataLossError("truncated record at 557053 in a.tfrecord")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is errors.DataLossError
    assert copy.message == error.message
    assert copy.error_code == errors.DATA_LOSS


def test_subclasses_construct_like_tensorflow():
    error = errors.InvalidArgumentError("bad shape")
    assert error.error_code == errors.INVALID_ARGUMENT
    assert errors.OpError("plain").error_code == errors.UNKNOWN
