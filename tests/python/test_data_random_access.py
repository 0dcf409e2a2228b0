"""Random access (swigflow.data.experimental.at) and Dataset.global_shuffle on the Python path:
the permutation is a bijection with uniform positions, orders follow the seed rules of
shuffle(), iterators resume from their states, and failed elements raise for themselves only.
"""

import json
import math

import numpy as np
import pytest

from swigflow import errors
from swigflow.data import Dataset
from swigflow.data.experimental import at
from swigflow.data.index_shuffle import IndexPermutation


@pytest.mark.parametrize("table_max", [1 << 22, 0], ids=["table", "feistel"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 16, 17, 100, 1000, 4097])
def test_permutation_is_a_bijection(n, table_max):
    for key in (0, 1, -7, 2**70):
        perm = IndexPermutation(n, key, table_max=table_max)
        assert sorted(perm(i) for i in range(n)) == list(range(n))
        assert [perm(i) for i in range(n)] == [perm(i) for i in range(n)]  # a function of i
    with pytest.raises(IndexError):
        IndexPermutation(n, 0, table_max=table_max)(n)


@pytest.mark.parametrize(
    "n,table_max,keys", [(6, 1 << 22, 6000), (17, 0, 6000)], ids=["table", "feistel"]
)
def test_permutation_positions_are_uniform(n, table_max, keys):
    """Over many keys each element lands in each position about equally often: chi^2 over the
    n x n cells within 5 standard deviations of its (n - 1)^2 degrees of freedom. (A network of
    2-bit halves fails this for n = 6, hence the table for small n.) Keys give distinct
    orders."""
    counts = np.zeros((n, n))
    orders = set()
    for key in range(keys):
        perm = IndexPermutation(n, key, table_max=table_max)
        order = [perm(i) for i in range(n)]
        orders.add(tuple(order))
        counts[np.arange(n), order] += 1
    expected = keys / n
    dof = (n - 1) ** 2
    assert ((counts - expected) ** 2 / expected).sum() < dof + 5 * np.sqrt(2 * dof)
    assert len(orders) > 0.95 * min(keys, math.factorial(n))


def test_global_shuffle_seeds_follow_shuffle():
    """A seed gives each iterator of a dataset object its own order and a new dataset the
    first again; reshuffle_each_iteration=False keeps one order for every epoch and iterator
    (drawn once when unseeded)."""
    make = lambda: Dataset.range(50).global_shuffle(seed=3)  # noqa: E731
    ds = make()
    first, second = list(ds), list(ds)
    assert first != second and sorted(first) == sorted(second) == list(range(50))
    assert list(make()) == first
    fixed = Dataset.range(50).global_shuffle(reshuffle_each_iteration=False).repeat(3)
    out = [int(v) for v in fixed]
    assert out[:50] == out[50:100] == out[100:] != list(range(50))
    epochs = [int(v) for v in Dataset.range(50).global_shuffle(seed=3).repeat(2)]
    assert epochs[:50] != epochs[50:]


def test_global_shuffle_resumes_from_json_states():
    def make():
        return Dataset.range(30).map(lambda x: x * 10).batch(4).global_shuffle(seed=9).repeat(2)

    whole = [b.tolist() for b in make()]
    it = make().iterator()
    head = [next(it).tolist() for _ in range(11)]  # into the second epoch
    state = json.loads(json.dumps(it.state()))
    assert head + [b.tolist() for b in make().iterator(state=state)] == whole
    state["position"]["input"]["next"] = 99  # past the 8 batches of an epoch
    with pytest.raises(ValueError, match=r"\['next'\]: expected an int >= 0 and <= 8"):
        make().iterator(state=state)


def test_global_shuffle_failed_elements_raise_for_themselves():
    def f(x):
        if x == 3:
            raise KeyError("three")
        return x

    it = iter(Dataset.range(8).map(f).global_shuffle(seed=1))
    got, failures = [], 0
    while True:
        try:
            got.append(int(next(it)))
        except KeyError:
            failures += 1
        except StopIteration:
            break
    assert failures == 1 and sorted(got) == [0, 1, 2, 4, 5, 6, 7]


def test_global_shuffle_refuses_what_has_no_random_access():
    with pytest.raises(errors.FailedPreconditionError, match="FilterDataset does not support"):
        Dataset.range(5).filter(lambda x: x > 1).global_shuffle()
    with pytest.raises(errors.FailedPreconditionError, match="InterleaveDataset"):
        Dataset.range(2).interleave(lambda x: Dataset.range(x)).global_shuffle()


def test_at_over_combined_steps():
    a = Dataset.range(5)
    b = Dataset.from_tensor_slices({"x": np.arange(10.0), "y": [b"p"] * 10})
    ds = Dataset.zip((a.concatenate(Dataset.range(100, 103)), b)).enumerate(start=7).skip(1)
    elements = list(ds)
    assert len(elements) == ds.cardinality() == 7
    for i, element in enumerate(elements):
        index, (value, record) = at(ds, i)
        assert (index, value, record["x"], record["y"]) == (
            element[0], element[1][0], element[1][1]["x"], element[1][1]["y"]
        )  # fmt: skip
    shard = Dataset.range(20).shard(3, 2).batch(2)
    assert [at(shard, i).tolist() for i in range(len(shard))] == [b.tolist() for b in shard]
    assert at(Dataset.range(4).padded_batch(3), 1).tolist() == [3]
    shuffled = Dataset.range(9).shuffle(4)  # unseeded: one order for its random access
    assert sorted(int(at(shuffled, i)) for i in range(9)) == list(range(9))
    with pytest.raises(IndexError):
        at(Dataset.range(3).map(lambda x: [][x]), 1)
    with pytest.raises(errors.UnimplementedError, match="Random access is not implemented"):
        at(Dataset.range(3).window(2), 0)
    # Through steps that have random access, the one without it is named.
    filtered = Dataset.range(9).filter(lambda x: x > 2)
    for ds in (filtered.repeat(2), filtered.batch(2), filtered.map(abs).take(3)):
        with pytest.raises(errors.UnimplementedError, match=r"dataset FilterDataset$"):
            at(ds, 0)
