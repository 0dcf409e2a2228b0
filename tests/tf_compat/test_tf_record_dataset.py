"""tensorflow/python/data/kernel_tests/tf_record_dataset_test.py: TFRecordDatasetTest (every
method) and TFRecordDatasetCheckpointTest (as iterator states)."""

import gzip
import pathlib
import zlib

import pytest
from tf_test_util import as_py, verify_checkpoints

from swigflow.data import Dataset, TFRecordDataset
from swigflow.io import TFRecordWriter

NUM_FILES = 2
NUM_RECORDS = 7


def record(f, r):
    """tf_record_test_base's _record."""
    return b"Record %d of file %d" % (r, f)


@pytest.fixture
def filenames(tmp_path):
    """tf_record_test_base's _createFiles."""
    names = []
    for i in range(NUM_FILES):
        fn = str(tmp_path / f"tf_record.{i}.txt")
        with TFRecordWriter(fn) as writer:
            for j in range(NUM_RECORDS):
                writer.write(record(i, j))
        names.append(fn)
    return names


def all_records():
    return [record(j, i) for j in range(NUM_FILES) for i in range(NUM_RECORDS)]


def dataset_factory(filenames, compression_type="", num_epochs=1, batch_size=None):
    dataset = TFRecordDataset(filenames, compression_type).repeat(num_epochs)
    return dataset.batch(batch_size) if batch_size else dataset


def compressed(tmp_path, filenames, compression_type):
    out = []
    for i, fn in enumerate(filenames):
        with open(fn, "rb") as f:
            data = f.read()
        if compression_type == "ZLIB":
            name = tmp_path / f"tfrecord_{i}.z"
            name.write_bytes(zlib.compress(data))
        else:
            name = tmp_path / f"tfrecord_{i}.gz"
            with gzip.GzipFile(name, "wb") as gzf:
                gzf.write(data)
        out.append(str(name))
    return out


def test_constructor_errors_tensor_input():
    """TFRecordDatasetTest.testConstructorErrorsTensorInput."""
    message = "The `filenames` argument must contain `tf.string` elements. Got `tf.int32` elements."
    with pytest.raises(TypeError, match=message):
        TFRecordDataset([1, 2, 3])
    with pytest.raises(Exception):  # noqa: B017 (upstream: any exception)
        TFRecordDataset(object())


def test_read_one_epoch(filenames):
    """TFRecordDatasetTest.testReadOneEpoch."""
    assert list(dataset_factory(filenames[0])) == [record(0, i) for i in range(NUM_RECORDS)]
    assert list(dataset_factory(filenames[1])) == [record(1, i) for i in range(NUM_RECORDS)]
    assert list(dataset_factory(filenames)) == all_records()


def test_read_ten_epochs(filenames):
    """TFRecordDatasetTest.testReadTenEpochs."""
    assert list(dataset_factory(filenames, num_epochs=10)) == all_records() * 10


def test_read_ten_epochs_of_batches(filenames):
    """TFRecordDatasetTest.testReadTenEpochsOfBatches."""
    dataset = dataset_factory(filenames, num_epochs=10, batch_size=NUM_RECORDS)
    expected = [[record(j, i) for i in range(NUM_RECORDS)] for j in range(NUM_FILES)] * 10
    assert [as_py(b) for b in dataset] == expected


@pytest.mark.parametrize("compression_type", ["ZLIB", "GZIP"],
                         ids=["testReadZlibFiles", "testReadGzipFiles"])  # fmt: skip
def test_read_compressed_files(tmp_path, filenames, compression_type):
    """TFRecordDatasetTest.testReadZlibFiles, testReadGzipFiles."""
    files = compressed(tmp_path, filenames, compression_type)
    assert list(dataset_factory(files, compression_type=compression_type)) == all_records()


def test_read_with_buffer(filenames):
    """TFRecordDatasetTest.testReadWithBuffer."""
    assert list(TFRecordDataset(filenames, buffer_size=2**20)) == all_records()


def test_read_from_dataset_of_files(filenames):
    """TFRecordDatasetTest.testReadFromDatasetOfFiles."""
    assert list(TFRecordDataset(Dataset.from_tensor_slices(filenames))) == all_records()


def test_read_ten_epochs_from_dataset_of_files_in_parallel(filenames):
    """TFRecordDatasetTest.testReadTenEpochsFromDatasetOfFilesInParallel (any order)."""
    files = Dataset.from_tensor_slices(filenames).repeat(10)
    dataset = TFRecordDataset(files, num_parallel_reads=4)
    assert sorted(dataset) == sorted(all_records() * 10)


def test_pathlib(filenames):
    """TFRecordDatasetTest.testPathlib."""
    dataset = TFRecordDataset([pathlib.Path(filenames[0])])
    assert sorted(dataset) == [record(0, i) for i in range(NUM_RECORDS)]


def test_name(filenames):
    """TFRecordDatasetTest.testName."""
    dataset = TFRecordDataset([filenames[0]], name="tf_record_dataset")
    assert sorted(dataset) == [record(0, i) for i in range(NUM_RECORDS)]


def make_dataset(tmp_path, filenames, num_epochs, batch_size=1, compression_type=None,
                 buffer_size=None):  # fmt: skip
    """TFRecordDatasetCheckpointTest.make_dataset."""
    if compression_type:
        filenames = compressed(tmp_path, filenames, compression_type)
    return (
        TFRecordDataset(filenames, compression_type, buffer_size=buffer_size)
        .repeat(num_epochs)
        .batch(batch_size)
    )


@pytest.mark.parametrize("batch_size", [1, 5])
def test_checkpoint_batch_size(tmp_path, filenames, batch_size):
    """TFRecordDatasetCheckpointTest.testBatchSize."""
    num_outputs = 5 * NUM_FILES * NUM_RECORDS // batch_size
    verify_checkpoints(
        lambda: make_dataset(tmp_path, filenames, 5, batch_size=batch_size), num_outputs
    )


@pytest.mark.parametrize("buffer_size", [0, 5])
def test_checkpoint_buffer_size(tmp_path, filenames, buffer_size):
    """TFRecordDatasetCheckpointTest.testBufferSize."""
    verify_checkpoints(
        lambda: make_dataset(tmp_path, filenames, 5, buffer_size=buffer_size),
        5 * NUM_FILES * NUM_RECORDS,
    )


@pytest.mark.parametrize("compression_type", [None, "GZIP", "ZLIB"])
def test_checkpoint_compression_types(tmp_path, filenames, compression_type):
    """TFRecordDatasetCheckpointTest.testCompressionTypes."""
    verify_checkpoints(
        lambda: make_dataset(tmp_path, filenames, 5, compression_type=compression_type),
        5 * NUM_FILES * NUM_RECORDS,
    )
