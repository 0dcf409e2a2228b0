"""Repository rule exposing the configured SWIG binary and its Lib directory as build inputs.

./configure writes SWIG_PATH (the real binary, not PyPI's Python launcher) and SWIG_LIB (the
directory holding swig.swg, python.swg, ...) into .bazelrc.user. Declaring the Lib files as
inputs of every SWIG action means a SWIG upgrade rebuilds the wrappers.
"""

_NOT_CONFIGURED = """swigflow: SWIG is not configured for Bazel (SWIG_PATH or SWIG_LIB is unset).
Run ./configure in the repository root first; it writes .bazelrc.user."""

_BUILD = """package(default_visibility = ["//visibility:public"])

exports_files(["swig"])

# Every file of SWIG's Lib directory; the actions point SWIG_LIB at swig_lib/.
filegroup(
    name = "swig_lib",
    srcs = glob(["swig_lib/**"]),
)
"""

def _swig_configure_impl(repository_ctx):
    swig = repository_ctx.os.environ.get("SWIG_PATH", "")
    swig_lib = repository_ctx.os.environ.get("SWIG_LIB", "")
    if not swig or not swig_lib:
        fail(_NOT_CONFIGURED)
    if not repository_ctx.path(swig_lib + "/swig.swg").exists:
        fail("swigflow: SWIG_LIB=%s has no swig.swg. Run ./configure." % swig_lib)
    result = repository_ctx.execute([swig, "-version"], environment = {"SWIG_LIB": swig_lib})
    if result.return_code != 0:
        fail("swigflow: %s -version failed (%s). Run ./configure." % (swig, result.stderr.strip()))

    repository_ctx.symlink(swig, "swig")
    repository_ctx.symlink(swig_lib, "swig_lib")
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", _BUILD)

swig_configure = repository_rule(
    implementation = _swig_configure_impl,
    environ = ["SWIG_PATH", "SWIG_LIB"],
    local = True,
    doc = "The SWIG binary (`:swig`) and its Lib files (`:swig_lib`) from SWIG_PATH and SWIG_LIB.",
)
