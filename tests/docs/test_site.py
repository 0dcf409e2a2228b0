"""The documentation site: the README's shape, and Sphinx building the guide and the API reference
with warnings as errors, documenting every public name the API golden lists."""

import os
import pathlib
import re
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if not (ROOT / "docs" / "conf.py").exists():  # Bazel's runfiles tree: the workspace folder
    ROOT = pathlib.Path(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""))
GOLDEN = ROOT / "tests" / "api" / "golden" / "api"


def test_readme_is_short_with_the_quickstart_early():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 250
    assert "## Quickstart" in lines[:60]


def test_every_guide_page_is_in_the_site():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^([a-z0-9_]+)$", index, re.M))
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")} - {"index"}
    assert pages == listed


def _golden_names():
    """(module, name, kind) for every class and function the API golden lists (lazy ones too,
    when their optional dependency is installed)."""
    import importlib

    names = []
    for path in sorted(GOLDEN.glob("*.txt")):
        module = path.stem
        for line in path.read_text(encoding="utf-8").split("\n"):
            m = re.match(r"^  (class|function|lazy) (\w+)", line)
            if m:
                if m.group(1) == "lazy":
                    try:
                        getattr(importlib.import_module(module), m.group(2))
                    except ImportError:
                        continue
                names.append((module, m.group(2), m.group(1)))
    return names


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built from a copy of docs/ (conf.py writes the API pages beside itself), with
    warnings as errors; yields the output folder."""
    sphinx_build = pytest.importorskip("sphinx.cmd.build")
    pytest.importorskip("myst_parser")
    top = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT / "docs", top / "docs", ignore=shutil.ignore_patterns("api", "BUILD"))
    shutil.copy(ROOT / "README.md", top / "README.md")
    shutil.copytree(GOLDEN, top / "tests" / "api" / "golden" / "api")
    out = tmp_path_factory.mktemp("site")
    status = sphinx_build.build_main(
        ["-W", "--keep-going", "-q", "-b", "html", str(top / "docs"), str(out)]
    )
    assert status == 0, "sphinx-build reported warnings or errors (above)"
    return out


def test_the_site_documents_every_public_class_and_function(site):
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", os.path.join)
    by_type = getattr(inventory, "data", inventory)  # Sphinx 8 returns the dict itself
    documented = {name for entries in by_type.values() for name in entries}
    missing = [
        f"{module}.{name}"
        for module, name, _ in _golden_names()
        if f"{module}.{name}" not in documented and not _documented_as_alias(site, module, name)
    ]
    assert missing == []
    for page in ("tfrecord", "pipelines", "tfds", "differences", "api/index"):
        assert (site / f"{page}.html").exists()


def _documented_as_alias(site, module, name):
    """A class re-exported by several modules is documented once and named on the others."""
    page = (site / "api" / f"{module}.html").read_text(encoding="utf-8")
    return f"{module}.{name}</span></code> is" in page
