"""zip, concatenate, choose_from_datasets and sample_from_datasets: elements of several
datasets."""

from __future__ import annotations

from typing import Any

import numpy as np

from swigflow import errors
from swigflow.data.checks import INFINITE, UNKNOWN, check_count, state_fields
from swigflow.data.dataset import Dataset
from swigflow.data.elements import Failed, as_array
from swigflow.data.protocol import check_index, iterate
from swigflow.data.structure import concatenated_spec, sampled_spec
from swigflow.specs import TensorSpec, UnknownSpec


def zip_leaves(structure: Any) -> list[Any]:
    """The datasets of a zip structure in order, or None when something else is in it."""
    if isinstance(structure, Dataset):
        return [structure]
    if isinstance(structure, dict):
        parts = list(structure.values())
    elif isinstance(structure, (tuple, list)):
        parts = list(structure)
    else:
        return None
    leaves = [zip_leaves(part) for part in parts]
    if not parts or any(found is None for found in leaves):
        return None
    return [d for found in leaves for d in found]


def zip_datasets(args: Any, datasets: Any) -> Any:
    """Dataset.zip(*args, datasets=...): one structure of datasets, checked."""
    if datasets is not None and args:
        raise TypeError("Both `*args` and `datasets` cannot be set.")
    if datasets is None:
        datasets = args[0] if len(args) == 1 else args
    if not zip_leaves(datasets):
        raise TypeError(
            f"zip takes datasets, or a (nested) tuple or dict of them, got {datasets!r}"
        )
    return Zip(datasets)


def _zip_pack(structure, elements):
    """`structure` with its datasets replaced, in order, by the next of `elements` (an iterator):
    tuples, namedtuples and dicts keep their kind; a list of datasets gives a tuple."""
    if isinstance(structure, Dataset):
        return next(elements)
    if isinstance(structure, dict):
        return {k: _zip_pack(v, elements) for k, v in structure.items()}
    packed = [_zip_pack(part, elements) for part in structure]
    return type(structure)(*packed) if hasattr(structure, "_fields") else tuple(packed)


class Zip(Dataset):
    _NOT_IDENTITY = frozenset({"_inputs"})  # the structure holds them

    def __init__(self, structure: Any) -> None:
        self._structure = structure  # a dataset, or nested tuples / namedtuples / dicts of them
        self._inputs = zip_leaves(structure)

    def _generate(self, state, epoch):
        states = [None] * len(self._inputs) if state is None else list(state)
        sources = [iterate(d, st, epoch) for d, st in zip(self._inputs, states)]
        while True:
            items = [next(source, None) for source in sources]
            if any(item is None for item in items):
                return
            elements = [element for element, _ in items]
            positions = [position for _, position in items]
            failed = next((e for e in elements if type(e) is Failed), None)
            if failed is not None:
                yield failed, positions
            else:
                yield _zip_pack(self._structure, iter(elements)), positions

    def _element_spec(self):
        specs = iter([d.element_spec for d in self._inputs])
        return _zip_pack(self._structure, specs)

    def _cardinality(self):
        counts = [d._cardinality() for d in self._inputs]
        finite = [n for n in counts if n >= 0]
        if finite and all(n >= 0 or n == INFINITE for n in counts):
            return min(finite)
        if all(n == INFINITE for n in counts):
            return INFINITE
        return UNKNOWN

    def _get(self, index):
        check_index(self, index)
        elements = [d._get(index) for d in self._inputs]
        failed = next((e for e in elements if type(e) is Failed), None)
        if failed is not None:
            return failed
        return _zip_pack(self._structure, iter(elements))

    def _signature(self):
        return "Zip(" + ",".join(d._signature() for d in self._inputs) + ")"

    def _check_state(self, state, where):
        if state is None:
            return
        if not isinstance(state, list) or len(state) != len(self._inputs):
            raise ValueError(
                f"{where}: expected a list of {len(self._inputs)} states, got {state!r}"
            )
        for i, (d, st) in enumerate(zip(self._inputs, state)):
            d._check_state(st, f"{where}[{i}]")


class Concatenate(Dataset):
    """The parts' elements one part after the other. A chain of concatenations is one step
    over all its parts (tf.data's 1,000 nested concatenates stay far from Python's recursion
    limit)."""

    def __init__(self, first: Any, second: Any) -> None:
        self._parts = [
            p for d in (first, second) for p in (d._parts if type(d) is Concatenate else [d])
        ]
        # TypeError now for elements that differ, as tf.data (the chain's own spec is known).
        self._spec = concatenated_spec(first.element_spec, second.element_spec)

    def _element_spec(self):
        return self._spec

    def _generate(self, state, epoch):
        part, inner = (0, None) if state is None else (state["part"], state["input"])
        for k in range(part, len(self._parts)):
            for element, position in iterate(self._parts[k], inner if k == part else None, epoch):
                yield element, {"part": k, "input": position}

    def _cardinality(self):
        counts = [d._cardinality() for d in self._parts]
        if INFINITE in counts:
            return INFINITE
        return sum(counts) if all(n >= 0 for n in counts) else UNKNOWN

    def _get(self, index):
        check_index(self, index)
        for part in self._parts[:-1]:
            count = part._cardinality()
            if not 0 <= count <= index:
                return part._get(index)
            index -= count
        return self._parts[-1]._get(index)

    def _signature(self):
        return f"Concatenate({','.join(p._signature() for p in self._parts)})"

    def _check_state(self, state, where):
        if state is not None:
            part, inner = state_fields(state, where, part=0, input=None)
            check_count(part, f"{where}['part']", 0, len(self._parts) - 1)
            self._parts[part]._check_state(inner, f"{where}['input']")


def bad_choice(found: Any) -> TypeError:
    """tf.data's TypeError for selector elements that are not scalar int64s (`found`)."""
    return TypeError(
        "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
        f"tensors but are {found}."
    )


def choice_index(choice: Any, count: int | None) -> int:
    """A selector element as an input's index: a scalar int64 (tf.data's rule), in range."""
    if not (isinstance(choice, (np.integer, np.ndarray)) and np.ndim(choice) == 0):
        raise bad_choice(repr(choice))
    if np.asarray(choice).dtype != np.int64:
        raise bad_choice(np.asarray(choice).dtype)
    index = int(choice)
    if not 0 <= index < count:
        raise errors.InvalidArgumentError(f"Selector index out of range: {index} >= {count}")
    return index


class DirectedInterleave(Dataset):
    """The element of input selector[i] for each selector element i (choose_from_datasets,
    and sample_from_datasets with a selector of random draws). An input that ends is skipped
    from then on, or ends the dataset with stop_on_empty; the dataset also ends with the
    selector or when every input has ended. A bad selector element raises for that element.
    A state is the selector's position, each input's position and which inputs ended."""

    def __init__(self, selector: Any, inputs: Any, stop_on_empty: Any) -> None:
        self._selector = selector
        self._inputs = list(inputs)
        self._stop_on_empty = bool(stop_on_empty)
        self.element_spec  # noqa: B018 - TypeError now for inputs that differ, as tf.data

    def _element_spec(self):
        return sampled_spec([d.element_spec for d in self._inputs])

    def _generate(self, state, epoch):
        n = len(self._inputs)
        if state is None:
            state = {"selector": None, "inputs": [None] * n, "ended": [0] * n}
        positions, ended = list(state["inputs"]), list(state["ended"])
        sources = [None] * n
        for choice, where in iterate(self._selector, state["selector"], epoch):
            if type(choice) is not Failed:
                try:
                    choice = choice_index(choice, n)
                except (TypeError, errors.OpError) as e:
                    choice = Failed(e)
            if type(choice) is Failed:
                yield choice, {"selector": where, "inputs": list(positions), "ended": list(ended)}
                continue
            if ended[choice]:
                continue
            if sources[choice] is None:
                sources[choice] = iterate(self._inputs[choice], positions[choice], epoch)
            item = next(sources[choice], None)
            if item is None:
                ended[choice] = 1
                if self._stop_on_empty or all(ended):
                    return
                continue
            element, positions[choice] = item
            yield element, {"selector": where, "inputs": list(positions), "ended": list(ended)}

    def _cardinality(self):
        counts = [d._cardinality() for d in [self._selector, *self._inputs]]
        return INFINITE if all(c == INFINITE for c in counts) else UNKNOWN

    def _signature(self):
        inputs = ",".join(d._signature() for d in self._inputs)
        return f"DirectedInterleave({self._selector._signature()};{inputs})"

    def _check_state(self, state, where):
        if state is None:
            return
        selector, positions, ended = state_fields(
            state, where, selector=None, inputs=None, ended=None
        )
        self._selector._check_state(selector, f"{where}['selector']")
        n = len(self._inputs)
        for name, value in (("inputs", positions), ("ended", ended)):
            if not isinstance(value, list) or len(value) != n:
                raise ValueError(f"{where}[{name!r}]: expected a list of {n}, got {value!r}")
        for i, (d, position, done) in enumerate(zip(self._inputs, positions, ended)):
            d._check_state(position, f"{where}['inputs'][{i}]")
            check_count(done, f"{where}['ended'][{i}]", 0, 1)


def check_datasets(datasets: Any) -> Any:
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. Expected datasets, got {d!r}.")
    return datasets


def choose_from_datasets(
    datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool
) -> Any:
    datasets = check_datasets(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(
            "Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
            f"{type(choice_dataset)}."
        )
    choice = choice_dataset.element_spec
    known = not isinstance(choice, UnknownSpec)
    if known and not (
        type(choice) is TensorSpec
        and choice.dtype == np.int64
        and choice.shape.is_compatible_with(())
    ):
        raise bad_choice(repr(choice))
    return DirectedInterleave(choice_dataset, datasets, stop_on_empty_dataset)


def _float_weights(weights, what):
    array = as_array(list(weights) if isinstance(weights, tuple) else weights)
    if array.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"Invalid `{what}`. `{what}` type must be either `tf.float32` or `tf.float64` but "
            f"is <dtype: '{array.dtype}'>."
        )
    return array


class WeightedChoice:
    """An index drawn with probability weights[i] / sum(weights) from a random value (a
    Dataset.random element, uniform in [0, 2^32)); sample_from_datasets' selector maps one
    over (weights, value) pairs."""

    def __init__(self, count: int | None) -> None:
        self._count = count

    def __call__(self, weights: Any, value: Any) -> np.int64:
        weights = _float_weights(weights, "weights").astype(np.float64)
        if weights.shape != (self._count,):
            raise errors.InvalidArgumentError(
                f"each element of `weights` must have shape [{self._count}], got "
                f"{list(weights.shape)}"
            )
        if not (np.all(np.isfinite(weights)) and np.all(weights >= 0) and weights.sum() > 0):
            raise errors.InvalidArgumentError(
                f"weights must be finite, non-negative and not all zero, got {weights.tolist()}"
            )
        cumulative = np.cumsum(weights)
        u = (int(value) + 0.5) / 2.0**32 * cumulative[-1]
        return np.int64(min(int(np.searchsorted(cumulative, u, side="right")), self._count - 1))


def sample_from_datasets(
    datasets: Any, weights: Any, seed: int | None, stop_on_empty_dataset: bool, rerandomize: Any
) -> Any:
    from swigflow.data.sources import FromTensors, RandomValues
    from swigflow.data.steps.mapping import Map
    from swigflow.data.steps.slicing import Repeat, Take

    datasets = check_datasets(datasets)
    if isinstance(weights, Dataset):
        weighted = weights
    else:
        if weights is None:
            weights = np.ones(len(datasets), np.float32)
        elif len(weights) != len(datasets):
            raise ValueError(
                "Invalid `weights`. `weights` should have the same length as `datasets` but got "
                f"`len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`."
            )
        weights = _float_weights(weights, "weights")
        kept = [i for i, w in enumerate(weights) if w > 0]  # tf.data skips zero weights
        if not kept:
            return Take(datasets[0], 0)
        if len(kept) == 1:
            return datasets[kept[0]]
        datasets = [datasets[i] for i in kept]
        weighted = Repeat(FromTensors(weights[kept]), None)
    values = RandomValues(seed, rerandomize)
    selector = Map(Zip((weighted, values)), WeightedChoice(len(datasets)), None)
    return DirectedInterleave(selector, datasets, stop_on_empty_dataset)
