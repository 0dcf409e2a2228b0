"""How far a remote file is read ahead, and the memory every file's read-ahead shares.

A reader going through a remote file in order keeps blocks requested ahead of it (gfile's
_Reader). How many: enough that the next block has arrived by the time the reader wants it,
that is the time a block takes to arrive (the store's latency plus its size over the
connection's bandwidth) over the time the reader takes to go through one, plus one. Both are
measured as the file is read (:class:`Pace`). A reader slower than the store keeps few blocks
ahead; a reader that waits on the store widens its window up to the most allowed.

Every block requested and not yet read past is counted in one :class:`Memory` for the process:
a block ahead is requested only within its limit, and within an equal share of it per file
holding blocks or being opened, so no file starves the others. The block a reader waits for is
always requested (progress), so the bytes held stay under the limit plus one block per file read.
The limit starts at START_BLOCKS blocks, or START_BLOCKS_PER_FILE per file read at once if
more, and grows by a block each time a reader finds the block
it moves on to not there yet while the limit had kept blocks ahead back, up to the budget:
readers slower than the store, which never wait, hold what they use rather than the budget.
A reader whose rest of file fits its share of the budget asks for all of it at once
(Memory.limit).
Each block's buffer is memory the process touches for the first time, whose page faults cost
about as much system time as the socket's copy into it (bench/remote_bench.py), so what is not
needed is not held.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import math
import mmap
import os
import queue
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

# Seconds a DaemonPool thread waits for work before it ends.
POOL_IDLE_S = 30.0
# Weight of the newest measurement in Pace's moving averages.
_SMOOTHING = 0.25

# Blocks the process's read-ahead may hold before any reader has waited (Memory.limit). On
# bench/remote_bench.py's 6 x 39 MB behind 30 ms (Zen 3, 2 cores, 8 files at once) a new
# process's epoch held 96 MiB at most rather than 223, at the same speed, for 2.1-2.2 CPU s/GB
# rather than 2.6-3.1; with 8 blocks it held as much but, waiting on the store, read 20% slower.
START_BLOCKS = 16
# ... or this many per file holding blocks or being opened, if more: the block read, the next
# and one more arriving. With 2 (16 blocks over 6 files), every reader of that benchmark waited
# for its third block, growing the limit to 21-22 blocks; with 3 it held 18 and touched 16%
# less new memory (175 page faults per MB, not 209). With 4 it held 24, for more system time.
START_BLOCKS_PER_FILE = 3


class Memory:
    """Bytes of read-ahead blocks held (requested, or arrived and not yet read past) by each
    owner, against a budget given at each request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held = {}  # owner id -> bytes
        self._grown = 0  # bytes the limit has grown by (late())
        self._opening = 0  # remote files being opened (opening())
        self.total: Any = 0
        self.peak: Any = 0

    def limit(self, budget: Any, block: Any, owner: Any = None, rest: Any = None) -> Any:
        """What the blocks ahead may hold now: START_BLOCKS blocks of `block` bytes, or
        START_BLOCKS_PER_FILE per file holding blocks or being opened if more, plus what late()
        added, within `budget`.

        The whole budget for `owner` when `rest` (the bytes from the block it asks for to
        its file's end) fits in its share with what it holds: it asks for the rest of its file
        now, rather than in a later round of requests. Files read at once end together, so
        the interleave waits on that last round whole: 6 files of 39 MB behind 30 ms
        (bench/remote_bench.py) read in two rounds of 135 ms where one would do."""
        if owner is not None and rest is not None:
            with self._lock:
                if self._held.get(owner, 0) + rest <= self._share(owner, budget):
                    return budget
        files = len(self._held) + self._opening  # read unlocked: a stale count is harmless
        return min(budget, max(START_BLOCKS, START_BLOCKS_PER_FILE * files) * block + self._grown)

    def _share(self, owner, budget):
        """An owner's equal share of `budget`: among those holding blocks and the files being
        opened. Lock held."""
        return budget // (len(self._held) + (owner not in self._held) + self._opening)

    def late(self, budget: Any, block: Any) -> None:
        """A reader found the block it moved on to not there yet, the limit having kept blocks
        ahead back: the limit grows by a block, up to `budget`."""
        with self._lock:
            if self.limit(budget, block) < budget:
                self._grown += block

    @contextlib.contextmanager
    def opening(self) -> Iterator[None]:
        """Counts a remote file as a holder while it is being opened: files opened together (a
        pipeline's cycle) share the budget evenly from their first requests on, rather than
        those opened first taking what the others' first blocks ahead need (the interleave
        then waits on the others' second blocks, all of it)."""
        with self._lock:
            self._opening += 1
        try:
            yield
        finally:
            with self._lock:
                self._opening -= 1

    def take(self, owner: Any, n: Any, budget: Any, needed: Any = False) -> bool:
        """Counts `n` more bytes for `owner` and returns True, unless the block is not
        `needed` and the budget, or the owner's equal share of it, has no room for it: the
        share of the owners holding blocks and the files being opened."""
        with self._lock:
            mine = self._held.get(owner, 0)
            if not needed and (self.total + n > budget or mine + n > self._share(owner, budget)):
                return False
            self._held[owner] = mine + n
            self.total += n
            self.peak = max(self.peak, self.total)
            return True

    def give(self, owner: Any, n: Any) -> None:
        with self._lock:
            left = self._held.get(owner, 0) - n
            if left > 0:
                self._held[owner] = left
            else:
                self._held.pop(owner, None)
            self.total -= n

    def held(self, owner: Any = None) -> int:
        with self._lock:
            return self.total if owner is None else self._held.get(owner, 0)

    def reset_peak(self) -> None:
        with self._lock:
            self.peak = self.total


# What every remote reader of the process holds (gfile.read_ahead_memory reports it).
MEMORY = Memory()


class Buffers:
    """Block buffers used again. Memory new to the process costs a page fault and the kernel's
    zeroing per page, 0.2-2 s per GB on the 2-core VMs benchmarked (bench/remote_bench.py),
    where a block's body takes ~0.3 s per GB to arrive; whether the allocator keeps freed 8 MiB
    blocks depends on its settings (swigflow.io.tf_record's RetainFreedMemory, MALLOC_*), so
    the blocks are kept here. take() lends a buffer from a free list; when nothing refers to it
    any more (the array lent, and every view of it, gone: the store's answer, the read-ahead
    block, the native reader's view), it goes back to the list, which keeps at most `most()`
    bytes (a callable: the read-ahead budget, read when used)."""

    def __init__(self, most: Any, unit: Any = None) -> None:
        self._most = most
        self._unit = unit
        # Reentrant: a collection run by an allocation under it may end a lent array.
        self._lock = threading.RLock()
        self._free = {}  # size -> [arrays]
        self._held = 0  # bytes in the free lists

    def take(self, n: int) -> Any:
        """A writable uint8 array of n bytes, not zeroed: a view of a buffer of `unit()` bytes
        (a callable, read when used) where n is no more, so that a file's last, shorter block
        uses a buffer again rather than touching one of its own."""
        size = n if self._unit is None else max(n, self._unit())
        with self._lock:
            free = self._free.get(size)
            memory = free.pop() if free else None
            if memory is not None:
                self._held -= size
        if memory is None:
            # Pages of its own, given back to the kernel when it is dropped. Not numpy's
            # allocation: numpy asks for huge pages, whose first touch (2 MiB zeroed at a time)
            # cost the benchmark's first epoch more system time, and less predictably, than
            # small pages.
            memory = np.frombuffer(mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE), np.uint8)
        lent = memory[:n]  # the object whose end gives `memory` back
        weakref.finalize(lent, self._give, memory).atexit = False
        return lent

    def _give(self, memory):
        with self._lock:
            if self._held + memory.nbytes <= self._most():
                self._free.setdefault(memory.nbytes, []).append(memory)
                self._held += memory.nbytes

    def held(self) -> int:
        """Bytes in the free lists."""
        with self._lock:
            return self._held


class Pace:
    """Moving averages of how long a block takes to arrive and how long the reader takes
    between blocks, and the window of blocks ahead they call for."""

    def __init__(self) -> None:
        self.arrival_s: Any = None  # request to bytes
        self.between_s: Any = None  # one block wanted to the next, less the waits for it
        self._last_wanted = None
        self._waited = 0.0  # seconds waited on the store since the last block wanted

    @staticmethod
    def _mix(old, new):
        return new if old is None else old + _SMOOTHING * (new - old)

    def arrived(self, seconds: float | None) -> None:
        """A block came `seconds` after it was requested (called from any thread; a lost
        update of a moving average is harmless)."""
        self.arrival_s = self._mix(self.arrival_s, seconds)

    def wanted(self) -> None:
        """The reader moved on to a new block."""
        now = time.monotonic()
        if self._last_wanted is not None:
            self.between_s = self._mix(self.between_s, now - self._last_wanted - self._waited)
        self._last_wanted, self._waited = now, 0.0

    def waited(self, seconds: float) -> None:
        """The reader waited `seconds` for a block to arrive. Not counted in the time between
        blocks: that is the reader's own pace, which the window is to keep up with (counted,
        a reader held up by the store would measure the store's pace and keep its window)."""
        self._waited += seconds

    def window(self, most: Any) -> int:
        """Blocks to keep requested from the one wanted on (at least 1, at most `most`):
        `most` until both rates are measured."""
        arrival, between = self.arrival_s, self.between_s
        if arrival is None or not between:
            return most
        return max(1, min(most, math.ceil(arrival / between) + 1))


class DaemonPool:
    """Up to `threads` daemon threads running submitted calls, each answered by a
    concurrent.futures.Future. Unlike ThreadPoolExecutor's, its threads never hold up process
    exit: a remote request stalled on a silent store must not (its reader is gone by then, and
    the call is abandoned with it). A thread idle for `idle_s` seconds ends, so a pool that is
    no longer used (a ShardCache's, made per dataset) leaves no thread behind. A forked process
    starts threads of its own."""

    def __init__(self, threads: Any, name: str, idle_s: float = POOL_IDLE_S) -> None:
        self._most, self._name, self._idle_s = threads, name, idle_s
        self._lock = threading.Lock()
        self._queue, self._pid = None, None
        # Threads alive, those running a call, and calls queued that no thread has taken.
        self._started = self._busy = self._queued = 0
        self._named = 0  # threads ever started here: their names' numbers

    def submit(self, fn: Any, *args: Any) -> Any:
        future = concurrent.futures.Future()
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the parent's threads are not here
                self._queue, self._pid = queue.SimpleQueue(), os.getpid()
                self._started = self._busy = self._queued = 0
            self._queue.put((future, fn, args))
            self._queued += 1
            if self._started - self._busy < self._queued and self._started < self._most:
                self._started += 1
                self._named += 1
                threading.Thread(
                    target=self._work,
                    args=(self._queue,),
                    name=f"{self._name}-{self._named}",
                    daemon=True,
                ).start()
        return future

    def _work(self, calls):
        while True:
            try:
                call = calls.get(timeout=self._idle_s)
            except queue.Empty:
                with self._lock:
                    if not self._queued:  # no call for this thread: it ends
                        self._started -= 1
                        return
                continue  # one was queued just now
            with self._lock:
                self._queued -= 1
                self._busy += 1
            _run(*call)  # in a frame of its own: an idle thread holds nothing of its last
            del call
            with self._lock:
                self._busy -= 1


def _run(future, fn, args):
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = fn(*args)
    except BaseException as e:
        future.set_exception(e)
    else:
        future.set_result(result)
