"""TFDS-prepared datasets read by swigflow.datasets against TensorFlow Datasets itself (issue 68).

Run with the installed wheel and the anchors in one virtual environment:

    python -m venv /tmp/tfds && /tmp/tfds/bin/pip install dist/swigflow-*.whl \\
        tensorflow-cpu==2.21.0 tensorflow-datasets==4.9.10 array-record pillow
    /tmp/tfds/bin/python bench/tfds_bench.py [--images 3000] [--repeats 3] [--dir /tmp/tfds_bench]

TFDS prepares the data (kept in --dir between runs, a folder per --images): --images JPEGs
of mixed sizes (200-500 px a side, q90) with a ClassLabel, in 8 TFRecord shards and again as
ArrayRecord; and a numeric dataset (an RLDS-like step of 24 features, no images) for the
per-example decode. Rows, each the best of --repeats, each library in a process of its own
(swigflow's first, then TFDS's):
  1. pipeline: read + decode + resize to 224x224 float32 + batch 64, every core.
     TFDS: tfds.load(split="train") mapped with tf.image.resize (AUTOTUNE), through
     tfds.as_numpy, and the same with SkipDecoding and decode_jpeg + resize in one map; the
     ratio is against the faster of the two. swigflow: load(..., decoders={"image":
     SkipDecoding()}).batch(64).decode_images(key="image", size=224, dtype="float32").
  2. random access, decoded, in a random order, one example a call and __getitems__ of 64 (a
     DataLoader batch): TFDS's ArrayRecord data source against swigflow's data source over the
     TFRecord files (and over the ArrayRecord ones).
  3. per-example decode of serialized numeric examples: TFDS's numpy path
     (features.deserialize_example_np) against swigflow's, one example a call and batched.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from image_bench import photo
from timing import cpu_name

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

BATCH = 64
SIZE = 224
NAME = "sf_bench_images"
NUMERIC = "sf_bench_numeric"


def prepare(directory, count):
    """Prepares both datasets with TFDS unless --dir already holds them."""
    import tensorflow_datasets as tfds
    from PIL import Image

    class SfBenchImages(tfds.core.GeneratorBasedBuilder):
        VERSION = tfds.core.Version("1.0.0")

        def _info(self):
            return tfds.core.DatasetInfo(
                builder=self,
                features=tfds.features.FeaturesDict(
                    {
                        "image": tfds.features.Image(shape=(None, None, 3)),
                        "label": tfds.features.ClassLabel(num_classes=10),
                    }
                ),
                supervised_keys=("image", "label"),
            )

        def _split_generators(self, dl_manager):
            return {"train": self._generate_examples()}

        def _generate_examples(self):
            import io

            rng = np.random.default_rng(0)
            for i in range(count):
                w, h = rng.integers(200, 501, 2)
                buf = io.BytesIO()
                Image.fromarray(photo(int(w), int(h), i)).save(buf, "JPEG", quality=90)
                yield i, {"image": buf.getvalue(), "label": i % 10}

    class SfBenchNumeric(tfds.core.GeneratorBasedBuilder):
        VERSION = tfds.core.Version("1.0.0")

        def _info(self):
            f = tfds.features
            obs = {f"joint_{k}": f.Tensor(shape=(7,), dtype=np.float32) for k in range(8)}
            obs.update({f"flag_{k}": np.bool_ for k in range(6)})
            return tfds.core.DatasetInfo(
                builder=self,
                features=f.FeaturesDict(
                    {
                        "observation": obs,
                        "action": f.Tensor(shape=(7,), dtype=np.float32),
                        "reward": np.float32,
                        "discount": np.float32,
                        "step": np.int32,
                        "instruction": f.Text(),
                        "contacts": f.Sequence(np.int64),
                        "episode_id": np.int64,
                        "is_first": np.bool_,
                        "is_last": np.bool_,
                    }
                ),
            )

        def _split_generators(self, dl_manager):
            return {"train": self._generate_examples()}

        def _generate_examples(self):
            rng = np.random.default_rng(1)
            for i in range(4000):
                obs = {f"joint_{k}": rng.random(7, dtype=np.float32) for k in range(8)}
                obs.update({f"flag_{k}": bool(rng.integers(2)) for k in range(6)})
                yield (
                    i,
                    {
                        "observation": obs,
                        "action": rng.random(7, dtype=np.float32),
                        "reward": np.float32(rng.random()),
                        "discount": np.float32(1),
                        "step": i % 100,
                        "instruction": "put the red block in the bowl",
                        "contacts": list(range(i % 5)),
                        "episode_id": i // 100,
                        "is_first": i % 100 == 0,
                        "is_last": i % 100 == 99,
                    },
                )

    config = tfds.download.DownloadConfig(num_shards=8)
    for cls, fmt, sub in [
        (SfBenchImages, "tfrecord", "tfrecord"),
        (SfBenchImages, "array_record", "array_record"),
        (SfBenchNumeric, "tfrecord", "tfrecord"),
    ]:
        builder = cls(data_dir=os.path.join(directory, sub), file_format=fmt)
        if not builder.is_prepared():
            builder.download_and_prepare(download_config=config)


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def tfds_phase(args, tfrecord, array_record, picks):
    """TFDS's rows (TensorFlow imported only in this process)."""
    import tensorflow as tf
    import tensorflow_datasets as tfds

    n, repeats, rows = args.images, args.repeats, {}

    def tfds_pipeline():
        ds = tfds.load(NAME, split="train", data_dir=tfrecord)
        ds = ds.map(
            lambda e: (tf.image.resize(e["image"], (SIZE, SIZE)), e["label"]),
            num_parallel_calls=tf.data.AUTOTUNE,
        )
        for _ in tfds.as_numpy(ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)):
            pass

    def tfds_pipeline_skip():  # TFDS's faster way: decode and resize in one map
        ds = tfds.load(
            NAME, split="train", data_dir=tfrecord, decoders={"image": tfds.decode.SkipDecoding()}
        )
        ds = ds.map(
            lambda e: (
                tf.image.resize(tf.io.decode_jpeg(e["image"], channels=3), (SIZE, SIZE)),
                e["label"],
            ),
            num_parallel_calls=tf.data.AUTOTUNE,
        )
        for _ in tfds.as_numpy(ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)):
            pass

    rows["pipeline_tfds_load"] = n / best(tfds_pipeline, repeats)
    rows["pipeline_tfds_skip"] = n / best(tfds_pipeline_skip, repeats)
    source = tfds.data_source(NAME, split="train", data_dir=array_record)
    rows["random_tfds_array_record"] = len(picks) / best(random_reads(source, picks), repeats)
    rows["batch_tfds_array_record"] = len(picks) / best(random_batches(source, picks), repeats)
    features = tfds.builder(NUMERIC, data_dir=tfrecord).info.features
    records = numeric_records(tfrecord)

    def decode():
        for r in records:
            features.deserialize_example_np(r)

    rows["decode_tfds_np"] = len(records) / best(decode, repeats)
    return rows


def swigflow_phase(args, tfrecord, array_record, picks):
    """swigflow's rows (no TensorFlow in this process)."""
    import swigflow.datasets as sfds

    n, repeats, rows = args.images, args.repeats, {}

    def pipeline():
        ds = sfds.load(
            NAME, split="train", data_dir=tfrecord,
            decoders={"image": sfds.decode.SkipDecoding()},
        ).batch(BATCH).decode_images(key="image", size=SIZE, dtype="float32")  # fmt: skip
        for _ in ds:
            pass

    rows["pipeline_swigflow"] = n / best(pipeline, repeats)
    for fmt, data_dir in (("tfrecord", tfrecord), ("array_record", array_record)):
        source = sfds.data_source(NAME, split="train", data_dir=data_dir)
        rows[f"random_swigflow_{fmt}"] = len(picks) / best(random_reads(source, picks), repeats)
        rows[f"batch_swigflow_{fmt}"] = len(picks) / best(random_batches(source, picks), repeats)
    features = sfds.builder(NUMERIC, data_dir=tfrecord).info.features
    records = numeric_records(tfrecord)

    def decode():
        for r in records:
            features.deserialize_example_np(r)

    def decode_batched():
        for start in range(0, len(records), BATCH):
            features.deserialize_examples_np(records[start : start + BATCH])

    rows["decode_swigflow_np"] = len(records) / best(decode, repeats)
    rows["decode_swigflow_np_batched"] = len(records) / best(decode_batched, repeats)
    return rows


def numeric_records(tfrecord):
    """The first 2,000 serialized examples of the numeric dataset (read without TensorFlow)."""
    import glob

    import swigflow

    directory = os.path.join(tfrecord, NUMERIC, "1.0.0")
    records = []
    for path in sorted(glob.glob(os.path.join(directory, "*train*"))):
        records.extend(swigflow.io.tf_record_iterator(path))
    return records[:2000]


def random_reads(source, picks):
    def run():
        for i in picks:
            source[i]

    return run


def random_batches(source, picks):
    def run():
        for start in range(0, len(picks), BATCH):
            source.__getitems__(picks[start : start + BATCH])

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--random-reads", type=int, default=1000)
    parser.add_argument("--dir", default="/tmp/tfds_bench")
    parser.add_argument("--phase", choices=["prepare", "tfds", "swigflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    directory = os.path.join(args.dir, f"{args.images}-images")  # one per dataset size
    tfrecord = os.path.join(directory, "tfrecord")
    array_record = os.path.join(directory, "array_record")
    picks = np.random.default_rng(7).integers(0, args.images, args.random_reads).tolist()
    if args.phase == "prepare":
        prepare(directory, args.images)
        return
    if args.phase is not None:
        phase = tfds_phase if args.phase == "tfds" else swigflow_phase
        print(json.dumps(phase(args, tfrecord, array_record, picks)))
        return
    # Each library in a process of its own: TensorFlow's thread pools stay out of swigflow's.
    rows = {}
    for phase in ("prepare", "swigflow", "tfds"):
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), *sys.argv[1:], "--phase", phase],
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:
            sys.exit(f"the {phase} phase failed:\n{done.stderr[-4000:]}")
        if phase != "prepare":
            rows.update(json.loads(done.stdout.strip().splitlines()[-1]))
    report(rows, args)


def report(rows, args):
    n = args.images
    rows["pipeline_tfds"] = max(rows["pipeline_tfds_load"], rows["pipeline_tfds_skip"])
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    print(f"\n{n} JPEGs (200-500 px, q90) -> 224x224 float32, batches of {BATCH}:")
    print(f"  tfds.load + tf.image.resize + as_numpy   {rows['pipeline_tfds_load']:9.0f} images/s")
    print(f"  the same, SkipDecoding + decode in map   {rows['pipeline_tfds_skip']:9.0f} images/s")
    ratio = rows["pipeline_swigflow"] / rows["pipeline_tfds"]
    print(f"  swigflow.datasets + decode_images         {rows['pipeline_swigflow']:9.0f} images/s"
          f"  {ratio:.2f}x TFDS's faster")  # fmt: skip
    print(f"\nRandom access, decoded, one example a call ({args.random_reads} random indices):")
    base = rows["random_tfds_array_record"]
    print(f"  TFDS ArrayRecord data source              {base:9.0f} examples/s")
    labels = {"tfrecord": "swigflow data source, TFRecord",
              "array_record": "swigflow data source, ArrayRecord"}  # fmt: skip
    for key, label in [(f"random_swigflow_{k}", v) for k, v in labels.items()]:
        print(f"  {label:<40}  {rows[key]:9.0f} examples/s  {rows[key] / base:.2f}x TFDS")
    print(f"\nRandom access, decoded, __getitems__ of {BATCH} random indices (a DataLoader batch):")
    base = rows["batch_tfds_array_record"]
    print(f"  TFDS ArrayRecord data source              {base:9.0f} examples/s")
    for key, label in [(f"batch_swigflow_{k}", v) for k, v in labels.items()]:
        print(f"  {label:<40}  {rows[key]:9.0f} examples/s  {rows[key] / base:.2f}x TFDS")
    print(f"\nPer-example decode, {2000} serialized examples of 24 numeric features:")
    base = rows["decode_tfds_np"]
    print(f"  TFDS features.deserialize_example_np      {base:9.0f} examples/s")
    for key, label in [("decode_swigflow_np", "swigflow, one example a call"),
                       ("decode_swigflow_np_batched", f"swigflow, {BATCH} a call")]:  # fmt: skip
        print(f"  {label:<40}  {rows[key]:9.0f} examples/s  {rows[key] / base:.2f}x TFDS")


if __name__ == "__main__":
    main()
