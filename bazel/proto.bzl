"""py_proto_descriptors: .proto files compiled into a Python module holding their descriptors.

protoc parses the .proto files into a FileDescriptorSet (every file, each after those it
imports); a small generator writes it into a module as one bytes constant. The Python package
loads that set into a descriptor pool of its own and asks protobuf's runtime for the message
classes (swigflow/proto/__init__.py). Unlike protoc's --python_out, which registers the files in
protobuf's default pool, this lets our copy of TensorFlow's schema load beside TensorFlow's own;
and a descriptor set is data, not generated code, so no gencode/runtime version pairing applies.

    py_proto_descriptors(
        name = "descriptors",
        srcs = ["feature.proto", "example.proto"],
        proto_root = "python",  # import paths are relative to it: "swigflow/proto/feature.proto"
    )
"""

def _import_path(src, proto_root):
    prefix = proto_root + "/" if proto_root else ""
    if not src.short_path.startswith(prefix):
        fail("%s is not under proto_root %s" % (src.short_path, proto_root))
    return src.short_path[len(prefix):]

def _py_proto_descriptors_impl(ctx):
    descriptor_set = ctx.actions.declare_file(ctx.label.name + ".binpb")
    protoc = ctx.actions.args()
    protoc.add("--proto_path=" + (ctx.attr.proto_root or "."))
    protoc.add("--include_imports")
    protoc.add("--descriptor_set_out=" + descriptor_set.path)
    protoc.add_all([_import_path(src, ctx.attr.proto_root) for src in ctx.files.srcs])
    ctx.actions.run(
        executable = ctx.executable._protoc,
        arguments = [protoc],
        inputs = ctx.files.srcs,
        outputs = [descriptor_set],
        mnemonic = "ProtoDescriptorSet",
        progress_message = "Compiling descriptors of %{label}",
    )

    module = ctx.actions.declare_file(ctx.label.name + ".py")
    generator = ctx.actions.args()
    generator.add(ctx.file._generator)
    generator.add(descriptor_set)
    generator.add(module)
    generator.add_all([_import_path(src, ctx.attr.proto_root) for src in ctx.files.srcs])
    ctx.actions.run(
        executable = ctx.executable._python,
        arguments = [generator],
        inputs = [descriptor_set, ctx.file._generator],
        outputs = [module],
        mnemonic = "ProtoDescriptorModule",
        progress_message = "Writing %{output}",
    )
    return [DefaultInfo(files = depset([module]), runfiles = ctx.runfiles(files = [module]))]

py_proto_descriptors = rule(
    implementation = _py_proto_descriptors_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".proto"], mandatory = True),
        "proto_root": attr.string(doc = "The directory import paths are relative to."),
        "_generator": attr.label(
            default = "//bazel:descriptor_module.py",
            allow_single_file = True,
        ),
        "_protoc": attr.label(
            default = "@local_config_protoc//:protoc",
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
        "_python": attr.label(
            default = "@local_config_python//:python3",
            executable = True,
            cfg = "exec",
        ),
    },
    doc = "A Python module `<name>.py` whose FILE_DESCRIPTOR_SET holds the compiled srcs.",
)
