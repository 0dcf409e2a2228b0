"""Every public callable the API golden lists documents its parameters: an ``Args:`` section
(Google style, what the site's napoleon renders) naming each one. Classes document their
constructor's parameters in the class docstring (or ``__init__``'s); methods may inherit their
documentation from the base class that defines the contract, as autodoc shows it."""

import importlib
import inspect
import re

import api_golden
import pytest


def _parameters(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    names = []
    for p in signature.parameters.values():
        if p.name in ("self", "cls") or p.name.startswith("_"):
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def _documented(doc):
    """The parameter names of the docstring's Args: section."""
    match = re.search(r"^([ \t]*)Args:\n((?:\1[ \t]+\S.*\n?|[ \t]*\n)*)", doc, re.M)
    if not match:
        return None
    body = match.group(2)
    indent = min(len(line) - len(line.lstrip()) for line in body.split("\n") if line.strip())
    return {m.group(1) for m in re.finditer(rf"^ {{{indent}}}(\**\w+)(?: \(.*?\))?:", body, re.M)}


def _public_callables():
    """(qualified name, object, docstring) for every public function, class and method."""
    seen = set()
    for module_name in api_golden.PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in api_golden._public_names(module):
            try:
                obj = getattr(module, name)
            except ImportError:  # a lazy name whose optional dependency is missing
                continue
            if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            qualified = f"{module_name}.{name}"
            if not inspect.isclass(obj):
                yield qualified, obj, inspect.getdoc(obj) or ""
                continue
            if api_golden._constructor_signature(obj):
                init_doc = (
                    inspect.getdoc(obj.__dict__["__init__"]) if "__init__" in vars(obj) else ""
                )
                yield qualified, obj, (inspect.getdoc(obj) or "") + "\n" + (init_doc or "")
            for attr_name in sorted(vars(obj)):
                if attr_name.startswith("_") and attr_name != "__call__":
                    continue
                attr = inspect.getattr_static(obj, attr_name)
                function = getattr(attr, "__func__", attr)
                if inspect.isfunction(function) and id(function) not in seen:
                    seen.add(id(function))
                    doc = inspect.getdoc(getattr(obj, attr_name)) or ""
                    yield f"{qualified}.{attr_name}", function, doc


CALLABLES = [c for c in _public_callables() if _parameters(c[1])]


def test_there_are_many():
    assert len(CALLABLES) > 300


@pytest.mark.parametrize("name,obj,doc", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_args_name_every_parameter(name, obj, doc):
    documented = _documented(doc)
    assert documented is not None, f"{name}: no Args: section"
    missing = [p for p in _parameters(obj) if p not in documented]
    assert not missing, f"{name}: Args: does not name {missing}"
