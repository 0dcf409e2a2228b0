"""swigflow.data.Dataset: tf.data's names and semantics, iterated as plain Python.

Every dataset is immutable; transformations return new datasets. Iterating runs the pipeline.
Internally each dataset yields ``(element, state)`` pairs, where ``state`` is a small JSON-able
value from which iteration can resume right after that element; :class:`Iterator` keeps the
state of the last element it returned (see :meth:`Dataset.iterator`).
"""

import collections
import concurrent.futures
import contextvars
import copy
import functools
import itertools
import json
import logging
import operator
import os
import queue
import random
import threading
import time

import numpy as np

from swigflow import errors
from swigflow.data import fingerprint as _fingerprint
from swigflow.data import stats as _stats
from swigflow.data.options import Options
from swigflow.io import gfile

INT64_MAX = (1 << 63) - 1  # the native pipeline's counts and offsets are int64
SEED_RANGE = (-(1 << 63), (1 << 64) - 1)  # a seed in a state: an int64 or a uint64
AUTOTUNE = -1
INFINITE = -1  # cardinality() of an endless dataset
UNKNOWN = -2  # cardinality() when it cannot be known without iterating


def autotune_count(value, default):
    if value is None:
        return None
    if value == AUTOTUNE:
        return default
    if value < 1:
        raise ValueError(f"expected a positive count or AUTOTUNE, got {value}")
    return int(value)


def prefetch_size(buffer_size):
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


def function_name(fn):
    """A user function's name for statistics and messages."""
    fn = getattr(fn, "func", fn)  # functools.partial
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def call_unpacked(fn, element):
    """fn(*element) for a tuple element, else fn(element): how tf.data calls user functions."""
    return fn(*element) if type(element) is tuple else fn(element)


class Failed:
    """An element whose user function raised: passed along in place of the element, it is
    raised by Iterator.__next__ for that element only, and iteration goes on after it (tf.data
    reports a failed map call the same way)."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def apply_fn(fn, element):
    """fn applied as tf.data applies a user function; a raised exception becomes a Failed
    element, with StopIteration made InvalidArgumentError (it must never end a dataset)."""
    if type(element) is Failed:
        return element
    try:
        return call_unpacked(fn, element)
    except StopIteration as e:
        error = errors.InvalidArgumentError(
            f"the function raised StopIteration for an element: {e!r}"
        )
        error.__cause__ = e
        return Failed(error)
    except Exception as e:
        return Failed(e)


def state_fields(state, where, **fields):
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


def check_count(value, where, lowest=0, highest=INT64_MAX):
    """Raises ValueError unless value is an int in [lowest, highest]: every field of a state
    is bounded, so none reaches the native layer out of its range."""
    if type(value) is not int or not lowest <= value <= highest:
        raise ValueError(f"{where}: expected an int >= {lowest} and <= {highest}, got {value!r}")


def check_not_past_end(resume_at, produced, field):
    """Raises when a state resumed after more elements than the epoch had (a tampered state
    would otherwise yield nothing, silently)."""
    if resume_at > produced:
        raise ValueError(
            f"the iterator state's {field!r} is {resume_at}, but this pass has only {produced} "
            "elements: the state is not from this pipeline"
        )


def dataset_type(dataset):
    """A step's name in random-access messages, as tf.data's kernel names: "RepeatDataset"."""
    return type(dataset).__name__.lstrip("_") + "Dataset"


def check_index(dataset, index):
    """Raises as tf.data's random access does for an index `dataset` cannot give: an infinite
    dataset has no random access, an index outside [0, cardinality) is out of range, and an
    unknown cardinality comes from a step without random access, which is named."""
    n = dataset._cardinality()
    if n == UNKNOWN:
        stack = [dataset]
        while stack:  # the outermost step that does not implement _get
            step = stack.pop()
            if type(step)._get is Dataset._get:
                dataset = step
                break
            stack.extend(reversed(step._input_datasets()))
        raise errors.UnimplementedError(
            f"Random access is not implemented for dataset {dataset_type(dataset)}"
        )
    if n == INFINITE:
        raise errors.FailedPreconditionError(
            f"Dataset of type {dataset_type(dataset)} has infinite cardinality, which does not "
            "support random access."
        )
    if n >= 0 and not 0 <= index < n:
        raise errors.OutOfRangeError(f"Index out of range [0, {n}):{index}")


def read_at(dataset, index):
    """The element at `index` of `dataset`, read directly: a Failed element as iteration would
    pass it along (for steps built on random access)."""
    return dataset._get(operator.index(index))


def element_at(dataset, index):
    """The element at `index` of `dataset`, read directly (tf.data.experimental.at)."""
    element = read_at(dataset, index)
    if type(element) is Failed:
        raise element.error
    return element


def random_access_blocker(dataset):
    """None when every step of `dataset` has random access, else the first reason one has not,
    from the outermost step in."""
    stack, seen = [dataset], set()
    while stack:
        step = stack.pop()
        if id(step) in seen:
            continue
        seen.add(id(step))
        reason = step._random_access_blocker()
        if reason is not None:
            return reason
        stack.extend(reversed(step._input_datasets()))
    return None


def buffer_shuffled(items, size, rng, passthrough):
    """tf.data's shuffle buffer over `items`: each comes out drawn at random (rng) from the
    next `size`; items for which passthrough(item) is true come out at once, drawing nothing.
    Iteration and random access both shuffle through this, so they agree."""
    buffer = []
    for item in items:
        if passthrough(item):
            yield item
        elif len(buffer) < size:
            buffer.append(item)
        else:
            i = rng.randrange(len(buffer))
            out, buffer[i] = buffer[i], item
            yield out
    while buffer:
        i = rng.randrange(len(buffer))
        buffer[i], buffer[-1] = buffer[-1], buffer[i]
        yield buffer.pop()


# The steps swigflow.data.transformations defines on top of this module (flat_map, window,
# ...), by method name; it registers them when swigflow.data imports it.
STEPS = {}

# Functions that fuse ``files.interleave(map_func, cycle_length, block_length)`` into one
# dataset, or return None when they do not apply; swigflow.data.records registers the native
# pipeline's when it is imported (swigflow.data imports it).
INTERLEAVE_FUSERS = []


def split_source(dataset, num_shards, index):
    """`dataset` with its source split num_shards ways, part `index` (the PyTorch adapter's
    split between DataLoader workers and ranks). Raises when the source cannot be split, or
    when the order of its elements would differ between processes (an unseeded shuffle)."""
    dataset._check_shardable()
    return dataset._reshard(num_shards, index)


def check_shardable(dataset):
    """Raises ValueError if the order of dataset's elements differs between processes."""
    dataset._check_shardable()


def iterate(dataset, state, epoch):
    """(element, state) pairs of `dataset` from `state` (None: the start), in pass `epoch`: how
    a step reads its input."""
    return dataset._iter(state, epoch)


def epoch_elements(dataset, epoch):
    """The elements of one pass of `dataset` (its `epoch`-th, for reshuffling)."""
    for element, _ in dataset._iter(None, epoch):
        yield element


def cpu_count():
    return max(1, int(os.environ.get("SWIGFLOW_NUM_THREADS", os.cpu_count() or 1)))


def new_seed():
    return random.SystemRandom().randrange(1 << 63)


# Seeded shuffles that reshuffle each iteration give each iterator its own order, as tf.data's
# seed generators do: the k-th iterator over a dataset (k = 0, 1, ...) shuffles with the seed
# mixed with k. A new dataset object (a new program, a DataLoader worker) starts again at 0.
# While an iterator runs, this maps id(shuffle step) -> k.
_ITERATIONS = contextvars.ContextVar("swigflow_data_iterations", default=None)


class IteratorSeeds:
    """Mixin of steps with a seeded shuffle: _reshuffles_per_iterator() says whether this step
    has one that reshuffles each iteration; iterator_seed(seed) is that seed for the running
    iterator (the seed itself for the first)."""

    def _reshuffles_per_iterator(self):
        raise NotImplementedError

    def _next_iteration(self):
        counter = self.__dict__.setdefault("_iterations", itertools.count())
        return next(counter)

    def iterator_seed(self, seed):
        iterations = _ITERATIONS.get()
        k = 0 if iterations is None else iterations.get(id(self), 0)
        return seed if k == 0 else (int(seed) ^ (k * 0x9E3779B97F4A7C15)) & ((1 << 63) - 1)


def _reshuffling_steps(dataset):
    """The steps of a pipeline whose seeded shuffles reshuffle per iterator, depth first."""
    found, stack, seen = [], [dataset], set()
    while stack:
        step = stack.pop()
        if id(step) in seen:
            continue
        seen.add(id(step))
        if isinstance(step, IteratorSeeds) and step._reshuffles_per_iterator():
            found.append(step)
        stack.extend(reversed(step._input_datasets()))
    return found


def _identity_of(value):
    """The fields a dataset is digested by (swigflow.data.fingerprint), None for other values."""
    return value._identity() if isinstance(value, Dataset) else None


class Dataset:
    """A pipeline of elements, with tf.data's transformations.

    ::

        ds = (swigflow.data.TFRecordDataset(files, num_parallel_reads=4)
              .shuffle(10_000, seed=1)
              .batch(512)
              .parse({"label": swigflow.io.FixedLenFeature([], "int64")})
              .prefetch(2))
        for batch in ds:
            ...

    Runs of TFRecordDataset, shard, shuffle, repeat, batch, parse and prefetch run natively, on
    threads without the GIL; other steps (map with a Python function, filter, ...) run in
    Python on the elements they receive.
    """

    # --- subclass interface ---------------------------------------------------------------------

    def _generate(self, state, epoch):
        """Yields (element, state after it), resuming from `state` (None: from the start).
        `epoch` counts the passes an enclosing repeat() made, for reshuffling."""
        raise NotImplementedError

    def _stage_name(self):
        """This step's name in pipeline statistics."""
        return type(self).__name__.lstrip("_").lower()

    def _iter(self, state, epoch):
        """_generate, clocked as a stage of the pipeline statistics when they are collected."""
        return _stats.instrument(self._stage_name(), self._generate(state, epoch))

    def _cardinality(self):
        return UNKNOWN

    def _get(self, index):
        """The element at position `index` of a first pass, read without iterating (random
        access: element_at and global_shuffle), possibly Failed as iteration would give it.
        Steps that implement it (after check_index) have random access."""
        raise errors.UnimplementedError(
            f"Random access is not implemented for dataset {dataset_type(self)}"
        )

    def _random_access_blocker(self):
        """None when this step reads its elements at any index (it implements _get), else why
        not (tf.data's words). The inputs answer for themselves (random_access_blocker walks
        them)."""
        if type(self)._get is not Dataset._get:
            return None
        return f"{dataset_type(self)} does not support random access of tf.data datasets."

    def _signature(self):
        """The pipeline's shape, checked when an iterator is resumed from a state."""
        return type(self).__name__

    def _reshard(self, num_shards, index):
        """This pipeline with its source split num_shards ways, part `index` (for the PyTorch
        adapter: DataLoader workers and distributed ranks)."""
        raise TypeError(f"cannot split the source of {self._signature()} between workers")

    def _check_shardable(self):
        """Raises if the elements' order differs between processes (an unseeded shuffle)."""

    def _input_datasets(self):
        """The datasets this step reads (attributes holding a Dataset or a list of them)."""
        found = []
        for value in vars(self).values():
            if isinstance(value, Dataset):
                found.append(value)
            elif isinstance(value, (list, tuple)):
                found.extend(v for v in value if isinstance(v, Dataset))
        return found

    # Attributes that are no part of what the dataset yields: seeds its states carry (listed
    # by the steps that have them) and what iterating fills in.
    _NOT_IDENTITY = frozenset(
        {"_iterations", "_first_order", "_random_access_seed", "_store", "_fingerprint_digest"}
    )

    def _identity(self):
        """What decides this dataset's elements, digested into the fingerprint that binds an
        iterator state to it (swigflow.data.fingerprint): by default its attributes."""
        return {k: v for k, v in vars(self).items() if k not in self._NOT_IDENTITY}

    def _fingerprint(self):
        """The digest that binds iterator states to this dataset, taken once per dataset (a
        dataset is immutable; its files are stat'ed then)."""
        found = self.__dict__.get("_fingerprint_digest")
        if found is None:
            found = _fingerprint.digest(self, _identity_of)
            found = self.__dict__.setdefault("_fingerprint_digest", found)
        return found

    def _check_state(self, state, where):
        """Raises ValueError naming the field when `state` (a position this dataset's _iter
        yielded, or None) is not one it could have yielded. `where` names it for messages."""
        if state is not None:
            raise ValueError(f"{where}: expected null for {self._signature()}, got {state!r}")

    # --- iteration ------------------------------------------------------------------------------

    def __iter__(self):
        return self.iterator()

    def iterator(self, state=None, stats=True):
        """An iterator over the elements; with `state` (from :meth:`Iterator.state` of an
        iterator over the same pipeline), it resumes exactly after the element that state was
        taken at: the same elements in the same order as if iteration had never stopped.
        `stats`: collect :meth:`Iterator.stats` (Python steps are clocked per element; the
        native stages count their work either way)."""
        return Iterator(self, state, stats)

    def stats(self, seconds=None, elements=None):
        """Runs the pipeline with nothing else consuming its elements, for `seconds` (or until
        `elements` have come out, or to the end) and returns its
        :class:`swigflow.data.stats.PipelineStats`: what each stage did and which was busiest.
        ``swigflow profile`` reads its findings from these."""
        if seconds is not None and not seconds > 0:  # nan too
            raise ValueError(f"seconds must be positive, got {seconds}")
        it = self.iterator()
        deadline = None if seconds is None else time.monotonic() + seconds
        try:
            for produced, _ in enumerate(it, 1):
                if elements is not None and produced >= elements:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
        finally:
            it.close()
        return it.stats()

    def cardinality(self):
        """The number of elements: a count, INFINITE, or UNKNOWN (tf.data's convention)."""
        return self._cardinality()

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("the dataset is infinite")
        if n < 0:
            raise TypeError(
                "the length of this dataset is unknown (index files give TFRecordDatasets a "
                "length: swigflow index FILE...)"
            )
        return n

    def as_numpy_iterator(self):
        """The elements (already numpy): for code written against tf.data."""
        return iter(self)

    # --- sources --------------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: `tensors` whole (a value, or a dict / tuple of them), with
        from_tensor_slices' dtypes for Python values."""
        del name
        return _FromTensors(tensors)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side, as ``tf.data.Dataset.zip``: pass datasets
        as arguments, or one structure of them (nested tuples, namedtuples and dicts): the
        elements have that structure. One dataset alone gives its own elements. Ends with the
        shortest."""
        del name
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            datasets = args[0] if len(args) == 1 else args
        if not _zip_leaves(datasets):
            raise TypeError(
                f"zip takes datasets, or a (nested) tuple or dict of them, got {datasets!r}"
            )
        return _Zip(datasets)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """Elements are the slices of `tensors` along their first dimension; `tensors` may be a
        numpy array, a list, or a dict / tuple of them (all of the same length).

        Python values get tf.data's dtypes, not numpy's: ints become int32 (int64 when one
        does not fit), floats float32, str UTF-8 bytes. numpy arrays keep their dtype."""
        del name
        return _TensorSlices(tensors)

    @staticmethod
    def from_generator(
        generator, output_types=None, output_shapes=None, args=None, output_signature=None,
        name=None,
    ):  # fmt: skip
        """The elements generator(*args) yields, each pass calling it anew. Types and shapes
        are not checked (elements stay what the generator made, with from_tensors' dtypes for
        Python values); a generator that raises ends the dataset with its exception. Resuming
        calls the generator again and skips the elements already given."""
        del output_types, output_shapes, output_signature, name
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        return _FromGenerator(generator, tuple(args or ()))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The file names matching `file_pattern` (a glob pattern or a list of them), sorted,
        then shuffled each epoch unless ``shuffle=False`` (tf.data's default is to shuffle)."""
        del name
        return _ListFiles(file_pattern, True if shuffle is None else bool(shuffle), seed)

    @staticmethod
    def range(*args, output_type=np.int64, name=None):
        """start, start + step, ... below stop, like Python's range (tf.data.Dataset.range):
        int64 elements unless output_type says otherwise.

        Raises:
          InvalidArgumentError: step is 0.
        """
        del name
        if not 1 <= len(args) <= 3:
            raise ValueError(f"range takes 1 to 3 arguments (start, stop, step), got {len(args)}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if step == 0:
            raise errors.InvalidArgumentError("step must be a non-zero integer.")
        values = np.arange(int(start), int(stop), int(step), dtype=np.int64)
        return _TensorSlices(values.astype(output_type, copy=False))

    # --- transformations ------------------------------------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies map_func to each element; a tuple element is unpacked into arguments, as in
        tf.data (``lambda x, y: ...``). With num_parallel_calls, that many calls run at once on
        threads; the output order stays the input order.

        An exception raised by map_func is raised by ``next()`` for that element, and iteration
        can go on with the next one. StopIteration becomes InvalidArgumentError: it never ends
        the dataset."""
        del deterministic, name  # always deterministic
        return _Map(self, map_func, autotune_count(num_parallel_calls, cpu_count()))

    def filter(self, predicate, name=None):
        """Keeps the elements for which predicate(element) is true (a tuple element is unpacked
        into arguments). Exceptions are raised for their element, as in map."""
        del name
        return _Filter(self, predicate)

    def batch(
        self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
        name=None,
    ):  # fmt: skip
        """Stacks batch_size consecutive elements (numpy arrays, numbers, bytes, or dicts and
        tuples of them) into one; the last batch may be smaller unless drop_remainder."""
        del num_parallel_calls, deterministic, name
        return Batch(self, batch_size_of(batch_size), bool(drop_remainder))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """tf.data's shuffle buffer: each element is drawn at random from the next
        buffer_size elements. seed=None draws a seed per iterator (kept in its state)."""
        del name
        return _Shuffle(
            self, positive_count("buffer_size", buffer_size), seed, reshuffle_each_iteration
        )

    def global_shuffle(self, seed=None, reshuffle_each_iteration=True, name=None):
        """A uniform shuffle of the whole dataset, with no buffer: each pass reads the elements
        at a seeded pseudo-random permutation of their indexes (tf.data's global shuffle). Every
        step before it must have random access (see swigflow.data.experimental.at) and the
        dataset a known, finite length; FailedPreconditionError says which step has not.
        Seeds as in shuffle(). On a TFRecordDataset with index files it runs natively."""
        del name
        return STEPS["global_shuffle"](self, seed, bool(reshuffle_each_iteration))

    def repeat(self, count=None, name=None):
        """Repeats the dataset count times (forever when None or negative, as tf.data)."""
        del name
        count = None if count is None or int(count) < 0 else int(count)
        return _Repeat(self, count)

    def take(self, count, name=None):
        """The first count elements (all when count is -1)."""
        del name
        return _Take(self, int(count))

    def skip(self, count, name=None):
        """All but the first count elements (none when count is -1)."""
        del name
        return _Skip(self, int(count))

    def shard(self, num_shards, index, name=None):
        """Every num_shards-th element starting at index: an exact partition over the indexes.
        On TFRecord data the partition is of records (see TFRecordDataset.shard)."""
        del name
        return _Shard(self, *shard_args(num_shards, index))

    def interleave(
        self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
        deterministic=None, name=None,
    ):  # fmt: skip
        """Maps each element to a dataset and interleaves them: cycle_length at once,
        block_length elements from each in turn. When map_func makes TFRecordDatasets (e.g.
        ``files.interleave(swigflow.data.TFRecordDataset, cycle_length=4)``), the files are read
        by the native pipeline, in parallel."""
        del deterministic, name
        if cycle_length is None or cycle_length == AUTOTUNE:  # tf.data's rule
            parallel = autotune_count(num_parallel_calls, cpu_count())
            if num_parallel_calls == AUTOTUNE:
                parallel = (cpu_count() + 2) // 3
            cycle_length = cpu_count() if parallel is None else min(parallel, cpu_count())
        cycle_length = autotune_count(cycle_length, cpu_count())
        block_length = positive_count("block_length", 1 if block_length is None else block_length)
        for fuse in INTERLEAVE_FUSERS:
            fused = fuse(self, map_func, cycle_length, block_length)
            if fused is not None:
                return fused
        return _Interleave(self, map_func, cycle_length, block_length, num_parallel_calls)

    def with_options(self, options, name=None):
        """This dataset with tf.data ``options`` (a :class:`swigflow.data.Options`) set over
        its own; :meth:`options` returns them. What each option does here is in
        :mod:`swigflow.data.options`."""
        del name
        if not isinstance(options, Options):
            raise TypeError(f"options must be a swigflow.data.Options, got {options!r}")
        return _WithOptions(self, self.options().merge(options))

    def options(self):
        """The options set on this dataset and its inputs, merged (the outermost win)."""
        merged = Options()
        for dataset in self._input_datasets():
            merged = merged.merge(dataset.options())
        return merged

    def prefetch(self, buffer_size, name=None):
        """Prepares up to buffer_size elements ahead on a background thread (AUTOTUNE: 2;
        0: no prefetching)."""
        del name
        size = prefetch_size(buffer_size)
        return _Prefetch(self, size) if size else self

    def parse(self, features):
        """Parses batches of serialized tf.train.Examples with swigflow.io.parse_example (single
        examples with parse_single_example). Fused into the native pipeline when it can be."""
        from swigflow.io.feature_spec import check_features

        check_features(features)
        return self.map(ParseFn(features))

    def decode_images(
        self, key="image/encoded", size=(224, 224), crop=None, flip=False, channels=3,
        dtype="uint8", layout="NHWC", mean=None, std=None, fast=False, seed=None,
    ):  # fmt: skip
        """Decodes the JPEG/PNG bytes under `key` of parsed batches (after
        ``.batch(n).parse(spec)``) into one array [batch, *size, channels] (NCHW with
        layout="NCHW"), as tf.data's ``decode_jpeg`` + ``resize`` map, in one native step.

        crop: None (the whole image), "center" (tf.image.central_crop(0.875), Inception's
        evaluation) or "random" (sample_distorted_bounding_box with 8-100% of the area and aspect
        ratios 3/4..4/3, then decode_and_crop_jpeg: only the window is decoded), each then resized
        bilinearly (TF2's half-pixel centres). flip: a random left-right flip of half the images.
        dtype: "uint8" (rounded) or "float32", which is pixel / 255, then (x - mean) / std per
        channel when given (torchvision's convention, e.g. mean=(0.485, 0.456, 0.406)).
        fast: decode less, pixels no longer TensorFlow's. libjpeg-turbo's scaled IDCT (1/8, 1/4
        or 1/2, the smallest that keeps the crop at least `size`; the other M/8 scales have no
        SIMD code and are slower than a full decode), and the JPEG's Y, Cb, Cr planes resized as
        stored and converted to RGB at the output size (no full-size chroma upsampling or colour
        conversion). About 14% less work per ImageNet-sized image, far less for images much
        larger than `size`; within float rounding of the exact step for 4:4:4 JPEGs, a few
        levels on average for subsampled chroma (interpolated on its own grid). Random crops
        and flips are deterministic for a seed.

        Its randomness resumes with the iterator's state. On a TFRecordDataset it runs on the
        native pipeline's threads, in parallel with reading and parsing, and an image that does
        not decode follows the dataset's on_error policy ("skip_record"/"skip_file" drop its
        record and log file and offset; "raise" names them); elsewhere it is a step like map's,
        whose failed batch raises for that element only.
        """
        from swigflow.data.images import image_options

        options = image_options(size, crop, flip, channels, dtype, layout, mean, std, fast)
        return _DecodeImages(self, key, options, seed)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then `dataset`'s."""
        del name
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate takes a Dataset, got {dataset!r}")
        return _Concatenate(self, dataset)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 counting from `start`."""
        del name
        return _Enumerate(self, int(start))

    def unbatch(self, name=None):
        """Splits each element along its first dimension (of every component): the inverse of
        batch()."""
        del name
        return _Unbatch(self)

    def flat_map(self, map_func, name=None):
        """map_func(element) is a dataset for each element; their elements one dataset after
        the other. ``files.flat_map(TFRecordDataset)`` reads the files natively."""
        del name
        for fuse in INTERLEAVE_FUSERS:
            fused = fuse(self, map_func, 1, 1)  # an interleave of one slot is a concatenation
            if fused is not None:
                return fused
        return STEPS["flat_map"](self, map_func)

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
        name=None,
    ):  # fmt: skip
        """batch() for elements of different shapes: each component is padded to its
        padded shape (a structure like the element's, of shapes; None or -1 for a dimension pads
        it to the longest in the batch; None for all of them) with its padding value (0, False
        or b"" by default; one value, or a structure of them). An element longer than its
        padded shape raises DataLossError, as in tf.data."""
        del name
        size = batch_size_of(batch_size)
        drop = bool(drop_remainder)
        return STEPS["padded_batch"](self, size, padded_shapes, padding_values, drop)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of `size` elements, window i starting at element i * shift and taking every
        stride-th one; each window is a dataset (a dict or tuple of datasets, one per component,
        for dict or tuple elements). Windows at the end may be shorter unless drop_remainder.
        ``ds.window(3).flat_map(lambda w: w.batch(3))`` gives the windows as batches."""
        del name
        size = window_arg("size", size)
        shift = size if shift is None else window_arg("shift", shift)
        stride = window_arg("stride", stride)
        return STEPS["window"](self, size, shift, stride, bool(drop_remainder))

    def scan(self, initial_state, scan_func, name=None):
        """scan_func(state, element) returns (new_state, output); the outputs, with the state
        carried from one element to the next, starting at initial_state."""
        del name
        return STEPS["scan"](self, initial_state, scan_func)

    def group_by_window(
        self, key_func, reduce_func, window_size=None, window_size_func=None, name=None
    ):
        """Groups elements by key_func(element) (an int) into windows of window_size (or
        window_size_func(key)) elements; reduce_func(key, window) turns each full window (a
        dataset) into a dataset whose elements are emitted. At the end, the unfinished windows
        are reduced in increasing key order."""
        del name
        return STEPS["group_by_window"](self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
        padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
        drop_remainder=False, name=None,
    ):  # fmt: skip
        """Batches elements of similar length together: element_length_func(element) picks
        bucket i where bucket_boundaries[i - 1] <= length < bucket_boundaries[i]; bucket i is
        padded_batch'ed by bucket_batch_sizes[i] (batch'ed with no_padding). With
        pad_to_bucket_boundary, the unknown dimensions (dimension 0 when no padded_shapes are
        given) are padded to the bucket's boundary - 1, and lengths must be below the last
        boundary."""
        del name
        return STEPS["bucket_by_sequence_length"](
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, bool(drop_remainder),
        )  # fmt: skip

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The rows of batched elements batched again: batches of batch_size rows, or of
        batch_size[i % len(batch_size)] rows for batch i when a list is given."""
        del name
        sizes = [batch_size] if np.ndim(batch_size) == 0 else list(np.ravel(batch_size))
        if not sizes:
            raise errors.InvalidArgumentError("rebatch needs at least one batch size")
        return STEPS["rebatch"](self, [batch_size_of(n) for n in sizes], bool(drop_remainder))

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete pass and gives them to every later pass
        (repeat()) and iterator: in memory, or with a filename in the file FILENAME.swigflow_cache
        (written under a temporary name and renamed when the pass completes, then read by any
        later program). Not tf.data's file format."""
        del name
        return STEPS["cache"](self, filename)

    def apply(self, transformation_func):
        """transformation_func(self): for reusable steps, e.g.
        ``ds.apply(swigflow.data.experimental.parse_example_dataset(features))``."""
        return transformation_func(self)

    def __repr__(self):
        return f"<{self._signature()}>"


def positive_count(name, value):
    value = int(value)
    if not 1 <= value <= INT64_MAX:
        raise ValueError(f"{name} must be positive and fit in int64, got {value}")
    return value


def window_arg(name, value):
    """window()'s size, shift or stride, checked with tf.data's error."""
    value = int(value)
    if value < 1:
        raise errors.InvalidArgumentError(
            f"Window {name} must be greater than zero, but got {value}."
        )
    return value


def batch_size_of(batch_size):
    """batch()'s size, checked with tf.data's error."""
    batch_size = int(batch_size)
    if batch_size < 1:
        raise errors.InvalidArgumentError("Batch size must be greater than zero.")
    return batch_size


def shard_args(num_shards, index):
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


class ParseFn:
    """map(parse) on serialized examples; recognised and fused by the native pipeline."""

    def __init__(self, features):
        self.features = dict(features)

    def __call__(self, element):
        from swigflow.io import parse_example, parse_single_example

        if isinstance(element, bytes):
            return parse_single_example(element, self.features)
        return parse_example(element, self.features)


class _Running:
    """What an iterator's steps see while its code runs: its statistics and its iterations."""

    __slots__ = ("_iterations", "_session", "_token")

    def __init__(self, session, iterations):
        self._session = session
        self._iterations = iterations

    def __enter__(self):
        self._token = _ITERATIONS.set(self._iterations)
        self._session.__enter__()

    def __exit__(self, *exc):
        self._session.__exit__(*exc)
        _ITERATIONS.reset(self._token)


class Iterator:
    """Iterates over a Dataset and can say where it is: :meth:`state` is a small JSON-able
    dict; ``dataset.iterator(state=...)`` resumes right after the last element returned."""

    def __init__(self, dataset, state=None, stats=True):
        self._dataset = dataset
        signature = dataset._signature()
        steps = _reshuffling_steps(dataset)
        inner = None
        if state is None:
            iterations = [step._next_iteration() for step in steps]
        else:
            taken_from = state.get("pipeline") if isinstance(state, dict) else state
            if taken_from != signature:
                raise ValueError(
                    "this state was taken from an iterator over another pipeline "
                    f"(expected {signature!r}, got {taken_from!r})"
                )
            keys = {"pipeline", "fingerprint", "position"} | ({"iterations"} if steps else set())
            if not isinstance(state, dict) or set(state) != keys:
                also = ", and 'iterations'" if steps else ""
                raise ValueError(
                    "an iterator state is a dict with 'pipeline', 'fingerprint' and 'position'"
                    f"{also}, got {state!r}"
                )
            expected = dataset._fingerprint()
            if state["fingerprint"] != expected:
                raise ValueError(
                    f"this state was taken from an iterator over another {signature!r} "
                    "pipeline: its files, their sizes or its steps' arguments differ "
                    f"(state['fingerprint'] is {state['fingerprint']!r}, this dataset's is "
                    f"{expected!r})"
                )
            iterations = state.get("iterations", [])
            if not isinstance(iterations, list) or len(iterations) != len(steps):
                raise ValueError(
                    f"state['iterations']: expected a list of {len(steps)} ints, got {iterations!r}"
                )
            for i, k in enumerate(iterations):
                check_count(k, f"state['iterations'][{i}]")
            inner = state["position"]
            dataset._check_state(inner, "state['position']")
        self._state = {"pipeline": signature, "position": inner}
        if steps:  # which iterator of each seeded shuffle this is (resumed with the state)
            self._state["iterations"] = iterations
        self._collector = _stats.Collector() if stats else None
        self._session = _Running(
            _stats.Session(self._collector),
            {id(step): k for step, k in zip(steps, iterations)},
        )
        with self._session:
            self._gen = dataset._iter(inner, 0)
        self._lock = threading.Lock()  # one next() at a time: each element to one caller
        self.closed = False

    def __iter__(self):
        return self

    def __next__(self):
        """The next element. Safe to call from several threads at once: each element goes to
        exactly one caller. Raises the exception of an element whose function failed, after
        which the following elements can still be read."""
        with self._lock:
            collector = self._collector
            if collector is None:
                element, position = next(self._gen)
            else:
                start = collector.before_next()
                produced = False
                try:
                    with self._session:
                        element, position = next(self._gen)
                    produced = True
                except StopIteration:
                    collector.finish()
                    raise
                finally:
                    collector.after_next(start, produced)
            self._state = dict(self._state, position=position)
        if type(element) is Failed:
            raise element.error
        return element

    def state(self):
        """Where this iterator is: resume with ``dataset.iterator(state=...)``. The dict
        survives ``json.dumps``/``json.loads``."""
        fingerprint = self._dataset._fingerprint()  # once per dataset, outside the lock
        with self._lock:
            return json.loads(json.dumps(dict(self._state, fingerprint=fingerprint)))

    def close(self):
        """Stops the pipeline's threads now (also done when the iterator is garbage)."""
        with self._lock:
            self.closed = True
            with self._session:
                self._gen.close()
            if self._collector is not None:
                self._collector.finish()

    def stats(self):
        """What each stage of the pipeline did so far (:class:`swigflow.data.stats.PipelineStats`):
        busy and waiting time, elements, records, bytes and files per stage, queue fill
        levels, and how long the consumer waited in next() versus worked between calls."""
        if self._collector is None:
            raise ValueError("this iterator collects no statistics (iterator(stats=False))")
        return self._collector.snapshot()

    def log_stats(self, every_seconds=60.0, logger=None, level=logging.INFO, callback=None):
        """Logs :meth:`stats`' summary line every `every_seconds` on the "swigflow.data" logger
        (or `logger`), or calls ``callback(stats)`` instead; returns a
        :class:`swigflow.data.stats.StatsLogger` (``.stop()``). For training scripts."""
        self.stats()  # raises when statistics are off
        return _stats.StatsLogger(self, every_seconds, logger, level, callback)


# --- Python sources -----------------------------------------------------------------------------


def slice_of(tensors, i):
    if isinstance(tensors, dict):
        return {k: slice_of(v, i) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(slice_of(v, i) for v in tensors)
    return tensors[i]


def length_of(tensors):
    if isinstance(tensors, dict):
        lengths = {length_of(v) for v in tensors.values()}
    elif isinstance(tensors, tuple):
        lengths = {length_of(v) for v in tensors}
    else:
        return len(tensors)
    if len(lengths) != 1:
        raise ValueError(f"all components must have the same first dimension, got {lengths}")
    return lengths.pop()


def _python_leaves(value):
    """The leaf types of a (nested) list of Python values, or None if any leaf is numpy's."""
    types = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, (np.ndarray, np.generic)):
            return None
        else:
            types.add(type(v))
    return types


def _utf8(value):
    """Nested lists of str and bytes with every str encoded."""
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return value.encode() if isinstance(value, str) else value


def _as_array(value):
    """One component as tf.data converts it (see Dataset.from_tensor_slices)."""
    if isinstance(value, np.ndarray):
        return value
    leaves = _python_leaves(value) if isinstance(value, list) else None
    if leaves and leaves <= {str, bytes}:
        return np.array(_utf8(value), dtype=object)
    array = np.asarray(value)
    if leaves is None and not isinstance(value, (bool, int, float)):
        return array  # numpy values keep their dtype
    if array.dtype == np.int64:
        info = np.iinfo(np.int32)
        if array.size == 0 or (array.min() >= info.min and array.max() <= info.max):
            return array.astype(np.int32)
    elif array.dtype == np.float64:
        return array.astype(np.float32)
    return array


def _as_arrays(tensors):
    if isinstance(tensors, dict):
        return {k: _as_arrays(v) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(_as_arrays(v) for v in tensors)
    return _as_array(tensors)


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        self._tensors = _as_arrays(tensors)
        self._n = length_of(self._tensors)

    def _generate(self, state, epoch):
        for i in range(0 if state is None else state, self._n):
            yield slice_of(self._tensors, i), i + 1

    def _cardinality(self):
        return self._n

    def _get(self, index):
        check_index(self, index)
        return slice_of(self._tensors, index)

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0, self._n)

    def _reshard(self, num_shards, index):
        return _Shard(self, num_shards, index)


def file_sizes(files):
    """(path, size) per file for a dataset's identity: -1 for a file that cannot be stat'ed (its
    read raises the error), None for a remote one (a request per object would make saving a
    state slow; its URL is its identity)."""
    sized = []
    for f in files:
        local = gfile.local_path(f) if isinstance(f, str) else None
        if local is None:
            sized.append((f, None))
            continue
        try:
            sized.append((f, os.stat(local).st_size))
        except OSError:
            sized.append((f, -1))
    return sized


class _ListFiles(Dataset, IteratorSeeds):
    _NOT_IDENTITY = Dataset._NOT_IDENTITY | {"_seed"}  # carried by the state

    def __init__(self, pattern, shuffle, seed):
        patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
        files = sorted({f for p in patterns for f in gfile.glob(p)})
        if not files:
            raise errors.InvalidArgumentError(
                f"Expected 'file_pattern' argument to match at least one file: {pattern!r}"
            )
        self._files = files
        self._shuffle = shuffle
        self._seed = seed

    def _reshuffles_per_iterator(self):
        return self._shuffle and self._seed is not None

    def files(self, epoch, seed):
        files = list(self._files)
        if self._shuffle:
            random.Random(f"{seed}:{epoch}").shuffle(files)
        return files

    def _generate(self, state, epoch):
        if state is None:
            seed = new_seed() if self._seed is None else self.iterator_seed(self._seed)
            state = {"seed": seed, "next": 0}
        files = self.files(epoch, state["seed"])
        for i in range(state["next"], len(files)):
            yield files[i], {"seed": state["seed"], "next": i + 1}

    def _cardinality(self):
        return len(self._files)

    def _check_state(self, state, where):
        if state is not None:
            _, following = state_fields(state, where, seed=SEED_RANGE, next=0)
            check_count(following, f"{where}['next']", 0, len(self._files))

    def _signature(self):
        return f"ListFiles({len(self._files)})"

    def _identity(self):
        return dict(super()._identity(), _files=file_sizes(self._files))

    def _check_shardable(self):
        if self._shuffle and self._seed is None:
            raise ValueError(
                "list_files(shuffle=True) needs a seed when its files are split between "
                "workers or ranks: each process would shuffle them differently"
            )

    def _reshard(self, num_shards, index):
        self._check_shardable()
        return _Shard(self, num_shards, index)


# --- Python transformations ---------------------------------------------------------------------


class Unary(Dataset):
    def __init__(self, input_dataset):
        self._input = input_dataset

    def _signature(self):
        return f"{self._input._signature()}.{type(self).__name__[1:]}"

    def _reshard(self, num_shards, index):
        clone = copy.copy(self)
        clone._input = self._input._reshard(num_shards, index)
        return clone

    def _check_shardable(self):
        self._input._check_shardable()

    def _check_state(self, state, where):  # steps that keep their input's position
        self._input._check_state(state, where)


class _Map(Unary):
    def __init__(self, input_dataset, fn, parallel):
        super().__init__(input_dataset)
        self._fn = fn
        self._parallel = parallel

    def _stage_name(self):
        return f"map({function_name(self._fn)})"

    def _generate(self, state, epoch):
        fn = self._fn
        source = self._input._iter(state, epoch)
        if not self._parallel or self._parallel == 1:
            for element, position in source:
                yield apply_fn(fn, element), position
            return
        # Ordered parallel map: up to `parallel` calls in flight; results in input order.
        stage = _stats.current_stage()
        if stage is not None:
            stage.threads = self._parallel
            fn = functools.partial(_stats.timed_call, stage, fn)
        with concurrent.futures.ThreadPoolExecutor(self._parallel) as pool:
            pending = collections.deque()
            for element, position in source:
                pending.append((pool.submit(apply_fn, fn, element), position))
                if len(pending) >= self._parallel:
                    future, where = pending.popleft()
                    yield future.result(), where
            while pending:
                future, where = pending.popleft()
                yield future.result(), where

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return apply_fn(self._fn, self._input._get(index))


class _DecodeImages(Unary):
    """decode_images on the Python path. Image i of the epoch crops and flips as the native
    pipeline's image i does for the same seed; the count of images is in the state, so a resumed
    iterator crops and flips as the first one did. seed=None draws a seed per iterator, kept in
    its state."""

    _NOT_IDENTITY = Unary._NOT_IDENTITY | {"_seed"}  # carried by the state

    def __init__(self, input_dataset, key, options, seed):
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
        for element, position in self._input._iter(inner, epoch):
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

    def _check_state(self, state, where):
        if state is not None:
            _, _, inner = state_fields(state, where, seed=0, count=0, input=None)
            self._input._check_state(inner, f"{where}['input']")


class _Filter(Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._predicate = predicate

    def _stage_name(self):
        return f"filter({function_name(self._predicate)})"

    def _generate(self, state, epoch):
        for element, position in self._input._iter(state, epoch):
            keep = apply_fn(self._predicate, element)
            if type(keep) is Failed:
                yield keep, position
            elif keep:
                yield element, position


def stack(elements, _component=None):
    """Elements (of one structure) stacked into one; components of different shapes raise
    InvalidArgumentError with tf.data's words."""
    first = elements[0]
    if isinstance(first, dict):
        return {k: stack([e[k] for e in elements]) for k in first}
    if isinstance(first, tuple):
        return tuple(stack([e[i] for e in elements], i) for i in range(len(first)))
    if isinstance(first, (bytes, str)):
        return np.array(elements, dtype=object)
    arrays = [np.asarray(e) for e in elements]
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise errors.InvalidArgumentError(
                f"Cannot batch tensors with different shapes in component {_component or 0}. "
                f"First element had shape {_shape_text(arrays[0])} and element {i} had shape "
                f"{_shape_text(a)}."
            )
    return np.stack(arrays)


def _shape_text(array):
    return "[" + ",".join(str(n) for n in array.shape) + "]"


def stacked(elements):
    """stack(elements), or the failure to stack them as an element that raises it."""
    try:
        return stack(elements)
    except errors.OpError as e:
        return Failed(e)


class Batch(Unary):
    """batch(); subclasses change how a batch's elements become one (_combine)."""

    def __init__(self, input_dataset, size, drop_remainder):
        super().__init__(input_dataset)
        self._size = size
        self._drop = drop_remainder

    def _stage_name(self):
        return f"batch({self._size})"

    def _generate(self, state, epoch):
        batch = []
        for element, position in self._input._iter(state, epoch):
            if type(element) is Failed:  # as in tf.data: the error, and the partial batch is lost
                batch = []
                yield element, position
                continue
            batch.append(element)
            if len(batch) == self._size:
                yield self._combine(batch), position
                batch = []
        if batch and not self._drop:
            yield self._combine(batch), position

    def _combine(self, elements):
        return stacked(elements)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _get(self, index):
        check_index(self, index)
        start = index * self._size
        stop = min(start + self._size, self._input._cardinality())
        elements = [self._input._get(i) for i in range(start, stop)]
        failed = next((e for e in elements if type(e) is Failed), None)
        return failed if failed is not None else self._combine(elements)


class _Shuffle(Unary, IteratorSeeds):
    """A Python shuffle buffer, for inputs the native pipeline does not cover. Resuming replays
    the epoch from its start and drops what was already emitted (exact, not free)."""

    _NOT_IDENTITY = Unary._NOT_IDENTITY | {"_seed"}  # carried by the state

    def __init__(self, input_dataset, size, seed, reshuffle):
        super().__init__(input_dataset)
        self._size = size
        # Without reshuffling, tf.data fixes an unseeded order when the dataset is made: every
        # epoch and every iterator see the same one.
        self._seed = new_seed() if seed is None and not reshuffle else seed
        self._reshuffle = reshuffle

    def _generate(self, state, epoch):
        if state is None:
            seed = new_seed() if self._seed is None else self._seed
            state = {"seed": self.iterator_seed(seed) if self._reshuffle else seed, "emitted": 0}
        rng = random.Random(f"{state['seed']}:{epoch if self._reshuffle else 0}")
        elements = (element for element, _ in self._input._iter(None, epoch))
        # Failed elements are raised at once, as tf.data does while filling.
        shuffled = buffer_shuffled(elements, self._size, rng, lambda e: type(e) is Failed)
        emitted = 0
        for out in shuffled:
            emitted += 1
            if emitted > state["emitted"]:
                yield out, {"seed": state["seed"], "emitted": emitted}
        check_not_past_end(state["emitted"], emitted, "emitted")

    def _get(self, index):
        """The element a first iterator gives at `index` (its first epoch's order, from the
        dataset's seed; drawn once per dataset when there is none)."""
        check_index(self, index)
        order = self.__dict__.get("_first_order")
        if order is None:
            seed = self._seed
            if seed is None:
                seed = self.__dict__.setdefault("_random_access_seed", new_seed())
            rng = random.Random(f"{seed}:0")  # the first iterator's seed is the seed itself
            indexes = range(self._input._cardinality())
            order = list(buffer_shuffled(indexes, self._size, rng, lambda i: False))
            self._first_order = order
        return self._input._get(order[index])

    def _reshuffles_per_iterator(self):
        return self._reshuffle and self._seed is not None

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, seed=SEED_RANGE, emitted=0)

    def _cardinality(self):
        return self._input._cardinality()


class _Repeat(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        k, inner = (0, None) if state is None else (state["epoch"], state["input"])
        while self._count is None or k < self._count:
            produced = False
            for element, position in self._input._iter(inner, epoch * (self._count or 1) + k):
                produced = True
                yield element, {"epoch": k, "input": position}
            if not produced and inner is None:
                return  # repeating nothing forever would never end
            k += 1
            inner = None

    def _check_state(self, state, where):
        if state is not None:
            k, inner = state_fields(state, where, epoch=0, input=None)
            if self._count is not None:
                check_count(k, f"{where}['epoch']", 0, self._count - 1)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count is None:
            return 0 if n == 0 else INFINITE
        return n * self._count if n >= 0 else n

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index % self._input._cardinality())

    def _random_access_blocker(self):
        if self._count in (None, 0):  # tf.data's rule for global shuffles
            count = -1 if self._count is None else 0
            return f"`repeat({count})` does not support random access of tf.data datasets."
        return None


class _Take(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        taken, inner = (0, None) if state is None else (state["taken"], state["input"])
        if self._count >= 0 and taken >= self._count:
            return
        for element, position in self._input._iter(inner, epoch):
            if type(element) is not Failed:  # a failed element takes no place (as in tf.data)
                taken += 1
            yield element, {"taken": taken, "input": position}
            if self._count >= 0 and taken >= self._count:
                return

    def _check_state(self, state, where):
        if state is not None:
            taken, inner = state_fields(state, where, taken=0, input=None)
            if self._count >= 0:
                check_count(taken, f"{where}['taken']", 0, self._count)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return min(n, self._count) if n >= 0 else n

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index)


class _Skip(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _generate(self, state, epoch):
        source = self._input._iter(None if state is None else state["input"], epoch)
        if state is None:
            if self._count < 0:
                return
            skipped = 0
            while skipped < self._count:
                item = next(source, None)
                if item is None:
                    return
                element, position = item
                if type(element) is Failed:
                    yield element, {"input": position}
                else:
                    skipped += 1
        for element, position in source:
            yield element, {"input": position}

    def _check_state(self, state, where):
        if state is not None:
            (inner,) = state_fields(state, where, input=None)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index + self._count)


class _Shard(Unary):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._n = num_shards
        self._i = index

    def _generate(self, state, epoch):
        seen, inner = (0, None) if state is None else (state["seen"], state["input"])
        for element, position in self._input._iter(inner, epoch):
            if type(element) is Failed:  # every shard reports it; it holds no index
                yield element, {"seen": seen, "input": position}
                continue
            seen += 1
            if (seen - 1) % self._n == self._i:
                yield element, {"seen": seen, "input": position}

    def _check_state(self, state, where):
        if state is not None:
            _, inner = state_fields(state, where, seen=0, input=None)
            self._input._check_state(inner, f"{where}['input']")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if n % self._n > self._i else 0)

    def _get(self, index):
        check_index(self, index)
        return self._input._get(index * self._n + self._i)


class _Interleave(Unary):
    """tf.data's interleave in Python: the order is deterministic; with num_parallel_calls the
    sub-datasets are still iterated in turn. Resuming replays (exact, not free)."""

    def __init__(self, input_dataset, fn, cycle_length, block_length, num_parallel_calls):
        super().__init__(input_dataset)
        self._fn = fn
        self._cycle = cycle_length
        self._block = block_length
        self._parallel = num_parallel_calls is not None

    def _cardinality(self):
        # tf.data's: only the parallel interleave of an endless input is known to be endless.
        infinite = self._parallel and self._input._cardinality() == INFINITE
        return INFINITE if infinite else UNKNOWN

    def _check_state(self, state, where):
        if state is not None:
            state_fields(state, where, emitted=0)

    def _generate(self, state, epoch):
        skip = 0 if state is None else state["emitted"]
        inputs = (e for e, _ in self._input._iter(None, epoch))
        slots = [None] * self._cycle
        emitted = 0
        exhausted = False

        def open_slot():
            nonlocal exhausted
            if exhausted:
                return None
            try:
                element = next(inputs)
            except StopIteration:
                exhausted = True
                return None
            dataset = apply_fn(self._fn, element)
            if type(dataset) is Failed:
                return iter([dataset])  # the slot yields the error, then the next input
            if not isinstance(dataset, Dataset):
                raise TypeError(
                    "The `map_func` argument must return a `Dataset` object. Got "
                    f"{type(dataset).__name__}: {dataset!r}"
                )
            return iter(e for e, _ in dataset._iter(None, epoch))

        current = 0  # slots are opened as the cycle reaches them, as in tf.data
        while any(slot is not None for slot in slots) or not exhausted:
            if slots[current] is None:
                slots[current] = open_slot()
            if slots[current] is not None:
                for taken, element in enumerate(slots[current], 1):
                    emitted += 1
                    if emitted > skip:
                        yield element, {"emitted": emitted}
                    if taken >= self._block:
                        break
                else:
                    slots[current] = None
            current = (current + 1) % self._cycle
        check_not_past_end(skip, emitted, "emitted")


_END = object()


# How long closing a prefetch waits for its producer to leave the element it is computing.
_PRODUCER_EXIT_SECONDS = 10.0


class _Prefetch(Unary):
    """Runs the input on a background thread, at most `size` elements ahead of the consumer:
    the producer takes a permit before computing an element and the consumer returns it when
    it takes that element."""

    def __init__(self, input_dataset, size):
        super().__init__(input_dataset)
        self._size = size

    def _stage_name(self):
        return f"prefetch({self._size})"

    def _generate(self, state, epoch):
        items = queue.SimpleQueue()
        permits = threading.Semaphore(self._size)
        stop = threading.Event()
        stage = _stats.current_stage()
        if stage is not None:
            stage.capacity = self._size

        def run():
            try:
                source = self._input._iter(state, epoch)
                while True:
                    while not permits.acquire(timeout=0.1):
                        if stop.is_set():
                            return
                    if stop.is_set():
                        return
                    item = next(source, None)
                    if item is None:
                        break
                    items.put(item)
                items.put((_END, None))
            except BaseException as e:  # raised again in the consumer, in order
                items.put((_END, e))

        thread = threading.Thread(target=_stats.in_thread(stage, run), daemon=True)
        thread.start()
        try:
            while True:
                if stage is not None:
                    stage.fills[0] += items.qsize()
                    stage.fills[1] += 1
                element, position = items.get()
                if element is _END:
                    if position is not None:
                        raise position
                    return
                permits.release()
                yield element, position
        finally:
            # Wake the producer if it waits for a permit, and wait until it is gone: close()
            # stops the threads now, and a producer left to linger until its next poll kept its
            # memory in a malloc arena of its own, so that pipelines made and dropped in a loop
            # grew the process by one arena per thread alive at once (issue 53's creep).
            stop.set()
            permits.release()
            if thread is not threading.current_thread():
                thread.join(_PRODUCER_EXIT_SECONDS)
                if thread.is_alive():  # inside a slow input: it exits when that returns
                    logging.getLogger("swigflow.data").warning(
                        "prefetch: the producer is still inside its input after %.0f s; "
                        "leaving it to finish on its own",
                        _PRODUCER_EXIT_SECONDS,
                    )

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return self._input._get(index)


class _WithOptions(Unary):
    """with_options(): the input's elements, with the merged options to report."""

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._options = options

    def options(self):
        return self._options

    def _generate(self, state, epoch):
        return self._input._iter(state, epoch)

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        return self._input._get(index)


# --- combining datasets -------------------------------------------------------------------------


class _FromTensors(Dataset):
    def __init__(self, tensors):
        self._element = _element_of(tensors)

    def _generate(self, state, epoch):
        if state is None:
            yield self._element, 1

    def _cardinality(self):
        return 1

    def _get(self, index):
        check_index(self, index)
        return self._element

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 1, 1)


def _element_of(tensors):
    """A whole structure with from_tensor_slices' dtype rules (Python scalars included);
    datasets stay datasets (elements interleave or flat_map can return)."""
    if tensors is None or isinstance(tensors, Dataset):  # None stays a component, as in tf.data
        return tensors
    if isinstance(tensors, dict):
        return {k: _element_of(v) for k, v in tensors.items()}
    if isinstance(tensors, tuple):
        return tuple(_element_of(v) for v in tensors)
    if isinstance(tensors, (str, bytes)):
        return tensors.encode() if isinstance(tensors, str) else tensors
    return _as_array(tensors)


class _FromGenerator(Dataset):
    def __init__(self, generator, args):
        self._generator = generator
        self._args = args

    def _generate(self, state, epoch):
        skip = 0 if state is None else state
        for count, value in enumerate(self._generator(*self._args), 1):
            if count > skip:
                yield _element_of(value), count

    def _check_state(self, state, where):
        if state is not None:
            check_count(state, where, 0)


def _zip_leaves(structure):
    """The datasets of a zip structure in order, or None when something else is in it."""
    if isinstance(structure, Dataset):
        return [structure]
    if isinstance(structure, dict):
        parts = list(structure.values())
    elif isinstance(structure, (tuple, list)):
        parts = list(structure)
    else:
        return None
    leaves = [_zip_leaves(part) for part in parts]
    if not parts or any(found is None for found in leaves):
        return None
    return [d for found in leaves for d in found]


def _zip_pack(structure, elements):
    """`structure` with its datasets replaced, in order, by the next of `elements` (an iterator):
    tuples, namedtuples and dicts keep their kind; a list of datasets gives a tuple."""
    if isinstance(structure, Dataset):
        return next(elements)
    if isinstance(structure, dict):
        return {k: _zip_pack(v, elements) for k, v in structure.items()}
    packed = [_zip_pack(part, elements) for part in structure]
    return type(structure)(*packed) if hasattr(structure, "_fields") else tuple(packed)


class _Zip(Dataset):
    _NOT_IDENTITY = Dataset._NOT_IDENTITY | {"_inputs"}  # the structure holds them

    def __init__(self, structure):
        self._structure = structure  # a dataset, or nested tuples / namedtuples / dicts of them
        self._inputs = _zip_leaves(structure)

    def _generate(self, state, epoch):
        states = [None] * len(self._inputs) if state is None else list(state)
        sources = [d._iter(st, epoch) for d, st in zip(self._inputs, states)]
        while True:
            items = [next(source, None) for source in sources]
            if any(item is None for item in items):
                return
            elements = [element for element, _ in items]
            positions = [position for _, position in items]
            failed = next((e for e in elements if type(e) is Failed), None)
            if failed is not None:
                yield failed, positions
            else:
                yield _zip_pack(self._structure, iter(elements)), positions

    def _cardinality(self):
        counts = [d._cardinality() for d in self._inputs]
        finite = [n for n in counts if n >= 0]
        if finite and all(n >= 0 or n == INFINITE for n in counts):
            return min(finite)
        if all(n == INFINITE for n in counts):
            return INFINITE
        return UNKNOWN

    def _get(self, index):
        check_index(self, index)
        elements = [d._get(index) for d in self._inputs]
        failed = next((e for e in elements if type(e) is Failed), None)
        if failed is not None:
            return failed
        return _zip_pack(self._structure, iter(elements))

    def _signature(self):
        return "Zip(" + ",".join(d._signature() for d in self._inputs) + ")"

    def _check_state(self, state, where):
        if state is None:
            return
        if not isinstance(state, list) or len(state) != len(self._inputs):
            raise ValueError(
                f"{where}: expected a list of {len(self._inputs)} states, got {state!r}"
            )
        for i, (d, st) in enumerate(zip(self._inputs, state)):
            d._check_state(st, f"{where}[{i}]")


class _Concatenate(Dataset):
    def __init__(self, first, second):
        self._parts = [first, second]

    def _generate(self, state, epoch):
        part, inner = (0, None) if state is None else (state["part"], state["input"])
        for k in range(part, 2):
            for element, position in self._parts[k]._iter(inner if k == part else None, epoch):
                yield element, {"part": k, "input": position}

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._parts)
        if INFINITE in (a, b):
            return INFINITE
        return a + b if a >= 0 and b >= 0 else UNKNOWN

    def _get(self, index):
        check_index(self, index)
        first = self._parts[0]._cardinality()
        if 0 <= first <= index:
            return self._parts[1]._get(index - first)
        return self._parts[0]._get(index)

    def _signature(self):
        return f"Concatenate({self._parts[0]._signature()},{self._parts[1]._signature()})"

    def _check_state(self, state, where):
        if state is not None:
            part, inner = state_fields(state, where, part=0, input=None)
            check_count(part, f"{where}['part']", 0, 1)
            self._parts[part]._check_state(inner, f"{where}['input']")


class _Enumerate(Unary):
    def __init__(self, input_dataset, start):
        super().__init__(input_dataset)
        self._start = start

    def _generate(self, state, epoch):
        count, inner = (0, None) if state is None else (state["count"], state["input"])
        for element, position in self._input._iter(inner, epoch):
            index = np.int64(self._start + count)
            count += 1  # a failed element takes its index, as in tf.data's zip with a range
            out = element if type(element) is Failed else (index, element)
            yield out, {"count": count, "input": position}

    def _cardinality(self):
        return self._input._cardinality()

    def _get(self, index):
        element = self._input._get(index)
        return element if type(element) is Failed else (np.int64(self._start + index), element)

    def _check_state(self, state, where):
        if state is not None:
            count, inner = state_fields(state, where, count=0, input=None)
            check_count(count, f"{where}['count']", 0, INT64_MAX - max(self._start, 0))
            self._input._check_state(inner, f"{where}['input']")


def _rows(element):
    """The slices of a batched element along its first dimension."""
    if type(element) is Failed:
        return [element]
    return [slice_of(element, i) for i in range(length_of(element))]


class _Unbatch(Unary):
    """Resuming re-reads the batch the state was in (the position before it is kept)."""

    def _generate(self, state, epoch):
        before, skip = (None, 0) if state is None else (state["before"], state["row"])
        for element, position in self._input._iter(before, epoch):
            rows = _rows(element)
            for row in range(skip, len(rows)):
                done = row + 1 == len(rows)
                yield (
                    rows[row],
                    {"before": position if done else before, "row": 0 if done else row + 1},
                )
            skip = 0
            before = position

    def _check_state(self, state, where):
        if state is not None:
            before, _ = state_fields(state, where, before=None, row=0)
            self._input._check_state(before, f"{where}['before']")
