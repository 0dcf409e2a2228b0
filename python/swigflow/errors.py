"""Exception classes mirroring ``tf.errors``; native errors arrive as these.

Every native function returns a status; a non-OK status is raised as the subclass of
:class:`OpError` for its code (``InvalidArgumentError``, ``NotFoundError``, ``DataLossError``, ...).
The codes are TensorFlow's, so ``e.error_code`` compares equal across the two libraries.
"""

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

    def __init__(self, message, error_code=UNKNOWN):
        super().__init__(message)
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        """The error message, e.g. ``"corrupted record at 16 in /data/a.tfrecord"``."""
        return self._message

    @property
    def error_code(self):
        """The integer code, one of the constants of this module."""
        return self._error_code

    # TensorFlow's name for the same thing; both are kept so ported handlers work unchanged.
    code = error_code

    def __str__(self):
        return self._message

    def __reduce__(self):
        # Subclasses take only the message; rebuilding through the factory keeps pickling exact.
        return (_exception_from_status, (self._error_code, self._message))


def _subclass(name, error_code, doc, *also):
    def init(self, message):
        OpError.__init__(self, message, error_code)

    doc += "\n\nArgs:\n    message: the error's message, naming the file and offset if any."
    namespace = {"__init__": init, "__doc__": doc, "__module__": __name__}
    return type(name, (OpError, *also), namespace)


CancelledError = _subclass("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An error of no other kind.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT, "An argument was invalid (bad shape, value, dtype)."
)
DeadlineExceededError = _subclass(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired first."
)
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A file or other entity was not found.")
AlreadyExistsError = _subclass(
    "AlreadyExistsError", ALREADY_EXISTS, "An entity to be created already exists."
)
PermissionDeniedError = _subclass(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller may not do this."
)
# Also a MemoryError: native code out of memory raises this, and `except MemoryError` catches it.
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError",
    RESOURCE_EXHAUSTED,
    "Memory, disk or another resource ran out.",
    MemoryError,
)
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state for this."
)
AbortedError = _subclass("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _subclass(
    "OutOfRangeError", OUT_OF_RANGE, "A read or seek went past the valid range (e.g. end of file)."
)
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "Not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant broke (a bug).")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _subclass(
    "DataLossError", DATA_LOSS, "Data is corrupted or truncated (bad CRC, cut-off record)."
)
UnauthenticatedError = _subclass(
    "UnauthenticatedError", UNAUTHENTICATED, "Valid credentials are missing."
)

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


def exception_type_from_error_code(error_code):
    """The class raised for ``error_code`` (``KeyError`` for OK or an unknown code).

    Args:
        error_code: a tf.errors code.

    Returns:
        The OpError subclass.

    Raises:
        KeyError: OK or an unknown code.
    """
    return _CODE_TO_EXCEPTION_CLASS[error_code]


def error_code_from_exception_type(cls):
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
