"""swigflow.data.Dataset: tf.data's names and semantics, iterated as plain Python.

Every dataset is immutable; transformations return new datasets. Iterating runs the pipeline.
Internally each dataset yields ``(element, state)`` pairs, where ``state`` is a small JSON-able
value from which iteration can resume right after that element; :class:`Iterator` keeps the
state of the last element it returned (see :meth:`Dataset.iterator`).

This module is the face: Dataset's methods and the subclass interface every step implements
(what the steps call on each other is swigflow.data.protocol; Iterator is swigflow.data.iterator).
Each method builds its step from swigflow.data.steps (or swigflow.data.sources), imported when
the method is called, since the steps subclass Dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import DTypeLike

if TYPE_CHECKING:
    from swigflow.data.stats import PipelineStats

import time

import numpy as np

from swigflow import errors
from swigflow.data import fingerprint as _fingerprint
from swigflow.data import stats as _stats
from swigflow.data.checks import (
    INFINITE,
    UNKNOWN,
    autotune_count,
    batch_size_of,
    cpu_count,
    interleave_cycle_length,
    positive_count,
    prefetch_size,
    shard_args,
)
from swigflow.data.iterator import Iterator
from swigflow.data.options import Options
from swigflow.data.protocol import dataset_type
from swigflow.specs import UnknownSpec


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

    def _element_spec(self):
        """The spec of this step's elements (swigflow.specs): unknown unless the step says."""
        return UnknownSpec(self._stage_name())

    def _get(self, index):
        """The element at position `index` of a first pass, read without iterating (random
        access: element_at and global_shuffle), possibly Failed as iteration would give it.
        Steps that implement it (after check_index) have random access."""
        raise errors.UnimplementedError(
            f"Random access is not implemented for dataset {dataset_type(self)}"
        )

    def _has_random_access(self):
        """Whether this step implements _get."""
        return type(self)._get is not Dataset._get

    def _random_access_blocker(self):
        """None when this step reads its elements at any index (it implements _get), else why
        not (tf.data's words). The inputs answer for themselves (random_access_blocker walks
        them)."""
        if self._has_random_access():
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

    # Attributes that are no part of what the dataset yields: what iterating fills in, and the
    # seeds its states carry (a step that has them lists them in its own _NOT_IDENTITY; every
    # class's set along the MRO counts).
    _NOT_IDENTITY = frozenset(
        {"_iterations", "_first_order", "_random_access_seed", "_store", "_fingerprint_digest"}
    ) | {"_spec"}

    def _identity(self):
        """What decides this dataset's elements, digested into the fingerprint that binds an
        iterator state to it (swigflow.data.fingerprint): by default its attributes."""
        left_out = set()
        for cls in type(self).__mro__:
            left_out.update(vars(cls).get("_NOT_IDENTITY", ()))
        return {k: v for k, v in vars(self).items() if k not in left_out}

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

    def __iter__(self) -> Iterator:
        return self.iterator()

    def iterator(self, state: Any = None, stats: bool = True) -> Iterator:
        """An iterator over the elements; with `state` (from :meth:`Iterator.state` of an
        iterator over the same pipeline), it resumes exactly after the element that state was
        taken at: the same elements in the same order as if iteration had never stopped.
        `stats`: collect :meth:`Iterator.stats` (Python steps are clocked per element; the
        native stages count their work either way).

        Args:
            state: a dict from Iterator.state() of an iterator over the same pipeline, or None to
                start at the beginning.
            stats: whether to collect Iterator.stats().

        Returns:
            An Iterator.

        Raises:
            ValueError: `state` was taken from another pipeline, or is malformed.
        """
        return Iterator(self, state, stats)

    def stats(self, seconds: float | None = None, elements: int | None = None) -> PipelineStats:
        """Runs the pipeline with nothing else consuming its elements, for `seconds` (or until
        `elements` have come out, or to the end) and returns its
        :class:`swigflow.data.stats.PipelineStats`: what each stage did and which was busiest.
        ``swigflow profile`` reads its findings from these.

        Args:
            seconds: how long to run; None runs until `elements` or the end.
            elements: how many elements to take; None takes them all.

        Returns:
            A swigflow.data.stats.PipelineStats.

        Raises:
            ValueError: `seconds` is not positive.
        """
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

    @property
    def element_spec(self) -> Any:
        """The structure, dtypes and shapes (None: unknown) of the elements, as tf.data's
        (swigflow.specs). An element made by a Python function has an UnknownSpec part."""
        found = self.__dict__.get("_spec")
        if found is None:  # computed once: a dataset is immutable
            found = self.__dict__.setdefault("_spec", self._element_spec())
        return found

    def cardinality(self) -> int:
        """The number of elements: a count, INFINITE, or UNKNOWN (tf.data's convention)."""
        return self._cardinality()

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("the dataset is infinite")
        if n < 0:
            raise TypeError(
                "the length of this dataset is unknown (index files give TFRecordDatasets a "
                "length: swigflow index FILE...)"
            )
        return n

    def as_numpy_iterator(self) -> Iterator:
        """The elements (already numpy): for code written against tf.data."""
        return iter(self)

    # --- sources --------------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """One element: `tensors` whole (a value, or a dict / tuple of them), with
        from_tensor_slices' dtypes for Python values.

        Args:
            tensors: the element: a value, or a dict / tuple of them.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import FromTensors

        del name
        return FromTensors(tensors)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        """Elements of several datasets side by side, as ``tf.data.Dataset.zip``: pass datasets
        as arguments, or one structure of them (nested tuples, namedtuples and dicts): the
        elements have that structure. One dataset alone gives its own elements. Ends with the
        shortest.

        Args:
            *args: the datasets, or one structure of datasets.
            datasets: the datasets (or a structure of them), instead of `*args`.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.combining import zip_datasets

        del name
        return zip_datasets(args, datasets)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """Elements are the slices of `tensors` along their first dimension; `tensors` may be a
        numpy array, a list, or a dict / tuple of them (all of the same length).

        Python values get tf.data's dtypes, not numpy's: ints become int32 (int64 when one
        does not fit), floats float32, str UTF-8 bytes. numpy arrays keep their dtype.

        Args:
            tensors: a numpy array, list, or dict / tuple of them, all with the same first
                dimension.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import TensorSlices

        del name
        return TensorSlices(tensors)

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """The elements ``generator(*args)`` yields, each pass calling it anew, converted to
        output_signature (or output_types/output_shapes) as tf.data converts them, or as yielded
        without one (tf.data requires it). A generator that raises ends the dataset with its
        exception. Resuming calls the generator again and skips what was given.

        Args:
            generator: a callable returning an iterable; called anew for each pass.
            output_types: the dtypes of the elements' components (tf.data's legacy form).
            output_shapes: their shapes (with `output_types`).
            args: a tuple of arguments for `generator`.
            output_signature: a structure of TensorSpecs (and Ragged/SparseTensorSpecs) the elements
                are converted to and checked against.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.

        Raises:
            TypeError: `generator` is not callable, or the types and shapes are malformed.
        """
        from swigflow.data.sources import FromGenerator, generator_signature

        del name
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        signature = generator_signature(output_types, output_shapes, output_signature)
        return FromGenerator(generator, tuple(args or ()), signature)

    @staticmethod
    def list_files(
        file_pattern: str | Sequence[str],
        shuffle: bool | None = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> Dataset:
        """The file names matching `file_pattern` (a glob pattern or a list of them), sorted,
        then shuffled each epoch unless ``shuffle=False`` (tf.data's default is to shuffle).

        Args:
            file_pattern: a glob pattern (local or scheme:// URL), or a list of them.
            shuffle: shuffle the names each epoch (the default); False keeps them sorted.
            seed: the shuffle's seed; None draws one per iterator.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import ListFiles

        del name
        return ListFiles(file_pattern, True if shuffle is None else bool(shuffle), seed)

    @staticmethod
    def range(*args: Any, output_type: DTypeLike = np.int64, name: str | None = None) -> Dataset:
        """start, start + step, ... below stop, like Python's range (tf.data.Dataset.range):
        int64 elements unless output_type says otherwise.

        Raises:
          InvalidArgumentError: step is 0.

        Args:
            *args: (stop), (start, stop) or (start, stop, step), as Python's range.
            output_type: the elements' dtype.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import range_dataset

        del name
        return range_dataset(args, output_type)

    @staticmethod
    def counter(
        start: int = 0, step: int = 1, dtype: DTypeLike = np.int64, name: str | None = None
    ) -> Dataset:
        """start, start + step, start + 2 * step, ... forever (tf.data.Dataset.counter).

        Args:
            start: the first value.
            step: the increment.
            dtype: the elements' dtype.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import Counter

        del name
        return Counter(start, step, dtype)

    @staticmethod
    def random(
        seed: int | None = None,
        rerandomize_each_iteration: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Pseudo-random int64 values in [0, 2^32), forever: the same for every pass and
        iterator unless rerandomize_each_iteration (not tf.data's sequence for a seed).

        Args:
            seed: the seed; None draws one per iterator.
            rerandomize_each_iteration: draw new values on each pass and iterator.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.sources import RandomValues

        del name
        return RandomValues(seed, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(
        datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool = True
    ) -> Dataset:
        """The next element of datasets[i] for each i of `choice_dataset` (scalar int64s). An
        input that ends ends the dataset (stop_on_empty_dataset) or is skipped from then on.

        Args:
            datasets: a list of datasets with compatible elements.
            choice_dataset: a dataset of scalar int64 indexes into `datasets`.
            stop_on_empty_dataset: end when the chosen input has ended; False skips it.

        Returns:
            A Dataset.

        Raises:
            TypeError: the elements of `datasets` are not compatible, or the choices not int64
                scalars.
        """
        from swigflow.data.steps.combining import choose_from_datasets

        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets: Any,
        weights: Any = None,
        seed: int | None = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: bool | None = None,
    ) -> Dataset:
        """Elements drawn from datasets[i] with probability weights[i] / sum(weights) (uniform
        by default; weights may be a dataset of weight vectors, one per draw). An input that
        ends is skipped, or ends the dataset with stop_on_empty_dataset. Seeded, resumable.

        Args:
            datasets: a list of datasets with compatible elements.
            weights: a list of floats, one per dataset, or a dataset of such lists; None: uniform.
            seed: the seed of the draws; None draws one per iterator.
            stop_on_empty_dataset: end when an input ends; False skips it from then on.
            rerandomize_each_iteration: draw anew on each pass and iterator.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.combining import sample_from_datasets

        return sample_from_datasets(
            datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration
        )

    # --- transformations ------------------------------------------------------------------------

    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Applies map_func to each element; a tuple element is unpacked into arguments, as in
        tf.data (``lambda x, y: ...``). With num_parallel_calls, that many calls run at once on
        threads; the output order stays the input order.

        An exception raised by map_func is raised by ``next()`` for that element, and iteration
        can go on with the next one. StopIteration becomes InvalidArgumentError: it never ends
        the dataset.

        Args:
            map_func: a function of an element (its components as arguments for a tuple).
            num_parallel_calls: how many calls run at once on threads (AUTOTUNE: one per core);
                None: one, on the consumer's thread.
            deterministic: accepted for tf.data's signature; the order is always the input's.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.mapping import Map

        del deterministic, name  # always deterministic
        return Map(self, map_func, autotune_count(num_parallel_calls, cpu_count()))

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """Keeps the elements for which predicate(element) is true (a tuple element is unpacked
        into arguments). An exception is raised for its element, wrapped as tf.data wraps it.

        Args:
            predicate: a function of an element returning a boolean scalar.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.mapping import Filter

        del name
        return Filter(self, predicate)

    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Stacks batch_size consecutive elements (numpy arrays, numbers, bytes, or dicts and
        tuples of them) into one; the last batch may be smaller unless drop_remainder.

        Args:
            batch_size: the number of elements in a batch.
            drop_remainder: drop a last batch smaller than batch_size.
            num_parallel_calls: accepted for tf.data's signature; batches are stacked as needed.
            deterministic: accepted for tf.data's signature; the order is always the input's.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.batching import Batch

        del num_parallel_calls, deterministic, name
        return Batch(self, batch_size_of(batch_size), bool(drop_remainder))

    def shuffle(
        self,
        buffer_size: int | None,
        seed: int | None = None,
        reshuffle_each_iteration: bool | None = True,
        name: str | None = None,
    ) -> Dataset:
        """tf.data's shuffle buffer: each element is drawn at random from the next
        buffer_size elements. seed=None draws a seed per iterator (kept in its state).

        Args:
            buffer_size: the number of elements drawn from.
            seed: the seed; None draws one per iterator.
            reshuffle_each_iteration: a new order on each pass (repeat()).
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.shuffling import Shuffle

        del name
        return Shuffle(
            self, positive_count("buffer_size", buffer_size), seed, reshuffle_each_iteration
        )

    def global_shuffle(
        self,
        seed: int | None = None,
        reshuffle_each_iteration: bool | None = True,
        name: str | None = None,
    ) -> Dataset:
        """A uniform shuffle of the whole dataset, with no buffer: each pass reads the elements
        at a seeded pseudo-random permutation of their indexes (tf.data's global shuffle). Every
        step before it must have random access (see swigflow.data.experimental.at) and the
        dataset a known, finite length; FailedPreconditionError says which step has not.
        Seeds as in shuffle(). On a TFRecordDataset with index files it runs natively.

        Args:
            seed: the seed; None draws one per iterator.
            reshuffle_each_iteration: a new permutation on each pass.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.

        Raises:
            FailedPreconditionError: a step below has no random access, or the length is unknown
                or infinite.
        """
        del name
        from swigflow.data.steps.shuffling import GlobalShuffle

        return GlobalShuffle(self, seed, bool(reshuffle_each_iteration))

    def repeat(self, count: int | None = None, name: str | None = None) -> Dataset:
        """Repeats the dataset count times (forever when None or negative, as tf.data).

        Args:
            count: how many times; None or -1 repeats forever.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import Repeat

        del name
        count = None if count is None or int(count) < 0 else int(count)
        return Repeat(self, count)

    def take(self, count: int | None, name: str | None = None) -> Dataset:
        """The first count elements (all when count is -1).

        Args:
            count: how many elements; -1 takes all.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import Take

        del name
        return Take(self, int(count))

    def skip(self, count: int | None, name: str | None = None) -> Dataset:
        """All but the first count elements (none when count is -1).

        Args:
            count: how many elements; -1 skips all.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import Skip

        del name
        return Skip(self, int(count))

    def shard(self, num_shards: int, index: int, name: str | None = None) -> Dataset:
        """Every num_shards-th element starting at index: an exact partition over the indexes.
        On TFRecord data the partition is of records (see TFRecordDataset.shard).

        Args:
            num_shards: the number of shards.
            index: this shard, in [0, num_shards).
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.

        Raises:
            InvalidArgumentError: index is not in [0, num_shards).
        """
        from swigflow.data.steps.slicing import Shard

        del name
        return Shard(self, *shard_args(num_shards, index))

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: int | None = None,
        block_length: int | None = None,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Maps each element to a dataset and interleaves them: cycle_length at once,
        block_length elements from each in turn. When map_func makes TFRecordDatasets (e.g.
        ``files.interleave(swigflow.data.TFRecordDataset, cycle_length=4)``), the files are read
        by the native pipeline, in parallel.

        Args:
            map_func: a function of an element returning a Dataset.
            cycle_length: how many datasets are read at once (None or AUTOTUNE: one per core, at
                most num_parallel_calls).
            block_length: how many consecutive elements each gives in its turn (None: 1).
            num_parallel_calls: bounds cycle_length when that is None (AUTOTUNE: a third of the
                cores).
            deterministic: accepted for tf.data's signature; the order is always the input's.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        del deterministic, name
        cycle_length = interleave_cycle_length(cycle_length, num_parallel_calls)
        block_length = positive_count("block_length", 1 if block_length is None else block_length)
        from swigflow.data.steps.interleaving import interleaved

        return interleaved(self, map_func, cycle_length, block_length, num_parallel_calls)

    def with_options(self, options: Any, name: str | None = None) -> Dataset:
        """This dataset with tf.data ``options`` (a :class:`swigflow.data.Options`) set over
        its own; :meth:`options` returns them. What each option does here is in
        :mod:`swigflow.data.options`.

        Args:
            options: a swigflow.data.Options.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.tuning import WithOptions

        del name
        if not isinstance(options, Options):
            raise TypeError(f"options must be a swigflow.data.Options, got {options!r}")
        return WithOptions(self, self.options().merge(options))

    def options(self) -> Options:
        """The options set on this dataset and its inputs, merged (the outermost win)."""
        merged = Options()
        for dataset in self._input_datasets():
            merged = merged.merge(dataset.options())
        return merged.frozen()

    def prefetch(self, buffer_size: int | None, name: str | None = None) -> Dataset:
        """Prepares up to buffer_size elements ahead on a background thread (AUTOTUNE: 2;
        0: no prefetching).

        Args:
            buffer_size: how many elements to prepare ahead; AUTOTUNE: 2; 0: none.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.tuning import Prefetch

        del name
        size = prefetch_size(buffer_size)
        return Prefetch(self, size) if size else self

    def parse(self, features: Any) -> Dataset:
        """Parses batches of serialized tf.train.Examples with swigflow.io.parse_example (single
        examples with parse_single_example). Fused into the native pipeline when it can be.

        features: a parse spec; its JSON form (``swigflow inspect --json``'s "spec"); or "auto",
        inferred from the first records of the TFRecordDataset below (swigflow.io.infer_spec).

        Args:
            features: a dict of feature specs (swigflow.io.FixedLenFeature and the others), its JSON
                form, or "auto".

        Returns:
            A Dataset.

        Raises:
            ValueError: the spec is malformed.
        """
        from swigflow.data.steps.mapping import ParseFn
        from swigflow.io import schema

        if isinstance(features, str) and features == "auto":
            from swigflow.data.records import inferred_spec

            features = inferred_spec(self)
        elif (
            isinstance(features, dict)
            and features
            and all(isinstance(f, dict) for f in features.values())
        ):
            features = schema.spec_from_json(features)
        return self.map(ParseFn(features))

    def decode_images(
        self,
        key: str = "image/encoded",
        size: int = (224, 224),
        crop: str | None = None,
        flip: bool = False,
        channels: int = 3,
        dtype: DTypeLike = "uint8",
        layout: str = "NHWC",
        mean: Sequence[float] | None = None,
        std: Sequence[float] | None = None,
        fast: bool = False,
        seed: int | None = None,
        preprocess: str | None = None,
    ) -> Dataset:
        """Decodes the JPEG/PNG bytes under `key` of parsed batches (after
        ``.batch(n).parse(spec)``) into one array ``[batch, *size, channels]`` (NCHW with
        ``layout="NCHW"``), as tf.data's ``decode_jpeg`` + ``resize`` map, in one native step.

        Its randomness resumes with the iterator's state. On a TFRecordDataset it runs on the
        native pipeline's threads, and an image that does not decode follows on_error ("skip_*"
        drop its record, logging file and offset); elsewhere a failed batch raises for itself.

        Args:
            key: the parsed feature holding the encoded images.
            size: (height, width) of the output images.
            crop: None (the whole image), "center" (tf.image.central_crop(0.875), Inception's
                evaluation) or "random" (sample_distorted_bounding_box with 8-100% of the area
                and aspect ratios 3/4..4/3, then decode_and_crop_jpeg: only the window is
                decoded), each then resized bilinearly (TF2's half-pixel centres).
            flip: a random left-right flip of half the images.
            channels: 3 (RGB) or 1 (grayscale).
            dtype: "uint8" (rounded) or "float32", which is pixel / 255, then
                (x - mean) / std per channel when given.
            layout: "NHWC" or "NCHW".
            mean: per-channel means subtracted from float32 output (torchvision's convention,
                e.g. (0.485, 0.456, 0.406)).
            std: per-channel standard deviations dividing float32 output.
            fast: decode less (a scaled IDCT for large images, the JPEG's chroma planes resized
                as stored; docs/images.md): within float rounding of the exact step for 4:4:4
                JPEGs, a few levels on average for subsampled chroma.
            seed: the seed of the crops and flips; None draws one per iterator.
            preprocess: "caffe", "tf" or "torch": the uint8 pixels then go through Keras'
                preprocess_input in that mode (swigflow.image.preprocess_input), float32 out.

        Returns:
            A Dataset whose elements hold the decoded batch under `key`.

        Raises:
            ValueError: an option out of range.
            InvalidArgumentError: `key` is not among the parsed features (at this call when
                the parse spec is known, else at the first element).
        """
        from swigflow.data.images import image_options
        from swigflow.data.steps.mapping import DecodeImages

        options = image_options(
            size, crop, flip, channels, dtype, layout, mean, std, fast, preprocess
        )
        return DecodeImages(self, key, options, seed)

    def concatenate(self, dataset: Any, name: str | None = None) -> Dataset:
        """This dataset's elements, then `dataset`'s.

        Args:
            dataset: a dataset with compatible elements.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.

        Raises:
            TypeError: the two datasets' elements are not compatible.
        """
        from swigflow.data.steps.combining import Concatenate

        del name
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate takes a Dataset, got {dataset!r}")
        return Concatenate(self, dataset)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """(index, element) pairs, the index an int64 counting from `start`.

        Args:
            start: the first index.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import Enumerate

        del name
        return Enumerate(self, int(start))

    def ragged_batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        row_splits_dtype: DTypeLike = np.int64,
        name: str | None = None,
    ) -> Dataset:
        """batch(), with each component of partly unknown shape (per its spec, as tf.data
        decides) a swigflow.RaggedTensor, ragged up to the spec's last unknown dimension.

        Args:
            batch_size: the number of elements in a batch.
            drop_remainder: drop a last batch smaller than batch_size.
            row_splits_dtype: the dtype of the RaggedTensors' row splits.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.batching import RaggedBatch

        del name
        return RaggedBatch(self, batch_size_of(batch_size), bool(drop_remainder), row_splits_dtype)

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits each element along its first dimension (of every component): the inverse of
        batch().

        Args:
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.batching import Unbatch

        del name
        return Unbatch(self)

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> Dataset:
        """map_func(element) is a dataset for each element; their elements one dataset after
        the other. ``files.flat_map(TFRecordDataset)`` reads the files natively.

        Args:
            map_func: a function of an element returning a Dataset.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.interleaving import flat_mapped

        del name
        return flat_mapped(self, map_func)

    def padded_batch(
        self,
        batch_size: int,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """batch() for elements of different shapes: each component is padded to its
        padded shape (a structure like the element's, of shapes; None or -1 for a dimension pads
        it to the longest in the batch; None for all of them) with its padding value (0, False
        or b"" by default; one value, or a structure of them). An element longer than its
        padded shape raises DataLossError, as in tf.data.

        Args:
            batch_size: the number of elements in a batch.
            padded_shapes: a structure of shapes like the element's; None pads every dimension to
                the longest in the batch.
            padding_values: one value, or a structure of them; None: 0, False or b"".
            drop_remainder: drop a last batch smaller than batch_size.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.batching import PaddedBatch

        del name
        size, drop = batch_size_of(batch_size), bool(drop_remainder)
        return PaddedBatch(self, size, padded_shapes, padding_values, drop)

    def window(
        self,
        size: int,
        shift: int | None = None,
        stride: int = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Windows of `size` elements, window i starting at element i * shift and taking every
        stride-th one; each window is a dataset (a dict or tuple of datasets, one per component,
        for dict or tuple elements). Windows at the end may be shorter unless drop_remainder.
        ``window(3).flat_map(lambda w: w.batch(3))`` gives the windows as batches.

        Args:
            size: the number of elements in a window.
            shift: how many elements the next window starts after; None: `size`.
            stride: take every stride-th element within a window.
            drop_remainder: drop shorter windows at the end.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.windowing import window

        del name
        return window(self, size, shift, stride, bool(drop_remainder))

    def scan(
        self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None
    ) -> Dataset:
        """scan_func(state, element) returns (new_state, output); the outputs, with the state
        carried from one element to the next, starting at initial_state.

        Args:
            initial_state: the first state: a value or a structure of them.
            scan_func: a function (state, element) -> (new_state, output).
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset of the outputs.

        Raises:
            TypeError: a new state's structure or dtypes differ from the initial state's (at the
                element that returned it).
        """
        del name
        from swigflow.data.steps.mapping import Scan

        return Scan(self, initial_state, scan_func)

    def group_by_window(
        self,
        key_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        window_size: int | None = None,
        window_size_func: Callable[[int], int] | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Groups elements by key_func(element) (an int) into windows of window_size (or
        window_size_func(key)) elements; reduce_func(key, window) turns each full window (a
        dataset) into a dataset whose elements are emitted. At the end, the unfinished windows
        are reduced in increasing key order.

        Args:
            key_func: a function of an element returning an int64 scalar key.
            reduce_func: a function (key, window dataset) returning a Dataset.
            window_size: the number of elements in a window.
            window_size_func: a function of a key returning its window size, instead of
                window_size.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        del name
        from swigflow.data.steps.windowing import group_by_window

        return group_by_window(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self,
        element_length_func: Callable[..., Any],
        bucket_boundaries: Sequence[int],
        bucket_batch_sizes: Sequence[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Batches elements of similar length together: element_length_func(element) picks
        bucket i where bucket_boundaries[i - 1] <= length < bucket_boundaries[i]; bucket i is
        padded_batch'ed by bucket_batch_sizes[i] (batch'ed with no_padding). With
        pad_to_bucket_boundary, the unknown dimensions (dimension 0 when no padded_shapes are
        given) are padded to the bucket's boundary - 1, and lengths must be below the last
        boundary.

        Args:
            element_length_func: a function of an element returning its length (an int).
            bucket_boundaries: the increasing upper bounds of the buckets' lengths.
            bucket_batch_sizes: a batch size per bucket (one more than the boundaries).
            padded_shapes: as padded_batch's; None pads dimension 0.
            padding_values: as padded_batch's.
            pad_to_bucket_boundary: pad to the bucket's boundary - 1 rather than the longest.
            no_padding: batch() the buckets instead of padded_batch().
            drop_remainder: drop each bucket's last batch when smaller.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        del name
        from swigflow.data.steps.windowing import bucket_by_sequence_length

        return bucket_by_sequence_length(
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, bool(drop_remainder),
        )  # fmt: skip

    def rebatch(
        self, batch_size: int, drop_remainder: bool = False, name: str | None = None
    ) -> Dataset:
        """The rows of batched elements batched again: batches of batch_size rows, or of
        batch_size[i % len(batch_size)] rows for batch i when a list is given.

        Args:
            batch_size: the rows per batch, or a list of them taken in turn.
            drop_remainder: drop a last batch with fewer rows.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.batching import rebatch

        del name
        return rebatch(self, batch_size, bool(drop_remainder))

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """Keeps the elements of the first complete pass and gives them to every later pass
        (repeat()) and iterator: in memory, or with a filename in the file FILENAME.swigflow_cache
        (written under a temporary name and renamed when the pass completes, then read by any
        later program). Not tf.data's file format.

        Args:
            filename: "" keeps the elements in memory; else the file's name, without the
                ".swigflow_cache" suffix.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        del name
        from swigflow.data.steps.caching import Cache

        return Cache(self, filename)

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements before the first for which predicate(element) is False.

        Args:
            predicate: a function of an element returning a boolean scalar.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import TakeWhile

        del name
        return TakeWhile(self, predicate)

    def unique(self, name: str | None = None) -> Dataset:
        """Each distinct element (one int32, int64 or string component) at its first place.

        Args:
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.

        Raises:
            TypeError: the elements are not one int32, int64 or string component.
        """
        from swigflow.data.steps.slicing import Unique

        del name
        return Unique(self)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """Drops the elements whose computation failed (logged with log_warning). An error
        raised by a source ends it (a TFRecordDataset skips to the next file, as tf.data).

        Args:
            log_warning: log each dropped element's error.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.slicing import IgnoreErrors

        del name
        return IgnoreErrors(self, bool(log_warning))

    def reduce(
        self, initial_state: Any, reduce_func: Callable[..., Any], name: str | None = None
    ) -> Any:
        """The state reduce_func(state, element) leaves after every element, from
        initial_state. InvalidArgumentError if its number of components changes.

        Args:
            initial_state: the first state: a value or a structure of them.
            reduce_func: a function (state, element) -> new state.
            name: accepted for tf.data's signature; unused.

        Returns:
            The final state.
        """
        from swigflow.data.reducing import reduce

        del name
        return reduce(self, initial_state, reduce_func)

    def get_single_element(self, name: str | None = None) -> Any:
        """The dataset's only element (InvalidArgumentError when it has none or several).

        Args:
            name: accepted for tf.data's signature; unused.

        Returns:
            The element.
        """
        from swigflow.data.reducing import single_element

        del name
        return single_element(self)

    def save(
        self,
        path: Any,
        compression: str | None = None,
        shard_func: Callable[..., Any] | None = None,
        checkpoint_args: Any = None,
    ) -> None:
        """Writes every element under directory `path` for Dataset.load, in shards picked by
        shard_func(element) (one by default); never loadable unless complete. Not tf.data's
        format (see swigflow.data.steps.saving).

        Args:
            path: the directory to write.
            compression: None, "GZIP", "ZLIB" or "AUTO" (stored uncompressed: no Snappy here).
            shard_func: a function of an element returning its shard's index (an int64 scalar).
            checkpoint_args: not supported; raises UnimplementedError.

        Raises:
            UnimplementedError: checkpoint_args was given.
        """
        from swigflow.data.steps.saving import save

        save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(
        path: Any,
        element_spec: Any = None,
        compression: str | None = None,
        reader_func: Callable[..., Any] | None = None,
    ) -> Dataset:
        """What Dataset.save wrote under `path`: its shards in order, or reader_func(shards),
        with the saved element_spec (or the one given, if compatible).

        Args:
            path: the directory Dataset.save wrote.
            element_spec: the expected element spec; None takes the saved one.
            compression: the compression it was saved with.
            reader_func: a function of the dataset of shard datasets returning the dataset read.

        Returns:
            A Dataset.

        Raises:
            DataLossError: the save is incomplete or damaged.
        """
        from swigflow.data.steps.saving import load

        return load(path, element_spec, compression, reader_func)

    def snapshot(
        self,
        path: Any,
        compression: str | None = "AUTO",
        reader_func: Callable[..., Any] | None = None,
        shard_func: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> Dataset:
        """This dataset kept under directory `path` by its fingerprint: the first complete pass
        writes it, later passes and programs over the same pipeline read it.

        Args:
            path: the directory of snapshots.
            compression: None, "GZIP", "ZLIB" or "AUTO" (stored uncompressed: no Snappy here).
            reader_func: not supported (a snapshot is one file); raises UnimplementedError.
            shard_func: not supported; raises UnimplementedError.
            name: accepted for tf.data's signature; unused.

        Returns:
            A Dataset.
        """
        from swigflow.data.steps.saving import snapshot

        del name
        return snapshot(self, path, compression, reader_func, shard_func)

    def apply(self, transformation_func: Callable[[Dataset], Any]) -> Any:
        """transformation_func(self): for reusable steps, e.g.
        ``apply(swigflow.data.experimental.parse_example_dataset(features))``.

        Args:
            transformation_func: a function of a Dataset returning a Dataset.

        Returns:
            What transformation_func returns.
        """
        return transformation_func(self)

    def __repr__(self) -> str:
        return f"<{self._signature()}>"
