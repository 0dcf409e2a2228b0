"""tf.data.Options: the same option tree, set with ``Dataset.with_options`` and read back with
``Dataset.options()``, so ported pipelines run unchanged.

What the options mean here: swigflow's steps always keep their input order, so every pipeline
is deterministic whatever ``deterministic`` says (False allows reordering; swigflow never
needs to). Threads are sized by swigflow itself (one per core, ``SWIGFLOW_NUM_THREADS``), so
``threading``, ``autotune`` and ``experimental_optimization`` are kept and returned but change
nothing; nor does ``experimental_distribute.auto_shard_policy`` (sharding is explicit:
``Dataset.shard`` and the PyTorch adapter). Unknown option names and values of the wrong type
raise, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, ClassVar

_BOOL = (bool,)
_INT = (int,)


class _Group:
    """A group of options: each unset until assigned; merge() lets the later, set value win."""

    _FIELDS: ClassVar[dict[str, Any]] = {}  # name -> accepted types, or a nested group class
    _NAME = "Options"

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_frozen", False)
        for name, kind in self._FIELDS.items():
            if isinstance(kind, type) and issubclass(kind, _Group):
                self._values[name] = kind()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._FIELDS:
            raise AttributeError(f"{self._NAME} has no option {name!r}")
        return self._values.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no "
                "effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset "
                "options."
            )
        kind = self._FIELDS.get(name)
        if kind is None:
            raise AttributeError(f"Cannot set the property {name} on {self._NAME}.")
        if isinstance(kind, type) and issubclass(kind, _Group):
            if not isinstance(value, kind):
                raise TypeError(f"{self._NAME}.{name} must be a {kind._NAME}, got {value!r}")
        elif value is not None and (
            not isinstance(value, kind) or (kind is not _BOOL and isinstance(value, bool))
        ):
            names = "/".join(t.__name__ for t in kind)
            raise TypeError(f"{self._NAME}.{name} must be {names}, got {value!r}")
        self._values[name] = value

    def merge(self, other: _Group) -> Any:
        """A new group: this one's values, overridden by those `other` has set.

        Args:
            other: a group of the same type.

        Returns:
            A new group.
        """
        merged = type(self)()
        for name in self._FIELDS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, _Group):
                setattr(merged, name, mine.merge(theirs))
            elif isinstance(mine, (list, tuple)) and isinstance(theirs, (list, tuple)):
                # Lists (framework_type) gather both, as tf.data's options merge them.
                setattr(merged, name, [*mine, *(v for v in theirs if v not in mine)])
            else:
                setattr(merged, name, mine if theirs is None else theirs)
        return merged

    def frozen(self) -> Any:
        """This group, read-only from now on (Dataset.options() returns one: setting an
        option on it would change nothing)."""
        for value in self._values.values():
            if isinstance(value, _Group):
                value.frozen()
        object.__setattr__(self, "_frozen", True)
        return self

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(
            getattr(self, name) == getattr(other, name) for name in self._FIELDS
        )

    def __repr__(self) -> str:
        set_values = {k: v for k, v in self._values.items() if v is not None}
        return f"{self._NAME}({set_values})"


class AutotuneOptions(_Group):
    """tf.data.experimental.AutotuneOptions, ``Options().autotune``: kept and returned, not used
    (swigflow sizes its threads and buffers itself).

    Attributes:
      enabled: bool.
      cpu_budget: int, the cores autotuning may use.
      ram_budget: int, the bytes autotuning may use.
      autotune_algorithm: tf.data's AutotuneAlgorithm value.
      initial_parallelism, min_parallelism: int.
    """

    _NAME = "AutotuneOptions"
    _FIELDS: ClassVar[dict[str, Any]] = {"enabled": _BOOL, "cpu_budget": _INT, "ram_budget": _INT,
               "autotune_algorithm": (object,), "initial_parallelism": _INT,
               "min_parallelism": _INT}  # fmt: skip


class DistributeOptions(_Group):
    """tf.data.experimental.DistributeOptions, ``Options().experimental_distribute``: kept and
    returned, not used (sharding is explicit: ``Dataset.shard`` and the PyTorch adapter).

    Attributes:
      auto_shard_policy: tf.data's AutoShardPolicy value.
      num_devices: int.
    """

    _NAME = "DistributeOptions"
    _FIELDS: ClassVar[dict[str, Any]] = {"auto_shard_policy": (object,), "num_devices": _INT}


class OptimizationOptions(_Group):
    """tf.data.experimental.OptimizationOptions, ``Options().experimental_optimization``: every
    field a bool naming one of tf.data's graph rewrites, kept and returned, not used (swigflow
    fuses its native steps itself)."""

    _NAME = "OptimizationOptions"
    _FIELDS: ClassVar[dict[str, Any]] = {
        name: _BOOL
        for name in (
            "apply_default_optimizations", "filter_fusion", "filter_parallelization",
            "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
            "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
            "shuffle_and_repeat_fusion", "warm_start",
        )
    }  # fmt: skip


class ThreadingOptions(_Group):
    """tf.data.ThreadingOptions, ``Options().threading`` (``experimental_threading`` too): kept
    and returned, not used (one thread per core, ``SWIGFLOW_NUM_THREADS``).

    Attributes:
      max_intra_op_parallelism: int.
      private_threadpool_size: int.
    """

    _NAME = "ThreadingOptions"
    _FIELDS: ClassVar[dict[str, Any]] = {
        "max_intra_op_parallelism": _INT,
        "private_threadpool_size": _INT,
    }


class Options(_Group):
    """tf.data.Options (see the module's documentation for what each group does here)."""

    _NAME = "Options"
    _FIELDS: ClassVar[dict[str, Any]] = {
        "autotune": AutotuneOptions,
        "dataset_name": (str,),
        "deterministic": _BOOL,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": (object,),
        "experimental_optimization": OptimizationOptions,
        "experimental_slack": _BOOL,
        "experimental_symbolic_checkpoint": _BOOL,
        "experimental_warm_start": _BOOL,
        "framework_type": (list, tuple),
        "threading": ThreadingOptions,
    }

    # TensorFlow's older names of options.
    _ALIASES: ClassVar[dict[str, str]] = {
        "experimental_deterministic": "deterministic",
        "experimental_threading": "threading",
    }

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(self._ALIASES.get(name, name), value)

    def __getattr__(self, name: str) -> Any:
        return super().__getattr__(self._ALIASES.get(name, name))


__all__ = [
    "AutotuneOptions",
    "DistributeOptions",
    "OptimizationOptions",
    "Options",
    "ThreadingOptions",
]
