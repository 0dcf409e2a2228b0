"""Macros for swigflow's own C++ targets: one warning policy and one include layout.

Headers under native/<concept>/ are included as "swigflow/<concept>/<name>.h", both inside the
repository and from the headers the wheel ships (see transitive_hdrs.bzl).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

# Compilers' known false positives: reported, but not as errors. Named here and nowhere else.
# -Warray-bounds: GCC 12.3 and 12.4 (Debian 13's gcc-12) at -O2 take the copy of a one-element
# initializer list into a std::vector (tests/native/pipeline_test.cc) for a memcpy past its end;
# GCC 12.2 and 14 do not. Real out-of-bounds accesses are caught by CI's ASan run.
KNOWN_FALSE_POSITIVES = [
    "-Wno-error=array-bounds",
]

SWIGFLOW_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
] + KNOWN_FALSE_POSITIVES

def _headers_label(dep):
    """The header-only twin of one of our libraries; other labels stay as they are."""
    if not (dep.startswith("//native") or dep.startswith(":")):
        return dep
    if ":" in dep.split("//")[-1]:
        return dep + "_hdrs"
    return "%s:%s_hdrs" % (dep, dep.split("/")[-1])

def swigflow_cc_library(name, copts = [], hdrs = [], deps = [], visibility = None, **kwargs):
    """A C++ library under native/, plus `<name>_hdrs`: its headers alone.

    The code itself is linked once, into the extension module _pywrap_swigflow.so; the bindings
    and custom op libraries compile against the `_hdrs` twins, and custom op libraries link that
    module, so that every user of the op registry sees the same one.
    """
    cc_library(
        name = name,
        copts = SWIGFLOW_COPTS + copts,
        hdrs = hdrs,
        deps = deps,
        include_prefix = "swigflow",
        strip_include_prefix = "/native",
        visibility = visibility,
        # All of it goes into the shared library, referenced there or not: its users come later.
        alwayslink = True,
        **kwargs
    )
    cc_library(
        name = name + "_hdrs",
        hdrs = hdrs,
        deps = [_headers_label(d) for d in deps],
        include_prefix = "swigflow",
        strip_include_prefix = "/native",
        visibility = visibility,
    )

def swigflow_cc_test(name, deps = [], copts = [], **kwargs):
    """A GoogleTest test of native code, linked statically.

    The static archives we link (e.g. libdeflate) have hidden symbols, which resolve only inside
    the one object they are linked into, not across the per-library shared objects of Bazel's
    dynamic test linking.
    """
    cc_test(
        name = name,
        copts = SWIGFLOW_COPTS + copts,
        linkstatic = True,
        deps = deps + ["@com_google_googletest//:gtest_main"],
        **kwargs
    )

def swigflow_custom_op_library(name, srcs, deps = [], copts = [], **kwargs):
    """A shared library of ops and kernels for swigflow.load_op_library, built in the tree.

    It compiles against the headers only and links _pywrap_swigflow.so, so its
    REGISTER_OP / REGISTER_KERNEL go into the one registry the Python package uses.

    Args:
      name: the library's file name, e.g. "zero_out.so".
      srcs: its C++ sources.
      deps: further libraries to link into it.
      copts: extra compiler flags.
      **kwargs: passed to cc_binary (visibility, tags, ...).
    """
    if not name.endswith(".so"):
        fail("a custom op library's name ends in .so", "name")
    cc_binary(
        name = name,
        srcs = srcs,
        copts = SWIGFLOW_COPTS + copts,
        linkshared = 1,
        deps = deps + [
            "//native/framework:op_hdrs",
            "//python/swigflow:framework",
        ],
        **kwargs
    )
