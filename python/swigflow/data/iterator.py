"""swigflow.data.Iterator: iterates over a Dataset and can say where it is (TensorFlow's
iterator_ops)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from swigflow.data import stats as _stats
from swigflow.data.checks import check_count
from swigflow.data.elements import Failed
from swigflow.data.protocol import (
    check_state,
    fingerprint_of,
    iterate,
    reshuffling_steps,
    signature_of,
)
from swigflow.data.seeds import IterationScope


class Iterator:
    """Iterates over a Dataset and can say where it is: :meth:`state` is a small JSON-able
    dict; ``dataset.iterator(state=...)`` resumes right after the last element returned.

    Args:
        dataset: the Dataset to iterate over.
        state: a dict from state() of an iterator over the same pipeline, or None.
        stats: whether to collect stats().

    Raises:
        ValueError: `state` was taken from another pipeline, or is malformed.
    """

    def __init__(self, dataset: Any, state: Any = None, stats: bool = True) -> None:
        self._dataset = dataset
        signature = signature_of(dataset)
        steps = reshuffling_steps(dataset)
        inner = None
        if state is None:
            iterations = [step.next_iteration() for step in steps]
        else:
            taken_from = state.get("pipeline") if isinstance(state, dict) else state
            if taken_from != signature:
                raise ValueError(
                    "this state was taken from an iterator over another pipeline "
                    f"(expected {signature!r}, got {taken_from!r})"
                )
            keys = {"pipeline", "fingerprint", "position"} | ({"iterations"} if steps else set())
            if not isinstance(state, dict) or set(state) != keys:
                also = ", and 'iterations'" if steps else ""
                raise ValueError(
                    "an iterator state is a dict with 'pipeline', 'fingerprint' and 'position'"
                    f"{also}, got {state!r}"
                )
            expected = fingerprint_of(dataset)
            if state["fingerprint"] != expected:
                raise ValueError(
                    f"this state was taken from an iterator over another {signature!r} "
                    "pipeline: its files, their sizes or its steps' arguments differ "
                    f"(state['fingerprint'] is {state['fingerprint']!r}, this dataset's is "
                    f"{expected!r})"
                )
            iterations = state.get("iterations", [])
            if not isinstance(iterations, list) or len(iterations) != len(steps):
                raise ValueError(
                    f"state['iterations']: expected a list of {len(steps)} ints, got {iterations!r}"
                )
            for i, k in enumerate(iterations):
                check_count(k, f"state['iterations'][{i}]")
            inner = state["position"]
            check_state(dataset, inner, "state['position']")
        self._state = {"pipeline": signature, "position": inner}
        if steps:  # which iterator of each seeded shuffle this is (resumed with the state)
            self._state["iterations"] = iterations
        self._collector = _stats.Collector() if stats else None
        numbers = {id(step): k for step, k in zip(steps, iterations)}
        self._session = _stats.Session(self._collector, IterationScope(numbers))
        with self._session:
            self._gen = iterate(dataset, inner, 0)
        self._lock = threading.Lock()  # one next() at a time: each element to one caller
        self.closed: bool = False

    def __iter__(self) -> Iterator:
        return self

    @property
    def element_spec(self) -> Any:
        """The dataset's."""
        return self._dataset.element_spec

    def __next__(self) -> Any:
        """The next element. Safe to call from several threads at once: each element goes to
        exactly one caller. Raises the exception of an element whose function failed, after
        which the following elements can still be read."""
        with self._lock:
            collector = self._collector
            if collector is None:
                element, position = next(self._gen)
            else:
                start = collector.before_next()
                produced = False
                try:
                    with self._session:
                        element, position = next(self._gen)
                    produced = True
                except StopIteration:
                    collector.finish()
                    raise
                finally:
                    collector.after_next(start, produced)
            self._state = dict(self._state, position=position)
        if type(element) is Failed:
            raise element.error
        return element

    def state(self) -> dict[str, Any]:
        """Where this iterator is: resume with ``dataset.iterator(state=...)``. The dict
        survives ``json.dumps``/``json.loads``."""
        fingerprint = fingerprint_of(self._dataset)  # once per dataset, outside the lock
        with self._lock:
            return json.loads(json.dumps(dict(self._state, fingerprint=fingerprint)))

    def close(self) -> None:
        """Stops the pipeline's threads now (also done when the iterator is garbage)."""
        with self._lock:
            self.closed = True
            with self._session:
                self._gen.close()
            if self._collector is not None:
                self._collector.finish()

    def stats(self) -> _stats.PipelineStats:
        """What each stage of the pipeline did so far (:class:`swigflow.data.stats.PipelineStats`):
        busy and waiting time, elements, records, bytes and files per stage, queue fill
        levels, and how long the consumer waited in next() versus worked between calls."""
        if self._collector is None:
            raise ValueError("this iterator collects no statistics (iterator(stats=False))")
        return self._collector.snapshot()

    def log_stats(
        self,
        every_seconds: float = 60.0,
        logger: logging.Logger | None = None,
        level: int = logging.INFO,
        callback: Callable[[Any], Any] | None = None,
    ) -> _stats.StatsLogger:
        """Logs :meth:`stats`' summary line every `every_seconds` on the "swigflow.data" logger
        (or `logger`), or calls ``callback(stats)`` instead; returns a
        :class:`swigflow.data.stats.StatsLogger` (``.stop()``). For training scripts.

        Args:
            every_seconds: the interval between summaries.
            logger: a logging.Logger; None: the "swigflow.data" logger.
            level: the logging level.
            callback: a function of a PipelineStats, called instead of logging.

        Returns:
            A StatsLogger; its stop() ends the logging.
        """
        self.stats()  # raises when statistics are off
        return _stats.StatsLogger(self, every_seconds, logger, level, callback)
