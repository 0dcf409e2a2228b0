"""Writes tests/testdata/tf_decode_compressed/golden.json: what TensorFlow 2.21's
tf.io.decode_compressed gives (values or errors) for each case below. Each case is Python
source over `IO` (the io module), `zlib`, `gzip_bytes`, `zstd` and `np`; TensorFlow runs it
with IO = tf.io, tests/python/test_decode_compressed.py with swigflow.io. Run once in a
throwaway venv with tensorflow-cpu and zstandard:

    python tests/testdata/make_tf_decode_compressed.py
"""

import gzip
import hashlib
import io
import os
import zlib

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "tf_decode_compressed", "golden.json"
)


def gzip_bytes(data, mtime=0):
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=mtime) as f:
        f.write(data)
    return out.getvalue()


CASES = {
    "none": "IO.decode_compressed([b'AaAA', b'bBbb'], '')",
    "zlib": "IO.decode_compressed([zlib.compress(b'AaAA'), zlib.compress(b'bBbb')], 'ZLIB')",
    "gzip": "IO.decode_compressed([gzip_bytes(b'AaAA'), gzip_bytes(b'bBbb')], 'GZIP')",
    "zstd": "IO.decode_compressed([zstd.compress(b'AaAA'), zstd.compress(b'bBbb')], 'ZSTD')",
    "scalar": "IO.decode_compressed(zlib.compress(b'one'), 'ZLIB')",
    "empty_string": "IO.decode_compressed(zlib.compress(b''), 'ZLIB')",
    "matrix": "IO.decode_compressed([[zlib.compress(b'a')], [zlib.compress(b'bc')]], 'ZLIB')",
    "no_strings": "IO.decode_compressed(np.array([], dtype=object).reshape(0, 2), 'ZLIB')",
    "large": "IO.decode_compressed([zlib.compress(bytes(range(256)) * 4096)], 'ZLIB')",
    "gzip_members": "IO.decode_compressed([gzip_bytes(b'ab') + gzip_bytes(b'cd')], 'GZIP')",
    "zlib_trailing_bytes": "IO.decode_compressed([zlib.compress(b'hello') + b'xx'], 'ZLIB')",
    "zlib_garbage": "IO.decode_compressed([b'garbage'], 'ZLIB')",
    "gzip_garbage": "IO.decode_compressed([b'garbage'], 'GZIP')",
    "gzip_as_zlib": "IO.decode_compressed([gzip_bytes(b'x')], 'ZLIB')",
    "bad_type": "IO.decode_compressed([b'x'], 'BOGUS')",
    "lowercase_type": "IO.decode_compressed([b'x'], 'zlib')",
    "zstd_no_size": "IO.decode_compressed([b'x'], 'ZSTD')",
    "zstd_exceeds_limit": "IO.decode_compressed("
    "[b'\\x28\\xb5\\x2f\\xfd\\xc0\\x13\\x00\\x00\\x00\\x80\\x00\\x00\\x00\\x00'], 'ZSTD')",
}


def encode(value):
    """{shape, values}: each string as hex, or, past 64 bytes, its length and SHA-256."""
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value, dtype=object)
    return {"shape": list(array.shape), "values": [string_key(v) for v in array.reshape(-1)]}


def string_key(value):
    value = bytes(value)
    if len(value) <= 64:
        return value.hex()
    return f"{len(value)} bytes, sha256 {hashlib.sha256(value).hexdigest()}"


def main():
    import tensorflow as tf
    import zstandard

    env = {"IO": tf.io, "zlib": zlib, "gzip_bytes": gzip_bytes, "np": np, "zstd": zstandard}
    golden = {}
    for name, source in CASES.items():
        try:
            golden[name] = {"value": encode(eval(source, env))}
        except Exception as e:
            golden[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    golden["_tensorflow"] = tf.__version__
    import golden_json  # beside this script

    golden_json.write(OUT, golden)


if __name__ == "__main__":
    main()
