"""Writes the type stub (.pyi) of a SWIG extension module, for py_wrap_cc's `<name>_stub`.

The module is imported from the files Bazel built (the .so, its .py shim and the shared
libraries it loads), and each public name is written from what SWIG's autodoc put in its
docstring: ``Name(type1 arg1, type2 arg2) -> type`` (``%feature("autodoc", "1")``). C++ types
map to Python ones (integers to int, std::string to str, PyObject * to Any, a wrapped class to
itself); what has no autodoc line gets ``*args: Any`` and ``-> Any``.
An extension built with AddressSanitizer (--config=asan) is imported with the ASan runtime
preloaded, as the instrumented tests load it.

Usage: swig_stub.py --package PKG --module NAME --out OUT.pyi FILE...
"""

import argparse
import importlib
import inspect
import os
import re
import shutil
import sys
import tempfile

_INTEGERS = re.compile(
    r"^(unsigned\s+)?(int|long|long long|short|char|size_t|ssize_t|u?int(8|16|32|64)_t|"
    r"std::u?int(8|16|32|64)_t|std::size_t|ptrdiff_t|std::ptrdiff_t)$"
)


def _plain(match):
    return "string" if "string" in match.group(0) else ""


def python_type(cxx, classes):
    """The Python annotation of a C++ type as SWIG's autodoc writes it."""
    t = re.sub(r"\bconst\b|&|\bswigflow::(?:\w+::)*|\bstd::string\b", _plain, cxx)
    t = " ".join(t.replace("*", " * ").split())
    if t in ("void", "Status"):  # a failed Status is raised as its swigflow.errors class
        return "None"
    if t == "integer":  # SWIG's own name for an int typemap's argument
        return "int"
    if t == "bool":
        return "bool"
    if _INTEGERS.match(t):
        return "int"
    if t in ("float", "double"):
        return "float"
    if t in ("string", "str", "char *", "char const *", "char  *"):
        return "str"
    base = t.replace(" *", "").strip()
    if base in classes:
        return base
    return "Any"


def signature(doc, name, classes):
    """(parameters, return annotation) from the first autodoc line of `doc`, or None."""
    for line in (doc or "").splitlines():
        m = re.match(rf"^\s*{re.escape(name)}\((.*)\)\s*(?:->\s*(.+))?$", line.strip())
        if not m:
            continue
        params = []
        for k, part in enumerate(p.strip() for p in _split(m.group(1)) if p.strip()):
            default = ""
            if "=" in part:
                part, _ = part.split("=", 1)
                default = " = ..."
            words = part.replace("*", " * ").replace("&", " & ").split()
            pname = words[-1] if len(words) > 1 and re.fullmatch(r"\w+", words[-1]) else f"arg{k}"
            ptype = " ".join(words[:-1]) if len(words) > 1 else part
            if pname in ("self",):
                continue
            params.append(f"{_safe(pname)}: {python_type(ptype, classes)}{default}")
        returns = python_type(m.group(2).strip(), classes) if m.group(2) else "None"
        return params, returns
    return None


def _split(text):
    depth, part, out = 0, "", []
    for c in text:
        depth += c in "<(["
        depth -= c in ">)]"
        if c == "," and depth == 0:
            out.append(part)
            part = ""
        else:
            part += c
    out.append(part)
    return out


def _safe(name):
    return name + "_" if name in ("lambda", "from", "in", "is", "class", "def", "type") else name


def function_stub(name, obj, classes, indent="", method=False):
    found = signature(obj.__doc__, name, classes)
    params, returns = found if found else (["*args: Any", "**kwargs: Any"], "Any")
    if method:
        params = ["self", *params]
    return f"{indent}def {name}({', '.join(params)}) -> {returns}: ...\n"


def class_stub(name, cls, classes):
    out = [f"class {name}:\n"]
    body = []
    for attr, value in sorted(vars(cls).items()):
        if attr.startswith("_") and attr != "__init__":
            continue
        if isinstance(value, (staticmethod, classmethod)):
            decorator = type(value).__name__
            body.append(
                f"    @{decorator}\n" + function_stub(attr, value.__func__, classes, "    ")
            )
        elif callable(value) or inspect.ismethoddescriptor(value):
            if attr == "__init__":
                body.append("    def __init__(self, *args: Any, **kwargs: Any) -> None: ...\n")
            else:
                body.append(function_stub(attr, value, classes, "    ", method=True))
        else:  # a member (getset descriptor): typed by its getter's autodoc when there is one
            body.append(f"    {attr}: Any\n")
    out.extend(body or ["    ...\n"])
    return "".join(out)


def stub(module):
    names = sorted(n for n in dir(module) if not n.startswith("_"))
    classes = {n for n in names if inspect.isclass(getattr(module, n))}
    parts = [
        f'"""Types of {module.__name__}, the SWIG extension module (generated at build time from\n'
        'its autodoc signatures by bazel/swig_stub.py)."""\n\nfrom typing import Any\n\n'
    ]
    for name in names:
        obj = getattr(module, name)
        if name in classes:
            parts.append("\n" + class_stub(name, obj, classes) + "\n")
        elif callable(obj):
            parts.append(function_stub(name, obj, classes))
        else:
            parts.append(
                f"{name}: {type(obj).__name__ if type(obj) in (int, float, str, bool) else 'Any'}\n"
            )
    return "".join(parts)


def _asan_runtime(files):
    """The soname of the AddressSanitizer runtime a library in `files` links (--config=asan),
    e.g. libasan.so.8, else None: an uninstrumented Python imports such a module only with that
    runtime loaded first, and the loader finds a soname in LD_PRELOAD on its own path."""
    for path in files:
        if path.endswith(".so"):
            with open(path, "rb") as f:
                found = re.search(rb"libasan\.so\.\d+", f.read())
            if found:
                return found.group(0).decode()
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", required=True)
    parser.add_argument("--module", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    runtime = _asan_runtime(args.files)
    if runtime is not None and os.environ.get("LD_PRELOAD") != runtime:
        # Run again with the runtime first; CPython's objects alive at exit are not leaks.
        env = dict(os.environ, LD_PRELOAD=runtime)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    root = tempfile.mkdtemp()
    try:
        package = os.path.join(root, args.package)
        os.makedirs(package)
        open(os.path.join(package, "__init__.py"), "w").close()
        for f in args.files:
            shutil.copy(f, package)
        sys.path.insert(0, root)
        module = importlib.import_module(f"{args.package}.{args.module}")
        with open(args.out, "w") as f:
            f.write(stub(module))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
