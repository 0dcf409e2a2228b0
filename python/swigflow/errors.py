"""Exception classes mirroring ``tf.errors``; native errors arrive as these.

Every native function returns a status; a non-OK status is raised as the subclass of
:class:`OpError` for its code (``InvalidArgumentError``, ``NotFoundError``, ``DataLossError``, ...).
The codes are TensorFlow's, so ``e.error_code`` compares equal across the two libraries.
"""

from __future__ import annotations

from typing import Any

from swigflow import pywrap_swigflow as _pywrap

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of swigflow's errors: a message and a ``tf.errors`` code.

    Args:
        message: the error's message.
        error_code: its tf.errors code.
    """

    def __init__(self, message: str, error_code: int = UNKNOWN) -> None:
        super().__init__(message)
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        """The error message, e.g. ``"corrupted record at 16 in /data/a.tfrecord"``."""
        return self._message

    @property
    def error_code(self) -> int:
        """The integer code, one of the constants of this module."""
        return self._error_code

    # TensorFlow's name for the same thing; both are kept so ported handlers work unchanged.
    code = error_code

    def __str__(self) -> str:
        return self._message

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take only the message; rebuilding through the factory keeps pickling exact.
        return (_exception_from_status, (self._error_code, self._message))


class CancelledError(OpError):
    """An operation was cancelled.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, CANCELLED)


class UnknownError(OpError):
    """An error of no other kind.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, UNKNOWN)


class InvalidArgumentError(OpError):
    """An argument was invalid (bad shape, value, dtype).

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, INVALID_ARGUMENT)


class DeadlineExceededError(OpError):
    """A deadline expired first.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, DEADLINE_EXCEEDED)


class NotFoundError(OpError):
    """A file or other entity was not found.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, NOT_FOUND)


class AlreadyExistsError(OpError):
    """An entity to be created already exists.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, ALREADY_EXISTS)


class PermissionDeniedError(OpError):
    """The caller may not do this.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, PERMISSION_DENIED)


# Also a MemoryError: native code out of memory raises this, and `except MemoryError` catches it.
class ResourceExhaustedError(OpError, MemoryError):
    """Memory, disk or another resource ran out.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, RESOURCE_EXHAUSTED)


class FailedPreconditionError(OpError):
    """The system is not in a state for this.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, FAILED_PRECONDITION)


class AbortedError(OpError):
    """An operation was aborted.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, ABORTED)


class OutOfRangeError(OpError):
    """A read or seek went past the valid range (e.g. end of file).

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, OUT_OF_RANGE)


class UnimplementedError(OpError):
    """Not implemented.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, UNIMPLEMENTED)


class InternalError(OpError):
    """An internal invariant broke (a bug).

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, INTERNAL)


class UnavailableError(OpError):
    """A service is unavailable.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, UNAVAILABLE)


class DataLossError(OpError):
    """Data is corrupted or truncated (bad CRC, cut-off record).

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, DATA_LOSS)


class UnauthenticatedError(OpError):
    """Valid credentials are missing.

    Args:
        message: the error's message, naming the file and offset if any.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, UNAUTHENTICATED)


_CODE_TO_EXCEPTION_CLASS = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The class raised for ``error_code`` (``KeyError`` for OK or an unknown code).

    Args:
        error_code: a tf.errors code.

    Returns:
        The OpError subclass.

    Raises:
        KeyError: OK or an unknown code.
    """
    return _CODE_TO_EXCEPTION_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """The code of an exception class of this module (``KeyError`` for any other class)."""
    for code, candidate in _CODE_TO_EXCEPTION_CLASS.items():
        if candidate is cls:
            return code
    raise KeyError(cls)


def _exception_from_status(error_code, message):
    """Called by the native layer (swig/status.i) to build the exception for a failed status."""
    cls = _CODE_TO_EXCEPTION_CLASS.get(error_code)
    if cls is None:  # a code newer than this module: still an OpError, code preserved
        return OpError(message, error_code)
    return cls(message)


_pywrap.RegisterExceptionFactory(_exception_from_status)

__all__ = (
    [name for name in dir() if name.endswith("Error")]
    + [
        "error_code_from_exception_type",
        "exception_type_from_error_code",
    ]
    + [name for name in dir() if name.isupper()]
)
