"""tf.data.experimental's helpers that swigflow.data has."""

from swigflow.data.dataset import AUTOTUNE, INFINITE, UNKNOWN


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """``ds.apply(parse_example_dataset(features))``: parses batches of serialized Examples, as
    ``tf.data.experimental.parse_example_dataset`` (fused into the native pipeline)."""
    del num_parallel_calls, deterministic
    return lambda dataset: dataset.parse(features)


INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "parse_example_dataset"]
