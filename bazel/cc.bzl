"""Macros for swigflow's own C++ targets: one warning policy and one include layout.

Headers under native/<concept>/ are included as "swigflow/<concept>/<name>.h", both inside the
repository and from the headers the wheel ships (see transitive_hdrs.bzl).
"""

load("@rules_cc//cc:defs.bzl", "cc_library", "cc_test")

SWIGFLOW_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]

def swigflow_cc_library(name, copts = [], **kwargs):
    cc_library(
        name = name,
        copts = SWIGFLOW_COPTS + copts,
        include_prefix = "swigflow",
        strip_include_prefix = "/native",
        **kwargs
    )

def swigflow_cc_test(name, deps = [], copts = [], **kwargs):
    cc_test(
        name = name,
        copts = SWIGFLOW_COPTS + copts,
        deps = deps + ["@com_google_googletest//:gtest_main"],
        **kwargs
    )
