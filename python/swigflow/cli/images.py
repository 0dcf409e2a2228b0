"""``swigflow build-image-dataset`` and ``swigflow export-images``: image folders to TFRecord
shards in the layout of TensorFlow's build_imagenet_data.py, and back."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import random
import sys
import threading
import time
from typing import Any

import numpy as np

from swigflow import errors, io
from swigflow._version import __version__
from swigflow.cli import (
    CommandError,
    add_compression_option,
    add_seek_block_option,
    compression_of,
    image_size,
    positive_int,
)
from swigflow.cli import progress as _progress
from swigflow.cli import shards as _shards
from swigflow.image import codecs as image_codecs
from swigflow.image import transforms as image_transforms
from swigflow.io import gfile
from swigflow.io.example_codec import decode_example, encode_example
from swigflow.io.feature_spec import BYTES, INT64
from swigflow.io.gfile import PathOrFile

MANIFEST = "manifest.json"
_PLAN = ".swigflow-build.json"  # what a --resume must match


def register(commands: Any) -> None:
    p = commands.add_parser(
        "build-image-dataset",
        help="image folders -> TFRecord shards (build_imagenet_data layout)",
        description="Converts a folder with one subfolder of images per class into "
        "train-NNNNN-of-NNNNN and validation-NNNNN-of-NNNNN TFRecord shards of tf.train.Example "
        "records with build_imagenet_data.py's keys. JPEG files are stored as they are (their "
        "size read from the header); other formats, and every image with --resize, are "
        "decoded, resized and re-encoded as JPEG (quality 95) with swigflow's codecs (JPEG and "
        "PNG; Pillow reads the other formats, GIF, BMP, WebP, TIFF, when installed). Labels count "
        "from --label-base (1, build_imagenet_data's, by default) in sorted class order or the "
        "order of --labels-file. Writes manifest.json and "
        "an index file per shard. Folders may be URLs (s3://, gs://, ...: swigflow[remote]).",
    )
    p.add_argument("--train-directory", required=True, metavar="DIR")
    split = p.add_mutually_exclusive_group()
    split.add_argument("--validation-directory", metavar="DIR")
    split.add_argument(
        "--validation-fraction",
        type=_fraction,
        metavar="F",
        help="hold out this fraction of each class of --train-directory for validation",
    )
    p.add_argument("--output-directory", required=True, metavar="OUT")
    p.add_argument("--train-shards", type=positive_int, default=1, metavar="N")
    p.add_argument("--validation-shards", type=positive_int, default=1, metavar="M")
    p.add_argument("--num-threads", type=positive_int, default=1, metavar="T")
    p.add_argument(
        "--labels-file",
        metavar="F",
        help="class folder names, one per line, in label order (the first line's label is "
        "--label-base)",
    )
    p.add_argument(
        "--label-base",
        type=int,
        choices=(0, 1),
        default=1,
        help="the first class's label: 1 as build_imagenet_data writes it (label 0 is its "
        "background class), or 0 for PyTorch-style labels (default 1)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="S", help="shuffle seed (default 0)")
    p.add_argument(
        "--resize",
        type=image_size,
        metavar="WxH",
        help="resize every image to W x H (bilinear, antialiased when shrinking)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the complete shards of an interrupted run with the same inputs and options",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="write the shards as Ray tasks (swigflow[ray]) on the cluster at ADDRESS ('auto', "
        "'ray://host:10001'), or on the one ray.init() finds or starts; same bytes as without "
        "--ray. Every node must see the folders (a shared file system, or URLs)",
    )
    _progress.add_option(p)
    add_compression_option(p, "the shards written")
    add_seek_block_option(p)
    p.set_defaults(run=_build)

    p = commands.add_parser(
        "export-images",
        help="write the images stored in TFRecord files back to files",
        description="Writes the encoded images of tf.train.Example records to files, named "
        "from image/filename when present (made unique), else by record number with an "
        "extension from image/format or the image's own signature. Images are written as "
        "stored unless --resize or --format asks for new pixels or a new encoding (swigflow's "
        "codecs for JPEG and PNG; Pillow reads other stored formats).",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--output-directory", required=True, metavar="OUT")
    p.add_argument("--key", default="image/encoded", help="the bytes feature holding the image")
    p.add_argument(
        "--by-class",
        action="store_true",
        help="one subfolder per image/class/text (or image/class/label)",
    )
    p.add_argument(
        "--resize",
        type=image_size,
        metavar="WxH",
        help="resize every image to W x H (bilinear, antialiased when shrinking); written in "
        "--format, else in its own format when JPEG or PNG, else as PNG",
    )
    p.add_argument(
        "--format",
        choices=("png", "jpeg"),
        help="re-encode every image in this format (alpha is kept in PNG, dropped in JPEG)",
    )
    p.add_argument(
        "--quality",
        type=_quality,
        default=95,
        metavar="Q",
        help="JPEG quality, 1-100 (default 95)",
    )
    add_compression_option(p)
    _progress.add_option(p)
    p.set_defaults(run=_export)


def _fraction(text):
    value = float(text)
    if not 0 < value < 1:
        raise ValueError(text)
    return value


def _quality(text):
    value = int(text)
    if not 1 <= value <= 100:
        raise ValueError(text)
    return value


_fraction.__name__ = "fraction between 0 and 1"
_quality.__name__ = "quality from 1 to 100"  # argparse names the type in its message


# --- image headers ------------------------------------------------------------------------------

# A JPEG's number of components, as its colorspace's name.
_COLORSPACES = {1: "Grayscale", 3: "RGB", 4: "CMYK"}


def jpeg_info(data: Any) -> tuple[int, int, int] | None:
    """(width, height, channels) from a JPEG's frame header, without decoding (the native
    header reader's); None when data is not a JPEG whose size its header gives."""
    if image_codecs.image_format(data) != "jpeg":
        return None
    try:
        _, height, width, channels = image_codecs.read_shape(data)
    except errors.OpError:
        return None
    if not height or not width or not channels:
        return None
    return width, height, channels


# File name extensions by image_codecs.image_format.
_EXTENSIONS = {
    "jpeg": "jpg",
    "png": "png",
    "gif": "gif",
    "bmp": "bmp",
    "tiff": "tif",
    "webp": "webp",
}


def _extension(data, image_format):
    if image_format:
        ext = image_format.decode("ascii", "replace").lower()
        return "jpg" if ext == "jpeg" else ext
    return _EXTENSIONS.get(image_codecs.image_format(data), "bin")


def _pillow(what):
    try:
        from PIL import Image
    except ImportError:
        raise CommandError(
            f"Pillow is needed to read {what} (swigflow's codecs read JPEG and PNG): "
            "pip install Pillow"
        ) from None
    return Image


def decode_pixels(data: Any, channels: int) -> np.ndarray:
    """[height, width, channels] uint8 pixels of an encoded image: JPEG and PNG with swigflow's
    codecs, any other format Pillow reads. channels: 3 (RGB) or 0 (the image's own: 1 or 3,
    or 4 for PNG with alpha).

    Raises:
      ValueError: data is not an image that can be read (unknown or damaged format).
      CommandError: the format (GIF, BMP, TIFF, WebP) needs Pillow, which is not installed.
    """
    ext = _extension(data, None)
    if ext in ("jpg", "png"):
        try:
            if ext == "jpg":
                return image_codecs.decode_jpeg(data, channels=channels)
            return image_codecs.decode_png(data, channels=channels)
        except errors.OpError as e:
            raise ValueError(f"not a readable {ext.upper()} image ({e.message})") from None
    import io as bytes_io

    import numpy as np

    try:
        pil_image = _pillow(f"{ext.upper()} images")
    except CommandError:
        if ext != "bin":
            raise
        raise ValueError(
            "not a JPEG or PNG image (Pillow, which reads other formats, is not installed)"
        ) from None
    try:
        with pil_image.open(bytes_io.BytesIO(data)) as image:
            mode = "RGB"
            if channels == 0 and image.mode in ("1", "L", "I", "I;16"):
                mode = "L"
            elif channels == 0 and ("A" in image.mode or "transparency" in image.info):
                mode = "RGBA"
            image = image.convert(mode)
            return np.asarray(image).reshape(image.height, image.width, -1)
    except pil_image.UnidentifiedImageError:  # its message holds the address of our BytesIO
        raise ValueError("not an image Pillow can read (no format recognised)") from None
    except Exception as e:  # Pillow raises many kinds for damaged data
        raise ValueError(f"not an image Pillow can read ({type(e).__name__}: {e})") from None


def resize_pixels(pixels: Any, size: int) -> np.ndarray:
    """uint8 pixels resized to size = (width, height): bilinear, antialiased when shrinking (as
    Pillow's BILINEAR), rounded to nearest."""
    import numpy as np

    width, height = size
    resized = image_transforms.resize(pixels, (height, width), "bilinear", antialias=True)
    return np.clip(np.rint(resized), 0, 255).astype(np.uint8)


def _reencode(data, resize):
    """(jpeg bytes, width, height) of any readable image, as RGB JPEG (quality 95)."""
    pixels = decode_pixels(data, channels=3)
    if resize is not None:
        pixels = resize_pixels(pixels, resize)
    return image_codecs.encode_jpeg(pixels, quality=95), pixels.shape[1], pixels.shape[0]


def _read_image_file(path):
    """The bytes of a local file or URL; a missing or unreadable one raises OSError."""
    if not gfile.is_remote(path):
        with open(path, "rb") as f:
            return f.read()
    try:
        with gfile.GFile(path, "rb") as f:
            return f.read()
    except (errors.NotFoundError, errors.PermissionDeniedError) as e:
        raise OSError(e.message) from None


def image_example(path: PathOrFile, label: Any, text: str, resize: Any = None) -> bytes:
    """The serialized tf.train.Example build_imagenet_data writes for one image file.

    Raises:
      ValueError: the image cannot be read (unknown or damaged format).
      OSError: the file cannot be read.
    """
    data = _read_image_file(path)
    info = jpeg_info(data) if resize is None else None
    if info is not None:
        width, height, channels = info
        colorspace = _COLORSPACES.get(channels, f"{channels}-channel")
    else:
        data, width, height = _reencode(data, resize)
        channels, colorspace = 3, "RGB"
    features = {
        "image/height": (INT64, [height]),
        "image/width": (INT64, [width]),
        "image/colorspace": (BYTES, [colorspace.encode()]),
        "image/channels": (INT64, [channels]),
        "image/class/label": (INT64, [label]),
        "image/class/text": (BYTES, [text.encode("utf-8", "surrogateescape")]),
        "image/format": (BYTES, [b"JPEG"]),
        "image/filename": (BYTES, [os.fsencode(os.path.basename(path))]),
        "image/encoded": (BYTES, [data]),
    }
    return encode_example(features)


# --- build-image-dataset ------------------------------------------------------------------------


def _is(entry, kind):
    """entry.is_dir() / is_file(), False (reported) for an entry that cannot be followed: a
    symlink loop, a permission error."""
    try:
        return entry.is_dir() if kind == "dir" else entry.is_file()
    except OSError as e:
        print(f"skipped {entry.path}: {e.strerror}", file=sys.stderr)
        return False


def _entries(directory):
    """[(name, path or URL, is_directory)] of a folder, sorted by name, hidden names left out.
    Local entries that cannot be followed (symlink loops, permissions) are reported and left
    out; a URL's folder is listed in one request."""
    if gfile.is_remote(directory):
        return [
            (e.name, e.path, e.is_directory)
            for e in gfile.scandir(directory)
            if not e.name.startswith(".")
        ]
    entries = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        if _is(entry, "dir"):
            entries.append((entry.name, entry.path, True))
        elif _is(entry, "file"):
            entries.append((entry.name, entry.path, False))
    return entries


def _list_images(directory, classes=None):
    """[(path, class name)] of the files in each class subfolder, sorted; and the class names.
    Folders and files that cannot be read (symlink loops, permissions) are reported and
    skipped."""
    if not gfile.isdir(directory):
        raise CommandError(f"{directory}: not a directory")
    folders = [(name, path) for name, path, is_dir in _entries(directory) if is_dir]
    found = [name for name, _ in folders]
    if classes is None:
        classes = found
    else:
        unknown = sorted(set(found) - set(classes))
        if unknown:
            raise CommandError(
                f"{directory}: class folder(s) missing from the labels: {', '.join(unknown[:5])}"
            )
    images = []
    for name, folder in folders:
        try:
            entries = _entries(folder)
        except OSError as e:
            print(f"skipped {folder}: {e.strerror}", file=sys.stderr)
            continue
        images.extend((path, name) for _, path, is_dir in entries if not is_dir)
    return images, classes


def _read_labels(path):
    try:
        with gfile.GFile(path, "rb") as f:
            text = f.read().decode("utf-8")
        classes = [line.strip() for line in text.splitlines() if line.strip()]
    except UnicodeDecodeError as e:
        raise CommandError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if len(set(classes)) != len(classes):
        raise CommandError(f"{path}: a class is listed twice")
    return classes


def _split(images, fraction, rng):
    """(train, validation): `fraction` of each class (at least one image when the class has two
    or more), chosen at random."""
    by_class = collections.defaultdict(list)
    for item in images:
        by_class[item[1]].append(item)
    train, validation = [], []
    for name in sorted(by_class):
        items = by_class[name]
        rng.shuffle(items)
        k = round(len(items) * fraction)
        if len(items) >= 2:
            k = min(max(k, 1), len(items) - 1)
        validation.extend(items[:k])
        train.extend(items[k:])
    return train, validation


def _write_shard(path, items, labels, resize, compression, block, progress):
    """Writes one shard with its index, the shard last and atomically: locally a temporary file
    renamed at the end, at a URL an upload committed (or a temporary name moved) when complete.
    Returns {"per_class": {class name: records}, "skipped": [{"file", "reason"}]}."""
    per_class = collections.Counter()
    skipped = []
    with _shards.ShardWriter(path, compression, block) as writer:
        for image_path, name in items:
            try:
                record = image_example(image_path, labels[name], name, resize)
            except (OSError, ValueError) as e:
                skipped.append({"file": image_path, "reason": str(e)})
                progress.write(f"skipped {image_path}: {e}")
                progress.update()
                continue
            writer.write(record)
            per_class[name] += 1
            progress.update()
        writer.commit()
    return {"per_class": dict(per_class), "skipped": skipped}


def _write_shard_task(path, items, labels, resize, compression, block):
    """_write_shard in a Ray task: no progress bar, skipped images are in the result."""
    quiet = _progress.Progress(0, enabled=False, quiet=True)
    return _write_shard(path, items, labels, resize, compression, block, quiet)


def _plan_digest(args, splits, labels):
    plan = {
        "splits": {split: [p for p, _ in items] for split, (items, _) in splits.items()},
        "shards": {split: count for split, (_, count) in splits.items()},
        "labels": labels,
        "resize": args.resize,
        "compression": compression_of("", args.compression, sniff=False),
    }
    block = _block(args, plan["compression"])
    if block is not None:  # (absent otherwise: journals of earlier versions still match)
        plan["seek_block_size"] = block
    return _shards.digest(plan)


def _block(args, compression):
    """The GZIP members' size (--seek-block-size), None for one stream or no GZIP."""
    return args.seek_block_size if compression == "GZIP" else None


def _build(args):
    classes = _read_labels(args.labels_file) if args.labels_file else None
    train, classes = _list_images(args.train_directory, classes)
    rng = random.Random(args.seed)
    if args.validation_directory:
        validation, _ = _list_images(args.validation_directory, classes)
    elif args.validation_fraction:
        train, validation = _split(train, args.validation_fraction, rng)
    else:
        validation = []
    if not train:
        raise CommandError(f"{args.train_directory}: no images in class subfolders")
    labels = {name: i + args.label_base for i, name in enumerate(classes)}
    # Shuffled once, so that every shard mixes the classes (build_imagenet_data does the same).
    rng.shuffle(train)
    rng.shuffle(validation)
    splits = {"train": (train, args.train_shards)}
    if validation:
        splits["validation"] = (validation, args.validation_shards)
    for split, (items, shards) in splits.items():
        if shards > len(items):
            raise CommandError(f"{shards} {split} shards for {len(items)} images")

    gfile.makedirs(args.output_directory)
    compression = compression_of("", args.compression, sniff=False)
    journal = _shards.Journal(
        args.output_directory,
        _PLAN,
        _plan_digest(args, splits, labels),
        args.resume,
        lambda result: sum(result.get("per_class", {}).values()),
        what="the same images",
    )

    # Shard s of a split holds images [s*n/N, (s+1)*n/N): what a shard holds depends only on the
    # images, the options and the seed, never on who writes it (a thread or a Ray task).
    jobs = []
    for split, (items, shards) in splits.items():
        for s in range(shards):
            part = items[s * len(items) // shards : (s + 1) * len(items) // shards]
            jobs.append((split, _shards.shard_name(split, s, shards, compression), part))
    kept = len(journal.shards)
    todo = [
        (name, gfile.join(args.output_directory, name), part)
        for _, name, part in jobs
        if name not in journal.shards
    ]
    progress = _progress.Progress(
        sum(len(part) for _, _, part in todo), unit="img", enabled=_progress.enabled(args)
    )
    start = time.monotonic()
    try:
        run = _run_on_threads if args.ray is None else _run_on_ray
        run(args, todo, labels, compression, journal, progress)
    finally:
        progress.close()
    seconds = time.monotonic() - start

    manifest = _manifest(jobs, journal.shards, labels, args)
    _shards.write_atomically(
        gfile.join(args.output_directory, MANIFEST), json.dumps(manifest, indent=2)
    )
    skipped = sum(len(journal.shards[name]["skipped"]) for name, _, _ in todo)
    written = sum(len(part) for _, _, part in todo) - skipped
    rate = written / seconds if seconds > 0 else 0.0
    print(
        f"wrote {written:,} images to {len(todo)} shard(s) in {seconds:.1f} s "
        f"({rate:,.0f} images/s)"
        + (f"; kept {kept} complete shard(s)" if kept else "")
        + (f"; skipped {skipped} unreadable image(s)" if skipped else "")
    )
    return 0


def _run_on_threads(args, todo, labels, compression, journal, progress):
    """Thread t writes a contiguous run of the shards, as build_imagenet_data does."""
    failures = []
    threads = min(args.num_threads, max(len(todo), 1))

    def work(t):
        try:
            for name, path, part in todo[t * len(todo) // threads : (t + 1) * len(todo) // threads]:
                result = _write_shard(
                    path,
                    part,
                    labels,
                    args.resize,
                    compression,
                    _block(args, compression),
                    progress,
                )
                journal.finished(name, result)
        except BaseException as e:  # reported by the main thread
            failures.append(e)

    workers = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if failures:
        raise failures[0]


def _run_on_ray(args, todo, labels, compression, journal, progress):
    """One Ray task per shard, scheduled by Ray; this process keeps the journal as tasks
    finish, so --resume works as for a local run."""
    import swigflow.ray

    ray = swigflow.ray.import_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(
            address=args.ray or None,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    pending = {}
    try:
        if len(ray.nodes()) > 1 and not gfile.is_remote(args.output_directory):
            print(
                "note: a local --output-directory must be one shared file system on every node",
                file=sys.stderr,
            )
        task = ray.remote(num_cpus=1, max_retries=0)(_write_shard_task)
        for name, path, part in todo:
            ref = task.remote(
                path, part, labels, args.resize, compression, _block(args, compression)
            )
            pending[ref] = (name, path, part)
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            name, path, part = pending.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                cause = getattr(e, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise CommandError(f"{name}: the Ray task failed: {e}") from None
            if not gfile.exists(path):
                raise CommandError(
                    f"{path}: written by a Ray worker but not found here: every node must see "
                    "--output-directory (a shared file system, or a URL such as s3://...)"
                )
            for s in result["skipped"]:
                progress.write(f"skipped {s['file']}: {s['reason']}")
            progress.update(len(part))
            journal.finished(name, result)
    finally:
        for ref in pending:
            ray.cancel(ref)
        if started:
            ray.shutdown()


def _manifest(jobs, results, labels, args):
    splits = {}
    for split, name, _ in jobs:
        per_class = results[name]["per_class"]
        entry = splits.setdefault(split, {"records": 0, "shards": []})
        entry["shards"].append(
            {
                "file": name,
                "records": sum(per_class.values()),
                "per_class": dict(sorted(per_class.items())),
            }
        )
        entry["records"] += sum(per_class.values())
    classes = []
    for name, label in sorted(labels.items(), key=lambda item: item[1]):
        counts = {
            split: sum(s["per_class"].get(name, 0) for s in entry["shards"])
            for split, entry in splits.items()
        }
        classes.append({"label": label, "text": name, **counts})
    return {
        "created_by": f"swigflow {__version__}",
        "train_directory": _absolute(args.train_directory),
        "validation_directory": args.validation_directory and _absolute(args.validation_directory),
        "validation_fraction": args.validation_fraction,
        "seed": args.seed,
        "resize": args.resize,
        "classes": classes,
        "splits": splits,
        "skipped": sorted(
            (s for _, name, _ in jobs for s in results[name]["skipped"]), key=lambda s: s["file"]
        ),
    }


def _absolute(path):
    return path if gfile.is_remote(path) else os.path.abspath(path)


# --- export-images ------------------------------------------------------------------------------


def _bytes_value(features, key):
    """The first value of a bytes feature, or None (absent, empty, or of another kind)."""
    kind, values = features.get(key, (0, []))
    return values[0] if kind == BYTES and values else None


def _safe_name(raw):
    """A file name from a record's value: its last path component without NUL bytes, never '.',
    '..' or empty (records come from anywhere: they must not name a path outside the output
    folder)."""
    if raw is None:
        return None
    name = os.fsdecode(raw).replace("\\", "/").replace("\0", "")
    name = name.rsplit("/", 1)[-1]
    return None if name in ("", ".", "..") else name


def _safe_extension(raw):
    """image/format as an extension: letters and digits only (else None)."""
    if raw is None:
        return None
    ext = raw.decode("ascii", "replace").lower()
    if not (0 < len(ext) <= 10 and ext.isascii() and ext.isalnum()):
        return None
    return "jpg" if ext == "jpeg" else ext


class _OutputFolder:
    """OUT, with files written only inside it: every path is opened relative to OUT's directory
    descriptor, never following a symlink (one already in OUT, a class folder or a file, is
    replaced or refused, not followed out of OUT)."""

    def __init__(self, path):
        os.makedirs(path, exist_ok=True)
        self._fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        self._folders = {None: self._fd}

    def close(self):
        for fd in self._folders.values():
            os.close(fd)
        self._folders = {}

    def folder(self, name):
        """The descriptor of subfolder `name` (a safe single component), made if needed."""
        if name not in self._folders:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=self._fd)
            try:
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=self._fd)
            except OSError as e:
                raise CommandError(
                    f"{name!r} in the output directory is not a folder of its own (a symlink?): "
                    f"{e.strerror}"
                ) from None
            self._folders[name] = fd
        return self._folders[name]

    def write(self, folder, name, data):
        """Writes `name` in `folder` atomically: a new file, renamed over whatever was there
        (a symlink is replaced, never followed)."""
        fd = self._folders[folder]
        temp = f".{name}.{os.getpid()}.tmp"
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as f:
                f.write(data)
            os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            os.unlink(temp, dir_fd=fd)
            raise


class _UrlOutputFolder:
    """OUT as a URL (s3://, ...): each file written through gfile, whole or not at all. Names
    are single safe components, so no file lands outside OUT."""

    def __init__(self, url):
        gfile.makedirs(url)
        self._url = url

    def close(self):
        pass

    def folder(self, name):
        return name

    def write(self, folder, name, data):
        parts = (folder, name) if folder is not None else (name,)
        with gfile.GFile(gfile.join(self._url, *parts), "wb") as f:
            f.write(data)


def _export(args):
    if gfile.is_remote(args.output_directory):
        out = _UrlOutputFolder(args.output_directory)
    else:
        out = _OutputFolder(args.output_directory)
    try:
        with _progress.FileBytes(args.files, args, "export-images") as bar:
            written = _export_into(out, args, bar)
    finally:
        out.close()
    print(f"wrote {written:,} images to {args.output_directory}")
    return 0


def _export_into(out, args, bar):
    used = set()
    written = 0
    number = 0
    for path in args.files:
        compression = compression_of(path, args.compression)
        with io.TFRecordReader(path, compression) as reader:
            for payload in reader:
                bar.at(compression, reader.offset)
                number += 1
                features = decode_example(payload)
                data = _bytes_value(features, args.key)
                if data is None:
                    raise CommandError(
                        f"{path}: record {number - 1} has no bytes feature {args.key!r}"
                    )
                folder = _class_folder(features) if args.by_class else None
                if folder is not None:
                    out.folder(folder)
                ext = _safe_extension(_bytes_value(features, "image/format"))
                ext = ext or _extension(data, None)
                if args.resize is not None or args.format is not None:
                    data, ext = _convert(data, ext, args, f"{path}: record {number - 1}")
                name = _safe_name(_bytes_value(features, "image/filename"))
                if name is None:
                    name = f"{number - 1:08d}.{ext}"
                elif _safe_extension(os.fsencode(os.path.splitext(name)[1][1:])) != ext:
                    # e.g. a PNG stored re-encoded as JPEG: name the file for what it holds
                    name = f"{os.path.splitext(name)[0]}.{ext}"
                out.write(folder, _unique(folder, name, used), data)
                written += 1
        bar.file_done(path)
    return written


def _convert(data, ext, args, where):
    """(bytes, extension) of a stored image resized and re-encoded as --resize, --format and
    --quality ask; `where` names the record in errors."""
    target = args.format or ("jpeg" if ext in ("jpg", "jpeg") else "png")
    try:
        pixels = decode_pixels(data, channels=3 if target == "jpeg" else 0)
    except ValueError as e:
        raise CommandError(f"{where}: {e}") from None
    if args.resize is not None:
        pixels = resize_pixels(pixels, args.resize)
    if target == "jpeg":
        return image_codecs.encode_jpeg(pixels, quality=args.quality), "jpg"
    return image_codecs.encode_png(pixels), "png"


def _class_folder(features):
    name = _safe_name(_bytes_value(features, "image/class/text"))
    if name is not None:
        return name
    kind, values = features.get("image/class/label", (0, []))
    return str(values[0]) if kind == INT64 and values else "unlabeled"


def _unique(folder, name, used):
    """name, or name with -1, -2, ... before its extension when this run already wrote it in
    folder (two records may hold files of the same name). Files of earlier runs are replaced."""
    stem, ext = os.path.splitext(name)
    candidate, n = name, 0
    while (folder, candidate) in used:
        n += 1
        candidate = f"{stem}-{n}{ext}"
    used.add((folder, candidate))
    return candidate
