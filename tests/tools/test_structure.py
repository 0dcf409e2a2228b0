"""The shape the binding layer and the Python package keep (see README, "How the build works"):
the .i files hold SWIG directives, not C++; modules use each other's public names only; no
import cycles."""

import ast
import os
import pathlib
import re

ROOT = pathlib.Path(os.path.realpath(__file__)).parents[2]
PACKAGE = ROOT / "python" / "swigflow"

# Lines of C++ the .i files may hold inside %{ %} blocks (includes and the module's init); the
# binding code itself lives in swig/py_*.{h,cc}, compiled with warnings as errors.
MAX_INLINE_CPP_LINES = 250


def inline_cpp_lines(text):
    """Lines inside %{ ... %} blocks (%inline %{, %init %{, %{)."""
    count, inside = 0, False
    for line in text.splitlines():
        if inside:
            if line.startswith("%}"):
                inside = False
            else:
                count += 1
        elif re.search(r"%\{\s*$", line):
            inside = True
    return count


def test_interfaces_hold_directives_not_cpp():
    counts = {p.name: inline_cpp_lines(p.read_text()) for p in sorted((ROOT / "swig").glob("*.i"))}
    assert counts, "no interface files found"
    assert sum(counts.values()) <= MAX_INLINE_CPP_LINES, counts


def test_inline_cpp_lines_counts_blocks():
    text = "%{\n#include <a>\n%}\n%inline %{\nint f();\nint g();\n%}\n%typemap(in) int { x; }\n"
    assert inline_cpp_lines(text) == 3


def modules():
    """{dotted name: path} of every module in the package."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def defined_names(tree):
    """Every name a module binds itself: functions, classes, attributes, variables, arguments."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def is_private(name):
    return name.startswith("_") and not name.startswith("__")


def private_crossings(name, tree):
    """Uses in module `name` of private names that another module defines: imports of them,
    and attribute reads other than through self, cls or super()."""
    own = defined_names(tree)
    package = name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [f"{node.lineno}: import {a.name}" for a in node.names if is_private(a.name)]
            # A package's private submodule is for that package's own modules.
            parents = node.module.split(".")
            for depth, part in enumerate(parents):
                inside = name == ".".join(parents[:depth]) or package.startswith(
                    ".".join(parents[:depth])
                )
                if is_private(part) and part != "_version" and not inside:
                    found.append(f"{node.lineno}: from {node.module}")
        elif isinstance(node, ast.Attribute) and is_private(node.attr) and node.attr not in own:
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super":
                continue
            if isinstance(base, ast.Name) and base.id == "_pywrap":  # the SWIG module's names
                continue
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_uses_another_modules_private_names():
    problems = {}
    for name, path in sorted(modules().items()):
        crossings = private_crossings(name, ast.parse(path.read_text()))
        if crossings:
            problems[name] = crossings
    assert problems == {}


def test_private_crossings_are_found():
    tree = ast.parse("from a import _b\nimport c\nc._d()\nself._e\nx = 1\n")
    assert private_crossings("pkg.m", tree) == ["1: import _b", "3: c._d"]


def import_graph():
    names = modules()
    graph = {}
    for name, path in names.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if full in names else node.module)
            elif isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
        # A module importing its own package (its __init__) is Python's normal layout.
        graph[name] = {
            e for e in edges if e in names and e != name and not name.startswith(e + ".")
        }
    return graph


def test_no_import_cycles():
    graph = import_graph()
    state = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []
