"""tf.data's numbers (AUTOTUNE, INFINITE, UNKNOWN) and the checks of step arguments and
iterator states, with tf.data's errors. Every field of a state is bounded here, so none reaches
the native layer out of its range."""

from __future__ import annotations

from typing import Any

from swigflow import errors
from swigflow import pywrap_swigflow as _pywrap

INT64_MAX = (1 << 63) - 1  # the native pipeline's counts and offsets are int64


AUTOTUNE = -1


INFINITE = -1  # cardinality() of an endless dataset


UNKNOWN = -2  # cardinality() when it cannot be known without iterating


def autotune_count(value: Any, default: Any) -> int | None:
    if value is None:
        return None
    if value == AUTOTUNE:
        return default
    if value < 1:
        raise ValueError(f"expected a positive count or AUTOTUNE, got {value}")
    return int(value)


def interleave_cycle_length(cycle_length: int | None, num_parallel_calls: int | None) -> int | None:
    """interleave()'s cycle_length as a count: tf.data's rule for None and AUTOTUNE."""
    if cycle_length is None or cycle_length == AUTOTUNE:
        parallel = autotune_count(num_parallel_calls, cpu_count())
        if num_parallel_calls == AUTOTUNE:
            parallel = (cpu_count() + 2) // 3
        cycle_length = cpu_count() if parallel is None else min(parallel, cpu_count())
    return autotune_count(cycle_length, cpu_count())


def prefetch_size(buffer_size: int | None) -> int:
    """prefetch()'s buffer_size as a count: AUTOTUNE (or None, as tf.data takes it) is 2, 0
    means no prefetching."""
    if buffer_size is None or buffer_size == AUTOTUNE:
        return 2
    size = int(buffer_size)
    if size < 0:
        raise errors.InvalidArgumentError(
            "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"
        )
    return size


def state_fields(state: Any, where: Any, **fields: Any) -> list[Any]:
    """The fields of a state dict in order, checked: `fields` maps each name to the lowest int
    it may hold, a (lowest, highest) pair, or None for a nested state (checked by the step it
    belongs to)."""
    if not isinstance(state, dict) or set(state) != set(fields):
        raise ValueError(f"{where}: expected a dict with {sorted(fields)}, got {state!r}")
    for name, bounds in fields.items():
        if bounds is not None:
            bounds = bounds if isinstance(bounds, tuple) else (bounds,)
            check_count(state[name], f"{where}[{name!r}]", *bounds)
    return [state[name] for name in fields]


def check_count(value: Any, where: Any, lowest: Any = 0, highest: Any = INT64_MAX) -> None:
    """Raises ValueError unless value is an int in [lowest, highest]: every field of a state
    is bounded, so none reaches the native layer out of its range."""
    if type(value) is not int or not lowest <= value <= highest:
        raise ValueError(f"{where}: expected an int >= {lowest} and <= {highest}, got {value!r}")


def check_not_past_end(resume_at: Any, produced: Any, field: Any) -> None:
    """Raises when a state resumed after more elements than the epoch had (a tampered state
    would otherwise yield nothing, silently)."""
    if resume_at > produced:
        raise ValueError(
            f"the iterator state's {field!r} is {resume_at}, but this pass has only {produced} "
            "elements: the state is not from this pipeline"
        )


def cpu_count() -> int:
    """The parallelism AUTOTUNE stands for: the native pool's rule (SWIGFLOW_NUM_THREADS, else
    one per core), read on each call."""
    return _pywrap.DefaultThreadCount()


def positive_count(name: str | None, value: Any) -> int:
    value = int(value)
    if not 1 <= value <= INT64_MAX:
        raise ValueError(f"{name} must be positive and fit in int64, got {value}")
    return value


def window_arg(name: str | None, value: Any) -> int:
    """window()'s size, shift or stride, checked with tf.data's error."""
    value = int(value)
    if value < 1:
        raise errors.InvalidArgumentError(
            f"Window {name} must be greater than zero, but got {value}."
        )
    return value


def batch_size_of(batch_size: int) -> Any:
    """batch()'s size, checked with tf.data's error."""
    batch_size = int(batch_size)
    if batch_size < 1:
        raise errors.InvalidArgumentError("Batch size must be greater than zero.")
    return batch_size


def shard_args(num_shards: int, index: int) -> tuple[int, int]:
    """shard()'s (num_shards, index), checked with tf.data's errors."""
    num_shards, index = int(num_shards), int(index)
    if num_shards < 1:
        raise errors.InvalidArgumentError(
            f"Number of shards must be greater than zero (currently num_shards = {num_shards})."
        )
    if not 0 <= index < num_shards:
        raise errors.InvalidArgumentError(
            f"Index must be between 0 and {num_shards - 1} (currently index = {index})."
        )
    return num_shards, index
