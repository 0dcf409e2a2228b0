"""Listing at scale: list_files and glob URLs over 100,000 objects of an S3 store, through
s3fs, in one paginated listing (1,000 keys a page, as S3 answers), with no request per
object. The store is a stand-in on 127.0.0.1 that answers ListObjectsV2 for keys it makes up,
so the 100,000 objects cost nothing to create; every other request is counted and refused."""

import bisect
import http.server
import threading
import urllib.parse
from xml.sax.saxutils import escape

import pytest
from s3_store import s3_endpoint

import swigflow as sf

COUNT = 100_000
PAGE = 1000  # S3's largest page


def _keys():
    keys = [f"train/part-{i:06d}-of-{COUNT:06d}.tfrecord" for i in range(COUNT)]
    keys += ["train/README.md", "train/sub/part-000000.tfrecord", "valid/part-0.tfrecord"]
    return sorted(keys)


class _ListingHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        path = urllib.parse.urlsplit(self.path).path
        with self.server.lock:
            self.server.others.append(f"HEAD {path}")
        self._send(200 if path.strip("/") == "bucket" else 404)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        if url.path.strip("/") != "bucket" or query.get("list-type") != "2":
            with self.server.lock:
                self.server.others.append(f"GET {self.path}")
            self._send(404, b"<Error><Code>NoSuchKey</Code></Error>")
            return
        with self.server.lock:
            self.server.pages += 1
        self._send(200, self._page(query).encode())

    def _page(self, query):
        """One ListObjectsV2 page: keys and common prefixes after the token, in key order."""
        keys = self.server.keys
        prefix, delimiter = query.get("prefix", ""), query.get("delimiter", "")
        most = min(PAGE, int(query.get("max-keys", PAGE)))
        after = query.get("continuation-token") or query.get("start-after") or ""
        i = bisect.bisect_right(keys, after) if after else bisect.bisect_left(keys, prefix)
        contents, prefixes, last = [], [], None
        while i < len(keys) and keys[i].startswith(prefix) and len(contents) + len(prefixes) < most:
            key = keys[i]
            rest = key[len(prefix) :]
            if delimiter and delimiter in rest:
                common = prefix + rest.split(delimiter, 1)[0] + delimiter
                prefixes.append(common)
                last = common + "\uffff"  # past every key under it
                i = bisect.bisect_right(keys, last)
                continue
            contents.append(key)
            last = key
            i += 1
        truncated = i < len(keys) and keys[i].startswith(prefix)
        items = "".join(
            f"<Contents><Key>{escape(k)}</Key><LastModified>2026-11-28T00:00:00.000Z"
            f'</LastModified><ETag>"{len(k):x}"</ETag><Size>{len(k)}</Size>'
            "<StorageClass>STANDARD</StorageClass></Contents>"
            for k in contents
        )
        items += "".join(
            f"<CommonPrefixes><Prefix>{escape(p)}</Prefix></CommonPrefixes>" for p in prefixes
        )
        token = (
            f"<NextContinuationToken>{escape(last)}</NextContinuationToken>" if truncated else ""
        )
        return (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>bucket</Name><Prefix>{escape(prefix)}</Prefix>"
            f"<KeyCount>{len(contents) + len(prefixes)}</KeyCount><MaxKeys>{most}</MaxKeys>"
            f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>{token}{items}"
            "</ListBucketResult>"
        )


@pytest.fixture(scope="module")
def store():
    pytest.importorskip("s3fs", reason="s3:// needs s3fs (swigflow[s3])")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ListingHandler)
    server.daemon_threads = True
    server.lock, server.pages, server.others, server.keys = threading.Lock(), 0, [], _keys()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with s3_endpoint(endpoint, key="test", secret="test"):
            yield server
    finally:
        server.shutdown()


def _expected():
    return [f"s3://bucket/train/part-{i:06d}-of-{COUNT:06d}.tfrecord" for i in range(COUNT)]


def _fresh(server):
    with server.lock:
        server.pages, server.others[:] = 0, []


def test_glob_lists_100000_objects_in_one_paginated_listing(store):
    _fresh(store)
    found = sf.io.gfile.glob("s3://bucket/train/part-*.tfrecord")
    assert found == _expected()
    _assert_one_listing(store)


def _assert_one_listing(server):
    """100,000 keys, 1,000 a page (s3fs lists from the pattern's stem, train/part-; the
    directory train/ would be one page more, with README.md and sub/), and nothing else but
    a check or two that the directory exists: no request per object."""
    assert COUNT // PAGE <= server.pages <= COUNT // PAGE + 1, server.pages
    assert len(server.others) <= 2, server.others


def test_list_files_over_100000_objects(store):
    _fresh(store)
    files = sf.data.Dataset.list_files("s3://bucket/train/part-*-of-*.tfrecord", shuffle=False)
    assert [_text(f) for f in files] == _expected()
    _assert_one_listing(store)
    shuffled = [
        _text(f) for f in sf.data.Dataset.list_files("s3://bucket/train/*.tfrecord", seed=3)
    ]
    assert shuffled != _expected() and sorted(shuffled) == _expected()


def _text(value):
    value = value.item() if hasattr(value, "item") else value
    return value.decode() if isinstance(value, bytes) else value


def test_a_glob_keeps_to_its_directory_and_its_pattern(store):
    assert sf.io.gfile.glob("s3://bucket/train/*.md") == ["s3://bucket/train/README.md"]
    assert sf.io.gfile.glob("s3://bucket/train/sub/*") == [
        "s3://bucket/train/sub/part-000000.tfrecord"
    ]
    assert sf.io.gfile.glob("s3://bucket/valid/*.tfrecord") == ["s3://bucket/valid/part-0.tfrecord"]
    assert sf.io.gfile.glob("s3://bucket/train/none-*") == []
