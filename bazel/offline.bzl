"""Local stand-ins for repositories that Bazel 4.2's implicit WORKSPACE suffix would download.

Declaring a repository in our WORKSPACE before the suffix runs makes the suffix's `maybe(...)`
declarations no-ops, so no build or test reaches for the network.
"""

# @bazel_tools loads exactly these names from @rules_cc//cc:defs.bzl; on Bazel 4.2 they are native.
_RULES_CC_NAMES = [
    "cc_binary",
    "cc_import",
    "cc_library",
    "cc_proto_library",
    "cc_test",
    "cc_toolchain",
    "cc_toolchain_suite",
    "objc_library",
]

def _offline_rules_cc_impl(repository_ctx):
    defs = ['"""Bazel\'s native C++ rules under the names rules_cc exports."""\n']
    for rule_name in _RULES_CC_NAMES:
        defs.append("%s = native.%s\n" % (rule_name, rule_name))
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", "")
    repository_ctx.file("cc/BUILD", 'exports_files(["defs.bzl"])\n')
    repository_ctx.file("cc/defs.bzl", "".join(defs))

offline_rules_cc = repository_rule(
    implementation = _offline_rules_cc_impl,
    doc = "A rules_cc whose cc/defs.bzl re-exports the native rules (Debian's rules_cc needs Bazel 5).",
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
