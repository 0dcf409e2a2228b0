"""The public API and the registered ops against their goldens (tests/api/golden/).

A failure here means a change to what users call: review it. An intended one is recorded with
`bazel run //tests/api:update_goldens` and committed with the change."""

import difflib
import json
import os
import subprocess
import sys

import api_golden
import pytest

from swigflow import pywrap_swigflow

HERE = os.path.dirname(os.path.abspath(__file__))


def _read(path):
    with open(path) as f:
        return f.read()


def _diff(expected, actual, name):
    return "".join(
        difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), f"golden/{name}", "now"
        )
    )


def test_registered_ops_keep_tensorflows_compatibility_rules():
    problems = pywrap_swigflow.OpIncompatibilities(_read(api_golden.ops_path()))
    assert not problems, (
        "op changes that break existing callers:\n  "
        + "\n  ".join(problems)
        + "\nKeep the op compatible (new attributes need defaults; allowed values may only grow;"
        " inputs, outputs and their types stay), or add a new op (FooV2). Only for a break that"
        f" is really intended: {api_golden.UPDATE}"
    )


def test_ops_golden_is_current():
    expected, actual = _read(api_golden.ops_path()), api_golden.ops_text()
    assert actual == expected, (
        f"the registered ops differ from golden/ops.txt (compatibly): record them with "
        f"{api_golden.UPDATE}\n" + _diff(expected, actual, "ops.txt")
    )


@pytest.mark.parametrize("module", api_golden.PUBLIC_MODULES)
def test_public_api_matches_its_golden(module):
    path = api_golden.api_path(module)
    expected = _read(path) if os.path.exists(path) else ""
    actual = api_golden.describe(module)
    assert actual == expected, (
        f"the public API of {module} changed; if intended: {api_golden.UPDATE}\n"
        + _diff(expected, actual, f"api/{module}.txt")
    )


def test_every_public_module_has_a_golden_and_no_golden_is_stale():
    names = sorted(n[: -len(".txt")] for n in os.listdir(os.path.join(api_golden.GOLDEN, "api")))
    assert names == sorted(api_golden.PUBLIC_MODULES)


def _probe(library):
    """Loads a test-only op library in a fresh process (the registry is process-wide) and
    returns what the compatibility check says against probe_v1.txt, and the signature of the
    generated wrapper."""
    script = (
        "import inspect, json, sys, swigflow\n"
        "from swigflow import pywrap_swigflow\n"
        "module = swigflow.load_op_library(sys.argv[1])\n"
        "golden = open(sys.argv[2]).read()\n"
        "print(json.dumps([pywrap_swigflow.OpIncompatibilities(golden),\n"
        "                  str(inspect.signature(module.compat_probe))]))\n"
    )
    golden = os.path.join(HERE, "testdata", "probe_v1.txt")
    done = subprocess.run(
        [sys.executable, "-c", script, os.path.join(HERE, library), golden],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_breaking_an_op_fails_the_check_with_what_broke():
    problems, _ = _probe("probe_breaking.so")
    assert problems == [
        "CompatProbe: inputs changed from (x: T) to (x: T, scale: float)",
        "CompatProbe: attr 'mode' no longer allows B",
    ]


def test_a_defaulted_attribute_and_a_new_op_pass_the_check():
    problems, signature = _probe("probe_compatible.so")
    assert problems == []
    # The wrapper generated at load time has the new attribute, defaulted, after the old ones.
    assert signature == (
        "(x: '_ArrayLike', mode: 'str' = 'A', offset: 'float' = 0.0, name: 'str | None' = None)"
        " -> '_np.ndarray'"
    )


def test_a_changed_signature_is_caught(monkeypatch):
    import swigflow.nn

    def conv2d(input, filters, strides, padding="SAME", name=None):
        """A new default for padding: a change callers would see."""

    conv2d.__module__ = "swigflow.nn"
    monkeypatch.setattr(swigflow.nn, "conv2d", conv2d)
    actual = api_golden.describe("swigflow.nn")
    assert "function conv2d(input, filters, strides, padding='SAME', name=None)" in actual
    assert actual != _read(api_golden.api_path("swigflow.nn"))
