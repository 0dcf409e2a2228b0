"""s3:// in tests: fsspec's S3 file system pointed at a server on 127.0.0.1, and moto's S3."""

import contextlib

import pytest


@contextlib.contextmanager
def s3_endpoint(endpoint, key="testing", secret="testing"):
    """fsspec's s3:// set to `endpoint` while the block runs; the configuration before is put
    back after."""
    import fsspec

    saved = fsspec.config.conf.get("s3")
    fsspec.config.conf["s3"] = {
        "key": key,
        "secret": secret,
        "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
    }
    try:
        yield
    finally:
        if saved is None:
            fsspec.config.conf.pop("s3", None)
        else:
            fsspec.config.conf["s3"] = saved


@contextlib.contextmanager
def moto_bucket(bucket):
    """moto's S3 server on 127.0.0.1 holding an empty `bucket`, s3:// pointed at it; yields
    "s3://<bucket>". Skips the test without s3fs, moto[server] or boto3."""
    pytest.importorskip("s3fs", reason="s3:// needs s3fs (swigflow[remote])")
    moto_server = pytest.importorskip("moto.server", reason="moto[server] runs the local S3")
    boto3 = pytest.importorskip("boto3", reason="s3fs's client, used to make the bucket")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        with s3_endpoint(endpoint):
            boto3.client(
                "s3", endpoint_url=endpoint, aws_access_key_id="testing",
                aws_secret_access_key="testing", region_name="us-east-1",
            ).create_bucket(Bucket=bucket)  # fmt: skip
            yield f"s3://{bucket}"
    finally:
        server.stop()
