"""Every tracked Starlark, Python and C++ file is formatted and lint-clean."""

import os
import subprocess
import sys

import pytest

# This file's runfiles link resolves into the checkout.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
VENV_BIN = os.path.dirname(sys.executable)


def tracked(predicate):
    out = subprocess.run(
        ["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    files = sorted({f for f in out.split("\0") if f and predicate(f)})
    files = [f for f in files if os.path.exists(os.path.join(ROOT, f))]
    assert files, "no files found to lint"
    return files


def check(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command[:3])} ...\n{result.stdout}{result.stderr}"


def is_starlark(path):
    name = os.path.basename(path)
    return path.endswith(".bzl") or name in ("BUILD", "BUILD.bazel", "WORKSPACE")


def test_buildifier():
    buildifier = os.environ.get("SWIGFLOW_BUILDIFIER")
    if not buildifier:
        pytest.fail("SWIGFLOW_BUILDIFIER is unset: run ./configure (it writes .bazelrc.user)")
    check([buildifier, "--lint=warn", "--mode=check", *tracked(is_starlark)])


def test_ruff_check():
    check(
        [
            os.path.join(VENV_BIN, "ruff"),
            "check",
            "--no-cache",
            *tracked(lambda f: f.endswith(".py")),
        ]
    )


def test_ruff_format():
    check(
        [
            os.path.join(VENV_BIN, "ruff"),
            "format",
            "--check",
            "--no-cache",
            *tracked(lambda f: f.endswith(".py")),
        ]
    )


def test_clang_format():
    sources = tracked(lambda f: f.endswith((".cc", ".h")))
    check([os.path.join(VENV_BIN, "clang-format"), "--dry-run", "--Werror", *sources])
