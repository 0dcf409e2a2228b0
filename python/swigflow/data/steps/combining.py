"""zip and concatenate: elements of several datasets."""

from swigflow.data.checks import INFINITE, UNKNOWN, check_count, state_fields
from swigflow.data.dataset import Dataset, check_index, iterate
from swigflow.data.elements import Failed


def zip_leaves(structure):
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

    def __init__(self, structure):
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
    def __init__(self, first, second):
        self._parts = [first, second]

    def _generate(self, state, epoch):
        part, inner = (0, None) if state is None else (state["part"], state["input"])
        for k in range(part, 2):
            for element, position in iterate(self._parts[k], inner if k == part else None, epoch):
                yield element, {"part": k, "input": position}

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._parts)
        if INFINITE in (a, b):
            return INFINITE
        return a + b if a >= 0 and b >= 0 else UNKNOWN

    def _get(self, index):
        check_index(self, index)
        first = self._parts[0]._cardinality()
        if 0 <= first <= index:
            return self._parts[1]._get(index - first)
        return self._parts[0]._get(index)

    def _signature(self):
        return f"Concatenate({self._parts[0]._signature()},{self._parts[1]._signature()})"

    def _check_state(self, state, where):
        if state is not None:
            part, inner = state_fields(state, where, part=0, input=None)
            check_count(part, f"{where}['part']", 0, 1)
            self._parts[part]._check_state(inner, f"{where}['input']")
