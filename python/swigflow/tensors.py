"""Tensors as swigflow has them: numpy arrays (``constant``, ``convert_to_tensor``), and the
sparse and ragged results of parsing, shaped like ``tf.sparse.SparseTensor`` and
``tf.RaggedTensor`` but holding numpy arrays."""

import numpy as np

from swigflow import errors


def constant(value, dtype=None, shape=None, name=None):
    """tf.constant: a new array of `value` (Python floats become float32 and ints int32, as in
    TensorFlow, unless `dtype` says), reshaped to `shape` when given (a scalar fills it)."""
    del name
    array = np.array(value, dtype=dtype)
    if dtype is None and not isinstance(value, np.ndarray):
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64 and (array.size == 0 or np.abs(array).max() < 2**31):
            array = array.astype(np.int32)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size != int(np.prod(shape, dtype=np.int64)):
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                f"(converted from {value!r}) has {array.size} elements, but got `shape` {shape} "
                f"with {int(np.prod(shape, dtype=np.int64))} elements)."
            )
        else:
            array = array.reshape(shape)
    return array


def convert_to_tensor(value, dtype=None, name=None):
    """tf.convert_to_tensor: an array as it is (no copy) when it has `dtype` (or none is
    asked), else a new one, converted as :func:`constant` converts."""
    del name
    if isinstance(value, np.ndarray) and (dtype is None or value.dtype == np.dtype(dtype)):
        return value
    return constant(value, dtype)


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
        """A dense numpy array, ``default_value`` (0 or b"" by default) where nothing is stored.

        Raises:
          InvalidArgumentError: an index outside ``dense_shape`` (TensorFlow's message).
        """
        if default_value is None:
            default_value = b"" if self.values.dtype == object else 0
        dense = np.full(self.shape, default_value, dtype=self.values.dtype)
        if len(self.values):
            outside = np.any((self.indices < 0) | (self.indices >= self.dense_shape), axis=1)
            if np.any(outside):
                i = int(np.flatnonzero(outside)[0])
                raise errors.InvalidArgumentError(
                    f"indices[{i}] = [{','.join(map(str, self.indices[i]))}] is out of bounds: "
                    f"need 0 <= index < [{','.join(map(str, self.dense_shape))}]"
                )
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
      values: all rows' values back to back: an array (whose dimensions after the first are
        uniform ones), or another RaggedTensor for more ragged dimensions (as
        parse_sequence_example returns: examples, then steps).
      row_splits: int64 (or int32) array ``[nrows + 1]``, starting at 0.
      uniform_row_length: None, or the length every row has (a uniform dimension over ragged
        ones, as ``tf.RaggedTensor.from_uniform_row_length`` makes).
    """

    __slots__ = ("row_splits", "uniform_row_length", "values")

    def __init__(self, values, row_splits, uniform_row_length=None):
        self.values = values if isinstance(values, RaggedTensor) else np.asarray(values)
        splits = np.asarray(row_splits)
        if splits.dtype not in (np.int32, np.int64):
            splits = splits.astype(np.int64)
        self.row_splits = splits
        self.uniform_row_length = uniform_row_length

    @classmethod
    def from_row_lengths(cls, values, row_lengths):
        splits = np.zeros(len(row_lengths) + 1, dtype=np.int64)
        np.cumsum(row_lengths, out=splits[1:])
        return cls(values, splits)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length):
        """Rows of ``uniform_row_length`` values each (``len(values)`` must be a multiple)."""
        nvals = len(values)
        if uniform_row_length <= 0 or nvals % uniform_row_length:
            raise ValueError(f"{nvals} values do not make rows of {uniform_row_length}")
        splits = np.arange(0, nvals + 1, uniform_row_length, dtype=np.int64)
        return cls(values, splits, uniform_row_length)

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

    @property
    def shape(self):
        """``(nrows, row length or None, *inner)``, None where a dimension is ragged."""
        return (len(self), self.uniform_row_length, *self.values.shape[1:])

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
        return RaggedTensor(values, splits - base, ragged.uniform_row_length)

    def to_list(self):
        rows = (self[i] for i in range(len(self)))
        return [r.to_list() if isinstance(r, RaggedTensor) else r.tolist() for r in rows]

    def __repr__(self):
        return f"RaggedTensor({self.to_list()})"
