"""Writes tests/testdata/tf_gfile/local.json: what TensorFlow 2.21's tf.io.gfile does for each
step of scenario() on local paths (a directory whose name holds a space, dots and brackets):
the value returned, or the error class raised. tests/python/test_gfile.py runs the same
scenario through swigflow.io.gfile. Run once in a throwaway venv with tensorflow-cpu:

    python tests/testdata/make_tf_gfile.py
"""

import json
import os
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_gfile", "local.json")


def scenario(gfile):
    """[[step, "ok", value] or [step, error class name]] for `gfile` (tf.io.gfile's API)."""
    base = os.path.join(tempfile.mkdtemp(), "odd dir.v1 [x]")
    f = os.path.join(base, "f.tfrecord.gz")
    missing = os.path.join(base, "none")
    steps = [
        ("makedirs", lambda: gfile.makedirs(os.path.join(base, "a", "b"))),
        ("write", lambda: _write(gfile, f, b"12345")),
        ("makedirs_on_file", lambda: gfile.makedirs(f)),
        ("makedirs_under_file", lambda: gfile.makedirs(os.path.join(f, "sub"))),
        ("isdir_file", lambda: gfile.isdir(f)),
        ("isdir_dir", lambda: gfile.isdir(base)),
        ("isdir_missing", lambda: gfile.isdir(missing)),
        ("exists_missing", lambda: gfile.exists(missing)),
        ("stat_length", lambda: gfile.stat(f).length),
        ("stat_missing", lambda: gfile.stat(missing)),
        ("listdir", lambda: sorted(gfile.listdir(base))),
        ("listdir_missing", lambda: gfile.listdir(missing)),
        # The brackets in the directory's name are a glob character class, for both.
        ("glob_through_brackets", lambda: gfile.glob(os.path.join(base, "*.gz"))),
        ("glob", lambda: _names(gfile.glob(os.path.join(os.path.dirname(base), "*", "*.gz")))),
        ("glob_none", lambda: gfile.glob(os.path.join(os.path.dirname(base), "*", "*.zip"))),
        ("copy", lambda: gfile.copy(f, f + ".2")),
        ("copy_exists", lambda: gfile.copy(f, f + ".2")),
        ("copy_overwrite", lambda: gfile.copy(f, f + ".2", overwrite=True)),
        ("rename_exists", lambda: gfile.rename(f + ".2", f)),
        ("rename", lambda: gfile.rename(f + ".2", f + ".3")),
        ("rename_missing", lambda: gfile.rename(f + ".2", f + ".4")),
        ("rename_overwrite", lambda: gfile.rename(f + ".3", f, overwrite=True)),
        ("remove_missing", lambda: gfile.remove(f + ".3")),
        ("open_missing", lambda: gfile.GFile(missing, "rb").read()),
        ("read", lambda: _read(gfile, f)),
        ("remove", lambda: gfile.remove(f)),
        ("listdir_after", lambda: sorted(gfile.listdir(base))),
    ]
    results = []
    for name, step in steps:
        try:
            results.append([name, "ok", step()])
        except Exception as e:  # the class is the result
            results.append([name, type(e).__name__])
    return results


def _write(gfile, path, data):
    with gfile.GFile(path, "wb") as w:
        w.write(data)


def _read(gfile, path):
    with gfile.GFile(path, "rb") as r:
        return r.read().decode()


def _names(paths):
    return [os.path.basename(p) for p in paths]


def main():
    import tensorflow as tf

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as out:
        json.dump(scenario(tf.io.gfile), out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
