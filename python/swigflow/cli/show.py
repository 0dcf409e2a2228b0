"""``swigflow show``: a contact sheet of the images in TFRecord files, with their labels. A
quick look at what a dataset really holds catches wrong labels, black images and channel swaps.

Sheet geometry (what a reader of the PNG can rely on): cells of --cell x --cell pixels in a
grid of ROWSxCOLS, PAD pixels apart and from the edges; under each cell a label strip of
LABEL pixels when --label is given. An image is decoded natively (swigflow.image), scaled to
fit its cell with its aspect ratio kept (area-averaged, swigflow.image.resize's "area") and
centred; the rest of the cell is BACKGROUND grey. A record whose image does not decode gets a
red cell and its error on stderr. Pillow draws the label text (only needed with --label).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from swigflow import errors, image, io
from swigflow.cli import (
    CommandError,
    add_compression_option,
    compression_of,
    first_or_sample,
    one_line,
    positive_int,
)
from swigflow.io import gfile, schema

PAD = 4
LABEL = 14
BACKGROUND = 48
MAX_SHEET_PIXELS = 1 << 27  # 128 Mpixels, 384 MB of RGB: far beyond any screen
FAILED = (160, 0, 0)


def _grid(text):
    try:
        rows, cols = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS, got {text!r}") from None
    if rows < 1 or cols < 1 or rows * cols > 4096:
        raise argparse.ArgumentTypeError(f"a grid of 1 to 4,096 cells, got {text!r}")
    return rows, cols


def register(commands: Any) -> None:
    p = commands.add_parser(
        "show",
        help="draw a contact sheet (PNG) of the images in TFRecord files",
        description="Decodes the images of the first ROWSxCOLS records (or a random sample "
        "with --seed) and draws them in a grid, each with its label, into a PNG. FILE may also "
        "be the directory of a dataset TensorFlow Datasets prepared (see --split).",
    )
    p.add_argument("files", nargs="+", metavar="FILE|DIR")
    p.add_argument(
        "--key",
        help="the bytes feature holding the image (default: image/encoded; in a TFDS dataset, "
        "its first Image feature)",
    )
    p.add_argument(
        "--split",
        default="train",
        help="a TFDS dataset's split to draw, in TFDS's split language (default: train)",
    )
    p.add_argument("--grid", type=_grid, default=(8, 8), metavar="ROWSxCOLS", help="(8x8)")
    p.add_argument(
        "--label",
        metavar="KEY",
        help="a feature to print under each image (a TFDS dataset: its first ClassLabel, "
        "with the class names, unless named)",
    )
    p.add_argument("--cell", type=positive_int, default=128, metavar="PIXELS", help="(128)")
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="a uniform random sample of the records (reads them all) instead of the first",
    )
    p.add_argument("-o", "--output", required=True, metavar="SHEET.png")
    add_compression_option(p)
    p.set_defaults(run=_show)


def _records(args):
    for path in args.files:
        with io.TFRecordReader(path, compression_of(path, args.compression)) as reader:
            while batch := reader.read_batch(256):
                yield from batch


def _pick(args, n):
    """The records to draw: the first n, or a seeded reservoir sample of n."""
    return first_or_sample(_records(args), n, args.seed)


def _items(args, n):
    """(encoded image or the error that stands for it, label text) of the records to draw."""
    from swigflow.cli import datasets

    if len(args.files) == 1:
        builder = datasets.builder_at(args.files[0])
        if builder is not None:
            return datasets.sheet_examples(builder, args.split, args.key, args.label, n, args.seed)
    key = args.key or "image/encoded"
    items = []
    features = {}  # of the examples drawn: name -> kind
    for payload in _pick(args, n):
        example = schema.decode_example(payload)
        if example is None:
            items.append((errors.InvalidArgumentError("not a tf.train.Example"), "?"))
            continue
        features.update((k, kind) for k, kind, _ in schema.example_features(example))
        _, values = _value(example, key)
        encoded = values[0] if len(values) == 1 else None
        if encoded is None:
            encoded = errors.InvalidArgumentError(f"no single {key!r} value")
        items.append((encoded, label_text(example, args.label) if args.label else ""))
    if features and key not in features:  # a wrong --key: one error, not a sheet of them
        images = sorted(k for k, kind in features.items() if kind == "bytes")
        if images:
            raise CommandError(
                f"no feature {key!r} in the records; their bytes features: "
                f"{', '.join(images)} (pass one as --key)"
            )
        raise CommandError(
            f"no feature {key!r} in the records, and none holds bytes to draw; their "
            f"features: {', '.join(sorted(features))}"
        )
    return items


def _value(example, key):
    for k, kind, values in schema.example_features(example):
        if k == key:
            return kind, list(values)
    return None, []


def label_text(example: Any, key: str) -> str:
    kind, values = _value(example, key)
    if not values:
        return "-"
    if kind == "bytes":
        return one_line(",".join(v.decode("utf-8", "replace") for v in values))
    if kind == "float":
        return ",".join(f"{v:g}" for v in values)
    return ",".join(str(v) for v in values)


def fit(pixels: Any, cell: Any) -> tuple[Any, Any]:
    """`pixels` (HWC uint8, 3 channels) scaled to fit a cell x cell box with its aspect ratio,
    and the (top, left) where it goes in that box."""
    h, w = pixels.shape[:2]
    scale = min(cell / h, cell / w)
    height, width = max(1, min(cell, round(h * scale))), max(1, min(cell, round(w * scale)))
    if (height, width) != (h, w):
        resized = image.resize(pixels, (height, width), method="area")
        pixels = np.clip(np.rint(resized), 0, 255).astype(np.uint8)
    return pixels, ((cell - height) // 2, (cell - width) // 2)


def cell_origin(index: int, cols: Any, cell: Any, labelled: Any) -> tuple[int, int]:
    """(top, left) of cell `index`'s image box on the sheet."""
    row, col = divmod(index, cols)
    step_y = cell + (LABEL if labelled else 0) + PAD
    return PAD + row * step_y, PAD + col * (cell + PAD)


def _draw_labels(sheet, labels, cols, cell):
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise CommandError(
            "--label needs Pillow to draw text: pip install 'swigflow[cli]'"
        ) from None
    canvas = Image.fromarray(sheet)
    draw = ImageDraw.Draw(canvas)
    for i, text in enumerate(labels):
        top, left = cell_origin(i, cols, cell, True)
        width = draw.textlength(text)
        while text and width > cell:  # cut to the cell's width
            text = text[:-2] + "…" if len(text) > 2 else ""
            width = draw.textlength(text)
        draw.text((left + (cell - width) / 2, top + cell + 1), text, fill=(230, 230, 230))
    return np.asarray(canvas)


def _show(args):
    rows, cols = args.grid
    cell = args.cell
    height = PAD + rows * (cell + LABEL + PAD)  # the largest, with label strips
    width = PAD + cols * (cell + PAD)
    if height * width > MAX_SHEET_PIXELS:
        raise CommandError(
            f"a {rows}x{cols} sheet of {cell}-pixel cells would be {width}x{height} pixels, more "
            f"than {MAX_SHEET_PIXELS:,}: use a smaller --cell or --grid"
        )
    items = _items(args, rows * cols)
    if not items:
        raise CommandError("the files hold no records")
    labelled = args.label is not None or any(label for _, label in items)
    height = PAD + rows * (cell + (LABEL if labelled else 0) + PAD)
    sheet = np.full((height, width, 3), BACKGROUND // 2, dtype=np.uint8)
    labels = []
    failed = 0
    for i, (encoded, label) in enumerate(items):
        top, left = cell_origin(i, cols, cell, labelled)
        box = sheet[top : top + cell, left : left + cell]
        box[:] = BACKGROUND
        try:
            if isinstance(encoded, errors.OpError):
                raise encoded
            pixels = image.decode_image(encoded, channels=3)
        except errors.OpError as e:
            box[:] = FAILED
            failed += 1
            print(f"record {i}: {e.message}", file=sys.stderr)
        else:
            pixels, (y, x) = fit(pixels, cell)
            box[y : y + pixels.shape[0], x : x + pixels.shape[1]] = pixels
        labels.append(one_line(label))
    if labelled:
        sheet = _draw_labels(sheet, labels, cols, cell)
    with gfile.GFile(args.output, "wb") as f:
        f.write(image.encode_png(sheet))
    print(
        f"drew {len(items)} image(s) in a {rows}x{cols} grid to {args.output}"
        + (f"; {failed} did not decode" if failed else "")
    )
    return 0
