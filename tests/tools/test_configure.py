"""./configure fails early with one clear line when it cannot proceed."""

import os
import shutil
import stat
import subprocess
import sys

import pytest

CONFIGURE = os.path.join(os.environ["TEST_SRCDIR"], "org_swigflow", "configure")


def fake_command(bin_dir, name, script):
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def checkout(tmp_path):
    """A copy of configure in an empty directory, and a bin/ for fake commands."""
    shutil.copy(CONFIGURE, tmp_path / "configure")
    (tmp_path / "bin").mkdir()
    return tmp_path


def run(checkout, **env):
    base = {"PATH": f"{checkout / 'bin'}:/usr/bin:/bin", "HOME": str(checkout)}
    return subprocess.run(
        ["bash", str(checkout / "configure")],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_root_lists_missing_packages(checkout):
    fake_command(checkout / "bin", "id", "echo 1000\n")
    fake_command(checkout / "bin", "dpkg-query", "exit 1\n")  # nothing installed
    result = run(checkout)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("configure: error: missing Debian packages: bazel-bootstrap")
    assert "apt-get install -y bazel-bootstrap bazel-rules-java" in lines[0]
    assert "libgtest-dev" in lines[0] and "zlib1g-dev" in lines[0]


def test_only_missing_packages_are_named(checkout):
    fake_command(checkout / "bin", "id", "echo 1000\n")
    fake_command(
        checkout / "bin",
        "dpkg-query",
        'case "$3" in zlib1g-dev) exit 1;; *) printf "install ok installed";; esac\n',
    )
    result = run(checkout)
    assert result.returncode == 1
    assert "missing Debian packages: zlib1g-dev;" in result.stderr
    assert "bazel-bootstrap" not in result.stderr


def test_bad_python_is_reported(checkout):
    fake_command(checkout / "bin", "dpkg-query", 'printf "install ok installed"\n')
    result = run(checkout, PYTHON_BIN_PATH=str(checkout / "no-such-python"))
    assert result.returncode == 1
    assert "PYTHON_BIN_PATH" in result.stderr
    assert not (checkout / ".venv").exists()


def test_incomplete_checkout_is_reported(checkout):
    fake_command(checkout / "bin", "dpkg-query", 'printf "install ok installed"\n')
    result = run(checkout)
    assert result.returncode == 1
    assert "requirements/build.txt is missing" in result.stderr


def test_names_the_interpreter_it_picks(checkout):
    fake_command(checkout / "bin", "dpkg-query", 'printf "install ok installed"\n')
    result = run(checkout, PYTHON_BIN_PATH=sys.executable)
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    real = os.path.realpath(sys.executable)
    assert f"configure: Python {version}: {real} (PYTHON_BIN_PATH)" in result.stdout.splitlines()


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="no system Python here")
def test_a_system_python_needs_its_headers_and_venv_module(checkout):
    fake_command(checkout / "bin", "id", "echo 1000\n")
    fake_command(
        checkout / "bin",
        "dpkg-query",
        'case "$3" in python3*) exit 1;; *) printf "install ok installed";; esac\n',
    )
    result = run(checkout, PYTHON_BIN_PATH="/usr/bin/python3")
    version = subprocess.run(
        ["/usr/bin/python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    assert result.returncode == 1
    assert f"missing Debian packages: python{version}-dev python{version}-venv;" in result.stderr
