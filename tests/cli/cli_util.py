"""Running the command line from tests."""

import subprocess
import sys

from swigflow.cli import main


def run(capsys, *argv):
    """(exit status, stdout, stderr) of `swigflow argv...` run in this process."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def run_process(*argv):
    """The CompletedProcess of `python -m swigflow argv...`."""
    return subprocess.run(
        [sys.executable, "-m", "swigflow", *map(str, argv)], capture_output=True, text=True
    )
