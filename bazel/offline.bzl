"""Local stand-ins for repositories that Bazel 4.2's implicit WORKSPACE suffix would download.

Declaring a repository in our WORKSPACE before the suffix runs makes the suffix's `maybe(...)`
declarations no-ops, so no build or test reaches for the network.
"""

def _native_rules_impl(repository_ctx):
    predeclared = repository_ctx.attr.globals

    # `CcInfo = CcInfo` fails (the name is read before its own assignment) and loaded names are
    # not re-exported, so predeclared names are saved under other names in one file, loaded under
    # those, and assigned to the public names.
    repository_ctx.file("private/BUILD", "")
    repository_ctx.file("private/globals.bzl", "".join(['"""Predeclared globals, renamed."""\n\n'] + [
        "%s_ = %s\n" % (name, name)
        for name in predeclared
    ]))
    for path, names in repository_ctx.attr.files.items():
        saved = ['"%s_"' % n for n in names if n in predeclared]
        content = ['"""Bazel\'s native rules at the load path of the real %s."""\n\n' % repository_ctx.name]
        if saved:
            content.append('load("//private:globals.bzl", %s)\n\n' % ", ".join(saved))
        content.extend([
            ("%s = %s_\n" if n in predeclared else "%s = native.%s\n") % (n, n)
            for n in names
        ])
        repository_ctx.file(path, "".join(content))
        repository_ctx.file(path.rpartition("/")[0] + "/BUILD", "")
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", "")

native_rules = repository_rule(
    implementation = _native_rules_impl,
    attrs = {
        "files": attr.string_list_dict(
            mandatory = True,
            doc = "A .bzl path in the repository -> the names it exports.",
        ),
        "globals": attr.string_list(doc = "Names among `files` that are predeclared globals, not native.*."),
    },
    doc = """A stand-in for a rule set (rules_cc, rules_python, rules_shell) that re-exports the
native rules at the real rule set's load paths. BUILD files load rules from there as newer Bazel
requires, and a later Bazel swaps this for the real repository without touching them.""",
)

_COVERAGE_TOOL = """#!/bin/sh
echo "swigflow: coverage tools are not available offline (Bazel 4.2 downloads them)." >&2
exit 1
"""

def _offline_coverage_tools_impl(repository_ctx):
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("unavailable.sh", _COVERAGE_TOOL, executable = True)
    repository_ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "coverage_report_generator",
    srcs = ["unavailable.sh"],
)

sh_binary(
    name = "lcov_merger",
    srcs = ["unavailable.sh"],
)
""")

offline_coverage_tools = repository_rule(
    implementation = _offline_coverage_tools_impl,
    doc = "Targets every test rule names implicitly; `bazel coverage` fails clearly instead of downloading.",
)
