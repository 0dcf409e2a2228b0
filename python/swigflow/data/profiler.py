"""Why a GPU starves: the founding checklist applied to a pipeline's measured statistics.

``profile(dataset)`` runs a pipeline for a while with nothing else consuming it, samples its
statistics over time and returns a :class:`Report`: throughput, the bottleneck stage, and each
checklist item with its evidence and the concrete fix. ``diagnose(stats)`` applies the same
checklist to any :class:`~swigflow.data.stats.PipelineStats`, e.g. one taken inside a training
loop (only there can "saving and logging too often" be seen). ``swigflow profile`` is the
command-line front end.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

from swigflow.data import stats as _stats
from swigflow.io import gfile

__all__ = [
    "CAUSE", "CHECKLIST", "OK", "UNKNOWN", "WARN", "FileSummary", "Finding", "Report",
    "diagnose", "plot_timeline", "profile", "recommended_shards", "summarize_files",
]  # fmt: skip

# The checklist, in the founding documents' order: (key, title).
CHECKLIST = [
    ("far", "data far from compute"),
    ("small_files", "small files"),
    ("parallel_reads", "no parallel reads"),
    ("prefetch", "no prefetch"),
    ("preprocessing", "preprocessing on the critical path"),
    ("saving", "saving and logging too often"),
]

CAUSE, WARN, OK, UNKNOWN = "cause", "warning", "ok", "not measured"

# A stage this busy (share of the run, per thread) is what limits the pipeline.
BUSY = 0.6
# At least MANY_FILES files smaller than SMALL_FILE_BYTES on average are "small files" (TensorFlow's
# guide asks for shards of 100 MB or more): a cause when reading limits the pipeline, and always
# below TINY_FILE_BYTES, where opening a file costs more than reading it.
SMALL_FILE_BYTES = 10_000_000
TINY_FILE_BYTES = 1_000_000
MANY_FILES = 64
# What reshard is told to make of small files: shards of this size, and at least this many
# (up to the number of files) so that parallel reads and workers still have files to share.
TARGET_SHARD_BYTES = 256_000_000
MIN_SHARDS = 16


@dataclasses.dataclass
class Finding:
    """One item of the checklist.

    Args:
        key: the item's key ("small_files", ...).
        title: its title.
        status: CAUSE, WARN, OK or UNKNOWN.
        evidence: what was measured.
        fix: what to do, when something is to be done.
    """

    key: str
    title: str
    status: str  # CAUSE, WARN, OK or UNKNOWN
    evidence: str
    fix: str = ""


@dataclasses.dataclass
class FileSummary:
    """The pipeline's files.

    Args:
        count: how many.
        total_bytes: their total size.
        remote: how many are behind a URL.
    """

    count: int
    total_bytes: int
    remote: int  # files behind a URL

    @property
    def mean_bytes(self) -> float:
        return self.total_bytes / self.count if self.count else 0.0


def summarize_files(paths: Any) -> FileSummary:
    """Sizes of the pipeline's files (one stat each).

    Args:
        paths: the files' paths or URLs.

    Returns:
        A FileSummary.
    """
    total = remote = 0
    for p in paths:
        total += gfile.stat(p).length
        remote += gfile.local_path(p) is None
    return FileSummary(len(paths), total, remote)


@dataclasses.dataclass
class Report:
    """What profile() measured and concluded.

    Args:
        stats: the run's PipelineStats.
        files: its FileSummary.
        findings: the checklist, a list of Finding.
        timeline: [(seconds since the start, {stage name: busy share in that interval})].
    """

    stats: _stats.PipelineStats
    files: FileSummary
    findings: list
    timeline: list  # [(seconds since start, {stage name: busy share in that interval})]

    @property
    def causes(self) -> list[Finding]:
        return [f for f in self.findings if f.status == CAUSE]

    def rates(self) -> tuple[float, float, float]:
        """(records/s, bytes/s, images/s) over the run."""
        s = self.stats
        read = s.stage("read")
        decode = s.stage("decode")
        seconds = max(s.elapsed_s, 1e-9)
        records = _delivered_records(s)
        return (
            records / seconds,
            (read.bytes if read else 0) / seconds,
            (decode.records if decode else 0) / seconds,
        )

    def __str__(self) -> str:
        s = self.stats
        records, nbytes, images = self.rates()
        lines = [
            f"{self.files.count:,} files, {_size(self.files.total_bytes)} "
            f"(average {_size(self.files.mean_bytes)}); ran {s.elapsed_s:.1f} s",
            f"throughput: {records:,.0f} records/s, {_size(nbytes)}/s"
            + (f", {images:,.0f} images/s" if images else ""),
        ]
        b = s.bottleneck
        if b is not None:
            lines.append(
                f"bottleneck: {b.name} ({b.busy_fraction(s.elapsed_s):.0%} busy"
                + (f" on {b.threads} threads" if b.threads > 1 else "")
                + ")"
            )
        lines += ["", str(s), "", "checklist:"]
        for f in self.findings:
            lines.append(f"  [{f.status}] {f.title}: {f.evidence}")
            if f.fix and f.status in (CAUSE, WARN):
                lines.append(f"      fix: {f.fix}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stats": self.stats.as_dict(),
            "files": dataclasses.asdict(self.files),
            "findings": [dataclasses.asdict(f) for f in self.findings],
            "rates": dict(zip(("records_per_s", "bytes_per_s", "images_per_s"), self.rates())),
        }


def _delivered_records(s):
    for name in ("decode", "parse", "assemble"):
        stage = s.stage(name)
        if stage is not None:
            return stage.records
    return s.elements


def _size(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,.0f} B"


def profile(
    dataset: Any,
    seconds: float = 10.0,
    sample_every: float = 0.25,
    on_sample: Callable[[float], Any] | None = None,
) -> Report:
    """Runs `dataset` for `seconds` (or to its end) with nothing else consuming it and returns
    a :class:`Report`. `on_sample(elapsed)` is called at every sample (a progress bar).

    Args:
        dataset: a swigflow.data.Dataset.
        seconds: how long to run.
        sample_every: the interval of the timeline's samples, in seconds.
        on_sample: a function of the elapsed seconds, or None.

    Returns:
        A Report.
    """
    if not seconds > 0:  # nan too
        raise ValueError(f"seconds must be positive, got {seconds}")
    it = dataset.iterator()
    start = time.monotonic()
    samples = []
    next_sample = start + sample_every
    try:
        for _ in it:
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - start, it.stats()))
                next_sample = now + sample_every
                if on_sample is not None:
                    on_sample(now - start)
            if now - start >= seconds:
                break
    finally:
        it.close()
    stats = it.stats()
    samples.append((stats.elapsed_s, stats))
    paths = [f for source in stats.sources for f in source.files]
    files = summarize_files(sorted(set(paths)))
    return Report(stats, files, diagnose(stats, files, training=False), _timeline(samples))


def _timeline(samples):
    """Each stage's busy share per sampling interval."""
    out = []
    before, t0 = None, 0.0
    for t, s in samples:
        dt = t - t0
        if dt > 0:
            shares = {}
            for stage in s.stages:
                prev = 0.0
                if before is not None:
                    old = before.stage(stage.name)
                    prev = old.busy_s if old is not None else 0.0
                threads = stage.threads if stage.name == "read" else 1
                shares[stage.name] = min(1.0, max(0.0, (stage.busy_s - prev) / (dt * threads)))
            out.append((t, shares))
        before, t0 = s, t
    return out


def diagnose(stats: bool, files: Any = None, training: bool = True) -> list[Finding]:
    """The checklist applied to `stats` (and the pipeline's `files`, a :class:`FileSummary`;
    measured from stats.sources when not given): a :class:`Finding` per item. `training`:
    the stats come from a training loop, whose steps are the time between next() calls.

    Args:
        stats: a PipelineStats.
        files: a FileSummary, or None.
        training: whether the stats come from a training loop.

    Returns:
        A list of Finding.
    """
    if files is None:
        files = summarize_files(sorted({f for src in stats.sources for f in src.files}))
    checks = {
        "far": _far,
        "small_files": _small_files,
        "parallel_reads": _parallel_reads,
        "prefetch": _prefetch,
        "preprocessing": _preprocessing,
        "saving": _saving,
    }
    findings = []
    for key, title in CHECKLIST:
        if key == "saving" and not training:
            status, evidence, fix = UNKNOWN, _NO_STEPS, ""
        else:
            status, evidence, fix = checks[key](stats, files)
        findings.append(Finding(key, title, status, evidence, fix))
    return findings


def _busy(stats, stage):
    return stage.busy_fraction(stats.elapsed_s) if stage is not None else 0.0


def _read_bound(stats):
    """True when reading limits the pipeline: its readers are busy, or the stage after them
    keeps waiting for records."""
    read, assemble = stats.stage("read"), stats.stage("assemble")
    if read is None:
        return False
    waiting = assemble is not None and assemble.input_wait_s > 0.3 * stats.elapsed_s
    return _busy(stats, read) >= BUSY or waiting


def _far(stats, files):
    if not files.remote:
        return OK, f"all {files.count:,} files are local", ""
    read = stats.stage("read")
    rate = (read.bytes if read else 0) / max(stats.elapsed_s, 1e-9)
    evidence = (
        f"{files.remote:,} of {files.count:,} files are remote; reading ran at {_size(rate)}/s"
    )
    fix = (
        "copy the data next to the GPUs (`swigflow reshard URL... --output-directory "
        "/local/disk` copies and evens out the shards), or read more files at once "
        "(num_parallel_reads) to hide the latency"
    )
    return (CAUSE if _read_bound(stats) else WARN), evidence, fix


def recommended_shards(files: Any) -> tuple[int, str]:
    """(shards, --target-size text) for reshard to merge `files` into.

    Args:
        files: a FileSummary.

    Returns:
        (number of shards, target size text).
    """
    shards = max(math.ceil(files.total_bytes / TARGET_SHARD_BYTES), min(MIN_SHARDS, files.count), 1)
    target = math.ceil(files.total_bytes / shards)
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if target >= scale:
            return shards, f"{math.ceil(target / scale)}{unit}"
    return shards, f"{max(target, 1)}B"


def _small_files(stats, files):
    if files.count < MANY_FILES or files.mean_bytes >= SMALL_FILE_BYTES:
        return OK, f"{files.count:,} files averaging {_size(files.mean_bytes)}", ""
    read = stats.stage("read")
    opened = read.files if read else 0
    per_s = opened / max(stats.elapsed_s, 1e-9)
    shards, target = recommended_shards(files)
    evidence = (
        f"{files.count:,} files averaging {_size(files.mean_bytes)}: the pipeline opened "
        f"{per_s:,.0f} files/s"
    )
    fix = (
        f"merge them with `swigflow reshard FILES... --output-directory OUT --target-size "
        f"{target}` into {shards:,} file{'s' if shards > 1 else ''} of about "
        f"{_size(files.total_bytes / shards)}"
    )
    # Per-file costs land in the readers (open, read, close) and in the step that takes their
    # records in turn: either one limiting the pipeline makes the files the cause.
    cause = files.mean_bytes < TINY_FILE_BYTES or _read_bound(stats)
    return (CAUSE if cause else WARN), evidence, fix


def _parallel_reads(stats, files):
    sources = stats.sources
    if not sources:
        return UNKNOWN, "no TFRecordDataset in the pipeline", ""
    src = sources[0]
    read = stats.stage("read")
    busy = _busy(stats, read)
    starved = _read_bound(stats)
    if src.num_parallel_reads > 1:
        return OK, f"{read.threads if read else 1} reader threads; busy {busy:.0%}", ""
    if len(src.files) < 2:
        return OK, "a single file: nothing to read in parallel", ""
    evidence = f"num_parallel_reads=1: one reader thread, busy {busy:.0%} of the run"
    if src.compression:
        evidence += f" ({src.compression} decompression runs on it)"
    fix = "TFRecordDataset(files, num_parallel_reads=swigflow.data.AUTOTUNE)"
    return (CAUSE if starved else OK), evidence, fix


def _consumer_side(stats):
    """The user's Python steps that run on the consumer's thread: those after the last
    prefetch (to_python, handing native batches over as numpy, always runs there)."""
    stages = stats.stages
    last = max((i for i, s in enumerate(stages) if s.name.startswith("prefetch(")), default=-1)
    return [s for s in stages[last + 1 :] if s.kind == "python" and s.name != "to_python"]


def _prefetch(stats, files):
    on_consumer = _consumer_side(stats)
    work = sum(s.busy_s for s in on_consumer)
    share = work / max(stats.elapsed_s, 1e-9)
    if share < 0.1:
        if any(s.name.startswith("prefetch(") for s in stats.stages) or not on_consumer:
            return OK, "the pipeline works ahead of the consumer", ""
        return OK, f"Python steps on the consumer's thread take {share:.0%} of the run", ""
    names = ", ".join(s.name for s in on_consumer if s.busy_s > 0.02 * stats.elapsed_s)
    evidence = (
        f"{names} ran on the consumer's thread for {share:.0%} of the run: a training step "
        f"would wait for it every time"
    )
    fix = "end the pipeline with .prefetch(2) so these steps run while the model trains"
    return CAUSE, evidence, fix


def _preprocessing(stats, files):
    b = stats.bottleneck
    if b is None:
        return OK, "no stage was busy", ""
    busy = _busy(stats, b)
    if busy < BUSY or b.name in ("read", "assemble", "to_python") or b.name.startswith("prefetch("):
        return OK, f"the busiest step is {b.name} ({busy:.0%} busy)", ""
    where = f" on {b.threads} threads" if b.threads > 1 else ""
    evidence = f"{b.name} is {busy:.0%} busy{where}"
    name = b.name.lower()
    if b.name == "decode":
        images = b.records / max(stats.elapsed_s, 1e-9)
        evidence += f": {images:,.0f} images/s"
        fix = (
            "decode_images(fast=True) decodes JPEGs at a reduced scale when the target is "
            "smaller; or store smaller images (build-image-dataset --resize); or decode on the "
            "GPU (DALI)"
        )
    elif b.name == "parse":
        # Native parsing limits a pipeline run flat out, at millions of records/s: a cause
        # only if the training step needs more than that (diagnose it in the training loop).
        rate = b.records / max(stats.elapsed_s, 1e-9)
        evidence += f": the pipeline's limit is {rate:,.0f} records/s"
        fix = "parse only the keys the model uses, or give the pipeline more cores"
        return WARN, evidence, fix
    elif "parse" in name:
        fix = "use .batch(n).parse(spec) instead of map(parse_example): native and in parallel"
    elif "decode" in name or "image" in name or "pil" in name:
        fix = "use .decode_images(...) after .parse(spec): native JPEG/PNG decoding on threads"
    elif b.threads > 1:
        fix = (
            "the map holds the GIL: move its work into native steps (parse, decode_images), "
            "or run it in TorchIterableDataset workers (num_workers)"
        )
    else:
        fix = (
            "map(fn, num_parallel_calls=swigflow.data.AUTOTUNE), or move the work into native "
            "steps (parse, decode_images)"
        )
    return CAUSE, evidence, fix


_NO_STEPS = "no training steps here: check iterator.stats() inside the training loop"


def _saving(stats, files):
    spikes, median = _stats.step_spikes(stats.step_times)
    steps = len(stats.step_times)
    if steps < 8:
        return UNKNOWN, _NO_STEPS, ""
    spent = sum(spikes)
    total = sum(stats.step_times)
    share = spent / total if total > 0 else 0.0
    if not spikes or share < 0.1:
        return OK, f"{steps:,} steps, median {median * 1e3:,.0f} ms, no long pauses", ""
    every = steps / len(spikes)
    evidence = (
        f"{len(spikes):,} of {steps:,} steps took over {max(5 * median, 0.05):.2f} s "
        f"(median {median * 1e3:,.0f} ms), {share:.0%} of the training time: about every "
        f"{every:,.0f} steps"
    )
    fix = "checkpoint and log less often, or asynchronously (a background thread)"
    return CAUSE, evidence, fix


def plot_timeline(report: Report, path: str) -> None:
    """Writes a PNG of each stage's busy share over the run (needs matplotlib).

    Args:
        report: a Report.
        path: the PNG's path.

    Raises:
        ImportError: matplotlib is not installed (swigflow[plot]).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise ImportError(
            "the --png chart needs matplotlib: pip install 'swigflow[plot]'"
        ) from None
    names = []
    for _, shares in report.timeline:
        names += [n for n in shares if n not in names]
    fig, ax = pyplot.subplots(figsize=(9, 1 + 0.5 * len(names)))
    times = [t for t, _ in report.timeline]
    for i, name in enumerate(names):
        values = [shares.get(name, 0.0) for _, shares in report.timeline]
        ax.fill_between(times, i, [i + 0.9 * v for v in values], step="post", label=name)
    ax.set_yticks([i + 0.45 for i in range(len(names))], names)
    ax.set_xlabel("seconds")
    ax.set_title("stage busy share (bar height = share of the interval)")
    fig.tight_layout()
    fig.savefig(path, format="png")
    pyplot.close(fig)
