"""swigflow.data: tf.data's iterator semantics that used to go silently wrong (element types,
shared iterators, prefetch depth, failing user functions), checked against tf.data's own
behaviour as its tests state it (map_test, filter_test, prefetch_test, range_test,
from_tensor_slices_test)."""

import contextlib
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from data_util import make_files, values

from swigflow import errors
from swigflow.data import AUTOTUNE, Dataset, TFRecordDataset


def drain(iterator):
    """Every element, with "error: <type>" in place of an element whose function raised."""
    out = []
    while True:
        try:
            out.append(next(iterator))
        except StopIteration:
            return out
        except Exception as e:  # recorded, then iteration goes on
            out.append(f"error: {type(e).__name__}")


# --- one iterator, several threads --------------------------------------------------------------


def drain_from_threads(iterator, threads):
    """Every element of one shared iterator, taken by `threads` threads at once."""
    got, failures = [], []
    lock = threading.Lock()

    def consume():
        try:
            for value in iterator:
                with lock:
                    got.append(value)
        except Exception as e:  # reported below
            failures.append(e)

    workers = [threading.Thread(target=consume) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert failures == []
    return got


@pytest.mark.parametrize(
    "make",
    [
        lambda: Dataset.range(3000).map(lambda x: x * 2, num_parallel_calls=4),
        lambda: Dataset.range(3000).map(lambda x: x * 2).prefetch(3),
        lambda: Dataset.range(3000).map(lambda x: x * 2, num_parallel_calls=AUTOTUNE).prefetch(2),
    ],
    ids=["parallel_map", "prefetch", "both"],
)
def test_one_iterator_shared_by_threads_gives_each_element_once(make):
    got = drain_from_threads(iter(make()), 6)
    assert sorted(int(v) for v in got) == [2 * i for i in range(3000)]


def test_native_iterator_shared_by_threads(tmp_path):
    paths = make_files(str(tmp_path), [300, 200, 100])
    got = drain_from_threads(iter(TFRecordDataset(paths, num_parallel_reads=3).prefetch(2)), 4)
    assert sorted(got) == sorted(TFRecordDataset(paths))


# --- range --------------------------------------------------------------------------------------


def test_range_follows_python_and_rejects_a_zero_step():
    assert [int(x) for x in Dataset.range(5)] == [0, 1, 2, 3, 4]
    assert [int(x) for x in Dataset.range(2, 5)] == [2, 3, 4]
    assert [int(x) for x in Dataset.range(1, 5, 2)] == [1, 3]
    assert [int(x) for x in Dataset.range(1, 5, -2)] == []
    assert [int(x) for x in Dataset.range(5, 1, -2)] == [5, 3]
    assert next(iter(Dataset.range(3))).dtype == np.int64
    assert next(iter(Dataset.range(1, 5, 2, output_type=np.float32))).dtype == np.float32
    with pytest.raises(errors.InvalidArgumentError, match="step must be a non-zero integer"):
        Dataset.range(2, 10, 0)
    with pytest.raises(ValueError):
        Dataset.range()


# --- prefetch -----------------------------------------------------------------------------------


def calls_ahead(buffer_size):
    """How many elements the map function has computed when one has been consumed."""
    calls = []
    iterator = iter(
        Dataset.range(50).map(lambda x: calls.append(int(x)) or x).prefetch(buffer_size)
    )
    next(iterator)
    time.sleep(0.2)  # long enough for the producer to fill whatever it may
    return len(calls) - 1


@pytest.mark.parametrize("buffer_size", [1, 2, 5])
def test_prefetch_n_runs_exactly_n_elements_ahead(buffer_size):
    assert calls_ahead(buffer_size) == buffer_size


def test_prefetch_zero_means_no_prefetching(tmp_path):
    assert calls_ahead(0) == 0
    assert [int(x) for x in Dataset.range(4).prefetch(0)] == [0, 1, 2, 3]
    paths = make_files(str(tmp_path), [10])
    assert list(TFRecordDataset(paths).prefetch(0)) == list(TFRecordDataset(paths))
    with pytest.raises(errors.InvalidArgumentError, match="buffer_size"):
        Dataset.range(3).prefetch(-5)


# --- from_tensor_slices: tf.data's dtypes -------------------------------------------------------


def test_python_values_get_tf_dtypes():
    def first(tensors):
        return next(iter(Dataset.from_tensor_slices(tensors)))

    assert first([1, 2, 3]).dtype == np.int32
    assert first([[1, 2], [3, 4]]).dtype == np.int32
    assert first([1, 2**40]).dtype == np.int64  # does not fit int32
    assert first([1.5, 2.0]).dtype == np.float32
    assert first([1, 2.5]).dtype == np.float32
    assert first([True, False]).dtype == np.bool_
    assert first(["a", "b"]) == b"a"
    assert first([b"a", "b"]) == b"a"
    x, y = first(([1, 2], [0.5, 1.5]))
    assert (x.dtype, y.dtype) == (np.int32, np.float32)
    assert first({"a": [1, 2]})["a"].dtype == np.int32
    # numpy keeps its dtype.
    assert first(np.array([1, 2])).dtype == np.int64
    assert first(np.array([1.0, 2.0])).dtype == np.float64
    assert first([np.float64(1.0), np.float64(2.0)]).dtype == np.float64


# --- user functions: tuples unpacked, exceptions per element ------------------------------------


def test_map_and_filter_unpack_tuple_elements():
    ds = Dataset.from_tensor_slices(([1, 2, 3, 4], [10, 20, 30, 40]))
    assert [int(v) for v in ds.map(lambda x, y: x + y)] == [11, 22, 33, 44]
    assert [(int(x), int(y)) for x, y in ds.filter(lambda x, y: (x + y) % 2 == 0)] == [
        (2, 20),
        (4, 40),
    ]
    pairs = ds.map(lambda x, y: (y, x), num_parallel_calls=2)
    assert [(int(a), int(b)) for a, b in pairs] == [(10, 1), (20, 2), (30, 3), (40, 4)]
    # Dicts are passed whole.
    dicts = Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert [int(v) for v in dicts.map(lambda e: e["a"] * e["b"])] == [3, 8]
    nested = Dataset.range(3).map(lambda x: (x, x * 2)).map(lambda a, b: a + b)
    assert [int(v) for v in nested] == [0, 3, 6]


def stop_at_3(x):
    if x == 3:
        raise StopIteration("no more")
    return x


@pytest.mark.parametrize("parallel", [None, 3])
def test_stop_iteration_in_map_raises_invalid_argument_for_that_element(parallel):
    out = drain(iter(Dataset.range(6).map(stop_at_3, num_parallel_calls=parallel)))
    assert out[:3] == [0, 1, 2]
    assert out[3] == "error: InvalidArgumentError"
    assert out[4:] == [4, 5]  # iteration went on


def test_an_exception_in_map_is_raised_for_its_element_only():
    def fail_on_odd(x):
        if x % 2:
            raise ValueError(f"odd {x}")
        return x

    assert drain(iter(Dataset.range(5).map(fail_on_odd))) == [
        0,
        "error: ValueError",
        2,
        "error: ValueError",
        4,
    ]
    assert drain(iter(Dataset.range(5).map(fail_on_odd, num_parallel_calls=2).prefetch(2))) == [
        0,
        "error: ValueError",
        2,
        "error: ValueError",
        4,
    ]
    # A predicate's exception comes out as tf.data reports it (InvalidArgumentError naming the
    # transformation), chained to the original.
    assert drain(iter(Dataset.range(5).filter(lambda x: 1 // (int(x) - 2) or True))) == [
        0,
        1,
        "error: InvalidArgumentError",
        3,
        4,
    ]
    # As in tf.data, a failed element takes no place in take() and loses its partial batch.
    assert drain(iter(Dataset.range(6).map(fail_on_odd).take(2))) == [
        0,
        "error: ValueError",
        2,
    ]
    batched = drain(iter(Dataset.range(8).map(lambda x: stop_at_3(x)).batch(2)))
    assert [b if isinstance(b, str) else b.tolist() for b in batched] == [
        [0, 1],
        "error: InvalidArgumentError",
        [4, 5],
        [6, 7],
    ]


def test_interleave_reports_a_failing_function_and_goes_on():
    def sub(x):
        if x == 1:
            raise KeyError(x)
        return Dataset.range(x * 10, x * 10 + 2)

    out = drain(iter(Dataset.range(3).interleave(sub, cycle_length=1)))
    assert out == [0, 1, "error: KeyError", 20, 21]


def test_a_failed_element_is_passed_by_shuffle_shard_and_repeat():
    def fail_on_5(x):
        if x == 5:
            raise ValueError("five")
        return x

    out = drain(iter(Dataset.range(10).map(fail_on_5).shuffle(4, seed=1).repeat(2)))
    assert out.count("error: ValueError") == 2
    assert sorted(v for v in out if not isinstance(v, str)) == sorted(
        [v for v in range(10) if v != 5] * 2
    )
    sharded = drain(iter(Dataset.range(10).map(fail_on_5).shard(3, 0)))
    # As in tf.data, the failed element holds no index: 6 takes its place.
    assert sharded == [0, 3, "error: ValueError", 7]


# --- shuffle seeds ------------------------------------------------------------------------------


def test_unseeded_shuffle_without_reshuffling_keeps_one_order(tmp_path):
    ds = Dataset.range(20).shuffle(20, reshuffle_each_iteration=False)
    two_epochs = [int(x) for x in ds.repeat(2)]
    assert two_epochs[:20] == two_epochs[20:]
    assert [int(x) for x in ds] == two_epochs[:20]  # a second iterator: the same order
    assert sorted(two_epochs[:20]) == list(range(20))
    paths = make_files(str(tmp_path), [50])
    records = TFRecordDataset(paths).shuffle(50, reshuffle_each_iteration=False)
    assert list(records) == list(records)


# --- tampered iterator states -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "bad", "field"),
    [
        (lambda: Dataset.range(10), "x", "state['position']"),
        (lambda: Dataset.range(10), 11, "state['position']"),
        (lambda: Dataset.range(10), -1, "state['position']"),
        (lambda: Dataset.range(10).take(3), {"taken": 4, "input": 0}, "['taken']"),
        (lambda: Dataset.range(10).repeat(2), {"epoch": 2, "input": 0}, "['epoch']"),
        (lambda: Dataset.range(10).repeat(2), {"epoch": 0}, "expected a dict with"),
        (lambda: Dataset.range(10).shard(2, 0), {"seen": "1", "input": 0}, "['seen']"),
        (lambda: Dataset.range(10).map(abs), [1], "state['position']"),
        (lambda: Dataset.range(10).shuffle(3, seed=1), {"seed": 1, "emitted": 1.5}, "emitted"),
    ],
)
def test_a_tampered_state_raises_one_clear_value_error(make, bad, field):
    dataset = make()
    state = dict(dataset.iterator().state(), position=bad)
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        dataset.iterator(state=state)
    with pytest.raises(ValueError, match="'pipeline', 'fingerprint' and 'position'"):
        dataset.iterator(state={"pipeline": state["pipeline"]})


def test_a_state_past_the_end_raises_instead_of_yielding_nothing(tmp_path):
    shuffled = Dataset.range(10).shuffle(4, seed=1)
    state = dict(shuffled.iterator().state(), position={"seed": 1, "emitted": 50})
    with pytest.raises(ValueError, match="only 10 elements"):
        list(shuffled.iterator(state=state))
    paths = make_files(str(tmp_path), [20])
    records = TFRecordDataset(paths)
    it = records.iterator()
    next(it)
    state = it.state()
    state["position"]["position"] = 500
    with pytest.raises(errors.InvalidArgumentError, match="cannot resume after record 500"):
        list(records.iterator(state=state))
    state["position"]["seed"] = "x"
    with pytest.raises(ValueError, match=r"\['seed'\]"):
        records.iterator(state=state)


# --- a state is bound to its dataset ----------------------------------------------------------


def _state_after(dataset, n):
    """The state after n elements (or all, when there are fewer)."""
    it = dataset.iterator()
    for _, _ in zip(range(n), it):
        pass
    return it.state()


def _scale(x):
    return x * 2


def _shift(x):
    return x + 2


def test_a_state_from_another_dataset_of_the_same_shape_is_refused(tmp_path):
    """Same steps, same file count: before states carried a fingerprint, each of these resumed
    silently at the other dataset's offset."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = make_files(str(tmp_path / "a"), [30])
    b = make_files(str(tmp_path / "b"), [30])
    pairs = [
        (lambda: TFRecordDataset(a).batch(4), lambda: TFRecordDataset(b).batch(4)),
        (lambda: TFRecordDataset(a).batch(4), lambda: TFRecordDataset(a).batch(5)),
        (lambda: Dataset.range(10).map(_scale), lambda: Dataset.range(10).map(_shift)),
        (lambda: Dataset.range(10).skip(2), lambda: Dataset.range(10).skip(3)),
        (
            lambda: Dataset.from_tensor_slices(np.arange(10)),
            lambda: Dataset.from_tensor_slices(np.arange(10) + 1),
        ),
        (lambda: Dataset.list_files(a), lambda: Dataset.list_files(b)),
    ]
    for make, other in pairs:
        state = _state_after(make(), 2)
        rest = values(make())[2:]
        assert values(make().iterator(state=state)) == rest
        with pytest.raises(ValueError, match="taken from an iterator over another"):
            other().iterator(state=state)


def test_a_state_is_refused_once_its_file_changed_size(tmp_path):
    paths = make_files(str(tmp_path), [30])
    state = _state_after(TFRecordDataset(paths), 5)
    make_files(str(tmp_path), [31])  # rewritten in place: same name, one more record
    with pytest.raises(ValueError, match="files, their sizes"):
        TFRecordDataset(paths).iterator(state=state)


_MAKE_IN_A_NEW_PROCESS = """
import json, sys
import numpy as np
from swigflow.data import Dataset, TFRecordDataset
from swigflow.io import FixedLenFeature, parse_example
paths = json.loads(sys.argv[1])
spec = {"id": FixedLenFeature([], "int64")}
pipelines = [
    TFRecordDataset(paths).shuffle(7, seed=3).batch(2).map(lambda s: parse_example(s, spec)),
    Dataset.from_tensor_slices({"x": np.arange(12.0), "y": np.array([b"a"] * 12)}).shuffle(4),
    Dataset.range(20).window(3).flat_map(lambda w: w).enumerate(start=4),
]
print(json.dumps([d.iterator().state()["fingerprint"] for d in pipelines]))
"""


def test_a_fingerprint_is_the_same_in_another_process(tmp_path):
    """States are saved by one process and resumed by another: the digest may not depend on
    object ids, string hashing or seeds drawn at random."""
    paths = make_files(str(tmp_path), [9, 4])
    runs = []
    for seed in (1, 2):
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        args = [sys.executable, "-c", _MAKE_IN_A_NEW_PROCESS, json.dumps(paths)]
        runs.append(
            subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
        )
    assert runs[0] == runs[1] and len(set(json.loads(runs[0]))) == 3


@pytest.mark.parametrize("huge", [1 << 63, 1 << 64, 1 << 80, -(1 << 63) - 1, -1])
def test_every_int_in_a_state_is_bounded(tmp_path, huge):
    """Any int of a state replaced by one out of range gives a ValueError (or, for a position
    in range that is past the end, the pipeline's typed error), never a raw OverflowError or
    IndexError from the layers below."""
    paths = make_files(str(tmp_path), [20, 20])
    pipelines = [
        lambda: TFRecordDataset(paths).shuffle(5, seed=3).repeat(2).batch(3),
        lambda: Dataset.from_tensor_slices(paths).interleave(TFRecordDataset, cycle_length=2),
        lambda: Dataset.range(6).interleave(lambda x: Dataset.range(x), cycle_length=2),
        lambda: Dataset.range(30).window(3).flat_map(lambda w: w),
        lambda: Dataset.range(30).group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), 4),
        lambda: Dataset.range(10).shuffle(3, seed=1).enumerate(start=3).skip(1).take(8),
        lambda: Dataset.zip((Dataset.range(5), Dataset.range(6).global_shuffle(seed=4))),
        lambda: Dataset.range(3).concatenate(Dataset.range(5)).cache().prefetch(2),
        lambda: Dataset.list_files(paths, shuffle=True, seed=2).shard(2, 1),
    ]

    def int_paths(x, path=()):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from int_paths(v, (*path, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from int_paths(v, (*path, i))
        elif type(x) is int:
            yield path

    for make in pipelines:
        state = _state_after(make(), 2)
        for where in int_paths(state):
            tampered = json.loads(json.dumps(state))
            holder = tampered
            for key in where[:-1]:
                holder = holder[key]
            holder[where[-1]] = huge
            with contextlib.suppress(ValueError, StopIteration, errors.InvalidArgumentError):
                next(make().iterator(state=tampered))


# --- from_tensors, zip, concatenate, enumerate, unbatch (tf.data's results, TF 2.21) ------------


def test_combining_datasets_as_tf_data():
    one = Dataset.from_tensors([1, 2])
    assert values(one) == [[1, 2]] and one.cardinality() == 1
    assert next(iter(one)).dtype == np.int32
    zipped = Dataset.zip((Dataset.range(3), Dataset.range(5)))
    assert values(zipped) == [(0, 0), (1, 1), (2, 2)] and zipped.cardinality() == 3
    assert values(Dataset.zip(Dataset.range(2), Dataset.range(2))) == [(0, 0), (1, 1)]
    assert values(Dataset.zip({"a": Dataset.range(2), "b": Dataset.range(2)})) == [
        {"a": 0, "b": 0},
        {"a": 1, "b": 1},
    ]
    assert Dataset.zip((Dataset.range(3), Dataset.range(2).repeat())).cardinality() == 3
    both = Dataset.range(2).concatenate(Dataset.range(3))
    assert values(both) == [0, 1, 0, 1, 2] and both.cardinality() == 5
    numbered = Dataset.from_tensor_slices([7, 8]).enumerate(start=5)
    assert values(numbered) == [(5, 7), (6, 8)]
    first = next(iter(numbered))
    assert first[0].dtype == np.int64 and first[1].dtype == np.int32
    flat = Dataset.from_tensor_slices([[1, 2], [3, 4]]).unbatch()
    assert values(flat) == [1, 2, 3, 4]
    assert values(Dataset.range(7).batch(3).unbatch()) == list(range(7))
    pairs = Dataset.zip((Dataset.range(4), Dataset.range(4))).batch(3).unbatch()
    assert values(pairs) == [(i, i) for i in range(4)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Dataset.zip((Dataset.range(10), Dataset.range(20).shuffle(5, seed=3))),
        lambda: Dataset.range(4).concatenate(Dataset.range(6).map(lambda x: x * 10)),
        lambda: Dataset.range(9).enumerate(start=2),
        lambda: Dataset.range(10).batch(4).unbatch(),
    ],
    ids=["zip", "concatenate", "enumerate", "unbatch"],
)
def test_combined_datasets_resume_exactly(make):
    whole = values(make())
    for stop in range(len(whole) + 1):
        dataset = make()  # a seeded shuffle's first iterator gives `whole`
        it = dataset.iterator()
        head = values(next(it) for _ in range(stop))
        rest = values(dataset.iterator(state=json.loads(json.dumps(it.state()))))
        assert head + rest == whole, stop


def test_argument_errors_use_tf_data_words():
    with pytest.raises(errors.InvalidArgumentError, match="Batch size must be greater than zero"):
        Dataset.range(3).batch(0)
    with pytest.raises(errors.InvalidArgumentError, match=r"currently num_shards = 0\)"):
        Dataset.range(3).shard(0, 0)
    with pytest.raises(errors.InvalidArgumentError, match=r"between 0 and 1 \(currently index = 2"):
        Dataset.range(3).shard(2, 2)
    with pytest.raises(errors.InvalidArgumentError, match="set buffer_size to be -1"):
        Dataset.range(3).prefetch(-5)


def test_interleave_opens_its_slots_as_the_cycle_reaches_them():
    opened = []

    def sub(x):
        opened.append(int(x))
        return Dataset.range(x * 10, x * 10 + 2)

    it = iter(Dataset.range(4).interleave(sub, cycle_length=3))
    assert int(next(it)) == 0 and opened == [0]
    assert values(it) == [10, 20, 1, 11, 21, 30, 31]
