"""Grain adapter: a parse step as a Grain ``MapTransform``.

``swigflow.data.TFRecordDataSource`` already satisfies Grain's ``RandomAccessDataSource``
protocol; this module adds the transform for a pipeline that reads serialized records and parses
them later (after a shuffle, or per worker). It imports grain; swigflow.data loads it only when
``swigflow.data.ParseExampleTransform`` is first used.
"""

from __future__ import annotations

from typing import Any

try:
    import grain
except ImportError as _e:  # grain is optional
    raise ImportError(
        "swigflow.data.ParseExampleTransform needs Grain: pip install 'swigflow[grain]'"
    ) from _e

from swigflow.io import parsing


class ParseExampleTransform(grain.transforms.Map):
    """Parses a serialized ``tf.train.Example`` with `spec`, TF-exact (``parse_single_example``).

    ::

        source = swigflow.data.TFRecordDataSource(files)        # serialized records
        loader = grain.DataLoader(data_source=source, sampler=sampler, worker_count=2,
                                  operations=[swigflow.data.ParseExampleTransform(spec),
                                              grain.transforms.Batch(64)])

    Args:
        spec: a dict of feature specs, as parse_single_example takes.
    """

    def __init__(self, spec: Any) -> None:
        self.spec = dict(spec)

    def map(self, element: Any) -> dict[str, Any]:
        """Parses one record.

        Args:
            element: a serialized Example (bytes).

        Returns:
            A dict of parsed features.
        """
        return parsing.parse_single_example(element, self.spec)
