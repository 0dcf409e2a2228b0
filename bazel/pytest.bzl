"""py_pytest: a py_test whose sources are pytest modules."""

load("@rules_python//python:defs.bzl", "py_test")

def py_pytest(name, srcs, deps = [], args = [], **kwargs):
    """Runs the pytest test modules `srcs` as one Bazel test.

    Args:
      name: the test's name.
      srcs: pytest modules (test_*.py) and helpers they import.
      deps: py_library dependencies.
      args: extra pytest arguments.
      **kwargs: passed to py_test (data, size, tags, ...).
    """
    py_test(
        name = name,
        srcs = srcs + ["//bazel:pytest_main.py"],
        main = "//bazel:pytest_main.py",
        args = args + ["$(rootpath %s)" % src for src in srcs if src.startswith("test_")],
        python_version = "PY3",
        srcs_version = "PY3",
        deps = deps,
        **kwargs
    )
