"""A check that a native call releases the GIL, shared by the tests of GIL-releasing APIs."""

import sys
import threading
import time


def assert_releases_gil(call):
    """Runs call() while another Python thread records timestamps; fails unless that thread ran
    during the middle of the call, which it can only do if the call released the GIL. Returns
    call()'s result. The call should take tens of milliseconds."""
    stamps = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        while not stamps:
            time.sleep(0.001)
        start = time.perf_counter()
        result = call()
        end = time.perf_counter()
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old_interval)
    # Holding the GIL, the ticker could run only just before the call or just after it returned.
    middle = [s for s in stamps if start + 0.3 * (end - start) < s < start + 0.7 * (end - start)]
    assert middle, f"no ticks during the {1000 * (end - start):.1f} ms native call"
    return result
