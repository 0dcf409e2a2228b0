"""Repository rule exposing the configured protoc (Debian's protobuf-compiler) as `:protoc`.

./configure writes PROTOC_PATH into .bazelrc.user. protoc only turns .proto files into
descriptors here (see proto.bzl), a format every protoc and every protobuf runtime share, so its
version is reported, not pinned to the runtime's.
"""

_NOT_CONFIGURED = """swigflow: protoc is not configured for Bazel (PROTOC_PATH is unset).
Run ./configure in the repository root first; it installs protobuf-compiler and writes .bazelrc.user."""

def _protoc_configure_impl(repository_ctx):
    protoc = repository_ctx.os.environ.get("PROTOC_PATH", "")
    if not protoc:
        fail(_NOT_CONFIGURED)
    result = repository_ctx.execute([protoc, "--version"])
    if result.return_code != 0:
        fail("swigflow: %s --version failed (%s). Run ./configure." % (protoc, result.stderr.strip()))
    repository_ctx.symlink(protoc, "protoc")
    repository_ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % repository_ctx.name)
    repository_ctx.file("BUILD", 'package(default_visibility = ["//visibility:public"])\n\nexports_files(["protoc"])\n')
    repository_ctx.file("version.txt", result.stdout.strip() + "\n")

protoc_configure = repository_rule(
    implementation = _protoc_configure_impl,
    environ = ["PROTOC_PATH"],
    local = True,
    doc = "The protoc binary (`:protoc`) from PROTOC_PATH.",
)
