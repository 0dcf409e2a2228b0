"""The shape the binding layer and the Python package keep (see docs/design.md):
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


# Third-party names that are public though they start with "_": fsspec's async API names the
# coroutines of an AsyncFileSystem so (fsspec.asyn: "_cat_file" is cat_file's coroutine).
THIRD_PARTY_PUBLIC = frozenset({"_cat_file"})


def private_crossings(name, tree):
    """Uses in module `name` of private names that another module defines: imports of them,
    and attribute reads other than through self, cls or super()."""
    own = defined_names(tree)
    imported = {
        (a.asname or a.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
    }
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
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            if node.attr in THIRD_PARTY_PUBLIC:
                continue
            base = node.value
            # A private name of an imported module or class is another module's, even when
            # this module defines one of the same name (a subclass's own _NOT_IDENTITY).
            if node.attr in own and not (isinstance(base, ast.Name) and base.id in imported):
                continue
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
    tree = ast.parse("from a import Base\nclass C(Base):\n    _f = Base._f | {1}\n")
    assert private_crossings("pkg.m", tree) == ["3: Base._f"]


def import_time_nodes(tree):
    """The nodes that run when a module is imported: all but function bodies (a deferred
    import inside a function is how a face reaches what subclasses it, as tf.data's Dataset
    methods import their steps)."""
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


# The op modules Bazel generates (native/framework/python_op_gen.cc), which are not in the
# source tree: each imports the op registry alone.
GENERATED_MODULES = ("swigflow.ops.gen_nn_ops", "swigflow.ops.gen_quantization_ops")
GENERATED_IMPORT = "from swigflow.ops.registry import run as _run"


def test_generated_modules_import_what_the_graph_says():
    generator = (ROOT / "native" / "framework" / "python_op_gen.cc").read_text()
    assert generator.count("from swigflow.") == 1 and GENERATED_IMPORT in generator


def import_graph(deferred=False):
    """Module -> the package's modules it imports when imported (with `deferred`, also inside
    function bodies)."""
    names = {**modules(), **dict.fromkeys(GENERATED_MODULES)}
    graph = {name: {"swigflow.ops.registry"} for name in GENERATED_MODULES}
    for name, path in names.items():
        if path is None:
            continue  # generated
        edges = set()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree) if deferred else import_time_nodes(tree):
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


def import_cycles(graph):
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
    return cycles


def test_no_import_cycles():
    assert import_cycles(import_graph()) == []


# Packages whose modules import one another only one way, deferred imports (in function bodies)
# included: swigflow.data's face, by contrast, imports the steps that subclass it when a method
# is called, as tf.data's does. swigflow.ops and swigflow.math are one layered group: the
# registry below math, the tape above it (TensorFlow's backprop.py above math_ops).
LAYERED_PACKAGES = ("swigflow.io", "swigflow.ops", "swigflow.math")


def test_layered_packages_have_no_import_cycles_even_deferred():
    graph = import_graph(deferred=True)
    inside = {
        name: {e for e in edges if e.startswith(LAYERED_PACKAGES)}
        for name, edges in graph.items()
        if name.startswith(LAYERED_PACKAGES)
    }
    assert import_cycles(inside) == []


def test_import_cycles_are_found():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert import_cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]


def test_import_time_nodes_skip_function_bodies():
    tree = ast.parse("import a\nclass C:\n    import b\ndef f():\n    import c\n")
    imported = [
        alias.name
        for n in import_time_nodes(tree)
        if isinstance(n, ast.Import)
        for alias in n.names
    ]
    assert sorted(imported) == ["a", "b"]


MAX_DATA_MODULE_LINES = 750


def code_lines(text):
    """The module's lines outside docstrings: its code and comments. Documentation (the Args:
    every public callable has) is no second concept."""
    tree = ast.parse(text)
    documented = set()
    for node in ast.walk(tree):
        scopes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, scopes) and ast.get_docstring(node, clean=False) is not None:
            first = node.body[0]
            documented.update(range(first.lineno, first.end_lineno + 1))
    return len(text.splitlines()) - len(documented)


def test_code_lines_leave_out_docstrings():
    text = 'def f(x):\n    """Doc.\n\n    Args:\n        x: a value.\n    """\n    return x\n'
    assert code_lines(text) == 2


def test_no_data_module_is_over_the_line_budget():
    """swigflow.data keeps one concept per module (the face, checks, sources, a module per
    family of steps); a module whose code is past the budget is two concepts."""
    data = PACKAGE / "data"
    long = {
        str(p.relative_to(data)): n
        for p in data.rglob("*.py")
        if (n := code_lines(p.read_text())) > MAX_DATA_MODULE_LINES
    }
    assert long == {}


MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "register"})


def import_side_effects(tree):
    """Statements that change another module's state while this one is imported (a registry
    filled by an import): calls of a mutating method on an imported name's attribute, and
    assignments into one."""
    imported = set()
    for node in import_time_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)

    def rooted(node):  # an attribute or item of an imported name: mod.X, mod.X[k], X[k]
        if not isinstance(node, (ast.Attribute, ast.Subscript)):
            return False
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id in imported

    found = []
    for node in import_time_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            named = isinstance(target, ast.Name) and target.id in imported
            if node.func.attr in MUTATORS and (named or rooted(target)):
                found.append(f"{node.lineno}: {ast.unparse(node.func)}")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [f"{node.lineno}: {ast.unparse(x)} =" for x in targets if rooted(x)]
    return found


def test_no_module_fills_another_modules_registry_when_imported():
    """What a module offers is reached by importing it where it is used, never registered
    into another module as a side effect of an import (which leaves the other module's
    behaviour depending on what happened to be imported)."""
    problems = {}
    for name, path in sorted(modules().items()):
        found = import_side_effects(ast.parse(path.read_text()))
        if found:
            problems[name] = found
    assert problems == {}


def test_import_side_effects_are_found():
    tree = ast.parse(
        "from a import b as ds\nimport c\nfrom d import REG\nds.STEPS.update(x=1)\n"
        "c.FUSERS.append(f)\nREG.add(1)\nc.TABLE['k'] = 2\nmine = []\nmine.append(1)\n"
        "def f():\n    c.X.append(1)\n"
    )
    assert import_side_effects(tree) == [
        "4: ds.STEPS.update",
        "5: c.FUSERS.append",
        "6: REG.add",
        "7: c.TABLE['k'] =",
    ]


# The modules that wrap the SWIG extension (each a Python face over a part of the native core);
# the CLI, Ray, nn, train and the rest use those faces, so a binding change stays local.
EXTENSION_WRAPPERS = (
    "swigflow.data",
    "swigflow.errors",
    "swigflow.image",
    "swigflow.io",
    "swigflow.linalg",
    "swigflow.load_library",
    "swigflow.ops",
    "swigflow.sysconfig",
)


def imports_extension(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
            if node.module == "swigflow.pywrap_swigflow" or "swigflow.pywrap_swigflow" in names:
                return True
        elif isinstance(node, ast.Import) and any(
            a.name == "swigflow.pywrap_swigflow" for a in node.names
        ):
            return True
    return False


def test_only_the_wrapping_modules_import_the_extension():
    outside = [
        name
        for name, path in sorted(modules().items())
        if imports_extension(ast.parse(path.read_text()))
        and not any(name == w or name.startswith(w + ".") for w in EXTENSION_WRAPPERS)
    ]
    assert outside == []


def test_extension_imports_are_found():
    assert imports_extension(ast.parse("from swigflow import pywrap_swigflow as _pywrap\n"))
    assert imports_extension(ast.parse("import swigflow.pywrap_swigflow\n"))
    assert not imports_extension(ast.parse("from swigflow.io import example_codec\n"))


# What the package calls in the extension while it is imported: each changes (or reads) native
# state for the whole process, so each is one visible statement here and nowhere else. (The
# remote opener is installed by swigflow.io's one call of swigflow.io.remote.install().)
EXTENSION_CALLS_AT_IMPORT = {
    ("swigflow.errors", "RegisterExceptionFactory"),  # Status -> swigflow.errors classes
    ("swigflow.io.tf_record", "RetainFreedMemory"),  # the allocator's retention
    ("swigflow.data.records", "PipelineOptions"),  # the native defaults, read once
}


def extension_calls_at_import(tree):
    """The names called on the extension module (as its import names it) at import time."""
    aliases = set()
    for node in import_time_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "swigflow":
            aliases |= {a.asname or a.name for a in node.names if a.name == "pywrap_swigflow"}
    return {
        node.func.attr
        for node in import_time_nodes(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in aliases
    }


def test_the_extension_is_called_at_import_only_where_listed():
    found = {
        (name, call)
        for name, path in modules().items()
        for call in extension_calls_at_import(ast.parse(path.read_text()))
    }
    assert found == EXTENSION_CALLS_AT_IMPORT


def test_extension_calls_at_import_are_found():
    tree = ast.parse(
        "from swigflow import pywrap_swigflow as _p\n_p.Set(1)\nx = [_p.Get()]\n"
        "def f():\n    _p.Later()\n"
    )
    assert extension_calls_at_import(tree) == {"Set", "Get"}


def test_every_top_level_folder_is_in_the_layout():
    """docs/design.md's Layout names every folder under native/, python/swigflow/ and swig/,
    so the map of the tree cannot fall behind it."""
    design = (ROOT / "docs" / "design.md").read_text()
    layout = design[design.index("## Layout") :]
    layout = layout[: layout.index("```", layout.index("```") + 3)]
    named = set(re.findall(r"^([\w./|-]+)", layout, flags=re.M))
    missing = []
    for top in ("native", "python/swigflow", "swig"):
        for folder in sorted((ROOT / top).iterdir()):
            if folder.is_dir() and not folder.name.startswith(("_", ".")):
                rel = f"{top}/{folder.name}"
                if not any(n.rstrip("/") == rel or n.startswith(rel + "/") for n in named):
                    missing.append(rel)
    assert missing == []


# --- The binding layer owns its references ---------------------------------------------------
# swig/py_runtime.{h,cc} hold the helpers that own references (Ref, SharedRef, TempView, Gil,
# NewList, AddOutput, ...) and wrap the C API's conversions; every other binding file goes
# through them, so no path out of a function can leak or double-release.
RUNTIME_FILES = ("py_runtime.h", "py_runtime.cc")
MANUAL_DECREF = re.compile(r"\bPy_(X?DECREF|CLEAR|X?SETREF)\s*\(")
# (Not a binding class's own constructor or destructor: PyPipeline::~PyPipeline().)
C_API_CALL = re.compile(r"(?<![:~])\b_?Py[A-Za-z_]*\s*\(|\bPy_RETURN_\w+")

# (typemaps, lines calling the Python or numpy C API) per binding file outside the runtime, as
# a ratchet: a file over its budget should use (or add) a runtime helper; a file under it lowers
# its budget here, so the layer only gets thinner. Files not listed: (0, 0).
BINDING_BUDGETS = {
    "base.i": (3, 3),
    "example.i": (2, 0),
    "image.i": (2, 0),
    "ndarray.i": (4, 0),
    "record_io.i": (5, 0),
    "status.i": (1, 0),
    "py_example.cc": (0, 85),
    "py_file_system.cc": (0, 23),
    "py_image.cc": (0, 30),
    "py_linalg.cc": (0, 40),
    "py_ops.cc": (0, 48),
    "py_ops.h": (0, 1),
    "py_pipeline.cc": (0, 21),
    "py_pipeline.h": (0, 1),
    "py_record_io.cc": (0, 30),
    "py_record_io.h": (0, 3),
}


def binding_code(path):
    """A binding file's text without its // comments."""
    return re.sub(r"//[^\n]*", "", path.read_text())


def binding_counts(text):
    """(typemaps, lines calling the C API) of a binding file's code."""
    api_lines = sum(1 for line in text.splitlines() if C_API_CALL.search(line))
    return len(re.findall(r"%typemap\s*\(", text)), api_lines


def binding_files():
    return [
        p
        for p in sorted((ROOT / "swig").iterdir())
        if p.suffix in (".i", ".h", ".cc") and p.name not in RUNTIME_FILES
    ]


def test_no_manual_decref_outside_the_runtime():
    found = {}
    for path in binding_files():
        lines = [line for line in binding_code(path).splitlines() if MANUAL_DECREF.search(line)]
        if lines:
            found[path.name] = lines
    assert not found, f"release references through py_runtime.h's helpers (Ref, ...): {found}"


def test_binding_files_keep_their_budgets():
    files = binding_files()
    assert files, "no binding files found"
    over, under = [], []
    for path in files:
        counts = binding_counts(binding_code(path))
        budget = BINDING_BUDGETS.get(path.name, (0, 0))
        if any(c > b for c, b in zip(counts, budget)):
            over.append(f"{path.name}: {counts} > {budget}")
        elif counts != budget:
            under.append(f"{path.name}: {counts} (lower its budget from {budget})")
    assert not over, "over budget (typemaps, C-API lines): " + "; ".join(over)
    assert not under, "under budget, lower BINDING_BUDGETS: " + "; ".join(under)
    assert not set(BINDING_BUDGETS) - {p.name for p in files}, "budgets of files that are gone"


def test_binding_counts_find_calls_typemaps_and_decrefs():
    text = "%typemap(in) int { x; }\nPyObject* a = PyList_New(0);\n  Py_RETURN_NONE;\nint b = 1;\n"
    assert binding_counts(text) == (1, 2)
    assert MANUAL_DECREF.search("  Py_XDECREF(item);") and MANUAL_DECREF.search("Py_CLEAR(x)")
    assert not MANUAL_DECREF.search('const Ref items(PySequence_Fast(value, ""));')


# --- The kernels keep the BLIS shape -------------------------------------------------------------
# Functions short enough to read as steps; the 8-bit driver only drives (packers, the prepacked
# format and the ISA choice live beside it); blocking read from the environment in config/ alone;
# B's panel order walked in one place (gemm::ForEachPanel).
KERNELS = ROOT / "native" / "kernels"
MAX_KERNEL_FUNCTION_LINES = 120
MAX_INT8_DRIVER_LINES = 350
_CONTROL = re.compile(r"^(if|for|while|switch|else|do|return|catch|try)\b")
_SCOPE = re.compile(r"^(template\s*<[^{]*>\s*)?(namespace|class|struct|union|enum|extern)\b")


def cpp_code(text):
    """`text` without comments and with string and character literals emptied; lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text[i] in "\"'" and not (text[i] == "'" and i and text[i - 1].isalnum()):
            quote, j = text[i], i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(quote * 2)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def cpp_functions(text):
    """(first line, lines, head) of each function body outside another function: a brace whose
    statement has a parameter list and is no control statement, lambda or type."""
    found, scopes = [], []  # scopes: ("f", first line, head) or ("s",)
    head, head_line, line = "", 1, 1
    for c in cpp_code(text):
        if c == "\n":
            line += 1
            head += " "
        elif c == "{":
            h = " ".join(head.split())
            in_function = any(s[0] == "f" for s in scopes)
            is_function = (
                not in_function
                and "(" in h
                and not _CONTROL.match(h)
                and not _SCOPE.match(h)
                and not re.search(r"(=|return)\s*(\[.*)?$", h)
            )
            scopes.append(("f", head_line, h) if is_function else ("s",))
            head = ""
        elif c in "};" or (c == ":" and head.strip() in ("public", "protected", "private")):
            if c == "}" and scopes and (s := scopes.pop())[0] == "f":
                found.append((s[1], line - s[1] + 1, s[2]))
            head = ""
        else:
            if not head.strip() and not c.isspace():
                head_line = line
            head += c
    return found


def kernel_sources():
    return sorted(p for p in KERNELS.rglob("*") if p.suffix in (".cc", ".h"))


def test_no_kernel_function_is_over_its_line_budget():
    long = [
        f"{p.relative_to(ROOT)}:{first}: {lines} lines: {head[:80]}"
        for p in kernel_sources()
        for first, lines, head in cpp_functions(p.read_text())
        if lines > MAX_KERNEL_FUNCTION_LINES
    ]
    assert not long, "split these into named steps: " + "; ".join(long)


def test_cpp_functions_are_found():
    text = (
        "namespace a {\nclass C {\n public:\n  int F(int x) const {\n    if (x) {\n"
        '      return [&]() { return "}"; }();\n    }\n    return 0;\n  }\n};\n'
        "void G(int a,\n       int b) {\n  // }\n  auto f = [](int y) {\n    return y;\n  };\n}\n"
        "}  // namespace a\n"
    )
    assert [(first, lines) for first, lines, _ in cpp_functions(text)] == [(4, 6), (11, 7)]


def test_the_int8_driver_only_drives():
    lines = len((KERNELS / "gemm" / "int8_gemm.cc").read_text().splitlines())
    assert lines <= MAX_INT8_DRIVER_LINES, f"int8_gemm.cc: {lines} lines"


def test_blocking_comes_from_the_environment_in_config_only():
    gemm = KERNELS / "gemm"
    readers = [
        str(p.relative_to(gemm))
        for p in gemm.rglob("*")
        if p.suffix in (".cc", ".h") and "getenv" in cpp_code(p.read_text())
    ]
    assert readers and all(r.startswith("config/") for r in readers), readers


def test_the_panel_order_is_walked_once():
    walks = [
        p.name
        for p in kernel_sources()
        if re.search(r"for \(int64_t jc = \w+; jc < \w+; jc \+=", cpp_code(p.read_text()))
    ]
    assert walks == ["loops.h"], walks
