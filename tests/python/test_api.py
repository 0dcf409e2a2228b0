"""The public surface of the package: names, version, sysconfig."""

import importlib
import os
import re
import types

import swigflow
from swigflow import pywrap_swigflow


def test_version_is_pep440():
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc)?\d*", swigflow.__version__)


def test_tensorflow_style_names():
    assert callable(swigflow.io.crc32c)
    assert callable(swigflow.io.masked_crc32c)
    assert issubclass(swigflow.errors.DataLossError, swigflow.errors.OpError)
    for name in ("get_include", "get_lib", "get_compile_flags", "get_link_flags"):
        assert callable(getattr(swigflow.sysconfig, name))


def test_compile_flags_carry_standard_and_abi():
    flags = swigflow.sysconfig.get_compile_flags()
    assert flags[0] == "-I" + swigflow.sysconfig.get_include()
    assert "-std=c++17" in flags
    # Bazel's gcc builds with libstdc++'s new ABI; the flag must say what the .so was built with.
    assert f"-D_GLIBCXX_USE_CXX11_ABI={pywrap_swigflow.CxxAbiFlag()}" in flags
    assert pywrap_swigflow.CxxAbiFlag() in (0, 1)


def test_link_flags_point_at_package():
    lib = swigflow.sysconfig.get_lib()
    assert swigflow.sysconfig.get_link_flags() == [
        "-L" + lib,
        "-l:_pywrap_swigflow.so",
        "-Wl,-rpath," + lib,
    ]
    assert os.path.exists(os.path.join(lib, "_pywrap_swigflow.so"))


def test_low_level_module_lives_in_package():
    # SWIG's %module(package=...) makes the shim import the .so relative to the package.
    assert pywrap_swigflow.__name__ == "swigflow.pywrap_swigflow"
    extension = importlib.import_module("swigflow._pywrap_swigflow")
    assert extension.__file__.endswith("_pywrap_swigflow.so")
    # Python's stable ABI (3.11's): SWIG's proxy classes over one module for every CPython.
    assert pywrap_swigflow.LimitedApiVersion() == 0x030B0000
    assert pywrap_swigflow.flat is extension


def test_method_binds_the_extension_function_to_this():
    # The per-call paths hand the extension a proxy's `this`, not the proxy (see flat).
    spec = pywrap_swigflow.FeatureSpec()
    set_key = pywrap_swigflow.method(spec, "key_set")
    assert set_key.__func__ is pywrap_swigflow.flat.FeatureSpec_key_set
    assert set_key.__self__ is spec.this
    set_key("label")
    assert spec.key == "label"
    # Not a proxy (a closed handle's stand-in): its own attribute.
    stand_in = types.SimpleNamespace(Read=len)
    assert pywrap_swigflow.method(stand_in, "Read") is len
