"""``swigflow inspect | cat | count | index | verify | repair``: looking into TFRecord files."""

from __future__ import annotations

import base64
import json
import math
import os
import struct
import sys
from typing import Any

from google.protobuf import json_format

from swigflow import errors, io
from swigflow.cli import CommandError, add_compression_option, compression_of, positive_int
from swigflow.cli import progress as _progress
from swigflow.io import gfile, schema
from swigflow.io.index import (
    checked_default_index,
    checked_default_seek_index,
    scan_records,
    seek_index_records,
)


def register(commands: Any) -> None:
    p = commands.add_parser(
        "inspect",
        help="infer the schema of tf.train.Example records, or describe a TFDS dataset",
        description="Reads every record (or the first --max-records) and infers the schema: "
        "keys, kinds, how many records have each key, values per record (min-max), an example "
        "value, and a parse_example spec that fits. Given a directory of a dataset that "
        "TensorFlow Datasets prepared (.../name[/config]/version, or its newest version under "
        ".../name), prints its splits, shard counts and feature tree instead.",
    )
    p.add_argument("files", nargs="+", metavar="FILE|DIR")
    p.add_argument("--max-records", type=positive_int, help="stop after this many records")
    p.add_argument("--json", action="store_true", help="print the schema as JSON")
    add_compression_option(p)
    p.set_defaults(run=_inspect)

    p = commands.add_parser(
        "cat",
        help="print records",
        description="Prints tf.train.Example records, as readable text (long or binary bytes "
        "values abbreviated and escaped) or, with --json, one JSON object per line in "
        "protobuf's JSON mapping (bytes in base64, int64 as strings: exact).",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("-n", type=positive_int, dest="count", help="print only the first N records")
    p.add_argument("--json", action="store_true", help="JSON lines, exact")
    add_compression_option(p)
    p.set_defaults(run=_cat)

    p = commands.add_parser(
        "count",
        help="count records",
        description="Counts the records of each file, from its index file (FILE.idx) when that "
        "exists and matches the file, else by reading the file's framing.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    add_compression_option(p)
    _progress.add_option(p)
    p.set_defaults(run=_count)

    p = commands.add_parser(
        "index",
        help="write index files (FILE.idx)",
        description="Writes FILE.idx for each file. An uncompressed file's index has one "
        "'<offset> <length>' line per record, the format DALI and the tfrecord package read; a "
        "GZIP or ZLIB file's is a seek index, so TFRecordFile, TFRecordDataSource and "
        "global_shuffle read any record without inflating the file from its start.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    add_compression_option(p)
    _progress.add_option(p)
    p.set_defaults(run=_index)

    p = commands.add_parser(
        "verify",
        help="check every CRC; exit status 1 when anything is damaged",
        description="Checks every header and payload CRC of each file and prints each damaged "
        "stretch: file, record number, offset and kind. Reading goes on past damage.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="print only damage")
    add_compression_option(p)
    _progress.add_option(p)
    p.set_defaults(run=_verify)

    p = commands.add_parser(
        "repair",
        help="copy every intact record to a new file",
        description="Copies every intact record of FILE to FIXED, in order, and reports what "
        "was dropped. FILE is not changed.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--output", "-o", required=True, metavar="FIXED")
    add_compression_option(p, "FILE")
    add_compression_option(
        p,
        "FIXED",
        flag="--output-compression",
        default="from its name when it ends in .gz / .zlib / .zz, else that of FILE",
    )
    _progress.add_option(p)
    p.set_defaults(run=_repair)


# --- reading ------------------------------------------------------------------------------------


def _records(path, args, limit=None):
    """Yields (number, payload) of the records of path; damage raises DataLossError."""
    options = compression_of(path, args.compression)
    with io.TFRecordReader(path, options) as reader:
        number = 0
        while limit is None or number < limit:
            batch = reader.read_batch(1024 if limit is None else min(1024, limit - number))
            if not batch:
                return
            for payload in batch:
                yield number, payload
                number += 1


# --- showing values safely ----------------------------------------------------------------------

_SHOW_BYTES = 48  # longer values are abbreviated in text output


def _show_bytes(value):
    """Printable text as a quoted string; anything else escaped, long values cut with their size."""
    head = value[:_SHOW_BYTES]
    try:
        text = head.decode("utf-8")
        shown = json.dumps(text, ensure_ascii=False) if text.isprintable() else None
    except UnicodeDecodeError:  # a cut through a multibyte character lands here too
        shown = None
    if shown is None:
        shown = (
            '"'
            + "".join(
                chr(b) if 32 <= b < 127 and b != 34 and b != 92 else f"\\x{b:02x}" for b in head
            )
            + '"'
        )
    if len(value) > _SHOW_BYTES:
        shown += f"... ({len(value):,} bytes)"
    return shown


def _show_float(value):
    return (
        repr(struct.unpack("<f", struct.pack("<f", value))[0])
        if math.isfinite(value)
        else str(value)
    )


def _show_values(kind, values, limit=None):
    shown = values if limit is None else values[:limit]
    if kind == "bytes":
        text = [_show_bytes(v) for v in shown]
    elif kind == "float":
        text = [_show_float(v) for v in shown]
    else:
        text = [str(v) for v in shown]
    if limit is not None and len(values) > limit:
        text.append(f"... {len(values):,} values")
    return "[" + ", ".join(text) + "]"


# --- commands -----------------------------------------------------------------------------------


def _cat(args):
    out = sys.stdout
    for number, payload in _records(args.file, args, args.count):
        example = schema.decode_example(payload)
        if args.json:
            if example is None:
                line = {"_record": number, "_not_an_example": base64.b64encode(payload).decode()}
            else:  # protobuf's JSON mapping: bytes in base64, int64 as strings, exact floats
                line = json_format.MessageToDict(example)
            out.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
            continue
        if example is None:
            out.write(f"record {number}: not a tf.train.Example: {_show_bytes(payload)}\n")
            continue
        out.write(f"record {number}:\n")
        for key, kind, values in schema.example_features(example):
            out.write(f"  {key}: {kind or '(no kind)'} {_show_values(kind, values, 16)}\n")
    return 0


def _spec_text(stats, records):
    feature = stats.feature(records)
    return stats.why_none() if feature is None else schema.spec_source(feature)


def _inspect(args):
    from swigflow.cli import datasets

    if len(args.files) == 1:
        builder = datasets.builder_at(args.files[0])
        if builder is not None:
            return datasets.inspect(builder, args.json)
    scan = schema.SchemaScan()
    for path in args.files:
        limit = None if args.max_records is None else args.max_records - scan.records
        if limit == 0:
            break
        for _, payload in _records(path, args, limit):
            scan.add(payload)
    records, not_examples = scan.records, scan.not_examples
    found = {
        key: {
            "kinds": s.kinds,
            "present": s.present,
            "min_values": s.min_values,
            "max_values": s.max_values,
            "example": None if s.example is None else _show_values(*s.example),
            "spec": _spec_text(s, records),
        }
        for key, s in sorted(scan.stats.items())
    }
    if args.json:
        print(
            json.dumps(
                {
                    "files": args.files,
                    "records": records,
                    "not_examples": not_examples,
                    "features": found,
                    # what `profile --spec` and Dataset.parse take (swigflow.io.spec_from_json)
                    "spec": schema.spec_to_json(scan.features()),
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{records:,} records in {len(args.files)} file(s)"
        + (f", {not_examples:,} of them not tf.train.Example" if not_examples else "")
    )
    if not found:
        return 0
    rows = [("key", "kind", "present", "values", "example", "spec")]
    for key, s in found.items():
        kinds = "/".join(sorted(s["kinds"]))
        count = (
            f"{s['min_values']}"
            if s["min_values"] == s["max_values"]
            else f"{s['min_values']}-{s['max_values']}"
        )
        example = s["example"] or ""
        if len(example) > 40:
            example = example[:37] + "..."
        rows.append((key, kinds, f"{s['present']:,}", count, example, s["spec"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    return 0


def _count_with_index(path, compression=""):
    """The record count from path's index file (a compressed file's seek index), or None if it
    has none or it is stale."""
    if compression:
        found = checked_default_seek_index(path, compression)
        return None if found is None else len(seek_index_records(found, path)[0])
    found = checked_default_index(path)
    return None if found is None else len(found[0])


def _count(args):
    with _progress.FileBytes(args.files, args, "count") as bar:
        return _count_files(args, bar)


def _count_files(args, bar):
    total = 0
    for path in args.files:
        compression = compression_of(path, args.compression)
        n = _count_with_index(path, compression)
        if n is None and not compression:
            n = len(scan_records(path)[0])  # headers only, in C++
        elif n is None:
            scanner = io.TFRecordScanner(path, compression, payloads=False)
            n = sum(1 for _ in scanner)
            if scanner.damages:  # as ScanRecordIndex raises for an uncompressed file
                raise errors.DataLossError(scanner.damages[0].message)
        total += n
        bar.file_done(path)
        bar.write(f"{n:>12,}  {path}")
    if len(args.files) > 1:
        bar.write(f"{total:>12,}  total")
    return 0


def _index(args):
    with _progress.FileBytes(args.files, args, "index") as bar:
        for path in args.files:
            # A compressed file gets a seek index (swigflow.io.create_index).
            n = io.create_index(path, compression_type=compression_of(path, args.compression))
            bar.file_done(path)
            bar.write(f"{n:>12,}  {io.default_index_path(path)}")
    return 0


def _lost(damages):
    return sum(d.resume - d.offset for d in damages)


def _damage_line(d):
    return f"{d.path}: record {d.record} at offset {d.offset}: {d.kind} ({d.message})"


def _scan(scanner, compression, bar):
    """The records of `scanner`, moving the bar every _BAR_STEP records."""
    for i, (offset, payload) in enumerate(scanner):
        if i % _BAR_STEP == 0:
            bar.at(compression, offset)
        yield offset, payload


_BAR_STEP = 4096


def _verify(args):
    with _progress.FileBytes(args.files, args, "verify") as bar:
        return _verify_files(args, bar)


def _verify_files(args, bar):
    damaged = 0
    for path in args.files:
        compression = compression_of(path, args.compression)
        scanner = io.TFRecordScanner(path, compression, payloads=False)
        for _ in _scan(scanner, compression, bar):
            pass
        bar.file_done(path)
        for d in scanner.damages:
            bar.write(_damage_line(d))
        if scanner.damages:
            damaged += 1
            bar.write(
                f"{path}: DAMAGED: {scanner.records:,} intact records, "
                f"{len(scanner.damages)} damaged stretch(es), {_lost(scanner.damages):,} bytes lost"
            )
        elif not args.quiet:
            bar.write(f"{path}: OK: {scanner.records:,} records")
    if len(args.files) > 1 and not args.quiet:
        bar.write(f"{damaged} of {len(args.files)} files damaged")
    return 1 if damaged else 0


def _repair(args):
    local = gfile.local_path(args.output)
    if local is None:
        if args.output == args.file:
            raise CommandError("--output must be a new file, not FILE itself")
    elif os.path.exists(local):
        source = gfile.local_path(args.file)
        if source is not None and os.path.exists(source) and os.path.samefile(source, local):
            raise CommandError("--output must be a new file, not FILE itself")
        if not os.path.isfile(local):
            # The repaired file is renamed into place: that would replace a device or FIFO.
            raise CommandError(f"--output {args.output} exists and is not a regular file")
    compression = compression_of(args.file, args.compression)
    if args.output_compression is not None or compression_of(args.output, None, sniff=False):
        out_compression = compression_of(args.output, args.output_compression, sniff=False)
    else:
        out_compression = compression
    scanner = io.TFRecordScanner(args.file, compression)
    with _progress.FileBytes([args.file], args, "repair") as bar:
        records = _scan(scanner, compression, bar)
        if local is None:  # a URL's writer commits the file only when it closes without error
            with io.TFRecordWriter(args.output, out_compression) as writer:
                for _, payload in records:
                    writer.write(payload)
        else:  # a temporary file, so that an existing FIXED stays until the new one is whole
            temp = f"{local}.tmp-{os.getpid()}"
            try:
                with io.TFRecordWriter(temp, out_compression) as writer:
                    for _, payload in records:
                        writer.write(payload)
                os.replace(temp, local)
            finally:
                if os.path.exists(temp):
                    os.unlink(temp)
        bar.file_done(args.file)
    for d in scanner.damages:
        print(f"dropped: {d.path}: record {d.record}, bytes {d.offset}-{d.resume}: {d.kind}")
    print(
        f"wrote {scanner.records:,} records to {args.output}; dropped "
        f"{len(scanner.damages)} damaged stretch(es), {_lost(scanner.damages):,} bytes"
    )
    return 0
