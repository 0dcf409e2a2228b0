"""``swigflow profile``: runs the pipeline a user would build over their files, measures every
stage and applies the starvation checklist (swigflow.data.profiler)."""

from __future__ import annotations

import importlib
import json
from typing import Any

from swigflow import data, errors
from swigflow.cli import (
    CommandError,
    add_compression_option,
    compression_of,
    image_size,
    positive_int,
    seconds,
)
from swigflow.cli import progress as _progress
from swigflow.data import profiler
from swigflow.io import schema


def register(commands: Any) -> None:
    p = commands.add_parser(
        "profile",
        help="find why a training loop starves: measure the input pipeline stage by stage",
        description="Runs TFRecordDataset(FILES).batch(N).parse(spec) [.decode_images(KEY)] "
        "[.map(FUNCTION)] .prefetch(P) for --seconds with nothing else consuming it, and prints "
        "records/s, bytes/s and images/s, every stage's busy and waiting time, the bottleneck, "
        "and the starvation checklist (data far from compute, small files, no parallel reads, "
        "no prefetch, preprocessing on the critical path, saving and logging too often) with "
        "the evidence and the fix for each cause.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument(
        "--spec",
        default="auto",
        help="'auto' (inferred from the first records, as `swigflow inspect` does) or JSON: "
        '{"key": {"dtype": "int64", "shape": []}, ...} (no "shape": a VarLenFeature)',
    )
    p.add_argument("--batch", type=positive_int, default=256, metavar="N")
    p.add_argument(
        "--decode-images",
        metavar="KEY",
        help="decode the images of this key natively (decode_images) after parsing",
    )
    p.add_argument(
        "--image-size", type=image_size, default=(224, 224), metavar="WxH", help="(default 224x224)"
    )
    p.add_argument("--fast", action="store_true", help="decode_images(fast=True)")
    p.add_argument(
        "--num-parallel-reads",
        default="auto",
        metavar="N",
        help="files read at once: a count or 'auto' (one per core; the default)",
    )
    p.add_argument("--shuffle", type=positive_int, metavar="N", help="a shuffle buffer of N")
    p.add_argument(
        "--map",
        metavar="MODULE:FUNCTION",
        help="a Python function to map over the parsed batches (your own preprocessing)",
    )
    p.add_argument("--prefetch", type=int, default=2, metavar="P", help="(default 2)")
    p.add_argument("--seconds", type=seconds, default=10.0, metavar="S", help="(default 10)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--png",
        metavar="FILE",
        help="also draw the stages' activity over time (needs matplotlib: swigflow[plot])",
    )
    add_compression_option(p)
    _progress.add_option(p)
    p.set_defaults(run=_profile)


def parse_spec(text: str, files: Any, compression: str | None) -> dict[str, Any]:
    """--spec's features: inferred from the first records, or read from JSON (the "spec" that
    ``inspect --json`` prints)."""
    try:
        if text == "auto":
            return schema.infer_spec(files[:1], compression)
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise CommandError(f"--spec: not JSON: {e}") from None
        return schema.spec_from_json(raw)
    except errors.InvalidArgumentError as e:
        raise CommandError(f"--spec: {e.message}") from None


def _function(text):
    module, _, name = text.partition(":")
    if not module or not name:
        raise CommandError(f"--map: expected MODULE:FUNCTION, got {text!r}")
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise CommandError(f"--map {text}: {e}") from None
    if not callable(fn):
        raise CommandError(f"--map {text}: not callable")
    return fn


def build_pipeline(args: Any) -> Any:
    """The dataset `swigflow profile` runs for these arguments."""
    compression = compression_of(args.files[0], args.compression)
    if args.num_parallel_reads == "auto":
        reads = data.AUTOTUNE
    else:
        try:
            reads = int(args.num_parallel_reads)
        except ValueError:
            raise CommandError("--num-parallel-reads: a count or 'auto'") from None
        if reads < 1:
            raise CommandError("--num-parallel-reads: at least 1")
    features = parse_spec(args.spec, args.files, compression)
    ds = data.TFRecordDataset(args.files, compression, num_parallel_reads=reads)
    if args.shuffle:  # each epoch on its own: a buffer over the endless repeat would never fill
        ds = ds.shuffle(args.shuffle, seed=0)
    ds = ds.repeat().batch(args.batch).parse(features)
    if args.decode_images:
        spec = features.get(args.decode_images)
        if spec is None:
            raise CommandError(f"--decode-images: no feature {args.decode_images!r} in the spec")
        ds = ds.decode_images(args.decode_images, size=args.image_size[::-1], fast=args.fast)
    if args.map:
        ds = ds.map(_function(args.map))
    if args.prefetch:
        ds = ds.prefetch(args.prefetch)
    return ds


def _profile(args):
    if args.png:
        try:
            import matplotlib  # noqa: F401 - before the run, not after it
        except ImportError:
            raise CommandError("--png needs matplotlib: pip install 'swigflow[plot]'") from None
    dataset = build_pipeline(args)
    bar = _progress.Progress(
        args.seconds, unit="s", enabled=_progress.enabled(args), description="profiling"
    )
    shown = [0.0]

    def tick(elapsed):
        bar.update(min(elapsed, args.seconds) - shown[0])
        shown[0] = min(elapsed, args.seconds)

    with bar:
        report = profiler.profile(dataset, seconds=args.seconds, on_sample=tick)
    if args.png:
        profiler.plot_timeline(report, args.png)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(report)
    return 0
