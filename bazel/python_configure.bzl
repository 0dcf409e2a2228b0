"""Repository rule that pins one Python interpreter for the whole build (TF's python_configure shape).

From PYTHON_BIN_PATH (written into .bazelrc.user by ./configure) it derives:
  :python_headers   Python.h and friends, for the SWIG wrapper and its bindings, limited to the
                    stable ABI of `limited_api` (Py_LIMITED_API): the one extension module then
                    loads in every CPython from that version on;
  :numpy_headers    numpy's C API headers;
  :py_toolchain     a py_runtime_pair toolchain, so py_test runs under this interpreter;
  :python3          a launcher for build scripts (the wheel builder), so setup.py sees the same
                    interpreter that decides the wheel's tags.
"""

_NOT_CONFIGURED = """swigflow: Python is not configured for Bazel (PYTHON_BIN_PATH is unset).
Run ./configure in the repository root first; it writes .bazelrc.user."""

# Asked of the interpreter once per fetch; sysconfig rather than distutils (gone in Python 3.12).
_PROBE = """
import json, sys, sysconfig
try:
    import numpy
    numpy_include = numpy.get_include()
except ImportError:
    numpy_include = ""
print(json.dumps({
    "include": sysconfig.get_paths()["include"],
    "numpy_include": numpy_include,
    "version": "%d.%d" % sys.version_info[:2],
}))
"""

_BUILD = """load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    defines = ["Py_LIMITED_API={limited_api}"],
    includes = ["python_include"],
)

cc_library(
    name = "numpy_headers",
    hdrs = glob(["numpy_include/**/*.h"]),
    includes = ["numpy_include"],
    deps = [":python_headers"],
)

py_runtime(
    name = "py3_runtime",
    interpreter_path = "{python}",
    python_version = "PY3",
    # The launcher stub itself is Python; without this it asks for `python` on the strict PATH.
    stub_shebang = "#!{python}",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "py_toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

sh_binary(
    name = "python3",
    srcs = ["python3.sh"],
)
"""

def _fail(message):
    fail("swigflow: python_configure: %s\nRun ./configure to (re)create the virtual environment." % message)

def _hex_byte(n):
    digits = "0123456789abcdef"
    return digits[n // 16] + digits[n % 16]

def _python_configure_impl(repository_ctx):
    python = repository_ctx.os.environ.get("PYTHON_BIN_PATH", "")
    if not python:
        fail(_NOT_CONFIGURED)
    if not repository_ctx.path(python).exists:
        _fail("PYTHON_BIN_PATH=%s does not exist" % python)
    result = repository_ctx.execute([python, "-c", _PROBE])
    if result.return_code != 0:
        _fail("%s failed to report its configuration:\n%s" % (python, result.stderr))
    info = json.decode(result.stdout)
    if not info["numpy_include"]:
        _fail("numpy is not installed for %s" % python)
    floor = [int(part) for part in repository_ctx.attr.limited_api.split(".")]
    if [int(part) for part in info["version"].split(".")] < floor:
        _fail("%s is Python %s; the build needs %s or later (its stable ABI)" %
              (python, info["version"], repository_ctx.attr.limited_api))
    if not repository_ctx.path(info["include"] + "/Python.h").exists:
        _fail("no Python.h in %s (install the Python development headers)" % info["include"])

    repository_ctx.symlink(info["include"], "python_include")
    repository_ctx.symlink(info["numpy_include"], "numpy_include")

    # A launcher rather than a symlink: a venv's interpreter finds its pyvenv.cfg only by its own path.
    repository_ctx.file("python3.sh", '#!/bin/sh\nexec "%s" "$@"\n' % python, executable = True)
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", _BUILD.format(
        python = python,
        limited_api = "0x%s%s0000" % (_hex_byte(floor[0]), _hex_byte(floor[1])),
    ))
    repository_ctx.file("defs.bzl", 'PYTHON_BIN_PATH = "%s"\nPYTHON_VERSION = "%s"\n' % (python, info["version"]))

python_configure = repository_rule(
    implementation = _python_configure_impl,
    attrs = {
        "limited_api": attr.string(
            mandatory = True,
            doc = "The oldest CPython (major.minor) whose stable ABI the extension targets.",
        ),
    },
    environ = ["PYTHON_BIN_PATH"],
    local = True,
    doc = "Python headers, numpy headers and a py toolchain from the interpreter in PYTHON_BIN_PATH.",
)
