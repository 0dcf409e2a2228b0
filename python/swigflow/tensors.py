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
      values: array of all rows' values, back to back.
      row_splits: int64 array ``[nrows + 1]``, starting at 0.
    """

    __slots__ = ("row_splits", "values")

    def __init__(self, values, row_splits):
        self.values = np.asarray(values)
        self.row_splits = np.asarray(row_splits, dtype=np.int64)

    @classmethod
    def from_row_lengths(cls, values, row_lengths):
        splits = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        np.cumsum(row_lengths, out=splits[1:])
        return cls(values, splits)

    def __len__(self):
        return len(self.row_splits) - 1

    def __getitem__(self, row):
        return self.values[self.row_splits[row] : self.row_splits[row + 1]]

    def to_list(self):
        return [self[i].tolist() for i in range(len(self))]

    def __repr__(self):
        return f"RaggedTensor({self.to_list()})"
