"""Repositories backed by Debian packages that ./configure installs.

Each rule checks that its package's files exist and otherwise fails with the package to install,
rather than letting a build fail later with a missing-file or link error.
"""

def _missing(package, what):
    fail("swigflow: %s not found; it comes from the Debian package '%s'. Run ./configure." % (what, package))

def _debian_repository_impl(repository_ctx):
    root = repository_ctx.path(repository_ctx.attr.path)
    if not root.exists:
        _missing(repository_ctx.attr.package, repository_ctx.attr.path)
    for entry in root.readdir():
        repository_ctx.symlink(entry, entry.basename)

debian_repository = repository_rule(
    implementation = _debian_repository_impl,
    attrs = {
        "package": attr.string(mandatory = True, doc = "The Debian package that installs `path`."),
        "path": attr.string(mandatory = True, doc = "An installed Bazel repository, e.g. a rules_* tree."),
    },
    doc = "A Bazel repository that a Debian package installs (like local_repository, but with a clear error).",
)

def _debian_cc_library_impl(repository_ctx):
    for header in repository_ctx.attr.headers:
        if not repository_ctx.path(header).exists:
            _missing(repository_ctx.attr.package, header)

    # The headers live in /usr/include, which the auto-configured toolchain already searches.
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", """cc_library(
    name = "{name}",
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
""".format(name = repository_ctx.attr.target, linkopts = repr(repository_ctx.attr.linkopts)))

debian_cc_library = repository_rule(
    implementation = _debian_cc_library_impl,
    attrs = {
        "headers": attr.string_list(doc = "Absolute paths whose presence shows the package is installed."),
        "linkopts": attr.string_list(mandatory = True),
        "package": attr.string(mandatory = True),
        "target": attr.string(mandatory = True, doc = "The name of the cc_library in the repository."),
    },
    doc = "A system C/C++ library from a Debian -dev package, as `@<name>//:<target>`.",
)

def _debian_static_library_impl(repository_ctx):
    for header in repository_ctx.attr.headers:
        if not repository_ctx.path(header).exists:
            _missing(repository_ctx.attr.package, header)
    archive = repository_ctx.attr.archive
    if not repository_ctx.path(archive).exists:
        _missing(repository_ctx.attr.package, archive)
    local = archive.split("/")[-1]
    if repository_ctx.attr.alwayslink:  # Bazel links a precompiled archive whole only as .lo
        local = local[:-len(".a")] + ".lo"
    command = ["objcopy"]
    for old, new in sorted(repository_ctx.attr.redefine_syms.items()):
        command.append("--redefine-sym=%s=%s" % (old, new))
    result = repository_ctx.execute(command + [archive, local])
    if result.return_code != 0:
        fail("swigflow: objcopy of %s failed: %s" % (archive, result.stderr))
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", """cc_library(
    name = "{name}",
    srcs = ["{archive}"],
    alwayslink = {alwayslink},
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
""".format(
        name = repository_ctx.attr.target,
        archive = local,
        alwayslink = repr(repository_ctx.attr.alwayslink),
        linkopts = repr(repository_ctx.attr.linkopts),
    ))

debian_static_library = repository_rule(
    implementation = _debian_static_library_impl,
    attrs = {
        "alwayslink": attr.bool(
            doc = "Link the whole archive: for one that only shared objects of ours call (a test " +
                  "binary links none of it otherwise).",
        ),
        "archive": attr.string(mandatory = True, doc = "The package's static archive (.a)."),
        "headers": attr.string_list(doc = "Absolute paths whose presence shows the package is installed."),
        "linkopts": attr.string_list(doc = "What the archive itself needs (e.g. -lz)."),
        "package": attr.string(mandatory = True),
        "redefine_syms": attr.string_dict(
            doc = "Symbols to rename in a copy of the archive (objcopy --redefine-sym).",
        ),
        "target": attr.string(mandatory = True, doc = "The name of the cc_library in the repository."),
    },
    doc = """A static archive from a Debian -dev package, as `@<name>//:<target>`, to link into a
shared object. Debian builds its archives position-independent, except that libc's `stderr`
(data) is reached PC-relatively, which a shared object cannot resolve from libc: `redefine_syms`
points such references at a variable of our own (see native/image/image.cc).""",
)
