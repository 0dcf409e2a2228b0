"""swigflow.load_op_library: ops and kernels from a user's shared library, like
tf.load_op_library.

The library is built against the installed package (see swigflow.sysconfig) and links the
extension module _pywrap_swigflow.so, where all of swigflow's native code is, so its REGISTER_OP /
REGISTER_KERNEL register into the same registry that swigflow.ops.run uses.
"""

from __future__ import annotations

import ctypes
import os
import types

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap

_LOADED = {}


def load_op_library(library_filename: str) -> types.ModuleType:
    """Loads a shared library of ops and kernels; returns a module with one Python function per
    op it registered, generated from its OpDef as swigflow.ops.gen_nn_ops is: TensorFlow's
    snake_case name (``zero_out`` for ZeroOut), the inputs, then the attributes (those with a
    default last, as keywords), and a docstring.

    Raises:
      NotFoundError: the library cannot be loaded (missing, or a symbol it needs is missing).
      AlreadyExistsError: it was loaded before, or it registers an op or kernel that already
        exists (the library stays loaded; what it registered before the clash remains).

    Args:
        library_filename: the shared library's path.

    Returns:
        A module of the library's op functions.
    """
    path = os.path.realpath(os.fspath(library_filename))
    if path in _LOADED:
        raise errors.AlreadyExistsError(
            f"{library_filename} is already loaded: use the module load_op_library returned then"
        )
    mark = _pywrap.RegistryMark()
    try:
        handle = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        raise errors.NotFoundError(f"cannot load op library {library_filename}: {e}") from None
    problems = _pywrap.TakeRegistryErrors()
    new_ops = _pywrap.OpsSince(mark)
    _LOADED[path] = handle  # never unloaded: its kernels may be registered
    if problems:
        code, message = problems[0]
        raise errors.exception_type_from_error_code(code)(
            f"{library_filename}: {message}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        )
    # The wrappers come from the generator that writes swigflow.ops.gen_nn_ops at build time.
    source = _pywrap.PythonOpWrappers(list(new_ops), os.path.basename(path))
    module = types.ModuleType(os.path.splitext(os.path.basename(path))[0])
    module.__file__ = path
    exec(compile(source, f"<wrappers of {path}>", "exec"), module.__dict__)
    module.OP_LIST = list(new_ops)
    return module


__all__ = ["load_op_library"]
