"""The Python sources of swigflow.data: from_tensor_slices, range, from_tensors,
from_generator, list_files, counter and random. (TFRecordDataset, read by the native pipeline,
is in records.) Python values get tf.data's dtypes (see Dataset.from_tensor_slices)."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from swigflow import errors
from swigflow.data.checks import INFINITE, INT64_MAX, check_count, state_fields
from swigflow.data.dataset import Dataset
from swigflow.data.elements import Failed, as_array, length_of, slice_of, utf8
from swigflow.data.protocol import check_index
from swigflow.data.seeds import SEED_RANGE, IteratorSeeds, draw, new_seed, pass_key
from swigflow.data.steps.slicing import Shard
from swigflow.data.structure import STRING, common_spec, flat_specs, map_specs, spec_of
from swigflow.io import gfile
from swigflow.specs import TensorSpec, TypeSpec, dtype_name
from swigflow.tensors import RaggedTensor, SparseTensor


def _as_arrays(tensors):
    if isinstance(tensors, dict):
        return {k: _as_arrays(v) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(_as_arrays(v) for v in tensors)
    if tensors is None or isinstance(tensors, (SparseTensor, RaggedTensor)):
        return tensors  # sliced into rows as they are (elements.slice_of)
    return as_array(tensors)


class TensorSlices(Dataset):
    def __init__(self, tensors: Any) -> None:
        self._tensors = _as_arrays(tensors)
        self._n = length_of(self._tensors)

    def _generate(self, state, epoch):
        for i in range(0 if state is None else state, self._n):
            yield slice_of(self._tensors, i), i + 1

    def _cardinality(self):
        return self._n

    def _element_spec(self):
        return map_specs(lambda s: s.unbatch(), spec_of(self._tensors))

    def _get(self, index):
        check_index(self, index)
        return slice_of(self._tensors, index)

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0, self._n)

    def _reshard(self, num_shards, index):
        return Shard(self, num_shards, index)


def range_dataset(args: Any, output_type: DTypeLike) -> Any:
    """Dataset.range(*args, output_type=...): Python's range rules, int64 values unless
    output_type says otherwise; InvalidArgumentError for a step of 0, as tf.data."""
    if not 1 <= len(args) <= 3:
        raise ValueError(f"range takes 1 to 3 arguments (start, stop, step), got {len(args)}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if step == 0:
        raise errors.InvalidArgumentError("step must be a non-zero integer.")
    values = np.arange(int(start), int(stop), int(step), dtype=np.int64)
    return TensorSlices(values.astype(output_type, copy=False))


def file_sizes(files: Any) -> Any:
    """(path, size) per file for a dataset's identity: -1 for a file that cannot be stat'ed (its
    read raises the error), None for a remote one (a request per object would make saving a
    state slow; its URL is its identity)."""
    sized = []
    for f in files:
        local = gfile.local_path(f) if isinstance(f, str) else None
        if local is None:
            sized.append((f, None))
            continue
        try:
            sized.append((f, os.stat(local).st_size))
        except OSError:
            sized.append((f, -1))
    return sized


class ListFiles(Dataset, IteratorSeeds):
    _NOT_IDENTITY = frozenset({"_seed"})  # carried by the state

    def __init__(self, pattern: Any, shuffle: bool | None, seed: int | None) -> None:
        patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
        files = sorted({f for p in patterns for f in gfile.glob(p)})
        if not files:
            raise errors.InvalidArgumentError(
                f"No files matched pattern: {', '.join(os.fsdecode(p) for p in patterns)} "
                "(expected 'file_pattern' to match at least one file)"
            )
        self._files = files
        self._shuffle = shuffle
        self._seed = seed

    def reshuffles_per_iterator(self) -> bool:
        return self._shuffle and self._seed is not None

    def files(self, epoch: Any, seed: int | None) -> list[str]:
        files = list(self._files)
        if self._shuffle:
            random.Random(f"{seed}:{epoch}").shuffle(files)
        return files

    def _generate(self, state, epoch):
        if state is None:
            seed = new_seed() if self._seed is None else self.iterator_seed(self._seed)
            state = {"seed": seed, "next": 0}
        files = self.files(epoch, state["seed"])
        for i in range(state["next"], len(files)):
            yield files[i], {"seed": state["seed"], "next": i + 1}

    def _element_spec(self):
        return TensorSpec((), STRING)

    def _cardinality(self):
        return len(self._files)

    def _check_state(self, state, where):
        if state is not None:
            _, following = state_fields(state, where, seed=SEED_RANGE, next=0)
            check_count(following, f"{where}['next']", 0, len(self._files))

    def _signature(self):
        return f"ListFiles({len(self._files)})"

    def _identity(self):
        return dict(super()._identity(), _files=file_sizes(self._files))

    def _check_shardable(self):
        if self._shuffle and self._seed is None:
            raise ValueError(
                "list_files(shuffle=True) needs a seed when its files are split between "
                "workers or ranks: each process would shuffle them differently"
            )

    def _reshard(self, num_shards, index):
        self._check_shardable()
        return Shard(self, num_shards, index)


class FromTensors(Dataset):
    def __init__(self, tensors: Any) -> None:
        self._element = element_of(tensors)

    def _generate(self, state, epoch):
        if state is None:
            yield self._element, 1

    def _cardinality(self):
        return 1

    def _element_spec(self):
        return spec_of(self._element)

    def _get(self, index):
        check_index(self, index)
        return self._element

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 1, 1)


def element_of(tensors: Any) -> Any:
    """A whole structure with from_tensor_slices' dtype rules (Python scalars included);
    datasets stay datasets (elements interleave or flat_map can return)."""
    # None stays a component, as in tf.data; sparse and ragged values are elements as they are.
    if tensors is None or isinstance(tensors, (Dataset, SparseTensor, RaggedTensor)):
        return tensors
    if isinstance(tensors, dict):
        return {k: element_of(v) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(element_of(v) for v in tensors)
    if isinstance(tensors, (str, bytes)):
        return tensors.encode() if isinstance(tensors, str) else tensors
    return as_array(tensors)


def generator_signature(output_types: Any, output_shapes: Any, output_signature: Any) -> Any:
    """from_generator's element spec from its arguments, as tf.data takes them (None: no
    signature, which swigflow allows: elements are then what the generator yields)."""
    if output_signature is not None:
        if output_types is not None:
            raise TypeError(
                "The `output_types` argument can not be used together with the "
                "`output_signature` argument."
            )
        for spec in flat_specs(output_signature):
            if not isinstance(spec, TypeSpec):
                raise TypeError(
                    "`output_signature` must contain objects that are subclass of `tf.TypeSpec` "
                    f"but found {type(spec)} which is not."
                )
        return output_signature
    if output_types is None:
        if output_shapes is not None:
            raise TypeError(
                "To specify the output signature you need to provide either the "
                "`output_signature` argument or the `output_types` argument."
            )
        return None
    return _legacy_signature(output_types, output_shapes)


def _legacy_signature(types, shapes):
    """output_types and output_shapes (same structure; shapes None: unknown) as specs. As in
    tf.data's structures, a list is one value (a shape), never a structure of them."""
    if isinstance(types, list):
        raise TypeError(
            f"Cannot convert the argument `type_value`: {types!r} to a TensorFlow DType."
        )
    if isinstance(types, (dict, tuple)) and isinstance(shapes, list):
        raise TypeError(
            "If shallow structure is a sequence, input must also be a sequence. Input has type: "
            "'list'."
        )
    if isinstance(types, dict):
        shapes = dict.fromkeys(types) if shapes is None else shapes
        return {k: _legacy_signature(v, shapes[k]) for k, v in types.items()}
    if isinstance(types, tuple):
        shapes = (None,) * len(types) if shapes is None else shapes
        return tuple(_legacy_signature(t, s) for t, s in zip(types, shapes))
    return TensorSpec(shapes, types)


def _dtypes_text(signature):
    if isinstance(signature, dict):
        return "{" + ", ".join(f"{k!r}: {_dtypes_text(v)}" for k, v in signature.items()) + "}"
    if isinstance(signature, tuple):
        return "(" + ", ".join(_dtypes_text(v) for v in signature) + ")"
    return dtype_name(signature.dtype) if hasattr(signature, "dtype") else repr(signature)


def _string_array(value):
    """`value` (str, bytes, nested lists or arrays of them) as an array of bytes objects."""
    if isinstance(value, (list, str, bytes)):
        value = utf8(value)
    array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    flat = [v.encode() if isinstance(v, str) else v for v in array.ravel().tolist()]
    if not all(isinstance(v, bytes) for v in flat):
        raise TypeError("not strings")
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(array.shape)


def _conformed(value, spec):
    """A yielded component as `spec` has it: converted to its dtype as tf.data converts (with
    numpy's wrapping casts), its shape checked; TypeError with tf.data's words otherwise."""
    if type(spec) is not TensorSpec:
        if common_spec(spec_of(value), spec) is None:
            raise TypeError(
                f"`generator` yielded an element of {spec_of(value)!r} where an element of "
                f"{spec!r} was expected."
            )
        return value
    try:
        if spec.dtype == STRING:
            array = _string_array(value)
        else:
            array = np.asarray(value)
            array = array if array.dtype == spec.dtype else array.astype(spec.dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(
            "`generator` yielded an element that could not be converted to the expected type. "
            f"The expected type was {dtype_name(spec.dtype)}, but the yielded element was "
            f"{value}."
        ) from e
    if not spec.shape.is_compatible_with(array.shape):
        raise TypeError(
            f"`generator` yielded an element of shape {array.shape} where an element of shape "
            f"{tuple(spec.shape.dims)} was expected."
        )
    return array if array.ndim else array[()]


class _Mismatch(Exception):
    """A yielded element whose structure is not the signature's."""


def _structured(value, signature):
    """`value` in the structure of `signature`, each component conformed; _Mismatch when the
    structure differs."""
    if isinstance(signature, dict):
        if not isinstance(value, dict) or set(value) != set(signature):
            raise _Mismatch
        return {k: _structured(value[k], s) for k, s in signature.items()}
    if isinstance(signature, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(signature):
            raise _Mismatch
        return tuple(_structured(v, s) for v, s in zip(value, signature))
    return _conformed(value, signature)


def conform(value: Any, signature: Any) -> Any:
    """A yielded element as the signature says it is; InvalidArgumentError naming what
    differs (as tf.data's, whose message carries the TypeError)."""
    try:
        try:
            return _structured(value, signature)
        except _Mismatch:
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. The "
                f"expected structure was {_dtypes_text(signature)}, but the yielded element was "
                f"{value}."
            ) from None
    except TypeError as e:
        raise errors.InvalidArgumentError(f"TypeError: {e}") from e


class FromGenerator(Dataset):
    def __init__(self, generator: Callable[..., Any], args: Any, signature: Any) -> None:
        self._generator = generator
        self._args = args
        self._signature_specs = signature

    def _element_spec(self):
        if self._signature_specs is None:
            return super()._element_spec()
        return self._signature_specs

    def _generate(self, state, epoch):
        skip = 0 if state is None else state
        signature = self._signature_specs
        for count, value in enumerate(self._generator(*self._args), 1):
            if count <= skip:
                continue
            if signature is None:
                yield element_of(value), count
                continue
            try:
                yield conform(value, signature), count
            except errors.InvalidArgumentError as e:
                yield Failed(e), count

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0)


class Counter(Dataset):
    """Dataset.counter: start, start + step, ... forever, in `dtype` (wrapping as tf.data's
    repeated additions do)."""

    def __init__(self, start: int, step: int, dtype: DTypeLike) -> None:
        self._dtype = np.dtype(dtype)
        if self._dtype.kind not in "iuf":
            raise TypeError(f"counter's dtype must be numeric, got {self._dtype}")
        self._start = np.asarray(start).astype(self._dtype)
        self._step = np.asarray(step).astype(self._dtype)

    def _value(self, k):
        with np.errstate(over="ignore"):
            return (self._start + self._step * self._dtype.type(k))[()]

    def _generate(self, state, epoch):
        k = 0 if state is None else state
        while True:
            yield self._value(k), k + 1
            k += 1

    def _cardinality(self):
        return INFINITE

    def _element_spec(self):
        return TensorSpec((), self._dtype)

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0)

    def _signature(self):
        return f"Counter({self._dtype})"


class RandomValues(Dataset, IteratorSeeds):
    """Dataset.random: int64 values uniform in [0, 2^32), as tf.data's are, from a seeded
    counter-based stream (not tf.data's Philox sequence). Without a seed one is drawn when the
    dataset is made, so every pass and iterator sees the same values, as in tf.data; with
    rerandomize_each_iteration each pass (repeat) and each iterator draws anew. A state is the
    stream's seed and a count."""

    _NOT_IDENTITY = frozenset({"_seed"})  # carried by the state

    def __init__(self, seed: int | None, rerandomize: Any) -> None:
        self._seed = new_seed() if seed is None else int(seed)
        self._rerandomize = bool(rerandomize)

    def _values(self, seed, epoch, start):
        key = pass_key(seed, epoch if self._rerandomize else 0)
        k = start
        while True:
            yield np.int64(draw(key, k) >> 32), k + 1
            k += 1

    def _generate(self, state, epoch):
        if state is None:
            seed = self.iterator_seed(self._seed) if self._rerandomize else self._seed
            state = {"seed": seed, "next": 0}
        for value, following in self._values(state["seed"], epoch, state["next"]):
            yield value, {"seed": state["seed"], "next": following}

    def reshuffles_per_iterator(self) -> bool:
        return self._rerandomize

    def _cardinality(self):
        return INFINITE

    def _element_spec(self):
        return TensorSpec((), np.int64)

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, seed=SEED_RANGE, next=(0, INT64_MAX))
