"""Pipeline statistics: what each stage of an iterator's pipeline did, and where its consumer
waited (``Iterator.stats()``, ``Dataset.stats()``, ``Iterator.log_stats()``).

Native stages (read, assemble, parse, decode) count their own work in C++
(native/data/pipeline_stats.h). Python steps are timed here: while an iterator runs, every
dataset's generator is wrapped so that each ``next()`` is clocked, and a step's own time is its
clocked time less that of the steps it called on the same thread. Times are wall-clock seconds.
"""

from __future__ import annotations

import collections
import contextvars
import dataclasses
import logging
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# The public API; the rest is the plumbing swigflow.data's datasets and iterators use.
__all__ = ["PipelineStats", "SourceInfo", "StageStats", "StatsLogger", "step_spikes"]

_clock = time.perf_counter_ns

# The collector of the iterator whose next() is running (None: no statistics). Generators run
# in the context of whoever calls next(), so the iterator sets it around each call.
_COLLECTOR = contextvars.ContextVar("swigflow_data_stats", default=None)
_local = threading.local()  # .frames: [time spent in nested steps, stage] per running next()


@dataclasses.dataclass
class StageStats:
    """One stage. ``busy_s + input_wait_s + output_wait_s`` is the time its thread was alive
    (summed over the threads of a native read stage).

    Args:
        name: the stage's name ("read", "parse", ...).
        kind: "native" or "python".
        threads: its threads.
        busy_s: seconds working.
        input_wait_s: seconds waiting for the stage before it.
        output_wait_s: seconds waiting for room in its output.
        elements: elements made.
        records: records read or parsed.
        bytes: bytes read.
        files: files opened.
        queue_capacity: the capacity of the queue it fills, when it has one.
        queue_mean_fill: elements in that queue when one was taken, on average.
    """

    name: str
    kind: str  # "native" or "python"
    threads: int = 1
    busy_s: float = 0.0
    input_wait_s: float = 0.0  # waiting for the stage before it
    output_wait_s: float = 0.0  # waiting for room in its output
    elements: int = 0
    records: int = 0
    bytes: int = 0
    files: int = 0
    queue_capacity: int = 0  # of the queue it fills, when it has one
    queue_mean_fill: float = 0.0  # elements in that queue when one was taken, on average

    def busy_fraction(self, elapsed_s: float) -> float:
        """The share of the run this stage was working, per thread (1.0: never idle).

        Args:
            elapsed_s: the run's length in seconds.

        Returns:
            A float in [0, 1].
        """
        if elapsed_s <= 0:
            return 0.0
        threads = self.threads if self.name == "read" else 1
        return min(1.0, self.busy_s / (elapsed_s * max(threads, 1)))


@dataclasses.dataclass
class SourceInfo:
    """A TFRecordDataset of the pipeline, as configured.

    Args:
        files: its files.
        compression: their compression type.
        num_parallel_reads: files read at once.
        indexed: whether index files give it a length.
        batch_size: the batch fused into it, or 0.
        parse: whether parsing is fused into it.
        decode_images: whether decode_images is fused into it.
        prefetch: its prefetch depth.
    """

    files: list[str]
    compression: str
    num_parallel_reads: int
    indexed: bool
    batch_size: int
    parse: bool
    decode_images: bool
    prefetch: int


@dataclasses.dataclass
class PipelineStats:
    """What an iterator's pipeline did since it started, stage by stage (source first).

    Args:
        elapsed_s: seconds since the iterator started.
        elements: elements returned to the consumer.
        consumer_wait_s: seconds the consumer waited inside next().
        step_s: seconds the consumer spent between next() calls (its training step).
        stages: a list of StageStats, source first.
        sources: a list of SourceInfo.
        step_times: the last 4,096 step times, in seconds.
    """

    elapsed_s: float
    elements: int  # returned to the consumer
    consumer_wait_s: float  # the consumer inside next(): waiting for the pipeline
    step_s: float  # the consumer between next() calls: its own work (a training step)
    stages: list[StageStats]
    sources: list[SourceInfo]
    step_times: list[float] = dataclasses.field(default_factory=list, repr=False)  # the last 4,096

    def stage(self, name: str) -> StageStats | None:
        """The first stage called ``name`` (e.g. "parse"), or None.

        Args:
            name: a stage's name.

        Returns:
            A StageStats, or None.
        """
        return next((s for s in self.stages if s.name == name), None)

    @property
    def bottleneck(self) -> StageStats | None:
        """The stage busy for the largest share of the run (its slowest step), or None."""
        working = [s for s in self.stages if s.busy_s > 0]
        if not working:
            return None
        return max(working, key=lambda s: s.busy_fraction(self.elapsed_s))

    @property
    def input_bound_fraction(self) -> float:
        """The share of the consumer's time spent waiting for data (0: never starved)."""
        total = self.consumer_wait_s + self.step_s
        return self.consumer_wait_s / total if total > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        """One line for a training log."""
        b = self.bottleneck
        rate = self.elements / self.elapsed_s if self.elapsed_s > 0 else 0.0
        busiest = f"{b.name} {b.busy_fraction(self.elapsed_s):.0%} busy" if b else "idle"
        return (
            f"swigflow.data: {self.elements:,} elements in {self.elapsed_s:.1f} s "
            f"({rate:,.1f}/s); consumer waited {self.input_bound_fraction:.0%} of its time; "
            f"busiest stage: {busiest}"
        )

    def __str__(self) -> str:
        rows = [("stage", "threads", "busy", "in-wait", "out-wait", "elements", "records",
                 "MB", "files", "queue")]  # fmt: skip
        for s in self.stages:
            queue = f"{s.queue_mean_fill:.1f}/{s.queue_capacity}" if s.queue_capacity else ""
            rows.append((
                s.name, str(s.threads), f"{s.busy_fraction(self.elapsed_s):.0%}",
                _seconds(s.input_wait_s), _seconds(s.output_wait_s), f"{s.elements:,}",
                f"{s.records:,}" if s.records else "", f"{s.bytes / 1e6:,.1f}" if s.bytes else "",
                f"{s.files:,}" if s.files else "", queue,
            ))  # fmt: skip
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])])
            for r in rows
        ]
        return self.summary() + "\n" + "\n".join(lines)


def _seconds(s):
    return f"{s:.2f}s"


def _native_stage(d, queue):
    s = StageStats(
        name=d["name"],
        kind="native",
        threads=d["threads"],
        busy_s=d["busy_ns"] / 1e9,
        input_wait_s=d["input_wait_ns"] / 1e9,
        output_wait_s=d["output_wait_ns"] / 1e9,
        elements=d["elements"],
        records=d["records"],
        bytes=d["bytes"],
        files=d["files"],
    )
    if queue is not None:
        s.queue_capacity, s.queue_mean_fill = queue["capacity"], queue["mean_fill"]
    return s


class _NativeStages:
    """The native pipelines one TFRecordDataset of the pipeline ran (one per pass over it):
    the finished ones summed, the running one read live."""

    def __init__(self, source):
        self.source = source
        self.done = {}  # name -> StageStats (sums)
        self.consumer_wait_s = 0.0
        self.running = []

    def attach(self, pipeline):
        self.running.append(pipeline)

    def detach(self, pipeline):
        self.running.remove(pipeline)
        self.consumer_wait_s += self._add(self.done, pipeline.Stats())

    def _add(self, into, native):
        queues = {q["name"]: q for q in native["queues"]}
        for d in native["stages"]:
            s = _native_stage(d, queues.get(d["name"]))
            if d["name"] not in into:
                into[d["name"]] = s
                continue
            t = into[d["name"]]
            for f in ("busy_s", "input_wait_s", "output_wait_s"):
                setattr(t, f, getattr(t, f) + getattr(s, f))
            for f in ("elements", "records", "bytes", "files"):
                setattr(t, f, getattr(t, f) + getattr(s, f))
            t.threads = max(t.threads, s.threads)
            if s.queue_capacity:
                t.queue_capacity, t.queue_mean_fill = s.queue_capacity, s.queue_mean_fill
        return native["consumer_wait_ns"] / 1e9

    def snapshot(self):
        """(stages in order, seconds the Python side waited for the native pipeline)."""
        into = {k: dataclasses.replace(v) for k, v in self.done.items()}
        wait = self.consumer_wait_s
        for p in list(self.running):
            wait += self._add(into, p.Stats())
        return list(into.values()), wait


class _PythonStage:
    __slots__ = (
        "calls_ns",
        "capacity",
        "elements",
        "fills",
        "name",
        "native",
        "order",
        "parent",
        "self_ns",
        "threads",
    )  # fmt: skip

    def __init__(self, name, parent, order):
        self.name = name
        self.self_ns = 0  # in its own code, on the threads that called next()
        self.calls_ns = 0  # in user functions run on a pool (parallel map)
        self.elements = 0
        self.threads = 1
        self.fills = [0, 0]  # (sum of buffer fill levels seen, samples): prefetch
        self.capacity = 0
        self.native = None  # _NativeStages of a TFRecordDataset
        self.parent = parent
        self.order = order


class Collector:
    """The statistics of one iterator."""

    def __init__(self) -> None:
        self.lock: threading.Lock = threading.Lock()  # guards the stages and their native pipelines
        self._stages = {}  # (parent stage or None, name) -> _PythonStage
        self._start = _clock()
        self._returned = None  # when next() last returned: the consumer's step starts
        self.wait_ns: int = 0
        self.step_ns: int = 0
        self.elements: int = 0
        self.steps: collections.deque[float] = collections.deque(maxlen=4096)
        self._end = None

    # --- the iterator's side ------------------------------------------------------------------

    def before_next(self) -> int:
        now = _clock()
        if self._returned is not None:
            step = now - self._returned
            self.step_ns += step
            self.steps.append(step / 1e9)
        return now

    def after_next(self, start: int, produced: bool) -> None:
        now = _clock()
        self.wait_ns += now - start
        self._returned = now
        if produced:
            self.elements += 1

    def finish(self) -> None:
        if self._end is None:
            self._end = _clock()

    # --- the steps' side ----------------------------------------------------------------------

    def stage(self, parent: Any, name: str) -> Any:
        with self.lock:
            key = (id(parent) if parent is not None else None, name)
            stage = self._stages.get(key)
            if stage is None:
                stage = self._stages[key] = _PythonStage(name, parent, len(self._stages))
            return stage

    def snapshot(self) -> PipelineStats:
        end = self._end if self._end is not None else _clock()
        elapsed = (end - self._start) / 1e9
        with self.lock:
            python = sorted(self._stages.values(), key=lambda s: s.order, reverse=True)
        stages, sources = [], []
        for p in python:  # innermost (the source) first
            if p.native is not None:
                native, waited = p.native.snapshot()
                stages.extend(native)
                sources.append(p.native.source)
                # The rest of its own time is making Python objects of the native elements.
                stages.append(StageStats(
                    name="to_python", kind="python", busy_s=max(0.0, p.self_ns / 1e9 - waited),
                    input_wait_s=waited, elements=p.elements,
                ))  # fmt: skip
                continue
            s = StageStats(name=p.name, kind="python", threads=p.threads, elements=p.elements)
            if p.calls_ns:  # a parallel map: its calls ran on a pool, it waited for them
                s.busy_s, s.input_wait_s = p.calls_ns / 1e9, p.self_ns / 1e9
            elif p.capacity:  # prefetch: its own time is the consumer waiting on its buffer
                s.input_wait_s = p.self_ns / 1e9
                s.queue_capacity = p.capacity
                s.queue_mean_fill = p.fills[0] / p.fills[1] if p.fills[1] else 0.0
            else:
                s.busy_s = p.self_ns / 1e9
            stages.append(s)
        return PipelineStats(
            elapsed_s=elapsed,
            elements=self.elements,
            consumer_wait_s=self.wait_ns / 1e9,
            step_s=self.step_ns / 1e9,
            stages=stages,
            sources=sources,
            step_times=list(self.steps),
        )


def _frames():
    frames = getattr(_local, "frames", None)
    if frames is None:
        frames = _local.frames = []
    return frames


def collecting() -> bool:
    """Whether the iterator whose code runs now collects statistics."""
    return _COLLECTOR.get() is not None


def current_stage() -> Any:
    """The stage whose next() is running on this thread, or None (no statistics)."""
    if _COLLECTOR.get() is None:
        return None
    frames = _frames()
    return frames[-1][1] if frames else getattr(_local, "root", None)


def instrument(name: str, gen: Iterator[Any]) -> Iterator[Any]:
    """`gen`, a dataset's generator, clocked as stage `name` when statistics are on."""
    collector = _COLLECTOR.get()
    if collector is None:
        return gen
    stage = collector.stage(current_stage(), name)
    return _timed(stage, gen)


def _timed(stage, gen):
    try:
        while True:
            frames = _frames()
            frame = [0, stage]
            frames.append(frame)
            start = _clock()
            try:
                item = next(gen)
            except StopIteration:
                return
            finally:
                spent = _clock() - start
                frames.pop()
                stage.self_ns += spent - frame[0]
                if frames:
                    frames[-1][0] += spent
            stage.elements += 1
            yield item
    finally:
        gen.close()


def native_stages(source: Any, pipeline: Any) -> Any:
    """Registers a running native pipeline with the current stage; returns a function to call
    when it is done (its totals are kept), or None without statistics."""
    stage = current_stage()
    if stage is None:
        return None
    collector = _COLLECTOR.get()
    with collector.lock:
        if stage.native is None:
            stage.native = _NativeStages(source)
        stage.native.attach(pipeline)

    def done():
        with collector.lock:
            stage.native.detach(pipeline)

    return done


def timed_call(stage: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args), its time counted as `stage`'s work on a pool (parallel map)."""
    start = _clock()
    try:
        return fn(*args)
    finally:
        stage.calls_ns += _clock() - start


def in_thread(parent: Any, fn: Callable[..., Any]) -> Callable[[], Any]:
    """fn for a new thread running the steps below `parent` (prefetch): with the statistics
    of the thread that made it, and its stages keyed under `parent`."""
    context = contextvars.copy_context()

    def run():
        _local.root = parent
        context.run(fn)

    return run


class Session:
    """Makes `collector` current while an iterator's code runs, inside `scope` (a context
    manager entered first and left last: the iterator's seeds.IterationScope)."""

    __slots__ = ("_scope", "_token", "collector")

    def __init__(self, collector: Collector | None, scope: Any) -> None:
        self.collector: Collector | None = collector
        self._scope = scope

    def __enter__(self) -> None:
        self._scope.__enter__()
        self._token = _COLLECTOR.set(self.collector)

    def __exit__(self, *exc: Any) -> None:
        _COLLECTOR.reset(self._token)
        self._scope.__exit__(*exc)


class StatsLogger:
    """Logs an iterator's statistics every ``every_seconds`` from a daemon thread, or hands them
    to ``callback(stats)`` (e.g. to write them to TensorBoard). Stops with :meth:`stop`, when
    the iterator is closed, or at exit.

    Args:
        iterator: a swigflow.data.Iterator.
        every_seconds: the interval.
        logger: a logging.Logger; None: "swigflow.data".
        level: the logging level.
        callback: a function of a PipelineStats, called instead of logging.
    """

    def __init__(
        self,
        iterator: Any,
        every_seconds: float = 60.0,
        logger: logging.Logger | None = None,
        level: int = logging.INFO,
        callback: Callable[[PipelineStats], Any] | None = None,
    ) -> None:
        if every_seconds <= 0:
            raise ValueError(f"every_seconds must be positive, got {every_seconds}")
        self._iterator = iterator
        self._every = float(every_seconds)
        self._logger = logger or logging.getLogger("swigflow.data")
        self._level = level
        self._callback = callback
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="swigflow-stats", daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self._every):
            stats = self._iterator.stats()
            if self._callback is not None:
                self._callback(stats)
            else:
                self._logger.log(self._level, "%s", stats.summary())
            if self._iterator.closed:
                return

    def stop(self) -> None:
        self._stop.set()


def step_spikes(step_times: Sequence[float]) -> tuple[list[float], float]:
    """(spikes, median): steps over 5x the median step and 50 ms, from a run's step times.

    Args:
        step_times: the step times, in seconds.

    Returns:
        (the spikes' step times, the median step time), in seconds.
    """
    if len(step_times) < 8:
        return [], 0.0
    median = statistics.median(step_times)
    limit = max(5 * median, 0.05)
    return [t for t in step_times if t > limit], median
