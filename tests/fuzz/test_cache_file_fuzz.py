"""Fuzzes the reader of Dataset.cache(filename)'s files (swigflow.data.cache_format): random bit
flips, cuts, insertions and zeroed words of valid files, and framed records of random bytes,
must end in DataLossError or in the exact elements, never anything else.

The fuzzing runs in a child process. When the extension was built with --config=asan (CI runs
//tests/fuzz/... so), the child loads the AddressSanitizer runtime first (LD_PRELOAD), so the
native code the reader goes through (the TFRecord reader, its CRCs, the file layer) runs
instrumented under ASan and UBSan.
"""

import contextlib
import importlib.util
import os
import random
import subprocess
import sys

import numpy as np

TRIALS = int(os.environ.get("CACHE_FUZZ_TRIALS", "6000"))


def fuzz(directory, trials, seed):
    """Runs in the child: returns how many mutated files read back exactly."""
    from swigflow import errors
    from swigflow.data import Dataset, cache_format

    def elements(x):
        return {"x": x, "y": np.full([3], x, np.float32), "s": [b"ab" * x, "t"], "n": None}

    def read(path, n):
        got = []
        it = iter(Dataset.range(n).map(lambda _: 1 / 0).cache(path))
        for element in it:
            got.append(element)
        return got

    def same(a, b):
        if isinstance(a, dict):
            return type(b) is dict and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
        if isinstance(a, (np.ndarray, np.generic)):
            return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
        return type(a) is type(b) and a == b

    rng = random.Random(seed)
    exact = 0
    for n in (0, 1, 8):
        path = os.path.join(directory, f"c{n}")
        expected = list(Dataset.range(n).map(elements).cache(path))
        file = path + ".swigflow_cache"
        with open(file, "rb") as f:
            original = f.read()
        for trial in range(trials // 3):
            data = bytearray(original)
            for _ in range(rng.randint(1, 4)):
                kind, at = rng.randrange(4), rng.randrange(len(data))
                if kind == 0:
                    data[at] ^= 1 << rng.randrange(8)
                elif kind == 1:
                    del data[at:]
                elif kind == 2:
                    data[at:at] = rng.randbytes(rng.randint(1, 16))
                else:
                    data[at : at + 8] = bytes(8)
                if not data:
                    break
            with open(file, "wb") as f:
                f.write(data)
            try:
                got = read(path, n)
            except errors.DataLossError:
                continue
            assert len(got) == len(expected) and all(map(same, got, expected)), (n, trial)
            exact += 1
    # Records whose payloads are random: the decoder's own checks, past the CRCs.
    for _ in range(trials):
        payload = rng.choice(b"NTFifsyagPRtld").to_bytes(1, "little")
        payload += rng.randbytes(rng.randint(0, 64))
        with contextlib.suppress(errors.DataLossError):
            cache_format.decode(payload, "f", 0)
    return exact


def _extension():
    """The path of swigflow's extension module, found without importing it: an ASan build
    cannot load into this process (its runtime must come first)."""
    (package,) = importlib.util.find_spec("swigflow").submodule_search_locations
    (name,) = (n for n in os.listdir(package) if n.startswith("_pywrap_swigflow") and ".so" in n)
    return os.path.join(package, name)


def _asan_runtime(extension):
    """The ASan runtime to preload when `extension` was built with it, else None."""
    with open(extension, "rb") as f:
        if b"libasan.so" not in f.read():
            return None
    cc = os.environ.get("CC", "gcc")
    found = subprocess.run(
        [cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert os.path.isabs(found), f"{cc} does not know where libasan.so is: {found!r}"
    return found


def test_mutated_cache_files_raise_data_loss_or_read_exactly(tmp_path):
    env = dict(os.environ)
    runtime = _asan_runtime(_extension())
    if runtime is not None:
        env["LD_PRELOAD"] = runtime
        # CPython keeps its own objects alive at exit: leaks are the native tests' to find.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    result = subprocess.run(
        [sys.executable, __file__, str(tmp_path), str(TRIALS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    assert "AddressSanitizer" not in result.stderr and "runtime error" not in result.stderr
    words = result.stdout.split()
    assert int(words[words.index("exact") + 1]) > 0, result.stdout  # some mutations leave it intact
    assert words[words.index("asan") + 1] == str(runtime is not None), result.stdout


if __name__ == "__main__":
    print("exact", fuzz(sys.argv[1], int(sys.argv[2]), seed=20261127))
    with open("/proc/self/maps") as maps:  # whether the sanitizers' runtime ran the native code
        print("asan", any("libasan" in line for line in maps))
