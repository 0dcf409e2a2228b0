"""Dataset.cache(filename)'s file (swigflow.data.cache_format): every kind of element round-trips
exactly; a cut, emptied, damaged, foreign or pickled file raises DataLossError and runs nothing; a
killed pass's temporary file is cleaned up. Mutated files: tests/fuzz/test_cache_file_fuzz.py."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from data_util import values

import swigflow as sf
from swigflow import errors
from swigflow.data import Dataset, cache_format

ELEMENTS = [
    None,
    True,
    -(2**63),
    2**63 - 1,
    1.5,
    float("inf"),
    "ünï\ud800code",
    b"\x00\xffbytes",
    np.float32(2.5),
    np.bool_(False),
    np.arange(12, dtype=np.int16).reshape(3, 4),
    np.zeros((0, 3), np.float64),
    np.array([b"a", b"", b"\x00c"], dtype=object),
    np.array(["x", "yz"]),
    np.array([1 + 2j], np.complex64),
    (1, [2, "three"], {"k": np.ones(2)}),
    {"image": np.zeros((2, 2, 3), np.uint8), "label": np.int64(7), 3: "int key"},
    sf.SparseTensor([[0, 1], [2, 0]], np.array([b"p", b"q"], dtype=object), [3, 2]),
    sf.RaggedTensor.from_row_lengths(np.arange(5, dtype=np.float32), [2, 0, 3]),
    sf.RaggedTensor(sf.RaggedTensor.from_row_lengths(np.arange(4), [1, 3]), [0, 1, 2], None),
]


def same(a, b):
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (sf.SparseTensor, sf.RaggedTensor)):
        return type(a) is type(b) and all(
            same(getattr(a, f), getattr(b, f)) for f in type(a).__slots__
        )
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and (a == b or (a != a and b != b))


@pytest.mark.parametrize("element", ELEMENTS, ids=range(len(ELEMENTS)))
def test_every_kind_of_element_round_trips(element):
    assert same(cache_format.decode(cache_format.encode(element), "f", 0), element)


def test_values_the_format_cannot_hold_are_refused(tmp_path):
    for bad in (object(), 2**64, np.array([np.datetime64("2026-01-01")]), {1, 2}):
        with pytest.raises(TypeError, match="cache"):
            cache_format.encode(bad)
    path = str(tmp_path / "c")
    with pytest.raises(TypeError, match="cannot store a set"):
        values(Dataset.range(3).map(lambda x: {x}).cache(path))
    assert os.listdir(tmp_path) == []  # the failed pass left nothing


def load(path):
    with open(path, "rb") as f:
        return f.read()


def save(path, data):
    with open(path, "wb") as f:
        f.write(data)


def cached_file(tmp_path, n=50):
    path = str(tmp_path / "cache" / "c")
    dataset = Dataset.range(n).map(lambda x: {"x": x, "y": np.full([3], x, np.float32)})
    expected = values(dataset.cache(path))
    return path, path + ".swigflow_cache", expected


def read_again(path):
    def fails(_):
        raise AssertionError("the input must not be read again")

    return values(Dataset.range(50).map(fails).cache(path))


def test_a_complete_file_is_read_by_a_new_dataset(tmp_path):
    path, _, expected = cached_file(tmp_path)
    assert len(expected) == 50
    got = read_again(path)
    assert len(got) == 50 and all(same(a, b) for a, b in zip(got, expected))


def test_cut_at_an_element_boundary_or_emptied_raises(tmp_path):
    path, file, _ = cached_file(tmp_path)
    data = load(file)
    records = list(sf.io.tf_record_iterator(file))
    # The end of element 29: the header and 30 elements, each framed by 16 bytes.
    cut = sum(len(r) + 16 for r in records[:31])
    for size in (cut, 0, 10, len(data) - 1):
        save(file, data[:size])
        with pytest.raises(errors.DataLossError, match=os.path.basename(file)):
            read_again(path)


def test_damaged_or_foreign_files_raise_without_running_anything(tmp_path):
    path, file, _ = cached_file(tmp_path)
    flipped = bytearray(load(file))
    flipped[len(flipped) // 2] ^= 0x10
    save(file, flipped)
    with pytest.raises(errors.DataLossError):
        read_again(path)
    # A pickle that would run code when loaded: refused before anything is unpickled.
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    save(file, pickle.dumps(Exploit()))
    with pytest.raises(errors.DataLossError, match="not a swigflow cache file"):
        read_again(path)
    # The same payload inside a well-framed cache file: still only data.
    with sf.io.TFRecordWriter(file) as w:
        w.write(cache_format.HEADER)
        w.write(pickle.dumps(Exploit()))
        w.write(cache_format.trailer(1))
    with pytest.raises(errors.DataLossError, match="element 0 does not decode"):
        read_again(path)
    assert not marker.exists()
    # A trailer that miscounts.
    with sf.io.TFRecordWriter(file) as w:
        w.write(cache_format.HEADER)
        w.write(cache_format.encode(1))
        w.write(cache_format.trailer(2))
    with pytest.raises(errors.DataLossError, match="trailer counts 2"):
        read_again(path)


def test_a_killed_pass_leaves_no_temporary_file_behind(tmp_path):
    path = str(tmp_path / "c")
    code = (
        "import os, sys, numpy as np\n"
        "from swigflow.data import Dataset\n"
        "it = iter(Dataset.range(100).map(lambda x: np.full([1000], x)).cache(sys.argv[1]))\n"
        "next(it); next(it)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, path], capture_output=True)
    assert result.returncode == -9
    left = os.listdir(tmp_path)
    assert len(left) == 1 and ".tmp-" in left[0]  # the killed pass's file
    assert not os.path.exists(path + ".swigflow_cache")
    assert len(values(Dataset.range(5).cache(path))) == 5  # the next writer removes it
    assert sorted(os.listdir(tmp_path)) == ["c.swigflow_cache"]
