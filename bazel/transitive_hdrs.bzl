"""transitive_hdrs: the public headers of C++ libraries as a tree of include paths (TF's shape).

    transitive_hdrs(name = "include", deps = ["//native/io:crc32c"])

outputs `include/swigflow/io/crc32c.h`, ... : every header of this repository that the deps make
visible, at the path a user #includes it by. build_pip_package ships that tree in the wheel.

CcInfo lists a header under the path the compiler sees, which may be
  native/io/crc32c.h                                                    (source)
  bazel-out/k8-opt/bin/native/io/_virtual_includes/crc32c/swigflow/io/crc32c.h  (include_prefix)
  external/<repo>/...                                                   (another repository)
and with strip_include_prefix/include_prefix it lists both the source and its _virtual_includes
twin. Headers of other repositories (Python's, say) are not ours to ship and are skipped.
"""

load("@rules_cc//cc:defs.bzl", "CcInfo")

_VIRTUAL = "/_virtual_includes/"

def _root_relative(path):
    """A header's path with bazel-out/<config>/bin/ and external/<repo>/ removed."""
    if path.startswith("bazel-out/"):
        path = path.split("/", 3)[3]
    if path.startswith("external/"):
        path = path.split("/", 2)[2]
    return path

def _include_path(path):
    """The path code #includes a header by: relative to its _virtual_includes/<target>/ if any."""
    path = _root_relative(path)
    if _VIRTUAL in path:
        return path.split(_VIRTUAL, 1)[1].split("/", 1)[1]
    return path

def _transitive_hdrs_impl(ctx):
    headers = depset(transitive = [
        dep[CcInfo].compilation_context.headers
        for dep in ctx.attr.deps
    ]).to_list()
    ours = [h for h in headers if not h.owner.workspace_name]

    # A source header whose package also exposes it through _virtual_includes is shipped only
    # under its virtual (prefixed) path: match on the package and the name within the package.
    virtual_tails = {}
    for h in ours:
        if _VIRTUAL in h.path:
            virtual_tails[(h.owner.package, h.basename)] = _include_path(h.path)

    by_include_path = {}
    for h in ours:
        path = _include_path(h.path)
        twin = virtual_tails.get((h.owner.package, h.basename))
        if _VIRTUAL not in h.path and twin and twin.endswith(h.short_path[len(h.owner.package) + 1:]):
            continue
        if path in by_include_path and by_include_path[path] != h:
            fail("two headers claim include path %s: %s and %s" % (path, by_include_path[path].path, h.path))
        by_include_path[path] = h

    outputs = []
    for path in sorted(by_include_path):
        out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, path))
        ctx.actions.symlink(output = out, target_file = by_include_path[path])
        outputs.append(out)
    return [DefaultInfo(
        files = depset(outputs),
        runfiles = ctx.runfiles(files = outputs),
    )]

transitive_hdrs = rule(
    implementation = _transitive_hdrs_impl,
    attrs = {
        "deps": attr.label_list(mandatory = True, providers = [CcInfo]),
    },
    doc = "This repository's headers visible through deps, laid out by include path under <name>/.",
)
