"""Images per second of ImageNet-style input pipelines: JPEG shards -> decode -> 224x224 ->
batches of 64, swigflow's decode_images against tf.data and a PyTorch folder Dataset.

Run with the installed wheel; the anchors are optional and measured in the same run:

    python -m venv /tmp/bench && /tmp/bench/bin/pip install dist/swigflow-*.whl \\
        tensorflow-cpu torch pillow
    /tmp/bench/bin/python bench/image_bench.py [--images 2048] [--repeats 3] [--dir /tmp]

The workload (issue 15): --images JPEGs of 500x375 at quality 90, in 8 TFRecord shards with
build_imagenet_data's keys (and the same files in a class folder for the PyTorch Dataset). Each
row is a full pass, best of --repeats, with every pipeline using all cores:
  - tf.data: parse + decode_jpeg + tf.image.resize in map(num_parallel_calls=AUTOTUNE), and the
    Inception training variant (sample_distorted_bounding_box + decode_and_crop_jpeg + resize +
    random flip);
  - PyTorch: a folder Dataset decoding with PIL (draft mode off) and resizing, DataLoader with one
    worker per core;
  - swigflow: .batch(64).parse(spec).decode_images(...), fast=False and fast=True, evaluation
    (whole image) and training (crop="random", flip=True);
  - the ceiling: a full PIL decode of every image (no resize, no batching) on one process per
    core.
Ratios are against tf.data's row of the same kind (evaluation or training).
"""

import argparse
import io
import multiprocessing
import os
import sys
import tempfile
import time

import numpy as np
from timing import cpu_name

import swigflow

BATCH = 64
SIZE = (224, 224)


def photo(width, height, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    f = rng.uniform(3, 20, 6)
    img = np.stack(
        [
            128 + 100 * np.sin(x / f[0] + seed) * np.cos(y / f[1]),
            128 + 90 * np.cos((x + y) / f[2]) * np.sin(y / f[3]),
            128 + 80 * np.sin(np.hypot(x - width / 2, y - height / 2) / f[4]),
        ],
        axis=-1,
    )
    img += rng.normal(0, 12, img.shape)  # texture: q90 files of typical photo size
    return np.clip(img, 0, 255).astype(np.uint8)


def make_data(directory, count):
    from PIL import Image

    shards = [os.path.join(directory, f"train-{i:05d}-of-00008") for i in range(8)]
    folder = os.path.join(directory, "folder", "class0")
    os.makedirs(folder, exist_ok=True)
    writers = [swigflow.io.TFRecordWriter(s) for s in shards]
    templates = [photo(500, 375, s) for s in range(16)]
    total = 0
    for i in range(count):
        image = np.roll(templates[i % 16], i * 7, axis=1)
        buf = io.BytesIO()
        Image.fromarray(image).save(buf, "JPEG", quality=90)
        data = buf.getvalue()
        total += len(data)
        with open(os.path.join(folder, f"{i:06d}.jpg"), "wb") as f:
            f.write(data)
        ex = swigflow.train.Example(
            features=swigflow.train.Features(
                feature={
                    "image/encoded": swigflow.train.Feature(
                        bytes_list=swigflow.train.BytesList(value=[data])
                    ),
                    "image/class/label": swigflow.train.Feature(
                        int64_list=swigflow.train.Int64List(value=[i % 1000 + 1])
                    ),
                }
            )
        )
        writers[i % 8].write(ex.SerializeToString())
    for w in writers:
        w.close()
    return shards, os.path.dirname(folder), total / count


def count_images(iterable, key):
    n = 0
    for batch in iterable:
        n += len(batch[key]) if isinstance(batch, dict) else len(batch[0])
    return n


# --- tf.data --------------------------------------------------------------------------------


def tf_pipeline(tf, shards, train):
    spec = {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    }

    def evaluate(record):
        ex = tf.io.parse_single_example(record, spec)
        image = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
        image = tf.cast(tf.image.resize(image, SIZE), tf.uint8)
        return {"image/encoded": image, "image/class/label": ex["image/class/label"]}

    def training(record):
        ex = tf.io.parse_single_example(record, spec)
        shape = tf.io.extract_jpeg_shape(ex["image/encoded"])
        begin, size, _ = tf.image.sample_distorted_bounding_box(
            shape, tf.constant([0.0, 0.0, 1.0, 1.0], shape=[1, 1, 4]),
            min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.08, 1.0),
            max_attempts=100, use_image_if_no_bounding_boxes=True,
        )  # fmt: skip
        window = tf.stack([begin[0], begin[1], size[0], size[1]])
        image = tf.image.decode_and_crop_jpeg(ex["image/encoded"], window, channels=3)
        image = tf.image.random_flip_left_right(tf.image.resize(image, SIZE))
        return {
            "image/encoded": tf.cast(image, tf.uint8),
            "image/class/label": ex["image/class/label"],
        }

    ds = tf.data.TFRecordDataset(shards, num_parallel_reads=tf.data.AUTOTUNE)
    ds = ds.map(training if train else evaluate, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)


def run_tf(tf, shards, train):
    return count_images(tf_pipeline(tf, shards, train), "image/encoded")


# --- PyTorch folder Dataset -------------------------------------------------------------------


class FolderDataset:
    def __init__(self, root):
        self.files = sorted(
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".jpg")
        )

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        from PIL import Image

        with Image.open(self.files[i]) as im:
            image = np.asarray(im.convert("RGB").resize(SIZE[::-1], Image.BILINEAR))
        return image, 0


def run_torch(folder):
    import torch

    loader = torch.utils.data.DataLoader(
        FolderDataset(folder),
        batch_size=BATCH,
        num_workers=os.cpu_count(),
        persistent_workers=False,
    )
    return count_images(loader, None)


# --- swigflow -------------------------------------------------------------------------------


def run_swigflow(shards, train, fast):
    spec = {
        "image/encoded": swigflow.io.FixedLenFeature([], "string"),
        "image/class/label": swigflow.io.FixedLenFeature([], "int64"),
    }
    ds = swigflow.data.TFRecordDataset(shards, num_parallel_reads=swigflow.data.AUTOTUNE)
    ds = ds.batch(BATCH).parse(spec)
    ds = ds.decode_images(
        size=SIZE, crop="random" if train else None, flip=train, fast=fast, seed=0
    ).prefetch(2)
    return count_images(ds, "image/encoded")


# --- the full-decode ceiling ----------------------------------------------------------------


def _pil_decode(path):
    from PIL import Image

    with Image.open(path) as im:
        im.convert("RGB").load()
    return 1


def run_ceiling(folder):
    files = FolderDataset(folder).files
    with multiprocessing.get_context("fork").Pool(os.cpu_count()) as pool:
        return sum(pool.map(_pil_decode, files, chunksize=16))


def best_rate(repeats, fn, *args):
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        n = fn(*args)
        best = max(best, n / (time.perf_counter() - start))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=2048)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    except ImportError:
        tf = None
    try:
        import torch  # noqa: F401

        have_torch = True
    except ImportError:
        have_torch = False

    cpu = cpu_name()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        shards, folder, mean_bytes = make_data(tmp, args.images)
        print(f"CPU: {cpu}, {os.cpu_count()} cores; {args.images} JPEGs 500x375 q90 "
              f"({mean_bytes / 1024:.0f} KiB each) in 8 shards -> {SIZE[0]}x{SIZE[1]} uint8, "
              f"batches of {BATCH}; best of {args.repeats}")  # fmt: skip
        rows = []
        anchors = {}
        if tf is not None:
            anchors["eval"] = best_rate(args.repeats, run_tf, tf, shards, False)
            rows.append(("tf.data decode_jpeg + resize", "eval", anchors["eval"]))
            anchors["train"] = best_rate(args.repeats, run_tf, tf, shards, True)
            rows.append(("tf.data decode_and_crop_jpeg (training)", "train", anchors["train"]))
        if have_torch:
            rows.append(("PyTorch folder Dataset (PIL), DataLoader", "eval",
                         best_rate(args.repeats, run_torch, folder)))  # fmt: skip
        for train in (False, True):
            kind = "train" if train else "eval"
            for fast in (False, True):
                name = (
                    f"swigflow decode_images({'crop=random, flip, ' if train else ''}fast={fast})"
                )
                rows.append(
                    (name, kind, best_rate(args.repeats, run_swigflow, shards, train, fast))
                )
        rows.append(
            (
                "full PIL decode, no resize (ceiling)",
                "eval",
                best_rate(args.repeats, run_ceiling, folder),
            )
        )
        print(f"| pipeline | images/s | vs tf.data ({'eval' if tf else 'n/a'}/train) |")
        print("|---|---:|---:|")
        for name, kind, rate in rows:
            anchor = anchors.get(kind)
            ratio = f"{rate / anchor:.2f}x" if anchor else "-"
            print(f"| {name} | {rate:,.0f} | {ratio} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
