"""Entry point of every py_pytest target: runs pytest on the files given as arguments.

Bazel runs tests in a read-only runfiles tree, so pytest's cache is off; the JUnit XML goes where
Bazel collects it (XML_OUTPUT_FILE), which lets .ci/run count test cases.

Each test gets a home of its own inside TEST_TMPDIR. Ray (~/.ray/auth_token), fsspec, torch,
matplotlib and pip write caches and tokens under $HOME; Bazel's sandbox mounts the real home
read-only, so a test that wrote there would fail on a fresh machine and pass only where an earlier
run outside the sandbox had left the folder behind. The real home is kept in SWIGFLOW_REAL_HOME
for the test that checks nothing reaches it (tests/tools/test_home.py).
"""

import os
import pwd
import sys

import pytest

# Variables that, when set, send a library's writes somewhere other than under $HOME; each is
# pointed into the private home so that the caller's settings cannot leak into a test either.
_HOME_DIRS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "MPLCONFIGDIR": ".config/matplotlib",
    "TORCH_HOME": ".cache/torch",
    "PIP_CACHE_DIR": ".cache/pip",
}


def private_home(tmpdir):
    """Points HOME and the per-library variables at `tmpdir`/home; returns that folder."""
    home = os.path.join(tmpdir, "home")
    os.makedirs(home, exist_ok=True)
    # Without HOME, libraries fall back to the password database's home folder, as expanduser does.
    real_home = os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir
    os.environ.setdefault("SWIGFLOW_REAL_HOME", real_home)
    os.environ["HOME"] = home
    for name, relative in _HOME_DIRS.items():
        os.environ[name] = os.path.join(home, relative)
    return home


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    if os.environ.get("TEST_TMPDIR"):
        private_home(os.environ["TEST_TMPDIR"])
    # Helpers sit next to the tests that import them (pytest 9's importlib mode does not add
    # test directories to sys.path itself).
    for test_file in sys.argv[1:]:
        if test_file.endswith(".py"):
            sys.path.insert(0, os.path.dirname(os.path.abspath(test_file)))
    args = ["-p", "no:cacheprovider", "-q", "-rs", *sys.argv[1:]]
    if os.environ.get("XML_OUTPUT_FILE"):
        args.append("--junitxml=" + os.environ["XML_OUTPUT_FILE"])
    sys.exit(pytest.main(args))
