"""Random access to TFRecords by index: swigflow.data.TFRecordDataSource against ArrayRecord.

Run with the installed wheel; the anchors come from `pip install grain` (which brings
array-record) and torch for the DataLoader row, all measured in the same run:

    /tmp/bench/bin/python bench/random_access_bench.py [--repeats 3] [--dir /tmp]

Workloads: 100,000 x 1 KiB and 4,000 x 100 KiB records, each in 8 files, warm in the page cache.
The same records are written as TFRecord files (with index files) and as ArrayRecord files
(group_size 1, ArrayRecord's setting for random access). Rows:
- random single reads, ``source[i]``, and random batches of 64, ``source.__getitems__(picks)``,
  for both sources (the same random indices);
- Grain's sequential TFRecord reader (``grain.experimental.TFRecordIterDataset``) over the same
  files, for scale;
- one epoch of a torch DataLoader over the TFRecordDataSource with a DistributedSampler (rank 0
  of 2) and 2 workers, batches of 64.
Reported: best of --repeats, records/s, MiB/s, and the batched ratio to ArrayRecord's.
"""

import argparse
import os
import tempfile
import time

import numpy as np
from timing import best_of, cpu_name

import swigflow
from swigflow.data import TFRecordDataSource

WORKLOADS = [("100,000 x 1 KiB", 100_000, 1024), ("4,000 x 100 KiB", 4_000, 100 * 1024)]
FILES = 8
BATCH = 64


def write_files(directory, count, size):
    """The same records as TFRecord files (indexed) and ArrayRecord files; their paths."""
    rng = np.random.default_rng(0)
    records = [rng.bytes(size) for _ in range(count)]
    per_file = -(-count // FILES)
    tfrecords, arrays = [], []
    for f in range(FILES):
        part = records[f * per_file : (f + 1) * per_file]
        path = os.path.join(directory, f"part-{f}.tfrecord")
        with swigflow.io.TFRecordWriter(path) as w:
            for r in part:
                w.write(r)
        swigflow.io.create_index(path)
        tfrecords.append(path)
        try:
            from array_record.python.array_record_module import ArrayRecordWriter
        except ImportError:
            continue
        path = os.path.join(directory, f"part-{f}.array_record")
        writer = ArrayRecordWriter(path, "group_size:1")
        for r in part:
            writer.write(r)
        writer.close()
        arrays.append(path)
    return tfrecords, arrays


def singles(source, picks):
    for i in picks:
        source[int(i)]
    return len(picks)


def batches(source, picks):
    for start in range(0, len(picks), BATCH):
        source.__getitems__(picks[start : start + BATCH].tolist())
    return len(picks)


def grain_sequential(paths):
    import grain

    n = 0
    for path in paths:
        for _ in grain.experimental.TFRecordIterDataset(path):
            n += 1
    return n


def loader_epoch(source):
    import torch
    from torch.utils.data import DataLoader, DistributedSampler

    sampler = DistributedSampler(source, num_replicas=2, rank=0, seed=0)
    loader = DataLoader(
        source, batch_size=BATCH, sampler=sampler, num_workers=2, collate_fn=lambda rows: rows
    )
    torch.set_num_threads(1)
    return sum(len(b) for b in loader)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; swigflow {swigflow.__version__}")
    for name, count, size in WORKLOADS:
        with tempfile.TemporaryDirectory(dir=args.dir) as directory:
            tfrecords, arrays = write_files(directory, count, size)
            picks = np.random.default_rng(1).integers(0, count, min(count, 20_000))
            rows = {}
            source = TFRecordDataSource(tfrecords)
            rows["swigflow TFRecordDataSource[i]"] = best_of(args.repeats, singles, source, picks)
            rows[f"swigflow __getitems__ ({BATCH})"] = best_of(args.repeats, batches, source, picks)
            if arrays:
                from array_record.python.array_record_data_source import ArrayRecordDataSource

                anchor = ArrayRecordDataSource(arrays)
                rows["ArrayRecord [i]"] = best_of(args.repeats, singles, anchor, picks)
                rows[f"ArrayRecord __getitems__ ({BATCH})"] = best_of(
                    args.repeats, batches, anchor, picks
                )
                rows["Grain TFRecordIterDataset (sequential)"] = best_of(
                    args.repeats, grain_sequential, tfrecords
                )
            try:
                import torch  # noqa: F401

                start = time.perf_counter()
                n = loader_epoch(source)
                rows["DataLoader, DistributedSampler, 2 workers"] = (time.perf_counter() - start, n)
            except ImportError:
                pass
            print(f"\n{name} in {FILES} files")
            print(f"{'reader':44} {'records/s':>12} {'MiB/s':>9}")
            rates = {}
            for label, (seconds, n) in rows.items():
                rates[label] = n / seconds
                print(f"{label:44} {rates[label]:12,.0f} {rates[label] * size / 2**20:9,.0f}")
            anchor_label = f"ArrayRecord __getitems__ ({BATCH})"
            if anchor_label in rates:
                ratio = rates[f"swigflow __getitems__ ({BATCH})"] / rates[anchor_label]
                print(f"batched random reads vs ArrayRecord's __getitems__: {ratio:.2f}x")


if __name__ == "__main__":
    main()
