"""tensorflow/python/lib/io/tf_record_test.py: every test method, swigflow.io for
tf_record (TFRecordWriter, TFRecordOptions, tf_record_iterator, tf_record_random_reader)."""

import gzip
import os
import random
import string
import zlib

import pytest

from swigflow import errors
from swigflow.io import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
    tf_record_random_reader,
)

# Edgar Allan Poe's 'Eldorado', as upstream.
TEXT = b"""Gaily bedight,
    A gallant knight,
    In sunshine and in shadow,
    Had journeyed long,
    Singing a song,
    In search of Eldorado.

    But he grew old
    This knight so bold
    And o'er his heart a shadow
    Fell as he found
    No spot of ground
    That looked like Eldorado.

   And, as his strength
   Failed him at length,
   He met a pilgrim shadow
   'Shadow,' said he,
   'Where can it be
   This land of Eldorado?'

   'Over the Mountains
    Of the Moon'
    Down the Valley of the Shadow,
    Ride, boldly ride,'
    The shade replied,
    'If you seek for Eldorado!'
    """

NUM_FILES = 2
NUM_RECORDS = 7


def record(f, r):
    return b"Record %d of file %d" % (r, f)


def write_records(tmp_path, records, name="tfrecord", options=None):
    fn = str(tmp_path / name)
    with TFRecordWriter(fn, options=options) as writer:
        for r in records:
            writer.write(r)
    return fn


def create_files(tmp_path, options=None, prefix=""):
    return [
        write_records(
            tmp_path,
            [record(i, j) for j in range(NUM_RECORDS)],
            prefix + f"tfrecord.{i}.txt",
            options,
        )
        for i in range(NUM_FILES)
    ]


def rewrite(tmp_path, infile, name, transform):
    with open(infile, "rb") as f:
        data = transform(f.read())
    fn = str(tmp_path / name)
    with open(fn, "wb") as f:
        f.write(data)
    return fn


def zlib_compress_file(tmp_path, infile, name="tfrecord.z"):
    return rewrite(tmp_path, infile, name, zlib.compress)


def gzip_compress_file(tmp_path, infile, name="tfrecord.gz"):
    fn = str(tmp_path / name)
    with open(infile, "rb") as f, gzip.GzipFile(fn, "wb") as g:
        g.write(f.read())
    return fn


def zlib_decompress_file(tmp_path, infile, name="tfrecord"):
    return rewrite(tmp_path, infile, name, zlib.decompress)


def gzip_decompress_file(tmp_path, infile, name="tfrecord"):
    return rewrite(tmp_path, infile, name, gzip.decompress)


def assert_files_equal(a, b, equal):
    for an, bn in zip(a, b):
        with open(an, "rb") as af, open(bn, "rb") as bf:
            assert (af.read() == bf.read()) is equal


# --- TFRecordWriterTest ----------------------------------------------------------------------


def test_write_read_zlib_files(tmp_path):
    """TFRecordWriterTest.testWriteReadZLibFiles: our ZLIB files are zlib.compress's bytes."""
    files = create_files(tmp_path, TFRecordOptions(TFRecordCompressionType.NONE), "uncompressed")
    zlib_files = [zlib_compress_file(tmp_path, fn, f"tfrecord_{i}.z") for i, fn in enumerate(files)]
    assert_files_equal(files, zlib_files, False)
    compressed = create_files(tmp_path, TFRecordOptions(TFRecordCompressionType.ZLIB), "compressed")
    assert_files_equal(compressed, zlib_files, True)
    uncompressed = [
        zlib_decompress_file(tmp_path, fn, f"tfrecord_{i}.z") for i, fn in enumerate(compressed)
    ]
    assert_files_equal(uncompressed, files, True)


def test_write_read_gzip_files(tmp_path):
    """TFRecordWriterTest.testWriteReadGzipFiles."""
    files = create_files(tmp_path, TFRecordOptions(TFRecordCompressionType.NONE), "uncompressed")
    gzip_files = [
        gzip_compress_file(tmp_path, fn, f"tfrecord_{i}.gz") for i, fn in enumerate(files)
    ]
    assert_files_equal(files, gzip_files, False)
    compressed = create_files(tmp_path, TFRecordOptions(TFRecordCompressionType.GZIP), "compressed")
    uncompressed = [
        gzip_decompress_file(tmp_path, fn, f"tfrecord_{i}.gz") for i, fn in enumerate(compressed)
    ]
    assert_files_equal(uncompressed, files, True)


def test_no_compression_type():
    """TFRecordWriterTest.testNoCompressionType."""
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions()) == ""
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions("")) == ""
    with pytest.raises(ValueError):
        TFRecordOptions(5)
    with pytest.raises(ValueError):
        TFRecordOptions("BZ2")


def test_zlib_compression_type():
    """TFRecordWriterTest.testZlibCompressionType."""
    zlib_t = TFRecordCompressionType.ZLIB
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions("ZLIB")) == "ZLIB"
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions(zlib_t)) == "ZLIB"
    assert (
        TFRecordOptions.get_compression_type_string(TFRecordOptions(TFRecordOptions(zlib_t)))
        == "ZLIB"
    )


def compression_size_delta(tmp_path, records, options_a, options_b):
    """TFRecordWriterTest._CompressionSizeDelta: both read back; size(a) - size(b)."""
    fn_a = write_records(tmp_path, records, "tfrecord_a", options=options_a)
    assert list(tf_record_iterator(fn_a, options=options_a)) == records
    fn_b = write_records(tmp_path, records, "tfrecord_b", options=options_b)
    assert list(tf_record_iterator(fn_b, options=options_b)) == records
    return os.path.getsize(fn_a) - os.path.getsize(fn_b)


@pytest.mark.parametrize(
    "prop,value,delta_sign",
    [
        ("compression_level", 2, -1),  # Lower compression is worse.
        ("compression_level", 6, 0),  # Default compression_level is equal.
        ("flush_mode", zlib.Z_FULL_FLUSH, 1),  # A few less bytes.
        ("flush_mode", zlib.Z_NO_FLUSH, 0),  # NO_FLUSH is the default.
        ("input_buffer_size", 4096, 0),  # Increases time not size.
        ("output_buffer_size", 4096, 0),  # Increases time not size.
        ("window_bits", 8, -1),  # Smaller than default window increases size.
        ("compression_strategy", zlib.Z_HUFFMAN_ONLY, -1),  # Worse.
        ("compression_strategy", zlib.Z_FILTERED, -1),  # Worse.
    ],
)
def test_compression_options(tmp_path, prop, value, delta_sign):
    """TFRecordWriterTest.testCompressionOptions (one case per parameter)."""
    rnd = random.Random(123)
    random_record = "".join(rnd.choice(string.digits) for _ in range(10000)).encode()
    repeated_record = TEXT
    for _ in range(10000):
        start_i = rnd.randint(0, len(TEXT))
        length = rnd.randint(10, 200)
        repeated_record += TEXT[start_i : start_i + length]
    records = [random_record, repeated_record, random_record]
    compression_type = TFRecordCompressionType.ZLIB
    options_a = TFRecordOptions(compression_type)
    options_b = TFRecordOptions(compression_type=compression_type, **{prop: value})
    delta = compression_size_delta(tmp_path, records, options_a, options_b)
    assert delta == 0 if delta_sign == 0 else delta // delta_sign > 0, (prop, value, delta)


# --- TFRecordWriterZlibTest ------------------------------------------------------------------


def test_zlib_flush_record(tmp_path):
    """TFRecordWriterZlibTest.testZLibFlushRecord: more blocks and trailing blocks read."""
    original = [b"small record"]
    fn = write_records(tmp_path, original, "small_record")
    with open(fn, "rb") as h:
        buff = h.read()
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS)
    output = b""
    for c in buff:
        output += compressor.compress(bytes([c]))
        output += compressor.flush(zlib.Z_FULL_FLUSH)
    output += compressor.flush(zlib.Z_FULL_FLUSH)
    output += compressor.flush(zlib.Z_FULL_FLUSH)
    output += compressor.flush(zlib.Z_FINISH)
    with open(fn, "wb") as h:
        h.write(output)
    options = TFRecordOptions(TFRecordCompressionType.ZLIB)
    assert list(tf_record_iterator(fn, options=options)) == original


@pytest.mark.parametrize(
    "large", [False, True], ids=["testZlibReadWrite", "testZlibReadWriteLarge"]
)
def test_zlib_read_write(tmp_path, large):
    """TFRecordWriterZlibTest.testZlibReadWrite, testZlibReadWriteLarge (about 5 MB)."""
    original = [TEXT * 10240] if large else [b"foo", b"bar"]
    fn = write_records(tmp_path, original, "zlib_read_write.tfrecord")
    zfn = zlib_compress_file(tmp_path, fn, "zlib_read_write.tfrecord.z")
    options = TFRecordOptions(TFRecordCompressionType.ZLIB)
    assert list(tf_record_iterator(zfn, options=options)) == original


def test_gzip_read_write(tmp_path):
    """TFRecordWriterZlibTest.testGzipReadWrite."""
    original = [b"foo", b"bar"]
    fn = write_records(tmp_path, original, "gzip_read_write.tfrecord")
    gzfn = gzip_compress_file(tmp_path, fn, "tfrecord.gz")
    options = TFRecordOptions(TFRecordCompressionType.GZIP)
    assert list(tf_record_iterator(gzfn, options=options)) == original


# --- TFRecordIteratorTest --------------------------------------------------------------------


def test_iterator(tmp_path):
    """TFRecordIteratorTest.testIterator."""
    records = [record(0, i) for i in range(NUM_RECORDS)]
    options = TFRecordOptions(TFRecordCompressionType.ZLIB)
    fn = write_records(tmp_path, records, "compressed_records", options)
    reader = tf_record_iterator(fn, options)
    for expected in records:
        assert next(reader) == expected
    with pytest.raises(StopIteration):
        next(reader)


@pytest.mark.parametrize(
    "large", [False, True], ids=["testWriteZlibRead", "testWriteZlibReadLarge"]
)
def test_write_zlib_read(tmp_path, large):
    """TFRecordIteratorTest.testWriteZlibRead, testWriteZlibReadLarge."""
    original = [TEXT * 10240] if large else [b"foo", b"bar"]
    options = TFRecordOptions(TFRecordCompressionType.ZLIB)
    fn = write_records(tmp_path, original, "write_zlib_read.tfrecord.z", options)
    zfn = zlib_decompress_file(tmp_path, fn, "write_zlib_read.tfrecord")
    assert list(tf_record_iterator(zfn)) == original


def test_write_gzip_read(tmp_path):
    """TFRecordIteratorTest.testWriteGzipRead."""
    original = [b"foo", b"bar"]
    options = TFRecordOptions(TFRecordCompressionType.GZIP)
    fn = write_records(tmp_path, original, "write_gzip_read.tfrecord.gz", options)
    gzfn = gzip_decompress_file(tmp_path, fn, "write_gzip_read.tfrecord")
    assert list(tf_record_iterator(gzfn)) == original


def test_read_growing_file_preserves_read_offset(tmp_path):
    """TFRecordIteratorTest.testReadGrowingFile_preservesReadOffset."""
    fn = str(tmp_path / "file.tfrecord")
    with TFRecordWriter(fn) as writer:
        writer.write(b"one")
        writer.write(b"two")
        writer.flush()
        iterator = tf_record_iterator(fn)
        assert next(iterator) == b"one"
        assert next(iterator) == b"two"
        for _ in range(2):
            with pytest.raises(StopIteration):
                next(iterator)
        writer.write(b"three")
        writer.flush()
        assert next(iterator) == b"three"
        with pytest.raises(StopIteration):
            next(iterator)


def test_read_truncated_file_preserves_read_offset(tmp_path):
    """TFRecordIteratorTest.testReadTruncatedFile_preservesReadOffset."""
    fn = str(tmp_path / "temp_file")
    with TFRecordWriter(fn) as writer:
        writer.write(b"truncated")
    with open(fn, "rb") as f:
        record_bytes = f.read()
    fn_truncated = str(tmp_path / "truncated_file")
    with TFRecordWriter(fn_truncated) as writer:
        writer.write(b"good")
    with open(fn_truncated, "ab", buffering=0) as f:
        f.write(record_bytes[:-1])
        iterator = tf_record_iterator(fn_truncated)
        assert next(iterator) == b"good"
        for _ in range(2):
            with pytest.raises(errors.DataLossError):
                next(iterator)
        f.write(record_bytes[-1:])
        assert next(iterator) == b"truncated"
        with pytest.raises(StopIteration):
            next(iterator)


def test_bad_file(tmp_path):
    """TFRecordIteratorTest.testBadFile (the older upstream version's)."""
    fn = str(tmp_path / "bad_file")
    with TFRecordWriter(fn) as writer:
        writer.write(b"123")
    fn_truncated = str(tmp_path / "bad_file_truncated")
    with open(fn, "rb") as f, open(fn_truncated, "wb") as f2:
        f2.write(f.read(14))
    with pytest.raises(errors.DataLossError):
        for _ in tf_record_iterator(fn_truncated):
            pass


# --- TFRecordRandomReaderTest ----------------------------------------------------------------


def test_random_reader_reading_works(tmp_path):
    """TFRecordRandomReaderTest.testRandomReaderReadingWorks."""
    records = [record(0, i) for i in range(NUM_RECORDS)]
    reader = tf_record_random_reader(write_records(tmp_path, records, "uncompressed_records"))
    offset = 0
    offsets = [offset]
    for i in range(NUM_RECORDS):
        got, offset = reader.read(offset)
        assert got == records[i]
        offsets.append(offset)
    with pytest.raises(IndexError, match=r"Out of range.*offset"):
        reader.read(offset)
    for i in range(NUM_RECORDS - 1, 0, -1):
        got, offset = reader.read(offsets[i])
        assert offset == offsets[i + 1]
        assert got == records[i]


def test_random_reader_throws_error_for_invalid_offset(tmp_path):
    """TFRecordRandomReaderTest.testRandomReaderThrowsErrorForInvalidOffset."""
    records = [record(0, i) for i in range(NUM_RECORDS)]
    reader = tf_record_random_reader(write_records(tmp_path, records, "uncompressed_records"))
    with pytest.raises(errors.DataLossError, match=r"corrupted record"):
        reader.read(1)


def test_closing_random_reader_causes_errors_for_further_reading(tmp_path):
    """TFRecordRandomReaderTest.testClosingRandomReaderCausesErrorsForFurtherReading."""
    records = [record(0, i) for i in range(NUM_RECORDS)]
    reader = tf_record_random_reader(write_records(tmp_path, records, "uncompressed_records"))
    reader.close()
    with pytest.raises(errors.FailedPreconditionError, match=r"closed"):
        reader.read(0)


# --- TFRecordWriterCloseAndFlushTests (NONE, GZIP, ZLIB) --------------------------------------

COMPRESSIONS = [TFRecordCompressionType.NONE, TFRecordCompressionType.GZIP,
                TFRecordCompressionType.ZLIB]  # fmt: skip
NAMES = ["TFRecordWriterCloseAndFlushTests", "TFRecordWriterCloseAndFlushGzipTests",
         "TFRecordWriterCloseAndFlushZlibTests"]  # fmt: skip


@pytest.fixture(params=COMPRESSIONS, ids=NAMES)
def writer_setup(tmp_path, request):
    fn = str(tmp_path / "tf_record_writer_test.txt")
    options = TFRecordOptions(request.param)
    return fn, options, TFRecordWriter(fn, options)


def close_record(r):
    return b"Record %d" % r


def test_write_and_leave_open(writer_setup):
    """testWriteAndLeaveOpen: no crash when the writer is never closed."""
    _, _, writer = writer_setup
    for r in range(20):
        writer.write(close_record(r))


def test_write_and_read(writer_setup):
    """testWriteAndRead."""
    fn, options, writer = writer_setup
    records = [close_record(r) for r in range(20)]
    for r in records:
        writer.write(r)
    writer.close()
    assert list(tf_record_iterator(fn, options)) == records


def test_double_close(writer_setup):
    """testDoubleClose."""
    _, _, writer = writer_setup
    writer.write(close_record(0))
    writer.close()
    writer.close()


def test_flush_after_close_is_error(writer_setup):
    """testFlushAfterCloseIsError."""
    _, _, writer = writer_setup
    writer.write(close_record(0))
    writer.close()
    with pytest.raises(errors.FailedPreconditionError):
        writer.flush()


def test_write_after_close_is_error(writer_setup):
    """testWriteAfterCloseIsError."""
    _, _, writer = writer_setup
    writer.write(close_record(0))
    writer.close()
    with pytest.raises(errors.FailedPreconditionError):
        writer.write(close_record(1))
