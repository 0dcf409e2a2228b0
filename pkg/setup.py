"""setuptools script for the swigflow wheel; run by build_pip_package on a staged tree.

The extension module is already built by Bazel: this script only packages it. It keeps to
Python's stable ABI (Py_LIMITED_API, set in bazel/workspace.bzl), so the wheel is tagged
cp3X-abi3 for the oldest CPython the module loads in, which Requires-Python states too; declaring
the distribution as binary keeps the tag from being py3-none-any.
"""

import importlib.util
import os
import re

from setuptools import find_packages, setup
from setuptools.dist import Distribution

_HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    with open(os.path.join(_HERE, "swigflow", "_version.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M).group(1)


def _long_description():
    with open(os.path.join(_HERE, "README.md"), encoding="utf-8") as f:
        return f.read()


def _limited_api():
    """(major, minor) of the stable ABI the built module keeps to, from its build info."""
    path = os.path.join(_HERE, "swigflow", "_pywrap_swigflow.so")
    spec = importlib.util.spec_from_file_location("_pywrap_swigflow", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    version = module.LimitedApiVersion()  # Py_LIMITED_API: 0x030b0000 for 3.11
    return version >> 24, (version >> 16) & 0xFF


_FLOOR = _limited_api()


class BinaryDistribution(Distribution):
    """A distribution holding a prebuilt extension module."""

    def has_ext_modules(self):
        return True


setup(
    name=os.environ.get("SWIGFLOW_PROJECT_NAME", "swigflow"),
    version=_version(),
    description="TFRecord I/O and TensorFlow-exact CPU kernels, without TensorFlow",
    long_description=_long_description(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    license_files=["LICENSE"],
    packages=find_packages(),
    package_data={
        "swigflow": [
            "_pywrap_swigflow.so",
            "include/**/*.h",
            "proto/*.proto",
            "py.typed",
            "*.pyi",
        ]
    },
    # One wheel for every CPython from the floor on (.ci/python_versions installs and runs it on
    # each it finds); ruff's target-version matches the floor.
    python_requires=f">={_FLOOR[0]}.{_FLOOR[1]}",
    options={"bdist_wheel": {"py_limited_api": f"cp{_FLOOR[0]}{_FLOOR[1]}"}},
    # protobuf: swigflow.train's messages (swigflow/proto); the floor is the oldest release CI
    # tests (.ci/protobuf_floor), the ceiling the next major version, untested.
    install_requires=["numpy>=1.23", "protobuf>=4.25,<8"],
    extras_require={
        # `swigflow build-image-dataset`: a progress bar, and non-JPEG images / --resize.
        "cli": ["tqdm>=4.60", "Pillow>=9.1"],
        # scheme:// paths through fsspec (swigflow.io.gfile), with its S3 and HTTP backends;
        # other backends (gcsfs, adlfs, ...) install as fsspec documents.
        "remote": ["fsspec>=2023.6", "s3fs>=2023.6", "aiohttp>=3.8"],
        # swigflow.ray: TFRecord datasources and datasinks for Ray Data.
        "ray": ["ray[data]>=2.40,<3"],
        # swigflow.data.ParseExampleTransform, for Grain pipelines over TFRecordDataSource.
        "grain": ["grain>=0.2.18"],
        # swigflow.datasets: TFDS datasets prepared in the ArrayRecord format.
        "array_record": ["array_record>=0.5"],
        # swigflow.io.decode_compressed(..., "ZSTD").
        "zstd": ["zstandard>=0.22"],
        # `swigflow profile --png`: the time line of stage activity.
        "plot": ["matplotlib>=3.5"],
    },
    # The `swigflow` command: a script, so that Ctrl-C while the package imports is quiet too.
    scripts=["scripts/swigflow"],
    distclass=BinaryDistribution,
    zip_safe=False,
    classifiers=[
        "Programming Language :: C++",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Programming Language :: Python :: 3.14",
        "Programming Language :: Python :: 3.15",
        "Operating System :: POSIX :: Linux",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
