"""All external repositories of swigflow, declared without network access (TF's tf_workspace shape)."""

load("//bazel:debian.bzl", "debian_cc_library", "debian_repository")
load("//bazel:offline.bzl", "offline_coverage_tools", "offline_rules_cc")
load("//bazel:python_configure.bzl", "python_configure")
load("//bazel:swig_configure.bzl", "swig_configure")

def swigflow_workspace():
    # Stand-ins for what Bazel's implicit WORKSPACE suffix would otherwise download.
    offline_rules_cc(name = "rules_cc")
    debian_repository(
        name = "rules_java",
        package = "bazel-rules-java",
        path = "/usr/share/bazel/rules/java",
    )
    offline_coverage_tools(name = "remote_coverage_tools")

    # The toolchain pieces ./configure prepared.
    python_configure(name = "local_config_python")
    swig_configure(name = "local_config_swig")

    # System libraries from Debian's -dev packages.
    debian_cc_library(
        name = "zlib",
        headers = ["/usr/include/zlib.h"],
        linkopts = ["-lz"],
        package = "zlib1g-dev",
        target = "zlib",
    )
    debian_cc_library(
        name = "com_google_googletest",
        headers = ["/usr/include/gtest/gtest.h"],
        linkopts = [
            "-lgtest_main",
            "-lgtest",
            "-pthread",
        ],
        package = "libgtest-dev",
        target = "gtest_main",
    )
