"""Entry point of every py_pytest target: runs pytest on the files given as arguments.

Bazel runs tests in a read-only runfiles tree, so pytest's cache is off; the JUnit XML goes where
Bazel collects it (XML_OUTPUT_FILE), which lets .ci/run count test cases.
"""

import os
import sys

import pytest

if __name__ == "__main__":
    sys.dont_write_bytecode = True
    args = ["-p", "no:cacheprovider", "-q", "-rs", *sys.argv[1:]]
    if os.environ.get("XML_OUTPUT_FILE"):
        args.append("--junitxml=" + os.environ["XML_OUTPUT_FILE"])
    sys.exit(pytest.main(args))
