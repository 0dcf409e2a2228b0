"""Progress bars for the long commands: a tqdm bar on stderr when stderr is a terminal and tqdm
is installed (swigflow[cli]); nothing otherwise, so pipes and logs stay clean. ``--no-progress``
(before or after the command's name) turns them off."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any

from swigflow.io.gfile import PathOrFile


def add_option(parser: Any, top_level: Any = False) -> None:
    """--no-progress on `parser`. The top-level parser owns the default; a command's own flag
    only ever sets it (so ``swigflow --no-progress verify`` and ``swigflow verify
    --no-progress`` both work)."""
    parser.add_argument(
        "--no-progress",
        action="store_true",
        default=False if top_level else argparse.SUPPRESS,
        help="no progress bar (one is shown on a terminal when tqdm is installed)",
    )


def _tqdm():
    try:
        import tqdm
    except ImportError:  # bars are a convenience: without tqdm the command just runs
        return None
    return tqdm


class Progress:
    """Counts work done (bytes, records, files, seconds) from any thread. ``write`` prints a
    line without breaking the bar (or plainly without one, unless `quiet`)."""

    def __init__(
        self,
        total: Any,
        unit: Any = "B",
        enabled: Any = True,
        description: Any = None,
        quiet: Any = False,
    ) -> None:
        self._lock = threading.Lock()
        self._quiet = quiet
        self._bar = None
        tqdm = _tqdm() if enabled and _is_terminal(sys.stderr) else None
        if tqdm is not None:
            self._bar = tqdm.tqdm(
                total=total,
                unit=unit,
                unit_scale=unit == "B",
                unit_divisor=1024 if unit == "B" else 1000,
                desc=description,
                file=sys.stderr,
                smoothing=0.1,
                dynamic_ncols=True,
            )

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def update(self, n: Any = 1) -> None:
        if self._bar is not None and n:
            with self._lock:
                self._bar.update(n)

    def write(self, text: str) -> Any:
        if self._bar is not None:
            with self._lock:
                self._bar.write(text)
        elif not self._quiet:
            print(text, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            with self._lock:
                self._bar.close()
                self._bar = None

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _is_terminal(stream):
    if os.environ.get("SWIGFLOW_FORCE_PROGRESS") == "1":  # tests: a bar without a terminal
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def enabled(args: Any) -> bool:
    return not getattr(args, "no_progress", False)


def file_sizes(paths: Any) -> list[int]:
    """{path: bytes} of the files that have a size (a pipe or device has none)."""
    from swigflow import errors
    from swigflow.io import gfile

    sizes = {}
    for p in paths:
        try:
            st = gfile.stat(p)
        except (OSError, errors.OpError):
            continue
        if not st.is_directory:
            sizes[p] = st.length
    return sizes


class FileBytes:
    """A bar over files' bytes: an uncompressed file counts as its reader moves through it
    (:meth:`at`), a compressed one (whose offsets are in its uncompressed stream) when it ends."""

    def __init__(self, paths: Any, args: Any, description: Any) -> None:
        self.sizes: Any = file_sizes(paths)
        total = sum(self.sizes.values()) if len(self.sizes) == len(paths) else None
        self.bar: Any = Progress(total, enabled=enabled(args), description=description)
        self._counted = 0  # of the current file

    def at(self, compression: str | None, offset: int) -> None:
        """The reader of the current file is at `offset`."""
        if not compression and offset > self._counted:
            self.bar.update(offset - self._counted)
            self._counted = offset

    def file_done(self, path: PathOrFile) -> None:
        """Brings the bar to the end of `path`."""
        self.bar.update(max(0, self.sizes.get(path, 0) - self._counted))
        self._counted = 0

    def write(self, text: str) -> Any:
        self.bar.write(text)

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
