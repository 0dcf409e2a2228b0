"""prefetch and with_options: how the pipeline runs, not what it yields."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from swigflow.data import stats as _stats
from swigflow.data.protocol import iterate
from swigflow.data.steps.base import UnchangedStructure

_END = object()


# How long closing a prefetch waits for its producer to leave the element it is computing.
_PRODUCER_EXIT_SECONDS = 10.0


class Prefetch(UnchangedStructure):
    """Runs the input on a background thread, at most `size` elements ahead of the consumer:
    the producer takes a permit before computing an element and the consumer returns it when
    it takes that element."""

    def __init__(self, input_dataset: Any, size: int) -> None:
        super().__init__(input_dataset)
        self._size = size

    def _stage_name(self):
        return f"prefetch({self._size})"

    def _generate(self, state, epoch):
        items = queue.SimpleQueue()
        permits = threading.Semaphore(self._size)
        stop = threading.Event()
        stage = _stats.current_stage()
        if stage is not None:
            stage.capacity = self._size

        def run():
            try:
                source = iterate(self._input, state, epoch)
                while True:
                    while not permits.acquire(timeout=0.1):
                        if stop.is_set():
                            return
                    if stop.is_set():
                        return
                    item = next(source, None)
                    if item is None:
                        break
                    items.put(item)
                items.put((_END, None))
            except BaseException as e:  # raised again in the consumer, in order
                items.put((_END, e))

        thread = threading.Thread(target=_stats.in_thread(stage, run), daemon=True)
        thread.start()
        try:
            while True:
                if stage is not None:
                    stage.fills[0] += items.qsize()
                    stage.fills[1] += 1
                element, position = items.get()
                if element is _END:
                    if position is not None:
                        raise position
                    return
                permits.release()
                yield element, position
        finally:
            # Wake the producer if it waits for a permit, and wait until it is gone: close()
            # stops the threads now, and a producer left to linger until its next poll kept its
            # memory in a malloc arena of its own, so that pipelines made and dropped in a loop
            # grew the process by one arena per thread alive at once (issue 53's creep).
            stop.set()
            permits.release()
            if thread is not threading.current_thread():
                thread.join(_PRODUCER_EXIT_SECONDS)
                if thread.is_alive():  # inside a slow input: it exits when that returns
                    logging.getLogger("swigflow.data").warning(
                        "prefetch: the producer is still inside its input after %.0f s; "
                        "leaving it to finish on its own",
                        _PRODUCER_EXIT_SECONDS,
                    )

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return self._input._get(index)


class WithOptions(UnchangedStructure):
    """with_options(): the input's elements, with the merged options to report."""

    def __init__(self, input_dataset: Any, options: Any) -> None:
        super().__init__(input_dataset)
        self._options = options

    def options(self) -> Any:
        return self._options.frozen()  # made by with_options' merge: nobody else holds it

    def _generate(self, state, epoch):
        return iterate(self._input, state, epoch)

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return self._input._get(index)
