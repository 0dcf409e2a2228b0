"""map, filter, parse, decode_images (on the Python path) and scan."""

from __future__ import annotations

import collections
import concurrent.futures
import functools
from typing import Any

import numpy as np

from swigflow import errors
from swigflow.data import stats as _stats
from swigflow.data.checks import state_fields
from swigflow.data.elements import Failed, apply_fn, function_name, map_output
from swigflow.data.protocol import iterate
from swigflow.data.seeds import new_seed
from swigflow.data.steps.base import Predicated, Replayed, Unary
from swigflow.data.structure import map_specs, spec_of
from swigflow.io import feature_spec
from swigflow.specs import TensorSpec, UnknownSpec, dtype_name
from swigflow.tensors import constant


def parsed_spec(features: Any, spec: Any) -> Any:
    """The spec of what parsing elements of `spec` with `features` gives: one example (a
    string scalar) or a batch of them (a string vector)."""
    if type(spec) is not TensorSpec or spec.shape.rank not in (0, 1):
        return UnknownSpec("parse")
    if spec.shape.rank == 1:
        return feature_spec.parsed_spec(features, spec.shape[0])
    return map_specs(lambda s: s.unbatch(), feature_spec.parsed_spec(features, 1))


class ParseFn:
    """map(parse) on serialized examples; recognised and fused by the native pipeline."""

    def __init__(self, features: Any) -> None:
        self.plan = feature_spec.ParsePlan(features)  # checks them (TF's errors), once
        self.features = self.plan.features

    def __call__(self, element: Any) -> Any:
        from swigflow.io import parse_example, parse_single_example

        if isinstance(element, bytes):
            return parse_single_example(element, self.plan)
        return parse_example(element, self.plan)


class Map(Unary):
    def __init__(self, input_dataset: Any, fn: Any, parallel: Any) -> None:
        super().__init__(input_dataset)
        self._fn = fn
        self._parallel = parallel

    def _stage_name(self):
        return f"map({function_name(self._fn)})"

    def _element_spec(self):
        if isinstance(self._fn, ParseFn):
            return parsed_spec(self._fn.features, self._input.element_spec)
        return UnknownSpec(self._stage_name())

    def _generate(self, state, epoch):
        fn = self._fn
        source = iterate(self._input, state, epoch)
        if not self._parallel or self._parallel == 1:
            for element, position in source:
                yield map_output(fn, element), position
            return
        # Ordered parallel map: up to `parallel` calls in flight; results in input order.
        stage = _stats.current_stage()
        if stage is not None:
            stage.threads = self._parallel
            fn = functools.partial(_stats.timed_call, stage, fn)
        with concurrent.futures.ThreadPoolExecutor(self._parallel) as pool:
            pending = collections.deque()
            for element, position in source:
                pending.append((pool.submit(map_output, fn, element), position))
                if len(pending) >= self._parallel:
                    future, where = pending.popleft()
                    yield future.result(), where
            while pending:
                future, where = pending.popleft()
                yield future.result(), where

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return map_output(self._fn, self._input._get(index))


class DecodeImages(Unary):
    """decode_images on the Python path. Image i of the epoch crops and flips as the native
    pipeline's image i does for the same seed; the count of images is in the state, so a resumed
    iterator crops and flips as the first one did. seed=None draws a seed per iterator, kept in
    its state."""

    _NOT_IDENTITY = frozenset({"_seed"})  # carried by the state

    def __init__(
        self,
        input_dataset: Any,
        key: str,
        options: dict[str, Any],
        seed: int | None,
    ) -> None:
        super().__init__(input_dataset)
        self._key = key
        self._options = options
        self._seed = seed

    def _generate(self, state, epoch):
        from swigflow.data.images import decode_batch, image_count

        if state is None:
            seed = new_seed() if self._seed is None else int(self._seed)
            count, inner = 0, None
        else:
            seed, count, inner = state["seed"], state["count"], state["input"]
        for element, position in iterate(self._input, inner, epoch):
            first = count
            if type(element) is not Failed:
                try:
                    count += image_count(element, self._key)
                    element = decode_batch(element, self._key, self._options, seed, epoch, first)
                except errors.ResourceExhaustedError:
                    raise  # out of memory is no bad image: never skipped
                except Exception as e:  # as a failed map call: raised for this element only
                    element = Failed(e)
            yield element, {"seed": seed, "count": count, "input": position}

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        from swigflow.data.images import decoded_spec

        return decoded_spec(self._input.element_spec, self._key, self._options)

    def _check_state(self, state, where):
        if state is not None:
            _, _, inner = state_fields(state, where, seed=0, count=0, input=None)
            self._input._check_state(inner, f"{where}['input']")


class Filter(Predicated):
    transformation, stage = "FilterDataset", "filter"

    def _generate(self, state, epoch):
        for element, position, keep in self._verdicts(state, epoch):
            if keep:
                yield element, position


class Scan(Replayed):
    """tf.data's scan: the state's dtypes are the initial state's (Python values converted as
    tf.constant converts them); a function that changes them, or returns no (state, output)
    pair, is TypeError with tf.data's words (at the first element: nothing is traced)."""

    def __init__(self, input_dataset: Any, initial_state: Any, fn: Any) -> None:
        super().__init__(input_dataset)
        # As tf.data hands scan_func tensors: Python values become arrays of the dtypes
        # tf.constant gives them (a [0] state is an int32 vector, not a list).
        self._initial, self._fn = _as_state(initial_state), fn
        self._state_types = _state_types(self._initial)

    def _stage_name(self):
        return f"scan({function_name(self._fn)})"

    def _outputs(self, elements, epoch):
        state = self._initial
        for element in elements:
            if type(element) is Failed:
                yield element
                continue
            result = apply_fn(self._fn, (state, element))
            if type(result) is Failed:
                yield result
                continue
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError(
                    "Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                    f"state and the output value but its return type is {spec_of(result)!r}."
                )
            state, output = result
            state = _as_state(state)
            types = _state_types(state)
            if types != self._state_types:
                raise TypeError(
                    "Invalid `scan_func`. The element types for the new state must match the "
                    f"initial state. Expected {_types_text(self._state_types)}, got "
                    f"{_types_text(types)}."
                )
            yield output

    def _cardinality(self):
        return self._input._cardinality()


def _as_state(state: Any) -> Any:
    """A scan state with its Python values (numbers, strings, lists of them) as arrays,
    converted as tf.constant converts them; arrays and other kinds as they are."""
    if isinstance(state, dict):
        return {k: _as_state(v) for k, v in state.items()}
    if isinstance(state, tuple):
        return tuple(_as_state(v) for v in state)
    if isinstance(state, (bool, int, float, complex, str, bytes, list)):
        try:
            return constant(state)
        except (TypeError, ValueError):
            return state
    return state


def _state_types(state):
    """The dtypes of a scan state's components, Python values as tf.constant converts them."""
    if isinstance(state, dict):
        return {k: _state_types(v) for k, v in state.items()}
    if isinstance(state, tuple):
        return tuple(_state_types(v) for v in state)
    if isinstance(state, (np.ndarray, np.generic)):
        return state.dtype
    if isinstance(state, (bool, int, float, complex, str, bytes, list)):
        try:
            return constant(state).dtype
        except (TypeError, ValueError):
            pass
    return type(state)  # a SparseTensor, RaggedTensor, None, ...: its kind must stay


def _types_text(types):
    """dtypes as tf.data's message names them (<dtype: 'int32'>; tf.int32 within a structure)."""
    if isinstance(types, np.dtype):
        return f"<dtype: '{dtype_name(types)}'>"

    def named(t):
        if isinstance(t, dict):
            return {k: named(v) for k, v in t.items()}
        if isinstance(t, tuple):
            return tuple(named(v) for v in t)
        if isinstance(t, np.dtype):
            return _DTypeName(f"tf.{dtype_name(t)}")
        return _DTypeName(t.__name__)

    return repr(named(types))


class _DTypeName(str):
    def __repr__(self) -> str:
        return str(self)
