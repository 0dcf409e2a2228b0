"""TFDS's split language: ``"train"``, ``"train[:10%]"``, ``"train[10:20]+test"``,
``ReadInstruction``, ``even_splits``, resolved into the same files and records as TFDS 4.9
(``splits.py``, ``subsplits_utils.py``, ``shard_utils.get_file_instructions``), with TFDS's
error messages (ValueError, as TFDS raises).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import re
from collections.abc import Mapping, Sequence
from typing import Any

_SPLITS_DOC = "https://www.tensorflow.org/datasets/splits"
_SUB_SPEC_RE = re.compile(r"^(?P<split_name>[\w-]+)(\[(?P<split_selector>[\d\w%:.-]+)\])?$")
_SLICE_RE = re.compile(r"^((?P<val>-?[\d_.]+)(?P<unit>(?:%|shard))?)?$")
_ADDITION_SEP_RE = re.compile(r"\s*\+\s*")


class Split(str):
    """A split name (``tfds.Split``): ``Split.TRAIN == "train"``."""

    def __repr__(self) -> str:
        return f"Split('{self}')"


Split.TRAIN = Split("train")
Split.TEST = Split("test")
Split.VALIDATION = Split("validation")
Split.ALL = Split("all")


@dataclasses.dataclass(frozen=True)
class FileInstruction:
    """Read `take` records (-1: to the end) of `filename` after skipping `skip`."""

    filename: str
    skip: int
    take: int
    examples_in_shard: int

    @property
    def takes_all(self) -> bool:
        return self.take == -1

    @property
    def num_examples(self) -> int:
        return self.examples_in_shard - self.skip if self.take == -1 else self.take


@dataclasses.dataclass(frozen=True)
class _AbsoluteInstruction:
    splitname: str
    from_: int | None  # None: the start
    to: int | None  # None: the end


class AbstractSplit:
    """What ``as_dataset(split=...)`` takes: added together with ``+``."""

    @classmethod
    def from_spec(cls, spec: Any) -> AbstractSplit:
        """The split that `spec` names.

        Args:
            spec: a split expression ("train[:10%]+test") or an AbstractSplit.

        Returns:
            An AbstractSplit.

        Raises:
            ValueError: a malformed expression.
        """
        if isinstance(spec, AbstractSplit):
            return spec
        spec = str(spec)
        subs = _ADDITION_SEP_RE.split(spec)
        if not subs:
            raise ValueError(f"No instructions could be built out of {spec!r}")
        try:
            instructions = [_str_to_relative_instruction(s) for s in subs]
        except (ValueError, NotImplementedError) as e:
            raise type(e)(
                f"Error parsing split {spec!r}. See format at: {_SPLITS_DOC}\n{e}"
            ) from None
        return functools.reduce(operator.add, instructions)

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[Any]:
        raise NotImplementedError

    def __add__(self, other: Any) -> AbstractSplit:
        if not isinstance(other, (str, AbstractSplit)):
            raise TypeError(f"Adding split {self!r} with non-split value: {other!r}")
        return _SplitAdd(self, AbstractSplit.from_spec(other))

    def __radd__(self, other: Any) -> AbstractSplit:
        if not isinstance(other, str):
            raise TypeError(f"Adding split {self!r} with non-split value: {other!r}")
        return _SplitAdd(AbstractSplit.from_spec(other), self)


@dataclasses.dataclass(frozen=True)
class _SplitAdd(AbstractSplit):
    left: AbstractSplit
    right: AbstractSplit

    def __repr__(self) -> str:
        return f"{self.left!r}+{self.right!r}"

    def to_absolute(self, split_infos):
        return self.left.to_absolute(split_infos) + self.right.to_absolute(split_infos)


class _SplitAll(AbstractSplit):
    def __repr__(self) -> str:
        return "ReadInstruction('all')"

    def to_absolute(self, split_infos):
        return AbstractSplit.from_spec("+".join(split_infos)).to_absolute(split_infos)


@dataclasses.dataclass(frozen=True)
class ReadInstruction(AbstractSplit):
    """``tfds.core.ReadInstruction``: ``split_name[from_:to]`` in unit "abs", "%" or "shard";
    percentages round to the closest record ("closest") or to whole percents
    ("pct1_dropremainder").

    Args:
        split_name: the split's name.
        from_: the first example (or percent, or shard), None: from the start.
        to: the end, exclusive, None: to the end; negative counts from the end.
        unit: "abs", "%" or "shard".
        rounding: "closest" or "pct1_dropremainder", for percents.
    """

    split_name: str
    from_: int | float | None = None
    to: int | float | None = None
    unit: str = "abs"
    rounding: str = "closest"

    def __post_init__(self) -> None:
        units, roundings = ["%", "abs", "shard"], ["closest", "pct1_dropremainder"]
        if self.unit not in units:
            raise ValueError(f"Unit should be one of {units}. Got {self.unit!r}")
        if self.rounding not in roundings:
            raise ValueError(f"Rounding should be one of {roundings}. Got: {self.rounding!r}")
        if self.unit == "%" and (abs(self.from_ or 0) > 100 or abs(self.to or 0) > 100):
            raise ValueError(
                f"When unit=%, percent slice boundaries should be in [-100, 100]. Got: {self}"
            )

    def __repr__(self) -> str:
        unit = "" if self.unit == "abs" else self.unit
        from_ = "" if self.from_ is None else f"{self.from_:g}{unit}"
        to = "" if self.to is None else f"{self.to:g}{unit}"
        sliced = "" if self.from_ is None and self.to is None else f"[{from_}:{to}]"
        rounding = f", rounding={self.rounding!r}" if self.unit == "%" else ""
        return f"ReadInstruction('{self.split_name}{sliced}'{rounding})"

    __str__ = __repr__

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[Any]:
        """This instruction in examples, for the splits given.

        Args:
            split_infos: a dict of split name to SplitInfo.

        Returns:
            A list of one absolute instruction.

        Raises:
            ValueError: an unknown split, or a slice outside it.
        """
        return [_rel_to_abs(self, split_infos)]


def _str_to_relative_instruction(spec):
    match = _SUB_SPEC_RE.match(spec)
    unrecognized = f"Unrecognized split format: {spec!r}. See format at {_SPLITS_DOC}"
    if not match:
        raise ValueError(unrecognized)
    name, selector = match.group("split_name"), match.group("split_selector")
    if name == "all":
        if selector:
            raise NotImplementedError(
                f"{name!r} does not support slice. Please open a github issue if you need "
                "this feature."
            )
        return _SplitAll()
    if selector is None:
        from_, to, unit = None, None, "abs"
    else:
        slices = [_SLICE_RE.match(x) for x in selector.split(":")]
        if not all(slices) or not any(x.group(0) for x in slices):
            raise ValueError(unrecognized)
        if len(slices) == 1:
            (from_match,) = slices
            from_ = from_match["val"]
            to = int(from_) + 1
            unit = from_match["unit"] or "abs"
            if unit != "shard":
                raise ValueError("Absolute or percent only support slice syntax.")
        elif len(slices) == 2:
            from_match, to_match = slices
            from_, to = from_match["val"], to_match["val"]
            unit = from_match["unit"] or to_match["unit"] or "abs"
        else:
            raise ValueError(unrecognized)
    if from_ is not None:
        from_ = float(from_) if unit == "%" else int(from_)
    if to is not None:
        to = float(to) if unit == "%" else int(to)
    return ReadInstruction(name, from_=from_, to=to, unit=unit, rounding="closest")


def _pct_to_abs_pct1(boundary, num_examples):
    if num_examples < 100:
        raise ValueError(
            'Using "pct1_dropremainder" rounding on a split with less than 100 elements is '
            "forbidden: it always results in an empty dataset."
        )
    return boundary * math.trunc(num_examples / 100.0)


def _pct_to_abs_closest(boundary, num_examples):
    return round(boundary * num_examples / 100.0)


def _rel_to_abs(instruction, split_infos):
    pct_to_abs = _pct_to_abs_closest if instruction.rounding == "closest" else _pct_to_abs_pct1
    split = instruction.split_name
    if split not in split_infos:
        raise ValueError(f"Unknown split {split!r}. Should be one of {list(split_infos)}.")
    num_examples = split_infos[split].num_examples
    from_, to = instruction.from_, instruction.to
    if instruction.unit == "%":
        from_ = 0 if from_ is None else pct_to_abs(from_, num_examples)
        to = num_examples if to is None else pct_to_abs(to, num_examples)
    elif instruction.unit == "shard":
        lengths = split_infos[split].shard_lengths
        from_ = 0 if from_ is None else sum(lengths[:from_])
        if to is not None and to <= 0:
            to = len(lengths) + to
        to = num_examples if to is None else sum(lengths[:to])
    else:
        from_ = 0 if from_ is None else from_
        to = num_examples if to is None else to
    if abs(from_) > num_examples or abs(to) > num_examples:
        raise ValueError(
            f"Requested slice [{from_ or ''}:{to or ''}] incompatible with {num_examples} examples."
        )
    if from_ < 0:
        from_ = num_examples + from_
    elif from_ == 0:
        from_ = None
    if to < 0:
        to = num_examples + to
    elif to == num_examples:
        to = None
    return _AbsoluteInstruction(split, from_, to)


@dataclasses.dataclass(frozen=True)
class _EvenSplit(AbstractSplit):
    split: object
    index: int
    count: int
    drop_remainder: bool

    def to_absolute(self, split_infos):
        parts = AbstractSplit.from_spec(self.split).to_absolute(split_infos)
        reads = [self._part(a, split_infos) for a in parts]
        return functools.reduce(operator.add, reads).to_absolute(split_infos)

    def _part(self, absolute, split_infos):
        start = absolute.from_ or 0
        end = split_infos[absolute.splitname].num_examples if absolute.to is None else absolute.to
        n = end - start
        per_split = n // self.count
        split_start = start + per_split * self.index
        split_end = start + per_split * (self.index + 1)
        unused = n % self.count
        if unused and not self.drop_remainder:
            split_start += min(self.index, unused)
            split_end += min(self.index + 1, unused)
        return ReadInstruction(absolute.splitname, from_=split_start, to=split_end, unit="abs")


def even_splits(split: Any, n: int, *, drop_remainder: bool = False) -> list[AbstractSplit]:
    """`n` non-overlapping sub-splits of `split` of equal size (``tfds.even_splits``): with
    drop_remainder=False the first ones take one example more when `n` does not divide it.

    Args:
        split: a split name or expression.
        n: the number of sub-splits.
        drop_remainder: give every sub-split the same number of examples.

    Returns:
        A list of n AbstractSplits.
    """
    return [_EvenSplit(split, i, n, drop_remainder) for i in range(n)]


def split_for_jax_process(
    split: Any,
    *,
    process_index: int | None = None,
    process_count: int | None = None,
    drop_remainder: bool = False,
) -> AbstractSplit:
    """This process's part of `split` (``tfds.split_for_jax_process``); the index and count
    default to jax.process_index() / jax.process_count().

    Args:
        split: a split name or expression.
        process_index: this process's index; None: jax.process_index().
        process_count: the number of processes; None: jax.process_count().
        drop_remainder: as even_splits'.

    Returns:
        An AbstractSplit.

    Raises:
        ImportError: the index or count is missing and jax is not installed.
    """
    if process_index is None or process_count is None:
        try:
            import jax
        except ImportError:
            raise ImportError(
                "split_for_jax_process needs process_index and process_count, or jax installed"
            ) from None
        process_index = jax.process_index() if process_index is None else process_index
        process_count = jax.process_count() if process_count is None else process_count
    return even_splits(split, process_count, drop_remainder=drop_remainder)[process_index]


def _file_instructions_for(absolute, split_info):
    if not split_info.num_examples:
        return []
    to = split_info.num_examples if absolute.to is None else absolute.to
    return file_instructions(
        absolute.from_ or 0, to, split_info.filepaths, split_info.shard_lengths
    )


def file_instructions(
    from_: int, to: int, filenames: Sequence[str], shard_lengths: Sequence[int]
) -> list[FileInstruction]:
    """The files (with skip and take) that hold records [from_, to) of shards of the given
    lengths (TFDS's get_file_instructions)."""
    start = end = 0
    out = []
    for filename, length in zip(filenames, shard_lengths):
        if not length:
            continue
        end += length
        if from_ < end and to > start:
            skip = from_ - start if from_ > start else 0
            take = to - start - skip if to < end else -1
            if take != 0:
                out.append(FileInstruction(filename, skip, take, length))
        start += length
    return out


def resolve(split: Any, split_infos: Mapping[str, Any]) -> list[FileInstruction]:
    """The file instructions of `split` (str, ReadInstruction or a sum of them) over
    `split_infos` ({name: SplitInfo})."""
    instruction = AbstractSplit.from_spec(split)
    out = []
    for absolute in instruction.to_absolute(split_infos):
        out.extend(_file_instructions_for(absolute, split_infos[absolute.splitname]))
    return out
