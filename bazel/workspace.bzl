"""All external repositories of swigflow, declared without network access (TF's tf_workspace shape)."""

load("//bazel:debian.bzl", "debian_cc_library", "debian_repository", "debian_static_library")
load("//bazel:offline.bzl", "native_rules", "offline_coverage_tools")
load("//bazel:protoc_configure.bzl", "protoc_configure")
load("//bazel:python_configure.bzl", "python_configure")
load("//bazel:swig_configure.bzl", "swig_configure")

def swigflow_workspace():
    """Declares every external repository; called once from WORKSPACE."""

    # Rule sets at their real load paths. Declared before Bazel's implicit WORKSPACE suffix, whose
    # maybe(http_archive, ...) then finds rules_cc present and downloads nothing. @bazel_tools loads
    # exactly these rules_cc names.
    native_rules(
        name = "rules_cc",
        files = {"cc/defs.bzl": [
            "CcInfo",
            "cc_binary",
            "cc_import",
            "cc_library",
            "cc_proto_library",
            "cc_test",
            "cc_toolchain",
            "cc_toolchain_suite",
            "objc_library",
        ]},
        globals = ["CcInfo"],
    )
    native_rules(
        name = "rules_python",
        files = {"python/defs.bzl": [
            "py_binary",
            "py_library",
            "py_runtime",
            "py_test",
        ]},
    )
    native_rules(
        name = "rules_shell",
        files = {
            "shell/sh_binary.bzl": ["sh_binary"],
            "shell/sh_test.bzl": ["sh_test"],
        },
    )
    debian_repository(
        name = "rules_java",
        package = "bazel-rules-java",
        path = "/usr/share/bazel/rules/java",
    )
    offline_coverage_tools(name = "remote_coverage_tools")

    # The toolchain pieces ./configure prepared.
    python_configure(
        name = "local_config_python",
        # The stable ABI the extension keeps to: 3.11's, where the buffer protocol joined the
        # limited API. The wheel's floor: pkg/setup.py reads it from the built module.
        limited_api = "3.11",
    )
    swig_configure(name = "local_config_swig")
    protoc_configure(name = "local_config_protoc")

    # System libraries from Debian's -dev packages.
    debian_cc_library(
        name = "zlib",
        headers = ["/usr/include/zlib.h"],
        linkopts = ["-lz"],
        package = "zlib1g-dev",
        target = "zlib",
    )

    # Linked statically (the archives are position-independent): the wheel needs no system
    # libjpeg, libpng or giflib, and _pywrap_swigflow.so's version script keeps their
    # symbols hidden.
    debian_static_library(
        name = "libjpeg_turbo",
        archive = "/usr/lib/x86_64-linux-gnu/libjpeg.a",
        headers = ["/usr/include/jpeglib.h"],
        package = "libjpeg62-turbo-dev",
        redefine_syms = {"stderr": "swigflow_libc_stderr"},
        target = "jpeg",
    )
    debian_static_library(
        name = "libpng",
        archive = "/usr/lib/x86_64-linux-gnu/libpng16.a",
        headers = ["/usr/include/png.h"],
        linkopts = [
            "-lz",
            "-lm",
        ],
        package = "libpng-dev",
        redefine_syms = {"stderr": "swigflow_libc_stderr"},
        target = "png",
    )

    debian_static_library(
        name = "giflib",
        archive = "/usr/lib/x86_64-linux-gnu/libgif.a",
        headers = ["/usr/include/gif_lib.h"],
        package = "libgif-dev",
        target = "gif",
    )

    # Whole GZIP members inflated at once for random reads (native/io/seek_index.cc): about twice
    # zlib's speed. Static, hidden like the image libraries.
    debian_static_library(
        name = "libdeflate",
        alwayslink = True,
        archive = "/usr/lib/x86_64-linux-gnu/libdeflate.a",
        headers = ["/usr/include/libdeflate.h"],
        package = "libdeflate-dev",
        target = "deflate",
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
