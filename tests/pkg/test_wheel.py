"""The wheel from //pkg:build_pip_package: name, contents, reproducibility, install, import."""

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import zipfile

import numpy
import pytest

import swigflow
from swigflow import pywrap_swigflow

RUNFILES = os.environ.get("RUNFILES_DIR") or os.environ["TEST_SRCDIR"]
BUILDER = os.path.join(RUNFILES, "org_swigflow", "pkg", "build_pip_package")
# One wheel for every CPython from the stable ABI's floor on: cp311-abi3.
_LIMITED = pywrap_swigflow.LimitedApiVersion()
FLOOR = (_LIMITED >> 24, (_LIMITED >> 16) & 0xFF)
TAG = f"cp{FLOOR[0]}{FLOOR[1]}"
# auditwheel's tag: manylinux_2_X for the lowest glibc X whose symbol versions cover the extension
# module's needs. libstdc++ is linked in (//native/framework:static_libstdcxx), so X is glibc's
# alone.
WHEEL_NAME = re.compile(
    rf"swigflow-{re.escape(swigflow.__version__)}-{TAG}-abi3-manylinux_2_(\d+)_x86_64\.whl"
)
HEADERS = [
    "swigflow/include/swigflow/framework/op.h",
    "swigflow/include/swigflow/framework/status.h",
    "swigflow/include/swigflow/framework/tensor.h",
    "swigflow/include/swigflow/io/crc32c.h",
    "swigflow/include/swigflow/io/record_reader.h",
    "swigflow/include/swigflow/io/record_writer.h",
    "swigflow/include/swigflow/io/zlib_stream.h",
]


def build(dest, *args):
    env = dict(os.environ, RUNFILES_DIR=RUNFILES)
    out = subprocess.run(
        [BUILDER, str(dest), *args], env=env, check=True, capture_output=True, text=True
    )
    path = out.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path), out
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return build(tmp_path_factory.mktemp("dist"))


def test_name_and_tag(wheel):
    match = WHEEL_NAME.fullmatch(os.path.basename(wheel))
    assert match, os.path.basename(wheel)
    glibc_minor = int(match.group(1))
    built_with = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
    assert 17 <= glibc_minor <= int(built_with.split(".")[1]), (wheel, built_with)
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(f"swigflow-{swigflow.__version__}.dist-info/WHEEL").decode()
        names = z.namelist()
    assert f"Tag: {TAG}-abi3-manylinux_2_{glibc_minor}_x86_64" in meta
    assert "Root-Is-Purelib: false" in meta
    # Third-party libraries are linked statically: auditwheel grafted nothing in.
    assert not [n for n in names if ".libs/" in n]


def test_the_tag_follows_glibc_alone(wheel, tmp_path):
    """The one .so does not need the system's libstdc++ (nor any GLIBCXX_/CXXABI_ version), so
    the tag is the newest glibc symbol version it imports: from Debian 12 (glibc 2.36, GCC 12)
    that is 2.34, which RHEL 9 and Amazon Linux 2023 have."""
    glibc_minor = int(WHEEL_NAME.fullmatch(os.path.basename(wheel)).group(1))
    with zipfile.ZipFile(wheel) as z:
        libraries = [n for n in z.namelist() if n.endswith(".so")]
        z.extractall(tmp_path, libraries)
    assert libraries == ["swigflow/_pywrap_swigflow.so"]
    path = str(tmp_path / libraries[0])
    dynamic = subprocess.run(["readelf", "-d", path], check=True, capture_output=True).stdout
    needed = re.findall(rb"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    assert sorted(needed) == [
        b"ld-linux-x86-64.so.2",
        b"libc.so.6",
        b"libgcc_s.so.1",  # the unwinder, one for every library in the process
        b"libm.so.6",
        b"libz.so.1",
    ]
    imports = subprocess.run(["objdump", "-T", path], check=True, capture_output=True).stdout
    assert not re.search(rb"\b(GLIBCXX|CXXABI)_", imports)
    assert glibc_minor == max(map(int, re.findall(rb"\(GLIBC_2\.(\d+)\)", imports)))
    if os.confstr("CS_GNU_LIBC_VERSION") == "glibc 2.36":  # Debian 12, where releases are built
        assert glibc_minor <= 34


def test_contents(wheel):
    with zipfile.ZipFile(wheel) as z:
        infos = {i.filename: i for i in z.infolist()}
        metadata = z.read(f"swigflow-{swigflow.__version__}.dist-info/METADATA").decode()
    for name in [
        "swigflow/__init__.py",
        "swigflow/errors.py",
        "swigflow/io/__init__.py",
        "swigflow/sysconfig.py",
        "swigflow/pywrap_swigflow.py",
        "swigflow/proto/__init__.py",
        "swigflow/proto/descriptors.py",
        "swigflow/ops/__init__.py",
        "swigflow/ops/gen_nn_ops.py",
        "swigflow/ops/gen_quantization_ops.py",
        "swigflow/proto/example.proto",
        "swigflow/proto/feature.proto",
        "swigflow/_pywrap_swigflow.so",
        "swigflow/py.typed",
        "swigflow/pywrap_swigflow.pyi",
        f"swigflow-{swigflow.__version__}.dist-info/licenses/LICENSE",
        *HEADERS,
    ]:
        assert name in infos, name
    for name, info in infos.items():
        if info.is_dir():  # auditwheel's rewrite adds folder entries
            continue
        mode = info.external_attr >> 16
        assert not stat.S_ISLNK(mode), f"{name} is a symlink"
        assert not stat.S_IMODE(mode) & 0o002, f"{name} is world-writable"
        if name.startswith("swigflow/"):  # staged by us; dist-info is written by setuptools
            expected = 0o755 if name.endswith(".so") else 0o644
            assert stat.S_IMODE(mode) == expected, f"{name}: {oct(stat.S_IMODE(mode))}"
        assert "BUILD" not in name.split("/") and "__pycache__" not in name
    assert FLOOR == (3, 11)
    assert "Requires-Python: >=3.11" in metadata
    # What .ci/python_versions runs the wheel on (3.14 and 3.15: Debian testing's, --debian testing)
    for version in ("3.11", "3.12", "3.13", "3.14", "3.15"):
        assert f"Classifier: Programming Language :: Python :: {version}" in metadata
    assert "Requires-Dist: numpy" in metadata
    assert (
        "Requires-Dist: protobuf<8,>=4.25" in metadata
        or "Requires-Dist: protobuf>=4.25,<8" in metadata
    )
    assert "License-Expression: Apache-2.0" in metadata or "License: Apache-2.0" in metadata


def test_reproducible(wheel, tmp_path):
    again = build(tmp_path)
    with open(wheel, "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read(), "two builds gave different wheels"


def test_project_name_option(tmp_path):
    other = build(tmp_path, "--project_name", "swigflow_nightly")
    assert os.path.basename(other).startswith(f"swigflow_nightly-{swigflow.__version__}-{TAG}")


def test_usage_error(tmp_path):
    result = subprocess.run([BUILDER], capture_output=True, text=True)
    assert result.returncode == 2
    assert "usage:" in result.stderr


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """A fresh venv with only the wheel installed; numpy is borrowed from the build venv."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            "-q",
            wheel,
        ],
        check=True,
    )
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Offline, so the dependency comes from the interpreter running this test, via a .pth file.
    with open(os.path.join(site, "borrowed_numpy.pth"), "w") as f:
        f.write(os.path.dirname(os.path.dirname(numpy.__file__)) + "\n")
    return python, site


def run_installed(installed, code):
    python, _ = installed
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("TEST_TMPDIR", "/tmp")}
    # -I: no PYTHONPATH, no user site, no script directory; cwd "/": nowhere near the sources.
    result = subprocess.run(
        [python, "-I", "-c", textwrap.dedent(code)],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_imports_from_outside_source_tree(installed):
    _, site = installed
    out = run_installed(
        installed,
        """
        import swigflow
        print(swigflow.__file__)
        print(swigflow.__version__)
        print(swigflow.io.crc32c(b"123456789"))
        try:
            swigflow.pywrap_swigflow.StatusForTesting(swigflow.errors.DATA_LOSS, "bad")
        except swigflow.errors.DataLossError as e:
            print(type(e).__name__, e.error_code)
        """,
    ).split("\n")
    assert out[0] == os.path.join(site, "swigflow", "__init__.py")
    assert out[1] == swigflow.__version__
    assert int(out[2]) == 0xE3069283
    assert out[3] == "DataLossError 15"


def test_every_op_has_a_generated_wrapper_with_a_docstring(installed):
    out = run_installed(
        installed,
        """
        import inspect, re
        import swigflow
        from swigflow.ops import gen_nn_ops, gen_quantization_ops
        wrapped = {}
        for module in (gen_nn_ops, gen_quantization_ops):
            for name, fn in vars(module).items():
                if inspect.isfunction(fn) and fn.__module__ == module.__name__:
                    op = re.search(r'_run\\(\\s*"(\\w+)"', inspect.getsource(fn)).group(1)
                    assert "Args:" in fn.__doc__ and "Returns:" in fn.__doc__, name
                    wrapped[op] = name
        assert sorted(wrapped) == sorted(op["name"] for op in swigflow.ops.list_ops())
        print(wrapped["Conv2DBackpropInput"], len(wrapped))
        """,
    )
    assert out.split()[0] == "conv2d_backprop_input"


def test_headers_compile_with_sysconfig_flags(installed, tmp_path):
    out = run_installed(
        installed,
        """
        import swigflow.sysconfig as s
        print(s.get_include())
        print(" ".join(s.get_compile_flags()))
        """,
    ).splitlines()
    include, flags = out[0], out[1].split()
    for header in HEADERS:
        assert os.path.isfile(os.path.join(include, header.split("include/", 1)[1])), header
    source = tmp_path / "uses_headers.cc"
    source.write_text(
        '#include "swigflow/framework/status.h"\n'
        '#include "swigflow/io/crc32c.h"\n'
        '#include "swigflow/io/record_reader.h"\n'
        '#include "swigflow/io/record_writer.h"\n'
        "swigflow::Status Check() {\n"
        "  return swigflow::crc32c::Mask(0) == swigflow::crc32c::kMaskDelta\n"
        '             ? swigflow::Status::OK() : swigflow::errors::Internal("mask");\n'
        "}\n"
    )
    subprocess.run(["g++", "-fsyntax-only", *flags, str(source)], check=True)


def test_console_script(installed, tmp_path):
    """The wheel installs a `swigflow` command that works with numpy alone (no tqdm, Pillow)."""
    python, _ = installed
    script = os.path.join(os.path.dirname(python), "swigflow")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("TEST_TMPDIR", "/tmp")}
    version = subprocess.run([script, "--version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"swigflow {swigflow.__version__}"
    golden = os.path.join(RUNFILES, "org_swigflow", "tests", "testdata", "golden")
    count = subprocess.run(
        [script, "count", os.path.join(golden, "records.gzip.tfrecord")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert count.returncode == 0, count.stderr
    assert count.stdout.split()[0] == "60"


def test_ctrl_c_while_the_command_imports_is_one_line(installed):
    """SIGINT while `swigflow` is still importing the package ends it with status 130 and one
    line, as later in the command, not a traceback. The signal is sent once the import is seen
    under way (PYTHONPROFILEIMPORTTIME reports each module as it completes)."""
    python, _ = installed
    script = os.path.join(os.path.dirname(python), "swigflow")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": os.environ.get("TEST_TMPDIR", "/tmp"),
        "PYTHONPROFILEIMPORTTIME": "1",
    }
    proc = subprocess.Popen(
        [script, "--version"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # bazel may start tests with SIGINT ignored, which a child would inherit
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.rstrip().endswith("swigflow.errors"):  # the package's import is under way
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.stderr.read()
    stdout = proc.stdout.read()
    proc.wait(timeout=60)
    messages = [ln for ln in rest.splitlines() if not ln.startswith("import time:")]
    assert proc.returncode == 130, (stdout, messages)
    assert messages == ["swigflow: interrupted"], messages
    assert "Traceback" not in rest


def test_extension_exports_only_pyinit_and_the_swigflow_api(installed):
    """Custom op libraries link the module (soname _pywrap_swigflow.so), so it exports swigflow's
    C++ API beside its PyInit, and nothing of the libraries linked into it."""
    _, site = installed
    so = os.path.join(site, "swigflow", "_pywrap_swigflow.so")
    dynamic = subprocess.run(["readelf", "-d", so], check=True, capture_output=True, text=True)
    assert "Library soname: [_pywrap_swigflow.so]" in dynamic.stdout
    symbols = subprocess.run(
        ["nm", "-D", "--defined-only", "-C", so], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    # Those others can bind to: global, weak and unique ("u"). The linker also lists some local
    # thread-local ones (lowercase), e.g. of the libstdc++ linked in.
    fields = [line.split(" ", 2) for line in symbols]
    names = [name for _, kind, name in fields if kind.isupper() or kind == "u"]
    assert "PyInit__pywrap_swigflow" in names
    assert any(n.startswith("swigflow::RunOp(") for n in names)
    others = [n for n in names if "swigflow::" not in n and n != "PyInit__pywrap_swigflow"]
    assert not others, others[:5]


QUICKSTART = os.path.join(RUNFILES, "org_swigflow", "examples", "quickstart.py")


def test_quickstart_demo_runs_on_the_installed_wheel(installed, tmp_path):
    """The README's first command ends with this demo: generated images, build-image-dataset
    (through `python -m swigflow`), then swigflow.data batches, all from the installed wheel."""
    python, _ = installed
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("TEST_TMPDIR", "/tmp")}
    out = tmp_path / "demo"
    result = subprocess.run(
        [python, "-I", QUICKSTART, "--output-directory", str(out), "--images-per-class", "20",
         "--epochs", "2", "--batch-size", "8"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 train shards (48 records) and 1 validation shard (12 records)" in result.stdout
    assert "96 images in 12 batches of shape (8, 3, 96, 96)" in result.stdout
    assert "circles: 32, stripes: 32, checks: 32" in result.stdout
    assert sorted(p.name for p in (out / "shards").glob("train-*-of-00004")) == [
        f"train-0000{i}-of-00004" for i in range(4)
    ]


ZERO_OUT = os.path.join(RUNFILES, "org_swigflow", "examples", "custom_op", "zero_out.cc")

DUPLICATE_OP = """
#include "swigflow/framework/op.h"
REGISTER_OP("ZeroOut").Input("x: int32").Output("y: int32");
"""


CUSTOM_OPS_PAGE = os.path.join(RUNFILES, "org_swigflow", "docs", "custom_ops.md")


def test_the_custom_ops_page_runs_as_written(installed, tmp_path):
    """docs/custom_ops.md's two commands, verbatim, with the installed wheel's python first on
    PATH; what they print is the block's trailing comment."""
    python, _ = installed
    with open(CUSTOM_OPS_PAGE, encoding="utf-8") as f:
        page = f.read()
    block = next(b for b in page.split("```")[1::2] if "g++ -std=c++17" in b)
    expected = [line[2:] for line in block.strip().split("\n") if line.startswith("# ")]
    shutil.copy(ZERO_OUT, tmp_path / "zero_out.cc")
    env = {
        "PATH": os.path.dirname(python) + ":/usr/bin:/bin",
        "HOME": os.environ.get("TEST_TMPDIR", "/tmp"),
    }
    result = subprocess.run(
        ["bash", "-e", "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected


def test_custom_op_built_against_the_installed_wheel(installed, tmp_path):
    """The README's two commands, outside Bazel: g++ with sysconfig's flags, then
    load_op_library; also the errors for loading twice and for a duplicate op."""
    python, _ = installed
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("TEST_TMPDIR", "/tmp")}
    flags = subprocess.run(
        [python, "-I", "-c", "import swigflow.sysconfig as s; "
         "print(*s.get_compile_flags(), *s.get_link_flags())"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    shutil.copy(ZERO_OUT, tmp_path / "zero_out.cc")
    (tmp_path / "duplicate.cc").write_text(DUPLICATE_OP)
    for name in ("zero_out", "duplicate"):
        subprocess.run(
            ["g++", "-std=c++17", "-shared", "-fPIC", f"{name}.cc", "-o", f"{name}.so", *flags],
            cwd=tmp_path, env=env, check=True,
        )  # fmt: skip
    code = textwrap.dedent(
        """
        import numpy as np, swigflow
        module = swigflow.load_op_library("./zero_out.so")
        print(module.OP_LIST)
        print(module.zero_out(np.array([[5, 2], [3, 4]], np.int32)).tolist())
        try:
            swigflow.load_op_library("./zero_out.so")
        except swigflow.errors.AlreadyExistsError as e:
            print("twice:", e.message)
        try:
            swigflow.load_op_library("./duplicate.so")
        except swigflow.errors.AlreadyExistsError as e:
            print("duplicate:", e.message)

        @swigflow.ops.RegisterGradient("ZeroOut")
        def _zero_out_grad(op, grad):
            first = np.zeros_like(grad)
            first.reshape(-1)[0] = grad.reshape(-1)[0]
            return [first]

        x = np.array([7, 8, 9], np.int32)
        with swigflow.ops.GradientTape() as tape:
            y = module.zero_out(x)
        print(swigflow.ops.get_gradient("ZeroOut") is _zero_out_grad)
        print(tape.gradient(y, [x])[0])  # an int32 source has no gradient, as in TensorFlow
        """
    )
    result = subprocess.run(
        [python, "-I", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "['ZeroOut']"
    assert lines[1] == "[[5, 0], [0, 0]]"
    assert lines[2].startswith("twice: ./zero_out.so is already loaded")
    assert lines[3] == "duplicate: ./duplicate.so: Op with name ZeroOut is already registered"
    assert lines[4:6] == ["True", "None"]
