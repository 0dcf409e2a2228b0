"""swigflow's main job in one short run: image folders to TFRecord shards to training batches.

    python examples/quickstart.py [--output-directory quickstart] [--images-per-class 400]

1. makes an image folder, one subfolder per class, of small generated JPEGs (no download);
2. converts it to shards with the command line, as for a real data set:
   `swigflow build-image-dataset --train-directory ... --output-directory ...`;
3. reads the shards with `swigflow.data`: shuffle, batch, parse and `decode_images` (decode,
   random crop, flip, normalize) on the pipeline's C++ threads, as a PyTorch or JAX training loop
   would take them;
4. prints what it did and how to look at the shards.

It needs only the wheel (numpy and protobuf come with it); the README's first command runs it.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

import numpy as np

import swigflow
from swigflow.io import FixedLenFeature

CLASSES = ("circles", "stripes", "checks")
SIZE = 128  # stored images are SIZE x SIZE; batches are cropped and resized to CROP x CROP
CROP = 96


def make_image(kind, rng):
    """A SIZE x SIZE RGB picture of one class's pattern, at a random phase, scale and colour."""
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    period = rng.uniform(8, 24)
    phase = rng.uniform(0, 2 * np.pi)
    if kind == "circles":
        cy, cx = rng.uniform(0, SIZE, 2)
        wave = np.sin(np.hypot(y - cy, x - cx) * 2 * np.pi / period + phase)
    elif kind == "stripes":
        angle = rng.uniform(0, np.pi)
        wave = np.sin((x * np.cos(angle) + y * np.sin(angle)) * 2 * np.pi / period + phase)
    else:
        wave = np.sign(np.sin(x * 2 * np.pi / period + phase) * np.sin(y * 2 * np.pi / period))
    colour = rng.uniform(40, 255, 3).astype(np.float32)
    pixels = (wave[..., None] * 0.5 + 0.5) * colour + rng.normal(0, 6, (SIZE, SIZE, 3))
    return np.clip(pixels, 0, 255).astype(np.uint8)


def make_image_folder(photos, images_per_class, seed):
    rng = np.random.default_rng(seed)
    for kind in CLASSES:
        folder = os.path.join(photos, kind)
        os.makedirs(folder, exist_ok=True)
        for i in range(images_per_class):
            with open(os.path.join(folder, f"{kind}-{i:04d}.jpg"), "wb") as f:
                f.write(swigflow.image.encode_jpeg(make_image(kind, rng), quality=90))


def build_shards(photos, shards):
    """The command line does the conversion, exactly as a user would run it."""
    command = [
        sys.executable, "-m", "swigflow", "build-image-dataset",
        "--train-directory", photos, "--validation-fraction", "0.2",
        "--output-directory", shards, "--train-shards", "4", "--validation-shards", "1",
        "--num-threads", "2", "--seed", "1",
    ]  # fmt: skip
    print("$ swigflow " + " ".join(command[3:]), flush=True)
    subprocess.run(command, check=True)


def train_batches(files, epochs, batch_size):
    spec = {
        "image/encoded": FixedLenFeature([], "string"),
        "image/class/label": FixedLenFeature([], "int64"),
    }
    return (
        swigflow.data.TFRecordDataset(files, num_parallel_reads=len(files))
        .shuffle(1000, seed=0)
        .repeat(epochs)
        .batch(batch_size)
        .parse(spec)
        .decode_images(
            size=(CROP, CROP),
            crop="random",
            flip=True,
            dtype="float32",
            layout="NCHW",
            mean=(0.485, 0.456, 0.406),
            std=(0.229, 0.224, 0.225),
            seed=0,
        )
        .prefetch(2)
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-directory", default="quickstart")
    parser.add_argument("--images-per-class", type=int, default=400)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)

    out = os.path.abspath(args.output_directory)
    photos, shards = os.path.join(out, "photos"), os.path.join(out, "shards")
    shutil.rmtree(out, ignore_errors=True)
    print(f"swigflow {swigflow.__version__}: image folder -> TFRecord shards -> batches\n")

    start = time.perf_counter()
    make_image_folder(photos, args.images_per_class, seed=0)
    n_images = args.images_per_class * len(CLASSES)
    seconds = time.perf_counter() - start
    print(
        f"1. made {n_images} JPEGs ({SIZE}x{SIZE}) in class folders in {photos} ({seconds:.1f} s)"
    )

    start = time.perf_counter()
    print("2. converting them to shards with the command line:")
    build_shards(photos, shards)
    # The shards: their index files (.train-00000-of-00004.idx) are hidden from globs.
    train = sorted(glob.glob(os.path.join(shards, "train-*")))
    validation = sorted(glob.glob(os.path.join(shards, "validation-*")))
    n_train = sum(len(swigflow.io.TFRecordFile(f)) for f in train)
    n_validation = sum(len(swigflow.io.TFRecordFile(f)) for f in validation)
    seconds = time.perf_counter() - start
    print(
        f"   {len(train)} train shards ({n_train} records) and {len(validation)} validation shard "
        f"({n_validation} records) in {seconds:.1f} s"
    )

    print(
        f"3. feeding {args.epochs} epochs through swigflow.data: shuffle, batch {args.batch_size}, "
        f"parse, decode_images (random {CROP}x{CROP} crop, flip, normalize, NCHW float32)"
    )
    start = time.perf_counter()
    images = batches = 0
    shape = None
    counts = np.zeros(len(CLASSES) + 1, np.int64)
    for batch in train_batches(train, args.epochs, args.batch_size):
        pixels, labels = batch["image/encoded"], batch["image/class/label"]
        assert pixels.shape[1:] == (3, CROP, CROP) and pixels.dtype == np.float32
        counts += np.bincount(labels, minlength=len(counts))
        images += len(labels)
        shape = shape or pixels.shape
        batches += 1
    seconds = time.perf_counter() - start
    if images != n_train * args.epochs:
        raise SystemExit(f"expected {n_train * args.epochs} images, read {images}")
    print(
        f"   {images} images in {batches} batches of shape {tuple(shape)}: "
        f"{images / seconds:,.0f} images/s on {os.cpu_count()} cores ({seconds:.2f} s)"
    )
    per_class = ", ".join(f"{c}: {counts[i + 1]}" for i, c in enumerate(CLASSES))
    print(f"   labels seen (1-based, as build_imagenet_data writes them): {per_class}")

    # The command as this environment has it (a venv's bin/ may not be on PATH).
    command = shutil.which("swigflow") and "swigflow"
    command = command or os.path.relpath(os.path.join(os.path.dirname(sys.executable), "swigflow"))
    print(f"\nThe shards are in {shards}. Look at them with:")
    print(f"   {command} inspect {train[0]}")
    print(f"   {command} show {train[0]} -o {os.path.join(out, 'sheet.png')}  # a contact sheet")
    print(f"   {command} verify {os.path.join(shards, f'train-*-of-{len(train):05d}')}")
    print("Feed them to PyTorch with swigflow.data.TorchIterableDataset (see docs/pipelines.md).")


if __name__ == "__main__":
    main()
