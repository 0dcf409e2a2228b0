"""swigflow.io TFRecordWriter / TFRecordReader / tf_record_iterator / TFRecordOptions."""

import gzip
import os
import pathlib
import random
import struct
import threading
import zlib

import numpy as np
import pytest
from gil import assert_releases_gil

import swigflow
from swigflow import errors
from swigflow.io import TFRecordOptions, TFRecordReader, TFRecordWriter, tf_record_iterator

COMPRESSIONS = [None, "ZLIB", "GZIP"]


def write(path, records, options=None):
    with TFRecordWriter(path, options) as writer:
        for r in records:
            writer.write(r)


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_round_trip_sizes(tmp_path, compression):
    rng = random.Random(0)
    records = [rng.randbytes(n) for n in (0, 1, 255, 256, 65535, 65536, 5 << 20, 3)]
    path = tmp_path / "r.tfrecord"
    write(path, records, compression)
    assert list(tf_record_iterator(path, compression)) == records


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_randomized_round_trips(tmp_path, compression):
    rng = random.Random(20261121)
    for trial in range(20):
        records = [
            rng.randbytes(rng.choice([0, 1, 10, 1000, 70000])) for _ in range(rng.randint(0, 50))
        ]
        path = tmp_path / f"t{trial}.tfrecord"
        write(path, records, compression)
        reader = TFRecordReader(path, compression)
        got = []
        while batch := reader.read_batch(rng.randint(1, 9), rng.choice([1, 100, 1 << 20])):
            got.extend(batch)
        assert got == records


def test_writer_accepts_bytes_like(tmp_path):
    path = tmp_path / "b.tfrecord"
    write(path, [b"ab", bytearray(b"cd"), memoryview(b"xefx")[1:3], np.frombuffer(b"gh", np.uint8)])
    assert list(tf_record_iterator(path)) == [b"ab", b"cd", b"ef", b"gh"]


def test_writer_rejects_non_bytes(tmp_path):
    with TFRecordWriter(tmp_path / "x.tfrecord") as writer:
        with pytest.raises(TypeError):
            writer.write("text must be encoded first")
        with pytest.raises(TypeError):
            writer.write(12)
        writer.write(b"ok")
    assert list(tf_record_iterator(tmp_path / "x.tfrecord")) == [b"ok"]


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_exception_in_with_block_leaves_whole_records(tmp_path, compression):
    path = tmp_path / "e.tfrecord"
    with pytest.raises(RuntimeError), TFRecordWriter(path, compression) as writer:
        for i in range(1000):
            writer.write(b"%d" % i * 100)
        raise RuntimeError("user code failed")
    assert list(tf_record_iterator(path, compression)) == [b"%d" % i * 100 for i in range(1000)]


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_write_after_close_raises(tmp_path, compression):
    writer = TFRecordWriter(tmp_path / "c.tfrecord", compression)
    writer.write(b"x")
    writer.close()
    writer.close()  # closing again is harmless
    with pytest.raises(errors.FailedPreconditionError, match="is closed"):
        writer.write(b"y")
    with pytest.raises(errors.FailedPreconditionError):
        writer.flush()
    assert "closed" in repr(writer)


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_flush_makes_records_visible(tmp_path, compression):
    path = tmp_path / "f.tfrecord"
    writer = TFRecordWriter(path, compression)
    writer.write(b"one")
    writer.write(b"two")
    writer.flush()
    assert list(tf_record_iterator(path, compression)) == [b"one", b"two"]
    writer.close()


def test_threads_share_a_writer_without_interleaving(tmp_path):
    path = tmp_path / "shared.tfrecord"
    with TFRecordWriter(path) as writer:

        def work(tag):
            for i in range(2000):
                writer.write(b"%c" % tag * (1 + i % 300))

        threads = [threading.Thread(target=work, args=(t,)) for t in b"abcd"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    records = list(tf_record_iterator(path))
    assert len(records) == 8000
    assert all(len(set(r)) == 1 for r in records)


def test_missing_file_and_directory(tmp_path):
    missing = tmp_path / "missing.tfrecord"
    with pytest.raises(errors.NotFoundError, match=r"missing\.tfrecord"):
        TFRecordReader(missing)
    with pytest.raises(errors.NotFoundError):
        list(tf_record_iterator(missing))
    with pytest.raises(errors.NotFoundError, match="no_dir"):
        TFRecordWriter(tmp_path / "no_dir" / "x.tfrecord")
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        TFRecordReader(tmp_path)


def test_paths_of_every_kind(tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9-\xff.tfrecord"  # not UTF-8
    write(name, [b"a"])
    assert list(tf_record_iterator(name)) == [b"a"]
    assert list(tf_record_iterator(os.fsdecode(name))) == [b"a"]
    write(tmp_path / "p.tfrecord", [b"b"])
    assert list(tf_record_iterator(str(tmp_path / "p.tfrecord"))) == [b"b"]


def test_damage_message_names_non_utf8_path(tmp_path):
    name = os.fsencode(tmp_path) + b"/bad\xff.tfrecord"
    write(name, [b"hello"])
    with open(name, "r+b") as f:
        data = bytearray(f.read())
        data[14] ^= 1
        f.seek(0)
        f.write(data)
    with pytest.raises(
        errors.DataLossError, match=r"corrupted record at 12 in .*bad\\xff\.tfrecord"
    ):
        list(tf_record_iterator(name))


def test_reader_batches_offsets_and_seek(tmp_path):
    records = [b"r%03d" % i * (i % 7) for i in range(100)]
    path = tmp_path / "s.tfrecord"
    write(path, records)
    reader = TFRecordReader(path)
    assert reader.offset == 0
    first = reader.read_batch(10)
    assert first == records[:10]
    offset_10 = reader.offset
    assert offset_10 == sum(16 + len(r) for r in records[:10])
    assert reader.read_batch(1000, max_bytes=1) == records[10:11]  # at least one record
    rest = list(reader)
    assert rest == records[11:]
    assert reader.read_batch(5) == []
    reader.seek(offset_10)
    assert reader.read_batch(2) == records[10:12]
    assert list(TFRecordReader(path, offset=offset_10)) == records[10:]
    with pytest.raises(ValueError):
        reader.read_batch(0)
    reader.close()
    with pytest.raises(errors.FailedPreconditionError, match="closed"):
        reader.read_batch(1)


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_seek_in_compressed_files(tmp_path, compression):
    records = [os.urandom(i * 10) for i in range(50)]
    path = tmp_path / "z.tfrecord"
    write(path, records, compression)
    reader = TFRecordReader(path, compression)
    reader.read_batch(30)
    offset_30 = reader.offset
    reader.read_batch(5)
    reader.seek(offset_30)  # backwards: decompresses from the start
    assert reader.read_batch(3) == records[30:33]
    with pytest.raises(errors.OutOfRangeError):
        reader.seek(10**9)


def test_concatenated_gzip_members(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, [b"one", b"two"], "GZIP")
    write(b, [b"three"], "GZIP")
    joined = tmp_path / "joined.tfrecord.gz"
    joined.write_bytes(a.read_bytes() + b.read_bytes())
    assert list(tf_record_iterator(joined, "GZIP")) == [b"one", b"two", b"three"]


def test_reads_gzip_written_by_python(tmp_path):
    plain = tmp_path / "plain.tfrecord"
    write(plain, [b"x" * 1000, b"", b"yz"])
    packed = tmp_path / "packed.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=1))
    assert list(tf_record_iterator(packed, "GZIP")) == [b"x" * 1000, b"", b"yz"]


def test_corrupt_compressed_stream(tmp_path):
    path = tmp_path / "c.tfrecord.gz"
    write(path, [os.urandom(50000)], "GZIP")
    data = bytearray(path.read_bytes())
    data[30:60] = os.urandom(30)
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match=r"c\.tfrecord\.gz"):
        list(tf_record_iterator(path, "GZIP"))


def test_reading_with_the_wrong_compression_fails_cleanly(tmp_path):
    path = tmp_path / "w.tfrecord"
    write(path, [b"data" * 100], "GZIP")
    with pytest.raises(errors.DataLossError):
        list(tf_record_iterator(path))  # gzip bytes read as framing
    plain = tmp_path / "p.tfrecord"
    write(plain, [b"data"])
    with pytest.raises(errors.DataLossError, match="GZIP"):
        list(tf_record_iterator(plain, "GZIP"))


# --- options ---------------------------------------------------------------------------------


def test_options_compression_names():
    get = TFRecordOptions.get_compression_type_string
    assert get(None) == ""
    assert get("") == ""
    assert get("GZIP") == "GZIP"
    assert get(swigflow.io.TFRecordCompressionType.ZLIB) == "ZLIB"
    assert get(TFRecordOptions("GZIP")) == "GZIP"
    assert TFRecordOptions.compression_type_map[2] == "GZIP"


@pytest.mark.parametrize("bad", ["gzip", "LZ4", "BZIP2", 7, True, 1.0])
def test_unknown_compression_is_an_error(bad, tmp_path):
    with pytest.raises(ValueError, match="unknown compression type"):
        TFRecordOptions(compression_type=bad)
    with pytest.raises(ValueError, match="unknown compression type"):
        TFRecordWriter(tmp_path / "x", bad)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("compression_level", 10, ValueError),
        ("compression_level", -2, ValueError),
        ("window_bits", 16, ValueError),
        ("mem_level", 0, ValueError),
        ("compression_strategy", 5, ValueError),
        ("compression_method", 9, ValueError),
        ("flush_mode", zlib.Z_FINISH, ValueError),
        ("input_buffer_size", 0, ValueError),
        ("compression_level", "9", TypeError),
    ],
)
def test_option_values_are_checked(field, value, error):
    with pytest.raises(error, match=field):
        TFRecordOptions("ZLIB", **{field: value})


@pytest.mark.parametrize("flush_mode", [zlib.Z_SYNC_FLUSH, zlib.Z_FULL_FLUSH, zlib.Z_PARTIAL_FLUSH])
def test_flush_mode_after_each_record(tmp_path, flush_mode):
    path = tmp_path / "f.tfrecord"
    options = TFRecordOptions("ZLIB", flush_mode=flush_mode)
    writer = TFRecordWriter(path, options)
    writer.write(b"first record")
    if flush_mode != zlib.Z_PARTIAL_FLUSH:
        # A full/sync flush after the record: its bytes are decodable before close.
        writer._writer.Flush()
        assert list(tf_record_iterator(path, "ZLIB")) == [b"first record"]
    writer.write(b"second")
    writer.close()
    assert list(tf_record_iterator(path, options)) == [b"first record", b"second"]


def test_compression_settings_take_effect(tmp_path):
    data = [bytes(range(256)) * 40 for _ in range(50)]
    sizes = {}
    for level in (0, 9):
        path = tmp_path / f"l{level}"
        write(
            path,
            data,
            TFRecordOptions("ZLIB", compression_level=level, window_bits=10, mem_level=1),
        )
        sizes[level] = path.stat().st_size
        assert list(tf_record_iterator(path, TFRecordOptions("ZLIB", window_bits=10))) == data
    assert sizes[0] > 10 * sizes[9]


def test_small_buffers_still_work(tmp_path):
    options = TFRecordOptions("GZIP", input_buffer_size=1, output_buffer_size=64)
    records = [os.urandom(n) for n in (0, 1, 100, 5000)]
    write(tmp_path / "s", records, options)
    assert list(tf_record_iterator(tmp_path / "s", options)) == records


# --- concurrency -----------------------------------------------------------------------------


def test_parallel_readers_on_different_files(tmp_path):
    paths = []
    for i in range(4):
        path = tmp_path / f"p{i}.tfrecord"
        write(path, [b"%d-%d" % (i, j) for j in range(5000)], COMPRESSIONS[i % 3])
        paths.append((path, COMPRESSIONS[i % 3]))
    results = {}

    def work(i):
        results[i] = list(tf_record_iterator(*paths[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert results[i] == [b"%d-%d" % (i, j) for j in range(5000)]


def test_reading_releases_the_gil(tmp_path):
    path = tmp_path / "big.tfrecord"
    write(path, [bytes(64 << 20)], "ZLIB")  # slow to decompress: a long native call
    reader = TFRecordReader(path, "ZLIB")
    (record,) = assert_releases_gil(lambda: reader.read_batch(1))
    assert len(record) == 64 << 20


# --- fuzzing through the binding ---------------------------------------------------------------


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_mutated_files_raise_only_data_loss(tmp_path, compression):
    rng = random.Random(7)
    source = tmp_path / "src"
    records = [rng.randbytes(rng.randint(0, 200)) for _ in range(30)]
    write(source, records, compression)
    good = source.read_bytes()
    path = tmp_path / "m"
    for _ in range(300):
        data = bytearray(good)
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        else:
            del data[rng.randrange(len(data)) :]
        path.write_bytes(bytes(data))
        got = []
        try:
            for record in tf_record_iterator(path, compression):
                got.append(record)
        except errors.DataLossError as e:
            assert str(path) in e.message
        assert len(got) <= len(records)


# --- large records: read straight into their bytes objects ---------------------------------------


def write_mixed(path, compression=None):
    """Small records between large ones (64 KiB and more take the one-copy path), written to
    path; returns them."""
    rng = np.random.default_rng(5)
    sizes = [10, 200_000, 65_536, 65_535, 3, 1 << 20, 0, 70_000, 70_000, 5]
    records = [rng.bytes(n) for n in sizes]
    write(path, records, compression)
    return records


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_large_compressed_records_inflate_straight_into_their_bytes(tmp_path, compression):
    path = str(tmp_path / "mixed.tfrecord")
    records = write_mixed(path, compression)
    assert list(swigflow.io.tf_record_iterator(path, compression)) == records
    reader = swigflow.io.TFRecordReader(path, compression)
    got = []
    while batch := reader.read_batch(3, max_bytes=100_000):
        got.extend(batch)
    assert got == records
    # A header claiming 32 MiB with 1,000 bytes behind it: allocated up front, then truncated.
    liar = str(tmp_path / "liar")
    header = struct.pack("<Q", 32 << 20)
    raw = header + struct.pack("<I", swigflow.io.masked_crc32c(header)) + b"x" * 1000
    wbits = 31 if compression == "GZIP" else 15
    compressor = zlib.compressobj(6, zlib.DEFLATED, wbits)
    pathlib.Path(liar).write_bytes(compressor.compress(raw) + compressor.flush())
    with pytest.raises(errors.DataLossError, match="truncated record at 0"):
        list(swigflow.io.tf_record_iterator(liar, compression))


def test_large_and_small_records_interleave_exactly(tmp_path):
    path = str(tmp_path / "mixed.tfrecord")
    records = write_mixed(path)
    assert list(swigflow.io.tf_record_iterator(path)) == records
    for n in (1, 2, 3, 1024):
        reader = swigflow.io.TFRecordReader(path)
        got = []
        while batch := reader.read_batch(n, max_bytes=100_000):
            assert all(type(r) is bytes for r in batch)
            assert 1 <= len(batch) <= n
            got.extend(batch)
        assert got == records
    # offsets stay right across the two paths, and seeking lands on large records too
    reader = swigflow.io.TFRecordReader(path)
    offsets = []
    while True:
        offsets.append(reader.offset)
        if not reader.read_batch(1):
            break
    for i in (1, 5, 7, 2):
        reader.seek(offsets[i])
        assert reader.read_batch(1) == [records[i]]


def test_damage_in_a_large_record_comes_after_the_records_before_it(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    records = write_mixed(path)
    data = bytearray(pathlib.Path(path).read_bytes())
    start = sum(16 + len(r) for r in records[:5])  # the 1 MiB record
    flipped = bytearray(data)
    flipped[start + 12 + 500_000] ^= 0x10
    pathlib.Path(path).write_bytes(bytes(flipped))
    reader = swigflow.io.TFRecordReader(path)
    assert reader.read_batch(1024) == records[:5]
    # TensorFlow's message names the payload's offset.
    with pytest.raises(swigflow.errors.DataLossError, match=f"corrupted record at {start + 12}"):
        reader.read_batch(1024)
    with pytest.raises(swigflow.errors.DataLossError):  # sticky
        reader.read_batch(1024)
    pathlib.Path(path).write_bytes(bytes(data[: start + 12 + 300_000]))  # cut inside it
    got = []
    with pytest.raises(swigflow.errors.DataLossError, match=f"truncated record at {start}"):
        for r in swigflow.io.tf_record_iterator(path):
            got.append(r)
    assert got == records[:5]


def test_zero_copy_batches(tmp_path):
    path = str(tmp_path / "mixed.tfrecord")
    records = write_mixed(path)
    reader = swigflow.io.TFRecordReader(path)
    first = reader.read_batch(4, copy=False)
    assert len(first) == 4 and [bytes(m) for m in first] == records[:4]
    assert bytes(first[-1]) == records[3] and not first.data.flags.writeable
    held = first[1]  # a view keeps the buffer: the next call must not overwrite it
    second = reader.read_batch(1024, copy=False)
    assert [bytes(m) for m in second] == records[4:]
    assert bytes(held) == records[1]
    del first, held
    end = reader.read_batch(1024, copy=False)
    assert not end and len(end) == 0
    # A buffer nobody holds is reused: same memory, new contents.
    reader = swigflow.io.TFRecordReader(path)
    a = reader.read_batch(2, copy=False)  # 200,010 bytes
    address = a.data.__array_interface__["data"][0]
    del a
    b = reader.read_batch(1, copy=False)  # 65,536 bytes: they fit in the same memory
    assert b.data.__array_interface__["data"][0] == address and bytes(b[0]) == records[2]
    with pytest.raises(IndexError):
        b[1]


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_any_window_bits_reads_back(tmp_path, compression):
    # tf_record_test.py: zlib raises window_bits 8 to 9 when deflating; readers must not use the
    # writer's value (TensorFlow ignores the zlib fields when reading).
    path = str(tmp_path / "w.tfrecord")
    records = [bytes([i]) * 1000 for i in range(20)]
    for bits in (8, 9, 12, 15) if compression == "ZLIB" else (9, 12, 15):  # zlib: no gzip at 8
        options = TFRecordOptions(compression, window_bits=bits)
        write(path, records, options)
        assert list(tf_record_iterator(path, options)) == records
        assert list(tf_record_iterator(path, TFRecordOptions(compression))) == records


def test_options_from_options():
    options = TFRecordOptions(TFRecordOptions("ZLIB", compression_level=3))
    assert options.compression_type == "ZLIB" and options.compression_level is None


def test_tf_record_iterator_follows_a_growing_file(tmp_path):
    # tf_record_test.py (testReadGrowingFile, testReadTruncatedFile): the same iterator returns
    # records appended after StopIteration, and a record once its writer finished it.
    path = str(tmp_path / "growing.tfrecord")
    writer = TFRecordWriter(path)
    writer.write(b"one")
    writer.flush()
    it = tf_record_iterator(path)
    assert next(it) == b"one"
    with pytest.raises(StopIteration):
        next(it)
    writer.write(b"two")
    writer.write(b"three")
    writer.flush()
    assert [next(it), next(it)] == [b"two", b"three"]
    with pytest.raises(StopIteration):
        next(it)
    writer.close()
    write(path, [b"four"])
    whole = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(whole[:-3])  # cut inside the record
    it = tf_record_iterator(path)
    with pytest.raises(errors.DataLossError, match="truncated record at 0"):
        next(it)
    with pytest.raises(errors.DataLossError, match="truncated record at 0"):
        next(it)  # raised again while it is still cut
    pathlib.Path(path).write_bytes(whole)  # the writer finished it
    assert next(it) == b"four"


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_a_compressed_file_read_as_uncompressed_says_which_compression(tmp_path, compression):
    path = str(tmp_path / "records")
    with swigflow.io.TFRecordWriter(path, compression) as w:
        for i in range(10):
            w.write(b"record %d" % i)
    hint = f"the file starts like {compression} data; pass compression_type='{compression}'"
    readers = [
        lambda: list(swigflow.io.tf_record_iterator(path)),
        lambda: list(swigflow.data.TFRecordDataset(path)),
        lambda: swigflow.io.create_index(path, compression_type=""),
        lambda: swigflow.io.TFRecordFile(path)[0],
        lambda: swigflow.io.tf_record_random_reader(path).read(0),
    ]
    for read in readers:
        with pytest.raises(errors.DataLossError, match="corrupted record at 0") as raised:
            read()
        assert hint in str(raised.value)
    # A damaged uncompressed file gets no such hint.
    with swigflow.io.TFRecordWriter(path) as w:
        w.write(b"x")
    with open(path, "r+b") as f:
        f.write(b"\xff")
    with pytest.raises(errors.DataLossError) as raised:
        list(swigflow.io.tf_record_iterator(path))
    assert "starts like" not in str(raised.value)
