"""Entry point of every py_pytest target: runs pytest on the files given as arguments.

Bazel runs tests in a read-only runfiles tree, so pytest's cache is off; the JUnit XML goes where
Bazel collects it (XML_OUTPUT_FILE), which lets .ci/run count test cases.
"""

import os
import sys

import pytest

if __name__ == "__main__":
    sys.dont_write_bytecode = True
    # Helpers sit next to the tests that import them (pytest 9's importlib mode does not add
    # test directories to sys.path itself).
    for test_file in sys.argv[1:]:
        if test_file.endswith(".py"):
            sys.path.insert(0, os.path.dirname(os.path.abspath(test_file)))
    args = ["-p", "no:cacheprovider", "-q", "-rs", *sys.argv[1:]]
    if os.environ.get("XML_OUTPUT_FILE"):
        args.append("--junitxml=" + os.environ["XML_OUTPUT_FILE"])
    sys.exit(pytest.main(args))
