"""Sparse and ragged results of parsing, shaped like ``tf.sparse.SparseTensor`` and
``tf.RaggedTensor`` but holding numpy arrays."""

import numpy as np


class SparseTensor:
    """A sparse array: ``values[i]`` sits at ``indices[i]`` in an array of ``dense_shape``.

    Attributes:
      indices: int64 array ``[nnz, rank]``, in row-major order.
      values: array ``[nnz]`` (int64, float32, or object holding bytes).
      dense_shape: int64 array ``[rank]``.
    """

    __slots__ = ("dense_shape", "indices", "values")

    def __init__(self, indices, values, dense_shape):
        self.indices = np.asarray(indices, dtype=np.int64)
        self.values = np.asarray(values)
        self.dense_shape = np.asarray(dense_shape, dtype=np.int64)

    @property
    def shape(self):
        return tuple(int(d) for d in self.dense_shape)

    def to_dense(self, default_value=None):
        """A dense numpy array, ``default_value`` (0 or b"" by default) where nothing is stored."""
        if default_value is None:
            default_value = b"" if self.values.dtype == object else 0
        dense = np.full(self.shape, default_value, dtype=self.values.dtype)
        if len(self.values):
            dense[tuple(self.indices.T)] = self.values
        return dense

    def __repr__(self):
        return (
            f"SparseTensor(indices={self.indices.tolist()}, values={self.values.tolist()}, "
            f"dense_shape={self.dense_shape.tolist()})"
        )


class RaggedTensor:
    """Rows of different lengths: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.

    Attributes:
      values: all rows' values back to back: an array, or another RaggedTensor for more ragged
        dimensions (as parse_sequence_example returns: examples, then steps).
      row_splits: int64 array ``[nrows + 1]``, starting at 0.
    """

    __slots__ = ("row_splits", "values")

    def __init__(self, values, row_splits):
        self.values = values if isinstance(values, RaggedTensor) else np.asarray(values)
        self.row_splits = np.asarray(row_splits, dtype=np.int64)

    @classmethod
    def from_row_lengths(cls, values, row_lengths):
        splits = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        np.cumsum(row_lengths, out=splits[1:])
        return cls(values, splits)

    @property
    def flat_values(self):
        """The innermost values array."""
        return self.values.flat_values if isinstance(self.values, RaggedTensor) else self.values

    @property
    def nested_row_splits(self):
        """The row_splits of every ragged dimension, outermost first."""
        inner = self.values.nested_row_splits if isinstance(self.values, RaggedTensor) else ()
        return (self.row_splits, *inner)

    def __len__(self):
        return len(self.row_splits) - 1

    def __getitem__(self, row):
        start, stop = self.row_splits[row], self.row_splits[row + 1]
        if isinstance(self.values, RaggedTensor):
            return RaggedTensor._slice(self.values, start, stop)
        return self.values[start:stop]

    @staticmethod
    def _slice(ragged, start, stop):
        """Rows [start, stop) of `ragged` as a RaggedTensor of their own."""
        splits = ragged.row_splits[start : stop + 1]
        base = splits[0]
        if isinstance(ragged.values, RaggedTensor):
            values = RaggedTensor._slice(ragged.values, base, splits[-1])
        else:
            values = ragged.values[base : splits[-1]]
        return RaggedTensor(values, splits - base)

    def to_list(self):
        rows = (self[i] for i in range(len(self)))
        return [r.to_list() if isinstance(r, RaggedTensor) else r.tolist() for r in rows]

    def __repr__(self):
        return f"RaggedTensor({self.to_list()})"
