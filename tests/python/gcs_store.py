"""gs:// in tests: gcp-storage-emulator's server on 127.0.0.1, and fsspec's gs:// pointed at it."""

import contextlib
import os
import socket

import pytest


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def gcs_bucket(bucket, on_get=None):
    """A GCS emulator on 127.0.0.1 holding an empty `bucket`, gs:// pointed at it while the block
    runs (the configuration before is put back after); yields fsspec's gs:// file system.
    `on_get(path)` sees each GET the server answers. Skips the test without gcsfs or the
    emulator."""
    os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"  # no gRPC bucket-type probe
    pytest.importorskip("gcsfs", reason="gs:// needs gcsfs")
    emulator = pytest.importorskip("gcp_storage_emulator.server")
    import fsspec

    handler = emulator.RequestHandler
    original = handler.do_GET
    if on_get is not None:

        def counting(self):
            on_get(self.path)
            return original(self)

        handler.do_GET = counting
    port = _free_port()
    server = emulator.create_server("127.0.0.1", port, in_memory=True, default_bucket=bucket)
    server.start()
    saved = fsspec.config.conf.get("gs")
    fsspec.config.conf["gs"] = {
        "endpoint_url": f"http://127.0.0.1:{port}",
        "token": "anon",
        "project": "swigflow-test",
    }
    try:
        yield fsspec.filesystem("gs", skip_instance_cache=True)
    finally:
        handler.do_GET = original
        if saved is None:
            fsspec.config.conf.pop("gs", None)
        else:
            fsspec.config.conf["gs"] = saved
        server.stop()
