"""Tests write nothing under the caller's $HOME: bazel/pytest_main.py gives each a private home.

A test that needs a leftover from an earlier run (Ray's ~/.ray, a cache folder) passes on the
machine that ran it before and fails on a fresh one, where Bazel's sandbox mounts the home
read-only.
The second test runs the launcher on a module that starts each library known to write there, with
a stand-in real home, and asserts that the stand-in stays empty while the private home fills.
"""

import os
import subprocess
import sys
import textwrap

import pytest

RUNFILES = os.environ.get("RUNFILES_DIR") or os.environ["TEST_SRCDIR"]
LAUNCHER = os.path.join(RUNFILES, "org_swigflow", "bazel", "pytest_main.py")

# Each block runs only where its library is installed (the extras are optional).
WRITERS = textwrap.dedent(
    """
    import importlib.util
    import os


    def test_writers():
        home = os.environ["HOME"]
        assert home.startswith(os.environ["TEST_TMPDIR"]), home
        if importlib.util.find_spec("matplotlib"):
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            plt.plot([0, 1])
            plt.savefig(os.path.join(os.environ["TEST_TMPDIR"], "plot.png"))
            assert matplotlib.get_cachedir().startswith(home)
        if importlib.util.find_spec("torch"):
            import torch.hub

            assert torch.hub.get_dir().startswith(home)
        if importlib.util.find_spec("fsspec"):
            import fsspec.config

            assert fsspec.config.conf_dir.startswith(home)
        if importlib.util.find_spec("ray"):
            import ray

            ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
            ray.shutdown()
        with open(os.path.expanduser("~/written_by_a_test"), "w") as f:
            f.write("stays in the private home")
    """
)


def test_home_is_private():
    home = os.environ["HOME"]
    assert home == os.path.join(os.environ["TEST_TMPDIR"], "home")
    assert os.path.isdir(home)
    assert os.environ["SWIGFLOW_REAL_HOME"] != home
    assert os.path.expanduser("~") == home
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "MPLCONFIGDIR", "TORCH_HOME"):
        assert os.environ[name].startswith(home + os.sep), name


def test_libraries_write_into_the_private_home(tmp_path):
    real_home = tmp_path / "real_home"
    real_home.mkdir()
    test_tmpdir = tmp_path / "test_tmpdir"
    test_tmpdir.mkdir()
    module = tmp_path / "test_writers.py"
    module.write_text(WRITERS)
    env = {
        k: v for k, v in os.environ.items() if k != "SWIGFLOW_REAL_HOME" and k != "XML_OUTPUT_FILE"
    }
    env.update(HOME=str(real_home), TEST_TMPDIR=str(test_tmpdir))
    result = subprocess.run(
        [sys.executable, LAUNCHER, str(module)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout, result.stdout
    written = sorted(
        os.path.relpath(os.path.join(d, f), real_home)
        for d, _, files in os.walk(real_home)
        for f in files
    )
    assert list(real_home.iterdir()) == [], f"written under the real home: {written}"
    assert (test_tmpdir / "home" / "written_by_a_test").is_file()
    try:
        import ray  # noqa: F401
    except ImportError:
        pytest.skip("ray is not installed; the rest of the check ran")
    assert (test_tmpdir / "home" / ".ray").is_dir()
