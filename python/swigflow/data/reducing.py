"""Dataset.reduce and get_single_element: what consumes a dataset into one value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from swigflow import errors
from swigflow.data.elements import component_count


def reduce(dataset: Any, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
    """reduce_func(state, element) over `dataset`, from initial_state (see Dataset.reduce)."""
    state = initial_state
    count = component_count(initial_state)
    it = dataset.iterator(stats=False)
    try:
        for element in it:
            state = reduce_func(state, element)
            if component_count(state) != count:
                raise errors.InvalidArgumentError(
                    "The number of components of the initial state and the reduce function "
                    f"output does not match. (initial_state={count}, "
                    f"output={component_count(state)})."
                )
    finally:
        it.close()
    return state


_NOTHING = object()


def single_element(dataset: Any) -> Any:
    """The only element of `dataset`, with tf.data's errors (see Dataset.get_single_element)."""
    it = dataset.iterator(stats=False)
    try:
        for element in it:
            if next(it, _NOTHING) is not _NOTHING:
                raise errors.InvalidArgumentError("Dataset had more than one element.")
            return element
    finally:
        it.close()
    raise errors.InvalidArgumentError("Dataset was empty.")
