"""The local shard cache (swigflow.io.shard_cache): remote TFRecord files kept whole on first
read and read locally after, by any pass or process; entries only ever complete; least
recently used evicted under a byte budget; SWIGFLOW_CACHE_DIR as the default."""

import multiprocessing
import os
import uuid

import fsspec
import pytest

import swigflow as sf
from swigflow.io import shard_cache


def _records(n, size=100, tag=0):
    return [bytes([(i + tag) % 251]) * (size + i % 7) for i in range(n)]


@pytest.fixture
def store(tmp_path):
    """A memory:// store of three TFRecord files, and a switch that makes every read of an
    object's bytes fail (its listing and sizes still answer).

    Each test has its own root: a dataset a failed test left open keeps its registration
    (shard_cache.registered), which must not steer a later test's reads to its cache."""
    fs = fsspec.filesystem("memory")
    root = f"memory://shard-cache-{os.getpid()}-{uuid.uuid4().hex}"
    files = {}
    for k in range(3):
        local = tmp_path / f"f{k}.tfrecord"
        with sf.io.TFRecordWriter(str(local)) as w:
            for r in _records(200, tag=k):
                w.write(r)
        url = f"{root}/f{k}.tfrecord"
        fs.pipe(url, local.read_bytes())
        files[url] = _records(200, tag=k)
    reads = {"blocked": False, "count": 0}
    cls = type(fs)
    original_open, original_cat = cls._open, cls.cat_file

    def guarded(original):
        def call(self, *args, **kwargs):
            if reads["blocked"]:
                raise OSError("the store refuses reads of bytes in this test")
            reads["count"] += 1
            return original(self, *args, **kwargs)

        return call

    cls._open, cls.cat_file = guarded(original_open), guarded(original_cat)
    try:
        yield files, reads
    finally:
        cls._open, cls.cat_file = original_open, original_cat
        if fs.exists(root):
            fs.rm(root, recursive=True)


def _entries(directory):
    return sorted(n for n in os.listdir(directory) if not n.startswith("."))


def test_a_second_pass_reads_the_local_copies(store, tmp_path):
    files, reads = store
    cache = tmp_path / "cache"
    urls = sorted(files)
    ds = sf.data.TFRecordDataset(urls, cache_dir=str(cache))
    expected = [r for u in urls for r in files[u]]
    assert list(ds) == expected
    assert len(_entries(cache)) == 3
    assert not any(".part-" in n for n in os.listdir(cache))
    reads["blocked"] = True  # every byte now comes from the cache
    assert list(ds) == expected
    assert list(sf.data.TFRecordDataset(urls, num_parallel_reads=3, cache_dir=str(cache))) == [
        r for trio in zip(*(files[u] for u in urls)) for r in trio
    ]
    assert list(ds.repeat(2)) == expected * 2


def test_a_pass_that_stops_early_caches_nothing(store, tmp_path):
    files, _ = store
    big = tmp_path / "big.tfrecord"
    records = [bytes([i % 251]) * (64 << 10) for i in range(400)]  # 25 MiB: many reads
    with sf.io.TFRecordWriter(str(big)) as w:
        for r in records:
            w.write(r)
    url = sorted(files)[0].replace("f0", "big")
    fsspec.filesystem("memory").pipe(url, big.read_bytes())
    cache = tmp_path / "cache"
    it = iter(sf.data.TFRecordDataset([url], cache_dir=str(cache)))
    assert next(it) == records[0]
    it.close()
    del it
    assert _entries(cache) == []
    assert not any(".part-" in n for n in os.listdir(cache))
    assert list(sf.data.TFRecordDataset([url], cache_dir=str(cache))) == records
    assert len(_entries(cache)) == 1


def test_a_reader_that_jumps_ahead_caches_nothing(tmp_path):
    class Source:
        size = 10

        def read_at(self, offset, buffer):
            n = min(len(buffer), self.size - offset)
            buffer[:n] = bytes(range(offset, offset + n))
            return n

    cache = sf.io.ShardCache(tmp_path)
    reader = cache.tee("memory://x", "v", 10, Source())
    buffer = bytearray(4)
    assert reader.read_at(0, memoryview(buffer)) == 4
    assert reader.read_at(0, memoryview(buffer)) == 4  # again: still in order
    assert reader.read_at(8, memoryview(buffer)[:2]) == 2  # a jump: the copy is given up
    assert reader.read_at(4, memoryview(buffer)) == 4
    reader.close()
    assert os.listdir(tmp_path) == []
    whole = cache.tee("memory://x", "v", 10, Source())
    for offset in (0, 4, 8):
        whole.read_at(offset, memoryview(buffer)[: min(4, 10 - offset)])
    assert (tmp_path / _entries(tmp_path)[0]).read_bytes() == bytes(range(10))


def test_a_changed_object_is_a_new_entry(store, tmp_path):
    files, _ = store
    cache = tmp_path / "cache"
    url = sorted(files)[0]
    assert list(sf.data.TFRecordDataset([url], cache_dir=str(cache))) == files[url]
    replacement = tmp_path / "new.tfrecord"
    with sf.io.TFRecordWriter(str(replacement)) as w:
        w.write(b"new")
    fsspec.filesystem("memory").pipe(url, replacement.read_bytes())
    assert list(sf.data.TFRecordDataset([url], cache_dir=str(cache))) == [b"new"]
    assert len(_entries(cache)) == 2


def test_least_recently_used_entries_are_evicted(store, tmp_path):
    files, _ = store
    urls = sorted(files)
    size = fsspec.filesystem("memory").info(urls[0])["size"]
    cache = sf.io.ShardCache(tmp_path / "cache", max_bytes=2 * size + size // 2)
    for url in urls:
        assert list(sf.data.TFRecordDataset([url], cache_dir=cache)) == files[url]
    names = _entries(cache.directory)
    assert len(names) == 2  # the first object's copy went first
    first = os.path.basename(cache.entry(urls[0], "", size))
    assert first not in names


def test_the_next_files_are_fetched_ahead(store, tmp_path):
    files, reads = store
    urls = sorted(files)
    cache = sf.io.ShardCache(tmp_path / "cache")
    # A dataset registers its files so. Its pipeline may open the next files itself before
    # their downloads start (it then copies them as it reads them), so the downloads are seen
    # here through a reader of the first file alone.
    with shard_cache.registered(urls, cache):
        assert list(sf.io.tf_record_iterator(urls[0])) == files[urls[0]]
        for url in urls[1:]:  # opening the first started both downloading, whole
            info = fsspec.filesystem("memory").info(url)
            local = cache.lookup(url, shard_cache.version(info), info["size"], stall_s=30)
            assert local is not None and os.path.getsize(local) == info["size"]
    assert len(_entries(cache.directory)) == 3
    reads["blocked"] = True
    assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == [
        r for u in urls for r in files[u]
    ]


def test_the_environment_sets_the_default_cache(store, tmp_path, monkeypatch):
    files, reads = store
    monkeypatch.setenv(shard_cache.CACHE_DIR_ENV, str(tmp_path / "env-cache"))
    url = sorted(files)[1]
    assert list(sf.io.tf_record_iterator(url)) == files[url]
    assert len(_entries(tmp_path / "env-cache")) == 1
    reads["blocked"] = True
    assert list(sf.io.tf_record_iterator(url)) == files[url]


def _fill(directory, n, size, k):
    cache = shard_cache.ShardCache(directory)
    for i in range(n):
        url = f"memory://x/{i}"
        writer = shard_cache._Writer(cache, url, cache.entry(url, "", size), size)
        writer.write(0, bytes([k]) * size)
        writer.finish()


def test_processes_share_a_directory(tmp_path):
    """Writers in several processes at once: every entry complete, no part files left."""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_fill, args=(str(tmp_path), 20, 4096, k)) for k in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    names = _entries(tmp_path)
    assert len(names) == 20
    for name in names:
        data = (tmp_path / name).read_bytes()
        assert len(data) == 4096 and len(set(data)) == 1
    assert not any(".part-" in n for n in os.listdir(tmp_path))


def test_bad_budgets_are_refused(tmp_path):
    with pytest.raises(ValueError, match="max_bytes"):
        sf.io.ShardCache(tmp_path, max_bytes=-1)


def test_the_command_line_takes_a_cache_dir(store, tmp_path, capsys):
    from swigflow.cli import main

    files, reads = store
    url = sorted(files)[2]
    cache = tmp_path / "cli-cache"
    assert main(["--cache-dir", str(cache), "count", url]) == 0
    assert capsys.readouterr().out.split()[0] == "200"
    assert len(_entries(cache)) == 1
    assert shard_cache.CACHE_DIR_ENV not in os.environ  # set for the command only
    reads["blocked"] = True
    assert main(["--cache-dir", str(cache), "count", url]) == 0
    assert capsys.readouterr().out.split()[0] == "200"


def test_without_revalidation_the_store_is_not_asked(store, tmp_path):
    files, reads = store
    urls = sorted(files)
    cache = sf.io.ShardCache(tmp_path / "cache", revalidate=False)
    expected = [r for u in urls for r in files[u]]
    assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == expected
    cls = type(fsspec.filesystem("memory"))
    info = cls.info

    def no_request(*args, **kwargs):
        raise OSError("the store may not be asked")

    cls.info = no_request
    try:
        reads["blocked"] = True
        assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == expected
    finally:
        cls.info = info


@pytest.fixture
def info_calls():
    """Counts what the memory store is asked of objects (fsspec's info)."""
    cls = type(fsspec.filesystem("memory"))
    original = cls.info
    calls = []

    def counted(self, path, **kwargs):
        calls.append(path)
        return original(self, path, **kwargs)

    cls.info = counted
    try:
        yield calls
    finally:
        cls.info = original


def test_a_dataset_asks_the_store_once_per_cached_file(store, tmp_path, info_calls):
    files, reads = store
    urls = sorted(files)
    cache = tmp_path / "cache"
    ds = sf.data.TFRecordDataset(urls, num_parallel_reads=3, cache_dir=str(cache))
    expected = list(ds)
    assert len(_entries(cache)) == 3
    info_calls.clear()
    reads["blocked"] = True
    assert list(ds) == expected  # a new iterator of the same dataset: no request at all
    assert list(ds.batch(7).unbatch()) == expected  # nor of one derived from it
    assert info_calls == []
    assert list(sf.data.TFRecordDataset(urls, num_parallel_reads=3, cache_dir=str(cache))) == (
        expected
    )
    assert sum(not p.endswith(".idx") for p in info_calls) == 3  # a new dataset asks again


def test_a_dataset_keeps_reading_what_it_cached(store, tmp_path, info_calls):
    files, _ = store
    url = sorted(files)[0]
    cache = tmp_path / "cache"
    ds = sf.data.TFRecordDataset([url], cache_dir=str(cache))
    assert list(ds) == files[url]
    replacement = tmp_path / "new.tfrecord"
    with sf.io.TFRecordWriter(str(replacement)) as w:
        w.write(b"new")
    fsspec.filesystem("memory").pipe(url, replacement.read_bytes())
    assert list(ds) == files[url]  # its copy, as the object was when the dataset first read it
    assert list(sf.data.TFRecordDataset([url], cache_dir=str(cache))) == [b"new"]
    for name in _entries(cache):  # the copies gone: the dataset asks the store again
        os.unlink(cache / name)
    info_calls.clear()
    assert list(ds) == [b"new"]
    assert len(info_calls) == 1


# --- copies the cache cannot vouch for ----------------------------------------------------------


def test_an_http_last_modified_is_a_version():
    """fsspec's HTTP file system reports the header's own name, Last-Modified."""
    info = {"size": 10, "Last-Modified": "Sun, 29 Nov 2026 08:00:00 GMT"}
    assert shard_cache.version(info) == "Last-Modified=Sun, 29 Nov 2026 08:00:00 GMT"
    assert shard_cache.version({"size": 10}) == ""


@pytest.fixture
def unversioned(store, monkeypatch):
    """The store's objects described with no version at all (no ETag, time or generation)."""
    cls = type(fsspec.filesystem("memory"))
    original = cls.info

    def info(self, path, **kwargs):
        found = original(self, path, **kwargs)
        return {k: v for k, v in found.items() if k != "created"}

    monkeypatch.setattr(cls, "info", info)
    return store


def test_an_object_with_no_version_is_not_cached_unless_revalidation_is_off(unversioned, tmp_path):
    """A same-size rewrite of such an object could not be told from its copy."""
    files, _ = unversioned
    urls = sorted(files)
    with pytest.warns(RuntimeWarning, match="gives no version"):
        assert list(sf.data.TFRecordDataset(urls, cache_dir=str(tmp_path / "a"))) == [
            r for u in urls for r in files[u]
        ]
    assert _entries(tmp_path / "a") == []
    trusting = sf.io.ShardCache(tmp_path / "b", revalidate=False)
    assert list(sf.data.TFRecordDataset(urls, cache_dir=trusting)) == [
        r for u in urls for r in files[u]
    ]
    assert len(_entries(tmp_path / "b")) == 3


def test_a_copy_cut_short_is_never_read_as_complete(store, tmp_path):
    """revalidate=False reads the latest copy without asking the store: the pointer records
    the size the copy must have, so a copy cut at a record boundary is dropped and the store
    read, rather than 120 of 200 records read as the whole file."""
    files, reads = store
    url = sorted(files)[0]
    cache = sf.io.ShardCache(tmp_path / "cache", revalidate=False)
    assert list(sf.data.TFRecordDataset([url], cache_dir=cache)) == files[url]
    (entry,) = _entries(tmp_path / "cache")
    path = tmp_path / "cache" / entry
    records = list(sf.io.tf_record_iterator(str(path)))
    cut = sum(len(r) + 16 for r in records[:120])
    os.truncate(path, cut)
    before = reads["count"]
    assert list(sf.data.TFRecordDataset([url], cache_dir=cache)) == files[url]
    assert reads["count"] > before  # from the store
    assert (tmp_path / "cache" / entry).stat().st_size > cut  # and cached whole again


@pytest.mark.parametrize("revalidate", [True, False])
@pytest.mark.parametrize("reader", ["dataset", "iterator", "random access"])
def test_a_damaged_copy_is_named_deleted_and_fetched_again(
    store, tmp_path, monkeypatch, revalidate, reader
):
    """Damage in a cached copy (a payload byte flipped on disk) is reported naming the copy, not
    only the URL, and the copy is deleted: the next read fetches the object again, whole."""
    files, reads = store
    url = sorted(files)[0]
    directory = tmp_path / "cache"
    monkeypatch.setenv(shard_cache.CACHE_DIR_ENV, str(directory))
    monkeypatch.setenv(shard_cache.CACHE_REVALIDATE_ENV, "1" if revalidate else "0")
    cache = sf.io.ShardCache(directory, revalidate=revalidate)

    def read():
        if reader == "dataset":
            return list(sf.data.TFRecordDataset([url], cache_dir=cache))
        if reader == "iterator":
            return list(sf.io.tf_record_iterator(url))
        records = sf.io.TFRecordFile(url)
        return [records[i] for i in range(len(records))]

    assert read() == files[url]
    (entry,) = _entries(directory)
    path = directory / entry
    data = bytearray(path.read_bytes())
    at = sum(len(r) + 16 for r in files[url][:50]) + 12 + 3  # inside record 50's payload
    data[at] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(sf.errors.DataLossError) as raised:
        read()
    message = str(raised.value)
    assert url in message and entry in message and "deleted" in message
    assert not path.exists()
    before = reads["count"]
    assert read() == files[url]
    assert reads["count"] > before  # from the store
    assert _entries(directory) == [entry]  # and cached whole again
    assert path.read_bytes() != bytes(data)


def test_an_unwritable_cache_directory_reads_from_the_store_and_warns_once(store, tmp_path):
    files, _ = store
    urls = sorted(files)
    (tmp_path / "file").write_bytes(b"not a directory")
    cache = sf.io.ShardCache(tmp_path / "file" / "cache")  # nothing can be made under a file
    with pytest.warns(RuntimeWarning, match="cannot be written") as warned:
        assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == [
            r for u in urls for r in files[u]
        ]
        assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == [
            r for u in urls for r in files[u]
        ]
    assert len([w for w in warned if "cannot be written" in str(w.message)]) == 1


@pytest.mark.parametrize("value", ["lots", "-5", "1.5XB"])
def test_a_bad_byte_budget_in_the_environment_names_the_variable(
    store, tmp_path, monkeypatch, value
):
    files, _ = store
    monkeypatch.setenv(shard_cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(shard_cache.CACHE_MAX_BYTES_ENV, value)
    with pytest.raises(sf.errors.InvalidArgumentError, match="SWIGFLOW_CACHE_MAX_BYTES"):
        list(sf.io.tf_record_iterator(sorted(files)[0]))
    monkeypatch.setenv(shard_cache.CACHE_MAX_BYTES_ENV, "50GB")
    assert shard_cache.for_url(sorted(files)[0]).max_bytes == 50 * 10**9
    monkeypatch.setenv(shard_cache.CACHE_REVALIDATE_ENV, "maybe")
    with pytest.raises(sf.errors.InvalidArgumentError, match="SWIGFLOW_CACHE_REVALIDATE"):
        shard_cache.for_url(sorted(files)[0])


def test_a_budget_smaller_than_an_object_keeps_nothing(store, tmp_path):
    files, _ = store
    urls = sorted(files)
    size = fsspec.filesystem("memory").info(urls[0])["size"]
    for budget, directory in ((size - 1, "small"), (0, "zero")):
        cache = sf.io.ShardCache(tmp_path / directory, max_bytes=budget)
        assert list(sf.data.TFRecordDataset(urls, cache_dir=cache)) == [
            r for u in urls for r in files[u]
        ]
        assert os.listdir(tmp_path / directory) == [], directory  # nothing written at all


def test_files_left_by_writers_that_died_are_removed_and_live_ones_count(store, tmp_path):
    files, _ = store
    urls = sorted(files)
    size = fsspec.filesystem("memory").info(urls[0])["size"]
    directory = tmp_path / "cache"
    directory.mkdir()
    child = multiprocessing.get_context("fork").Process(target=os._exit, args=(0,))
    child.start()
    child.join()  # its PID is free now
    dead = directory / f"{'0' * 32}.part-{child.pid}-0"
    dead.write_bytes(b"x" * 1000)
    live = directory / f"{'1' * 32}.part-{os.getpid()}-999"
    live.write_bytes(b"x" * size)  # a write in flight in a live process: counted
    cache = sf.io.ShardCache(directory, max_bytes=2 * size)
    for url in urls[:2]:
        assert list(sf.data.TFRecordDataset([url], cache_dir=cache)) == files[url]
    assert not dead.exists()
    assert live.exists()
    assert len(_entries(directory)) == 2  # live part + the newest entry fit; the first went
    assert sum((directory / n).stat().st_size for n in _entries(directory)) <= 2 * size
