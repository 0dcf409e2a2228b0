"""Sphinx configuration of swigflow's documentation site: the guide (Markdown, through MyST) and
an API reference generated from the docstrings (autodoc + napoleon, Google style).

The reference has one page per public module. Which modules are public is written once, in the
API golden (tests/api/golden/api/MODULE.txt); the pages are generated from that list when the
build starts, into api/ beside this file.

Build (swigflow must import, e.g. from the wheel's venv):
    python -m sphinx -W --keep-going -b html docs OUT
CI builds it the same way in //tests/docs:site_test.
"""

import os

project = "swigflow"
author = "The swigflow authors"
copyright = "the swigflow authors; Apache-2.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
# "#seekable-compressed-files" and the like resolve to the guide's headings.
myst_heading_anchors = 3
# Links to the repository's own files (examples/, LICENSE) are plain links on the site.
myst_url_schemes = ["http", "https", "mailto"]

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# "Attributes:" sections become fields of their class, not objects that autodoc documents again.
napoleon_use_ivar = True

html_theme = "alabaster"
html_title = "swigflow"
html_theme_options = {
    "description": "TFRecord data and TensorFlow-exact CPU kernels, without TensorFlow"
}

_HERE = os.path.dirname(os.path.abspath(__file__))
_GOLDEN = os.path.join(_HERE, os.pardir, "tests", "api", "golden", "api")


def public_modules():
    """The public modules, as the API golden lists them."""
    names = [f[: -len(".txt")] for f in os.listdir(_GOLDEN) if f.endswith(".txt")]
    return sorted(names)


def _classes_seen_before(modules):
    """For each module, its public classes already documented on an earlier module's page, as
    {name: that page's full name}. A class re-exported by several modules (swigflow.RaggedTensor is
    also swigflow.datasets.features.RaggedTensor) is documented once and linked from the others:
    Sphinx registers a class under its defining module's name, which must be unique."""
    import importlib
    import inspect

    first, seen = {}, {}
    for m in modules:
        module = importlib.import_module(m)
        seen[m] = {}
        for name in getattr(module, "__all__", None) or dir(module):
            if name.startswith("_") or name not in vars(module):
                continue
            obj = vars(module)[name]
            if inspect.isclass(obj) and (obj.__module__ or "").startswith("swigflow"):
                if id(obj) in first:
                    seen[m][name] = first[id(obj)]
                else:
                    first[id(obj)] = f"{m}.{name}"
    return seen


def _lazy_names(module_name):
    """The module's public names it loads on first use (PEP 562: swigflow.ray's classes import
    Ray), with the directive that documents each; one whose optional dependency is missing is
    left out."""
    import importlib
    import inspect

    module = importlib.import_module(module_name)
    lazy = []
    for name in getattr(module, "__all__", ()):
        if name in vars(module):
            continue
        try:
            obj = getattr(module, name)
        except ImportError:
            continue
        lazy.append((name, "autoclass" if inspect.isclass(obj) else "autofunction"))
    return lazy


def _write_api_pages(app):
    api = os.path.join(app.srcdir, "api")
    os.makedirs(api, exist_ok=True)
    modules = public_modules()
    aliases = _classes_seen_before(modules)
    pages = {
        "index.rst": "API reference\n=============\n\nOne page per public module.\n\n"
        ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {m}\n" for m in modules)
    }
    for m in modules:
        title = f"``{m}``"
        text = f"{title}\n{'=' * len(title)}\n\n.. automodule:: {m}\n   :members:\n"
        text += "   :imported-members:\n"
        if aliases[m]:
            text += f"   :exclude-members: {', '.join(sorted(aliases[m]))}\n\n"
            text += "".join(
                f"* ``{m}.{name}`` is :class:`{home}`.\n"
                for name, home in sorted(aliases[m].items())
            )
        for name, directive in _lazy_names(m):
            text += f"\n.. {directive}:: {m}.{name}\n"
            text += "   :members:\n" if directive == "autoclass" else ""
        pages[f"{m}.rst"] = text
    for name, text in pages.items():
        path = os.path.join(api, name)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old != text:  # unchanged pages keep their time stamps: no needless rebuilds
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


def _skip_foreign(app, what, name, obj, skip, options):
    """Names a module imports for its annotations (typing.Any, collections.abc.Iterator) are
    not swigflow's: with :imported-members: they would be documented on every page."""
    del app, name, options
    module = getattr(obj, "__module__", None)
    if what == "module" and isinstance(module, str) and not module.startswith("swigflow"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)
    app.connect("builder-inited", _write_api_pages)
