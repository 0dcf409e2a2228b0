"""tf.data's flat_map, window, padded_batch, rebatch, scan, group_by_window,
bucket_by_sequence_length, cache and global_shuffle, as steps of swigflow.data.dataset.

They run in Python on the elements they receive. Steps that keep elements across their input's
positions (windows, groups, rebatched rows, a scan's state) resume by replaying the epoch from
its start and dropping what was already emitted: exact, not free. flat_map, padded_batch and
cache resume where they stopped.
"""

import contextlib
import os
import secrets
import socket

import numpy as np

from swigflow import errors, io
from swigflow.data import cache_format
from swigflow.data import dataset as ds
from swigflow.data.index_shuffle import IndexPermutation


class Elements(ds.Dataset):
    """A dataset over a list of elements already made (a window, a group)."""

    def __init__(self, elements):
        self._elements = elements

    def _generate(self, state, epoch):
        for i in range(0 if state is None else state, len(self._elements)):
            yield self._elements[i], i + 1

    def _cardinality(self):
        return len(self._elements)

    def _check_state(self, state, where):
        if state is not None:
            ds.check_count(state, where, 0, len(self._elements))

    def _signature(self):
        return f"Elements({len(self._elements)})"


def _made_dataset(made, what):
    if type(made) is ds.Failed or isinstance(made, ds.Dataset):
        return made
    raise TypeError(
        f"The `map_func` argument must return a `Dataset` object. Got {type(made).__name__}: "
        f"{made!r} ({what})"
    )


class FlatMap(ds.Unary):
    """map_func's datasets one after the other. The state is the input's position before the
    element being expanded and the position inside its dataset."""

    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = fn

    def _stage_name(self):
        return f"flat_map({ds.function_name(self._fn)})"

    def _generate(self, state, epoch):
        before, inner = (None, None) if state is None else (state["before"], state["inner"])
        for element, position in ds.iterate(self._input, before, epoch):
            made = _made_dataset(ds.apply_fn(self._fn, element), "flat_map's function")
            if type(made) is ds.Failed:
                yield made, {"before": position, "inner": None}
            else:
                made._check_state(inner, "the iterator state's flat_map position ['inner']")
                for sub, sub_position in ds.iterate(made, inner, epoch):
                    yield sub, {"before": before, "inner": sub_position}
            before, inner = position, None

    def _check_state(self, state, where):
        if state is not None:
            before, _ = ds.state_fields(state, where, before=None, inner=None)
            self._input._check_state(before, f"{where}['before']")


class Replayed(ds.Unary):
    """A step whose outputs are computed from the epoch's elements by _outputs(elements, epoch);
    its state counts the outputs emitted."""

    def _outputs(self, elements, epoch):
        raise NotImplementedError

    def _generate(self, state, epoch):
        skip = 0 if state is None else state["emitted"]
        elements = (element for element, _ in ds.iterate(self._input, None, epoch))
        emitted = 0
        for output in self._outputs(elements, epoch):
            emitted += 1
            if emitted > skip:
                yield output, {"emitted": emitted}
        ds.check_not_past_end(skip, emitted, "emitted")

    def _check_state(self, state, where):
        if state is not None:
            ds.state_fields(state, where, emitted=0)


# --- window ---------------------------------------------------------------------------------


def _component_datasets(elements):
    """A window of elements as tf.data gives it: a dataset per component of their structure."""
    first = elements[0]
    if isinstance(first, dict):
        return {k: _component_datasets([e[k] for e in elements]) for k in first}
    if isinstance(first, tuple):
        return tuple(_component_datasets([e[i] for e in elements]) for i in range(len(first)))
    return Elements(list(elements))


def _window_of(elements):
    """A window, or the first failed element in it (as tf.data, a failed element the stride
    passes over raises nothing)."""
    failed = next((e for e in elements if type(e) is ds.Failed), None)
    return failed if failed is not None else _component_datasets(elements)


class Window(Replayed):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size, self._shift, self._stride = size, shift, stride
        self._drop = drop_remainder

    def _outputs(self, elements, epoch):
        span = (self._size - 1) * self._stride + 1  # input elements one full window covers
        buffer = []  # elements from the next window's first
        skip = 0  # elements before the next window's first (a shift longer than the span)
        for element in elements:
            if skip:
                skip -= 1
                continue
            buffer.append(element)
            if len(buffer) == span:
                yield _window_of(buffer[:: self._stride])
                skip = max(0, self._shift - len(buffer))
                del buffer[: self._shift]
        while buffer and not self._drop:  # the windows that start before the end
            yield _window_of(buffer[: span : self._stride])
            del buffer[: self._shift]

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1


# --- padded_batch ---------------------------------------------------------------------------


def _pad_value(default, dtype):
    if default is not None:
        return default
    return b"" if dtype is object or dtype == np.dtype(object) else np.zeros((), dtype)[()]


def _shape_list(shape):
    """A padded shape as a list, -1 for the dimensions padded to the longest in the batch;
    raises as tf.data does for what is not a shape."""
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    dims = list(shape)
    if any(isinstance(d, (list, tuple, np.ndarray)) for d in dims):
        raise ValueError(
            f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, but its shape was "
            f"{np.shape(shape)}."
        )
    for d in dims:
        if d is not None and not isinstance(d, (int, np.integer)):
            raise TypeError(
                f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, but its element "
                f"type was {np.asarray(d).dtype}."
            )
    dims = [-1 if d is None else int(d) for d in dims]
    if any(d < -1 for d in dims):
        raise errors.InvalidArgumentError(
            f"padded_batch: padded shape {dims} has a dimension below -1 (-1 pads to the longest "
            "element)"
        )
    return dims


def padded_shapes_of(shapes):
    """padded_shapes checked and normalized: a structure (dict or tuple) of shape lists or
    None (every dimension padded to the longest)."""
    if shapes is None:
        return None
    if isinstance(shapes, dict):
        return {k: padded_shapes_of(v) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(padded_shapes_of(v) for v in shapes)
    return _shape_list(shapes)


def _padded_component(values, shape, padding_value):
    arrays = [
        np.array(v, dtype=object) if isinstance(v, (bytes, str)) else np.asarray(v) for v in values
    ]
    ranks = {a.ndim for a in arrays}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            f"padded_batch: the elements of a batch have different ranks {sorted(ranks)}"
        )
    rank = ranks.pop()
    longest = [max(a.shape[d] for a in arrays) for d in range(rank)]
    if shape is None:
        target = longest
    else:
        if len(shape) != rank:
            raise ValueError(
                f"The padded shape {tuple(None if d < 0 else d for d in shape)} is not compatible "
                f"with the corresponding input component shape {arrays[0].shape}."
            )
        if any(d >= 0 and n > d for d, n in zip(shape, longest)):
            raise errors.DataLossError("Attempted to pad to a smaller size than the input element.")
        target = [n if d < 0 else d for d, n in zip(shape, longest)]
    dtype = np.result_type(*arrays) if arrays[0].dtype != object else object
    out = np.full((len(arrays), *target), _pad_value(padding_value, dtype), dtype=dtype)
    for i, a in enumerate(arrays):
        out[(i, *(slice(0, n) for n in a.shape))] = a
    return out


def _padded(elements, shapes, values):
    first = elements[0]
    if isinstance(first, dict):
        return {
            k: _padded(
                [e[k] for e in elements],
                None if shapes is None else shapes[k],
                values[k] if isinstance(values, dict) else values,
            )
            for k in first
        }
    if isinstance(first, tuple):
        return tuple(
            _padded(
                [e[i] for e in elements],
                None if shapes is None else shapes[i],
                values[i] if isinstance(values, tuple) else values,
            )
            for i in range(len(first))
        )
    return _padded_component(elements, shapes, values)


class PaddedBatch(ds.Batch):
    """batch() with every component padded to its padded shape (-1 or None: the longest in the
    batch) with its padding value (0, False or b"" unless given)."""

    def __init__(self, input_dataset, size, shapes, values, drop_remainder):
        super().__init__(input_dataset, size, drop_remainder)
        self._shapes, self._values = padded_shapes_of(shapes), values

    def _stage_name(self):
        return f"padded_batch({self._size})"

    def _combine(self, elements):
        try:
            return _padded(elements, self._shapes, self._values)
        except (errors.OpError, ValueError) as e:
            return ds.Failed(e)


# --- rebatch --------------------------------------------------------------------------------


class Rebatch(Replayed):
    """The input's rows (every element split along its first dimension) batched again, batch
    i of batch_sizes[i % len(batch_sizes)] rows."""

    def __init__(self, input_dataset, sizes, drop_remainder):
        super().__init__(input_dataset)
        self._sizes, self._drop = sizes, drop_remainder

    def _outputs(self, elements, epoch):
        rows, turn = [], 0
        for element in elements:
            if type(element) is ds.Failed:
                yield element
                continue
            for i in range(ds.length_of(element)):
                rows.append(ds.slice_of(element, i))
                if len(rows) == self._sizes[turn % len(self._sizes)]:
                    yield ds.stacked(rows)
                    rows, turn = [], turn + 1
        if rows and not self._drop:
            yield ds.stacked(rows)

    def _cardinality(self):
        n = self._input._cardinality()
        return ds.INFINITE if n == ds.INFINITE else ds.UNKNOWN


# --- scan -----------------------------------------------------------------------------------


class Scan(Replayed):
    def __init__(self, input_dataset, initial_state, fn):
        super().__init__(input_dataset)
        self._initial, self._fn = initial_state, fn

    def _stage_name(self):
        return f"scan({ds.function_name(self._fn)})"

    def _outputs(self, elements, epoch):
        state = self._initial
        for element in elements:
            if type(element) is ds.Failed:
                yield element
                continue
            result = ds.apply_fn(self._fn, (state, element))
            if type(result) is ds.Failed:
                yield result
                continue
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError(
                    f"scan's function must return (new_state, output_element), got {result!r}"
                )
            state, output = result
            yield output

    def _cardinality(self):
        return self._input._cardinality()


# --- group_by_window ------------------------------------------------------------------------


def _key(value, what):
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise errors.InvalidArgumentError(f"{what} must return a scalar int64, got {value!r}")
    return int(value)


class GroupByWindow(Replayed):
    """Elements grouped by key_func into windows of window_size (or window_size_func(key));
    each full window goes through reduce_func(key, window dataset), whose elements are emitted.
    At the end, the unfinished windows go through it in increasing key order (as in tf.data)."""

    def __init__(self, input_dataset, key_func, reduce_func, window_size_func):
        super().__init__(input_dataset)
        self._key_func, self._reduce, self._size_of = key_func, reduce_func, window_size_func

    def _stage_name(self):
        return f"group_by_window({ds.function_name(self._key_func)})"

    def _reduced(self, key, window):
        made = ds.apply_fn(self._reduce, (np.int64(key), Elements(window)))
        made = _made_dataset(made, "group_by_window's reduce_func")
        if type(made) is ds.Failed:
            yield made
        else:
            yield from ds.epoch_elements(made, 0)

    def _outputs(self, elements, epoch):
        groups = {}
        sizes = {}
        for element in elements:
            if type(element) is ds.Failed:
                yield element
                continue
            key = ds.apply_fn(self._key_func, element)
            try:
                if type(key) is ds.Failed:
                    raise key.error
                key = _key(key, "group_by_window's key_func")
                if key not in sizes:
                    size = _key(self._size_of(np.int64(key)), "window_size_func")
                    if size < 1:
                        raise errors.InvalidArgumentError(
                            f"Window size must be greater than zero, but got {size}."
                        )
                    sizes[key] = size
            except Exception as e:  # for this element only, as a failed map call
                yield ds.Failed(e)
                continue
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._reduced(key, group)
        for key in sorted(groups):
            yield from self._reduced(key, groups[key])

    def _cardinality(self):
        n = self._input._cardinality()
        return ds.INFINITE if n == ds.INFINITE else ds.UNKNOWN


def _window_sizes(window_size, window_size_func):
    if (window_size is None) == (window_size_func is None):
        raise ValueError(
            "Either the `window_size` argument or the `window_size_func` argument must be "
            "specified."
        )
    if window_size is not None:
        size = int(window_size)
        if size < 1:
            raise errors.InvalidArgumentError(
                f"Window size must be greater than zero, but got {size}."
            )
        return lambda key: size
    return window_size_func


def group_by_window(dataset, key_func, reduce_func, window_size, window_size_func):
    sizes = _window_sizes(window_size, window_size_func)
    return GroupByWindow(dataset, key_func, reduce_func, sizes)


# --- bucket_by_sequence_length --------------------------------------------------------------


def _bucket_shapes(shapes, boundary):
    """padded_shapes with their unknown dimensions (None or -1) set to boundary - 1."""
    if isinstance(shapes, dict):
        return {k: _bucket_shapes(v, boundary) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_bucket_shapes(v, boundary) for v in shapes)
    return [boundary - 1 if d < 0 else d for d in shapes]


def _sequence_shapes(element, boundary):
    """Without padded_shapes: dimension 0 of every component (the sequence) padded to
    boundary - 1, the others to the longest in the batch."""
    if isinstance(element, dict):
        return {k: _sequence_shapes(v, boundary) for k, v in element.items()}
    if isinstance(element, tuple):
        return tuple(_sequence_shapes(v, boundary) for v in element)
    rank = np.ndim(element) if not isinstance(element, (bytes, str)) else 0
    return [boundary - 1] + [-1] * (rank - 1) if rank else []


def bucket_by_sequence_length(
    dataset, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
    padding_values, pad_to_bucket_boundary, no_padding, drop_remainder,
):  # fmt: skip
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(
            "len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got "
            f"{len(batch_sizes)} and {len(boundaries)}"
        )
    if any(b <= a for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError(f"bucket_boundaries must be strictly increasing, got {boundaries}")

    def bucket_of(*element):
        element = element[0] if len(element) == 1 else element
        length = _key(ds.call_unpacked(element_length_func, element), "element_length_func")
        if pad_to_bucket_boundary and boundaries and length >= boundaries[-1]:
            raise errors.InvalidArgumentError(
                "When pad_to_bucket_boundary=True, elements must have length < "
                f"max(bucket_boundaries) = {boundaries[-1]}, got {length}."
            )
        return np.int64(sum(1 for b in boundaries if length >= b))

    def batching(key, window):
        size = batch_sizes[key]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            boundary = boundaries[key]  # elements past the last boundary raised in bucket_of
            if shapes is None:
                shapes = _sequence_shapes(next(ds.epoch_elements(window, 0)), boundary)
            else:
                shapes = _bucket_shapes(padded_shapes_of(shapes), boundary)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    return GroupByWindow(dataset, bucket_of, batching, lambda key: batch_sizes[key])


# --- cache ----------------------------------------------------------------------------------


class _FileCache:
    """One pass's elements in a file of cache_format: written to a temporary file, synced, then
    renamed to `path` only when the pass is complete (a partial pass never looks like a cache).
    A temporary file left by a killed pass on this host is removed by the next writer."""

    def __init__(self, path):
        self.path = path

    def exists(self):
        return os.path.exists(self.path)

    def read(self, start):
        records = io.tf_record_iterator(self.path)
        try:
            header = next(records, None)
        except errors.DataLossError:  # not even one intact record
            header = b""
        if header is None:
            raise errors.DataLossError(f"the cache file {self.path} is empty: it was cut")
        if header != cache_format.HEADER:
            raise errors.DataLossError(
                f"{self.path} is not a swigflow cache file of this version (an older swigflow's "
                "pickle, or another file): delete it to cache the pass again"
            )
        index = 0
        for record in records:
            count = cache_format.read_count(record, self.path)
            if count is not None:
                if count != index or next(records, None) is not None:
                    raise errors.DataLossError(
                        f"the cache file {self.path} is damaged: its trailer counts {count} "
                        f"elements, the file holds {index} before it"
                    )
                return
            if index >= start:
                yield cache_format.decode(record, self.path, index)
            index += 1
        raise errors.DataLossError(
            f"the cache file {self.path} is cut after {index} elements: its trailer is missing"
        )

    def _temporary_prefix(self):
        return f"{os.path.basename(self.path)}.tmp-{socket.gethostname()}-"

    def _remove_stale_temporaries(self, directory):
        """Temporary files of this cache whose writer (a process on this host) is gone."""
        prefix = self._temporary_prefix()
        for name in os.listdir(directory):
            if not name.startswith(prefix):
                continue
            pid = name[len(prefix) :].split("-", 1)[0]
            if not pid.isdigit():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(directory, name))
            except (PermissionError, OverflowError):
                pass  # another user's live process, or not a pid: leave it

    def writer(self):
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        self._remove_stale_temporaries(directory)
        temporary = os.path.join(
            directory, f"{self._temporary_prefix()}{os.getpid()}-{secrets.token_hex(4)}"
        )
        writer = io.TFRecordWriter(temporary)
        writer.write(cache_format.HEADER)
        count = [0]

        def add(element):
            writer.write(cache_format.encode(element))
            count[0] += 1

        def finish(complete):
            try:
                if complete:
                    writer.write(cache_format.trailer(count[0]))
                writer.close()
                if complete:
                    _sync(temporary)
                    os.replace(temporary, self.path)
                    _sync(directory)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)

        return add, finish


def _sync(path):
    """fsync a file or folder, so that a rename after it never exposes unwritten data."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _MemoryCache:
    def __init__(self):
        self.elements = None

    def exists(self):
        return self.elements is not None

    def read(self, start):
        return iter(self.elements[start:])

    def writer(self):
        elements = []

        def finish(complete):
            if complete:
                self.elements = elements

        return elements.append, finish


class Cache(ds.Unary):
    """The first complete pass's elements, kept (in memory, or in a file) and given by every
    later pass and iterator of this dataset. A pass that stops early caches nothing; an
    element that fails is raised in that pass and not kept, so the cache holds the pass's other
    elements, as in tf.data. The state says whether the pass reads the cache, and how far it
    is."""

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        filename = os.fspath(filename)
        self._filename = filename
        self._store = _FileCache(filename + ".swigflow_cache") if filename else _MemoryCache()

    def _stage_name(self):
        return "cache" if not self._filename else "cache(file)"

    def _generate(self, state, epoch):
        if state is None:
            state = {"cached": int(self._store.exists()), "index": 0, "input": None}
        start = state["index"]
        if state["cached"]:
            if self._store.exists():
                elements = self._store.read(start)
            else:  # a memory cache this process never filled: the input again, from the start
                skipped = ds.Dataset.skip(self._input, start)
                elements = (element for element, _ in ds.iterate(skipped, None, epoch))
            for index, element in enumerate(elements, start + 1):
                yield element, {"cached": 1, "index": index, "input": None}
            return
        index = start
        add, finish = self._store.writer() if index == 0 else (None, None)
        # With a known cardinality the cache is complete at the last element, before the
        # reader asks past it, as in tf.data: an iterator that reads every element and stops
        # there still fills it.
        total = self._input._cardinality() if finish is not None else -1
        complete = False
        try:
            for element, position in ds.iterate(self._input, state["input"], epoch):
                index += 1
                if add is not None and type(element) is not ds.Failed:
                    add(element)
                if finish is not None and index == total:
                    finish(True)
                    finish = None
                yield element, {"cached": 0, "index": index, "input": position}
            complete = True
        finally:
            if finish is not None:
                finish(complete)

    def _check_state(self, state, where):
        if state is not None:
            cached, _, inner = ds.state_fields(state, where, cached=0, index=0, input=None)
            ds.check_count(cached, f"{where}['cached']", 0, 1)
            if not cached:
                self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        return self._input._cardinality()

    def _reshard(self, num_shards, index):
        raise TypeError("cannot split a cached dataset between workers: cache after splitting")


class GlobalShuffle(ds.Unary, ds.IteratorSeeds):
    """global_shuffle() of a random-access dataset: pass e reads the input at
    IndexPermutation(n, key(seed, e)) of 0, 1, ..., so there is no buffer and a state is the
    seed and a count. The input's random access is checked when the step is made."""

    _NOT_IDENTITY = ds.Unary._NOT_IDENTITY | {"_seed"}  # carried by the state

    def __init__(self, input_dataset, seed, reshuffle):
        super().__init__(input_dataset)
        blocker = ds.random_access_blocker(input_dataset)
        n = input_dataset._cardinality()
        if blocker is None and n < 0:
            length = "infinite" if n == ds.INFINITE else "unknown"
            blocker = f"the dataset's cardinality is {length}."
        if blocker is not None:
            raise errors.FailedPreconditionError(
                "`global_shuffle` requires all upstream transformations be compatible with "
                f"random access. Got: FAILED_PRECONDITION: {blocker}"
            )
        # As shuffle(): without reshuffling, an unseeded order is fixed when the step is made.
        self._seed = ds.new_seed() if seed is None and not reshuffle else seed
        self._reshuffle = reshuffle

    def _stage_name(self):
        return "global_shuffle"

    def _generate(self, state, epoch):
        if state is None:
            seed = ds.new_seed() if self._seed is None else self._seed
            state = {"seed": self.iterator_seed(seed) if self._reshuffle else seed, "next": 0}
        n = self._input._cardinality()
        pass_key = (state["seed"] * 0x9E3779B97F4A7C15) ^ (epoch if self._reshuffle else 0)
        permutation = IndexPermutation(n, pass_key)
        for i in range(state["next"], n):
            yield ds.read_at(self._input, permutation(i)), {"seed": state["seed"], "next": i + 1}

    def _reshuffles_per_iterator(self):
        return self._reshuffle and self._seed is not None

    def _check_state(self, state, where):
        if state is not None:
            _, following = ds.state_fields(state, where, seed=ds.SEED_RANGE, next=0)
            ds.check_count(following, f"{where}['next']", 0, self._input._cardinality())

    def _cardinality(self):
        return self._input._cardinality()


ds.STEPS.update(
    flat_map=FlatMap,
    window=Window,
    padded_batch=PaddedBatch,
    rebatch=Rebatch,
    scan=Scan,
    group_by_window=group_by_window,
    bucket_by_sequence_length=bucket_by_sequence_length,
    cache=Cache,
    global_shuffle=GlobalShuffle,
)
