"""Every tracked Starlark, Python and C++ file is formatted and lint-clean."""

import os
import re
import subprocess
import sys

import pytest

# This file's runfiles link resolves into the checkout.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
VENV_BIN = os.path.dirname(sys.executable)


def tracked(predicate):
    out = subprocess.run(
        ["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    files = sorted({f for f in out.split("\0") if f and predicate(f)})
    files = [f for f in files if os.path.exists(os.path.join(ROOT, f))]
    assert files, "no files found to lint"
    return files


def check(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command[:3])} ...\n{result.stdout}{result.stderr}"


def is_starlark(path):
    name = os.path.basename(path)
    return path.endswith(".bzl") or name in ("BUILD", "BUILD.bazel", "WORKSPACE")


def test_buildifier():
    buildifier = os.environ.get("SWIGFLOW_BUILDIFIER")
    if not buildifier:
        pytest.fail("SWIGFLOW_BUILDIFIER is unset: run ./configure (it writes .bazelrc.user)")
    check([buildifier, "--lint=warn", "--mode=check", *tracked(is_starlark)])


def test_ruff_check():
    check(
        [
            os.path.join(VENV_BIN, "ruff"),
            "check",
            "--no-cache",
            *tracked(lambda f: f.endswith(".py")),
        ]
    )


def test_ruff_format():
    check(
        [
            os.path.join(VENV_BIN, "ruff"),
            "format",
            "--check",
            "--no-cache",
            *tracked(lambda f: f.endswith(".py")),
        ]
    )


def test_clang_format():
    sources = tracked(lambda f: f.endswith((".cc", ".h")))
    check([os.path.join(VENV_BIN, "clang-format"), "--dry-run", "--Werror", *sources])


# Standard names and the header that declares them. A file that uses one includes that header
# itself rather than relying on another header to pull it in: GCC 14's libstdc++ stopped bringing
# <algorithm> in through <string> and friends, and a Debian 13 build failed on std::clamp. The
# table covers the names this code base uses; `also` lists headers that guarantee the same names.
INCLUDE_RULES = [
    ("algorithm", r"std::(clamp|min|max|minmax|sort|stable_sort|fill|fill_n|copy|copy_n|find"
     r"|find_if|reverse|min_element|max_element|any_of|all_of|none_of|count_if|transform"
     r"|lower_bound|upper_bound|equal|unique|remove_if|nth_element|partial_sort|binary_search"
     r"|for_each|rotate|is_sorted)\b(?!_)", ()),
    ("numeric", r"std::(iota|accumulate|gcd|lcm|inner_product|partial_sum)\b", ()),
    ("utility", r"std::(move|forward|pair|make_pair|exchange|index_sequence)\b",
     ("tuple", "map", "algorithm")),
    ("memory", r"std::(unique_ptr|shared_ptr|make_unique|make_shared|weak_ptr)\b", ()),
    ("vector", r"std::vector\b", ()),
    ("string", r"std::(string|to_string|stoi|stoll|stoull)\b", ()),
    ("string_view", r"std::string_view\b", ()),
    ("cstring", r"\b(memcpy|memset|memmove|memcmp|strlen|strcmp|strncmp|strerror)\s*\(",
     ("string.h",)),
    ("cstdint", r"\b(u?int(8|16|32|64)_t|u?intptr_t)\b", ("stdint.h", "cinttypes")),
    ("mutex", r"std::(mutex|lock_guard|unique_lock|scoped_lock)\b", ("condition_variable",)),
    ("condition_variable", r"std::condition_variable\b", ()),
    ("thread", r"std::thread\b", ()),
    ("atomic", r"std::atomic\b", ()),
    ("functional", r"std::(function|hash|ref|cref|plus|less|greater)\b", ()),
    ("limits", r"std::numeric_limits\b", ()),
    ("cmath", r"std::(sqrt|exp|log|pow|floor|ceil|round|fabs|isnan|isinf|isfinite|nearbyint"
     r"|lround|fma|tanh|trunc|log1p|expm1|rint)\b", ("math.h",)),
    ("array", r"std::array\b", ()),
    ("map", r"std::map\b", ()),
    ("set", r"std::set\b", ()),
    ("unordered_map", r"std::unordered_map\b", ()),
    ("unordered_set", r"std::unordered_set\b", ()),
    ("deque", r"std::deque\b", ()),
    ("optional", r"std::(optional|nullopt)\b", ()),
    ("tuple", r"std::(tuple|tie|make_tuple)\b", ()),
    ("chrono", r"std::chrono\b", ()),
    ("sstream", r"std::(ostringstream|istringstream|stringstream)\b", ()),
    ("random", r"std::(mt19937|mt19937_64|uniform_int_distribution|normal_distribution"
     r"|uniform_real_distribution)\b", ()),
    ("initializer_list", r"std::initializer_list\b", ()),
    ("cstdio", r"\b(snprintf|fprintf|printf|fopen|fclose|fwrite|fread|fflush)\s*\(", ("stdio.h",)),
    ("cstdlib", r"\b(std::)?(abort|getenv|malloc|free|strtol|strtoll|strtoull)\s*\(",
     ("stdlib.h",)),
    ("climits", r"\b(INT_MAX|INT_MIN|LLONG_MAX|CHAR_BIT|UINT_MAX|SIZE_MAX)\b",
     ("limits.h", "cstdint", "stdint.h")),
    ("cerrno", r"\berrno\b", ("errno.h",)),
]  # fmt: skip


def test_cpp_files_include_what_they_use():
    rules = [(h, re.compile(p), {h, *also}) for h, p, also in INCLUDE_RULES]
    missing = []
    for path in tracked(lambda f: f.endswith((".cc", ".h"))):
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        included = set(re.findall(r"^#include\s*<([^>]+)>", text, re.M))
        code = re.sub(r'"(\\.|[^"\\\n])*"', '""', re.sub(r"//[^\n]*", "", text))
        for header, pattern, satisfied_by in rules:
            used = pattern.search(code)
            if used and not included & satisfied_by:
                missing.append(f"{path}: uses {used.group(0).strip()} without #include <{header}>")
    assert not missing, "\n".join(missing)
