"""PyTorch adapter: a swigflow.data pipeline as a torch IterableDataset.

Each DataLoader worker of each distributed rank reads its own part of the data: the pipeline's
source is split world_size x num_workers ways (rank-major), so no record is read twice or
skipped across workers and ranks. This module imports torch; swigflow.data loads it only when
``swigflow.data.TorchIterableDataset`` is first used.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

try:
    import torch
except ImportError as _e:  # torch is optional
    raise ImportError("swigflow.data.TorchIterableDataset needs PyTorch: pip install torch") from _e

from swigflow.data.dataset import Dataset
from swigflow.data.protocol import check_shardable, split_source


def _rank_and_world():
    distributed = torch.distributed
    if distributed.is_available() and distributed.is_initialized():
        return distributed.get_rank(), distributed.get_world_size()
    return 0, 1


class TorchIterableDataset(torch.utils.data.IterableDataset):
    """Wraps a swigflow.data.Dataset for torch.utils.data.DataLoader.

    ::

        loader = torch.utils.data.DataLoader(
            swigflow.data.TorchIterableDataset(ds), batch_size=None, num_workers=2)

    Pass ``batch_size=None`` when the pipeline batches itself. Numeric arrays become tensors in
    the DataLoader as usual; string features stay numpy object arrays of bytes.

    Args:
      dataset: the pipeline. Its source (TFRecord files or records, file names, slices) is split
        between workers and ranks: TFRecord files whole when there are at least as many as
        parts (each file is read by one worker), else every parts-th record (a pipeline already
        sharded with ``shard`` is split further by records). A shuffle of file names before that
        split must be seeded, or processes would disagree on the order (ValueError).
      rank: this process's rank; None: torch.distributed's (set it before init_process_group).
      world_size: the number of ranks; None: torch.distributed's.

    Exact mid-epoch resume: :meth:`state_dict` is the position of this process's part (a
    worker's, inside a DataLoader worker), and :meth:`load_state_dict` makes the next iteration
    continue right after it. torchdata's ``StatefulDataLoader`` calls both in every worker, so
    its own ``state_dict()`` resumes a loader with workers exactly; with ``num_workers=0`` call
    them on this object.
    """

    def __init__(
        self, dataset: Any, rank: int | None = None, world_size: int | None = None
    ) -> None:
        super().__init__()
        if not isinstance(dataset, Dataset):
            raise TypeError(
                "TorchIterableDataset wraps a swigflow.data.Dataset, got a "
                f"{type(dataset).__name__}: make the pipeline first, e.g. "
                "TorchIterableDataset(swigflow.data.TFRecordDataset(files))"
            )
        check_shardable(dataset)
        self.dataset = dataset
        self._rank = rank
        self._world_size = world_size
        self._iterator = None  # the running iteration of this process's part
        self._resume = None  # a state to continue from at the next iteration

    def _part(self):
        rank, world = _rank_and_world()
        rank = rank if self._rank is None else self._rank
        world = world if self._world_size is None else self._world_size
        info = torch.utils.data.get_worker_info()
        workers, worker = (1, 0) if info is None else (info.num_workers, info.id)
        return world * workers, rank * workers + worker

    def _dataset(self):
        parts, index = self._part()
        return self.dataset if parts == 1 else split_source(self.dataset, parts, index)

    def __iter__(self) -> Iterator[Any]:
        state, self._resume = self._resume, None
        position = None
        if state is not None:
            if state["part"] != list(self._part()):
                raise ValueError(
                    f"this state belongs to part {state['part']} (parts, index) of the data, but "
                    f"this process reads part {list(self._part())}: resume with the same "
                    "world size and number of workers"
                )
            position = state["iterator"]
        self._iterator = self._dataset().iterator(state=position)
        return self._iterator

    def state_dict(self) -> dict[str, Any]:
        """Where this process's part stands: ``{"part": [parts, index], "iterator": ...}`` (the
        iterator's JSON-able state, None before the first element)."""
        if self._iterator is not None:
            position = self._iterator.state()
        else:
            position = None if self._resume is None else self._resume["iterator"]
        return {"part": list(self._part()), "iterator": position}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """The next iteration continues right after `state_dict` (from :meth:`state_dict` of the
        same part); the pipeline's checks refuse a state of another dataset.

        Args:
            state_dict: what state_dict() returned.

        Raises:
            ValueError: not such a dict.
        """
        if not isinstance(state_dict, dict) or set(state_dict) != {"part", "iterator"}:
            raise ValueError(f"expected a dict with 'part' and 'iterator', got {state_dict!r}")
        self._resume = state_dict
        self._iterator = None

    def __len__(self) -> int:
        return len(self._dataset())
