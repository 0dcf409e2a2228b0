"""The ``swigflow`` command line: build TFRecord shards from image folders, export the images
back, inspect, count, index, verify, repair and reshard TFRecord files, draw contact sheets of
their images, and profile the input pipeline over them.

Every subcommand has ``--help``. Exit status: 0 on success, 1 when a file is damaged (verify)
or an operation fails, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import sys
import unicodedata
from typing import Any

from swigflow import errors, settings
from swigflow._version import __version__
from swigflow.io import shard_cache
from swigflow.io.gfile import PathOrFile
from swigflow.io.index import is_index_file
from swigflow.io.sniff import sniff_compression
from swigflow.io.tf_record import MAX_SEEK_BLOCK_SIZE, SEEK_BLOCK_SIZE, compression_from_name


def _escape(error):
    """Codec error handler: a byte of a non-UTF-8 file name (a surrogate, as os.fsdecode makes
    it) prints as \\xNN, any other character the terminal cannot show as Python escapes it."""
    text = error.object[error.start : error.end]
    out = "".join(
        f"\\x{ord(c) - 0xDC00:02x}"
        if 0xDC80 <= ord(c) <= 0xDCFF
        else c.encode("ascii", "backslashreplace").decode()
        for c in text
    )
    return out, error.end


_ESCAPE = "swigflow.escape"
codecs.register_error(_ESCAPE, _escape)


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped (\\n, \\x00), so an error
    or a label from a file prints as one line. Undecodable bytes of file names (surrogates) are
    left for the output's error handler, which prints them as \\xNN."""
    return "".join(
        ascii(c)[1:-1] if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text
    )


def first_or_sample(items: Any, n: Any, seed: int | None = None) -> list[Any]:
    """The first `n` of `items`, or with `seed` a uniform random sample of `n` of them all
    (reservoir sampling: reads them all, keeps `n`)."""
    import random

    picked = []
    rng = None if seed is None else random.Random(seed)
    for i, item in enumerate(items):
        if rng is None or i < n:
            picked.append(item)
            if rng is None and len(picked) == n:
                break
        else:
            j = rng.randrange(i + 1)
            if j < n:
                picked[j] = item
    return picked


class CommandError(Exception):
    """A failure to report in one line (no traceback), exit status 1."""


def compression_of(path: PathOrFile, option: Any, sniff: Any = True) -> str:
    """The compression to read or write ``path`` with: the ``--compression`` option when given;
    else GZIP for names ending in ``.gz`` / ``.gzip``, ZLIB for ``.zlib`` / ``.zz``; else, for
    an existing regular file (``sniff``), what its first bytes say; else none (so a FIFO or
    device is read uncompressed unless the option says otherwise)."""
    if option is not None:
        return "" if option.upper() == "NONE" else option.upper()
    named = compression_from_name(path)
    if named is not None:
        return named
    if not sniff:
        return ""
    return sniff_compression(path)


def add_compression_option(
    parser: Any, what: Any = "the files", flag: Any = "--compression", default: Any = None
) -> None:
    """A --compression-style option; `default` describes what happens without it."""
    parser.add_argument(
        flag,
        choices=["GZIP", "ZLIB", "NONE", "gzip", "zlib", "none"],
        help=f"compression of {what} (default: "
        + (default or "from the name, *.gz or *.zlib, else from the file's first bytes")
        + ")",
    )


MAX_COUNT = (1 << 63) - 1  # counts travel to the native layer as int64


def size_arg(text: str) -> int:
    """An argparse type: a size as settings.parse_size reads it."""
    try:
        return settings.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def seek_block_arg(text: str) -> int | None:
    """An argparse type: a GZIP seek block size (see add_seek_block_option); 0 is None."""
    if text.strip() == "0":
        return None
    size = size_arg(text)
    if size > MAX_SEEK_BLOCK_SIZE:
        raise argparse.ArgumentTypeError(f"at most {MAX_SEEK_BLOCK_SIZE} bytes: {text!r}")
    return size


def add_seek_block_option(parser: Any) -> None:
    """--seek-block-size: how GZIP shards are written (TFRecordOptions.seek_block_size)."""
    parser.add_argument(
        "--seek-block-size",
        type=seek_block_arg,
        default=SEEK_BLOCK_SIZE,
        metavar="SIZE",
        help="GZIP shards are chains of independent GZIP members that end at a record boundary "
        "after SIZE uncompressed bytes, so a random read through the shard's seek index "
        "inflates one member at most; TensorFlow and every gzip reader read them as one "
        "stream (default 64KiB; 0: one stream, as TensorFlow writes)",
    )


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_COUNT}: {value}")
    return value


MAX_SECONDS = 7 * 24 * 3600


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, above 0 and at most a week."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= MAX_SECONDS:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_SECONDS}: {text}")
    return value


MAX_SIDE = 65535  # JPEG's limit on either side


def image_size(text: str) -> tuple[int, int]:
    """An argparse type: "WxH" -> (width, height), 1 to MAX_SIDE pixels each."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise ValueError(text)
    if not 0 < int(width) <= MAX_SIDE or not 0 < int(height) <= MAX_SIDE:
        raise ValueError(text)
    return int(width), int(height)


image_size.__name__ = f"size WxH (1 to {MAX_SIDE} each)"  # argparse names it in its message


def build_parser() -> argparse.ArgumentParser:
    # Imported here so that `swigflow --help` stays quick and each module registers itself.
    from swigflow.cli import images, profile, records, reshard, show
    from swigflow.cli import progress as _progress

    parser = argparse.ArgumentParser(
        prog="swigflow",
        description="TFRecord tools: build image datasets, inspect, verify, repair and reshard "
        "files, look at their images, and profile the input pipeline.",
    )
    parser.add_argument("--version", action="version", version=f"swigflow {__version__}")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep remote files read whole in DIR and read them from there later "
        "(SWIGFLOW_CACHE_DIR; see swigflow.io.shard_cache)",
    )
    _progress.add_option(parser, top_level=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    images.register(commands)
    records.register(commands)
    reshard.register(commands)
    show.register(commands)
    profile.register(commands)
    for name, command in commands.choices.items():
        command.formatter_class = _HelpFormatter
        command.epilog = f"example: {EXAMPLES[name]}"
    return parser


# One command line per command, shown under its --help (tests/cli/test_tools.py parses each).
EXAMPLES = {
    "build-image-dataset": "swigflow build-image-dataset --train-directory photos/ "
    "--validation-fraction 0.1 --output-directory shards/ --train-shards 16 --num-threads 2",
    "export-images": "swigflow export-images shards/validation-00000-of-00004 "
    "--output-directory images/ --by-class",
    "inspect": "swigflow inspect shards/train-00000-of-00016 --json",
    "cat": "swigflow cat -n 3 --json shards/train-00000-of-00016",
    "count": "swigflow count shards/train-*",
    "index": "swigflow index shards/train-*",
    "verify": "swigflow verify -q shards/*",
    "repair": "swigflow repair damaged.tfrecord --output fixed.tfrecord",
    "reshard": "swigflow reshard small/*.tfrecord --output-directory shards/ --target-size 256MB",
    "show": "swigflow show shards/train-00000-of-00016 --grid 4x8 -o sheet.png",
    "profile": "swigflow profile shards/train-* --spec auto --batch 256 "
    "--decode-images image/encoded",
}


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default (when it has one worth saying)."""

    def add_argument(self, action):
        if action.help is None and action.option_strings and _shown_default(action):
            action.help = "(default: %(default)s)"
        super().add_argument(action)

    def _fill_text(self, text, width, indent):  # the hook argparse's raw formatter overrides
        if text.startswith("example: "):  # one command line, unwrapped, to copy whole
            return indent + text
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action):  # the hook argparse's own default formatter overrides
        text = action.help or ""
        if action.option_strings and _shown_default(action) and "default" not in text:
            text = f"{text} (default: %(default)s)".strip()
        return text


def _shown_default(action):
    default = action.default
    return default is not None and default is not argparse.SUPPRESS and default is not False


def skip_index_files(args: Any) -> None:
    """Drops index files from a command's FILE... arguments, with a note each: a glob such as
    ``OUT/train-*`` catches the ``.idx`` files written beside the shards."""
    files = getattr(args, "files", None)
    if not isinstance(files, list):
        return
    kept = []
    for f in files:
        if is_index_file(f):
            print(f"swigflow {args.command}: skipping {f}: an index file", file=sys.stderr)
        else:
            kept.append(f)
    if not kept:
        raise CommandError("no TFRecord files among the arguments, only index files")
    args.files = kept


def main(argv: Any = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # File names need not be valid in the terminal's encoding: print them escaped, never fail.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=_ESCAPE)
    with _cache_dir(args.cache_dir):
        return _run(args)


@contextlib.contextmanager
def _cache_dir(directory):
    """SWIGFLOW_CACHE_DIR set to `directory` (when given) for the command: its remote reads,
    threads and processes use the shard cache there."""
    if not directory:
        yield
        return
    before = os.environ.get(shard_cache.CACHE_DIR_ENV)
    os.environ[shard_cache.CACHE_DIR_ENV] = directory
    try:
        yield
    finally:
        if before is None:
            del os.environ[shard_cache.CACHE_DIR_ENV]
        else:
            os.environ[shard_cache.CACHE_DIR_ENV] = before


def _run(args):
    try:
        skip_index_files(args)
        return args.run(args) or 0
    except CommandError as e:
        print(f"swigflow {args.command}: error: {one_line(str(e))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `swigflow cat FILE | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the final flush does not fail again
        return 0
    except (errors.OpError, OSError, MemoryError) as e:
        message = e.message if isinstance(e, errors.OpError) else str(e) or type(e).__name__
        print(f"swigflow {args.command}: error: {one_line(message)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"swigflow {args.command}: interrupted", file=sys.stderr)
        return 130
