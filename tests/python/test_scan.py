"""swigflow.io.TFRecordScanner: every intact record of a damaged file, and where the damage is."""

import os

import pytest

import swigflow
from swigflow import errors

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
RECORDS = list(swigflow.io.tf_record_iterator(os.path.join(GOLDEN, "records.tfrecord")))


def scan(name, **kwargs):
    scanner = swigflow.io.TFRecordScanner(os.path.join(GOLDEN, name), **kwargs)
    return scanner, list(scanner)


@pytest.mark.parametrize(
    ("name", "compression"),
    [
        ("records.tfrecord", None),
        ("records.gzip.tfrecord", "GZIP"),
        ("records.zlib.tfrecord", "ZLIB"),
    ],
)
def test_intact_files_read_like_the_reader(name, compression):
    scanner, records = scan(name, options=compression)
    assert [payload for _, payload in records] == RECORDS
    assert scanner.damages == [] and scanner.records == len(RECORDS)
    with swigflow.io.TFRecordReader(os.path.join(GOLDEN, name), compression) as reader:
        offsets = []
        while reader.read_batch(1):
            offsets.append(reader.offset)
    assert [offset for offset, _ in records[1:]] == offsets[:-1]


def test_damage_is_collected_not_raised():
    path = os.path.join(GOLDEN, "bad_data_crc.tfrecord")
    with pytest.raises(errors.DataLossError) as raised:
        list(swigflow.io.tf_record_iterator(path))
    scanner, records = scan("bad_data_crc.tfrecord")
    assert [payload for _, payload in records] == RECORDS[:59]
    (damage,) = scanner.damages
    assert damage == swigflow.io.RecordDamage(
        path=path,
        record=59,
        offset=557053,
        resume=os.path.getsize(path),
        kind="data CRC mismatch",
        message=raised.value.message,
    )


def test_payloads_false_only_checks():
    scanner, records = scan("bad_length_crc.tfrecord", payloads=False)
    assert all(payload is None for _, payload in records)
    assert len(records) == 59 and scanner.damages[0].kind == "length CRC mismatch"


def test_missing_file():
    with pytest.raises(errors.NotFoundError):
        swigflow.io.TFRecordScanner(os.path.join(GOLDEN, "missing.tfrecord"))
