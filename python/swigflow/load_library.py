"""swigflow.load_op_library: ops and kernels from a user's shared library, like
tf.load_op_library.

The library is built against the installed package (see swigflow.sysconfig) and links
libswigflow_framework.so, so its REGISTER_OP / REGISTER_KERNEL register into the same registry
that swigflow.ops.run uses.
"""

import ctypes
import os
import re
import types

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap
from swigflow.ops import run

_LOADED = {}


def _snake_case(name):
    """ "ZeroOut" -> "zero_out", "Conv2DBackpropInput" -> "conv2d_backprop_input" (TF's rule)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _wrapper(op_name):
    def op(*inputs, name=None, **attrs):
        del name  # TensorFlow's op name
        outputs = run(op_name, inputs, **attrs)
        return outputs[0] if len(outputs) == 1 else outputs

    op.__name__ = _snake_case(op_name)
    op.__doc__ = f"Runs the {op_name} op: inputs in order, attributes as keywords."
    return op


def load_op_library(library_filename):
    """Loads a shared library of ops and kernels; returns a module with one Python function per
    op it registered (snake_case of the op name, e.g. ``zero_out`` for ZeroOut), taking the
    inputs in order and the attributes as keywords.

    Raises:
      NotFoundError: the library cannot be loaded (missing, or a symbol it needs is missing).
      AlreadyExistsError: it was loaded before, or it registers an op or kernel that already
        exists (the library stays loaded; what it registered before the clash remains).
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
    module = types.ModuleType(os.path.splitext(os.path.basename(path))[0])
    module.__file__ = path
    module.OP_LIST = list(new_ops)
    for op_name in new_ops:
        setattr(module, _snake_case(op_name), _wrapper(op_name))
    return module


__all__ = ["load_op_library"]
