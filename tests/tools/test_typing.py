"""The typed public API (PEP 561): pyright --verifytypes measures how much of what the swigflow
package exports has a known type, and the score may only rise. MIN_SCORE is the ratchet: raise
it when annotations land, never lower it."""

import json
import os
import subprocess
import sys

import pytest

# Type completeness of the package, as pyright 1.1.414 reports it (97.7% on 2026-11-29; ratcheted).
MIN_SCORE = 0.97


def _package_root():
    import swigflow

    return os.path.dirname(os.path.dirname(os.path.abspath(swigflow.__file__)))


@pytest.fixture(scope="module")
def report():
    pyright, node = os.environ.get("SWIGFLOW_PYRIGHT"), os.environ.get("SWIGFLOW_NODE")
    if not pyright or not node:
        pytest.fail("SWIGFLOW_PYRIGHT/SWIGFLOW_NODE are unset: run ./configure (.bazelrc.user)")
    env = dict(os.environ, PYTHONPATH=_package_root())
    result = subprocess.run(
        [node, pyright, "--pythonpath", sys.executable, "--verifytypes", "swigflow",
         "--ignoreexternal", "--outputjson"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert result.stdout, result.stderr
    return json.loads(result.stdout)["typeCompleteness"]


def test_the_package_is_typed(report):
    assert report["packageName"] == "swigflow"
    assert report["pyTypedPath"], "no py.typed: type checkers would ignore the annotations"


def test_type_completeness_does_not_fall(report):
    score = report["completenessScore"]
    unknown = sorted(
        s["name"] for s in report["symbols"] if s["isExported"] and not s["isTypeKnown"]
    )
    print(f"type completeness {score:.1%}; first unknown: {unknown[:20]}")
    assert score >= MIN_SCORE, f"type completeness fell to {score:.1%} (ratchet {MIN_SCORE:.0%})"
