"""A smoke test of an installed swigflow wheel, run by .ci/python_versions in each interpreter's
fresh venv (and in the Debian roots): every module imports, each native part does one real job,
and the README's demo runs. Run it with -I from outside the source tree:

    venv/bin/python -I .ci/wheel_smoke.py [--quickstart examples/quickstart.py]

Prints one line per check and exits non-zero at the first failure.
"""

import argparse
import importlib
import os
import pkgutil
import subprocess
import sys
import tempfile

import numpy as np

import swigflow
from swigflow import pywrap_swigflow

# Modules of optional extras: importing them without the extra raises ImportError, which names
# what to install (the extras are not installed here).
OPTIONAL = ("swigflow.data.grain", "swigflow.data.torch", "swigflow.ray.")


def check_imports():
    count = 0
    for info in pkgutil.walk_packages(swigflow.__path__, "swigflow."):
        try:
            importlib.import_module(info.name)
        except ImportError:
            if not info.name.startswith(OPTIONAL):
                raise
        count += 1
    return f"{count} modules import"


def check_records(directory):
    path = os.path.join(directory, "smoke.tfrecord.gz")
    with swigflow.io.TFRecordWriter(path, "GZIP") as writer:
        for i in range(100):
            example = swigflow.train.Example(
                features=swigflow.train.Features(
                    feature={
                        "i": swigflow.train.Feature(int64_list=swigflow.train.Int64List(value=[i]))
                    }
                )
            )
            writer.write(example)
    spec = {"i": swigflow.io.FixedLenFeature([], swigflow.int64)}
    records = list(swigflow.io.tf_record_iterator(path, "GZIP"))
    parsed = swigflow.io.parse_example(records, spec)
    assert parsed["i"].tolist() == list(range(100)), parsed
    batches = swigflow.data.TFRecordDataset([path], compression_type="GZIP").batch(32)
    total = sum(int(b.shape[0]) for b in batches.map(lambda b: np.asarray(b)))
    assert total == 100, total
    assert swigflow.io.crc32c(b"123456789") == 0xE3069283  # CRC-32C's check value
    return "TFRecord GZIP write, read, parse_example, TFRecordDataset, crc32c"


def check_images():
    image = np.random.default_rng(0).integers(0, 256, (32, 48, 3), dtype=np.uint8)
    png = swigflow.image.encode_png(image)
    assert np.array_equal(swigflow.image.decode_png(png), image)
    jpeg = swigflow.image.encode_jpeg(image, quality=95)
    assert swigflow.image.decode_jpeg(jpeg).shape == (32, 48, 3)
    return "PNG round trip, JPEG encode and decode"


def check_kernels():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((33, 17)), rng.standard_normal((17, 9))
    product = np.asarray(swigflow.matmul(a.astype(np.float32), b.astype(np.float32)))
    assert np.allclose(product, a @ b, atol=1e-4), "matmul"
    x = rng.standard_normal((1, 8, 8, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    y = np.asarray(swigflow.nn.conv2d(x, w, strides=1, padding="SAME"))
    assert y.shape == (1, 8, 8, 4), y.shape
    return f"matmul and conv2d ({pywrap_swigflow.SelectedIsaName()})"


def check_quickstart(quickstart, directory):
    out = os.path.join(directory, "demo")
    args = [sys.executable, "-I", quickstart, "--output-directory", out]
    args += ["--images-per-class", "20", "--epochs", "1", "--batch-size", "8"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 train shards (48 records)" in result.stdout, result.stdout
    return "the README's demo (examples/quickstart.py)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quickstart", help="examples/quickstart.py, to run it too")
    args = parser.parse_args()
    limited = pywrap_swigflow.LimitedApiVersion()
    print(
        f"smoke: Python {sys.version.split()[0]}, numpy {np.__version__}, swigflow "
        f"{swigflow.__version__} (stable ABI {limited >> 24}.{(limited >> 16) & 0xFF})"
    )
    with tempfile.TemporaryDirectory() as directory:
        checks = [check_imports, lambda: check_records(directory), check_images, check_kernels]
        if args.quickstart:
            checks.append(lambda: check_quickstart(args.quickstart, directory))
        for check in checks:
            print(f"smoke: ok: {check()}")


if __name__ == "__main__":
    main()
