"""Random access to TFRecords by index: swigflow.data.TFRecordDataSource against ArrayRecord.

Run with the installed wheel; the anchors come from `pip install grain` (which brings
array-record) and torch for the DataLoader row, all measured in the same run:

    /tmp/bench/bin/python bench/random_access_bench.py [--repeats 3] [--dir /tmp]

Workloads: 100,000 x 1 KiB and 4,000 x 100 KiB records, each in 8 files, warm in the page cache.
The records are text-like (tokens of a 256-word vocabulary: deflate makes them ~3x smaller), or
random bytes with --data random (incompressible, like encoded images). The same records are
written as TFRecord files (with index files) and as ArrayRecord files (group_size 1, ArrayRecord's
setting for random access). Rows:
- random single reads, ``source[i]``, and random batches of 64, ``source.__getitems__(picks)``,
  for both sources (the same random indices);
- the same from GZIP files through their seek indexes: written by swigflow as chained members
  (``seek_block_size`` 1, a member per record, and the default 64 KiB), and as one stream as
  TensorFlow writes it (seek points every 1 MiB), with the cost of reading the record at the
  middle of such a file by inflating from its start, and each file's size against plain;
- Grain's sequential TFRecord reader (``grain.experimental.TFRecordIterDataset``) over the same
  files, for scale;
- one epoch of a torch DataLoader over the TFRecordDataSource with a DistributedSampler (rank 0
  of 2) and 2 workers, batches of 64.
Reported: best of --repeats, records/s, MiB/s, and the batched ratio to ArrayRecord's.
"""

import argparse
import itertools
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


# GZIP variants: (label, seek_block_size); None is one stream, as TensorFlow writes.
GZIP_KINDS = [("GZIP, a member per record", 1), ("GZIP, 64 KiB members", 64 << 10),
              ("GZIP one stream (as TF), 1 MiB seek points", None)]  # fmt: skip


def make_records(count, size, data):
    rng = np.random.default_rng(0)
    if data == "random":
        return [rng.bytes(size) for _ in range(count)]
    vocabulary = [rng.bytes(int(n)).hex().encode() for n in rng.integers(1, 6, 256)]
    words = np.array(vocabulary, dtype=object)
    records = []
    for _ in range(count):
        text = b" ".join(words[rng.integers(0, 256, size // 4)])
        records.append(text[:size].ljust(size, b"."))
    return records


def write_files(directory, records, options=None, suffix=""):
    """The records as indexed TFRecord files (and ArrayRecord files when uncompressed)."""
    per_file = -(-len(records) // FILES)
    tfrecords, arrays = [], []
    for f in range(FILES):
        part = records[f * per_file : (f + 1) * per_file]
        path = os.path.join(directory, f"part-{f}.tfrecord{suffix}")
        with swigflow.io.TFRecordWriter(path, options) as w:
            for r in part:
                w.write(r)
        swigflow.io.create_index(path)
        tfrecords.append(path)
        if options is not None:
            continue
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


def middle_from_start(path, options):
    """Reads the record in the middle of a compressed file the only way without seek points:
    inflating from its start."""
    n = len(swigflow.io.TFRecordFile(path, options=options)) // 2
    with swigflow.io.TFRecordReader(path, options) as reader:
        for _ in itertools.islice(reader, n + 1):
            pass
    return 1


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
    parser.add_argument("--data", choices=["text", "random"], default="text")
    args = parser.parse_args()
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; swigflow {swigflow.__version__}")
    print(f"records: {args.data}")
    for name, count, size in WORKLOADS:
        with tempfile.TemporaryDirectory(dir=args.dir) as directory:
            records = make_records(count, size, args.data)
            tfrecords, arrays = write_files(directory, records)
            plain_bytes = sum(os.path.getsize(p) for p in tfrecords)
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
            gzip_rows = []
            for k, (label, block) in enumerate(GZIP_KINDS):
                options = swigflow.io.TFRecordOptions("GZIP", seek_block_size=block)
                paths, _ = write_files(directory, records, options, f".{k}.gz")
                share = sum(os.path.getsize(p) for p in paths) / plain_bytes
                gz = TFRecordDataSource(paths, compression_type="GZIP")
                few = picks[: 2_000 if block is None else len(picks)]  # ~1 ms a read there
                rows[f"{label} [i]"] = best_of(args.repeats, singles, gz, few)
                rows[f"{label} ({BATCH})"] = best_of(args.repeats, batches, gz, few)
                gzip_rows.append((label, share))
                if block is None:
                    middle = best_of(args.repeats, middle_from_start, paths[0], options)[0]
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
            plain = rates[f"swigflow __getitems__ ({BATCH})"]
            for label, share in gzip_rows:
                batched = rates[f"{label} ({BATCH})"]
                print(f"{label}: file {share:.0%} of plain; batched {batched / plain:.2f}x plain")
            seek = 1 / rates[f"{GZIP_KINDS[-1][0]} [i]"]
            print(
                f"one stream: a random read {seek * 1e3:.2f} ms vs {middle * 1e3:.1f} ms to "
                f"inflate to the middle of a file: {middle / seek:.0f}x"
            )
            anchor_label = f"ArrayRecord __getitems__ ({BATCH})"
            if anchor_label in rates:
                ratio = rates[f"swigflow __getitems__ ({BATCH})"] / rates[anchor_label]
                print(f"batched random reads vs ArrayRecord's __getitems__: {ratio:.2f}x")


if __name__ == "__main__":
    main()
