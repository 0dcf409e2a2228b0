"""Where the installed package keeps its C++ headers and libraries, like ``tf.sysconfig``.

Code that includes swigflow's headers must be compiled with the same C++ standard and the same
libstdc++ ABI as the package, and op libraries link the package's extension module
_pywrap_swigflow.so, which holds all its native code (so that their ops land in the registry the
package uses)::

    flags=$(python -c 'import swigflow.sysconfig as s
    print(*s.get_compile_flags(), *s.get_link_flags())')
    g++ -std=c++17 -shared -fPIC my_op.cc -o my_op.so $flags
    python -c 'import swigflow; swigflow.load_op_library("./my_op.so")'
"""

from __future__ import annotations

import os

from swigflow import pywrap_swigflow as _pywrap

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def get_include() -> str:
    """The directory holding ``swigflow/framework/status.h`` and the other shipped headers."""
    return os.path.join(_PACKAGE_DIR, "include")


def get_lib() -> str:
    """The directory holding the package's native libraries."""
    return _PACKAGE_DIR


def get_compile_flags() -> list[str]:
    """Compiler flags for code built against the shipped headers."""
    flags = ["-I" + get_include(), "-std=c++17"]
    abi = _pywrap.CxxAbiFlag()
    if abi >= 0:
        flags.append(f"-D_GLIBCXX_USE_CXX11_ABI={abi}")
    return flags


def get_link_flags() -> list[str]:
    """Linker flags for code built against the package's native code: the extension module
    _pywrap_swigflow.so (by file name: it has no lib prefix) and an rpath to it."""
    return ["-L" + get_lib(), "-l:_pywrap_swigflow.so", "-Wl,-rpath," + get_lib()]
